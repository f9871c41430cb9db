// The spill sink fed 1 GiB in 64 KiB chunks, against fs.createWriteStream of the same chunks
// (waiting for `drain` when it asks to), alternated in one run. Both files are checked equal
// (size and SHA-1) after each run. Goals: >= 0.7x the write stream's throughput, peak RSS
// growth under 64 MiB while the sink runs.
import { createHash } from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import { compare, reportComparisons, rssGoal } from "../../../scripts/bench-kit.ts"

const CHUNK = 64 * 1024
const TOTAL = 1024 * 1024 * 1024
const CHUNKS = TOTAL / CHUNK

// Sixteen distinct chunks of log-like lines, a few of them multi-byte.
const chunks = Array.from({ length: 16 }, (_, c) => {
  let text = ""
  for (let line = 0; text.length < CHUNK; line++) {
    text += `${c}:${line} ${line % 7 === 0 ? "résumé ✓ " : ""}${"the quick brown fox ".repeat(3)}\n`
  }
  return Buffer.from(text).subarray(0, CHUNK)
})

const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-bench-spill-"))
const TruncateLive = Truncate.layerWith({ directory })

interface Written {
  readonly bytes: number
  readonly sha1: string
}

// Outside the timed part: what the file holds, then the file is removed.
const digest = (path: string): Written => {
  const hash = createHash("sha1")
  const fd = NodeFs.openSync(path, "r")
  const buffer = Buffer.allocUnsafe(4 * 1024 * 1024)
  let bytes = 0
  for (let n = NodeFs.readSync(fd, buffer); n > 0; n = NodeFs.readSync(fd, buffer)) {
    hash.update(buffer.subarray(0, n))
    bytes += n
  }
  NodeFs.closeSync(fd)
  NodeFs.rmSync(path)
  return { bytes, sha1: hash.digest("hex") }
}

const writeStream = async (): Promise<string> => {
  const path = NodePath.join(directory, "plain.out")
  const stream = NodeFs.createWriteStream(path)
  for (let i = 0; i < CHUNKS; i++) {
    if (!stream.write(chunks[i & 15]!)) {
      await new Promise<void>((resolve) => stream.once("drain", () => resolve()))
    }
  }
  await new Promise<void>((resolve, reject) =>
    stream.end((error?: Error | null) => (error ? reject(error) : resolve()))
  )
  return path
}

const sink = (): Promise<string> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const truncate = yield* Truncate.Service
      const result = yield* Effect.scoped(
        Effect.gen(function* () {
          const spill = yield* truncate.spill({ direction: "both" })
          for (let i = 0; i < CHUNKS; i++) yield* spill.append(chunks[i & 15]!)
          return yield* spill.finish
        })
      )
      if (!result.truncated || result.outputPath === undefined) throw new Error("expected a spill file")
      return result.outputPath
    }).pipe(Effect.provide(TruncateLive))
  )

// The files are digested (and removed) in `settle`, outside the timing; the result compared
// is what they held.
interface Output {
  readonly path: string
  written?: Written
}
const side = (name: string, run: () => Promise<string>) => ({
  name,
  run: async (): Promise<Output> => ({ path: await run() }),
  settle: (output: Output) => {
    output.written = digest(output.path)
  }
})

try {
  const comparison = await compare<Output>({
    case: "1 GiB in 64 KiB chunks",
    subject: side("Truncate spill sink", sink),
    baseline: side("fs.createWriteStream", writeStream),
    rounds: 5,
    warmup: 1,
    sampleRss: true,
    same: (output) => output.written,
    goals: [
      { text: "spill sink >= 0.7x fs.createWriteStream", judge: "speed", atLeast: 0.7 },
      rssGoal("peak RSS growth while the sink runs < 64 MiB", 64)
    ]
  })
  reportComparisons("truncate-spill-sink", [comparison], {
    summary: { bytes: TOTAL, chunk: CHUNK, written: comparison.subject[0]?.result.written }
  })
} finally {
  NodeFs.rmSync(directory, { recursive: true, force: true })
}
