// Memory over 1 000 000 analyses of the corpus (every tree deleted through its scope), in a
// fresh process with the collector exposed. After a 50 000-analysis warm-up, RSS (and the
// external memory, where tree-sitter's wasm heap lives) is sampled after a collection every
// 50 000 analyses; growth is the last checkpoint minus the first stable one (the first from
// which each of the next 3 moves less than 1 MiB: V8 grows its old space in steps over the
// first few hundred thousand; a steady leak is never stable, and then growth counts from the
// first checkpoint). Goal: growth < 20 MiB. One run: its value is min, median and max at once.
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { judge, mib, report, root } from "../../../scripts/bench-kit.ts"
import * as ShellAnalysis from "../src/ShellAnalysis.ts"
import * as ShellParser from "../src/ShellParser.ts"

const ANALYSES = Number(process.env.GATEHOUSE_BENCH_ANALYSES ?? 1_000_000)
const WARMUP = 50_000
const EVERY = 50_000
const STABLE_BYTES = 1024 * 1024
const STABLE_STEPS = 3

interface Checkpoint {
  readonly analyses: number
  readonly rss: number
  readonly external: number
  readonly heapUsed: number
}

if (process.argv[2] === "--child") {
  const corpus = readFileSync(NodePath.join(import.meta.dirname, "data", "corpus.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => (JSON.parse(line) as { command: string }).command)
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(ShellParser.layer, scope))
  const options = { cwd: root, projectRoot: root, dialect: "bash" as const }
  let next = 0
  const run = (n: number) =>
    Effect.runSync(
      Effect.provideContext(
        Effect.gen(function* () {
          for (let i = 0; i < n; i++) {
            yield* ShellAnalysis.analyze(corpus[next]!, options)
            next = (next + 1) % corpus.length
          }
        }),
        context
      )
    )
  const sample = (analyses: number): Checkpoint => {
    globalThis.gc?.()
    const { rss, external, heapUsed } = process.memoryUsage()
    return { analyses, rss, external, heapUsed }
  }
  run(WARMUP)
  const checkpoints = [sample(0)]
  const started = performance.now()
  for (let done = 0; done < ANALYSES; done += EVERY) {
    run(Math.min(EVERY, ANALYSES - done))
    checkpoints.push(sample(Math.min(done + EVERY, ANALYSES)))
  }
  const ms = performance.now() - started
  await Effect.runPromise(Scope.close(scope, Exit.void))
  console.log(JSON.stringify({ ms, commands: corpus.length, checkpoints }))
  process.exit(0)
}

const child = spawnSync(process.execPath, ["--expose-gc", import.meta.filename, "--child"], {
  encoding: "utf8",
  maxBuffer: 16 * 1024 * 1024
})
if (child.status !== 0) {
  console.error(child.stderr)
  process.exit(1)
}
const run = JSON.parse(child.stdout.trim().split("\n").pop()!) as {
  ms: number
  commands: number
  checkpoints: Array<Checkpoint>
}
const points = run.checkpoints
const stableAt = points.findIndex(
  (_, i) =>
    i + STABLE_STEPS < points.length &&
    Array.from({ length: STABLE_STEPS }, (_, k) => i + k).every(
      (at) => Math.abs(points[at + 1]!.rss - points[at]!.rss) < STABLE_BYTES
    )
)
const stable = points[stableAt === -1 ? 0 : stableAt]!
const last = points.at(-1)!
const growth = mib(last.rss - stable.rss)
report(
  "shell-analysis-memory",
  [
    {
      case: `${ANALYSES} analyses of the corpus (${run.commands} commands)`,
      "first stable checkpoint (analyses)": stable.analyses,
      "rss there MiB": mib(stable.rss),
      "rss at the end MiB": mib(last.rss),
      "rss growth MiB": growth,
      "external (wasm heap) there / at the end MiB": `${mib(stable.external)} / ${mib(last.external)}`,
      "heap used there / at the end MiB": `${mib(stable.heapUsed)} / ${mib(last.heapUsed)}`,
      "analyses/s": Math.round(ANALYSES / (run.ms / 1000))
    }
  ],
  { "rss at every checkpoint MiB": points.map((p) => mib(p.rss)).join(" ") },
  [
    judge(
      `${ANALYSES} analyses of the corpus`,
      { text: "RSS growth after warm-up < 20 MiB", judge: "subject", atMost: 20, unit: "MiB" },
      [growth]
    ),
    judge(
      `${ANALYSES} analyses of the corpus`,
      { text: "wasm heap (external memory) growth < 20 MiB", judge: "subject", atMost: 20, unit: "MiB" },
      [mib(last.external - stable.external)]
    )
  ]
)
