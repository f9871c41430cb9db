/**
 * Permission rules and their evaluation, as plain data and functions: no `effect/Schema`,
 * so a one-shot command that only judges (`gatehouse check`) does not load it. The
 * schemas that decode rules at a boundary live in `Permission` (`Permission.Rule`,
 * `Permission.Ruleset`), which re-exports everything here.
 *
 * A ruleset is compiled once per value (its globs cut at their stars, its rules indexed by
 * permission) and the compiled form is kept for as long as the ruleset is: evaluating a
 * pattern then costs the few rules of its permission, not a glob parse per rule.
 *
 * @since 0.1.0
 */
import * as Wildcard from "./Wildcard.ts"

/**
 * What a rule decides: `allow`, `ask` (a person answers) or `deny`.
 *
 * @since 0.1.0
 */
export type Action = "allow" | "ask" | "deny"

/**
 * One rule: for tool permission `permission` (a glob, e.g. `bash`, `mcp_*`) and subject
 * `pattern` (a glob over the command text or path), do `action`. With `literal: true` the
 * pattern is the subject's exact text, never read as a glob. With `when: "harmless"` the
 * rule decides only a call its caller vouches is harmless (see {@link vouched}); for any
 * other call it is as if it were not there.
 *
 * @since 0.1.0
 */
export interface Rule {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
  readonly literal?: boolean
  readonly when?: Condition
}

/**
 * What a conditional rule needs of a call: `harmless`, the caller understands the call and
 * finds no risk in it (the shell gate says so of a command it models completely, that
 * carries no risk flag and is a known read or file operation).
 *
 * @since 0.1.0
 */
export type Condition = "harmless"

/**
 * An ordered list of rules; later rules win.
 *
 * @since 0.1.0
 */
export type Ruleset = ReadonlyArray<Rule>

interface Candidate {
  /** Position in the ruleset: of two matching rules, the later one decides. */
  readonly index: number
  readonly rule: Rule
  readonly pattern: Wildcard.Matcher
}

/** The rules of one permission, in ruleset order. */
interface Index {
  /** The other rules, in ruleset order. */
  readonly globs: ReadonlyArray<Candidate>
  /**
   * By the first UTF-16 unit of a non-empty input, the globs that may match it (those whose
   * matches all start with that unit, and those that may start with any), in ruleset order.
   */
  readonly globsByFirst: ReadonlyMap<number, ReadonlyArray<Candidate>>
  /** The globs whose matches may start with any unit, in ruleset order. */
  readonly globsAnyFirst: ReadonlyArray<Candidate>
  /** Plain-text patterns (`Wildcard.Matcher.exact`) to the last rule with that pattern. */
  readonly literals: ReadonlyMap<string, Candidate>
  /** Patterns of `literal: true` rules, as written, to the last rule with that pattern. */
  readonly exactTexts: ReadonlyMap<string, Candidate>
}

/**
 * A ruleset prepared for {@link evaluate}; see {@link compile}.
 *
 * @since 0.1.0
 */
export interface Compiled {
  /** The rule that decides `permission` for `pattern` in this ruleset, if any matches. */
  readonly find: (permission: string, pattern: string) => Rule | undefined
}

// Enough for every tool an agent has; a caller inventing permissions without end gets
// correct answers, only no longer cached.
const MAX_PERMISSIONS = 1024

interface Entry {
  readonly compiled: Compiled
  // What the ruleset held when it was compiled: a ruleset changed in place since (a
  // JavaScript caller can ignore `readonly`) is compiled again, never judged by stale rules.
  readonly rules: ReadonlyArray<Rule>
  readonly fields: ReadonlyArray<string | boolean | undefined>
}

const FIELDS = 5

const snapshot = (ruleset: Ruleset): Omit<Entry, "compiled"> => ({
  rules: ruleset.slice(),
  fields: ruleset.flatMap((rule) => [rule.permission, rule.pattern, rule.action, rule.literal, rule.when])
})

const unchanged = (ruleset: Ruleset, entry: Omit<Entry, "compiled">): boolean => {
  const { rules, fields } = entry
  if (ruleset.length !== rules.length) return false
  for (let i = 0; i < rules.length; i++) {
    const rule = ruleset[i]!
    if (
      rule !== rules[i] ||
      rule.permission !== fields[FIELDS * i] ||
      rule.pattern !== fields[FIELDS * i + 1] ||
      rule.action !== fields[FIELDS * i + 2] ||
      rule.literal !== fields[FIELDS * i + 3] ||
      rule.when !== fields[FIELDS * i + 4]
    )
      return false
  }
  return true
}

const build = (ruleset: Ruleset): Compiled => {
  const permissions = ruleset.map((rule) => Wildcard.compile(rule.permission))
  const patterns = new Map<string, Wildcard.Matcher>()
  const patternOf = (pattern: string): Wildcard.Matcher => {
    let matcher = patterns.get(pattern)
    if (matcher === undefined) {
      matcher = Wildcard.compile(pattern)
      patterns.set(pattern, matcher)
    }
    return matcher
  }
  const indexOf = (permission: string): Index => {
    const globs: Array<Candidate> = []
    const literals = new Map<string, Candidate>()
    const exactTexts = new Map<string, Candidate>()
    const normalized = Wildcard.normalize(permission)
    for (let index = 0; index < ruleset.length; index++) {
      const rule = ruleset[index]!
      // A conditional rule only decides once its caller vouched for the call (`vouched`).
      if (rule.when !== undefined || !permissions[index]!.matchesNormalized(normalized)) continue
      const candidate: Candidate = { index, rule, pattern: patternOf(rule.pattern) }
      const exact = candidate.pattern.exact
      if (rule.literal === true) exactTexts.set(rule.pattern, candidate)
      else if (exact !== undefined) literals.set(exact, candidate)
      else globs.push(candidate)
    }
    const globsAnyFirst = globs.filter((candidate) => candidate.pattern.first === undefined)
    const globsByFirst = new Map<number, ReadonlyArray<Candidate>>()
    for (const candidate of globs) {
      const first = candidate.pattern.first
      if (first === undefined || globsByFirst.has(first)) continue
      globsByFirst.set(
        first,
        globs.filter((c) => c.pattern.first === undefined || c.pattern.first === first)
      )
    }
    return { globs, literals, exactTexts, globsByFirst, globsAnyFirst }
  }
  const indexes = new Map<string, Index>()
  const find = (permission: string, pattern: string): Rule | undefined => {
    let index = indexes.get(permission)
    if (index === undefined) {
      index = indexOf(permission)
      if (indexes.size < MAX_PERMISSIONS) indexes.set(permission, index)
    }
    const input = Wildcard.normalize(pattern)
    const plain = index.literals.size === 0 ? undefined : index.literals.get(input)
    const text = index.exactTexts.size === 0 ? undefined : index.exactTexts.get(pattern)
    const literal = text === undefined || (plain !== undefined && plain.index > text.index) ? plain : text
    const floor = literal?.index ?? -1
    // Only the globs that may match an input starting as this one does.
    const globs =
      input.length === 0 ? index.globs : (index.globsByFirst.get(input.charCodeAt(0)) ?? index.globsAnyFirst)
    for (let i = globs.length - 1; i >= 0; i--) {
      const candidate = globs[i]!
      if (candidate.index < floor) break
      if (candidate.pattern.matchesNormalized(input)) return candidate.rule
    }
    return literal?.rule
  }
  return { find }
}

// Keyed by the ruleset's identity and dropped with it; a cache, not state: a hit answers
// exactly as compiling afresh would (see `unchanged`).
const cache = new WeakMap<Ruleset, Entry>()

/**
 * `ruleset` compiled for evaluation, from the cache when this very ruleset (same array,
 * same rules) was compiled before.
 *
 * @example
 * ```ts
 * import { Ruleset } from "@gatehousejs/permission"
 * const rules: Ruleset.Ruleset = [{ permission: "bash", pattern: "git *", action: "allow" }]
 * Ruleset.compile(rules).find("bash", "git status")?.action // "allow"
 * Ruleset.compile(rules).find("bash", "rm -rf /") // undefined
 * ```
 * @since 0.1.0
 */
export const compile = (ruleset: Ruleset): Compiled => {
  const cached = cache.get(ruleset)
  if (cached !== undefined && unchanged(ruleset, cached)) return cached.compiled
  const { rules, fields } = snapshot(ruleset)
  const compiled = build(rules)
  cache.set(ruleset, { compiled, rules, fields })
  return compiled
}

/**
 * The rule that decides `permission` for `pattern`: the last rule, across `rulesets` in
 * order, whose `permission` and `pattern` globs both match; when none does,
 * `{ permission, pattern: "*", action: "ask" }`.
 *
 * @example
 * ```ts
 * import { Permission } from "@gatehousejs/permission"
 * const rules = Permission.fromConfig({ bash: { "*": "ask", "git status": "allow", "rm *": "deny" } })
 * Permission.evaluate("bash", "git status", rules).action // "allow"
 * Permission.evaluate("bash", "rm -rf /", rules).action // "deny"
 * Permission.evaluate("edit", "a.ts", rules).action // "ask"
 * ```
 * @since 0.0.0
 */
export const evaluate = (permission: string, pattern: string, ...rulesets: ReadonlyArray<Ruleset>): Rule => {
  for (let r = rulesets.length - 1; r >= 0; r--) {
    const ruleset = rulesets[r]!
    if (ruleset.length === 0) continue
    const rule = compile(ruleset).find(permission, pattern)
    if (rule !== undefined) return rule
  }
  return { permission, pattern: "*", action: "ask" }
}

/**
 * Whether a remembered approval names one text only: a literal rule, or a pattern with no
 * `*` (a `?` or a backslash still reads as a glob, so those are not). What an ask with
 * `exactApprovals` may be settled by.
 *
 * @since 0.1.0
 */
export const isExactApproval = (rule: Rule): boolean =>
  rule.literal === true || Wildcard.isLiteral(rule.pattern)

// The last exact approval of `pattern` (see `isExactApproval`), by a scan: only calls that
// carry risk ask for it, and they are few.
const exactApproval = (permission: string, pattern: string, approved: Ruleset): Rule | undefined => {
  for (let i = approved.length - 1; i >= 0; i--) {
    const rule = approved[i]!
    if (!isExactApproval(rule) || rule.pattern !== pattern) continue
    if (Wildcard.match(permission, rule.permission)) return rule
  }
  return undefined
}

/**
 * `evaluate` bound to one ruleset, compiled (and checked unchanged) once: for judging many
 * patterns in one synchronous step, as the shell gate does for every pattern of a command.
 * A ruleset changed after the evaluator was made is not seen; make a new one.
 *
 * @example
 * ```ts
 * import { Permission, Ruleset } from "@gatehousejs/permission"
 * const decide = Ruleset.evaluator(Permission.fromConfig({ bash: { "git *": "allow" } }))
 * decide("bash", "git status").action // "allow"
 * decide("bash", "rm -rf /").action // "ask"
 * ```
 * @since 0.1.0
 */
export const evaluator = (ruleset: Ruleset): ((permission: string, pattern: string) => Rule) => {
  const compiled = ruleset.length === 0 ? undefined : compile(ruleset)
  return (permission, pattern) =>
    compiled?.find(permission, pattern) ?? { permission, pattern: "*", action: "ask" }
}

/**
 * The rule that decides one pattern of a call: `ruleset`'s, except that a remembered
 * approval in `approved` (of the pattern, or a literal one of the call's whole `subject`)
 * turns a configured `ask` into `allow`. A configured deny or allow stands. This is how
 * `Permission` and `gatehouse check` weigh "always" answers.
 *
 * With `exactOnly` (a call carrying risk the approved calls did not: a command that runs
 * programs, destroys data, writes outside the project or was not fully modelled), only an
 * approval of this very text counts ({@link isExactApproval}): a glob remembered for
 * `npm run build` (`npm run build *`) does not settle `npm run build --script-shell=x.sh`.
 *
 * @since 0.1.0
 */
export const withApprovals = (
  permission: string,
  pattern: string,
  ruleset: Ruleset,
  approved: Ruleset,
  subject: string | undefined,
  exactOnly = false
): Rule => {
  const configured = evaluate(permission, pattern, ruleset)
  if (configured.action !== "ask" || approved.length === 0) return configured
  const learned = exactOnly
    ? exactApproval(permission, pattern, approved)
    : evaluate(permission, pattern, approved)
  if (learned?.action === "allow") return learned
  if (subject === undefined) return configured
  const whole = approved.find(
    (rule) => rule.literal === true && rule.pattern === subject && Wildcard.match(permission, rule.permission)
  )
  return whole ?? configured
}

// Keyed by the ruleset's identity, like `cache` (and checked the same way): the same
// ruleset vouched twice is the same array, so its compiled form is reused.
const vouchedCache = new WeakMap<
  Ruleset,
  { readonly entry: Omit<Entry, "compiled">; readonly vouched: Ruleset }
>()

/**
 * Whether `ruleset` has a deny rule for `permission` (its permission glob matches). Mode
 * `yolo` then approves no `bash` call its caller could not model (`AskInput.unmodelled`):
 * what the caller could not see may be the program the deny forbids, and nothing else would
 * stop it (the sandbox holds the file rules, not which programs run).
 *
 * @example
 * ```ts
 * import { Ruleset } from "@gatehousejs/permission"
 * Ruleset.deniesAny("bash", [{ permission: "bash", pattern: "rm *", action: "deny" }]) // true
 * ```
 * @since 0.1.0
 */
export const deniesAny = (permission: string, ruleset: Ruleset): boolean =>
  ruleset.some((rule) => rule.action === "deny" && Wildcard.match(permission, rule.permission))

/**
 * `ruleset` as it applies to a call its caller vouches is harmless: every `when: "harmless"`
 * rule becomes a plain rule at the same index (so `sources[i]` still names rule `i`), the
 * others stay as they are. Only a caller that has understood the call may vouch for it:
 * the shell gate does so for a command it models completely, with no risk flag, that is a
 * known read or file operation. Without vouching, {@link evaluate} passes conditional rules
 * over, so a caller that knows nothing of them can never be allowed by one.
 *
 * @example
 * ```ts
 * import { Ruleset } from "@gatehousejs/permission"
 * const rules: Ruleset.Ruleset = [
 *   { permission: "bash", pattern: "*", action: "ask" },
 *   { permission: "bash", pattern: "*", action: "allow", when: "harmless" }
 * ]
 * Ruleset.evaluate("bash", "ls", rules).action // "ask"
 * Ruleset.evaluate("bash", "ls", Ruleset.vouched(rules)).action // "allow"
 * ```
 * @since 0.1.0
 */
export const vouched = (ruleset: Ruleset): Ruleset => {
  if (!ruleset.some((rule) => rule.when !== undefined)) return ruleset
  const cached = vouchedCache.get(ruleset)
  if (cached !== undefined && unchanged(ruleset, cached.entry)) return cached.vouched
  const out = ruleset.map((rule): Rule => {
    if (rule.when === undefined) return rule
    const { when: _, ...plain } = rule
    return plain
  })
  vouchedCache.set(ruleset, { entry: snapshot(ruleset), vouched: out })
  return out
}

/**
 * The rulesets concatenated in order (later ones take precedence in {@link evaluate}).
 *
 * @since 0.0.0
 */
export const merge = (...rulesets: ReadonlyArray<Ruleset>): Ruleset => rulesets.flat()

const EDIT_TOOLS: ReadonlySet<string> = new Set(["edit", "write", "apply_patch", "multiedit"])

/**
 * The tools to hide from the model: a tool is disabled when the last rule whose
 * `permission` matches it (the edit family `edit`, `write`, `apply_patch`, `multiedit`
 * counts as `edit`) is `* deny`. A deny of some patterns only keeps the tool visible.
 *
 * @since 0.0.0
 */
export const disabled = (tools: Iterable<string>, ruleset: Ruleset): Set<string> => {
  const out = new Set<string>()
  for (const tool of tools) {
    const permission = EDIT_TOOLS.has(tool) ? "edit" : tool
    let last: Rule | undefined
    for (let i = ruleset.length - 1; i >= 0; i--) {
      if (ruleset[i]!.when === undefined && Wildcard.match(permission, ruleset[i]!.permission)) {
        last = ruleset[i]
        break
      }
    }
    if (last !== undefined && last.pattern === "*" && last.action === "deny") out.add(tool)
  }
  return out
}
