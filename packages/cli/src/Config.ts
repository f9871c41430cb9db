/**
 * `gatehouse.json`: the project's policy, read by every `gatehouse` command.
 *
 * The file is `--config FILE` or the `gatehouse.json` of the working directory (none is
 * fine: the defaults apply). Keys: `permission` (opencode's format, so a block can be
 * pasted in; key order is precedence), `mode` (`ask | auto | yolo`), `tool_output`
 * (`max_lines`, `max_bytes`, `retention_days`), `shell` (a name or path). An unknown key or a
 * value of the wrong type fails with {@link ConfigError}, naming the JSON path of the
 * offending value: a broken config never runs with a guessed policy.
 *
 * The ruleset is {@link defaults} (opencode's agent defaults) followed by the file's
 * `permission` rules, so the file wins.
 *
 * @since 0.0.0
 */
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import type * as Sandbox from "@gatehousejs/shell/Sandbox"
import type * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * The file name looked for in the working directory.
 *
 * @since 0.0.0
 */
export const FILE_NAME = "gatehouse.json"

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

/**
 * The Truncate settings a `tool_output` block gives (unset fields keep Truncate's defaults).
 *
 * @since 0.0.0
 */
export const truncateOptions = (toolOutput: ToolOutput): Truncate.LayerOptions => ({
  maxLines: toolOutput.maxLines,
  maxBytes: toolOutput.maxBytes,
  retention: toolOutput.retentionDays === undefined ? undefined : `${toolOutput.retentionDays} days`
})

/**
 * A loaded configuration.
 *
 * @since 0.0.0
 */
export interface Info {
  /** The file read, if any. */
  readonly file: string | undefined
  /** The project root: the config file's directory, else the working directory. */
  readonly directory: string
  /** The file's own rules, in order. */
  readonly permission: Permission.Ruleset
  /** {@link defaults} followed by the file's rules: what the gate judges with. */
  readonly ruleset: Permission.Ruleset
  /** Where each rule of `ruleset` comes from (same indexes). */
  readonly sources: ReadonlyArray<string>
  readonly mode: Permission.Mode
  readonly toolOutput: ToolOutput
  readonly shell: string | undefined
  /** The `sandbox` block (`Sandbox.Settings` minus what the file leaves out). */
  readonly sandbox: Partial<Sandbox.Settings>
}

/**
 * opencode's agent defaults: everything allowed; `external_directory` and `doom_loop`
 * ask; reading `.env` files asks (`.env.example` does not).
 *
 * @since 0.0.0
 */
export const defaults: Permission.Ruleset = [
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "doom_loop", pattern: "*", action: "ask" },
  { permission: "external_directory", pattern: "*", action: "ask" },
  { permission: "read", pattern: "*", action: "allow" },
  { permission: "read", pattern: "*.env", action: "ask" },
  { permission: "read", pattern: "*.env.*", action: "ask" },
  { permission: "read", pattern: "*.env.example", action: "allow" }
]

const KEYS = new Set(["$schema", "permission", "mode", "tool_output", "shell", "sandbox"])
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
 * Validates a parsed `gatehouse.json` value. `file` and `directory` say where it came from.
 *
 * @since 0.0.0
 */
export const decode = (
  value: unknown,
  options: { readonly file: string | undefined; readonly directory: string; readonly home?: string }
): Effect.Effect<Info, ConfigError> =>
  Effect.suspend(() => {
    const file = options.file ?? FILE_NAME
    const fail = (path: string, message: string) =>
      Effect.fail(
        new ConfigError({ file, path, message: `${file}: ${path === "" ? "" : `${path}: `}${message}` })
      )
    if (!isObject(value)) return fail("", `expected a JSON object, got ${show(value)}`)
    for (const key of Object.keys(value)) {
      if (!KEYS.has(key)) {
        return fail(
          pathKey("", key),
          `unknown key (expected one of ${[...KEYS].filter((k) => k !== "$schema").join(", ")})`
        )
      }
    }
    const mode = value.mode === undefined ? "ask" : value.mode
    if (typeof mode !== "string" || !MODES.has(mode))
      return fail("mode", `expected ask | auto | yolo, got ${show(mode)}`)
    const shell = value.shell
    if (shell !== undefined && (typeof shell !== "string" || shell.trim() === "")) {
      return fail("shell", `expected a shell name or path, got ${show(shell)}`)
    }
    const sandbox = decodeSandbox(value.sandbox)
    if ("path" in sandbox) return fail(sandbox.path, sandbox.message)
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
    return Permission.decodeConfig(
      value.permission ?? {},
      options.home === undefined ? {} : { home: options.home }
    ).pipe(
      Effect.mapError(
        (error) =>
          new ConfigError({
            file,
            path: error.path,
            message: `${file}: ${error.path}: expected ${error.expected}, got ${error.got}`
          })
      ),
      Effect.map((permission): Info => {
        const own = sourcesOf(
          value.permission ?? {},
          options.file === undefined ? FILE_NAME : NodePath.basename(file)
        )
        const configSources =
          own.length === permission.length
            ? own
            : permission.map(() => `${NodePath.basename(file)} permission`)
        return {
          file: options.file,
          directory: options.directory,
          permission,
          ruleset: Permission.merge(defaults, permission),
          sources: [
            ...defaults.map((rule) => `default ${rule.permission} ${rule.pattern}`),
            ...configSources
          ],
          mode: mode as Permission.Mode,
          toolOutput,
          shell: typeof shell === "string" ? shell : undefined,
          sandbox: sandbox.ok
        }
      })
    )
  })

// The JSON path of every rule, in the order `Permission.fromConfig` produces them.
const sourcesOf = (block: unknown, file: string): Array<string> => {
  if (typeof block === "string") return [`${file} permission`]
  if (!isObject(block)) return []
  const out: Array<string> = []
  for (const [permission, value] of Object.entries(block)) {
    const path = pathKey("permission", permission)
    if (typeof value === "string") out.push(`${file} ${path}`)
    else if (isObject(value))
      for (const pattern of Object.keys(value)) out.push(`${file} ${pathKey(path, pattern)}`)
  }
  return out
}

/**
 * Reads `config` (a file path) or else `<cwd>/gatehouse.json` if it exists. With neither,
 * the defaults apply and the project root is `cwd`.
 *
 * @since 0.0.0
 */
export const load = Effect.fnUntraced(function* (options: {
  readonly cwd: string
  readonly config?: string | undefined
  readonly home?: string
}) {
  const cwd = NodePath.resolve(options.cwd)
  const explicit = options.config !== undefined
  const file = explicit ? NodePath.resolve(cwd, options.config!) : NodePath.join(cwd, FILE_NAME)
  const text = yield* Effect.tryPromise({
    try: () => NodeFs.readFile(file, "utf8"),
    catch: (cause) => cause as NodeJS.ErrnoException
  }).pipe(
    Effect.map((text): string | undefined => text),
    Effect.catch((cause) =>
      !explicit && cause.code === "ENOENT"
        ? Effect.succeed(undefined)
        : Effect.fail(
            new ConfigError({
              file,
              path: "",
              message: `cannot read ${file}: ${cause.message ?? String(cause)}`
            })
          )
    )
  )
  const home = options.home === undefined ? {} : { home: options.home }
  if (text === undefined) return yield* decode({}, { file: undefined, directory: cwd, ...home })
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    return yield* new ConfigError({
      file,
      path: "",
      message: `${file}: not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`
    })
  }
  return yield* decode(parsed, { file, directory: NodePath.dirname(file), ...home })
})

/**
 * {@link load} for a command's `main`: the configuration, or `undefined` once
 * `gatehouse <command>: <what was wrong>` has been printed to stderr (the command then
 * exits 2).
 *
 * @since 0.0.0
 */
export const loadForCommand = async (
  command: string,
  options: { readonly cwd: string; readonly config?: string | undefined }
): Promise<Info | undefined> => {
  const loaded = await Effect.runPromiseExit(load(options))
  if (Exit.isSuccess(loaded)) return loaded.value
  const error = Exit.findErrorOption(loaded)
  console.error(
    `gatehouse ${command}: ${Option.isSome(error) ? error.value.message : "cannot load the configuration"}`
  )
  return undefined
}
