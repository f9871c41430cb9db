/**
 * The agent loop.
 *
 * `prompt(sessionID, text)` stores the user's message, then repeats: call the model
 * (`LanguageModel.streamText` with the session's history and toolkit) -> let the
 * {@link SessionProcessor} turn the stream into an assistant message, executing the tool
 * calls -> send the results back to the model. It ends when the model answers without
 * calling a tool, when the processor says `stop` (a person rejected a call, the model
 * failed, a doom loop was refused), or after `maxSteps` model calls. On `compact` the
 * model is asked for a summary of the conversation, and the loop goes on from it.
 *
 * One turn at a time per session: a second `prompt` while one runs fails with
 * {@link BusyError}. `abort(sessionID)` interrupts the turn and rejects its pending
 * permission asks.
 *
 * Each tool call runs with `ShellContext.Service` set for it (session, call and message
 * ids, the ruleset, the project directory), which is what the tools of the default
 * toolset read, and inside the session's `Instance`.
 *
 * With a {@link Checkpoint} service in its context, the loop opens a checkpoint for every
 * turn (labelled with the prompt) before storing the user's message, and runs each tool
 * call with that checkpoint's recorder as `FileChanges.Service`, so the changes of the
 * file tools can be rewound. Without one, turns run without checkpoints.
 *
 * @since 0.0.0
 */
import * as Bus from "@gatehousejs/core/Bus"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as Defaults from "@gatehousejs/permission/Defaults"
import * as Permission from "@gatehousejs/permission/Permission"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import type * as Tool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Checkpoint from "./Checkpoint.ts"
import * as FileChanges from "./FileChanges.ts"
import * as Message from "./Message.ts"
import * as Session from "./Session.ts"
import * as SessionHistory from "./SessionHistory.ts"
import * as SessionProcessor from "./SessionProcessor.ts"
import * as SessionStatus from "./SessionStatus.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * The session already runs a turn.
 *
 * @since 0.0.0
 */
export class BusyError extends Schema.TaggedError<BusyError>()("SessionBusyError", {
  sessionID: Schema.String
}) {
  override get message(): string {
    return `session ${this.sessionID} is busy with a turn: wait for it to finish or abort it first`
  }
}

/**
 * Default number of model calls in one turn.
 *
 * @since 0.0.0
 */
export const DEFAULT_MAX_STEPS = 50

/**
 * @since 0.0.0
 */
export interface Interface {
  /** Creates a session working in `directory`. */
  readonly create: (input: {
    readonly directory: string
    readonly title?: string | undefined
  }) => Effect.Effect<Session.Info, SessionStore.StoreError>
  /**
   * Runs one turn and returns the last assistant message (with its `error` if the turn
   * failed or was aborted).
   */
  readonly prompt: (
    sessionID: string,
    text: string
  ) => Effect.Effect<
    Message.Assistant | undefined,
    BusyError | Session.NotFoundError | SessionStore.StoreError
  >
  /** Interrupts the session's turn, if any, and rejects its pending asks; true if one ran. */
  readonly abort: (sessionID: string) => Effect.Effect<boolean, Session.NotFoundError>
  /** Whether a turn runs in the session. */
  readonly busy: (sessionID: string) => Effect.Effect<boolean>
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/session/SessionPrompt") {}

/**
 * Options of {@link layer}.
 *
 * @since 0.0.0
 */
export interface Options<Tools extends Record<string, Tool.Any>> {
  /** The tools the model may call; their handlers must be in the layer's context. */
  readonly toolkit: Toolkit.Toolkit<Tools>
  /**
   * The rules asks are judged by (default: `Defaults.ruleset` of `@gatehousejs/permission`:
   * harmless commands, reads and edits in the project allowed; risky commands, paths
   * outside the project, repeated calls and `.env` files ask). Put `Defaults.ruleset`
   * first to keep the defaults under rules of your own.
   */
  readonly ruleset?: Permission.Ruleset | undefined
  /** The approval mode the tools judge in (default: the mode of `Permission.Service`). */
  readonly mode?: Permission.Mode | undefined
  /** Model calls per turn (default {@link DEFAULT_MAX_STEPS}). */
  readonly maxSteps?: number | undefined
  /** A system prompt. */
  readonly system?: string | undefined
  /** What the assistant messages record as their model. */
  readonly model?: { readonly provider: string; readonly id: string } | undefined
  /** Input tokens the model takes before compaction is needed. */
  readonly usableInput?: number | undefined
  /** Cost of a step's tokens. */
  readonly price?: ((tokens: Message.Tokens) => number) | undefined
  /** Extra settings for the shell tool of each call (shell, timeouts). */
  readonly shell?: Partial<ShellContext.Shape> | undefined
}

interface Running {
  fiber?: Fiber.Fiber<Message.Assistant | undefined, SessionStore.StoreError>
  readonly directory: string
}

/**
 * The loop. Needs a `LanguageModel`, the handlers of `options.toolkit`, the processor
 * and what it needs.
 *
 * @since 0.0.0
 */
export const layer = <Tools extends Record<string, Tool.Any>>(
  options: Options<Tools>
): Layer.Layer<
  Service,
  never,
  | LanguageModel.LanguageModel
  | SessionProcessor.Service
  | SessionStore.Service
  | SessionStatus.Service
  | Permission.Service
  | Bus.Service
  | Tool.HandlersFor<Tools>
> =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const model = yield* LanguageModel.LanguageModel
      const processor = yield* SessionProcessor.Service
      const store = yield* SessionStore.Service
      const status = yield* SessionStatus.Service
      const permission = yield* Permission.Service
      const bus = yield* Bus.Service
      const toolkit = yield* options.toolkit
      const checkpoints = yield* Effect.serviceOption(Checkpoint.Service)
      const scope: Scope.Scope = yield* Effect.scope
      const running = new Map<string, Running>()
      const ruleset = options.ruleset ?? Defaults.ruleset
      // The defaults name themselves in traces; a caller's ruleset brings its own sources.
      const sources = options.ruleset === undefined ? { sources: Defaults.sources } : {}
      const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
      const modelInfo = options.model ?? { provider: "unknown", id: "unknown" }

      const now = () => Effect.clockWith((clock) => clock.currentTimeMillis)

      const putMessage = (info: Message.Info) =>
        Effect.andThen(store.putMessage(info), bus.publish(Message.Event.Updated, { info }))
      const putPart = (part: Message.Part) =>
        Effect.andThen(store.putPart(part), bus.publish(Message.Event.PartUpdated, { part }))
      // A user message with one text part.
      const putUserText = (session: Session.Info, id: string, text: string, synthetic = false) =>
        Effect.gen(function* () {
          const user: Message.User = {
            id,
            sessionID: session.id,
            role: "user",
            time: { created: yield* now() }
          }
          yield* putMessage(user)
          yield* putPart({
            id: Identifier.ascending("prt"),
            sessionID: session.id,
            messageID: id,
            type: "text",
            text,
            ...(synthetic ? { synthetic: true } : {})
          })
          return user
        })

      const newAssistant = (session: Session.Info, parentID: string, created: number, summary = false) => {
        const info: Message.Assistant = {
          id: Identifier.ascending("msg"),
          sessionID: session.id,
          role: "assistant",
          parentID,
          model: modelInfo,
          tokens: Message.emptyTokens,
          cost: 0,
          ...(summary ? { summary: true } : {}),
          time: { created }
        }
        return Effect.as(putMessage(info), info)
      }

      const runTool =
        (session: Session.Info, changes: FileChanges.Interface) => (call: SessionProcessor.ToolCall) =>
          Stream.unwrap(
            toolkit.handle(call.name as keyof Tools, call.params as never, call.id) as Effect.Effect<
              Stream.Stream<Tool.HandlerResult<Tool.Any>, unknown>,
              unknown
            >
          ).pipe(
            Stream.map(
              (result): SessionProcessor.ToolOutcome => ({
                result: result.result,
                isFailure: result.isFailure,
                preliminary: result.preliminary,
                encodedResult: result.encodedResult
              })
            ),
            Stream.provideService(ShellContext.Service, {
              ...ShellContext.defaults(),
              ...sources,
              ...options.shell,
              sessionID: session.id,
              callID: call.id,
              messageID: call.messageID,
              ruleset,
              ...(options.mode === undefined ? {} : { mode: options.mode }),
              projectRoot: session.directory,
              directory: session.directory
            }),
            Stream.provideService(FileChanges.Service, changes)
          )

      const step = (session: Session.Info, user: Message.User, changes: FileChanges.Interface) =>
        Effect.gen(function* () {
          const history = yield* store.messages(session.id)
          const assistant = yield* newAssistant(session, user.id, yield* now())
          const stream = model.streamText({
            prompt: SessionHistory.toPrompt(history, { system: options.system }),
            toolkit,
            disableToolCallResolution: true,
            toolCallValidation: "deferred"
          }) as Stream.Stream<Response.AnyPart, unknown>
          const result = yield* processor.process({
            assistant,
            stream,
            ruleset,
            runTool: runTool(session, changes),
            trail: SessionHistory.turnTrail(history, user.id),
            usableInput: options.usableInput,
            price: options.price
          })
          const message = yield* store.message(session.id, assistant.id)
          return { result, message: message! }
        })

      const compact = (session: Session.Info, user: Message.User) =>
        Effect.gen(function* () {
          const history = yield* store.messages(session.id)
          const assistant = yield* newAssistant(session, user.id, yield* now(), true)
          const prompt = [
            ...SessionHistory.toPrompt(history, { system: options.system }),
            { role: "user" as const, content: SessionHistory.SUMMARY_REQUEST }
          ]
          const result = yield* processor.process({
            assistant,
            stream: model.streamText({
              prompt,
              disableToolCallResolution: true,
              toolCallValidation: "deferred"
            }),
            ruleset,
            price: options.price
          })
          const message = yield* store.message(session.id, assistant.id)
          if (result !== "continue") return { ok: false, message: message! }
          // The loop goes on from the summary: tell the model to carry on.
          yield* putUserText(
            session,
            Identifier.ascending("msg"),
            "Continue with the task from where the summary leaves off.",
            true
          )
          return { ok: true, message: message! }
        })

      const turn = (session: Session.Info, text: string) =>
        Effect.gen(function* () {
          yield* status.set(session.id, { type: "busy" })
          const userID = Identifier.ascending("msg")
          // The checkpoint opens before the message is stored: a rewind cannot slip in between.
          const changes = Option.isSome(checkpoints)
            ? (yield* checkpoints.value.open({ session, messageID: userID, prompt: text })).changes
            : FileChanges.none
          const user = yield* putUserText(session, userID, text)
          const created = user.time.created
          const updated = { ...session, time: { ...session.time, updated: created } }
          yield* store.putSession(updated)
          yield* bus.publish(Session.Event.Updated, { info: updated })
          let last: Message.Assistant | undefined
          for (let steps = 0; steps < maxSteps; steps++) {
            const { result, message } = yield* step(session, user, changes)
            last = message.info as Message.Assistant
            if (result === "stop") break
            if (result === "compact") {
              const summary = yield* compact(session, user)
              last = summary.message.info as Message.Assistant
              if (!summary.ok) break
              continue
            }
            if (!message.parts.some((part) => part.type === "tool")) break
          }
          return last
        }).pipe(
          Effect.scoped,
          // A turn stopped by the disk says so: an event for UIs and a line in the log (stderr).
          Effect.tapError((error) =>
            Effect.andThen(
              Effect.logError(`session ${session.id}: the turn stopped: ${error.message}`).pipe(
                Effect.annotateLogs({ sessionID: session.id, operation: error.operation, path: error.path })
              ),
              bus.publish(Session.Event.Error, {
                sessionID: session.id,
                error: { name: error._tag, message: error.message }
              })
            )
          ),
          Effect.ensuring(status.set(session.id, { type: "idle" }))
        )

      const create = Effect.fn("SessionPrompt.create")(function* (input: {
        readonly directory: string
        readonly title?: string | undefined
      }) {
        const created = yield* now()
        const directory = Instance.info(input.directory).directory
        const info: Session.Info = {
          id: Identifier.ascending("ses"),
          directory,
          title: input.title ?? `Session ${new Date(created).toISOString()}`,
          time: { created, updated: created }
        }
        yield* store.putSession(info)
        yield* bus.publish(Session.Event.Created, { info }).pipe(Instance.provide(directory))
        return info
      })

      const prompt = Effect.fn("SessionPrompt.prompt")(function* (sessionID: string, text: string) {
        const session = yield* store.getSession(sessionID)
        if (running.has(sessionID)) return yield* new BusyError({ sessionID })
        const entry: Running = { directory: session.directory }
        running.set(sessionID, entry)
        const fiber = yield* turn(session, text).pipe(
          Effect.ensuring(Effect.sync(() => running.delete(sessionID))),
          Instance.provide(session.directory),
          Effect.forkIn(scope)
        )
        entry.fiber = fiber
        const exit = yield* Fiber.await(fiber).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
        if (Exit.isSuccess(exit)) return exit.value
        if (Exit.hasInterrupts(exit)) {
          // Aborted: the processor recorded the abort on the newest assistant message.
          const messages = yield* store.messages(sessionID)
          const last = messages.findLast((message) => message.info.role === "assistant")
          return last?.info as Message.Assistant | undefined
        }
        return yield* exit
      })

      const abort = Effect.fn("SessionPrompt.abort")(function* (sessionID: string) {
        const session = yield* store.getSession(sessionID)
        const entry = running.get(sessionID)
        yield* permission.rejectSession(sessionID).pipe(Instance.provide(session.directory))
        if (entry?.fiber === undefined) return false
        yield* Fiber.interrupt(entry.fiber)
        return true
      })

      return Service.of({
        create,
        prompt,
        abort,
        busy: (sessionID) => Effect.sync(() => running.has(sessionID))
      })
    })
  )
