// Model strings and the configuration errors of Model.layer, all before any request.
import * as NodeHttp from "node:http"
import type * as NodeNet from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as Model from "@gatehousejs/session/Model"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as FakeProviders from "./fakeProviders.ts"

const KEY = "sk-secret-model-test-0123456789"

const configError = (exit: Exit.Exit<unknown, unknown>): Model.ConfigError => {
  assert.isTrue(Exit.isFailure(exit))
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  const value = error?._tag === "Fail" ? error.error : undefined
  assert.instanceOf(value, Model.ConfigError)
  return value as Model.ConfigError
}

const build = (options: Model.LayerOptions) => Effect.exit(Effect.scoped(Layer.build(Model.layer(options))))

describe("Model.parse", () => {
  it.effect("reads the three providers; the id keeps its own slashes", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Model.parse("anthropic/claude-sonnet-4-5"), {
        provider: "anthropic",
        id: "claude-sonnet-4-5"
      })
      assert.deepStrictEqual(yield* Model.parse(" openai/gpt-5 "), { provider: "openai", id: "gpt-5" })
      assert.deepStrictEqual(yield* Model.parse("openai-compatible/qwen/qwen3-coder:30b"), {
        provider: "openai-compatible",
        id: "qwen/qwen3-coder:30b"
      })
    })
  )

  it.effect("an unknown provider, no provider or no id is a ConfigError saying which", () =>
    Effect.gen(function* () {
      const unknown = configError(yield* Effect.exit(Model.parse("gemini/flash")))
      assert.strictEqual(unknown.reason, "UnknownProvider")
      assert.include(unknown.message, `unknown provider "gemini"`)
      assert.include(unknown.message, "openai-compatible/<id>")
      const bare = configError(yield* Effect.exit(Model.parse("gpt-5")))
      assert.strictEqual(bare.reason, "InvalidModel")
      assert.include(bare.message, "names no provider")
      const empty = configError(yield* Effect.exit(Model.parse("anthropic/ ")))
      assert.strictEqual(empty.reason, "InvalidModel")
      assert.include(empty.message, "no model id")
    })
  )
})

describe("Model.layer", () => {
  // A server that fails the test if anything reaches it: configuration errors come first.
  const untouched = Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ server: NodeHttp.Server; hits: Array<string> }>((resolve) => {
          const hits: Array<string> = []
          const server = NodeHttp.createServer((req, res) => {
            hits.push(req.url ?? "")
            res.writeHead(500).end()
          })
          server.listen(0, "127.0.0.1", () => resolve({ server, hits }))
        })
    ),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

  it.effect("a missing key names the variable, before any request", () =>
    Effect.gen(function* () {
      const { server, hits } = yield* untouched
      const baseUrl = `http://127.0.0.1:${(server.address() as NodeNet.AddressInfo).port}`
      for (const [provider, variable] of [
        ["anthropic", "ANTHROPIC_API_KEY"],
        ["openai", "OPENAI_API_KEY"]
      ] as const) {
        const error = configError(
          yield* build({ spec: { provider, id: "m" }, baseUrl, env: { [variable]: "  " } })
        )
        assert.strictEqual(error.reason, "MissingKey")
        assert.include(error.message, variable)
      }
      assert.deepStrictEqual(hits, [])
    }).pipe(Effect.scoped)
  )

  it.effect("openai-compatible needs a base URL, not a key; a bad URL is named", () =>
    Effect.gen(function* () {
      const missing = configError(
        yield* build({ spec: { provider: "openai-compatible", id: "llama" }, env: {} })
      )
      assert.strictEqual(missing.reason, "MissingBaseUrl")
      assert.include(missing.message, "openai-compatible/llama")
      const bad = configError(
        yield* build({
          spec: { provider: "openai-compatible", id: "llama" },
          baseUrl: "localhost:8080",
          env: {}
        })
      )
      assert.strictEqual(bad.reason, "InvalidBaseUrl")
      const ftp = configError(
        yield* build({
          spec: { provider: "openai-compatible", id: "l" },
          baseUrl: "ftp://127.0.0.1/v1",
          env: {}
        })
      )
      assert.strictEqual(ftp.reason, "InvalidBaseUrl")
      const ok = yield* build({
        spec: { provider: "openai-compatible", id: "llama" },
        baseUrl: "http://127.0.0.1:1/v1",
        env: {}
      })
      assert.isTrue(Exit.isSuccess(ok))
    })
  )

  it.effect("an unknown provider in a hand-made spec is a ConfigError", () =>
    Effect.gen(function* () {
      const error = configError(
        yield* build({
          spec: { provider: "gemini" as Model.Provider, id: "x" },
          env: { GEMINI_API_KEY: KEY }
        })
      )
      assert.strictEqual(error.reason, "UnknownProvider")
    })
  )

  it.effect("a key in the base URL is refused without echoing it", () =>
    Effect.gen(function* () {
      const error = configError(
        yield* build({
          spec: { provider: "openai", id: "gpt-5" },
          baseUrl: `https://user:${KEY}@api.example.com/v1`,
          env: { OPENAI_API_KEY: KEY }
        })
      )
      assert.strictEqual(error.reason, "InvalidBaseUrl")
      assert.notInclude(error.message, KEY)
      assert.notInclude(JSON.stringify(error), KEY)
    })
  )

  it.effect("with a key each provider's layer builds a LanguageModel", () =>
    Effect.gen(function* () {
      for (const spec of [
        { provider: "anthropic", id: "claude-sonnet-4-5" },
        { provider: "openai", id: "gpt-5" }
      ] as const) {
        const model = yield* LanguageModel.LanguageModel.pipe(
          Effect.provide(Model.layer({ spec, env: { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY } }))
        )
        assert.strictEqual(typeof model.streamText, "function")
      }
    })
  )

  it.effect("openai-compatible sends GATEHOUSE_API_KEY as a bearer token, and nothing without it", () =>
    Effect.gen(function* () {
      for (const env of [{ GATEHOUSE_API_KEY: KEY }, {}]) {
        const server = yield* FakeProviders.fake("openai-compatible", [{ type: "reply", text: "ok" }])
        const text = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
          Stream.runCollect,
          Effect.map((parts) =>
            parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : [])).join("")
          ),
          Effect.provide(
            Model.layer({
              spec: { provider: "openai-compatible", id: "local" },
              baseUrl: server.baseUrl,
              env
            })
          )
        )
        assert.strictEqual(text, "ok")
        assert.strictEqual(
          server.requests[0]!.headers.authorization,
          "GATEHOUSE_API_KEY" in env ? `Bearer ${KEY}` : undefined
        )
      }
    }).pipe(Effect.scoped)
  )
})
