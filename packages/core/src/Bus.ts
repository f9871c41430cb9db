/**
 * The event bus of an instance: typed events in, ordered envelope streams out.
 *
 * Each instance (project directory) has its own bus, created on first use and backed by
 * an Effect `PubSub`. Overflow policy, per subscriber: every subscriber may fall up to
 * `capacity` events behind; past that its oldest unread events are dropped (sliding), so a
 * stalled subscriber never blocks `publish` and never holds back another subscriber. Ids
 * are consecutive per directory (and keep counting after the instance is disposed and
 * reopened), so a `subscribeAll` subscriber sees a jump in `id` exactly where it lost events
 * (the server turns that into `server.resync`). Events reach each subscriber in publish order.
 *
 * @since 0.0.0
 */
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as BusEvent from "./BusEvent.ts"
import type * as Instance from "./Instance.ts"
import * as InstanceState from "./InstanceState.ts"

/**
 * Events of the bus itself.
 *
 * @since 0.0.0
 */
export const Event = {
  /** The last event every subscriber of a disposed instance receives; its stream then ends. */
  InstanceDisposed: BusEvent.define("server.instance.disposed", Schema.Struct({ directory: Schema.String }))
}

/**
 * How far behind (in events) a subscriber may fall before it loses the oldest.
 *
 * @since 0.0.0
 */
export const DEFAULT_CAPACITY = 4096

/**
 * @since 0.0.0
 */
export interface Interface {
  /** Publishes to every current subscriber of the current instance. Never waits on a subscriber. */
  readonly publish: <D extends BusEvent.Definition>(
    definition: D,
    properties: D["properties"]["Type"]
  ) => Effect.Effect<void, never, Instance.Current>
  /**
   * Subscribes to one event type. The subscription exists once this effect returns, and
   * lasts as long as the enclosing scope; the stream ends when the instance is disposed.
   */
  readonly subscribe: <D extends BusEvent.Definition>(
    definition: D
  ) => Effect.Effect<Stream.Stream<BusEvent.EnvelopeOf<D>>, never, Instance.Current | Scope.Scope>
  /**
   * Subscribes to every event. On disposal the stream delivers `server.instance.disposed`
   * last, then ends.
   */
  readonly subscribeAll: () => Effect.Effect<
    Stream.Stream<BusEvent.Envelope>,
    never,
    Instance.Current | Scope.Scope
  >
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/core/Bus") {}

interface State {
  readonly pubsub: PubSub.PubSub<BusEvent.Envelope>
  readonly ids: IdCounter
}

interface IdCounter {
  next: number
}

const isDisposal = (envelope: BusEvent.Envelope) => envelope.type === Event.InstanceDisposed.type

const MAX_BATCH = 1024

/**
 * Pulls a subscription in batches. After waking on the first event it yields once, so a
 * publisher in a burst fills the batch instead of waking the subscriber per event. The
 * disposal message is sticky in the PubSub: deliver it once, then end.
 */
const pullBatches = (
  subscription: PubSub.Subscription<BusEvent.Envelope>
): Effect.Effect<Arr.NonEmptyReadonlyArray<BusEvent.Envelope>, Cause.Done> => {
  let ended = false
  const cut = (batch: Array<BusEvent.Envelope>) => {
    const end = batch.findIndex(isDisposal)
    if (end === -1) return batch as unknown as Arr.NonEmptyReadonlyArray<BusEvent.Envelope>
    ended = true
    return batch.slice(0, end + 1) as unknown as Arr.NonEmptyReadonlyArray<BusEvent.Envelope>
  }
  return Effect.suspend(() => {
    if (ended) return Cause.done()
    return Effect.flatMap(PubSub.take(subscription), (first) => {
      if (isDisposal(first)) return Effect.sync(() => cut([first]))
      return Effect.yieldNow.pipe(
        Effect.andThen(PubSub.takeUpTo(subscription, MAX_BATCH - 1)),
        Effect.map((rest) => cut([first, ...rest]))
      )
    })
  })
}

/**
 * A bus whose subscribers may each fall `capacity` events behind.
 *
 * @since 0.0.0
 */
export const layerWith = (options: {
  readonly capacity: number
}): Layer.Layer<Service, never, Instance.Registry> =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      // Ids outlive a disposed instance: a client resuming from an id of the old bus must
      // never be handed a different event that reused that id.
      const counters = new Map<string, IdCounter>()
      const states = yield* InstanceState.make((instance) =>
        Effect.gen(function* () {
          const pubsub = yield* PubSub.sliding<BusEvent.Envelope>(options.capacity)
          let ids = counters.get(instance.directory)
          if (ids === undefined) {
            ids = { next: 1 }
            counters.set(instance.directory, ids)
          }
          const state: State = { pubsub, ids }
          yield* Effect.addFinalizer(() =>
            PubSub.end(pubsub, {
              id: state.ids.next++,
              type: Event.InstanceDisposed.type,
              properties: { directory: instance.directory }
            })
          )
          return state
        })
      )

      // The hot path of every service: no generator, no span.
      const publish = <D extends BusEvent.Definition>(definition: D, properties: D["properties"]["Type"]) =>
        Effect.flatMap(InstanceState.get(states), (state) =>
          PubSub.publish(state.pubsub, { id: state.ids.next++, type: definition.type, properties })
        ).pipe(Effect.asVoid)

      const subscribeAll = Effect.fnUntraced(function* () {
        const state = yield* InstanceState.get(states)
        const subscription = yield* PubSub.subscribe(state.pubsub)
        return Stream.fromPull(Effect.succeed(pullBatches(subscription)))
      })

      const subscribe = <D extends BusEvent.Definition>(definition: D) =>
        Effect.map(subscribeAll(), (stream) =>
          stream.pipe(
            Stream.takeWhile((envelope) => !isDisposal(envelope)),
            Stream.filter((envelope): envelope is BusEvent.EnvelopeOf<D> => envelope.type === definition.type)
          )
        )

      return Service.of({ publish, subscribe, subscribeAll })
    })
  )

/**
 * The live bus ({@link DEFAULT_CAPACITY} events of slack per subscriber).
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Service, never, Instance.Registry> = layerWith({ capacity: DEFAULT_CAPACITY })

/**
 * Publishes through the bus in context.
 *
 * @since 0.0.0
 */
export const publish = <D extends BusEvent.Definition>(
  definition: D,
  properties: D["properties"]["Type"]
): Effect.Effect<void, never, Service | Instance.Current> =>
  Service.use((bus) => bus.publish(definition, properties))
