// `pnpm bench [filter]`: runs every packages/*/bench/*.bench.ts in its own process, one
// after the other (the machines have two cores; parallel benchmarks would measure each other),
// then prints one table of every goal the benches judged: median [min–max], MET or MISSED.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { formatRange, root, type Verdict } from "./bench-kit.ts"

const filter = process.argv[2]
const files: Array<string> = []
for (const pkg of readdirSync(NodePath.join(root, "packages")).sort()) {
  const dir = NodePath.join(root, "packages", pkg, "bench")
  if (!existsSync(dir)) continue
  for (const file of readdirSync(dir).sort()) {
    if (file.endsWith(".bench.ts")) files.push(NodePath.join(dir, file))
  }
}
const selected = filter ? files.filter((f) => f.includes(filter)) : files
if (selected.length === 0) {
  console.error(`bench: no benchmark matches ${filter ?? "packages/*/bench/*.bench.ts"}`)
  process.exit(1)
}
// Each bench stamps its JSON with this run's id, so the table shows only what this run measured.
const run = `${process.pid}-${Date.now()}`
const failures: Array<string> = []
const loads: Array<number> = []
for (const file of selected) {
  console.log(`\n# ${NodePath.relative(root, file)}`)
  loads.push(NodeOs.loadavg()[0]!)
  const result = spawnSync(process.execPath, ["--expose-gc", file], {
    stdio: "inherit",
    cwd: root,
    env: { ...process.env, GATEHOUSE_BENCH_RUN: run }
  })
  if (result.status !== 0) {
    failures.push(NodePath.relative(root, file))
    console.error(`bench: ${NodePath.relative(root, file)} failed (exit ${result.status ?? result.signal})`)
  }
}

const resultsDir = NodePath.join(root, "bench-results")
const verdicts: Array<Verdict> = []
const withoutGoals: Array<string> = []
for (const file of existsSync(resultsDir) ? readdirSync(resultsDir).sort() : []) {
  if (!file.endsWith(".json")) continue
  const data = JSON.parse(readFileSync(NodePath.join(resultsDir, file), "utf8")) as {
    name: string
    run?: string
    goals?: Array<Verdict>
  }
  if (data.run !== run) continue
  if (data.goals === undefined || data.goals.length === 0) withoutGoals.push(data.name)
  else verdicts.push(...data.goals)
}

const table = [
  ["verdict", "bench", "case", "goal", "median [min–max]", "rounds"],
  ...verdicts.map((v) => [
    v.met ? "MET" : "MISSED",
    v.bench,
    v.case,
    v.goal,
    formatRange(v),
    String(v.rounds)
  ])
]
const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)))
const line = (row: ReadonlyArray<string>) =>
  `| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(" | ")} |`
console.log(`\n# Goals (${verdicts.filter((v) => v.met).length} of ${verdicts.length} met)`)
console.log(
  `load average (1 min) while the benches ran: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} on ${NodeOs.availableParallelism()} cores`
)
console.log(line(table[0]!))
console.log(line(widths.map((w) => "-".repeat(w))))
for (const row of table.slice(1)) console.log(line(row))
if (withoutGoals.length > 0) console.log(`benches that judged no goal: ${withoutGoals.join(", ")}`)
if (failures.length > 0) console.log(`benches that failed: ${failures.join(", ")}`)
process.exit(failures.length === 0 ? 0 : 1)
