/**
 * The `model` and `provider` keys of `gatehouse.json`: which model `chat` and `serve` talk to.
 *
 * ```json
 * { "model": "openai-compatible/qwen3-coder", "provider": { "openai-compatible": { "base_url": "http://127.0.0.1:8080/v1" } } }
 * ```
 *
 * `model` is `anthropic/<id>`, `openai/<id>` or `openai-compatible/<id>` (read by
 * `ModelChoice`, with `Model.parse`); `provider` holds a `base_url` per provider name (one of
 * those three). Keys are not configuration: they come
 * only from the environment (see `Model.keyVariable`), so nothing here holds one.
 *
 * @since 0.0.0
 */
// Only types from Model: every command reads the config, and Model's static imports (effect/ai)
// would load with it; the model string itself is checked by ModelChoice, which chat and serve load.
import type * as Model from "@gatehousejs/session/Model"

/**
 * The model keys of a configuration file.
 *
 * @since 0.0.0
 */
export interface Settings {
  /** `model`, as written (checked by `Model.parse`). */
  readonly model: string | undefined
  /** `provider.<name>.base_url`, by provider. */
  readonly baseUrls: Readonly<Partial<Record<Model.Provider, string>>>
}

/**
 * A key of the file that is wrong: its JSON path and what was wrong.
 *
 * @since 0.0.0
 */
export interface Problem {
  readonly path: string
  readonly message: string
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const show = (value: unknown): string =>
  Array.isArray(value)
    ? "an array"
    : value === null
      ? "null"
      : typeof value === "object"
        ? "an object"
        : (JSON.stringify(value) ?? String(value))

const providerPath = (name: string) => `provider[${JSON.stringify(name)}]`

/**
 * The provider names a `provider` block may hold (`Model.providers`; a test keeps them equal).
 *
 * @since 0.0.0
 */
export const providers = [
  "anthropic",
  "openai",
  "openai-compatible"
] as const satisfies ReadonlyArray<Model.Provider>

/**
 * Checks the `model` and `provider` keys of a parsed `gatehouse.json`.
 *
 * @since 0.0.0
 */
export const decode = (value: {
  readonly model?: unknown
  readonly provider?: unknown
}): Settings | Problem => {
  const model = value.model
  if (model !== undefined) {
    if (typeof model !== "string" || model.trim() === "")
      return {
        path: "model",
        message: `expected a model string such as "anthropic/<id>", got ${show(model)}`
      }
  }
  const baseUrls: Partial<Record<Model.Provider, string>> = {}
  if (value.provider !== undefined) {
    if (!isObject(value.provider))
      return { path: "provider", message: `expected an object of providers, got ${show(value.provider)}` }
    for (const [name, entry] of Object.entries(value.provider)) {
      const path = providerPath(name)
      if (!(providers as ReadonlyArray<string>).includes(name))
        return { path, message: `unknown provider (expected one of ${providers.join(", ")})` }
      if (!isObject(entry)) return { path, message: `expected { "base_url": "…" }, got ${show(entry)}` }
      for (const [key, raw] of Object.entries(entry)) {
        if (key !== "base_url") return { path: `${path}.${key}`, message: "unknown key (expected base_url)" }
        if (typeof raw !== "string" || !/^https?:\/\/\S+$/.test(raw.trim()))
          return {
            path: `${path}.base_url`,
            message: `expected an http:// or https:// URL, got ${show(raw)}`
          }
        baseUrls[name as Model.Provider] = raw.trim()
      }
    }
  }
  return { model: typeof model === "string" ? model : undefined, baseUrls }
}
