// A whole turn of the loop on each real provider package, against a fake server speaking
// that provider's streaming protocol (test/fakeProviders.ts): the model asks for a bash
// command, the gate asks, the test answers, the command runs, its result reaches the
// server in the provider's own tool-result format, the model answers, the turn ends.
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type * as Message from "@gatehousejs/session/Message"
import * as Effect from "effect/Effect"
import * as FakeProviders from "./fakeProviders.ts"
import { KEY, runTurn, specs } from "./modelHarness.ts"

const COMMAND = "echo gatehouse-$((6 * 7))"

const turn: ReadonlyArray<FakeProviders.Step> = [
  {
    type: "reply",
    reasoning: "The user wants the command run.",
    text: "Running it.",
    calls: [{ id: "call_bash_1", name: "bash", input: { command: COMMAND } }],
    usage: { input: 120, output: 30 }
  },
  { type: "reply", text: "It printed gatehouse-42.", usage: { input: 180, output: 12 } }
]

// What each provider's second request carries: the call and its result, in its own format.
const toolExchange: Record<
  FakeProviders.Provider,
  (body: FakeProviders.Request["body"]) => { call: unknown; result: string; isError?: boolean }
> = {
  anthropic: (body) => {
    const content = body.messages.flatMap((m: { content: unknown }) =>
      Array.isArray(m.content) ? m.content : []
    )
    const call = content.find((c: { type: string }) => c.type === "tool_use")
    const result = content.find((c: { type: string }) => c.type === "tool_result")
    assert.strictEqual(result.tool_use_id, "call_bash_1")
    // The tool's text as the model should read it: plain, not a JSON string literal.
    assert.strictEqual(typeof result.content, "string")
    return {
      call: { id: call.id, name: call.name, input: call.input },
      result: result.content,
      isError: result.is_error
    }
  },
  openai: (body) => {
    const call = body.input.find((item: { type: string }) => item.type === "function_call")
    const result = body.input.find((item: { type: string }) => item.type === "function_call_output")
    assert.strictEqual(result.call_id, "call_bash_1")
    return {
      call: { id: call.call_id, name: call.name, input: JSON.parse(call.arguments) },
      result: result.output
    }
  },
  "openai-compatible": (body) => {
    const assistant = body.messages.find(
      (m: { role: string; tool_calls?: unknown }) => m.role === "assistant" && m.tool_calls
    )
    const call = assistant.tool_calls[0]
    const result = body.messages.find((m: { role: string }) => m.role === "tool")
    assert.strictEqual(result.tool_call_id, "call_bash_1")
    assert.strictEqual(call.type, "function")
    return {
      call: { id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) },
      result: result.content
    }
  }
}

// The tools each provider was offered, by name, in its own format.
const offeredTools: Record<FakeProviders.Provider, (body: FakeProviders.Request["body"]) => Array<string>> = {
  anthropic: (body) =>
    body.tools.map((tool: { name: string; input_schema: { type: string } }) => {
      assert.strictEqual(tool.input_schema.type, "object")
      return tool.name
    }),
  openai: (body) =>
    body.tools.map((tool: { type: string; name: string; parameters: { type: string } }) => {
      assert.strictEqual(tool.type, "function")
      assert.strictEqual(tool.parameters.type, "object")
      return tool.name
    }),
  "openai-compatible": (body) =>
    body.tools.map((tool: { type: string; function: { name: string; parameters: { type: string } } }) => {
      assert.strictEqual(tool.type, "function")
      assert.strictEqual(tool.function.parameters.type, "object")
      return tool.function.name
    })
}

const keyHeader = (provider: FakeProviders.Provider, request: FakeProviders.Request) =>
  provider === "anthropic" ? request.headers["x-api-key"] : request.headers.authorization

for (const provider of ["anthropic", "openai", "openai-compatible"] as const) {
  describe(`a turn on ${provider}`, () => {
    it.effect("bash asked, answered, run; its result sent back as the provider's tool result", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, turn)
        yield* runTurn(server, "print the answer", ({ last, messages, asked, events }) =>
          Effect.sync(() => {
            assert.strictEqual(server.requests.length, 2)
            const [first, second] = server.requests
            assert.strictEqual(keyHeader(provider, first!), provider === "anthropic" ? KEY : `Bearer ${KEY}`)
            assert.strictEqual(first!.body.model, specs[provider].id)
            assert.strictEqual(first!.body.stream, true)
            assert.sameMembers(offeredTools[provider](first!.body), ["list", "read", "write", "edit", "bash"])
            // The gate asked before the command ran.
            assert.strictEqual(asked.length, 1)
            assert.strictEqual(asked[0]!.permission, "bash")
            const exchange = toolExchange[provider](second!.body)
            assert.deepStrictEqual(exchange.call, {
              id: "call_bash_1",
              name: "bash",
              input: { command: COMMAND }
            })
            assert.strictEqual(exchange.result, "gatehouse-42\n")
            if (provider === "anthropic") assert.isFalse(exchange.isError)
            // The turn ended on the model's text answer.
            assert.strictEqual(last?.finish, "stop")
            assert.isUndefined(last?.error)
            const assistants = messages.filter((m) => m.info.role === "assistant")
            assert.strictEqual(assistants.length, 2)
            const firstParts = assistants[0]!.parts
            const tool = firstParts.find((p): p is Message.ToolPart => p.type === "tool")
            assert.strictEqual(tool?.state.status, "completed")
            assert.include(tool?.state.status === "completed" ? tool.state.output : "", "gatehouse-42")
            assert.include(
              firstParts.filter((p) => p.type === "reasoning").map((p) => (p as Message.ReasoningPart).text),
              "The user wants the command run."
            )
            const stepFinish = firstParts.find((p) => p.type === "step-finish") as
              | Message.StepFinishPart
              | undefined
            assert.strictEqual(stepFinish?.reason, "tool-calls")
            assert.strictEqual(stepFinish?.tokens.input, 120)
            assert.strictEqual(stepFinish?.tokens.output, 30)
            const answer = assistants[1]!.parts.find((p) => p.type === "text") as Message.TextPart | undefined
            assert.strictEqual(answer?.text, "It printed gatehouse-42.")
            assert.deepStrictEqual(last?.model, specs[provider])
            // The key went to the server and nowhere else.
            for (const event of events) assert.notInclude(event, KEY)
          })
        )
      }).pipe(Effect.scoped)
    )

    it.effect("a rejected ask goes back as the provider's tool result and stops the turn", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, turn)
        yield* runTurn(
          server,
          "print the answer",
          ({ messages, asked }) =>
            Effect.sync(() => {
              assert.strictEqual(asked.length, 1)
              const tool = messages
                .flatMap((m) => m.parts)
                .find((p): p is Message.ToolPart => p.type === "tool")
              assert.strictEqual(tool?.state.status, "error")
              // A plain rejection stops the turn: no second request.
              assert.strictEqual(server.requests.length, 1)
            }),
          { reply: "reject" }
        )
      }).pipe(Effect.scoped)
    )

    it.effect("a configured deny goes back as the provider's tool result and the turn goes on", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, turn)
        yield* runTurn(
          server,
          "print the answer",
          ({ last, asked }) =>
            Effect.sync(() => {
              assert.strictEqual(asked.length, 0)
              assert.strictEqual(server.requests.length, 2)
              const exchange = toolExchange[provider](server.requests[1]!.body)
              assert.match(exchange.result, /denied|PermissionDeniedError/i)
              assert.notInclude(exchange.result, "gatehouse-42")
              if (provider === "anthropic") assert.isTrue(exchange.isError)
              assert.strictEqual(last?.finish, "stop")
            }),
          { ruleset: [{ permission: "bash", pattern: "*", action: "deny" }] }
        )
      }).pipe(Effect.scoped)
    )

    it.effect("a sandbox refusal goes back as the command's result, saying what was refused", () =>
      Effect.gen(function* () {
        const outside = realpathSync(mkdtempSync(NodePath.join("/var/tmp", "gatehouse-model-outside-")))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(outside, { recursive: true, force: true })))
        const target = NodePath.join(outside, "planted")
        const server = yield* FakeProviders.fake(provider, [
          {
            type: "reply",
            calls: [{ id: "call_bash_1", name: "bash", input: { command: `echo planted > ${target}` } }]
          },
          { type: "reply", text: "The sandbox stopped that." }
        ])
        yield* runTurn(
          server,
          "plant a file outside",
          ({ last }) =>
            Effect.sync(() => {
              assert.isFalse(existsSync(target))
              assert.strictEqual(server.requests.length, 2)
              const exchange = toolExchange[provider](server.requests[1]!.body)
              assert.include(exchange.result, "<sandbox_status>")
              assert.include(exchange.result, "The sandbox refused")
              assert.strictEqual(last?.finish, "stop")
            }),
          {
            ruleset: [{ permission: "*", pattern: "*", action: "allow" }],
            shell: { sandbox: { mode: "enforce" } }
          }
        )
      }).pipe(Effect.scoped)
    )
  })
}
