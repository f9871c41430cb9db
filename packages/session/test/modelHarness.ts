// The loop with the default tools on a real provider package, against a fake server from
// fakeProviders.ts, in a fresh temporary project: shared by the model turn and fault tests.
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as DefaultTools from "@gatehousejs/session/DefaultTools"
import type * as Message from "@gatehousejs/session/Message"
import * as Model from "@gatehousejs/session/Model"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as FakeProviders from "./fakeProviders.ts"
import { replier, settle } from "./helpers.ts"

export const KEY = "sk-fake-0123456789-do-not-leak"

export const specs: Record<FakeProviders.Provider, Model.Spec> = {
  anthropic: { provider: "anthropic", id: "claude-sonnet-4-5" },
  openai: { provider: "openai", id: "gpt-5" },
  "openai-compatible": { provider: "openai-compatible", id: "qwen3-coder" }
}

export const env = { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY, GATEHOUSE_API_KEY: KEY }

/** The loop with the default tools on `provider`'s fake server, in a fresh project. */
export const stack = (
  server: FakeProviders.FakeProvider,
  options: {
    readonly ruleset?: Permission.Ruleset
    readonly idleTimeout?: Model.LayerOptions["idleTimeout"]
    readonly shell?: SessionPrompt.Options<never>["shell"]
  } = {}
) => {
  const directory = realpathSync(mkdtempSync(NodePath.join(tmpdir(), "gatehouse-model-")))
  const spec = specs[server.provider]
  const layer = SessionPrompt.layer({
    toolkit: DefaultTools.toolkit,
    ruleset: options.ruleset ?? [],
    model: spec,
    shell: options.shell
  }).pipe(
    Layer.provideMerge(
      DefaultTools.layerWith({ truncate: { directory: NodePath.join(directory, ".spill") } })
    ),
    Layer.provideMerge(SessionProcessor.layer),
    Layer.provideMerge(Layer.mergeAll(SessionStore.layerMemory, SessionStatus.layer)),
    Layer.provideMerge(Permission.layerMemory),
    Layer.provide(Model.layer({ spec, baseUrl: server.baseUrl, env, idleTimeout: options.idleTimeout })),
    Layer.provide(NodeServices.layer)
  )
  return { directory, layer }
}

/** Every bus event, serialised, while the test runs. */
export const allEvents = Effect.gen(function* () {
  const bus = yield* Bus.Service
  const events: Array<string> = []
  const stream = yield* bus.subscribeAll()
  yield* stream.pipe(
    Stream.runForEach((event) => Effect.sync(() => events.push(JSON.stringify(event)))),
    Effect.forkScoped
  )
  return events
})

export const runTurn = <A, E>(
  server: FakeProviders.FakeProvider,
  text: string,
  body: (result: {
    readonly last: Message.Assistant | undefined
    readonly messages: ReadonlyArray<Message.WithParts>
    readonly asked: ReadonlyArray<Permission.Request>
    readonly events: ReadonlyArray<string>
    /** Every log line of the turn, with its cause. */
    readonly logs: ReadonlyArray<string>
    readonly directory: string
  }) => Effect.Effect<A, E>,
  options: {
    readonly reply?: Permission.Reply
    readonly ruleset?: Permission.Ruleset
    readonly idleTimeout?: Model.LayerOptions["idleTimeout"]
    readonly shell?: SessionPrompt.Options<never>["shell"]
    /** Runs beside the turn (e.g. moving the TestClock on) until the turn ends. */
    readonly drive?: (sessionID: string) => Effect.Effect<void, never, SessionStatus.Service>
  } = {}
) => {
  const { directory, layer } = stack(server, options)
  const logs: Array<string> = []
  const capture = Logger.layer([
    Logger.make(({ message, cause }) => {
      logs.push(`${JSON.stringify(message)} ${Cause.pretty(cause)}`)
    })
  ])
  return Effect.gen(function* () {
    const events = yield* allEvents
    const asked = yield* replier(options.reply ?? "once")
    const prompts = yield* SessionPrompt.Service
    const store = yield* SessionStore.Service
    const session = yield* prompts.create({ directory, title: "model turn" })
    const fiber = yield* Effect.forkScoped(prompts.prompt(session.id, text))
    if (options.drive !== undefined) {
      const driver = yield* Effect.forkScoped(options.drive(session.id))
      yield* Fiber.await(fiber)
      yield* Fiber.interrupt(driver)
    }
    const last = yield* Fiber.join(fiber)
    const messages = yield* store.messages(session.id)
    // The subscribers take the turn's last events.
    yield* settle
    return yield* body({ last, messages, asked, events, logs, directory })
  }).pipe(
    Effect.provide(layer),
    Effect.provide(capture),
    Effect.scoped,
    Instance.provide(directory),
    // The project goes once the turn's scope (its processes and files) is closed.
    Effect.ensuring(Effect.sync(() => rmSync(directory, { recursive: true, force: true })))
  ) as Effect.Effect<A, E | unknown, Scope.Scope>
}
