import { assert, describe, it } from "@effect/vitest"
import type * as Instance from "@gatehousejs/core/Instance"
import * as AskMetadata from "@gatehousejs/permission/AskMetadata"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Message from "@gatehousejs/session/Message"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import {
  assistantMessage,
  call,
  collect,
  finish,
  httpError,
  inDir,
  ProcessorLayer,
  reasoning,
  replier,
  result,
  SESSION,
  settle,
  stored,
  text,
  toolParts
} from "./helpers.ts"

const RULES: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]
const DOOM_ASKS: Permission.Ruleset = [...RULES, { permission: "doom_loop", pattern: "*", action: "ask" }]

const run = (
  input: Omit<SessionProcessor.Input, "assistant" | "ruleset"> & { ruleset?: Permission.Ruleset }
) =>
  Effect.gen(function* () {
    const assistant = yield* assistantMessage
    const processor = yield* SessionProcessor.Service
    const outcome = yield* processor.process({ ruleset: RULES, ...input, assistant })
    return { outcome, assistant, message: yield* stored(assistant) }
  })

/** A tool runner that answers every call with `answer(call)` and records the calls. */
const tools = (
  answer: (call: SessionProcessor.ToolCall) => Effect.Effect<unknown, unknown> = () => Effect.succeed("ok")
) => {
  const calls: Array<SessionProcessor.ToolCall> = []
  const runTool = (toolCall: SessionProcessor.ToolCall) =>
    Stream.fromEffect(
      Effect.suspend(() => {
        calls.push(toolCall)
        return answer(toolCall)
      }).pipe(
        Effect.map(
          (value): SessionProcessor.ToolOutcome => ({ result: value, isFailure: false, preliminary: false })
        )
      )
    )
  return { calls, runTool }
}

const provide = <A, E>(
  effect: Effect.Effect<A, E, Layer.Success<typeof ProcessorLayer> | Instance.Current | Scope.Scope>
): Effect.Effect<A, E> => effect.pipe(inDir, Effect.scoped, Effect.provide(ProcessorLayer))

describe("SessionProcessor parts", () => {
  it.effect("text: start, deltas and end; the start time survives the end", () =>
    provide(
      Effect.gen(function* () {
        const [start, ...rest] = text("t1", "hello ", "world")
        const stream = Stream.concat(
          Stream.make(start!),
          Stream.concat(
            Stream.fromEffectDrain(TestClock.adjust(1500)),
            Stream.fromIterable([...rest, finish()])
          )
        )
        const { outcome, message } = yield* run({ stream })
        assert.strictEqual(outcome, "continue")
        const part = message.parts.find((p): p is Message.TextPart => p.type === "text")!
        assert.strictEqual(part.text, "hello world")
        assert.strictEqual(part.time!.end! - part.time!.start, 1500)
        assert.deepStrictEqual(
          message.parts.map((p) => p.type),
          ["step-start", "text", "step-finish"]
        )
      })
    )
  )

  it.effect(
    "publishes each change whole, and streamed text as message.part.delta, never the whole part per delta",
    () =>
      provide(
        Effect.gen(function* () {
          const events = yield* collect(Message.Event.PartUpdated)
          const deltas = yield* collect(Message.Event.PartDelta)
          yield* run({
            stream: Stream.fromIterable([
              ...reasoning("r", "think", "ing"),
              ...text("t", "a", "b", "c"),
              finish()
            ])
          })
          yield* settle
          assert.deepStrictEqual(
            deltas.map((e) => [e.type, e.delta]),
            [
              ["reasoning", "think"],
              ["reasoning", "ing"],
              ["text", "a"],
              ["text", "b"],
              ["text", "c"]
            ]
          )
          assert.isTrue(deltas.every((e) => e.partID.startsWith("prt_") && e.messageID.startsWith("msg_")))
          // Whole parts: step-start, reasoning start/end, text start/end, step-finish, no delta among them.
          assert.strictEqual(events.length, 6)
          assert.isTrue(events.every((e) => e.delta === undefined))
          const last = events.findLast((e) => e.part.type === "text")!.part as Message.TextPart
          assert.strictEqual(last.text, "abc")
        })
      )
  )

  it.effect("a subscriber sees each tool part go pending -> running -> completed, in order", () =>
    provide(
      Effect.gen(function* () {
        const events = yield* collect(Message.Event.PartUpdated)
        const { runTool } = tools((c) =>
          Effect.succeed({ output: `listed ${JSON.stringify(c.params)}`, title: "ls" })
        )
        const { outcome, message } = yield* run({
          stream: Stream.fromIterable([
            ...call("c1", "list", { path: "." }),
            ...call("c2", "read", { path: "a" }),
            finish("tool-calls")
          ]),
          runTool
        })
        yield* settle
        assert.strictEqual(outcome, "continue")
        for (const callID of ["c1", "c2"]) {
          const states = events
            .filter((e) => e.part.type === "tool" && e.part.callID === callID && e.delta === undefined)
            .map((e) => (e.part as Message.ToolPart).state.status)
          assert.deepStrictEqual(states, ["pending", "running", "completed"])
        }
        const [first] = toolParts(message)
        assert.strictEqual(first!.state.status, "completed")
        if (first!.state.status === "completed") {
          assert.strictEqual(first!.state.output, 'listed {"path":"."}')
          assert.strictEqual(first!.state.title, "ls")
          assert.deepStrictEqual(first!.state.input, { path: "." })
          assert.isAtLeast(first!.state.time.end, first!.state.time.start)
        }
      })
    )
  )

  it.effect("tool results in the stream (a model resolving its own tools) complete or fail the part", () =>
    provide(
      Effect.gen(function* () {
        const { outcome, message } = yield* run({
          stream: Stream.fromIterable([
            ...call("c1", "read", { path: "a" }),
            ...call("c2", "read", { path: "b" }),
            result("c1", "read", "contents of a"),
            result("c2", "read", { message: "no such file b" }, true),
            finish("tool-calls")
          ])
        })
        assert.strictEqual(outcome, "continue")
        const [a, b] = toolParts(message)
        assert.strictEqual(a!.state.status === "completed" && a!.state.output, "contents of a")
        assert.strictEqual(b!.state.status === "error" && b!.state.error, "no such file b")
      })
    )
  )

  it.effect("finish: a step-finish with usage; tokens replaced per step, cost accumulated", () =>
    provide(
      Effect.gen(function* () {
        const { message } = yield* run({
          stream: Stream.fromIterable([
            finish("tool-calls", { input: 100, output: 10 }),
            finish("stop", { input: 300, output: 5 })
          ]),
          price: (tokens) => tokens.input / 100
        })
        const info = message.info as Message.Assistant
        assert.strictEqual(info.tokens.input, 300)
        assert.strictEqual(info.tokens.output, 5)
        assert.strictEqual(info.cost, 4)
        assert.strictEqual(info.finish, "stop")
        const steps = message.parts.filter((p): p is Message.StepFinishPart => p.type === "step-finish")
        assert.deepStrictEqual(
          steps.map((s) => [s.reason, s.tokens.input, s.cost]),
          [
            ["tool-calls", 100, 1],
            ["stop", 300, 3]
          ]
        )
        assert.isDefined(info.time.completed)
      })
    )
  )

  it.effect("an error part fails the attempt (not retryable: stop with the error)", () =>
    provide(
      Effect.gen(function* () {
        const errors = yield* collect(Message.Event.Updated)
        const { outcome, message } = yield* run({
          stream: Stream.fromIterable([
            ...text("t", "partial"),
            Response.makePart("error", { error: { message: "invalid api key", status: 401 } })
          ])
        })
        yield* settle
        assert.strictEqual(outcome, "stop")
        const info = message.info as Message.Assistant
        assert.strictEqual(info.error?.name, "APIError")
        assert.strictEqual(info.error?.message, "invalid api key")
        assert.isTrue(errors.length > 0)
      })
    )
  )
})

/** The processor on a store that records each part write. */
const counting = () => {
  const writes: Array<string> = []
  const Counting = Layer.effect(
    SessionStore.Service,
    Effect.gen(function* () {
      const store = yield* SessionStore.Service
      return SessionStore.Service.of({
        ...store,
        putPart: (part) =>
          Effect.andThen(
            Effect.sync(() => writes.push(part.type)),
            store.putPart(part)
          )
      })
    })
  ).pipe(Layer.provide(SessionStore.layerMemory))
  const layer = SessionProcessor.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(Counting, SessionStatus.layer)),
    Layer.provideMerge(Permission.layerMemory)
  )
  return { writes, layer }
}

describe("SessionProcessor persistence", () => {
  it.effect("streamed text is written at part boundaries, not once per delta", () =>
    Effect.gen(function* () {
      const { writes, layer } = counting()
      const deltas = Array.from({ length: 500 }, (_, i) => `w${i} `)
      const events = yield* Effect.gen(function* () {
        const updates = yield* collect(Message.Event.PartUpdated)
        const streamed = yield* collect(Message.Event.PartDelta)
        const { message } = yield* run({ stream: Stream.fromIterable([...text("t", ...deltas), finish()]) })
        yield* settle
        assert.strictEqual(
          (message.parts.find((p) => p.type === "text") as Message.TextPart).text,
          deltas.join("")
        )
        // The whole text went out once (at its end), not once per delta.
        assert.strictEqual(updates.filter((e) => e.part.type === "text").length, 2)
        return streamed.length
      }).pipe(inDir, Effect.scoped, Effect.provide(layer))
      // step-start, text start, text end, step-finish: four writes for 500 deltas...
      assert.deepStrictEqual(writes, ["step-start", "text", "text", "step-finish"])
      // ...while the bus carried every delta, as a delta.
      assert.strictEqual(events, 500)
    })
  )

  it.effect("a text that streams for long is also written about once a second", () =>
    Effect.gen(function* () {
      const { writes, layer } = counting()
      const [start, first, end] = text("t", "slow ")
      const stream = Stream.concat(
        Stream.make(start!, first!),
        Stream.concat(
          Stream.fromEffectDrain(TestClock.adjust(1_200)),
          Stream.make(Response.makePart("text-delta", { id: "t", delta: "words" }), end!, finish())
        )
      )
      yield* run({ stream }).pipe(inDir, Effect.scoped, Effect.provide(layer))
      assert.deepStrictEqual(writes, ["step-start", "text", "text", "text", "step-finish"])
    })
  )
})

describe("SessionProcessor permissions", () => {
  it.effect("a user rejection stops the turn after the stream drains", () =>
    provide(
      Effect.gen(function* () {
        const { calls, runTool } = tools((c) =>
          c.name === "bash"
            ? Effect.fail(
                new Permission.RejectedError({ reason: "user", permission: "bash", pattern: "rm x" })
              )
            : Effect.succeed("fine")
        )
        const { outcome, message } = yield* run({
          stream: Stream.fromIterable([
            ...call("c1", "bash", { command: "rm x" }),
            ...call("c2", "read", { path: "a" }),
            finish("tool-calls")
          ]),
          runTool
        })
        assert.strictEqual(outcome, "stop")
        assert.strictEqual(calls.length, 2)
        const [bash, read] = toolParts(message)
        assert.strictEqual(bash!.state.status, "error")
        assert.match(bash!.state.status === "error" ? bash!.state.error : "", /rejected/)
        assert.strictEqual(read!.state.status, "completed")
        assert.isUndefined((message.info as Message.Assistant).error)
      })
    )
  )

  it.effect(
    "a rejection with feedback (CorrectedError) fails the call with the words and the turn goes on",
    () =>
      provide(
        Effect.gen(function* () {
          const { runTool } = tools(() =>
            Effect.fail(new Permission.CorrectedError({ feedback: "use git mv" }))
          )
          const { outcome, message } = yield* run({
            stream: Stream.fromIterable([...call("c1", "bash", { command: "mv a b" }), finish("tool-calls")]),
            runTool
          })
          assert.strictEqual(outcome, "continue")
          const [bash] = toolParts(message)
          assert.match(bash!.state.status === "error" ? bash!.state.error : "", /use git mv/)
        })
      )
  )

  it.effect("a configured deny does not stop the turn: the model reads the error", () =>
    provide(
      Effect.gen(function* () {
        const rule = { permission: "bash", pattern: "rm *", action: "deny" } as const
        const { runTool } = tools(() =>
          Effect.fail(
            new Permission.DeniedError({ permission: "bash", pattern: "rm -rf x", rule, ruleset: [rule] })
          )
        )
        const { outcome, message } = yield* run({
          stream: Stream.fromIterable([...call("c1", "bash", { command: "rm -rf x" }), finish("tool-calls")]),
          runTool
        })
        assert.strictEqual(outcome, "continue")
        const [bash] = toolParts(message)
        assert.match(
          bash!.state.status === "error" ? bash!.state.error : "",
          /Denied by rule bash "rm \*" deny/
        )
      })
    )
  )
})

describe("SessionProcessor doom loop", () => {
  it.effect("three identical calls ask doom_loop (key order ignored); once goes on", () =>
    provide(
      Effect.gen(function* () {
        const asked = yield* replier("once")
        const { calls, runTool } = tools()
        const { outcome } = yield* run({
          stream: Stream.fromIterable([
            ...call("c1", "read", { path: "a", limit: 5 }),
            ...call("c2", "read", { limit: 5, path: "a" }),
            ...call("c3", "read", { path: "a", limit: 5 }),
            finish("tool-calls")
          ]),
          runTool,
          ruleset: DOOM_ASKS
        })
        assert.strictEqual(outcome, "continue")
        assert.strictEqual(calls.length, 3)
        assert.strictEqual(asked.length, 1)
        assert.strictEqual(asked[0]!.permission, "doom_loop")
        assert.deepStrictEqual(asked[0]!.patterns, ["read"])
        assert.deepStrictEqual(asked[0]!.always, ["read"])
        assert.strictEqual(asked[0]!.tool?.callID, "c3")
        // What repeated and how often, in the typed doom_loop metadata a UI decodes.
        const typed = yield* AskMetadata.decode(asked[0]!)
        assert.strictEqual(typed.permission, "doom_loop")
        if (typed.permission === "doom_loop") {
          assert.strictEqual(
            AskMetadata.describeDoomLoop(typed.metadata),
            "read a limit=5, 3 times with the same input"
          )
        }
      })
    )
  )

  it.effect("a rejected doom_loop ask ends the turn with an error and the call never runs", () =>
    provide(
      Effect.gen(function* () {
        const asked = yield* replier("reject")
        const { calls, runTool } = tools()
        const { outcome, message } = yield* run({
          stream: Stream.fromIterable([
            ...call("c1", "bash", { command: "ls" }),
            ...call("c2", "bash", { command: "ls" }),
            ...call("c3", "bash", { command: "ls" }),
            finish("tool-calls")
          ]),
          runTool,
          ruleset: DOOM_ASKS
        })
        assert.strictEqual(outcome, "stop")
        assert.strictEqual(asked.length, 1)
        assert.strictEqual(calls.length, 2)
        const info = message.info as Message.Assistant
        assert.strictEqual(info.error?.name, "DoomLoopError")
        const third = toolParts(message)[2]!
        assert.strictEqual(third.state.status, "error")
      })
    )
  )

  it.effect("a deny rule on doom_loop ends the turn as well", () =>
    provide(
      Effect.gen(function* () {
        const { calls, runTool } = tools()
        const { outcome, message } = yield* run({
          stream: Stream.fromIterable([
            ...call("c1", "ls", {}),
            ...call("c2", "ls", {}),
            ...call("c3", "ls", {})
          ]),
          runTool,
          ruleset: [...RULES, { permission: "doom_loop", pattern: "*", action: "deny" }]
        })
        assert.strictEqual(outcome, "stop")
        assert.strictEqual(calls.length, 2)
        assert.strictEqual((message.info as Message.Assistant).error?.name, "DoomLoopError")
      })
    )
  )

  it.effect("text between calls breaks the streak; earlier calls of the turn count", () =>
    provide(
      Effect.gen(function* () {
        const asked = yield* replier("once")
        const { runTool } = tools()
        yield* run({
          stream: Stream.fromIterable([
            ...call("c1", "read", { path: "a" }),
            ...text("t", "let me read it again"),
            ...call("c2", "read", { path: "a" }),
            ...call("c3", "read", { path: "a" }),
            finish("tool-calls")
          ]),
          runTool,
          ruleset: DOOM_ASKS
        })
        assert.strictEqual(asked.length, 0)
        // The same two calls, but the turn's previous model call made one more: a loop.
        const earlier = yield* run({
          stream: Stream.fromIterable([...call("c4", "read", { path: "a" })]),
          runTool
        })
        yield* run({
          stream: Stream.fromIterable([
            ...call("c5", "read", { path: "a" }),
            ...call("c6", "read", { path: "a" })
          ]),
          runTool,
          ruleset: DOOM_ASKS,
          trail: earlier.message.parts
        })
        assert.strictEqual(asked.length, 1)
      })
    )
  )

  it.effect("catches two calls alternating A, B, A, B, A, B", () =>
    provide(
      Effect.gen(function* () {
        const asked = yield* replier("once")
        const { runTool } = tools()
        const cycle = [0, 1, 2, 3, 4, 5].flatMap((i) =>
          i % 2 === 0 ? call(`c${i}`, "read", { path: "a" }) : call(`c${i}`, "bash", { command: "touch a" })
        )
        const { outcome } = yield* run({
          stream: Stream.fromIterable([...cycle, finish("tool-calls")]),
          runTool,
          ruleset: DOOM_ASKS
        })
        assert.strictEqual(outcome, "continue")
        assert.strictEqual(asked.length, 1)
        assert.deepStrictEqual(asked[0]!.patterns, ["bash", "read"])
        assert.strictEqual(asked[0]!.tool?.callID, "c5")
      })
    )
  )
})

/** A stream whose attempt n (1-based) is `attempts[n - 1]`, counting the calls. */
const attempts = (list: ReadonlyArray<Stream.Stream<Response.AnyPart, unknown>>, count: Ref.Ref<number>) =>
  Stream.unwrap(
    Ref.updateAndGet(count, (n) => n + 1).pipe(Effect.map((n) => list[Math.min(n, list.length) - 1]!))
  )

describe("SessionProcessor retries", () => {
  it.effect("retry-after wins over the backoff; the failed attempt's parts are dropped", () =>
    provide(
      Effect.gen(function* () {
        const statuses = yield* collect(SessionStatus.Event.Status)
        const removed = yield* collect(Message.Event.PartRemoved)
        const count = yield* Ref.make(0)
        const stream = attempts(
          [
            Stream.concat(
              Stream.fromIterable(text("t", "half")),
              Stream.fail(httpError(429, { "retry-after": "7" }))
            ),
            Stream.fromIterable([...text("t", "whole answer"), finish()])
          ],
          count
        )
        const fiber = yield* run({ stream }).pipe(Effect.forkChild)
        yield* settle
        yield* TestClock.adjust(6_999)
        assert.strictEqual(yield* Ref.get(count), 1)
        yield* TestClock.adjust(1)
        const { outcome, message } = yield* Fiber.join(fiber)
        yield* settle
        assert.strictEqual(outcome, "continue")
        assert.strictEqual(yield* Ref.get(count), 2)
        const retry = statuses.find((s) => s.status.type === "retry")!
        assert.deepStrictEqual(retry.status, {
          type: "retry",
          attempt: 1,
          message: retry.status.type === "retry" ? retry.status.message : "",
          next: 7_000
        })
        assert.deepStrictEqual(
          message.parts.filter((p) => p.type === "text").map((p) => (p as Message.TextPart).text),
          ["whole answer"]
        )
        assert.strictEqual(removed.length, 2) // step-start and the half text of attempt 1
      })
    )
  )

  it.effect("retry-after-ms and an HTTP date are honoured too", () =>
    provide(
      Effect.gen(function* () {
        const count = yield* Ref.make(0)
        const date = new Date(20_000).toUTCString()
        const stream = attempts(
          [
            Stream.fail(httpError(503, { "retry-after-ms": "1500" })),
            Stream.fail(httpError(503, { "retry-after": date })),
            Stream.fromIterable([finish()])
          ],
          count
        )
        const fiber = yield* run({ stream }).pipe(Effect.forkChild)
        yield* settle
        yield* TestClock.adjust(1_500)
        assert.strictEqual(yield* Ref.get(count), 2)
        yield* TestClock.adjust(20_000 - 1_500 - 1)
        assert.strictEqual(yield* Ref.get(count), 2)
        yield* TestClock.adjust(1)
        const { outcome } = yield* Fiber.join(fiber)
        assert.strictEqual(outcome, "continue")
        assert.strictEqual(yield* Ref.get(count), 3)
      })
    )
  )

  it.effect("gives up after 5 attempts, with backoff 2 s x 2^(n-1) and the attempt in the status", () =>
    provide(
      Effect.gen(function* () {
        const statuses = yield* collect(SessionStatus.Event.Status)
        const count = yield* Ref.make(0)
        const fiber = yield* run({ stream: attempts([Stream.fail(httpError(503))], count) }).pipe(
          Effect.forkChild
        )
        for (let i = 0; i < 6; i++) {
          yield* settle
          yield* TestClock.adjust(31_000)
        }
        const { outcome, message } = yield* Fiber.join(fiber)
        yield* settle
        assert.strictEqual(outcome, "stop")
        assert.strictEqual(yield* Ref.get(count), 5)
        const retries = statuses.flatMap((s) => (s.status.type === "retry" ? [s.status] : []))
        assert.deepStrictEqual(
          retries.map((r) => r.attempt),
          [1, 2, 3, 4]
        )
        // Each wait is the backoff plus at most 25 % jitter, capped at 30 s.
        retries.forEach((r, i) => {
          const base = Math.min(2_000 * 2 ** i, 30_000)
          const wait = r.next - (i === 0 ? 0 : retries[i - 1]!.next)
          assert.isAtLeast(wait, base)
          assert.isAtMost(wait, Math.min(base * 1.25, 30_000))
        })
        assert.strictEqual((message.info as Message.Assistant).error?.name, "APIError")
        assert.deepStrictEqual(statuses[statuses.length - 1]!.status, { type: "idle" })
      })
    )
  )

  it.effect("never replays a request once a tool has started executing", () =>
    provide(
      Effect.gen(function* () {
        const count = yield* Ref.make(0)
        const { calls, runTool } = tools()
        const stream = attempts(
          [
            Stream.concat(
              Stream.fromIterable(call("c1", "bash", { command: "touch x" })),
              Stream.fail(httpError(503))
            )
          ],
          count
        )
        const { outcome, message } = yield* run({ stream, runTool })
        assert.strictEqual(outcome, "stop")
        assert.strictEqual(yield* Ref.get(count), 1)
        assert.strictEqual(calls.length, 1)
        assert.strictEqual(toolParts(message)[0]!.state.status, "completed")
      })
    )
  )

  it.effect("does not retry a non-retryable error, nor a wait over 2 minutes", () =>
    provide(
      Effect.gen(function* () {
        const count = yield* Ref.make(0)
        const bad = yield* run({ stream: attempts([Stream.fail(httpError(400))], count) })
        assert.strictEqual(bad.outcome, "stop")
        assert.strictEqual(yield* Ref.get(count), 1)
        const long = yield* run({
          stream: attempts([Stream.fail(httpError(429, { "retry-after": "121" }))], count)
        })
        assert.strictEqual(long.outcome, "stop")
        assert.strictEqual(yield* Ref.get(count), 2)
      })
    )
  )
})

describe("SessionProcessor interruption and overflow", () => {
  it.effect(
    "interrupted while a tool runs: 250 ms grace, then error 'Tool execution aborted', interrupted",
    () =>
      provide(
        Effect.gen(function* () {
          const statuses = yield* collect(SessionStatus.Event.Status)
          const started = yield* Ref.make(false)
          const runTool = () =>
            Stream.fromEffect(
              Ref.set(started, true).pipe(Effect.andThen(Effect.never))
            ) as Stream.Stream<SessionProcessor.ToolOutcome>
          const assistant = yield* assistantMessage
          const processor = yield* SessionProcessor.Service
          const fiber = yield* processor
            .process({
              assistant,
              ruleset: RULES,
              runTool,
              stream: Stream.concat(
                Stream.fromIterable([
                  Response.makePart("text-start", { id: "t" }),
                  Response.makePart("text-delta", { id: "t", delta: "wor" }),
                  ...call("c1", "bash", { command: "sleep 100" })
                ]),
                Stream.never
              )
            })
            .pipe(Effect.forkChild)
          while (!(yield* Ref.get(started))) yield* Effect.yieldNow
          const interrupting = yield* Fiber.interrupt(fiber).pipe(Effect.forkChild)
          yield* settle
          const before = toolParts(yield* stored(assistant))[0]!
          assert.strictEqual(before.state.status, "running")
          yield* TestClock.adjust(250)
          yield* Fiber.join(interrupting)
          const exit = yield* Fiber.await(fiber)
          assert.isTrue(Exit.isFailure(exit) && Exit.hasInterrupts(exit))
          const message = yield* stored(assistant)
          const tool = toolParts(message)[0]!
          assert.strictEqual(tool.state.status, "error")
          if (tool.state.status === "error") {
            assert.strictEqual(tool.state.error, "Tool execution aborted")
            assert.isTrue(tool.state.interrupted)
          }
          const textPart = message.parts.find((p): p is Message.TextPart => p.type === "text")!
          assert.isDefined(textPart.time?.end)
          assert.strictEqual(textPart.text, "wor")
          assert.strictEqual((message.info as Message.Assistant).error?.name, "MessageAbortedError")
          yield* settle
          assert.deepStrictEqual(statuses[statuses.length - 1]!.status, { type: "idle" })
        })
      )
  )

  it.effect("a tool that settles within the grace keeps its result", () =>
    provide(
      Effect.gen(function* () {
        const runTool = () =>
          Stream.fromEffect(
            Effect.sleep(100).pipe(Effect.as({ result: "finished", isFailure: false, preliminary: false }))
          )
        const assistant = yield* assistantMessage
        const processor = yield* SessionProcessor.Service
        const fiber = yield* processor
          .process({
            assistant,
            ruleset: RULES,
            runTool,
            stream: Stream.concat(Stream.fromIterable(call("c1", "bash", {})), Stream.never)
          })
          .pipe(Effect.forkChild)
        yield* settle
        const interrupting = yield* Fiber.interrupt(fiber).pipe(Effect.forkChild)
        yield* settle
        yield* TestClock.adjust(100)
        yield* Fiber.join(interrupting)
        const tool = toolParts(yield* stored(assistant))[0]!
        assert.strictEqual(tool.state.status, "completed")
      })
    )
  )

  it.effect("usage at or past the usable input returns compact and cuts the stream", () =>
    provide(
      Effect.gen(function* () {
        const pulled = yield* Ref.make(0)
        const stream = Stream.fromIterable(
          [...text("t", "before"), finish("stop", { input: 100, output: 1 }), ...text("u", "after")],
          {
            chunkSize: 1
          }
        ).pipe(Stream.tap(() => Ref.update(pulled, (n) => n + 1)))
        const { outcome, message } = yield* run({ stream, usableInput: 100 })
        assert.strictEqual(outcome, "compact")
        assert.isUndefined((message.info as Message.Assistant).error)
        assert.deepStrictEqual(
          message.parts.map((p) => p.type),
          ["step-start", "text", "step-finish"]
        )
        assert.isAtMost(yield* Ref.get(pulled), 5)
        const under = yield* run({
          stream: Stream.fromIterable([finish("stop", { input: 99 })]),
          usableInput: 100
        })
        assert.strictEqual(under.outcome, "continue")
      })
    )
  )

  it.effect("a provider's context-length error returns compact without a message error", () =>
    provide(
      Effect.gen(function* () {
        const { outcome, message } = yield* run({
          stream: Stream.fail(httpError(400, {}, "This model's maximum context length is 8192 tokens"))
        })
        assert.strictEqual(outcome, "compact")
        assert.isUndefined((message.info as Message.Assistant).error)
      })
    )
  )

  it.effect("the session is busy while the stream runs", () =>
    provide(
      Effect.gen(function* () {
        const status = yield* SessionStatus.Service
        const seen = yield* Ref.make<string>("")
        const stream = Stream.concat(
          Stream.fromIterable(text("t", "x")),
          Stream.fromEffectDrain(Effect.flatMap(status.get(SESSION), (s) => Ref.set(seen, s.type)))
        )
        yield* run({ stream })
        assert.strictEqual(yield* Ref.get(seen), "busy")
      })
    )
  )
})
