// Every process a command starts is held, even one that clears its environment (so the
// run's tag is lost) and leaves the process group: by a cgroup of its own where one can be
// made, else by a PID namespace of its own. Real processes throughout; each escaped process
// is a `sleep` with a unique argument, counted in /proc.
import { type ChildProcess, spawn } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Cgroup from "../src/internal/cgroup.ts"
import * as Watcher from "../src/internal/watcher.ts"
import * as Sandbox from "../src/Sandbox.ts"
import * as ShellProcess from "../src/ShellProcess.ts"

const dir = realpathSync(mkdtempSync(NodePath.join(tmpdir(), "gatehouse-containment-")))
const bash: ShellProcess.Shell = { name: "bash", path: "/bin/bash", dialect: "bash" }
const own = Cgroup.ownDirectory()
const probe = "path" in own ? Cgroup.create("probe") : own
const cgroups = "path" in probe && Cgroup.remove(probe)
const bwrap = Sandbox.detect()
const pidNamespace = bwrap.kind === "bwrap" ? bwrap.path : undefined

let serial = 0
/** A `sleep` argument no other process has: its processes are counted by it. */
const marker = () => `${1000 + (process.pid % 1000)}.${Date.now() % 100000}${serial++}`

/** The running (not zombie) processes whose command line is `sleep <seconds>`. */
const sleepers = (seconds: string): Array<number> => {
  const out: Array<number> = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "latin1") !== `sleep\0${seconds}\0`) continue
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1")
      const state = stat.slice(stat.lastIndexOf(")") + 2)[0]
      if (state !== "Z" && state !== "X") out.push(Number(entry))
    } catch {
      // Gone meanwhile.
    }
  }
  return out
}

const cleanup: Array<() => void> = []
afterEach(() => {
  for (const f of cleanup.splice(0).reverse()) f()
})
const reap = (seconds: string) =>
  cleanup.push(() => {
    for (const pid of sleepers(seconds)) process.kill(pid, "SIGKILL")
  })

// Each leaves the group and clears its environment, then sleeps with its output closed.
const escapes = (seconds: string): Record<string, string> => ({
  "env -i setsid": `env -i setsid sleep ${seconds} >/dev/null 2>&1 </dev/null &`,
  "env -i set -m": `set -m; env -i sleep ${seconds} >/dev/null 2>&1 </dev/null & set +m;`,
  "env -i setpgid": `env -i perl -e 'setpgrp(0, 0); exec "sleep", "${seconds}"' >/dev/null 2>&1 </dev/null &`,
  "env -i double fork": `env -i /bin/sh -c '(setsid sleep ${seconds} >/dev/null 2>&1 </dev/null &)' &`
})

type Mode = "cgroup" | "pid-namespace" | "none"

const options = (mode: Mode): Partial<ShellProcess.RunOptions> => ({
  ...(mode === "cgroup" ? {} : { cgroupParent: "/nonexistent/gatehouse" }),
  pidNamespace: () => (mode === "pid-namespace" ? pidNamespace : undefined)
})

const runIn = (mode: Mode, command: string) =>
  ShellProcess.run({
    shell: bash,
    command,
    cwd: dir,
    timeout: "20 seconds",
    onOutput: () => Effect.void,
    drainQuiet: 50,
    drainMax: 300,
    killAfter: 500,
    ...options(mode)
  })

// The shell waits until the escaped process is a running sleep, so the run ends with it in place.
const settle = (seconds: string) =>
  `for i in $(seq 100); do [ -n "$(pgrep -fx "sleep ${seconds}")" ] && break; sleep 0.02; done`

const leftAfterEscapes = (mode: Mode) =>
  Effect.gen(function* () {
    const left: Record<string, number> = {}
    for (const [name, technique] of Object.entries(escapes("0"))) {
      const seconds = marker()
      reap(seconds)
      const command = technique
        .replaceAll("sleep 0", `sleep ${seconds}`)
        .replaceAll('"sleep", "0"', `"sleep", "${seconds}"`)
      const outcome = yield* runIn(mode, `${command} ${settle(seconds)}`)
      assert.strictEqual(outcome.containment.kind, mode, name)
      left[name] = sleepers(seconds).length
    }
    return left
  })

describe("containment outside the sandbox", () => {
  it.live.skipIf(!cgroups)("a cgroup of its own: nothing escapes, and what was killed is said", () =>
    Effect.gen(function* () {
      const left = yield* leftAfterEscapes("cgroup")
      console.log("processes left after each escape technique (cgroup):", left)
      assert.deepStrictEqual(Object.values(left), [0, 0, 0, 0])
      const seconds = marker()
      reap(seconds)
      const outcome = yield* runIn(
        "cgroup",
        `env -i setsid sleep ${seconds} >/dev/null 2>&1 </dev/null & ${settle(seconds)}`
      )
      assert.strictEqual(outcome.killed, 1)
      assert.strictEqual(outcome.escaped, 1)
      assert.strictEqual(outcome.exitCode, 0)
      // Its cgroup is gone with it.
      const mine = readdirSync((own as { path: string }).path).filter((name) =>
        name.startsWith(`gatehouse-${process.pid}-`)
      )
      assert.deepStrictEqual(mine, [])
    })
  )

  it.live.skipIf(pidNamespace === undefined)(
    "a PID namespace of its own where no cgroup can be made: nothing escapes",
    () =>
      Effect.gen(function* () {
        const left = yield* leftAfterEscapes("pid-namespace")
        console.log("processes left after each escape technique (PID namespace):", left)
        assert.deepStrictEqual(Object.values(left), [0, 0, 0, 0])
        // Everything else is the host's: the same files, the same user, pids of its own.
        writeFileSync(NodePath.join(dir, "probe.txt"), "probe\n")
        const chunks: Array<Uint8Array> = []
        const outcome = yield* ShellProcess.run({
          shell: bash,
          command: "id -u; cat probe.txt; echo $$; echo written > written.txt",
          cwd: dir,
          timeout: "20 seconds",
          onOutput: (chunk) => Effect.sync(() => void chunks.push(Buffer.from(chunk))),
          ...options("pid-namespace")
        })
        const [uid, text, pid] = Buffer.concat(chunks).toString().trim().split("\n")
        assert.strictEqual(outcome.exitCode, 0)
        assert.strictEqual(uid, String(process.getuid!()))
        assert.strictEqual(text, "probe")
        assert.isBelow(Number(pid), 10, "the shell's pid is one of its own namespace")
        assert.strictEqual(readFileSync(NodePath.join(dir, "written.txt"), "utf8"), "written\n")
      })
  )

  it.live("with neither, the outcome says so and why (and such a process is not found)", () =>
    Effect.gen(function* () {
      const left = yield* leftAfterEscapes("none")
      console.log("processes left after each escape technique (no containment):", left)
      const outcome = yield* runIn("none", "true")
      assert.strictEqual(outcome.containment.kind, "none")
      assert.match(
        (outcome.containment as { reason: string }).reason,
        /no cgroup can be made in \/nonexistent\/gatehouse \(ENOENT\), and no bubblewrap/
      )
    })
  )

  it.live.skipIf(!cgroups)(
    "the cgroup of a Gatehouse that died with its watcher is emptied and removed by the next run",
    () =>
      Effect.gen(function* () {
        const dead = yield* Effect.promise(
          () =>
            new Promise<number>((resolve) => {
              const child = spawn("true")
              child.once("exit", () => resolve(child.pid!))
            })
        )
        const seconds = marker()
        reap(seconds)
        // In a parent of this test's own: the runs of other test files, which reap the stale
        // cgroups of their parent, cannot take it away before the sleeper is in it.
        const parent = NodePath.join((own as { path: string }).path, `test-parent-${process.pid}-${seconds}`)
        const stale = NodePath.join(parent, `gatehouse-${dead}-stale`)
        mkdirSync(stale, { recursive: true })
        cleanup.push(() => {
          for (const dir of [stale, parent])
            try {
              rmdirSync(dir)
            } catch {}
        })
        const sleeper = spawn("sleep", [seconds], { detached: true, stdio: "ignore" })
        writeFileSync(NodePath.join(stale, "cgroup.procs"), String(sleeper.pid))
        yield* ShellProcess.run({
          shell: bash,
          command: "true",
          cwd: dir,
          timeout: "20 seconds",
          onOutput: () => Effect.void,
          cgroupParent: parent
        })
        yield* Effect.sleep(200)
        assert.deepStrictEqual(sleepers(seconds), [])
        assert.deepStrictEqual(
          readdirSync(parent).filter((name) => name.startsWith("gatehouse-")),
          []
        )
      })
  )
})

describe("kill -9 of Gatehouse mid-command", () => {
  // Runs `before(seconds)` then a sleep in the group under `mode`, kills -9 the Gatehouse
  // process once `expected` sleepers run, and counts those left after it.
  const killedMidCommand = (
    mode: Mode,
    before: (seconds: string) => string = (seconds) => Object.values(escapes(seconds)).join(" "),
    expected = 5
  ) =>
    Effect.gen(function* () {
      const seconds = marker()
      reap(seconds)
      const script = NodePath.resolve(import.meta.dirname, "fixtures", "hold-run.ts")
      const child: ChildProcess = spawn(
        process.execPath,
        [script, mode, `${before(seconds)} sleep ${seconds} & echo started; wait`],
        { cwd: dir, stdio: ["ignore", "pipe", "inherit"] }
      )
      cleanup.push(() => child.kill("SIGKILL"))
      yield* Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            child.stdout!.on("data", (chunk: Buffer) => {
              if (chunk.toString().includes("started")) resolve()
            })
          })
      )
      let started = 0
      for (let i = 0; i < 100 && started < expected; i++) {
        started = sleepers(seconds).length
        if (started < expected) yield* Effect.sleep(30)
      }
      assert.strictEqual(started, expected, "every sleeper started")
      child.kill("SIGKILL")
      let left = started
      for (let i = 0; i < 60 && left > 0; i++) {
        yield* Effect.sleep(50)
        left = sleepers(seconds).length
      }
      return { started, left, pid: child.pid! }
    })

  it.live.skipIf(!cgroups)("with a cgroup: the watcher kills everything in it and removes it", () =>
    Effect.gen(function* () {
      const { left, pid } = yield* killedMidCommand("cgroup")
      console.log("kill -9 of Gatehouse (cgroup): processes left", left)
      assert.strictEqual(left, 0)
      let stale = ["?"]
      for (let i = 0; i < 40 && stale.length > 0; i++) {
        stale = readdirSync((own as { path: string }).path).filter((name) =>
          name.startsWith(`gatehouse-${pid}-`)
        )
        if (stale.length > 0) yield* Effect.sleep(50)
      }
      assert.deepStrictEqual(stale, [])
    })
  )

  it.live.skipIf(pidNamespace === undefined)("with a PID namespace: the kernel ends it with Gatehouse", () =>
    Effect.gen(function* () {
      const { left } = yield* killedMidCommand("pid-namespace")
      console.log("kill -9 of Gatehouse (PID namespace): processes left", left)
      assert.strictEqual(left, 0)
    })
  )

  it.live("with neither: the watcher kills the group and what left it carrying the run's tag", () =>
    Effect.gen(function* () {
      const { left } = yield* killedMidCommand("none", (seconds) => `setsid sleep ${seconds} &`, 2)
      assert.strictEqual(left, 0)
    })
  )
})

describe("the watcher", () => {
  it.live(
    "one serves every run of a process; a run that ended is out of its care; a dead one is replaced",
    () =>
      Effect.gen(function* () {
        const first = Watcher.watch("aaaa", 2_000_000_001, undefined)!
        const second = Watcher.watch("bbbb", 2_000_000_002, "/nonexistent/cgroup")!
        const { pid, folder } = Watcher.current()
        assert.isDefined(pid)
        assert.deepStrictEqual(readdirSync(folder!).sort(), ["run-aaaa", "run-bbbb"])
        assert.strictEqual(
          readFileSync(NodePath.join(folder!, "run-bbbb"), "utf8"),
          "2000000002 /nonexistent/cgroup\n"
        )
        first()
        assert.deepStrictEqual(readdirSync(folder!), ["run-bbbb"])
        // Killed by someone: the next run starts another, on the same folder (it covers bbbb too).
        process.kill(pid!, "SIGKILL")
        for (let i = 0; i < 100 && Watcher.current().pid !== undefined; i++) yield* Effect.sleep(10)
        const third = Watcher.watch("cccc", 2_000_000_003, undefined)!
        assert.notStrictEqual(Watcher.current().pid, pid)
        assert.strictEqual(Watcher.current().folder, folder)
        second()
        third()
        assert.deepStrictEqual(readdirSync(folder!), [])
        assert.isTrue(existsSync(folder!))
      })
  )
})
