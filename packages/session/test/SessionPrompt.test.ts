import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import type * as Message from "@gatehousejs/session/Message"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { DIR } from "./helpers.ts"

// A tool that reports the context it ran with, and one that asks a permission first.
const Echo = Tool.make("echo", {
  parameters: Schema.Struct({ text: Schema.String }),
  success: Schema.String,
  failure: Schema.Struct({ _tag: Schema.String, message: Schema.String }),
  failureMode: "return",
  dependencies: [Instance.Current]
})
const Guarded = Tool.make("guarded", {
  parameters: Schema.Struct({ what: Schema.String }),
  success: Schema.String,
  failure: Schema.Struct({ _tag: Schema.String, message: Schema.String }),
  failureMode: "return",
  dependencies: [Instance.Current]
})
const TestTools = Toolkit.make(Echo, Guarded)
const TestHandlers = TestTools.toLayer(
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    return TestTools.of({
      echo: ({ text }) =>
        Effect.gen(function* () {
          const context = yield* ShellContext.Service
          return `${text} [${context.sessionID} ${context.callID}]`
        }),
      guarded: ({ what }) =>
        Effect.gen(function* () {
          const context = yield* ShellContext.Service
          yield* permission.ask({
            sessionID: context.sessionID,
            permission: "guarded",
            patterns: [what],
            always: [what],
            metadata: {},
            ruleset: context.ruleset
          })
          return `did ${what}`
        }).pipe(Effect.mapError((error) => ({ _tag: error._tag, message: error.message })))
    })
  })
)

const live = (
  script: ScriptedModel.Script,
  options: Partial<SessionPrompt.Options<Toolkit.Tools<typeof TestTools>>> = {}
) =>
  Effect.gen(function* () {
    const scripted = yield* ScriptedModel.make(script)
    const layer = SessionPrompt.layer({
      toolkit: TestTools,
      ruleset: [
        { permission: "*", pattern: "*", action: "allow" },
        { permission: "guarded", pattern: "*", action: "ask" }
      ],
      ...options
    }).pipe(
      Layer.provideMerge(TestHandlers),
      Layer.provideMerge(SessionProcessor.layer),
      Layer.provideMerge(Layer.mergeAll(SessionStore.layerMemory, SessionStatus.layer)),
      Layer.provideMerge(Permission.layerMemory),
      Layer.provideMerge(Layer.succeed(LanguageModel.LanguageModel, scripted.model))
    )
    return { scripted, layer }
  })

const inSession = <A, E>(
  script: ScriptedModel.Script,
  body: (ctx: {
    readonly prompts: SessionPrompt.Interface
    readonly session: { readonly id: string }
    readonly sent: () => ReadonlyArray<Prompt.Prompt>
  }) => Effect.Effect<
    A,
    E,
    | SessionPrompt.Service
    | SessionStore.Service
    | SessionStatus.Service
    | Permission.Service
    | Bus.Service
    | Instance.Current
    | Scope.Scope
  >,
  options: Partial<SessionPrompt.Options<Toolkit.Tools<typeof TestTools>>> = {}
) =>
  Effect.gen(function* () {
    const { scripted, layer } = yield* live(script, options)
    return yield* Effect.gen(function* () {
      const prompts = yield* SessionPrompt.Service
      const session = yield* prompts.create({ directory: DIR, title: "t" })
      return yield* body({ prompts, session, sent: scripted.prompts })
    }).pipe(Effect.provide(layer))
  }).pipe(Effect.scoped, Instance.provide(DIR)) as Effect.Effect<A, E>

const messagesOf = (sessionID: string) =>
  Effect.flatMap(SessionStore.Service, (store) => store.messages(sessionID))

describe("SessionPrompt", () => {
  it.effect("loops model -> tools -> model until the model stops calling tools", () =>
    inSession(
      {
        turns: [
          {
            parts: [
              { type: "text", text: "Echoing." },
              { type: "tool-call", name: "echo", params: { text: "hi" }, id: "call_1" }
            ]
          },
          { parts: [{ type: "text", text: "All done." }] }
        ]
      },
      ({ prompts, session, sent }) =>
        Effect.gen(function* () {
          const last = yield* prompts.prompt(session.id, "please echo hi")
          assert.strictEqual(last?.finish, "stop")
          const messages = yield* messagesOf(session.id)
          assert.deepStrictEqual(
            messages.map((m) => m.info.role),
            ["user", "assistant", "assistant"]
          )
          const tool = messages[1]!.parts.find((p): p is Message.ToolPart => p.type === "tool")!
          assert.strictEqual(tool.state.status, "completed")
          // The tool ran with the session's context and its own call id.
          assert.strictEqual(
            tool.state.status === "completed" && tool.state.output,
            `hi [${session.id} call_1]`
          )
          // The second model call saw the tool result.
          const second = sent()[1]!
          const toolMessage = second.content.find((m) => m.role === "tool")
          assert.isDefined(toolMessage)
          const resultPart = toolMessage!.role === "tool" ? toolMessage!.content[0] : undefined
          assert.strictEqual(
            resultPart?.type === "tool-result" && resultPart.result,
            `hi [${session.id} call_1]`
          )
          const status = yield* SessionStatus.Service
          assert.deepStrictEqual((yield* status.get(session.id)).type, "idle")
        })
    )
  )

  it.effect("one turn at a time: a second prompt while busy fails with a clear error", () =>
    inSession(
      { turns: [{ parts: [{ type: "text", text: "slow answer" }], delay: 1000 }] },
      ({ prompts, session }) =>
        Effect.gen(function* () {
          const first = yield* prompts.prompt(session.id, "one").pipe(Effect.forkChild)
          yield* Effect.yieldNow
          const error = yield* Effect.flip(prompts.prompt(session.id, "two"))
          assert.strictEqual(error._tag, "SessionBusyError")
          assert.include(error.message, "busy")
          yield* TestClock.adjust(10_000)
          const last = yield* Fiber.join(first)
          assert.strictEqual(last?.finish, "stop")
          assert.isFalse(yield* prompts.busy(session.id))
        })
    )
  )

  it.effect("abort interrupts the turn and rejects its pending asks", () =>
    inSession(
      { turns: [{ parts: [{ type: "tool-call", name: "guarded", params: { what: "deploy" } }] }] },
      ({ prompts, session }) =>
        Effect.gen(function* () {
          const bus = yield* Bus.Service
          const asked = yield* bus.subscribe(Permission.Event.Asked)
          const turn = yield* prompts.prompt(session.id, "deploy it").pipe(Effect.forkChild)
          yield* asked.pipe(Stream.take(1), Stream.runDrain)
          assert.isTrue(yield* prompts.abort(session.id))
          const last = yield* Fiber.join(turn)
          assert.isFalse(yield* prompts.busy(session.id))
          const pending = yield* (yield* Permission.Service).list()
          assert.deepStrictEqual(pending, [])
          const messages = yield* messagesOf(session.id)
          const tool = messages[1]!.parts.find((p): p is Message.ToolPart => p.type === "tool")!
          assert.strictEqual(tool.state.status, "error")
          assert.isDefined(last)
        })
    )
  )

  it.effect("a rejected ask stops the loop: the model is not called again", () =>
    inSession(
      {
        turns: [
          { parts: [{ type: "tool-call", name: "guarded", params: { what: "rm" } }] },
          { parts: [{ type: "text", text: "never sent" }] }
        ]
      },
      ({ prompts, session, sent }) =>
        Effect.gen(function* () {
          const bus = yield* Bus.Service
          const permission = yield* Permission.Service
          const asked = yield* bus.subscribe(Permission.Event.Asked)
          yield* asked.pipe(
            Stream.runForEach((e) => permission.reply({ requestID: e.properties.id, reply: "reject" })),
            Effect.forkScoped
          )
          yield* prompts.prompt(session.id, "remove it")
          assert.strictEqual(sent().length, 1)
        })
    )
  )

  it.effect(
    "without a ruleset the loop judges by the built-in defaults: a plain tool call is not asked",
    () =>
      inSession(
        {
          turns: [
            { parts: [{ type: "tool-call", name: "guarded", params: { what: "deploy" }, id: "call_1" }] },
            { parts: [{ type: "text", text: "done" }] }
          ]
        },
        ({ prompts, session }) =>
          Effect.gen(function* () {
            const bus = yield* Bus.Service
            const permission = yield* Permission.Service
            const asked = yield* bus.subscribe(Permission.Event.Asked)
            yield* asked.pipe(
              Stream.runForEach((e) => permission.reply({ requestID: e.properties.id, reply: "reject" })),
              Effect.forkScoped
            )
            yield* prompts.prompt(session.id, "deploy it")
            const messages = yield* messagesOf(session.id)
            const tool = messages[1]!.parts.find((p): p is Message.ToolPart => p.type === "tool")!
            assert.strictEqual(tool.state.status === "completed" && tool.state.output, "did deploy")
          }),
        { ruleset: undefined }
      )
  )

  it.effect("stops after maxSteps model calls", () =>
    inSession(
      {
        turns: [1, 2, 3].map((n) => ({
          parts: [{ type: "tool-call" as const, name: "echo", params: { text: `step ${n}` } }]
        }))
      },
      ({ prompts, session, sent }) =>
        Effect.gen(function* () {
          yield* prompts.prompt(session.id, "go")
          assert.strictEqual(sent().length, 2)
        }),
      { maxSteps: 2 }
    )
  )

  it.effect("compacts: asks for a summary, then continues from it", () =>
    inSession(
      {
        turns: [
          {
            parts: [
              { type: "tool-call", name: "echo", params: { text: "big" } },
              { type: "finish", reason: "tool-calls", usage: { input: 5000, output: 10 } }
            ]
          },
          { parts: [{ type: "text", text: "SUMMARY: echoed big." }] },
          { parts: [{ type: "text", text: "Finished after compaction." }] }
        ]
      },
      ({ prompts, session, sent }) =>
        Effect.gen(function* () {
          const last = yield* prompts.prompt(session.id, "work a lot")
          assert.strictEqual(sent().length, 3)
          const messages = yield* messagesOf(session.id)
          const summary = messages.find((m) => m.info.role === "assistant" && m.info.summary === true)
          assert.isDefined(summary)
          const third = sent()[2]!
          const first = third.content.find((m) => m.role === "user")
          const firstText =
            first?.role === "user" ? first.content.map((p) => (p.type === "text" ? p.text : "")).join("") : ""
          assert.include(firstText, "SUMMARY: echoed big.")
          // Messages before the summary are not sent again.
          assert.isFalse(third.content.some((m) => m.role === "tool"))
          assert.strictEqual(last?.finish, "stop")
        }),
      { usableInput: 4000 }
    )
  )

  it.effect("retries a rate-limited model call after its retry-after", () =>
    inSession(
      {
        turns: [
          {
            parts: [{ type: "error", message: "rate limited", status: 429, headers: { "retry-after": "3" } }]
          },
          { parts: [{ type: "text", text: "second try" }] }
        ]
      },
      ({ prompts, session, sent }) =>
        Effect.gen(function* () {
          const turn = yield* prompts.prompt(session.id, "hi").pipe(Effect.forkChild)
          for (let i = 0; i < 20; i++) yield* Effect.yieldNow
          yield* TestClock.adjust(3000)
          const last = yield* Fiber.join(turn)
          assert.strictEqual(sent().length, 2)
          assert.isUndefined(last?.error)
        })
    )
  )
})
