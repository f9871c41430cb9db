/**
 * Turns one model call's `effect/ai` stream into an assistant message.
 *
 * `process` consumes the `Response` stream parts of one assistant message and keeps its
 * parts current: text and reasoning grow with each delta, a tool call goes
 * `pending -> running -> completed | error`, a `finish` becomes a `step-finish` with the
 * step's usage. Every change is published as `message.part.updated` with the whole part,
 * except streamed text: each delta is a `message.part.delta` and the whole part follows
 * when its stream ends; parts are written to the store at their boundaries, not per delta.
 *
 * It answers what the loop should do next:
 * - `compact`: the context window is full (usage at or past `usableInput`, or the
 *   provider said so); the stream is cut right after the `finish` that showed it.
 * - `stop`: a person rejected a tool's permission ask without a word
 *   (`PermissionRejectedError`; the stream still drains so parallel calls settle), or
 *   the message failed (provider error after retries, doom loop refused).
 *   A rejection with feedback (`PermissionCorrectedError`) is a correction: the call fails
 *   with the person's words and the turn goes on, so the model can act on them. Nor does a
 *   configured deny (`PermissionDeniedError`) stop the turn: the model reads the error and
 *   may try something else.
 * - `continue` otherwise.
 *
 * Doom loops (see {@link DoomLoop}) are put to the user as a `doom_loop` ask before the
 * repeated call runs. Transient model failures are retried (see {@link SessionRetry}),
 * never once a tool has started executing. An interrupted turn finalises its open parts,
 * gives running tools 250 ms to settle, marks the rest `error` "Tool execution aborted"
 * with `interrupted: true`, records `MessageAbortedError` and returns the session to idle.
 *
 * @since 0.0.0
 */
import * as Bus from "@gatehousejs/core/Bus"
import * as Identifier from "@gatehousejs/core/Identifier"
import type * as Instance from "@gatehousejs/core/Instance"
import type * as AskMetadata from "@gatehousejs/permission/AskMetadata"
import * as Permission from "@gatehousejs/permission/Permission"
import type * as Response from "effect/ai/Response"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as DoomLoop from "./DoomLoop.ts"
import {
  asInput,
  completion,
  describe,
  isRejection,
  preview,
  tokenCount,
  toTokens
} from "./internal/parts.ts"
import * as Message from "./Message.ts"
import * as Session from "./Session.ts"
import * as SessionRetry from "./SessionRetry.ts"
import * as SessionStatus from "./SessionStatus.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * What the loop does next.
 *
 * @since 0.0.0
 */
export type Result = "continue" | "stop" | "compact"

/**
 * A tool call the processor asks its caller to execute.
 *
 * @since 0.0.0
 */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly params: unknown
  readonly messageID: string
  readonly sessionID: string
}

/**
 * One result of a tool call: preliminary (progress) or final, success or failure.
 *
 * @since 0.0.0
 */
export interface ToolOutcome {
  readonly result: unknown
  readonly isFailure: boolean
  readonly preliminary: boolean
  readonly encodedResult?: unknown
}

/**
 * The input of {@link Interface.process}.
 *
 * @since 0.0.0
 */
export interface Input {
  /** The assistant message, already stored. */
  readonly assistant: Message.Assistant
  /** One model call. Running it again is a retry, so it must re-send the request. */
  readonly stream: Stream.Stream<Response.AnyPart, unknown>
  /** The rules the `doom_loop` ask is judged by. */
  readonly ruleset: Permission.Ruleset
  /**
   * Executes a tool call. Without it, tool results are expected in `stream` (an
   * `effect/ai` model resolving its toolkit itself).
   */
  readonly runTool?: ((call: ToolCall) => Stream.Stream<ToolOutcome, unknown>) | undefined
  /** Input tokens the model can take; a step whose usage reaches it returns `compact`. */
  readonly usableInput?: number | undefined
  /** Cost of a step's tokens (default: free). */
  readonly price?: ((tokens: Message.Tokens) => number) | undefined
  /** Earlier parts of this turn (previous model calls), oldest first, for doom loops. */
  readonly trail?: ReadonlyArray<Message.Part> | undefined
}

/**
 * A repeated tool call was put to the user and refused (or a rule denies `doom_loop`).
 *
 * @since 0.0.0
 */
export class DoomLoopError extends Schema.TaggedError<DoomLoopError>()("DoomLoopError", {
  tool: Schema.String,
  kind: Schema.Literals(["repeat", "cycle"]),
  reason: Schema.String
}) {
  override get message(): string {
    const what =
      this.kind === "repeat"
        ? `the same ${this.tool} call was repeated ${DoomLoop.THRESHOLD} times`
        : `the model kept alternating between the same two tool calls (${this.tool})`
    return `Stopped a doom loop: ${what}, and continuing was refused (${this.reason}).`
  }
}

/**
 * @since 0.0.0
 */
export interface Interface {
  readonly process: (input: Input) => Effect.Effect<Result, SessionStore.StoreError, Instance.Current>
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/session/SessionProcessor") {}

/** How long a streaming part may go without being written to the store. */
const PERSIST_INTERVAL = 1_000
/** How long tools still running when a turn ends get to report their result. */
const SETTLE_GRACE = 250

/**
 * The processor, publishing on the bus, writing to the store, asking through Permission.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<
  Service,
  never,
  Bus.Service | SessionStore.Service | SessionStatus.Service | Permission.Service
> = Layer.effect(
  Service,
  Effect.gen(function* () {
    const bus = yield* Bus.Service
    const store = yield* SessionStore.Service
    const status = yield* SessionStatus.Service
    const permission = yield* Permission.Service

    const process = Effect.fn("SessionProcessor.process")(function* (input: Input) {
      const sessionID = input.assistant.sessionID
      const messageID = input.assistant.id
      let assistant = input.assistant
      const parts = new Map<string, Message.Part>()
      const texts = new Map<string, string>()
      const reasonings = new Map<string, string>()
      const tools = new Map<string, string>()
      const lastWrite = new Map<string, number>()
      const live = new Map<string, Fiber.Fiber<void, unknown>>()
      let attemptParts: Array<string> = []
      let executed = false
      let blocked = false
      let needsCompaction = false
      let aborted = false
      const lock = yield* Semaphore.make(1)
      const toolScope = yield* Scope.make()
      const guard =
        input.runTool === undefined ? <A, E, R>(e: Effect.Effect<A, E, R>) => e : lock.withPermits(1)

      const base = () => ({ sessionID, messageID })
      const newID = () => Identifier.ascending("prt")

      const publish = (part: Message.Part) => bus.publish(Message.Event.PartUpdated, { part })

      const save = (part: Message.Part, now: number) => {
        parts.set(part.id, part)
        lastWrite.set(part.id, now)
        return Effect.andThen(store.putPart(part), publish(part))
      }

      const create = (part: Message.Part, now: number) => {
        attemptParts.push(part.id)
        return save(part, now)
      }

      const saveMessage = () =>
        Effect.andThen(store.putMessage(assistant), bus.publish(Message.Event.Updated, { info: assistant }))

      const fail = (failure: SessionRetry.Failure) =>
        Effect.gen(function* () {
          const error: Message.MessageError = {
            name: failure.name,
            message: failure.message,
            ...(failure.status === undefined ? {} : { status: failure.status }),
            retryable: failure.retryable
          }
          assistant = { ...assistant, error }
          yield* saveMessage()
          yield* bus.publish(Session.Event.Error, { sessionID, messageID, error })
          yield* status.set(sessionID, { type: "idle" })
        })

      const appendDelta = (map: Map<string, string>, streamID: string, delta: string, now: number) => {
        const id = map.get(streamID)
        if (id === undefined) return Effect.void
        const prev = parts.get(id) as Message.TextPart | Message.ReasoningPart
        const next = { ...prev, text: prev.text + delta }
        parts.set(id, next)
        // Only the delta goes out; the whole part is published again when its stream ends.
        const sent = bus.publish(Message.Event.PartDelta, {
          sessionID,
          messageID,
          partID: id,
          type: next.type,
          delta
        })
        if (now - (lastWrite.get(id) ?? now) >= PERSIST_INTERVAL) {
          lastWrite.set(id, now)
          return Effect.andThen(store.putPart(next), sent)
        }
        return sent
      }

      const endText = (map: Map<string, string>, streamID: string, now: number) => {
        const id = map.get(streamID)
        if (id === undefined) return Effect.void
        map.delete(streamID)
        const prev = parts.get(id) as Message.TextPart | Message.ReasoningPart
        return save({ ...prev, time: { start: prev.time?.start ?? now, end: now } } as Message.Part, now)
      }

      const ensureTool = (callID: string, name: string, now: number) => {
        const existing = tools.get(callID)
        if (existing !== undefined) return Effect.succeed(parts.get(existing) as Message.ToolPart)
        const part: Message.ToolPart = {
          id: newID(),
          ...base(),
          type: "tool",
          callID,
          tool: name,
          state: { status: "pending", input: {}, raw: "" }
        }
        tools.set(callID, part.id)
        return Effect.as(create(part, now), part)
      }

      const settle = Effect.fnUntraced(function* (callID: string, outcome: ToolOutcome) {
        const now = yield* Clock.currentTimeMillis
        const id = tools.get(callID)
        if (id === undefined) return
        const part = parts.get(id) as Message.ToolPart
        const state = part.state
        if (state.status === "completed" || state.status === "error") return
        if (outcome.preliminary) {
          if (state.status !== "running") return
          const next: Message.ToolPart = {
            ...part,
            state: { ...state, metadata: { ...state.metadata, ...preview(outcome.result) } }
          }
          parts.set(id, next)
          return yield* publish(next)
        }
        const start = state.status === "running" ? state.time.start : now
        if (outcome.isFailure) {
          if (isRejection(outcome.result)) blocked = true
          return yield* save(
            {
              ...part,
              state: {
                status: "error",
                input: state.input,
                error: describe(outcome.result),
                ...(state.status === "running" && state.metadata !== undefined
                  ? { metadata: state.metadata }
                  : {}),
                time: { start, end: now }
              }
            },
            now
          )
        }
        const done = completion(part.tool, outcome.result, outcome.encodedResult)
        return yield* save(
          { ...part, state: { status: "completed", input: state.input, ...done, time: { start, end: now } } },
          now
        )
      })

      const startTool = (call: ToolCall) =>
        input.runTool!(call).pipe(
          Stream.runForEach((outcome) => guard(settle(call.id, outcome))),
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.interrupt
              : guard(settle(call.id, { result: Cause.squash(cause), isFailure: true, preliminary: false }))
          ),
          Effect.ensuring(Effect.sync(() => live.delete(call.id))),
          Effect.forkIn(toolScope),
          Effect.tap((fiber) => Effect.sync(() => live.set(call.id, fiber)))
        )

      const checkDoomLoop = Effect.fnUntraced(function* (part: Message.ToolPart, now: number) {
        const detection = DoomLoop.detect([...(input.trail ?? []), ...parts.values()])
        if (detection === undefined) return
        const names = [...new Set(detection.tools)]
        const exit = yield* Effect.exit(
          permission.ask({
            sessionID,
            permission: "doom_loop",
            patterns: names,
            always: names,
            metadata: {
              tool: part.tool,
              input: part.state.input,
              kind: detection.kind,
              count: DoomLoop.THRESHOLD,
              tools: detection.tools
            } satisfies AskMetadata.DoomLoop,
            tool: { callID: part.callID, messageID, name: part.tool },
            ruleset: input.ruleset
          })
        )
        if (Exit.isSuccess(exit)) return
        if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.failCause(exit.cause)
        const error = new DoomLoopError({
          tool: part.tool,
          kind: detection.kind,
          reason: describe(Cause.squash(exit.cause))
        })
        const state = part.state as typeof Message.ToolStateRunning.Type
        yield* save(
          {
            ...part,
            state: {
              status: "error",
              input: state.input,
              error: error.message,
              time: { start: state.time.start, end: now }
            }
          },
          now
        )
        return yield* Effect.fail(error)
      })

      const handle = (
        part: Response.AnyPart,
        now: number
      ): Effect.Effect<void, unknown, Instance.Current> => {
        switch (part.type) {
          case "text-delta":
            return appendDelta(texts, part.id, part.delta, now)
          case "reasoning-delta":
            return appendDelta(reasonings, part.id, part.delta, now)
          case "text-start": {
            if (texts.has(part.id)) return Effect.void
            const text: Message.TextPart = {
              id: newID(),
              ...base(),
              type: "text",
              text: "",
              time: { start: now }
            }
            texts.set(part.id, text.id)
            return create(text, now)
          }
          case "reasoning-start": {
            if (reasonings.has(part.id)) return Effect.void
            const reasoning: Message.ReasoningPart = {
              id: newID(),
              ...base(),
              type: "reasoning",
              text: "",
              time: { start: now }
            }
            reasonings.set(part.id, reasoning.id)
            return create(reasoning, now)
          }
          case "text-end":
            return endText(texts, part.id, now)
          case "reasoning-end":
            return endText(reasonings, part.id, now)
          case "tool-params-start":
            return ensureTool(part.id, part.name, now)
          case "tool-params-delta": {
            const id = tools.get(part.id)
            const prev = id === undefined ? undefined : (parts.get(id) as Message.ToolPart)
            if (prev === undefined || prev.state.status !== "pending") return Effect.void
            const next: Message.ToolPart = {
              ...prev,
              state: { ...prev.state, raw: prev.state.raw + part.delta }
            }
            // Kept, not published: resending the growing input on every delta would cost
            // each client its length squared; UIs see the call once it is complete.
            parts.set(next.id, next)
            return Effect.void
          }
          case "tool-call":
            return Effect.gen(function* () {
              const pending = yield* ensureTool(part.id, part.name, now)
              if (pending.state.status !== "pending") return
              const running: Message.ToolPart = {
                ...pending,
                state: { status: "running", input: asInput(part.params), time: { start: now } },
                ...(part.providerExecuted ? { metadata: { providerExecuted: true } } : {})
              }
              executed = true
              yield* save(running, now)
              yield* checkDoomLoop(running, now)
              if (input.runTool !== undefined && !part.providerExecuted)
                yield* startTool({ id: part.id, name: part.name, params: part.params, messageID, sessionID })
            })
          case "tool-result":
            return settle(part.id, {
              result: part.result,
              isFailure: part.isFailure,
              preliminary: part.preliminary,
              encodedResult: part.encodedResult
            })
          case "finish":
            return Effect.gen(function* () {
              for (const streamID of [...reasonings.keys()]) yield* endText(reasonings, streamID, now)
              const tokens = toTokens(part.usage)
              const cost = input.price?.(tokens) ?? 0
              assistant = { ...assistant, finish: part.reason, tokens, cost: assistant.cost + cost }
              yield* create(
                { id: newID(), ...base(), type: "step-finish", reason: part.reason, tokens, cost },
                now
              )
              yield* saveMessage()
              if (input.usableInput !== undefined && tokenCount(tokens) >= input.usableInput)
                needsCompaction = true
            })
          case "error":
            return Effect.fail(part.error)
          default:
            return Effect.void
        }
      }

      const handleBatch = (batch: ReadonlyArray<Response.AnyPart>) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.suspend(() => {
            let effect: Effect.Effect<void, unknown, Instance.Current> = Effect.void
            let i = 0
            const step = (): Effect.Effect<void, unknown, Instance.Current> => {
              while (i < batch.length && !needsCompaction) {
                effect = handle(batch[i++]!, now)
                if (effect !== Effect.void) return Effect.flatMap(effect, step)
              }
              return Effect.void
            }
            return step()
          })
        )

      const attempt = Effect.gen(function* () {
        yield* status.set(sessionID, { type: "busy" })
        const now = yield* Clock.currentTimeMillis
        yield* create({ id: newID(), ...base(), type: "step-start" }, now)
        yield* input.stream.pipe(
          Stream.takeWhile(() => !needsCompaction),
          Stream.runForEachArray((batch) => guard(handleBatch(batch)))
        )
        // Tools still running after the model finished: their results belong to this step.
        while (live.size > 0) {
          const [callID, fiber] = live.entries().next().value!
          yield* Fiber.await(fiber)
          live.delete(callID)
        }
      })

      const dropAttempt = Effect.gen(function* () {
        for (const id of attemptParts) {
          parts.delete(id)
          yield* store.removePart({ sessionID, messageID, partID: id })
          yield* bus.publish(Message.Event.PartRemoved, { sessionID, messageID, partID: id })
        }
        attemptParts = []
        texts.clear()
        reasonings.clear()
        tools.clear()
      })

      const loop = Effect.gen(function* () {
        let retries = 0
        while (true) {
          const exit = yield* Effect.exit(attempt)
          if (Exit.isSuccess(exit)) return
          if (Cause.hasInterruptsOnly(exit.cause))
            return yield* Effect.failCause(exit.cause as Cause.Cause<never>)
          const storeError = Cause.findErrorOption(exit.cause)
          if (Option.isSome(storeError) && storeError.value instanceof SessionStore.StoreError)
            return yield* storeError.value
          const failure = SessionRetry.classify(Cause.squash(exit.cause))
          if (failure.overflow) {
            needsCompaction = true
            return
          }
          if (failure.retryable && !executed && retries + 1 < SessionRetry.MAX_ATTEMPTS) {
            const now = yield* Clock.currentTimeMillis
            const wait = SessionRetry.delay(retries + 1, failure, now, yield* Random.next)
            if (wait <= SessionRetry.MAX_WAIT) {
              retries++
              yield* status.set(sessionID, {
                type: "retry",
                attempt: retries,
                message: failure.message,
                next: now + wait
              })
              yield* dropAttempt
              yield* Effect.sleep(wait)
              continue
            }
          }
          return yield* fail(failure)
        }
      })

      // A write that fails while the turn winds down (a full disk) is logged and the rest still
      // runs; the record stays as it is on disk, and the turn fails with the first such error.
      let cleanupError: SessionStore.StoreError | undefined
      const bestEffort = <A, R>(effect: Effect.Effect<A, SessionStore.StoreError, R>) =>
        effect.pipe(
          Effect.asVoid,
          Effect.catch((error) =>
            Effect.andThen(
              Effect.sync(() => {
                cleanupError ??= error
              }),
              Effect.logError(`session ${sessionID}: ${error.message}`)
            )
          )
        )

      const cleanup = Effect.gen(function* () {
        let now = yield* Clock.currentTimeMillis
        for (const streamID of [...texts.keys()]) yield* bestEffort(endText(texts, streamID, now))
        for (const streamID of [...reasonings.keys()]) yield* bestEffort(endText(reasonings, streamID, now))
        if (live.size > 0) {
          yield* Effect.forEach([...live.values()], Fiber.await, { discard: true }).pipe(
            Effect.timeoutOption(SETTLE_GRACE)
          )
        }
        yield* Scope.close(toolScope, Exit.void)
        now = yield* Clock.currentTimeMillis
        for (const id of tools.values()) {
          const part = parts.get(id) as Message.ToolPart | undefined
          if (part === undefined || part.state.status === "completed" || part.state.status === "error")
            continue
          const start = part.state.status === "running" ? part.state.time.start : now
          yield* bestEffort(
            save(
              {
                ...part,
                state: {
                  status: "error",
                  input: part.state.input,
                  error: "Tool execution aborted",
                  interrupted: true,
                  ...(part.state.status === "running" && part.state.metadata !== undefined
                    ? { metadata: part.state.metadata }
                    : {}),
                  time: { start, end: now }
                }
              },
              now
            )
          )
        }
        if (aborted && assistant.error === undefined) {
          yield* bestEffort(
            fail({
              name: "MessageAbortedError",
              message: "The turn was aborted.",
              retryable: false,
              overflow: false
            })
          )
        }
        assistant = { ...assistant, time: { ...assistant.time, completed: now } }
        yield* bestEffort(saveMessage())
      }).pipe(Effect.orDie)

      yield* loop.pipe(
        Effect.onInterrupt(() => Effect.sync(() => (aborted = true))),
        Effect.ensuring(cleanup)
      )
      if (cleanupError !== undefined) return yield* cleanupError
      if (needsCompaction) return "compact" as const
      if (blocked || assistant.error !== undefined) return "stop" as const
      return "continue" as const
    })

    return Service.of({ process })
  })
)
