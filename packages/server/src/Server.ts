/**
 * The server of `gatehouse serve`: the {@link Api} implemented over the services of one
 * project directory, the event stream, the web page and the OpenAPI document, behind the
 * {@link Guard}, listening on loopback.
 *
 * The services come from the layer's context, so the same server runs on the scripted
 * model (the default of `gatehouse serve`) or on any `effect/ai` provider.
 *
 * @example
 * ```ts
 * import { Server } from "@gatehousejs/server"
 * import { Effect, Layer } from "effect"
 *
 * // `Stack` provides Bus, Instance.Registry, Permission, SessionStore, SessionStatus,
 * // SessionPrompt and Checkpoint (see the cli's `serve` command for a complete one).
 * declare const Stack: Layer.Layer<any>
 * const program = Effect.gen(function* () {
 *   const server = yield* Server.Service
 *   console.log(`Gatehouse is listening on ${server.url}`)
 *   return yield* Effect.never
 * }).pipe(Effect.provide(Server.layer({ directory: process.cwd() }).pipe(Layer.provide(Stack))))
 * ```
 * @since 0.0.0
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import type * as Session from "@gatehousejs/session/Session"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import type * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Api from "./Api.ts"
import * as EventStream from "./EventStream.ts"
import * as Guard from "./Guard.ts"
import * as WebPage from "./WebPage.ts"

/**
 * @since 0.0.0
 */
export interface Options {
  /** The project directory the server works for. */
  readonly directory: string
  /** Interface to listen on (default `127.0.0.1`). */
  readonly host?: string | undefined
  /** Port (default 0: any free port). */
  readonly port?: number | undefined
  /** The bearer token (default: `GATEHOUSE_SERVER_TOKEN`, else a fresh random one). */
  readonly token?: string | undefined
  /** Largest request body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number | undefined
  /** Bounds of the event stream. */
  readonly events?: EventStream.Options | undefined
}

/**
 * Where the running server is and how to reach it.
 *
 * @since 0.0.0
 */
export interface Info {
  /** The base URL (`http://127.0.0.1:PORT`). */
  readonly url: string
  /** The web page's URL, token included: what `gatehouse serve` prints. */
  readonly pageUrl: string
  readonly token: string
  readonly port: number
  readonly directory: string
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Info>()("@gatehousejs/server/Server") {}

// ---------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------

const EventHandlers = HttpApiBuilder.group(Api.Api, "event", (handlers) =>
  Effect.gen(function* () {
    const events = yield* EventStream.Service
    return handlers.handle("subscribe", ({ headers }) =>
      Effect.map(events.full, (full) =>
        full
          ? HttpServerResponse.jsonUnsafe(
              {
                type: "about:blank",
                title: "Too Many Requests",
                status: 429,
                detail: `${events.maxClients} event stream clients are connected, the most this server serves at once: close one, or start the server with a higher limit (gatehouse serve --max-clients N; EventStream's maxClients).`
              },
              { status: 429, contentType: "application/problem+json", headers: { "retry-after": "5" } }
            )
          : HttpServerResponse.stream(events.connect({ lastEventId: headers["last-event-id"] }), {
              contentType: "text/event-stream",
              headers: EventStream.headers
            })
      )
    )
  })
)

const PermissionHandlers = HttpApiBuilder.group(Api.Api, "permission", (handlers) =>
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    const instance = yield* Instance.Current
    const inInstance = Effect.provideService(Instance.Current, instance)
    return handlers
      .handle("list", () => inInstance(permission.list()))
      .handle("reply", ({ params, payload }) =>
        permission
          .reply({
            requestID: params.requestID,
            reply: payload.reply,
            ...(payload.message === undefined ? {} : { message: payload.message })
          })
          .pipe(
            inInstance,
            Effect.catchTag("PermissionNotFoundError", (error) =>
              Effect.fail(
                new Api.NotFoundError({ kind: "permission", id: params.requestID, message: error.message })
              )
            )
          )
      )
  })
)

/**
 * Where a session this server does not hold lives: for servers of a group on different
 * machines (each keeps the sessions of the turns it ran). A 404 for such a session names the
 * server that holds it (`owner`). Absent on a server alone.
 *
 * @since 0.0.0
 */
export class SessionOwner extends Context.Service<
  SessionOwner,
  { readonly locate: (sessionID: string) => Effect.Effect<string | undefined> }
>()("@gatehousejs/server/Server/SessionOwner") {}

const sessionNotFound = (sessionID: string) => (error: { readonly message: string }) =>
  Effect.flatMap(Effect.serviceOption(SessionOwner), (owner) =>
    Effect.flatMap(owner._tag === "Some" ? owner.value.locate(sessionID) : Effect.succeed(undefined), (url) =>
      Effect.fail(
        new Api.NotFoundError({
          kind: "session",
          id: sessionID,
          message:
            url === undefined
              ? error.message
              : `${error.message} It is held by ${url} (same group): ask there.`,
          ...(url === undefined ? {} : { owner: url })
        })
      )
    )
  )

const busyError = (sessionID: string) =>
  new Api.BusyError({
    sessionID,
    message: `Session ${sessionID} is running a turn: wait until its session.status is idle, or abort it.`
  })

/**
 * Sessions whose turn this server started and that have not finished: checked and set in
 * one synchronous step, so two concurrent prompts cannot both start, and a rewind or fork
 * cannot slip in between a 202 and the turn taking its checkpoint.
 */
class Starting extends Context.Service<Starting, Set<string>>()("@gatehousejs/server/Server/Starting") {}

const SessionHandlers = HttpApiBuilder.group(Api.Api, "session", (handlers) =>
  Effect.gen(function* () {
    const store = yield* SessionStore.Service
    const status = yield* SessionStatus.Service
    const prompts = yield* SessionPrompt.Service
    const instance = yield* Instance.Current
    const scope = yield* Effect.scope
    const starting = yield* Starting

    const view = (info: Session.Info) =>
      Effect.map(status.get(info.id), (current) => ({ info, status: current }))

    const find = (sessionID: string) =>
      store.getSession(sessionID).pipe(Effect.catchTag("SessionNotFoundError", sessionNotFound(sessionID)))

    return handlers
      .handle("create", ({ payload }) =>
        prompts.create({ directory: instance.directory, title: payload.title }).pipe(
          Effect.tapError((error) =>
            Effect.logError(`POST /session: ${error.message}`).pipe(
              Effect.annotateLogs({ operation: error.operation, path: error.path })
            )
          ),
          Effect.mapError(Api.StoreError.fromStore),
          Effect.tap((info) => Effect.annotateCurrentSpan("sessionID", info.id))
        )
      )
      .handle("list", () =>
        Effect.flatMap(store.listSessions(), (sessions) =>
          Effect.forEach(
            sessions.filter((session) => session.directory === instance.directory),
            view
          )
        )
      )
      .handle("get", ({ params }) => Effect.flatMap(find(params.sessionID), view))
      .handle("messages", ({ params }) =>
        Effect.andThen(find(params.sessionID), store.messages(params.sessionID))
      )
      .handle("prompt", ({ params, payload }) =>
        Effect.gen(function* () {
          const sessionID = params.sessionID
          yield* find(sessionID)
          const busy = yield* prompts.busy(sessionID)
          const claimed = yield* Effect.sync(() => {
            if (busy || starting.has(sessionID)) return false
            starting.add(sessionID)
            return true
          })
          if (!claimed) return yield* busyError(sessionID)
          yield* prompts.prompt(sessionID, payload.text).pipe(
            Effect.catchCause((cause) => Effect.logWarning("turn failed", cause)),
            Effect.ensuring(Effect.sync(() => starting.delete(sessionID))),
            Effect.annotateLogs({ sessionID }),
            Effect.forkIn(scope)
          )
        })
      )
      .handle("abort", ({ params }) =>
        prompts
          .abort(params.sessionID)
          .pipe(Effect.catchTag("SessionNotFoundError", sessionNotFound(params.sessionID)), Effect.asVoid)
      )
  })
)

const CheckpointHandlers = HttpApiBuilder.group(Api.Api, "checkpoint", (handlers) =>
  Effect.gen(function* () {
    const checkpoints = yield* Checkpoint.Service
    const prompts = yield* SessionPrompt.Service
    const starting = yield* Starting

    /** 409 at once for a turn this server started, even before it holds its checkpoint. */
    const idle = (sessionID: string) =>
      Effect.flatMap(prompts.busy(sessionID), (busy) =>
        busy || starting.has(sessionID) ? Effect.fail(new Checkpoint.BusyError({ sessionID })) : Effect.void
      )

    const toApi =
      (sessionID: string) =>
      <A, R>(
        effect: Effect.Effect<
          A,
          | Session.NotFoundError
          | Checkpoint.TurnNotFoundError
          | Checkpoint.BusyError
          | SessionStore.StoreError,
          R
        >
      ) =>
        effect.pipe(
          Effect.catchTags({
            SessionNotFoundError: sessionNotFound(sessionID),
            CheckpointTurnNotFoundError: (error) =>
              Effect.fail(
                new Api.TurnNotFoundError({
                  sessionID,
                  turn: error.turn,
                  ...(error.messageID === undefined ? {} : { messageID: error.messageID }),
                  turns: error.turns,
                  message: error.message
                })
              ),
            CheckpointBusyError: () => Effect.fail(busyError(sessionID)),
            SessionStoreError: (error) =>
              Effect.andThen(Effect.logError(error.message), Effect.fail(Api.StoreError.fromStore(error)))
          })
        )

    return handlers
      .handle("list", ({ params }) =>
        checkpoints
          .list(params.sessionID)
          .pipe(Effect.catchTag("SessionNotFoundError", sessionNotFound(params.sessionID)))
      )
      .handle("rewind", ({ params, payload }) =>
        Effect.andThen(
          idle(params.sessionID),
          checkpoints.rewind(params.sessionID, Checkpoint.addressOf(payload), payload.scope)
        ).pipe(toApi(params.sessionID), Effect.annotateLogs({ sessionID: params.sessionID }))
      )
      .handle("fork", ({ params, payload }) =>
        Effect.andThen(
          idle(params.sessionID),
          checkpoints.fork(params.sessionID, Checkpoint.addressOf(payload))
        ).pipe(toApi(params.sessionID), Effect.annotateLogs({ sessionID: params.sessionID }))
      )
  })
)

// ---------------------------------------------------------------------------------------
// Layer
// ---------------------------------------------------------------------------------------

const isWildcard = (host: string) => host === "0.0.0.0" || host === "::" || host === ""

/** The host to put in URLs: a wildcard listener is reached through loopback. */
const urlHost = (host: string) => {
  if (isWildcard(host)) return "127.0.0.1"
  return host.includes(":") ? `[${host}]` : host
}

// A guessable token would let any local process drive the agent: refuse short ones.
const MIN_TOKEN_LENGTH = 16

/**
 * The token from `GATEHOUSE_SERVER_TOKEN` (trimmed), if set; fails when it is shorter than
 * 16 characters.
 *
 * @since 0.0.0
 */
export const tokenFromEnv: Config.Config<Option.Option<string>> = Config.option(
  Config.schema(
    Schema.Trim.check(
      Schema.isMinLength(MIN_TOKEN_LENGTH, {
        message: `GATEHOUSE_SERVER_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters`
      })
    ),
    "GATEHOUSE_SERVER_TOKEN"
  )
)

/**
 * The routes of the server (API, `/doc`, `/`) behind the guard, for a given token.
 *
 * @since 0.0.0
 */
export const routes = (options: {
  readonly directory: string
  readonly token: string
  readonly allowedHosts?: ReadonlyArray<string>
  readonly maxBodyBytes?: number | undefined
}) => {
  const page = WebPage.response(Instance.info(options.directory).directory)
  const Handlers = Layer.mergeAll(
    EventHandlers,
    PermissionHandlers,
    SessionHandlers,
    CheckpointHandlers
  ).pipe(
    // One set per server (a fresh layer value, so never shared through layer memoization).
    Layer.provide(Layer.sync(Starting, () => new Set<string>()))
  )
  return Layer.mergeAll(
    HttpApiBuilder.layer(Api.Api, { openapiPath: "/doc" }).pipe(
      Layer.provide(Handlers),
      Layer.provide(HttpApiMiddleware.layerProblemDetails({ includeDetails: true }))
    ),
    HttpRouter.add("GET", "/", page),
    Guard.layer({
      token: options.token,
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes })
    })
  )
}

/**
 * What {@link layer} needs from its context.
 *
 * @since 0.0.0
 */
export type Requirements =
  | Bus.Service
  | Permission.Service
  | SessionStore.Service
  | SessionStatus.Service
  | SessionPrompt.Service
  | Checkpoint.Service

/**
 * The error of a failed start (the port is taken, the host cannot be bound).
 *
 * @since 0.0.0
 */
export type StartError = HttpServerError.ServeError

/**
 * The server for `options.directory`, listening until the layer closes.
 *
 * @since 0.0.0
 */
export const layer = (
  options: Options
): Layer.Layer<Service | EventStream.Service, StartError | Config.ConfigError, Requirements> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const instance = Instance.info(options.directory)
      const token = options.token ?? Option.getOrUndefined(yield* tokenFromEnv) ?? Guard.generateToken()
      const host = options.host ?? "127.0.0.1"
      const hostName = Guard.hostName(urlHost(host))
      const allowedHosts = hostName === undefined || Guard.isLoopbackName(hostName) ? [] : [hostName]

      const Http = HttpRouter.serve(
        routes({ directory: instance.directory, token, allowedHosts, maxBodyBytes: options.maxBodyBytes }),
        { disableLogger: true, disableListenLog: true }
      ).pipe(
        Layer.provideMerge(
          NodeHttpServer.layer(() => createServer(), {
            host,
            port: options.port ?? 0,
            // Nothing may hold a shutdown for long (the default waits 20 s for open streams).
            gracefulShutdownTimeout: "1 second"
          })
        )
      )

      const Running = Layer.effect(
        Service,
        Effect.gen(function* () {
          const server = yield* HttpServer.HttpServer
          const events = yield* EventStream.Service
          // Runs before the listener closes: open event streams end cleanly instead of
          // holding the shutdown until they are cut.
          yield* Effect.addFinalizer(() => events.closeAll)
          const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
          const url = `http://${urlHost(host)}:${port}`
          return Service.of({
            url,
            pageUrl: `${url}/?token=${encodeURIComponent(token)}`,
            token,
            port,
            directory: instance.directory
          })
        })
      )

      return Running.pipe(
        Layer.provide(Http),
        Layer.provideMerge(EventStream.layerWith(options.events)),
        Layer.provide(Layer.succeed(Instance.Current, instance))
      )
    })
  )
