// `output` on a 100 MB text (it spills the whole text) against fs.writeFile of the same text,
// alternated in one run; both files are checked equal (size and SHA-1). Goal: at most 1.5x
// the plain write's time.
import { createHash } from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import { compare, reportComparisons } from "../../../scripts/bench-kit.ts"

const SIZE = 100_000_000

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

const writeFile = () =>
  new Promise<string>((resolve, reject) => {
    const path = NodePath.join(directory, "plain.out")
    NodeFs.writeFile(path, text, (error) => (error ? reject(error) : resolve(path)))
  })

const output = () =>
  Effect.runPromise(
    Effect.gen(function* () {
      const truncate = yield* Truncate.Service
      const result = yield* truncate.output(text, { direction: "both" })
      if (!result.truncated || result.outputPath === undefined) throw new Error("expected a spill file")
      return result.outputPath
    }).pipe(Effect.provide(TruncateLive))
  )

interface Output {
  readonly path: string
  written?: { readonly bytes: number; readonly sha1: string }
}
const side = (name: string, run: () => Promise<string>) => ({
  name,
  run: async (): Promise<Output> => ({ path: await run() }),
  settle: (output: Output) => {
    const content = NodeFs.readFileSync(output.path)
    NodeFs.rmSync(output.path)
    output.written = { bytes: content.length, sha1: createHash("sha1").update(content).digest("hex") }
  }
})

try {
  const comparison = await compare<Output>({
    case: "100 MB text spilled",
    subject: side("Truncate output", output),
    baseline: side("fs.writeFile", writeFile),
    rounds: 7,
    same: (output) => output.written,
    goals: [{ text: "output <= 1.5x fs.writeFile's time", judge: "cost", atMost: 1.5 }]
  })
  reportComparisons("truncate-output", [comparison], { summary: { "text bytes": bytes } })
} finally {
  NodeFs.rmSync(directory, { recursive: true, force: true })
}
