import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"

const script: ScriptedModel.Script = {
  turns: [
    {
      parts: [
        { type: "reasoning", text: "look first" },
        { type: "text", text: "Let me look around." },
        { type: "tool-call", name: "list", params: { path: "." }, id: "call_a" }
      ]
    },
    { parts: [{ type: "error", message: "slow down", status: 429, headers: { "retry-after": "2" } }] },
    {
      parts: [
        { type: "text", text: "abcdef", chunk: 2 },
        { type: "finish", reason: "stop", usage: { input: 50, output: 7 } }
      ]
    }
  ]
}

describe("ScriptedModel", () => {
  it.effect("plays turn N on call N, as effect/ai stream parts", () =>
    Effect.gen(function* () {
      const scripted = yield* ScriptedModel.make(script)
      const first = yield* scripted.model
        .streamText({ prompt: "hello", disableToolCallResolution: true, toolCallValidation: "deferred" })
        .pipe(Stream.runCollect)
      assert.deepStrictEqual(
        first.map((p) => p.type),
        [
          "reasoning-start",
          "reasoning-delta",
          "reasoning-delta",
          "reasoning-end",
          "text-start",
          "text-delta",
          "text-delta",
          "text-delta",
          "text-delta",
          "text-end",
          "tool-params-start",
          "tool-params-delta",
          "tool-params-end",
          "tool-call",
          "finish"
        ]
      )
      const toolCall = first.find((p) => p.type === "tool-call")!
      assert.deepStrictEqual([toolCall.id, toolCall.name, toolCall.params], ["call_a", "list", { path: "." }])
      const finish = first[first.length - 1]!
      assert.strictEqual(finish.type === "finish" && finish.reason, "tool-calls")

      const second = yield* Effect.exit(
        scripted.model.streamText({ prompt: "again" }).pipe(Stream.runCollect)
      )
      assert.isTrue(Exit.isFailure(second))
      if (Exit.isFailure(second)) {
        const error = second.cause.reasons[0]
        assert.isTrue(error !== undefined && error._tag === "Fail" && AiError.isAiError(error.error))
        if (error?._tag === "Fail" && AiError.isAiError(error.error)) {
          assert.strictEqual(error.error.reason._tag, "RateLimitError")
          assert.isTrue(error.error.isRetryable)
        }
      }

      const third = yield* scripted.model.streamText({ prompt: "third" }).pipe(Stream.runCollect)
      assert.deepStrictEqual(
        third.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])),
        ["ab", "cd", "ef"]
      )
      const usage = third.find((p) => p.type === "finish")
      assert.strictEqual(usage?.type === "finish" && usage.usage.inputTokens.total, 50)

      const past = yield* Effect.exit(scripted.model.streamText({ prompt: "more" }).pipe(Stream.runCollect))
      assert.isTrue(Exit.isFailure(past))
      assert.strictEqual(scripted.prompts().length, 4)
    })
  )

  it.effect("generateText gives whole parts", () =>
    Effect.gen(function* () {
      const scripted = yield* ScriptedModel.make({
        turns: [{ parts: [{ type: "text", text: "one two three" }] }]
      })
      const response = yield* scripted.model.generateText({ prompt: "hi" })
      assert.strictEqual(response.text, "one two three")
      assert.strictEqual(response.finishReason, "stop")
    })
  )

  it.effect("layerFile reads a JSON script; a bad file is a ScriptError naming it", () =>
    Effect.gen(function* () {
      const dir = yield* Effect.promise(() =>
        NodeFs.mkdtemp(NodePath.join(NodeOs.tmpdir(), "gatehouse-script-"))
      )
      const good = NodePath.join(dir, "good.json")
      const bad = NodePath.join(dir, "bad.json")
      yield* Effect.promise(() =>
        NodeFs.writeFile(good, JSON.stringify({ turns: [{ parts: [{ type: "text", text: "hi" }] }] }))
      )
      yield* Effect.promise(() =>
        NodeFs.writeFile(bad, JSON.stringify({ turns: [{ parts: [{ type: "shout" }] }] }))
      )
      const text = yield* LanguageModel.generateText({ prompt: "x" }).pipe(
        Effect.provide(ScriptedModel.layerFile(good)),
        Effect.map((r) => r.text)
      )
      assert.strictEqual(text, "hi")
      const error = yield* Effect.flip(ScriptedModel.load(bad))
      assert.strictEqual(error._tag, "ScriptError")
      assert.include(error.message, bad)
      yield* Effect.promise(() => NodeFs.rm(dir, { recursive: true }))
    })
  )

  it.effect("the demo script decodes", () =>
    Effect.gen(function* () {
      const demo = yield* ScriptedModel.load(ScriptedModel.demoScriptPath)
      assert.isAtLeast(demo.turns.length, 8)
    })
  )
})
