/**
 * A real model for the loop, chosen by a configuration value.
 *
 * `parse("anthropic/claude-sonnet-4-5")` reads a model string (`anthropic/<id>`,
 * `openai/<id>` or `openai-compatible/<id>`; the id may itself contain `/`), and
 * `layer({ spec, baseUrl, env })` is the `effect/ai` `LanguageModel` of that provider, on
 * Effect's own provider packages: `@effect/ai-anthropic` (Messages API),
 * `@effect/ai-openai` (Responses API) and `@effect/ai-openai-compat` (Chat Completions, for
 * local servers: llama.cpp, vLLM, Ollama, LM Studio).
 *
 * API keys come only from `env` (default `process.env`): `ANTHROPIC_API_KEY`,
 * `OPENAI_API_KEY` (both required), `GATEHOUSE_API_KEY` (optional, for
 * `openai-compatible`). A key is held `Redacted` and never named in an error. A missing
 * key, an unknown provider, a missing or bad base URL fail as {@link ConfigError} when the
 * layer is built, before any request.
 *
 * The provider package is imported when the layer is built, not when this module loads, so
 * that a package that cannot load is a `ConfigError` saying so, and the rest of the session
 * works without it. The published builds of those packages import paths that effect 4.1
 * moved; the repository patches them (`patches/`), and for an installed Gatehouse a Node
 * resolve hook, registered when a model layer is first built and limited to modules of
 * those three packages, redirects the same imports (see `patches/README.md`).
 *
 * Every model call's stream is guarded: its failures name the provider
 * (`anthropic.createMessageStream: ...`), a body that breaks while it streams says so, and a
 * stream that ends before the provider's finish (a connection cut mid-answer) fails with a
 * retryable `NetworkError`, as does one silent for `idleTimeout` (default
 * {@link DEFAULT_IDLE_TIMEOUT}), so a dead connection never hangs a turn.
 *
 * Retries are not the provider's: the packages report `retry-after` but do not retry, and
 * the processor retries (see `SessionRetry`). HTTP goes through effect's `FetchHttpClient`
 * (Node's own fetch): no dependency beyond `effect`, and the same in the bundle.
 *
 * @example
 * ```ts
 * import { Model, SessionPrompt, DefaultTools } from "@gatehousejs/session"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const spec = yield* Model.parse("anthropic/claude-sonnet-4-5")
 *   return SessionPrompt.layer({ toolkit: DefaultTools.toolkit, model: spec }).pipe(
 *     Layer.provide(Model.layer({ spec }))
 *   )
 * })
 * ```
 * @since 0.0.0
 */
import type * as LanguageModel from "effect/ai/LanguageModel"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as ModelStream from "./internal/modelStream.ts"
import * as ProviderImports from "./internal/providerImports.ts"

/**
 * The providers a model string may name.
 *
 * @since 0.0.0
 */
export const providers = ["anthropic", "openai", "openai-compatible"] as const

/**
 * @since 0.0.0
 */
export type Provider = (typeof providers)[number]

/**
 * A parsed model string. It is also what an assistant message records as its model.
 *
 * @since 0.0.0
 */
export interface Spec {
  readonly provider: Provider
  readonly id: string
}

/**
 * The environment variable each provider's key is read from, and whether it is required.
 *
 * @since 0.0.0
 */
export const keyVariable: Readonly<Record<Provider, { readonly name: string; readonly required: boolean }>> =
  {
    anthropic: { name: "ANTHROPIC_API_KEY", required: true },
    openai: { name: "OPENAI_API_KEY", required: true },
    "openai-compatible": { name: "GATEHOUSE_API_KEY", required: false }
  }

/**
 * A model configuration that cannot be used: what was wrong, in words a person can act on.
 * It never contains an API key.
 *
 * @since 0.0.0
 */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ModelConfigError", {
  reason: Schema.Literals([
    "InvalidModel",
    "UnknownProvider",
    "MissingKey",
    "MissingBaseUrl",
    "InvalidBaseUrl",
    "LoadFailed"
  ]),
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

const FORMS = "anthropic/<id>, openai/<id> or openai-compatible/<id>"

/**
 * Reads a model string such as `"anthropic/claude-sonnet-4-5"` or
 * `"openai-compatible/qwen/qwen3-coder"` (the id is everything after the first `/`).
 *
 * @example
 * ```ts
 * import { Model } from "@gatehousejs/session"
 * Model.parse("openai/gpt-5") // Effect succeeding with { provider: "openai", id: "gpt-5" }
 * ```
 * @since 0.0.0
 */
export const parse = (text: string): Effect.Effect<Spec, ConfigError> => {
  const trimmed = text.trim()
  const slash = trimmed.indexOf("/")
  if (slash < 0)
    return Effect.fail(
      new ConfigError({
        reason: "InvalidModel",
        detail: `model ${JSON.stringify(text)} names no provider: expected ${FORMS}`
      })
    )
  const provider = trimmed.slice(0, slash)
  const id = trimmed.slice(slash + 1).trim()
  if (!(providers as ReadonlyArray<string>).includes(provider))
    return Effect.fail(
      new ConfigError({
        reason: "UnknownProvider",
        detail: `model ${JSON.stringify(text)}: unknown provider ${JSON.stringify(provider)}, expected ${FORMS}`
      })
    )
  if (id === "")
    return Effect.fail(
      new ConfigError({
        reason: "InvalidModel",
        detail: `model ${JSON.stringify(text)} has no model id after "${provider}/"`
      })
    )
  return Effect.succeed({ provider: provider as Provider, id })
}

/**
 * Options of {@link layer}.
 *
 * @since 0.0.0
 */
export interface LayerOptions {
  readonly spec: Spec
  /**
   * Where the provider's API is. Required for `openai-compatible` (e.g.
   * `http://127.0.0.1:8080/v1` for llama.cpp, `http://127.0.0.1:11434/v1` for Ollama: the
   * URL that `/chat/completions` follows). Defaults: `https://api.anthropic.com` (before
   * `/v1/messages`), `https://api.openai.com/v1` (before `/responses`).
   */
  readonly baseUrl?: string | undefined
  /** Where keys are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** How long a model call's stream may stay silent before it counts as cut (default {@link DEFAULT_IDLE_TIMEOUT}). */
  readonly idleTimeout?: Duration.Input | undefined
}

/**
 * How long a model call's stream may go without a part (the first one included): as long as
 * undici's own body timeout, so long silent reasoning is not cut sooner than fetch would.
 *
 * @since 0.0.0
 */
export const DEFAULT_IDLE_TIMEOUT: Duration.Duration = Duration.minutes(5)

const checkBaseUrl = (
  spec: Spec,
  baseUrl: string | undefined
): Effect.Effect<string | undefined, ConfigError> => {
  if (baseUrl === undefined || baseUrl.trim() === "") {
    if (spec.provider !== "openai-compatible") return Effect.succeed(undefined)
    return Effect.fail(
      new ConfigError({
        reason: "MissingBaseUrl",
        detail: `model "openai-compatible/${spec.id}" needs a base URL (the server's OpenAI-compatible root, e.g. http://127.0.0.1:8080/v1)`
      })
    )
  }
  let url: URL
  try {
    url = new URL(baseUrl.trim())
  } catch {
    return Effect.fail(
      new ConfigError({
        reason: "InvalidBaseUrl",
        detail: `base URL ${JSON.stringify(baseUrl)} is not a URL`
      })
    )
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return Effect.fail(
      new ConfigError({
        reason: "InvalidBaseUrl",
        detail: `base URL ${JSON.stringify(baseUrl)} is not http: or https:`
      })
    )
  if (url.username !== "" || url.password !== "")
    return Effect.fail(
      new ConfigError({
        reason: "InvalidBaseUrl",
        detail: `base URL for ${spec.provider} carries credentials: put the key in ${keyVariable[spec.provider].name} instead`
      })
    )
  // The packages append their paths (`/v1/messages`, `/responses`, `/chat/completions`).
  return Effect.succeed(url.href.replace(/\/+$/, ""))
}

const readKey = (
  spec: Spec,
  env: Readonly<Record<string, string | undefined>>
): Effect.Effect<Redacted.Redacted<string> | undefined, ConfigError> => {
  const variable = keyVariable[spec.provider]
  const value = env[variable.name]?.trim()
  if (value !== undefined && value !== "")
    return Effect.succeed(Redacted.make(value, { label: variable.name }))
  if (!variable.required) return Effect.succeed(undefined)
  return Effect.fail(
    new ConfigError({
      reason: "MissingKey",
      detail: `model "${spec.provider}/${spec.id}" needs an API key: set ${variable.name} in the environment`
    })
  )
}

const PINNED: Record<string, string> = {
  "@effect/ai-anthropic": "4.0.0-beta.106",
  "@effect/ai-openai": "4.0.0-beta.106",
  "@effect/ai-openai-compat": "4.0.0-beta.98"
}

const loadFailed = (spec: Spec, pkg: string) => (cause: unknown) =>
  new ConfigError({
    reason: "LoadFailed",
    detail: `the provider package ${pkg} for "${spec.provider}" could not be loaded (${
      cause instanceof Error ? cause.message : String(cause)
    }); Gatehouse expects ${pkg}@${PINNED[pkg]} beside effect 4.1 (see its patches/README.md)`
  })

const providerLayer = (
  spec: Spec,
  apiKey: Redacted.Redacted<string> | undefined,
  apiUrl: string | undefined
): Effect.Effect<Layer.Layer<LanguageModel.LanguageModel>, ConfigError> => {
  switch (spec.provider) {
    case "anthropic":
      return Effect.tryPromise({
        try: () =>
          Promise.all([
            import("@effect/ai-anthropic/AnthropicClient"),
            import("@effect/ai-anthropic/AnthropicLanguageModel")
          ]),
        catch: loadFailed(spec, "@effect/ai-anthropic")
      }).pipe(
        Effect.map(([Client, Model]) =>
          Model.layer({ model: spec.id }).pipe(
            Layer.provide(Client.layer({ apiKey, apiUrl })),
            Layer.provide(ModelStream.http(spec.provider))
          )
        )
      )
    case "openai":
      return Effect.tryPromise({
        try: () =>
          Promise.all([
            import("@effect/ai-openai/OpenAiClient"),
            import("@effect/ai-openai/OpenAiLanguageModel")
          ]),
        catch: loadFailed(spec, "@effect/ai-openai")
      }).pipe(
        Effect.map(([Client, Model]) =>
          Model.layer({ model: spec.id }).pipe(
            Layer.provide(Client.layer({ apiKey, apiUrl })),
            Layer.provide(ModelStream.http(spec.provider))
          )
        )
      )
    case "openai-compatible":
      return Effect.tryPromise({
        try: () =>
          Promise.all([
            import("@effect/ai-openai-compat/OpenAiClient"),
            import("@effect/ai-openai-compat/OpenAiLanguageModel")
          ]),
        catch: loadFailed(spec, "@effect/ai-openai-compat")
      }).pipe(
        Effect.map(([Client, Model]) =>
          Model.layer({ model: spec.id }).pipe(
            Layer.provide(Client.layer({ apiKey, apiUrl })),
            Layer.provide(ModelStream.http(spec.provider))
          )
        )
      )
  }
}

/**
 * The `LanguageModel` of `options.spec`, with its own HTTP client. Fails with
 * {@link ConfigError} before any request when the key, the base URL or the provider
 * package is missing.
 *
 * @since 0.0.0
 */
export const layer = (options: LayerOptions): Layer.Layer<LanguageModel.LanguageModel, ConfigError> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const { spec } = options
      if (!(providers as ReadonlyArray<string>).includes(spec.provider))
        return yield* new ConfigError({
          reason: "UnknownProvider",
          detail: `unknown model provider ${JSON.stringify(spec.provider)}, expected ${FORMS}`
        })
      const apiUrl = yield* checkBaseUrl(spec, options.baseUrl)
      const apiKey = yield* readKey(spec, options.env ?? process.env)
      yield* Effect.sync(ProviderImports.register)
      const idle = Duration.fromInputUnsafe(options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT)
      return ModelStream.guarded(spec.provider, ModelStream.endpoint(spec.provider, apiUrl), idle).pipe(
        Layer.provide(yield* providerLayer(spec, apiKey, apiUrl))
      )
    })
  )
