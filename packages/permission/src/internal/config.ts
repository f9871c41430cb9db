// Turns an opencode-style `permission` config block into rules, reporting the exact path
// of the first invalid value.
import { homedir } from "node:os"

export type Action = "allow" | "ask" | "deny"

export interface RuleLike {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
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
): { readonly rules: Array<RuleLike> } | { readonly invalid: Invalid } => {
  const root = options.path ?? "permission"
  const home = options.home ?? homedir()
  if (isAction(config)) return { rules: [{ permission: "*", pattern: "*", action: config }] }
  if (!isPlainObject(config)) {
    return { invalid: { path: root, expected: `${EXPECTED_ACTION} or an object`, got: show(config) } }
  }
  const rules: Array<RuleLike> = []
  for (const [permission, value] of Object.entries(config)) {
    const at = pathKey(root, permission)
    if (isAction(value)) {
      rules.push({ permission, pattern: "*", action: value })
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
    }
  }
  return { rules }
}
