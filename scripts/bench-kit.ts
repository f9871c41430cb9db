// Shared helpers for the packages' benchmarks: timing, medians and the JSON/table report.
import { mkdirSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"

export const root = NodePath.resolve(import.meta.dirname, "..")

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** Runs `run` `times` times (after one warm-up) and returns each run's milliseconds. */
export const timeRuns = async (times: number, run: () => Promise<unknown>): Promise<Array<number>> => {
  await run()
  const out: Array<number> = []
  for (let i = 0; i < times; i++) {
    const start = performance.now()
    await run()
    out.push(performance.now() - start)
  }
  return out
}

export interface Row {
  readonly case: string
  readonly [metric: string]: string | number | boolean
}

/** Prints a table and writes `bench-results/<name>.json`. */
export const report = (
  name: string,
  rows: ReadonlyArray<Row>,
  summary: Record<string, unknown> = {}
): void => {
  const dir = NodePath.join(root, "bench-results")
  mkdirSync(dir, { recursive: true })
  const file = NodePath.join(dir, `${name}.json`)
  writeFileSync(
    file,
    `${JSON.stringify({ name, date: new Date().toISOString(), node: process.version, rows, summary }, null, 2)}\n`
  )
  console.log(`\n## ${name}`)
  console.table(rows)
  for (const [key, value] of Object.entries(summary)) console.log(`${key}: ${JSON.stringify(value)}`)
  console.log(`-> ${NodePath.relative(process.cwd(), file)}`)
}

export const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10
