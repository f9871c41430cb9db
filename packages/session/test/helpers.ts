// Shared pieces of the session tests: stream-part builders, layers, a stored assistant message.
import * as Bus from "@gatehousejs/core/Bus"
import type * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import type * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Message from "@gatehousejs/session/Message"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as AiError from "effect/ai/AiError"
import * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

export const DIR = "/tmp/gatehouse-session-test"
export const inDir = Instance.provide(DIR)

export const text = (id: string, ...deltas: Array<string>): Array<Response.AnyPart> => [
  Response.makePart("text-start", { id }),
  ...deltas.map((delta) => Response.makePart("text-delta", { id, delta })),
  Response.makePart("text-end", { id })
]

export const reasoning = (id: string, ...deltas: Array<string>): Array<Response.AnyPart> => [
  Response.makePart("reasoning-start", { id }),
  ...deltas.map((delta) => Response.makePart("reasoning-delta", { id, delta })),
  Response.makePart("reasoning-end", { id })
]

export const call = (id: string, name: string, params: unknown): Array<Response.AnyPart> => [
  Response.makePart("tool-params-start", { id, name, providerExecuted: false }),
  Response.makePart("tool-params-delta", { id, delta: JSON.stringify(params) }),
  Response.makePart("tool-params-end", { id }),
  Response.makePart("tool-call", { id, name, params, providerExecuted: false })
]

export const result = (id: string, name: string, value: unknown, isFailure = false): Response.AnyPart =>
  Response.makePart("tool-result", {
    id,
    name,
    result: value,
    encodedResult: value,
    isFailure: isFailure as false,
    providerExecuted: false,
    preliminary: false
  })

export const finish = (
  reason: Response.FinishReason = "stop",
  usage: { input?: number; output?: number } = {}
): Response.AnyPart =>
  Response.makePart("finish", {
    reason,
    usage: new Response.Usage({
      inputTokens: { uncached: usage.input, total: usage.input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: usage.output, text: undefined, reasoning: undefined }
    }),
    response: undefined
  })

export const httpError = (
  status: number,
  headers: Record<string, string> = {},
  description = `HTTP ${status}`
) =>
  AiError.make({
    module: "Test",
    method: "streamText",
    reason: AiError.reasonFromHttpStatus({ status, description, http: { response: { status, headers } } })
  })

/** The processor on memory layers, with the bus and Permission it uses. */
export const ProcessorLayer: Layer.Layer<
  | SessionProcessor.Service
  | SessionStore.Service
  | SessionStatus.Service
  | Permission.Service
  | Bus.Service
  | ApprovalStore.Service
  | Instance.Registry
> = SessionProcessor.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(SessionStore.layerMemory, SessionStatus.layer)),
  Layer.provideMerge(Permission.layerMemory)
)

export const SESSION = "ses_test"

/** Stores a user message and an assistant message answering it; returns the assistant. */
export const assistantMessage = Effect.gen(function* () {
  const store = yield* SessionStore.Service
  yield* store.putSession({ id: SESSION, directory: DIR, title: "test", time: { created: 0, updated: 0 } })
  const user: Message.User = {
    id: Identifier.ascending("msg"),
    sessionID: SESSION,
    role: "user",
    time: { created: 0 }
  }
  yield* store.putMessage(user)
  const assistant: Message.Assistant = {
    id: Identifier.ascending("msg"),
    sessionID: SESSION,
    role: "assistant",
    parentID: user.id,
    model: { provider: "test", id: "test" },
    tokens: Message.emptyTokens,
    cost: 0,
    time: { created: 0 }
  }
  yield* store.putMessage(assistant)
  return assistant
})

/** The stored state of a message. */
export const stored = (assistant: Message.Assistant) =>
  Effect.flatMap(SessionStore.Service, (store) => store.message(SESSION, assistant.id)).pipe(
    Effect.map((message) => message!)
  )

export const toolParts = (message: Message.WithParts) =>
  message.parts.filter((part): part is Message.ToolPart => part.type === "tool")

/** Collects every event of `definition` into an array while the test runs. */
export const collect = <D extends BusEvent.Definition>(definition: D) =>
  Effect.gen(function* () {
    const bus = yield* Bus.Service
    const events: Array<D["properties"]["Type"]> = []
    const stream = yield* bus.subscribe(definition)
    yield* stream.pipe(
      Stream.runForEach((event) => Effect.sync(() => events.push(event.properties))),
      Effect.forkScoped
    )
    return events
  })

/** Answers every `permission.asked` with `reply` and records the requests. */
export const replier = (reply: Permission.Reply) =>
  Effect.gen(function* () {
    const bus = yield* Bus.Service
    const permission = yield* Permission.Service
    const asked: Array<Permission.Request> = []
    const stream = yield* bus.subscribe(Permission.Event.Asked)
    yield* stream.pipe(
      Stream.runForEach((event) =>
        Effect.andThen(
          Effect.sync(() => asked.push(event.properties)),
          permission.reply({ requestID: event.properties.id, reply }).pipe(Effect.ignore)
        )
      ),
      Effect.forkScoped
    )
    return asked
  })

/** Lets forked fibers (subscribers, tools) run until they are idle. */
export const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

export const joinOrInterrupt = <A, E>(fiber: Fiber.Fiber<A, E>) => Fiber.await(fiber)
