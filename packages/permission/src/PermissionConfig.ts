/**
 * A config file's permission rules, decoded: opencode's `permission` block and blocks of rule
 * strings (`Bash(git *)`), each into a `Ruleset` in precedence order, with
 * {@link ConfigError} naming the offending value. `Permission` re-exports every name here;
 * this module is the one to import where start-up counts (it loads no Bus, Stream or service).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Config from "./internal/config.ts"
import type { Ruleset } from "./internal/rule.ts"

/**
 * A `permission` config block is invalid; `path` names the offending value.
 *
 * @example
 * ```ts
 * // permission.bash["rm *"]: expected allow | ask | deny, got "nope"
 * ```
 * @since 0.0.0
 */
export class ConfigError extends Schema.TaggedError<ConfigError>()("PermissionConfigError", {
  path: Schema.String,
  expected: Schema.String,
  got: Schema.String
}) {
  override get message(): string {
    return `${this.path}: expected ${this.expected}, got ${this.got}`
  }
}

/**
 * Options of {@link fromConfig}.
 *
 * @since 0.0.0
 */
export interface ConfigOptions {
  /** What `~` and `$HOME` expand to (default: the user's home directory). */
  readonly home?: string
}

/**
 * Rules from an opencode-style `permission` block, in the block's key order (so later keys
 * win). A string value is pattern `*`; an object maps patterns to actions; a bare action
 * string is `{ "*": action }`. `~`, `~/`, `$HOME`, `$HOME/` at the start of a pattern
 * expand to the home directory. Throws {@link ConfigError} (naming the offending path)
 * for invalid input; {@link decodeConfig} is the same as an Effect.
 *
 * @example
 * ```ts
 * import { Permission } from "@gatehousejs/permission"
 * Permission.fromConfig({ bash: { "*": "ask", "rm *": "deny" }, edit: "allow" })
 * // [bash * ask, bash "rm *" deny, edit * allow]
 * ```
 * @since 0.0.0
 */
export const fromConfig = (config: unknown, options?: ConfigOptions): Ruleset => {
  const result = Config.parse(config, options)
  if ("invalid" in result) throw new ConfigError(result.invalid)
  return result.rules
}

/**
 * {@link fromConfig} with the failure in the error channel.
 *
 * @since 0.0.0
 */
export const decodeConfig = (config: unknown, options?: ConfigOptions): Effect.Effect<Ruleset, ConfigError> =>
  Effect.suspend(() => {
    const result = Config.parse(config, options)
    return "invalid" in result ? Effect.fail(new ConfigError(result.invalid)) : Effect.succeed(result.rules)
  })

/**
 * Rules from a block of rule strings, `{ "allow": [...], "ask": [...], "deny": [...] }`, as
 * Claude Code's `permissions` block and the Reasonix design write them: `Tool` (every call
 * of the tool), `Tool(glob)` (calls whose subject matches the glob; Claude Code's
 * `Bash(npm run test:*)` is `npm run test` with or without arguments) and `Tool=literal`
 * (the subject exactly, `*` and `?` included). Tool names map to permissions (`Bash` ->
 * `bash`, `Read` -> `read`, `Edit`/`Write`/`MultiEdit` -> `edit`, others lower-cased).
 * Within the block a deny beats an ask beats an allow. Fails with {@link ConfigError}
 * naming the string that does not parse; `ignore` lists other keys to pass over.
 *
 * @example
 * ```ts
 * import { Permission } from "@gatehousejs/permission"
 * import * as Effect from "effect/Effect"
 * const rules = Effect.runSync(Permission.decodeRules({ allow: ["Bash(git *)"], deny: ["Bash=rm *.tmp"] }))
 * Permission.evaluate("bash", "git log", rules).action // "allow"
 * Permission.evaluate("bash", "rm a.tmp", rules).action // "ask": the deny is exactly "rm *.tmp"
 * ```
 * @since 0.0.0
 */
export const decodeRules = (
  block: unknown,
  options: ConfigOptions & { readonly path?: string; readonly ignore?: ReadonlySet<string> } = {}
): Effect.Effect<Ruleset, ConfigError> =>
  Effect.map(decodeRulesWithPaths(block, options), (parsed) => parsed.rules)

/**
 * {@link decodeRules} with the JSON path of each rule's string (same indexes), for traces.
 *
 * @since 0.0.0
 */
export const decodeRulesWithPaths = (
  block: unknown,
  options: ConfigOptions & { readonly path?: string; readonly ignore?: ReadonlySet<string> } = {}
): Effect.Effect<{ readonly rules: Ruleset; readonly paths: ReadonlyArray<string> }, ConfigError> =>
  Effect.suspend(() => {
    const result = Config.parseRuleBlock(block, { ...options, path: options.path ?? "rules" })
    return "invalid" in result ? Effect.fail(new ConfigError(result.invalid)) : Effect.succeed(result)
  })

/**
 * {@link decodeConfig} with the JSON path of each rule (same indexes), for traces.
 *
 * @since 0.0.0
 */
export const decodeConfigWithPaths = (
  config: unknown,
  options?: ConfigOptions & { readonly path?: string }
): Effect.Effect<{ readonly rules: Ruleset; readonly paths: ReadonlyArray<string> }, ConfigError> =>
  Effect.suspend(() => {
    const result = Config.parse(config, options)
    return "invalid" in result ? Effect.fail(new ConfigError(result.invalid)) : Effect.succeed(result)
  })

/**
 * The permission a tool name stands for in a rule string: `Bash` -> `bash`, `Read` ->
 * `read`, `Write`/`Edit`/`MultiEdit`/`NotebookEdit` -> `edit`, any other name lower-cased
 * (`WebFetch` -> `webfetch`). A caller that judges a call by its tool's name (the agent
 * hooks) judges it by this name too, so a pasted `"deny": ["WebFetch"]` holds for it.
 *
 * @since 0.1.0
 */
export const permissionOf = (tool: string): string => Config.permissionOf(tool)
