/**
 * A session: one conversation between a user and the model, in one project directory.
 *
 * @since 0.0.0
 */
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Schema from "effect/Schema"
import { MessageError } from "./Message.ts"

/**
 * What a session is: its id, the project directory it works in, a title and its times.
 *
 * @since 0.0.0
 */
export const Info = Schema.Struct({
  id: Schema.String,
  directory: Schema.String,
  title: Schema.String,
  time: Schema.Struct({ created: Schema.Number, updated: Schema.Number })
})
/** @since 0.0.0 */
export type Info = typeof Info.Type

/**
 * Events about sessions.
 *
 * @since 0.0.0
 */
export const Event = {
  Created: BusEvent.define("session.created", Schema.Struct({ info: Info })),
  Updated: BusEvent.define("session.updated", Schema.Struct({ info: Info })),
  /** A turn ended with an error (the model failed, the turn was aborted, a doom loop was refused). */
  Error: BusEvent.define(
    "session.error",
    Schema.Struct({
      sessionID: Schema.String,
      messageID: Schema.optional(Schema.String),
      error: MessageError
    })
  )
}

/**
 * No session has this id.
 *
 * @since 0.0.0
 */
export class NotFoundError extends Schema.TaggedError<NotFoundError>()("SessionNotFoundError", {
  sessionID: Schema.String
}) {
  override get message(): string {
    return `no session ${this.sessionID}: list the sessions to find its id, or create one`
  }
}
