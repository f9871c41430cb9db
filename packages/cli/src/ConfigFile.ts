// One configuration file, `gatehouse.json`'s keys, decoded into a Layer: what it says, each
// rule with the JSON path it came from. Config finds the files and merges their layers.
import type * as Permission from "@gatehousejs/permission/Permission"
import * as PermissionConfig from "@gatehousejs/permission/PermissionConfig"
import type * as Sandbox from "@gatehousejs/shell/Sandbox"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ModelConfig from "./ModelConfig.ts"

/**
 * The configuration could not be read or is invalid. `path` is the JSON path of the
 * offending value (`permission.bash["rm *"]`), empty for file-level problems.
 *
 * @since 0.0.0
 */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  file: Schema.String,
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * @since 0.0.0
 */
export interface ToolOutput {
  readonly maxLines?: number
  readonly maxBytes?: number
  readonly retentionDays?: number
}

const KEYS = new Set([
  "$schema",
  "permission",
  "rules",
  "permissions",
  "mode",
  "tool_output",
  "shell",
  "sandbox",
  "redis",
  "model",
  "provider"
])
const CLAUDE_PERMISSION_KEYS: ReadonlySet<string> = new Set([
  "defaultMode",
  "additionalDirectories",
  "disableBypassPermissionsMode"
])
const SANDBOX_MODES: ReadonlySet<string> = new Set(["auto", "enforce", "off"])
const SANDBOX_KEYS = "mode, network, allow_write, deny_read, allow_read"

type SandboxResult =
  | { readonly ok: Partial<Sandbox.Settings> }
  | { readonly path: string; readonly message: string }

// `"sandbox": "auto"` or `{ mode?, network?, allow_write?, deny_read?, allow_read? }`.
const decodeSandbox = (value: unknown): SandboxResult => {
  if (value === undefined) return { ok: {} }
  if (typeof value === "string") {
    return SANDBOX_MODES.has(value)
      ? { ok: { mode: value as Sandbox.Mode } }
      : { path: "sandbox", message: `expected auto | enforce | off or an object, got ${show(value)}` }
  }
  if (!isObject(value))
    return { path: "sandbox", message: `expected auto | enforce | off or an object, got ${show(value)}` }
  const out: { -readonly [K in keyof Sandbox.Settings]?: Sandbox.Settings[K] } = {}
  for (const [key, raw] of Object.entries(value)) {
    const path = pathKey("sandbox", key)
    if (key === "mode") {
      if (typeof raw !== "string" || !SANDBOX_MODES.has(raw)) {
        return { path, message: `expected auto | enforce | off, got ${show(raw)}` }
      }
      out.mode = raw as Sandbox.Mode
    } else if (key === "network") {
      if (raw === "none" || raw === "allow") out.network = raw
      else if (
        isObject(raw) &&
        Object.keys(raw).length === 1 &&
        Array.isArray(raw.allow) &&
        raw.allow.every((host) => typeof host === "string" && host !== "")
      ) {
        out.network = { allow: raw.allow as Array<string> }
      } else return { path, message: `expected none | allow | { "allow": [hosts] }, got ${show(raw)}` }
    } else if (key === "allow_write" || key === "deny_read" || key === "allow_read") {
      if (!Array.isArray(raw)) return { path, message: `expected an array of paths, got ${show(raw)}` }
      for (const [index, entry] of raw.entries()) {
        if (
          typeof entry !== "string" ||
          !(entry.startsWith("/") || entry === "~" || entry.startsWith("~/"))
        ) {
          return {
            path: `${path}[${index}]`,
            message: `expected an absolute path or ~/…, got ${show(entry)}`
          }
        }
      }
      const paths = raw as Array<string>
      if (key === "allow_write") out.allowWrite = paths
      else if (key === "deny_read") out.denyRead = paths
      else out.allowRead = paths
    } else return { path, message: `unknown key (expected one of ${SANDBOX_KEYS})` }
  }
  return { ok: out }
}
const TOOL_OUTPUT_KEYS: Record<string, "max_lines" | "max_bytes" | "retention_days"> = {
  max_lines: "max_lines",
  max_bytes: "max_bytes",
  retention_days: "retention_days"
}
const MODES: ReadonlySet<string> = new Set(["ask", "auto", "yolo"])

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const pathKey = (path: string, key: string): string => {
  const step = IDENTIFIER.test(key) ? key : `[${JSON.stringify(key)}]`
  if (path === "") return step.startsWith("[") ? step : key
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}${step}`
}

const show = (value: unknown): string => {
  if (Array.isArray(value)) return "an array"
  if (value === null) return "null"
  if (typeof value === "object") return "an object"
  return JSON.stringify(value) ?? String(value)
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * One file's part of the configuration, before the layers are merged (see {@link load}).
 *
 * @since 0.1.0
 */
export interface Layer {
  readonly file: string
  /** The file's rules, in order. */
  readonly permission: Permission.Ruleset
  /** Where each of `permission` comes from (same indexes): the file's name and the JSON path. */
  readonly sources: ReadonlyArray<string>
  readonly mode: Permission.Mode | undefined
  readonly toolOutput: ToolOutput
  readonly shell: string | undefined
  readonly sandbox: Partial<Sandbox.Settings>
  readonly redis: string | undefined
  readonly models: ModelConfig.Settings
  /** Keys read past without effect (an opencode.json's own), said once on stderr. */
  readonly ignored: ReadonlyArray<string>
  /** The repository's own file, which cannot lift the user's denies (see `ProjectLayer`). */
  readonly project?: boolean | undefined
  /** Said once on stderr (what `ProjectLayer.restrict` left out). */
  readonly notes?: ReadonlyArray<string> | undefined
}

type Fail = (path: string, message: string) => Effect.Effect<never, ConfigError>

const failIn =
  (file: string): Fail =>
  (path, message) =>
    Effect.fail(
      new ConfigError({ file, path, message: `${file}: ${path === "" ? "" : `${path}: `}${message}` })
    )

const fromPermissionError = (file: string) => (error: PermissionConfig.ConfigError) =>
  new ConfigError({
    file,
    path: error.path,
    message: `${file}: ${error.path}: expected ${error.expected}, got ${error.got}`
  })

/**
 * Validates one parsed `gatehouse.json`. `file` is its path (in messages), `name` what the
 * trace calls it (`gatehouse.json`, `~/.config/gatehouse/gatehouse.json`).
 *
 * @since 0.1.0
 */
export const decodeLayer = (
  value: unknown,
  options: { readonly file: string; readonly name: string; readonly home?: string | undefined }
): Effect.Effect<Layer, ConfigError> =>
  Effect.suspend(() => {
    const { file, name } = options
    const fail = failIn(file)
    if (!isObject(value)) return fail("", `expected a JSON object, got ${show(value)}`)
    for (const key of Object.keys(value)) {
      if (!KEYS.has(key)) {
        return fail(
          pathKey("", key),
          `unknown key (expected one of ${[...KEYS].filter((k) => k !== "$schema").join(", ")})`
        )
      }
    }
    const mode = value.mode
    if (mode !== undefined && (typeof mode !== "string" || !MODES.has(mode)))
      return fail("mode", `expected ask | auto | yolo, got ${show(mode)}`)
    const shell = value.shell
    if (shell !== undefined && (typeof shell !== "string" || shell.trim() === "")) {
      return fail("shell", `expected a shell name or path, got ${show(shell)}`)
    }
    const redis = value.redis
    if (redis !== undefined && (typeof redis !== "string" || !/^rediss?:\/\/\S+$/.test(redis))) {
      return fail("redis", `expected a redis:// or rediss:// URL, got ${show(redis)}`)
    }
    const sandbox = decodeSandbox(value.sandbox)
    if ("path" in sandbox) return fail(sandbox.path, sandbox.message)
    const models = ModelConfig.decode(value)
    if ("path" in models) return fail(models.path, models.message)
    const toolOutput: { maxLines?: number; maxBytes?: number; retentionDays?: number } = {}
    if (value.tool_output !== undefined) {
      if (!isObject(value.tool_output))
        return fail("tool_output", `expected an object, got ${show(value.tool_output)}`)
      for (const [key, raw] of Object.entries(value.tool_output)) {
        const known = TOOL_OUTPUT_KEYS[key]
        const path = pathKey("tool_output", key)
        if (known === undefined)
          return fail(path, "unknown key (expected one of max_lines, max_bytes, retention_days)")
        const integer = known !== "retention_days"
        if (
          typeof raw !== "number" ||
          !Number.isFinite(raw) ||
          raw <= 0 ||
          (integer && !Number.isInteger(raw))
        ) {
          return fail(path, `expected a positive ${integer ? "integer" : "number"}, got ${show(raw)}`)
        }
        if (known === "max_lines") toolOutput.maxLines = raw
        else if (known === "max_bytes") toolOutput.maxBytes = raw
        else toolOutput.retentionDays = raw
      }
    }
    if (value.permission === null)
      return fail("permission", "expected an object or allow | ask | deny, got null")
    const home = options.home === undefined ? {} : { home: options.home }
    // The opencode block, then rule strings: `rules`, then a pasted Claude Code `permissions`
    // block (its keys other than allow/ask/deny are Claude Code's own and left alone).
    return Effect.all([
      PermissionConfig.decodeConfigWithPaths(value.permission ?? {}, { ...home, path: "permission" }),
      value.rules === undefined
        ? Effect.succeed({ rules: [], paths: [] })
        : PermissionConfig.decodeRulesWithPaths(value.rules, { ...home, path: "rules" }),
      value.permissions === undefined
        ? Effect.succeed({ rules: [], paths: [] })
        : PermissionConfig.decodeRulesWithPaths(value.permissions, {
            ...home,
            path: "permissions",
            ignore: CLAUDE_PERMISSION_KEYS
          })
    ]).pipe(
      Effect.mapError(fromPermissionError(file)),
      Effect.map(
        (blocks): Layer => ({
          file,
          permission: blocks.flatMap((block) => block.rules),
          sources: blocks.flatMap((block) => block.paths.map((path) => `${name} ${path}`)),
          mode: mode as Permission.Mode | undefined,
          toolOutput,
          shell: typeof shell === "string" ? shell : undefined,
          sandbox: sandbox.ok,
          redis: typeof redis === "string" ? redis : undefined,
          models,
          ignored: []
        })
      )
    )
  })
