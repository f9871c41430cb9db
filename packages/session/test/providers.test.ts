// The real effect/ai provider packages, made loadable on effect 4.1.0 by the import-only
// patches in patches/ (see patches/README.md): each loads, and the Anthropic one streams a
// text answer from the fake Messages SSE server (fakeProviders.ts).
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import { assert, describe, it } from "@effect/vitest"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as FakeProviders from "./fakeProviders.ts"

describe("effect/ai provider packages on effect 4.1.0", () => {
  it.effect("all three load", () =>
    Effect.gen(function* () {
      const loaders: ReadonlyArray<() => Promise<{ readonly layer: unknown }>> = [
        () => import("@effect/ai-anthropic/AnthropicLanguageModel"),
        () => import("@effect/ai-openai/OpenAiLanguageModel"),
        () => import("@effect/ai-openai-compat/OpenAiLanguageModel")
      ]
      for (const load of loaders) {
        const module = yield* Effect.promise(load)
        assert.strictEqual(typeof module.layer, "function")
      }
    })
  )

  it.effect("the Anthropic model streams text from a Messages SSE server", () =>
    Effect.gen(function* () {
      const server = yield* FakeProviders.fake("anthropic", [
        { type: "reply", text: "Hello from the fake server" }
      ])
      const Model = AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
        Layer.provide(AnthropicClient.layer({ apiKey: Redacted.make("sk-test"), apiUrl: server.baseUrl })),
        Layer.provide(FetchHttpClient.layer)
      )
      const parts = yield* LanguageModel.streamText({ prompt: "Say hello" }).pipe(
        Stream.runCollect,
        Effect.provide(Model)
      )
      const text = parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : [])).join("")
      assert.strictEqual(text, "Hello from the fake server")
      const finish = parts.find((part) => part.type === "finish")
      assert.strictEqual(finish?.type === "finish" ? finish.reason : undefined, "stop")
      assert.strictEqual(server.requests.length, 1)
      assert.strictEqual(server.requests[0]!.path, "/v1/messages")
      assert.strictEqual(server.requests[0]!.headers["x-api-key"], "sk-test")
      assert.strictEqual(server.requests[0]!.body.model, "claude-sonnet-4-5")
    }).pipe(Effect.scoped)
  )
})
