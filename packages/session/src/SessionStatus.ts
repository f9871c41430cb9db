/**
 * What each session is doing right now: `idle`, `busy` (a turn is running) or `retry`
 * (waiting to call the model again after a transient error, with the attempt number and
 * when the next try happens). Every change is published as `session.status`.
 *
 * @since 0.0.0
 */
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import type * as Instance from "@gatehousejs/core/Instance"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/**
 * A session's status.
 *
 * @since 0.0.0
 */
export const Info = Schema.Union([
  Schema.Struct({ type: Schema.Literal("idle") }),
  Schema.Struct({ type: Schema.Literal("busy") }),
  Schema.Struct({
    type: Schema.Literal("retry"),
    /** 1 for the first retry. */
    attempt: Schema.Number,
    /** Why the last attempt failed. */
    message: Schema.String,
    /** When the next attempt starts (epoch milliseconds). */
    next: Schema.Number
  })
])
/** @since 0.0.0 */
export type Info = typeof Info.Type

/**
 * Events of session statuses.
 *
 * @since 0.0.0
 */
export const Event = {
  Status: BusEvent.define("session.status", Schema.Struct({ sessionID: Schema.String, status: Info }))
}

/**
 * @since 0.0.0
 */
export interface Interface {
  /** The session's status; `idle` when nothing was ever set. */
  readonly get: (sessionID: string) => Effect.Effect<Info>
  /** Sets and publishes the session's status. */
  readonly set: (sessionID: string, status: Info) => Effect.Effect<void, never, Instance.Current>
  /** Every session that is not idle. */
  readonly list: () => Effect.Effect<ReadonlyMap<string, Info>>
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/session/SessionStatus") {}

const idle: Info = { type: "idle" }

/**
 * Statuses kept in memory, published on the bus.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Service, never, Bus.Service> = Layer.effect(
  Service,
  Effect.gen(function* () {
    const bus = yield* Bus.Service
    const statuses = new Map<string, Info>()
    return Service.of({
      get: (sessionID) => Effect.sync(() => statuses.get(sessionID) ?? idle),
      set: (sessionID, status) =>
        Effect.suspend(() => {
          if (status.type === "idle") statuses.delete(sessionID)
          else statuses.set(sessionID, status)
          return bus.publish(Event.Status, { sessionID, status })
        }),
      list: () => Effect.sync(() => new Map(statuses))
    })
  })
)
