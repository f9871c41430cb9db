export declare const root: string
export declare const median: (values: ReadonlyArray<number>) => number
export declare const percentile: (values: ReadonlyArray<number>, p: number) => number
/** Runs `run` `times` times (after one warm-up) and returns each run's milliseconds. */
export declare const timeRuns: (times: number, run: () => Promise<unknown>) => Promise<Array<number>>
export interface Row {
  readonly case: string
  readonly [metric: string]: string | number | boolean
}
/** Prints a table and writes `bench-results/<name>.json`. */
export declare const report: (
  name: string,
  rows: ReadonlyArray<Row>,
  summary?: Record<string, unknown>
) => void
export declare const mib: (bytes: number) => number
