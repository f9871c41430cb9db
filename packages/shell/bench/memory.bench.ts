// RSS growth over 1 000 000 analyses (every tree deleted through its scope), in a fresh
// process with the collector exposed, measured after a 50 000-analysis warm-up (V8 sizes its
// old space over the first tens of thousands, then RSS plateaus). Target: < 50 MiB. Also
// reports the wasm (external) memory, where an undeleted tree would show first.
import { spawnSync } from "node:child_process"
import * as NodePath from "node:path"
import { mib, report } from "../../../scripts/bench-kit.ts"

const ANALYSES = Number(process.env.GATEHOUSE_BENCH_ANALYSES ?? 1_000_000)
const script = NodePath.join(import.meta.dirname, "..", "test", "fixtures", "parse-loop.ts")
const result = spawnSync(process.execPath, ["--expose-gc", script, "0", String(ANALYSES)], {
  encoding: "utf8",
  maxBuffer: 1024 * 1024
})
if (result.status !== 0) {
  console.error(result.stderr)
  process.exit(1)
}
const run = JSON.parse(result.stdout.trim().split("\n").pop()!) as {
  ms: number
  before: { rss: number; external: number; heapUsed: number }
  after: { rss: number; external: number; heapUsed: number }
  checkpoints: Array<number>
}
const growth = mib(run.after.rss - run.before.rss)
report(
  "shell-analysis-memory",
  [
    {
      case: `${ANALYSES} analyses`,
      "rss before MiB": mib(run.before.rss),
      "rss after MiB": mib(run.after.rss),
      "rss growth MiB": growth,
      "wasm+external growth MiB": mib(run.after.external - run.before.external),
      "heap growth MiB": mib(run.after.heapUsed - run.before.heapUsed),
      "rss at 25/50/75/100 % MiB": run.checkpoints.map(mib).join(" / "),
      "analyses/s": Math.round(ANALYSES / (run.ms / 1000))
    }
  ],
  { "target: RSS growth < 50 MiB": growth < 50 ? `met (${growth} MiB)` : `MISSED (${growth} MiB)` }
)
