// The spill sink fed 1 GiB in 64 KiB chunks, against a plain fs.createWriteStream of the
// same chunks in the same run. Targets: >= 0.7x the plain write throughput, and peak RSS
// growth under 64 MiB while the sink runs.
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import { median, mib, report } from "../../../scripts/bench-kit.ts"

const CHUNK = 64 * 1024
const TOTAL = 1024 * 1024 * 1024
const CHUNKS = TOTAL / CHUNK
const RUNS = 5
const SAMPLE_EVERY = 256 // chunks between two RSS samples (16 MiB)

// Sixteen distinct chunks of log-like lines, a few of them multi-byte.
const chunks = Array.from({ length: 16 }, (_, c) => {
  let text = ""
  for (let line = 0; text.length < CHUNK; line++) {
    text += `${c}:${line} ${line % 7 === 0 ? "résumé ✓ " : ""}${"the quick brown fox ".repeat(3)}\n`
  }
  return Buffer.from(text).subarray(0, CHUNK)
})

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-bench-spill-"))
const TruncateLive = Truncate.layerWith({ directory })

interface Run {
  readonly ms: number
  readonly rssGrowth: number
}

const measure = async (body: (sample: () => void) => Promise<void>): Promise<Run> => {
  gc()
  const base = process.memoryUsage().rss
  let peak = base
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }
  const start = performance.now()
  await body(sample)
  const ms = performance.now() - start
  sample()
  return { ms, rssGrowth: peak - base }
}

const plain = () =>
  measure(async (sample) => {
    const path = NodePath.join(directory, "plain.out")
    const stream = NodeFs.createWriteStream(path)
    for (let i = 0; i < CHUNKS; i++) {
      if (!stream.write(chunks[i & 15]!)) {
        await new Promise<void>((resolve) => stream.once("drain", () => resolve()))
      }
      if (i % SAMPLE_EVERY === 0) sample()
    }
    await new Promise<void>((resolve, reject) =>
      stream.end((error?: Error | null) => (error ? reject(error) : resolve()))
    )
    NodeFs.rmSync(path)
  })

const sink = () =>
  measure((sample) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const truncate = yield* Truncate.Service
        const result = yield* Effect.scoped(
          Effect.gen(function* () {
            const spill = yield* truncate.spill({ direction: "both" })
            for (let i = 0; i < CHUNKS; i++) {
              yield* spill.append(chunks[i & 15]!)
              if (i % SAMPLE_EVERY === 0) sample()
            }
            return yield* spill.finish
          })
        )
        if (!result.truncated || result.outputPath === undefined) throw new Error("expected a spill file")
        if (NodeFs.statSync(result.outputPath).size !== TOTAL) throw new Error("spill file is incomplete")
        NodeFs.rmSync(result.outputPath)
      }).pipe(Effect.provide(TruncateLive))
    )
  )

try {
  await plain()
  await sink()
  const plainRuns: Array<Run> = []
  const sinkRuns: Array<Run> = []
  for (let i = 0; i < RUNS; i++) {
    // Alternate the order so disk write-back from one run burdens both sides alike.
    if (i % 2 === 0) {
      plainRuns.push(await plain())
      sinkRuns.push(await sink())
    } else {
      sinkRuns.push(await sink())
      plainRuns.push(await plain())
    }
  }
  const throughput = (ms: number) => Math.round(mib(TOTAL) / (ms / 1000))
  const plainMs = median(plainRuns.map((r) => r.ms))
  const sinkMs = median(sinkRuns.map((r) => r.ms))
  const ratio = plainMs / sinkMs
  const sinkPeak = Math.max(...sinkRuns.map((r) => r.rssGrowth))
  report(
    "truncate-spill-sink",
    [
      {
        case: "fs.createWriteStream",
        "median ms": Math.round(plainMs),
        "MiB/s": throughput(plainMs),
        "peak RSS growth MiB": mib(Math.max(...plainRuns.map((r) => r.rssGrowth)))
      },
      {
        case: "Truncate spill sink",
        "median ms": Math.round(sinkMs),
        "MiB/s": throughput(sinkMs),
        "peak RSS growth MiB": mib(sinkPeak)
      }
    ],
    {
      bytes: TOTAL,
      chunk: CHUNK,
      runs: RUNS,
      "sink / plain throughput": Math.round(ratio * 100) / 100,
      "target: >= 0.7x plain throughput": ratio >= 0.7 ? "met" : "MISSED",
      "target: peak RSS growth < 64 MiB": sinkPeak < 64 * 1024 * 1024 ? "met" : "MISSED"
    }
  )
} finally {
  NodeFs.rmSync(directory, { recursive: true, force: true })
}
