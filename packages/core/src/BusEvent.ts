/**
 * Typed bus events: a type name and the `effect/Schema` of its properties.
 *
 * On the wire (and on every subscriber's stream) an event travels in an envelope
 * `{ id, type, properties }`; `id` is monotonic per instance and doubles as the SSE
 * event id, so a consumer can tell from a jump in ids that it missed events.
 *
 * @since 0.0.0
 */
import * as Schema from "effect/Schema"

/**
 * A declared event type.
 *
 * @since 0.0.0
 */
export interface Definition<Type extends string = string, S extends Schema.Top = Schema.Top> {
  readonly type: Type
  readonly properties: S
}

/**
 * Declares an event.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BusEvent } from "@gatehousejs/core"
 * const Created = BusEvent.define("session.created", Schema.Struct({ id: Schema.String }))
 * ```
 * @since 0.0.0
 */
export const define = <const Type extends string, S extends Schema.Top>(
  type: Type,
  properties: S
): Definition<Type, S> => ({ type, properties })

/**
 * An event as delivered: envelope id, type and decoded properties.
 *
 * @since 0.0.0
 */
export interface Envelope<Type extends string = string, Properties = unknown> {
  readonly id: number
  readonly type: Type
  readonly properties: Properties
}

/**
 * The envelope of an event of `D`.
 *
 * @since 0.0.0
 */
export type EnvelopeOf<D extends Definition> = Envelope<D["type"], D["properties"]["Type"]>

/**
 * The wire form of any envelope, for consumers that decode events from JSON.
 *
 * @since 0.0.0
 */
export const EnvelopeSchema = Schema.Struct({
  id: Schema.Int,
  type: Schema.String,
  properties: Schema.Unknown
})

/**
 * The wire form of an envelope of `D`, decoding its properties with `D`'s schema.
 *
 * @since 0.0.0
 */
export const envelopeSchema = <Type extends string, S extends Schema.Top>(definition: Definition<Type, S>) =>
  Schema.Struct({
    id: Schema.Int,
    type: Schema.Literal(definition.type),
    properties: definition.properties
  })
