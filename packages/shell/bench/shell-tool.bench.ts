// ShellTool.run against a plain Node child_process.spawn, same run, same commands:
// 1. 1 GiB of output: throughput and peak RSS growth (the plain spawn drains into a file;
//    ShellTool streams into the Truncate spill sink, which also writes it all to a file).
// 2. Per-call overhead of `true`: analysis, an allowed ask, spawn and result, against a
//    plain spawn of `sh -c true` awaited to its exit.
import { spawn } from "node:child_process"
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { pipeline } from "node:stream/promises"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { median, mib, report } from "../../../scripts/bench-kit.ts"
import * as ShellContext from "../src/ShellContext.ts"
import * as ShellParser from "../src/ShellParser.ts"
import * as ShellTool from "../src/ShellTool.ts"

const GIB = 1024 * 1024 * 1024
const BIG = `yes 'the quick brown fox jumps over the lazy dog 0123456789' | head -c ${GIB}`
const BIG_RUNS = 3
const CALLS = 300

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
const viaTool = (command: string) =>
  runtime.runPromise(ShellTool.run({ command }).pipe(Effect.provideService(ShellContext.Service, allowAll)))

const plainToFile = async (command: string, file: string) => {
  const child = spawn("sh", ["-c", command], { cwd: work, stdio: ["ignore", "pipe", "inherit"] })
  await pipeline(child.stdout, createWriteStream(file))
}

const plainExit = (command: string) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { cwd: work, stdio: ["ignore", "pipe", "pipe"] })
    child.stdout.resume()
    child.stderr.resume()
    child.on("error", reject)
    child.on("exit", () => resolve())
  })

/** Runs `run` and returns its milliseconds and the peak RSS growth above the RSS at its start. */
const measured = async (run: () => Promise<unknown>) => {
  globalThis.gc?.()
  const before = process.memoryUsage.rss()
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 20)
  const start = performance.now()
  await run()
  const ms = performance.now() - start
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage.rss())
  return { ms, growth: peak - before }
}

// --- 1 GiB ------------------------------------------------------------------------------
await viaTool("echo warm-up")
const plainBig: Array<{ ms: number; growth: number }> = []
const toolBig: Array<{ ms: number; growth: number }> = []
let spilledBytes = 0
for (let i = 0; i < BIG_RUNS; i++) {
  const file = NodePath.join(work, "plain.out")
  plainBig.push(await measured(() => plainToFile(BIG, file)))
  rmSync(file)
  let outputPath: string | undefined
  toolBig.push(
    await measured(async () => {
      outputPath = (await viaTool(BIG)).outputPath
    })
  )
  spilledBytes = outputPath === undefined ? 0 : statSync(outputPath).size
  if (outputPath !== undefined) rmSync(outputPath)
}
const gibPerSecond = (ms: number) => Math.round((1 / (ms / 1000)) * 1000) / 1000
const plainMs = median(plainBig.map((r) => r.ms))
const toolMs = median(toolBig.map((r) => r.ms))
const throughputRatio = plainMs / toolMs
const peakGrowth = Math.max(...toolBig.map((r) => r.growth))

// --- per-call overhead --------------------------------------------------------------------
const timeEach = async (times: number, run: () => Promise<unknown>) => {
  for (let i = 0; i < 20; i++) await run()
  const out: Array<number> = []
  for (let i = 0; i < times; i++) {
    const start = performance.now()
    await run()
    out.push(performance.now() - start)
  }
  return out
}
// Interleaved in blocks so background load on the shared machine hits both sides alike.
const plainCalls: Array<number> = []
const toolCalls: Array<number> = []
for (let block = 0; block < 6; block++) {
  plainCalls.push(...(await timeEach(CALLS / 6, () => plainExit("true"))))
  toolCalls.push(...(await timeEach(CALLS / 6, () => viaTool("true"))))
}
const plainCall = median(plainCalls)
const toolCall = median(toolCalls)
const overhead = toolCall / plainCall

await runtime.dispose()
rmSync(work, { recursive: true, force: true })

report(
  "shell-tool",
  [
    {
      case: "1 GiB output",
      "plain spawn -> file GiB/s": gibPerSecond(plainMs),
      "ShellTool.run GiB/s": gibPerSecond(toolMs),
      "ShellTool / plain": Math.round(throughputRatio * 100) / 100,
      "plain peak RSS growth MiB": mib(Math.max(...plainBig.map((r) => r.growth))),
      "ShellTool peak RSS growth MiB": mib(peakGrowth)
    },
    {
      case: "per call: true",
      "plain spawn ms (median)": Math.round(plainCall * 100) / 100,
      "ShellTool.run ms (median)": Math.round(toolCall * 100) / 100,
      "ShellTool / plain": Math.round(overhead * 100) / 100
    }
  ],
  {
    bigRuns: BIG_RUNS,
    calls: CALLS,
    spillFileBytes: spilledBytes,
    "target: 1 GiB throughput >= 0.6x plain spawn":
      throughputRatio >= 0.6
        ? `met (${throughputRatio.toFixed(2)}x)`
        : `MISSED (${throughputRatio.toFixed(2)}x)`,
    "target: peak RSS growth < 100 MiB":
      peakGrowth < 100 * 1024 * 1024 ? `met (${mib(peakGrowth)} MiB)` : `MISSED (${mib(peakGrowth)} MiB)`,
    "target: per-call overhead <= 2x plain spawn":
      overhead <= 2 ? `met (${overhead.toFixed(2)}x)` : `MISSED (${overhead.toFixed(2)}x)`
  }
)
