/**
 * The HTTP API of `gatehouse serve`, as one `HttpApi` definition: the routes, their
 * parameters, bodies, answers and errors. The server implements it, `GET /doc` is the
 * OpenAPI document generated from it, and a typed client can be derived from it.
 *
 * Every route needs the bearer token (see `Guard`); refusals and malformed input are
 * answered with `application/problem+json` documents naming what was wrong.
 *
 * @since 0.0.0
 */
import * as Permission from "@gatehousejs/permission/Permission"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import * as Message from "@gatehousejs/session/Message"
import * as Session from "@gatehousejs/session/Session"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as EventStream from "./EventStream.ts"

/**
 * An id in a path names nothing that exists (404).
 *
 * @since 0.0.0
 */
export class NotFoundError extends Schema.TaggedError<NotFoundError>()(
  "NotFoundError",
  {
    kind: Schema.Literals(["session", "permission"]),
    id: Schema.String,
    message: Schema.String,
    /** For a session held by another server of the group: that server's URL. */
    owner: Schema.optionalKey(Schema.String)
  },
  { httpApiStatus: 404 }
) {}

/**
 * The session is running a turn; wait for `session.status` idle or abort it (409).
 *
 * @since 0.0.0
 */
export class BusyError extends Schema.TaggedError<BusyError>()(
  "BusyError",
  { sessionID: Schema.String, message: Schema.String },
  { httpApiStatus: 409 }
) {}

/**
 * The session has no such turn: list its checkpoints to pick one (404).
 *
 * @since 0.0.0
 */
export class TurnNotFoundError extends Schema.TaggedError<TurnNotFoundError>()(
  "TurnNotFoundError",
  {
    sessionID: Schema.String,
    turn: Schema.Number,
    messageID: Schema.optionalKey(Schema.String),
    turns: Schema.Number,
    message: Schema.String
  },
  { httpApiStatus: 404 }
) {}

/**
 * The session store could not be read or written (500), as an RFC 9457 problem
 * (`application/problem+json`): `title`, `status`, `detail` (what failed and what to check),
 * and the `operation` (`write`, `remove`, `read`) and `path` that failed. Paths are under
 * the data directory; no secret is ever part of one.
 *
 * @since 0.0.0
 */
export class StoreError extends Schema.TaggedError<StoreError>()(
  "StoreError",
  {
    type: Schema.String,
    title: Schema.String,
    status: Schema.Number,
    detail: Schema.String,
    operation: Schema.String,
    path: Schema.String,
    message: Schema.String
  },
  { httpApiStatus: 500 }
) {
  /** The problem for a failed store operation. */
  static fromStore(error: { readonly operation: string; readonly path: string; readonly message: string }) {
    return new StoreError({
      type: "about:blank",
      title: "Storage failed",
      status: 500,
      detail: error.message,
      operation: error.operation,
      path: error.path,
      message: error.message
    })
  }
}

/** {@link StoreError} as the endpoints declare it: encoded as `application/problem+json`. */
const StoreProblem = StoreError.pipe(HttpApiSchema.asJson({ contentType: "application/problem+json" }))

const SessionParams = { sessionID: Schema.String }

/**
 * `GET /event`: the SSE stream (see `EventStream`).
 *
 * @since 0.0.0
 */
export class EventGroup extends HttpApiGroup.make("event").add(
  HttpApiEndpoint.get("subscribe", "/event", {
    headers: { "last-event-id": Schema.optional(Schema.String) },
    success: HttpApiSchema.StreamSse({ data: EventStream.Frame })
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Event stream",
      description:
        "Server-Sent Events: `server.connected` first, then every bus event of the instance with `id:` " +
        "set to its envelope id, `server.heartbeat` every 10 s. Send `Last-Event-ID` to resume; " +
        "`server.resync` means events were lost and state must be refetched. " +
        "`server.instance.disposed` is the last event."
    })
  )
) {}

/**
 * The body of `POST /permission/:requestID/reply`.
 *
 * @since 0.0.0
 */
export const PermissionReply = Schema.Struct({
  reply: Permission.Reply,
  message: Schema.optionalKey(Schema.String)
})

/**
 * Pending permission asks and their answers.
 *
 * @since 0.0.0
 */
export class PermissionGroup extends HttpApiGroup.make("permission")
  .add(
    HttpApiEndpoint.get("list", "/permission", {
      success: Schema.Array(Permission.Request)
    }).annotateMerge(OpenApi.annotations({ summary: "Pending permission asks, oldest first" }))
  )
  .add(
    HttpApiEndpoint.post("reply", "/permission/:requestID/reply", {
      params: { requestID: Schema.String },
      payload: PermissionReply,
      success: HttpApiSchema.NoContent,
      error: NotFoundError
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Answer a permission ask",
        description:
          "`once` allows this call, `always` also remembers the ask's patterns for the project, " +
          "`reject` refuses it (with `message`, the model is told what to do instead)."
      })
    )
  ) {}

/**
 * The body of `POST /session`.
 *
 * @since 0.0.0
 */
export const SessionCreate = Schema.Struct({ title: Schema.optionalKey(Schema.String) })

/**
 * The body of `POST /session/:sessionID/prompt`.
 *
 * @since 0.0.0
 */
export const PromptInput = Schema.Struct({ text: Schema.String.check(Schema.isMinLength(1)) })

/**
 * A session with what it is doing right now.
 *
 * @since 0.0.0
 */
export const SessionView = Schema.Struct({ info: Session.Info, status: SessionStatus.Info })

/**
 * Sessions, their messages, turns and aborts.
 *
 * @since 0.0.0
 */
export class SessionGroup extends HttpApiGroup.make("session")
  .add(
    HttpApiEndpoint.post("create", "/session", {
      payload: SessionCreate,
      success: Session.Info.pipe(HttpApiSchema.status(201)),
      error: StoreProblem
    }).annotateMerge(OpenApi.annotations({ summary: "Create a session" }))
  )
  .add(
    HttpApiEndpoint.get("list", "/session", { success: Schema.Array(SessionView) }).annotateMerge(
      OpenApi.annotations({ summary: "Every session with its status, oldest first" })
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/session/:sessionID", {
      params: SessionParams,
      success: SessionView,
      error: NotFoundError
    })
  )
  .add(
    HttpApiEndpoint.get("messages", "/session/:sessionID/message", {
      params: SessionParams,
      success: Schema.Array(Message.WithParts),
      error: NotFoundError
    }).annotateMerge(OpenApi.annotations({ summary: "The session's messages with their parts, in order" }))
  )
  .add(
    HttpApiEndpoint.post("prompt", "/session/:sessionID/prompt", {
      params: SessionParams,
      payload: PromptInput,
      success: HttpApiSchema.Accepted,
      error: [NotFoundError, BusyError]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Start a turn",
        description:
          "Appends the user's text and starts the agent loop; answers 202 at once. Progress arrives on " +
          "`/event`. 409 while the session is already running a turn."
      })
    )
  )
  .add(
    HttpApiEndpoint.post("abort", "/session/:sessionID/abort", {
      params: SessionParams,
      success: HttpApiSchema.NoContent,
      error: NotFoundError
    }).annotateMerge(
      OpenApi.annotations({ summary: "Abort the running turn (its pending asks are rejected)" })
    )
  ) {}

/**
 * A session's checkpoints (one per user turn), rewinding to one and forking from one.
 * Shell commands are not tracked by checkpoints: a rewind does not undo what `bash` did.
 *
 * @since 0.0.0
 */
export class CheckpointGroup extends HttpApiGroup.make("checkpoint")
  .add(
    HttpApiEndpoint.get("list", "/session/:sessionID/checkpoint", {
      params: SessionParams,
      success: Schema.Array(Checkpoint.Info),
      error: NotFoundError
    }).annotateMerge(
      OpenApi.annotations({
        summary: "The session's checkpoints, oldest first",
        description:
          "One per user turn (`turn` counts the user's prompts from 1; `messageID` is the turn's user " +
          "message), with the project-relative paths its file tools changed. Shell commands are not tracked."
      })
    )
  )
  .add(
    HttpApiEndpoint.post("rewind", "/session/:sessionID/rewind", {
      params: SessionParams,
      payload: Checkpoint.RewindInput,
      success: Checkpoint.RewindResult,
      error: [NotFoundError, TurnNotFoundError, BusyError, StoreProblem]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Rewind the session to the start of a turn",
        description:
          "`code` puts the files the file tools changed from that turn on back as they were; " +
          "`conversation` drops the messages from that turn's user message on (`message.removed`, " +
          "then `session.updated`) and returns the turn's `prompt` to edit and send again; `both` " +
          "does the two. What shell commands did is not undone. 409 while a turn runs."
      })
    )
  )
  .add(
    HttpApiEndpoint.post("fork", "/session/:sessionID/fork", {
      params: SessionParams,
      payload: Checkpoint.ForkInput,
      success: Checkpoint.ForkResult.pipe(HttpApiSchema.status(201)),
      error: [NotFoundError, TurnNotFoundError, BusyError, StoreProblem]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Fork a new session holding the conversation before a turn",
        description:
          "The original session is untouched; the new one is announced with `session.created`. " +
          "409 while a turn runs."
      })
    )
  ) {}

const bearerEverywhere = (spec: Record<string, unknown>): Record<string, unknown> => {
  const components = (spec.components ?? {}) as Record<string, unknown>
  const schemes = (components.securitySchemes ?? {}) as Record<string, unknown>
  return {
    ...spec,
    components: {
      ...components,
      securitySchemes: { ...schemes, bearer: { type: "http", scheme: "bearer" } }
    },
    security: [{ bearer: [] }]
  }
}

/**
 * The whole API. Request validation failures are answered 400 with the offending paths.
 *
 * @since 0.0.0
 */
export class Api extends HttpApi.make("gatehouse")
  .add(EventGroup)
  .add(PermissionGroup)
  .add(SessionGroup)
  .add(CheckpointGroup)
  .middleware(HttpApiMiddleware.ProblemDetails)
  .annotateMerge(
    OpenApi.annotations({
      title: "Gatehouse",
      version: "0.0.0",
      description:
        "The local API of `gatehouse serve`. Every route needs `Authorization: Bearer <token>` " +
        "(the token is printed at start, or set with GATEHOUSE_SERVER_TOKEN) and is refused from " +
        "non-loopback hosts and foreign origins.",
      transform: bearerEverywhere
    })
  ) {}
