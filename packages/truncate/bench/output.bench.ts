// `output` on a 100 MB text (it spills the whole text) against fs.writeFile of the same
// text, in the same run. Target: at most 1.5x the plain write's time.
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import { median, report } from "../../../scripts/bench-kit.ts"

const SIZE = 100_000_000
const RUNS = 7

const parts: Array<string> = []
let length = 0
for (let line = 0; length < SIZE; line++) {
  const text = `${line} ${line % 7 === 0 ? "résumé ✓ " : ""}${"the quick brown fox ".repeat(3)}\n`
  parts.push(text)
  length += text.length
}
const text = parts.join("").slice(0, SIZE)
const bytes = Buffer.byteLength(text)

const directory = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-bench-output-"))
const TruncateLive = Truncate.layerWith({ directory })

const plain = async () => {
  const path = NodePath.join(directory, "plain.out")
  await new Promise<void>((resolve, reject) =>
    NodeFs.writeFile(path, text, (error) => (error ? reject(error) : resolve()))
  )
  NodeFs.rmSync(path)
}

const output = () =>
  Effect.runPromise(
    Effect.gen(function* () {
      const truncate = yield* Truncate.Service
      const result = yield* truncate.output(text, { direction: "both" })
      if (!result.truncated || result.outputPath === undefined) throw new Error("expected a spill file")
      NodeFs.rmSync(result.outputPath)
    }).pipe(Effect.provide(TruncateLive))
  )

const time = async (run: () => Promise<void>) => {
  const start = performance.now()
  await run()
  return performance.now() - start
}

try {
  await plain()
  await output()
  const plainRuns: Array<number> = []
  const outputRuns: Array<number> = []
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) {
      plainRuns.push(await time(plain))
      outputRuns.push(await time(output))
    } else {
      outputRuns.push(await time(output))
      plainRuns.push(await time(plain))
    }
  }
  const plainMs = median(plainRuns)
  const outputMs = median(outputRuns)
  const ratio = outputMs / plainMs
  report(
    "truncate-output",
    [
      { case: "fs.writeFile", "median ms": Math.round(plainMs) },
      { case: "Truncate output", "median ms": Math.round(outputMs) }
    ],
    {
      "text bytes": bytes,
      runs: RUNS,
      "output / writeFile time": Math.round(ratio * 100) / 100,
      "target: <= 1.5x writeFile": ratio <= 1.5 ? "met" : "MISSED"
    }
  )
} finally {
  NodeFs.rmSync(directory, { recursive: true, force: true })
}
