// ShellAnalysis.analyze against a bare parser.parse + tree.delete() of the same strings, in
// the same run: each corpus command is timed both ways, interleaved, over several rounds;
// per command the median of its rounds; then p50 and p99 across the corpus.
// Targets: median analysis <= 3x the bare parse; p99 analysis < 1 ms.
import * as fs from "node:fs"
import * as NodePath from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { Language, Parser } from "web-tree-sitter"
import { median, percentile, report } from "../../../scripts/bench-kit.ts"
import * as ShellAnalysis from "../src/ShellAnalysis.ts"
import * as ShellParser from "../src/ShellParser.ts"

const ROUNDS = 5
const corpus = fs
  .readFileSync(NodePath.join(import.meta.dirname, "data", "corpus.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as { command: string; shell?: string })
  .map((entry) => ({
    command: entry.command,
    dialect: entry.shell === "powershell" ? ("powershell" as const) : ("bash" as const)
  }))

// The project the corpus runs in: this repository (real files, real symlink checks).
const root = NodePath.resolve(import.meta.dirname, "../../..")
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(ShellParser.layer, scope))

// The baseline: the same grammars, used directly. (The layer is built first: the runtime
// is initialised once per process, and the layer reads trees through the runtime it set up.)
const files = ShellParser.files()
await Parser.init({ locateFile: () => files.runtime })
const bare: Record<ShellParser.Dialect, Parser> = {
  bash: new Parser().setLanguage(await Language.load(new Uint8Array(fs.readFileSync(files.bash)))),
  powershell: new Parser().setLanguage(await Language.load(new Uint8Array(fs.readFileSync(files.powershell))))
}

const parseTimes = corpus.map(() => [] as Array<number>)
const analyzeTimes = corpus.map(() => [] as Array<number>)

const program = Effect.gen(function* () {
  for (let round = -1; round < ROUNDS; round++) {
    for (let i = 0; i < corpus.length; i++) {
      const { command, dialect } = corpus[i]!
      let start = performance.now()
      bare[dialect].parse(command)!.delete()
      const parse = performance.now() - start
      start = performance.now()
      yield* ShellAnalysis.analyze(command, { cwd: root, projectRoot: root, dialect })
      const analyze = performance.now() - start
      if (round >= 0) {
        parseTimes[i]!.push(parse)
        analyzeTimes[i]!.push(analyze)
      }
    }
  }
})
Effect.runSync(Effect.provideContext(program, context))
await Effect.runPromise(Scope.close(scope, Exit.void))

const perParse = parseTimes.map(median)
const perAnalyze = analyzeTimes.map(median)
const us = (ms: number) => Math.round(ms * 1000 * 10) / 10
const p50Parse = percentile(perParse, 50)
const p50Analyze = percentile(perAnalyze, 50)
const p99Parse = percentile(perParse, 99)
const p99Analyze = percentile(perAnalyze, 99)
const ratios = perAnalyze.map((a, i) => a / perParse[i]!)
const ratio = p50Analyze / p50Parse

report(
  "shell-analysis",
  [
    {
      case: "bare parse + delete",
      "p50 µs": us(p50Parse),
      "p99 µs": us(p99Parse),
      "max µs": us(Math.max(...perParse))
    },
    {
      case: "ShellAnalysis.analyze",
      "p50 µs": us(p50Analyze),
      "p99 µs": us(p99Analyze),
      "max µs": us(Math.max(...perAnalyze))
    }
  ],
  {
    commands: corpus.length,
    "trees copied through": Context.get(context, ShellParser.Service).treeReader(),
    rounds: ROUNDS,
    "median of per-command ratios": Math.round(median(ratios) * 100) / 100,
    "target: p50 analyze <= 3x p50 bare parse":
      ratio <= 3 ? `met (${ratio.toFixed(2)}x)` : `MISSED (${ratio.toFixed(2)}x)`,
    "target: p99 analyze < 1 ms":
      p99Analyze < 1 ? `met (${us(p99Analyze)} µs)` : `MISSED (${us(p99Analyze)} µs)`
  }
)
