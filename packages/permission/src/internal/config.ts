// Turns an opencode-style `permission` config block into rules, reporting the exact path
// of the first invalid value.
import { homedir } from "node:os"

export type Action = "allow" | "ask" | "deny"

export interface RuleLike {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
  readonly literal?: boolean
}

export interface Invalid {
  readonly path: string
  readonly expected: string
  readonly got: string
}

const ACTIONS: ReadonlySet<unknown> = new Set(["allow", "ask", "deny"])
const EXPECTED_ACTION = "allow | ask | deny"

const isAction = (value: unknown): value is Action => ACTIONS.has(value)

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

export const pathKey = (path: string, key: string): string =>
  IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

const show = (value: unknown): string => {
  if (value === undefined) return "undefined"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "function") return "a function"
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * `~`, `~/…`, `$HOME`, `$HOME/…` at the start of a pattern name the home directory. We differ
 * from opencode on `$HOMEfoo`: that is another variable's name, so it stays as written.
 */
export const expandHome = (pattern: string, home: string): string => {
  if (pattern === "~" || pattern === "$HOME") return home
  if (pattern.startsWith("~/")) return home + pattern.slice(1)
  if (pattern.startsWith("$HOME/")) return home + pattern.slice(5)
  return pattern
}

export const parse = (
  config: unknown,
  options: { readonly home?: string; readonly path?: string } = {}
): Parsed | { readonly invalid: Invalid } => {
  const root = options.path ?? "permission"
  const home = options.home ?? homedir()
  if (isAction(config)) return { rules: [{ permission: "*", pattern: "*", action: config }], paths: [root] }
  if (!isPlainObject(config)) {
    return { invalid: { path: root, expected: `${EXPECTED_ACTION} or an object`, got: show(config) } }
  }
  const rules: Array<RuleLike> = []
  const paths: Array<string> = []
  for (const [permission, value] of Object.entries(config)) {
    const at = pathKey(root, permission)
    if (isAction(value)) {
      rules.push({ permission, pattern: "*", action: value })
      paths.push(at)
      continue
    }
    if (!isPlainObject(value)) {
      return {
        invalid: {
          path: at,
          expected: `${EXPECTED_ACTION} or an object of pattern -> action`,
          got: show(value)
        }
      }
    }
    for (const [pattern, action] of Object.entries(value)) {
      if (!isAction(action)) {
        return { invalid: { path: pathKey(at, pattern), expected: EXPECTED_ACTION, got: show(action) } }
      }
      rules.push({ permission, pattern: expandHome(pattern, home), action })
      paths.push(pathKey(at, pattern))
    }
  }
  return { rules, paths }
}

/** Rules with the JSON path each came from (same indexes). */
export interface Parsed {
  readonly rules: Array<RuleLike>
  readonly paths: Array<string>
}

// Tool names of Claude Code and the Reasonix design mapped onto Gatehouse's permissions;
// any other name is lower-cased (`WebFetch` -> `webfetch`).
const TOOL_PERMISSIONS: Record<string, string> = {
  Bash: "bash",
  Read: "read",
  Edit: "edit",
  Write: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit"
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.*-]*$/

/** The permission a rule string's tool name stands for. */
export const permissionOf = (tool: string): string => TOOL_PERMISSIONS[tool] ?? tool.toLowerCase()

/**
 * One rule string: `Tool` (every call), `Tool(glob)` (calls whose subject matches the glob;
 * Claude Code's prefix form `Bash(npm run test:*)` is `npm run test` with or without
 * arguments) or `Tool=literal` (the subject exactly). The error says what does not parse.
 */
export const parseRuleString = (
  text: string,
  action: Action,
  home: string
): RuleLike | { readonly problem: string } => {
  const trimmed = text.trim()
  const equals = trimmed.indexOf("=")
  const open = trimmed.indexOf("(")
  if (equals !== -1 && (open === -1 || equals < open)) {
    const tool = trimmed.slice(0, equals).trim()
    if (tool === "") return { problem: "the tool name before = is empty" }
    if (!TOOL_NAME.test(tool)) return { problem: `${JSON.stringify(tool)} is not a tool name` }
    const subject = trimmed.slice(equals + 1)
    if (subject === "") return { problem: "nothing follows =; write the exact subject, or the tool alone" }
    return { permission: permissionOf(tool), pattern: expandHome(subject, home), action, literal: true }
  }
  if (open === -1) {
    if (trimmed === "") return { problem: "the tool name is empty" }
    if (trimmed.includes(")")) return { problem: "a ) without its (" }
    if (!TOOL_NAME.test(trimmed)) return { problem: `${JSON.stringify(trimmed)} is not a tool name` }
    return { permission: permissionOf(trimmed), pattern: "*", action }
  }
  const tool = trimmed.slice(0, open).trim()
  if (tool === "") return { problem: "the tool name before ( is empty" }
  if (!TOOL_NAME.test(tool)) return { problem: `${JSON.stringify(tool)} is not a tool name` }
  if (!trimmed.endsWith(")")) return { problem: "the ( is not closed by a ) at the end" }
  let glob = trimmed.slice(open + 1, -1)
  if (glob.trim() === "")
    return { problem: "the parentheses are empty; write the tool alone to match every call" }
  if (glob.endsWith(":*")) glob = `${glob.slice(0, -2)} *`
  return { permission: permissionOf(tool), pattern: expandHome(glob, home), action }
}

// Within one block a deny beats an ask beats an allow, whatever the arrays' order (as in
// Claude Code): the arrays are emitted in that order and the last matching rule wins.
const RULE_ACTIONS: ReadonlyArray<Action> = ["allow", "ask", "deny"]

/**
 * A `{ "allow": [...], "ask": [...], "deny": [...] }` block of rule strings (Gatehouse's
 * `rules`, or a Claude Code `permissions` block, whose other keys are left to the caller).
 */
export const parseRuleBlock = (
  block: unknown,
  options: { readonly home?: string; readonly path: string; readonly ignore?: ReadonlySet<string> }
): Parsed | { readonly invalid: Invalid } => {
  const root = options.path
  const home = options.home ?? homedir()
  if (!isPlainObject(block)) {
    return { invalid: { path: root, expected: "an object of allow, ask, deny arrays", got: show(block) } }
  }
  for (const key of Object.keys(block)) {
    if (!ACTIONS.has(key) && options.ignore?.has(key) !== true) {
      return { invalid: { path: pathKey(root, key), expected: "allow, ask or deny", got: "an unknown key" } }
    }
  }
  const rules: Array<RuleLike> = []
  const paths: Array<string> = []
  for (const action of RULE_ACTIONS) {
    const list = block[action]
    if (list === undefined) continue
    const at = pathKey(root, action)
    if (!Array.isArray(list))
      return { invalid: { path: at, expected: "an array of rule strings", got: show(list) } }
    for (const [index, text] of list.entries()) {
      const where = `${at}[${index}]`
      if (typeof text !== "string") {
        return { invalid: { path: where, expected: 'a rule string such as "Bash(git *)"', got: show(text) } }
      }
      const rule = parseRuleString(text, action, home)
      if ("problem" in rule) {
        return {
          invalid: {
            path: where,
            expected: "Tool, Tool(glob) or Tool=literal",
            got: `${JSON.stringify(text)} (${rule.problem})`
          }
        }
      }
      rules.push(rule)
      paths.push(where)
    }
  }
  return { rules, paths }
}
