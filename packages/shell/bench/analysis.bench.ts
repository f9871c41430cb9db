// What the gate costs per command: ShellAnalysis.analyze + ShellGate.judge under a realistic
// ruleset (~50 rules, the shape users write), against a bare tree-sitter parse + a full walk
// of the tree (every node visited, its type read) + tree.delete() of the same text, in the
// same run, alternated. Three inputs: the corpus (5 200 real commands), a 200-line script and
// one 10 000-character command. Both sides must handle every input (same count).
// Goals: analysis + gate <= 3x the bare parse + walk + delete; p99 analysis + gate < 1 ms.
import * as fs from "node:fs"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { Language, Parser, type Tree } from "web-tree-sitter"
import { compare, type Goal, judge, percentile, reportComparisons } from "../../../scripts/bench-kit.ts"
import * as ShellAnalysis from "../src/ShellAnalysis.ts"
import * as ShellGate from "../src/ShellGate.ts"
import * as ShellParser from "../src/ShellParser.ts"

interface Input {
  readonly command: string
  readonly dialect: ShellParser.Dialect
}

const corpus: ReadonlyArray<Input> = fs
  .readFileSync(NodePath.join(import.meta.dirname, "data", "corpus.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as { command: string; shell?: string })
  .map((entry) => ({ command: entry.command, dialect: entry.shell === "powershell" ? "powershell" : "bash" }))

const oneLiners = corpus
  .filter((c) => c.dialect === "bash" && !c.command.includes("\n"))
  .map((c) => c.command)

// A build script as agents write them: strict mode, variables, a function, loops, tests,
// pipes, redirections, and the corpus's own commands for the rest of its 200 lines.
const scriptHead = [
  "#!/usr/bin/env bash",
  "set -euo pipefail",
  'ROOT="$(cd "$(dirname "$0")" && pwd)"',
  'OUT="$ROOT/dist"',
  'log() { printf "%s\\n" "$*" >&2; }',
  'if [ -d "$OUT" ]; then rm -rf "$OUT"; fi',
  'mkdir -p "$OUT/assets"',
  "for f in src/*.ts; do",
  '  log "checking $f"',
  '  grep -n "TODO" "$f" || true',
  "done",
  'while read -r line; do echo "$line" >> "$OUT/manifest.txt"; done < files.txt',
  'case "${1:-build}" in build) npm run build ;; test) npm test ;; *) log "unknown"; exit 2 ;; esac',
  'git log --oneline -n 20 | tee "$OUT/changes.txt" | wc -l'
]
const script = [...scriptHead, ...oneLiners.slice(0, 200 - scriptHead.length)].join("\n")
let long = ""
for (let i = 0; long.length < 10_000; i++)
  long += `${i === 0 ? "" : " && "}${oneLiners[i % oneLiners.length]}`
long = long.slice(0, 10_000)

// ~50 rules in the shape of a real gatehouse.json (shared with the permission bench).
const ruleset = Permission.fromConfig(
  JSON.parse(
    fs.readFileSync(
      NodePath.join(import.meta.dirname, "../../permission/bench/data/realistic-rules.json"),
      "utf8"
    )
  )
)

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

/** Visits every node of the tree, reading its type; returns how many it saw. */
const walk = (tree: Tree): number => {
  const cursor = tree.walk()
  let nodes = 0
  let typeLength = 0
  for (;;) {
    nodes++
    typeLength += cursor.nodeType.length
    if (cursor.gotoFirstChild()) continue
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        cursor.delete()
        return nodes + (typeLength > 0 ? 0 : 1)
      }
    }
  }
}

const gateOne = (input: Input) =>
  ShellAnalysis.analyze(input.command, { cwd: root, projectRoot: root, dialect: input.dialect }).pipe(
    Effect.map((analysis) => ShellGate.judge(analysis, { ruleset }).decision)
  )

interface Result {
  readonly count: number
  readonly decisions: Record<string, number>
  readonly perInput: Array<number>
}

const subject = (inputs: ReadonlyArray<Input>) => (): Result => {
  const decisions: Record<string, number> = { allow: 0, ask: 0, deny: 0 }
  const perInput: Array<number> = []
  const program = Effect.forEach(inputs, (input) =>
    Effect.suspend(() => {
      const start = performance.now()
      return Effect.map(gateOne(input), (decision) => {
        perInput.push(performance.now() - start)
        decisions[decision]!++
      })
    })
  )
  Effect.runSync(Effect.provideContext(program, context))
  return { count: perInput.length, decisions, perInput }
}

const baseline = (inputs: ReadonlyArray<Input>) => (): Result => {
  const perInput: Array<number> = []
  for (const input of inputs) {
    const start = performance.now()
    const tree = bare[input.dialect].parse(input.command)!
    walk(tree)
    tree.delete()
    perInput.push(performance.now() - start)
  }
  return { count: perInput.length, decisions: {}, perInput }
}

const goal: Goal<Result> = {
  text: "analysis + gate <= 3x parse + full walk + delete",
  judge: "cost",
  atMost: 3
}
const cases: ReadonlyArray<readonly [string, ReadonlyArray<Input>, number]> = [
  [`corpus (${corpus.length} commands)`, corpus, 7],
  ["200-line script", Array.from({ length: 50 }, () => ({ command: script, dialect: "bash" as const })), 9],
  [
    "10 000-character command",
    Array.from({ length: 50 }, () => ({ command: long, dialect: "bash" as const })),
    9
  ]
]
const comparisons = []
for (const [name, inputs, rounds] of cases) {
  comparisons.push(
    await compare<Result>({
      case: name,
      subject: { name: "ShellAnalysis.analyze + ShellGate.judge", run: subject(inputs) },
      baseline: { name: "parse + full walk + delete", run: baseline(inputs) },
      goals: [goal],
      rounds,
      warmup: 2,
      same: (result) => result.count
    })
  )
}
await Effect.runPromise(Scope.close(scope, Exit.void))

// p99 per command over the corpus: each command's median over the rounds.
const corpusRuns = comparisons[0]!.subject
const perCommand = corpus.map((_, i) => {
  const times = corpusRuns.map((run) => run.result.perInput[i]!).sort((a, b) => a - b)
  return times[times.length >> 1]!
})
const p99 = judge(
  comparisons[0]!.case,
  { text: "p99 analysis + gate < 1 ms", judge: "subject", atMost: 1, unit: "ms" },
  [percentile(perCommand, 99)]
)
reportComparisons("shell-analysis", comparisons, {
  summary: {
    rules: ruleset.length,
    "script chars": script.length,
    "long command chars": long.length,
    "corpus decisions": comparisons[0]!.subject[0]!.result.decisions
  },
  verdicts: [p99]
})
