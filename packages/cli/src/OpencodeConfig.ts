// An opencode.json (or .jsonc) given as `--config`: its permission blocks are Gatehouse's
// format already. What is read: `permission` and the legacy `tools` map (opencode turns
// `{ "bash": false }` into a deny, so leaving it out would loosen the policy), and with
// `--agent NAME` the same two keys of `agent.NAME`, after the top level (opencode's order: the
// agent's rules win). Every other key is opencode's own and only named in one note.
import * as PermissionConfig from "@gatehousejs/permission/PermissionConfig"
import type * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as Effect from "effect/Effect"

/** Whether `file` is read as an opencode config (by its name). */
export const isOpencodeFile = (file: string): boolean => /(^|[\\/])opencode\.jsonc?$/.test(file)

/** What was wrong, with the JSON path of the offending value (empty for the file). */
export interface Problem {
  readonly path: string
  readonly message: string
}

export interface Rules {
  readonly rules: Ruleset.Ruleset
  /** The JSON path of each rule (same indexes). */
  readonly paths: ReadonlyArray<string>
  /** The keys passed over, as paths (`model`, `agent.build.prompt`). */
  readonly ignored: ReadonlyArray<string>
}

const READ = new Set(["permission", "tools"])
// opencode's edit family: one permission for all of them.
const EDIT_TOOLS = new Set(["edit", "write", "patch", "multiedit", "apply_patch"])
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const pathKey = (path: string, key: string): string =>
  IDENTIFIER.test(key) ? (path === "" ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// `tools: { bash: false, write: true }` as opencode reads it: false denies, true allows.
const toolRules = (tools: unknown, path: string): Rules | Problem => {
  if (!isObject(tools)) return { path, message: "expected an object of tool names and true | false" }
  const rules: Array<Ruleset.Rule> = []
  const paths: Array<string> = []
  for (const [name, enabled] of Object.entries(tools)) {
    const at = pathKey(path, name)
    if (typeof enabled !== "boolean") return { path: at, message: "expected true or false" }
    rules.push({
      permission: EDIT_TOOLS.has(name) ? "edit" : name,
      pattern: "*",
      action: enabled ? "allow" : "deny"
    })
    paths.push(at)
  }
  return { rules, paths, ignored: [] }
}

// One block's rules: `tools` first, then `permission` (which opencode merges over it).
const blockRules = (
  block: Record<string, unknown>,
  path: string,
  options: { readonly home?: string | undefined }
): Effect.Effect<Rules, Problem> =>
  Effect.gen(function* () {
    const tools = block.tools === undefined ? undefined : toolRules(block.tools, pathKey(path, "tools"))
    if (tools !== undefined && "message" in tools) return yield* Effect.fail(tools)
    const permission =
      block.permission === undefined
        ? { rules: [], paths: [] }
        : yield* PermissionConfig.decodeConfigWithPaths(block.permission, {
            ...(options.home === undefined ? {} : { home: options.home }),
            path: pathKey(path, "permission")
          }).pipe(
            Effect.mapError(
              (error): Problem => ({
                path: error.path,
                message: `expected ${error.expected}, got ${error.got}`
              })
            )
          )
    return {
      rules: [...(tools?.rules ?? []), ...permission.rules],
      paths: [...(tools?.paths ?? []), ...permission.paths],
      ignored: Object.keys(block)
        .filter((key) => !READ.has(key) && key !== "$schema")
        .map((key) => pathKey(path, key))
    }
  })

/**
 * The rules of a parsed opencode config: the top level's, then (with `agent`) those of
 * `agent.<agent>`. An agent that is not there (or is disabled) fails, naming those that are.
 */
export const decode = (
  value: unknown,
  options: { readonly agent?: string | undefined; readonly home?: string | undefined }
): Effect.Effect<Rules, Problem> =>
  Effect.gen(function* () {
    if (!isObject(value)) return yield* Effect.fail({ path: "", message: "expected a JSON object" })
    const { agent: agents, ...top } = value
    const own = yield* blockRules(top, "", options)
    if (options.agent === undefined)
      return agents === undefined ? own : { ...own, ignored: [...own.ignored, "agent"] }
    const defined = isObject(agents)
      ? Object.entries(agents)
          .filter(([, entry]) => isObject(entry) && entry.disable !== true)
          .map(([name]) => name)
      : []
    if (!defined.includes(options.agent)) {
      return yield* Effect.fail({
        path: "agent",
        message: `--agent ${options.agent}: no such agent (${
          defined.length === 0 ? "the file defines none" : `its agents: ${defined.join(", ")}`
        })`
      })
    }
    const agent = yield* blockRules(
      (agents as Record<string, Record<string, unknown>>)[options.agent]!,
      pathKey("agent", options.agent),
      options
    )
    return {
      rules: [...own.rules, ...agent.rules],
      paths: [...own.paths, ...agent.paths],
      ignored: [
        ...own.ignored,
        ...agent.ignored,
        ...(defined.length > 1
          ? [`agent (${defined.filter((name) => name !== options.agent).join(", ")})`]
          : [])
      ]
    }
  })
