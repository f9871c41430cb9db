// Permission.evaluate over a 1 000-rule ruleset for 10 000 (permission, pattern) pairs,
// against a baseline with the same find-last loop whose matcher builds a RegExp on every
// call (opencode's approach). Both must pick the very same rule for every pair.
import * as Permission from "@gatehousejs/permission/Permission"
import { median, report, timeRuns } from "../../../scripts/bench-kit.ts"

const RULES = 1000
const PAIRS = 10_000
const RUNS = 5

// --- the baseline: a regex per match call --------------------------------------------
const regexMatch = (input: string, pattern: string): boolean => {
  const text = input.replaceAll("\\", "/")
  let source = pattern
    .replaceAll("\\", "/")
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
  if (source.endsWith(" .*")) source = `${source.slice(0, -3)}( .*)?`
  return new RegExp(`^${source}$`, process.platform === "win32" ? "si" : "s").test(text)
}

const regexEvaluate = (permission: string, pattern: string, ruleset: Permission.Ruleset): Permission.Rule => {
  for (let i = ruleset.length - 1; i >= 0; i--) {
    const rule = ruleset[i]!
    if (regexMatch(permission, rule.permission) && regexMatch(pattern, rule.pattern)) return rule
  }
  return { permission, pattern: "*", action: "ask" }
}

// --- a deterministic, realistic workload ---------------------------------------------
let seed = 7
const random = () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
  return seed / 2 ** 32
}
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
const word = () =>
  pick(["src", "lib", "test", "app", "build", "main", "dev", "config", "utils", "data", "docs"])
const commands = [
  "git",
  "npm",
  "pnpm",
  "ls",
  "cat",
  "rm",
  "docker",
  "kubectl",
  "make",
  "python",
  "cargo",
  "curl"
]
const subcommands = [
  "status",
  "log",
  "push",
  "run",
  "install",
  "build",
  "exec",
  "get",
  "apply",
  "test",
  "-la"
]
const actions: ReadonlyArray<Permission.Action> = ["allow", "ask", "deny"]

const ruleset: Array<Permission.Rule> = [
  { permission: "*", pattern: "*", action: "ask" },
  { permission: "read", pattern: "*", action: "allow" }
]
while (ruleset.length < RULES) {
  const kind = random()
  if (kind < 0.5) {
    const sub = random() < 0.5 ? ` ${pick(subcommands)}` : ""
    ruleset.push({ permission: "bash", pattern: `${pick(commands)}${sub} *`, action: pick(actions) })
  } else if (kind < 0.8) {
    const permission = pick(["edit", "read", "external_directory"])
    const pattern =
      random() < 0.5 ? `${word()}/${word()}/*` : `*.${pick(["env", "ts", "json", "key", "pem"])}`
    ruleset.push({ permission, pattern, action: pick(actions) })
  } else {
    ruleset.push({ permission: `mcp_${word()}_*`, pattern: "*", action: pick(actions) })
  }
}

const pairs: Array<readonly [string, string]> = []
for (let i = 0; i < PAIRS; i++) {
  const kind = random()
  if (kind < 0.5) {
    pairs.push(["bash", `${pick(commands)} ${pick(subcommands)} ${word()}/${word()}.ts`])
  } else if (kind < 0.85) {
    pairs.push([
      pick(["edit", "read", "external_directory"]),
      `${word()}/${word()}/${word()}.${pick(["ts", "env", "md"])}`
    ])
  } else {
    pairs.push([
      pick([`mcp_${word()}_query`, "webfetch", "task"]),
      pick(["https://example.com", "explore", "*"])
    ])
  }
}

// --- identical results ----------------------------------------------------------------
let same = 0
const tally: Record<string, number> = { allow: 0, ask: 0, deny: 0, fallback: 0 }
for (const [permission, pattern] of pairs) {
  const ours = Permission.evaluate(permission, pattern, ruleset)
  const theirs = regexEvaluate(permission, pattern, ruleset)
  // The very same rule object, or (no rule matched) the same fallback.
  const fallback = !ruleset.includes(ours) && !ruleset.includes(theirs)
  if (ours === theirs || (fallback && JSON.stringify(ours) === JSON.stringify(theirs))) same++
  if (ruleset.includes(ours)) tally[ours.action]!++
  else tally.fallback!++
}
if (same !== PAIRS) {
  console.error(`results differ on ${PAIRS - same} of ${PAIRS} pairs`)
  process.exit(1)
}

// --- timing -----------------------------------------------------------------------------
let sink = 0
const runOurs = async () => {
  for (const [permission, pattern] of pairs)
    sink += Permission.evaluate(permission, pattern, ruleset).action.length
}
const runBaseline = async () => {
  for (const [permission, pattern] of pairs) sink += regexEvaluate(permission, pattern, ruleset).action.length
}
const ours = median(await timeRuns(RUNS, runOurs))
const baseline = median(await timeRuns(RUNS, runBaseline))
const speedup = baseline / ours

report(
  "permission-evaluate",
  [
    {
      case: "RegExp per match (baseline)",
      "median ms": Math.round(baseline),
      "evaluations/s": Math.round(PAIRS / (baseline / 1000))
    },
    {
      case: "Permission.evaluate",
      "median ms": Math.round(ours * 10) / 10,
      "evaluations/s": Math.round(PAIRS / (ours / 1000))
    }
  ],
  {
    rules: RULES,
    pairs: PAIRS,
    runs: RUNS,
    "deciding rules (allow/ask/deny/fallback)": tally,
    "identical results": `${same}/${PAIRS}`,
    speedup: Math.round(speedup * 10) / 10,
    "target: >= 10x the baseline, identical results":
      speedup >= 10 ? `met (${speedup.toFixed(1)}x)` : `MISSED (${speedup.toFixed(1)}x)`,
    sink: sink > 0
  }
)
