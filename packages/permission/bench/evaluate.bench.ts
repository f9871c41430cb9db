// Permission.evaluate (the compiled Ruleset) over a realistic ruleset (~50 rules, the shape
// users write: packages/permission/bench/data/realistic-rules.json) for the patterns the gate
// really asks about (every `bash` pattern ShellGate derives from the analysis corpus, plus
// edit/read/external_directory paths), alternated on the bench harness against two
// baselines that must pick the very same rule for every pair: the same find-last loop with a
// RegExp built per match (opencode's approach), and the same loop over Wildcard.match (the
// evaluation before rulesets were compiled).
import * as fs from "node:fs"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Wildcard from "@gatehousejs/permission/Wildcard"
import { compare, reportComparisons } from "../../../scripts/bench-kit.ts"

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

const uncompiledEvaluate = (
  permission: string,
  pattern: string,
  ruleset: Permission.Ruleset
): Permission.Rule => {
  for (let i = ruleset.length - 1; i >= 0; i--) {
    const rule = ruleset[i]!
    if (
      Wildcard.match(permission, rule.permission) &&
      (rule.literal === true ? pattern === rule.pattern : Wildcard.match(pattern, rule.pattern))
    )
      return rule
  }
  return { permission, pattern: "*", action: "ask" }
}

// --- the workload -----------------------------------------------------------------------
const ruleset = Permission.fromConfig(
  JSON.parse(fs.readFileSync(NodePath.join(import.meta.dirname, "data", "realistic-rules.json"), "utf8"))
)
const corpus = fs
  .readFileSync(NodePath.join(import.meta.dirname, "../../shell/bench/data/corpus.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => (JSON.parse(line) as { command: string }).command)
// The gate's patterns for a command: as written, and its arity prefix with ` *`.
const pairs: Array<readonly [string, string]> = []
for (const command of corpus) {
  pairs.push(["bash", command])
  const words = command.split(/\s+/)
  pairs.push(["bash", `${words.slice(0, 2).join(" ")} *`])
  for (const word of words.slice(1)) {
    if (word.includes("/") || word.includes(".")) pairs.push([pairs.length % 3 === 0 ? "edit" : "read", word])
  }
}
pairs.push(["external_directory", "/etc/*"], ["webfetch", "https://example.com"])

const run = (evaluate: typeof Permission.evaluate) => () => {
  const picked: Array<number> = []
  for (const [permission, pattern] of pairs) {
    const rule = evaluate(permission, pattern, ruleset)
    picked.push(ruleset.indexOf(rule))
  }
  return picked
}

const comparisons = []
for (const [name, baseline, atLeast] of [
  ["RegExp per match", regexEvaluate, 10],
  ["Wildcard.match per rule (uncompiled)", uncompiledEvaluate, 1]
] as const) {
  comparisons.push(
    await compare({
      case: `${pairs.length} gate patterns, ${ruleset.length} rules, vs ${name}`,
      subject: { name: "Permission.evaluate", run: run(Permission.evaluate) },
      baseline: { name, run: run(baseline) },
      goals: [{ text: `>= ${atLeast}x the ${name} loop, same rules picked`, judge: "speed", atLeast }],
      rounds: 9,
      warmup: 2
    })
  )
}
reportComparisons("permission-evaluate", comparisons, {
  summary: { rules: ruleset.length, pairs: pairs.length }
})
