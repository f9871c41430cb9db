// `gatehouse run` end to end: the real binary, real processes, real files; piped, and in a
// pseudo-terminal (util-linux `script`) answering the prompt and pressing Ctrl-C.
import { spawn } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

const bin = NodePath.resolve(import.meta.dirname, "../dist/gatehouse.js")
const root = realpathSync(mkdtempSync(NodePath.join(tmpdir(), "gatehouse-run-")))
const data = NodePath.join(root, "data")

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const project = (name: string, config?: unknown): string => {
  const dir = NodePath.join(root, name)
  mkdirSync(dir, { recursive: true })
  if (config !== undefined) writeFileSync(NodePath.join(dir, "gatehouse.json"), JSON.stringify(config))
  return dir
}

const env = { ...process.env, XDG_DATA_HOME: data, NO_COLOR: "1" }

/** `gatehouse run ARGS` with stdin a pipe (not a terminal). */
const piped = (cwd: string, args: ReadonlyArray<string>) =>
  Effect.promise(
    () =>
      new Promise<Ran>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, "run", ...args], {
          cwd,
          env,
          stdio: ["pipe", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk) => (stdout += chunk))
        child.stderr.on("data", (chunk) => (stderr += chunk))
        child.on("error", reject)
        child.on("close", (code) => resolve({ code, stdout, stderr }))
        child.stdin.end()
      })
  )

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

type Step = readonly [when: RegExp | ((screen: string) => boolean), type: string]

/**
 * `gatehouse run ARGS` in a pseudo-terminal. Each step types its text once its condition
 * holds (a pattern on the screen so far, or a predicate polled every 50 ms), in order.
 */
const inTerminal = (cwd: string, args: ReadonlyArray<string>, steps: ReadonlyArray<Step>) =>
  Effect.promise(
    () =>
      new Promise<{ readonly code: number | null; readonly screen: string }>((resolve, reject) => {
        const line = [process.execPath, bin, "run", ...args].map(quote).join(" ")
        // script runs the line with $SHELL -c: exec, so no shell stays between the terminal and
        // gatehouse (dash would itself die of a Ctrl-C and script would report that 130).
        const child = spawn("script", ["-qec", `exec ${line}`, "/dev/null"], {
          cwd,
          env,
          stdio: ["pipe", "pipe", "inherit"]
        })
        let screen = ""
        let step = 0
        const advance = () => {
          const next = steps[step]
          if (next === undefined) return
          if (typeof next[0] === "function" ? next[0](screen) : next[0].test(screen)) {
            step++
            child.stdin.write(next[1])
          }
        }
        const poll = setInterval(advance, 50)
        child.stdout.on("data", (chunk) => {
          screen += chunk
          advance()
        })
        child.on("error", reject)
        child.on("close", (code) => {
          clearInterval(poll)
          child.stdin.destroy()
          resolve({ code, screen })
        })
      })
  )

const running = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
    return !"ZX".includes(stat.slice(stat.lastIndexOf(")") + 2)[0]!)
  } catch {
    return false
  }
}

// Each run starts a Node process that loads the whole pipeline: slow on a loaded machine.
const SLOW = 120_000

const PROMPT = /\[r\].*eject.*\[o\].*nce.*\[a\].*lways.*> $/s

describe("gatehouse run, piped", () => {
  it.live(
    "prints the command's output, without the model's status block, and exits with the command's code",
    () =>
      Effect.gen(function* () {
        const dir = project("plain", { permission: { bash: { "*": "allow" } } })
        const ran = yield* piped(dir, ["--", "echo out; echo err >&2; exit 7"])
        assert.strictEqual(ran.code, 7)
        assert.strictEqual(ran.stdout, "out\nerr\n")
        const words = yield* piped(dir, ["echo", "a", "b"])
        assert.strictEqual(words.code, 0)
        assert.strictEqual(words.stdout, "a b\n")
      }),
    SLOW
  )

  it.live(
    "keeps the output inside the config's tool_output limits, the whole in a file",
    () =>
      Effect.gen(function* () {
        const dir = project("limits", { tool_output: { max_lines: 3 } })
        const ran = yield* piped(dir, ["--", "seq 1 50"])
        assert.strictEqual(ran.code, 0)
        const kept = ran.stdout.split("\n").filter((line) => /^\d+$/.test(line))
        assert.isBelow(kept.length, 50)
        const spilled = /(\/\S+tool_[^\s]+)/.exec(ran.stderr)?.[1]
        assert.isDefined(spilled, ran.stderr)
        assert.strictEqual(
          readFileSync(spilled!, "utf8"),
          `${Array.from({ length: 50 }, (_, i) => i + 1).join("\n")}\n`
        )
      }),
    SLOW
  )

  it.live(
    "exits 124 on timeout and 128+N when the command dies by signal N",
    () =>
      Effect.gen(function* () {
        const dir = project("codes", { permission: { bash: { "*": "allow" } } })
        const timedOut = yield* piped(dir, ["--timeout", "300", "--", "echo started; sleep 20"])
        assert.strictEqual(timedOut.code, 124)
        assert.isTrue(timedOut.stdout.startsWith("started\n"))
        assert.include(timedOut.stderr, "timed out after 300 ms")
        const killed = yield* piped(dir, ["--", "kill -TERM $$"])
        assert.strictEqual(killed.code, 143)
      }),
    SLOW
  )

  it.live(
    "exits 126 when a rule denies the command, naming the rule; nothing runs",
    () =>
      Effect.gen(function* () {
        const dir = project("deny", { permission: { bash: { "touch *": "deny" } } })
        const ran = yield* piped(dir, ["touch", "marker"])
        assert.strictEqual(ran.code, 126)
        assert.strictEqual(ran.stdout, "")
        assert.include(ran.stderr, 'bash "touch *" deny')
        assert.include(ran.stderr, '{"bash":{"touch marker":"allow"}}')
        assert.isFalse(existsSync(NodePath.join(dir, "marker")))
      }),
    SLOW
  )

  it.live(
    "fails closed without a terminal: 126, and stderr says which rule to add",
    () =>
      Effect.gen(function* () {
        const dir = project("headless", { permission: { bash: { "touch *": "ask" } } })
        const ran = yield* piped(dir, ["touch", "marker"])
        assert.strictEqual(ran.code, 126)
        assert.include(ran.stderr, 'bash "touch marker" needs approval')
        assert.include(ran.stderr, '{"bash":{"touch *":"allow"}}')
        assert.isFalse(existsSync(NodePath.join(dir, "marker")))
      }),
    SLOW
  )

  it.live(
    "with no gatehouse.json, rm -rf needs approval: without a terminal it is refused and nothing is deleted",
    () =>
      Effect.gen(function* () {
        const dir = project("no-config")
        mkdirSync(NodePath.join(dir, "build"))
        writeFileSync(NodePath.join(dir, "build", "keep.txt"), "kept\n")
        const removed = yield* piped(dir, ["rm", "-rf", "build"])
        assert.strictEqual(removed.code, 126)
        assert.include(removed.stderr, "needs approval")
        assert.strictEqual(readFileSync(NodePath.join(dir, "build", "keep.txt"), "utf8"), "kept\n")
        const everything = yield* piped(dir, ["--", "rm -rf ."])
        assert.strictEqual(everything.code, 126)
        assert.isTrue(existsSync(NodePath.join(dir, "build", "keep.txt")))
        // A harmless command runs under the same defaults.
        const listed = yield* piped(dir, ["ls"])
        assert.strictEqual(listed.code, 0, listed.stderr)
        assert.strictEqual(listed.stdout, "build\n")
      }),
    SLOW
  )

  it.live(
    "exits 2 for usage and configuration errors",
    () =>
      Effect.gen(function* () {
        const dir = project("usage")
        assert.strictEqual((yield* piped(dir, [])).code, 2)
        assert.strictEqual((yield* piped(dir, ["--mode", "maybe", "ls"])).code, 2)
        assert.strictEqual((yield* piped(dir, ["--timeout", "soon", "ls"])).code, 2)
        const broken = project("broken", { permission: { bash: { "*": "perhaps" } } })
        const ran = yield* piped(broken, ["ls"])
        assert.strictEqual(ran.code, 2)
        assert.include(ran.stderr, 'permission.bash["*"]')
      }),
    SLOW
  )
})

describe("gatehouse run --stderr", () => {
  it.live(
    "sends the command's stderr to stderr and only its stdout to stdout; without it both are on stdout",
    () =>
      Effect.gen(function* () {
        const dir = project("stderr", { permission: { bash: { "*": "allow" } } })
        const command = "for i in 1 2 3; do echo out$i; echo err$i >&2; done; exit 4"
        const split = yield* piped(dir, ["--stderr", "--", command])
        assert.strictEqual(split.code, 4)
        assert.strictEqual(split.stdout, "out1\nout2\nout3\n")
        assert.include(split.stderr, "err1\nerr2\nerr3\n")
        assert.notInclude(split.stdout, "err")
        const merged = yield* piped(dir, ["--", command])
        assert.strictEqual(merged.stdout, "out1\nerr1\nout2\nerr2\nout3\nerr3\n")
        assert.notInclude(merged.stderr, "err1")
      }),
    SLOW
  )
})

describe("gatehouse run, for a person", () => {
  it.live(
    "stdout holds no text meant for the model; the truncation and the full output's path are on stderr",
    () =>
      Effect.gen(function* () {
        const dir = project("human", { permission: { bash: { "*": "allow" } } })
        const { code, stdout, stderr } = yield* piped(dir, ["--sandbox", "off", "--", "seq 1 3000; exit 3"])
        assert.strictEqual(code, 3, stderr)
        assert.notInclude(stdout, "<command_status>")
        assert.notInclude(stdout, "Use Grep")
        assert.include(stdout, "lines truncated")
        const path = /the output was truncated \(\d+ lines left out\); the full output is in (\S+)/.exec(
          stderr
        )?.[1]
        assert.isDefined(path, stderr)
        assert.strictEqual(readFileSync(path!, "utf8").split("\n").length, 3001)
        const denied = yield* piped(project("human-deny", { permission: { bash: { "rm *": "deny" } } }), [
          "rm",
          "-rf",
          "x"
        ])
        assert.strictEqual(denied.code, 126)
        assert.notInclude(denied.stderr, "do not retry")
        assert.include(denied.stderr, 'Denied by rule bash "rm *" deny')
      }),
    SLOW
  )
})

describe("gatehouse run, in a terminal", () => {
  it.live(
    "shows the ask with its trace and runs the command once approved",
    () =>
      Effect.gen(function* () {
        const dir = project("tty-once", { permission: { bash: { "touch *": "ask" } } })
        const { code, screen } = yield* inTerminal(dir, ["touch", "marker"], [[PROMPT, "o\r"]])
        assert.strictEqual(code, 0)
        // Laid out for a person: the command once, where it runs, the rule by its text and file.
        assert.include(screen, "bash wants to run")
        assert.include(screen, "touch marker")
        assert.include(screen, `in ${dir}`)
        assert.match(screen, /touch marker: by bash "touch \*" ask in \S*gatehouse\.json/)
        assert.include(screen, "[a]lways would allow bash from now on: touch *")
        assert.notInclude(screen, '\\"')
        assert.isTrue(existsSync(NodePath.join(dir, "marker")))
      }),
    SLOW
  )

  it.live(
    "a rejection at the prompt exits 126 and never runs the command",
    () =>
      Effect.gen(function* () {
        const dir = project("tty-reject", { permission: { bash: { "touch *": "ask" } } })
        const { code } = yield* inTerminal(dir, ["touch", "marker"], [[PROMPT, "r\r"]])
        assert.strictEqual(code, 126)
        assert.isFalse(existsSync(NodePath.join(dir, "marker")))
      }),
    SLOW
  )

  it.live(
    "with no gatehouse.json, rm -rf asks in the terminal, naming the default; rejected, nothing is deleted",
    () =>
      Effect.gen(function* () {
        const dir = project("tty-no-config")
        mkdirSync(NodePath.join(dir, "build"))
        writeFileSync(NodePath.join(dir, "build", "keep.txt"), "kept\n")
        const { code, screen } = yield* inTerminal(dir, ["rm", "-rf", "build"], [[PROMPT, "r\r"]])
        assert.strictEqual(code, 126)
        assert.include(screen, "default: a command asks unless it is harmless")
        assert.isTrue(existsSync(NodePath.join(dir, "build", "keep.txt")))
      }),
    SLOW
  )

  it.live(
    '"always" is remembered across runs for the project',
    () =>
      Effect.gen(function* () {
        const dir = project("tty-always", { permission: { bash: { "touch *": "ask" } } })
        const first = yield* inTerminal(dir, ["touch", "first"], [[PROMPT, "a\r"]])
        assert.strictEqual(first.code, 0)
        const second = yield* piped(dir, ["touch", "second"])
        assert.strictEqual(second.code, 0, second.stderr)
        assert.isTrue(existsSync(NodePath.join(dir, "second")))
      }),
    SLOW
  )

  it.live(
    "--no-input never prompts, even in a terminal",
    () =>
      Effect.gen(function* () {
        const dir = project("tty-no-input", { permission: { bash: { "touch *": "ask" } } })
        const { code, screen } = yield* inTerminal(dir, ["--no-input", "touch", "marker"], [])
        assert.strictEqual(code, 126)
        assert.notInclude(screen, "[o]")
        assert.isFalse(existsSync(NodePath.join(dir, "marker")))
      }),
    SLOW
  )

  it.live(
    "Ctrl-C stops the command and everything it started, then exits 130",
    () =>
      Effect.gen(function* () {
        const dir = project("tty-interrupt")
        const started = NodePath.join(dir, "started")
        const { code, screen } = yield* inTerminal(
          dir,
          // Unsandboxed: the test reads the background pid, which a PID namespace would renumber.
          ["--sandbox", "off", "--", "sleep 30 & echo bg=$!; echo started; touch started; sleep 30"],
          [[() => existsSync(started), "\u0003"]]
        )
        assert.strictEqual(code, 130)
        assert.include(screen, "started")
        assert.include(screen, "The user interrupted the command")
        const pid = Number(/bg=(\d+)/.exec(screen)?.[1])
        assert.isAbove(pid, 0)
        assert.isFalse(running(pid))
      }),
    SLOW
  )

  it.live(
    "escape sequences in the ask and in the output are shown, not obeyed by the terminal",
    () =>
      Effect.gen(function* () {
        const dir = project("tty-escapes", { permission: { bash: { "echo *": "ask" } } })
        // The model's command hides itself behind "erase the line, back to its start".
        const asked = yield* inTerminal(dir, ["echo", "\u001b[2K\rls -la"], [[PROMPT, "r\r"]])
        assert.strictEqual(asked.code, 126)
        assert.include(asked.screen, "echo \\x1b[2K\\rls -la")
        assert.notInclude(asked.screen, "\u001b[2K")
        const printed = yield* inTerminal(dir, ["--", "printf 'a\\033[2Kb\\n'"], [])
        assert.strictEqual(printed.code, 0)
        assert.include(printed.screen, "a\\x1b[2Kb")
        assert.notInclude(printed.screen, "\u001b[2K")
      }),
    SLOW
  )
})

process.on("exit", () => rmSync(root, { recursive: true, force: true }))
