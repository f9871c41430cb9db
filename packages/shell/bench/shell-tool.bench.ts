// The bash tool (ShellTool.run: analysis, an allowed ask, spawn, output streamed into the
// Truncate spill sink) against a raw `spawn` of the same command draining its output into
// nothing, alternated in one run:
// 1. 1 GiB of output: both sides must see 1 GiB (the tool's spill file holds all of it).
//    Goals: throughput >= 0.6x the raw spawn's, peak RSS growth < 100 MiB.
// 2. 20 calls of `true` per round: per-call cost <= 2x a raw spawn doing the same: in the
//    sandbox, against spawning the very bubblewrap command line the tool builds; with the
//    sandbox off, against spawning `bash -c true` (the tool adds its cgroup and its watcher).
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { compare, reportComparisons, rssGoal } from "../../../scripts/bench-kit.ts"
import * as Sandbox from "../src/Sandbox.ts"
import * as ShellContext from "../src/ShellContext.ts"
import * as ShellParser from "../src/ShellParser.ts"
import * as ShellTool from "../src/ShellTool.ts"

const GIB = 1024 * 1024 * 1024
const BIG = `yes 'the quick brown fox jumps over the lazy dog 0123456789' | head -c ${GIB}`
const CALLS = 20

const work = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-bench-shell-"))
const spill = NodePath.join(work, "spill")

const Live = ShellTool.layer.pipe(
  Layer.provide([
    Permission.layerMemory,
    Truncate.layerWith({ directory: spill, maxSpillBytes: 2 * GIB }),
    ShellParser.layer
  ])
)
const runtime = ManagedRuntime.make(Live)
const allowAll: ShellContext.Shape = {
  sessionID: "bench",
  ruleset: [{ permission: "*", pattern: "*", action: "allow" }],
  projectRoot: work,
  mode: "ask"
}
const viaTool = (command: string, ctx: ShellContext.Shape = allowAll) =>
  runtime.runPromise(ShellTool.run({ command }).pipe(Effect.provideService(ShellContext.Service, ctx)))
const unsandboxed: ShellContext.Shape = { ...allowAll, sandbox: { mode: "off" } }

/** A raw spawn of `argv` that counts what the command printed and drops it. */
const rawSpawn = (command: string, prefix: ReadonlyArray<string> = ["sh"]) =>
  new Promise<{ bytes: number; exitCode: number | null }>((resolve, reject) => {
    const [file, ...args] = [...prefix, "-c", command]
    const child = spawn(file!, args, { cwd: work, stdio: ["ignore", "pipe", "pipe"] })
    let bytes = 0
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length
    })
    child.stderr.on("data", (chunk: Buffer) => {
      bytes += chunk.length
    })
    child.on("error", reject)
    child.on("close", (exitCode) => resolve({ bytes, exitCode }))
  })

interface Seen {
  readonly bytes: number
  readonly exitCode: number | null
}

try {
  await viaTool("echo warm-up")
  const big = await compare<Seen>({
    case: "1 GiB of output",
    subject: {
      name: "ShellTool.run",
      run: async () => {
        const result = await viaTool(BIG)
        if (result.outputPath === undefined) throw new Error("expected a spill file")
        const bytes = statSync(result.outputPath).size
        rmSync(result.outputPath)
        return { bytes, exitCode: result.exitCode }
      }
    },
    baseline: { name: "raw spawn, drained", run: () => rawSpawn(BIG) },
    rounds: 5,
    warmup: 1,
    sampleRss: true,
    goals: [
      { text: "1 GiB through the bash tool >= 0.6x a raw spawn", judge: "speed", atLeast: 0.6 },
      rssGoal("peak RSS growth of the bash tool < 100 MiB", 100)
    ]
  })

  const calls = async (call: () => Promise<Seen>) => {
    const seen: Array<Seen> = []
    for (let i = 0; i < CALLS; i++) seen.push(await call())
    return seen
  }
  // The bubblewrap command line the tool runs `true` under, as the tool builds it.
  const available = Sandbox.detect()
  if (available.kind !== "bwrap")
    throw new Error(`bench: no bubblewrap (${"reason" in available ? available.reason : available.kind})`)
  const policy = Sandbox.policy({
    settings: Sandbox.defaults,
    ruleset: allowAll.ruleset,
    projectRoot: work,
    tmp: Sandbox.projectTmp(work)
  })
  const wrapper = Sandbox.wrapper({ sandboxed: true, ...available, policy }, work)!
  const sandboxedSpawn = ["/bin/bash", "-c", 'exec "$@" 2>&1', "bash", wrapper.file, ...wrapper.args, "bash"]
  const perCall = (name: string, ctx: ShellContext.Shape, prefix: ReadonlyArray<string>, what: string) =>
    compare<ReadonlyArray<Seen>>({
      case: `${CALLS} calls of true, ${name}`,
      subject: {
        name: "ShellTool.run",
        run: () =>
          calls(async () => {
            const result = await viaTool("true", ctx)
            return { bytes: 0, exitCode: result.exitCode }
          })
      },
      baseline: { name: what, run: () => calls(() => rawSpawn("true", prefix)) },
      rounds: 11,
      warmup: 2,
      goals: [{ text: `per-call cost of the bash tool <= 2x ${what}`, judge: "cost", atMost: 2 }]
    })
  const sandboxed = await perCall(
    "in the sandbox",
    allowAll,
    sandboxedSpawn,
    "a raw spawn of its bwrap command"
  )
  const bare = await perCall("sandbox off", unsandboxed, ["bash"], "a raw spawn of bash -c")
  reportComparisons("shell-tool", [big, sandboxed, bare], { summary: { "1 GiB command": BIG } })
} finally {
  await runtime.dispose()
  rmSync(work, { recursive: true, force: true })
}
