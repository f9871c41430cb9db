// The one harness every benchmark uses. A comparison runs a subject and the baseline its goal
// names in one process, alternating A B / B A (the order swapped every round, so drift on a
// shared machine burdens both alike), with the same warm-up for both, and checks each round
// that both sides produced the same result (bytes, decisions, counts), so neither can skip
// work. Goals are judged on the per-round values: min / median / max, MET when the median meets.
// `report` writes bench-results/<name>.json; `pnpm bench` (scripts/bench.ts) gathers the goals
// of every bench it ran into one table.
import { mkdirSync, writeFileSync } from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { isDeepStrictEqual } from "node:util"

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

export const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10

const gc = (): void => (globalThis as { gc?: () => void }).gc?.()

/** One timed run of one side: its wall time, its result, and its peak RSS growth when sampled. */
export interface Run<R> {
  readonly ms: number
  readonly result: R
  /** Peak RSS above the RSS at the start of the run (bytes), when the comparison samples RSS. */
  readonly rssGrowth: number
}

/** One side of a comparison. `prepare` and `settle` run outside the timed part. */
export interface Side<R> {
  readonly name: string
  readonly prepare?: () => unknown
  readonly run: () => R | Promise<R>
  readonly settle?: (result: R) => unknown
}

/**
 * A goal, judged on one value per round:
 * - `speed`: baseline metric / subject metric (subject throughput as a fraction of the baseline's),
 * - `cost`: subject metric / baseline metric (how many times the baseline's time),
 * - `subject`: the subject's metric itself (an absolute bound, with its unit).
 * The metric defaults to the run's milliseconds.
 */
export interface Goal<R> {
  readonly text: string
  readonly judge: "speed" | "cost" | "subject"
  readonly atLeast?: number
  readonly atMost?: number
  readonly unit?: string
  readonly metric?: (run: Run<R>) => number
}

/** A bound on the subject's peak RSS growth in MiB (the comparison must `sampleRss`). */
export const rssGoal = <R>(text: string, atMost: number): Goal<R> => ({
  text,
  judge: "subject",
  atMost,
  unit: "MiB",
  metric: (run) => mib(run.rssGrowth)
})

/** A goal's verdict as it goes into the JSON and the final table. */
export interface Verdict {
  readonly bench: string
  readonly case: string
  readonly goal: string
  readonly unit: string
  readonly min: number
  readonly median: number
  readonly max: number
  readonly rounds: number
  readonly met: boolean
}

export interface Comparison<R> {
  readonly case: string
  readonly subjectName: string
  readonly baselineName: string
  readonly subject: ReadonlyArray<Run<R>>
  readonly baseline: ReadonlyArray<Run<R>>
  readonly goals: ReadonlyArray<Omit<Verdict, "bench">>
}

export interface CompareOptions<R> {
  /** What is measured, e.g. "1 GiB through the bash tool". */
  readonly case: string
  readonly subject: Side<R>
  readonly baseline: Side<R>
  readonly goals: ReadonlyArray<Goal<R>>
  /** Timed rounds (each runs both sides once); at least 5. */
  readonly rounds?: number
  /** Untimed rounds before them, alternated the same way; at least 1. */
  readonly warmup?: number
  /** The part of a result that must be equal on both sides (the whole result by default). */
  readonly same?: (result: R) => unknown
  /** Sample RSS every 10 ms during each run (peak growth in `Run.rssGrowth`). */
  readonly sampleRss?: boolean
}

const timed = async <R>(side: Side<R>, sampleRss: boolean): Promise<Run<R>> => {
  await side.prepare?.()
  gc()
  const before = process.memoryUsage.rss()
  let peak = before
  const sampler = sampleRss
    ? setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss())
      }, 10)
    : undefined
  const start = performance.now()
  const result = await side.run()
  const ms = performance.now() - start
  if (sampler !== undefined) {
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage.rss())
  }
  await side.settle?.(result)
  return { ms, result, rssGrowth: peak - before }
}

const describe = (value: unknown): string => {
  const text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v))
  return text === undefined ? String(value) : text.length > 400 ? `${text.slice(0, 400)}…` : text
}

/** Judges `values` (one per round) against a goal. */
export const judge = (
  caseName: string,
  goal: Pick<Goal<unknown>, "text" | "atLeast" | "atMost" | "unit" | "judge">,
  values: ReadonlyArray<number>
): Omit<Verdict, "bench"> => {
  if (values.length === 0) throw new Error(`bench: ${caseName}: no values to judge`)
  const mid = median(values)
  const met =
    (goal.atLeast === undefined || mid >= goal.atLeast) && (goal.atMost === undefined || mid <= goal.atMost)
  return {
    case: caseName,
    goal: goal.text,
    unit: goal.unit ?? (goal.judge === "subject" ? "ms" : "x"),
    min: Math.min(...values),
    median: mid,
    max: Math.max(...values),
    rounds: values.length,
    met
  }
}

/**
 * Runs subject and baseline alternately (A B, B A, …), checks each round's results equal,
 * and judges every goal on the per-round values.
 */
export const compare = async <R>(options: CompareOptions<R>): Promise<Comparison<R>> => {
  const rounds = options.rounds ?? 7
  const warmup = options.warmup ?? 2
  if (rounds < 5) throw new Error(`bench: ${options.case}: at least 5 rounds, not ${rounds}`)
  if (warmup < 1) throw new Error(`bench: ${options.case}: at least one warm-up round`)
  const same = options.same ?? ((result: R) => result)
  const sampleRss = options.sampleRss ?? false
  const subject: Array<Run<R>> = []
  const baseline: Array<Run<R>> = []
  for (let round = -warmup; round < rounds; round++) {
    const subjectFirst = (round & 1) === 0
    const first = await timed(subjectFirst ? options.subject : options.baseline, sampleRss)
    const second = await timed(subjectFirst ? options.baseline : options.subject, sampleRss)
    const [s, b] = subjectFirst ? [first, second] : [second, first]
    const sv = same(s.result)
    const bv = same(b.result)
    if (!isDeepStrictEqual(sv, bv)) {
      throw new Error(
        `bench: ${options.case}: ${options.subject.name} and ${options.baseline.name} differ` +
          `${round < 0 ? " (warm-up)" : ` (round ${round + 1})`}:\n  ${options.subject.name}: ${describe(sv)}\n  ${options.baseline.name}: ${describe(bv)}`
      )
    }
    if (round >= 0) {
      subject.push(s)
      baseline.push(b)
    }
  }
  const goals = options.goals.map((goal) => {
    const metric = goal.metric ?? ((run: Run<R>) => run.ms)
    const values = subject.map((s, i) => {
      const sm = metric(s)
      const bm = metric(baseline[i]!)
      return goal.judge === "speed" ? bm / sm : goal.judge === "cost" ? sm / bm : sm
    })
    return judge(options.case, goal, values)
  })
  return {
    case: options.case,
    subjectName: options.subject.name,
    baselineName: options.baseline.name,
    subject,
    baseline,
    goals
  }
}

/**
 * Rounds of a subject alone, for goals with no baseline (an absolute rate or bound): the
 * same warm-up, rounds and per-round judging as `compare`; every round's result (through
 * `same`) must equal the first's.
 */
export const measure = async <R>(options: Omit<CompareOptions<R>, "baseline">): Promise<Comparison<R>> => {
  const rounds = options.rounds ?? 7
  const warmup = options.warmup ?? 2
  if (rounds < 5) throw new Error(`bench: ${options.case}: at least 5 rounds, not ${rounds}`)
  const same = options.same ?? ((result: R) => result)
  const runs: Array<Run<R>> = []
  let first: { value: unknown } | undefined
  for (let round = -warmup; round < rounds; round++) {
    const run = await timed(options.subject, options.sampleRss ?? false)
    const value = same(run.result)
    if (first === undefined) first = { value }
    else if (!isDeepStrictEqual(value, first.value)) {
      throw new Error(
        `bench: ${options.case}: round ${round + warmup + 1} differs:\n  ${describe(value)}\n  first: ${describe(first.value)}`
      )
    }
    if (round >= 0) runs.push(run)
  }
  const goals = options.goals.map((goal) => {
    if (goal.judge !== "subject") throw new Error(`bench: ${options.case}: no baseline to judge ${goal.text}`)
    const metric = goal.metric ?? ((run: Run<R>) => run.ms)
    return judge(options.case, goal, runs.map(metric))
  })
  return {
    case: options.case,
    subjectName: options.subject.name,
    baselineName: "",
    subject: runs,
    baseline: [],
    goals
  }
}

/** The median of one side's metric (milliseconds by default), for a bench's own rows. */
export const medianOf = <R>(runs: ReadonlyArray<Run<R>>, metric: (run: Run<R>) => number = (r) => r.ms) =>
  runs.length === 0 ? Number.NaN : median(runs.map(metric))

export interface Row {
  readonly case: string
  readonly [metric: string]: string | number | boolean
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000

/** `1.23 [1.01–1.40]` (with the unit unless it is a ratio). */
export const formatRange = (v: Pick<Verdict, "min" | "median" | "max" | "unit">): string => {
  const f = (n: number) => (Math.abs(n) >= 100 ? String(Math.round(n)) : String(Math.round(n * 100) / 100))
  return `${f(v.median)}${v.unit === "x" ? "x" : ""} [${f(v.min)}–${f(v.max)}]${v.unit === "x" ? "" : ` ${v.unit}`}`
}

/**
 * Prints a bench's rows and verdicts and writes `bench-results/<name>.json`
 * (`{ name, date, node, loadavg, rows, goals, summary }`); `pnpm bench` reads `goals`.
 */
export const report = (
  name: string,
  rows: ReadonlyArray<Row>,
  summary: Record<string, unknown> = {},
  verdicts: ReadonlyArray<Omit<Verdict, "bench">> = []
): void => {
  const dir = NodePath.join(root, "bench-results")
  mkdirSync(dir, { recursive: true })
  const file = NodePath.join(dir, `${name}.json`)
  const goals: Array<Verdict> = verdicts.map((v) => ({
    bench: name,
    ...v,
    min: round3(v.min),
    median: round3(v.median),
    max: round3(v.max)
  }))
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        name,
        run: process.env.GATEHOUSE_BENCH_RUN,
        date: new Date().toISOString(),
        node: process.version,
        loadavg: NodeOs.loadavg().map(round3),
        rows,
        goals,
        summary
      },
      null,
      2
    )}\n`
  )
  console.log(`\n## ${name}`)
  if (rows.length > 0) console.table(rows)
  for (const [key, value] of Object.entries(summary)) console.log(`${key}: ${JSON.stringify(value)}`)
  for (const g of goals) {
    console.log(`${g.met ? "MET   " : "MISSED"} ${g.case}: ${g.goal}: ${formatRange(g)} (${g.rounds} rounds)`)
  }
  console.log(`-> ${NodePath.relative(process.cwd(), file)}`)
}

/** Reports comparisons: one row per comparison (median ms of each side) and all their goals. */
export const reportComparisons = (
  name: string,
  comparisons: ReadonlyArray<Comparison<unknown>>,
  options: {
    readonly rows?: ReadonlyArray<Row>
    readonly summary?: Record<string, unknown>
    readonly verdicts?: ReadonlyArray<Omit<Verdict, "bench">>
  } = {}
): void => {
  const ms = (runs: ReadonlyArray<Run<unknown>>) => Math.round(medianOf(runs) * 100) / 100
  const rows: Array<Row> = comparisons.map((c) => ({
    case: c.case,
    subject: c.subjectName,
    "subject median ms": ms(c.subject),
    baseline: c.baselineName,
    "baseline median ms": ms(c.baseline),
    rounds: c.subject.length
  }))
  report(name, [...rows, ...(options.rows ?? [])], options.summary, [
    ...comparisons.flatMap((c) => c.goals),
    ...(options.verdicts ?? [])
  ])
}
