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
 * Pulls a subscription in batches, in one pass over each batch: events of other types are
 * left out (`type`, when given) and the disposal message ends the stream, delivered last
 * only to a subscriber of every type. After waking on the first event the pull yields once,
 * so a publisher in a burst fills the batch instead of waking the subscriber per event.
 */
const pullBatches = (
  subscription: PubSub.Subscription<BusEvent.Envelope>,
  type: string | undefined
): Effect.Effect<Arr.NonEmptyReadonlyArray<BusEvent.Envelope>, Cause.Done> => {
  let ended = false
  // The events of a batch this subscriber wants, up to and with the disposal message.
  const keep = (batch: ReadonlyArray<BusEvent.Envelope>): Array<BusEvent.Envelope> => {
    const out: Array<BusEvent.Envelope> = []
    for (const envelope of batch) {
      if (isDisposal(envelope)) {
        ended = true
        if (type === undefined) out.push(envelope)
        break
      }
      if (type === undefined || envelope.type === type) out.push(envelope)
    }
    return out
  }
  const pull: Effect.Effect<Arr.NonEmptyReadonlyArray<BusEvent.Envelope>, Cause.Done> = Effect.suspend(() => {
    if (ended) return Cause.done()
    return Effect.flatMap(PubSub.take(subscription), (first) => {
      const rest = isDisposal(first)
        ? Effect.succeed([] as ReadonlyArray<BusEvent.Envelope>)
        : Effect.andThen(Effect.yieldNow, PubSub.takeUpTo(subscription, MAX_BATCH - 1))
      return Effect.flatMap(rest, (more) => {
        const batch = keep(more.length === 0 ? [first] : [first, ...more])
        if (batch.length > 0)
          return Effect.succeed(batch as unknown as Arr.NonEmptyReadonlyArray<BusEvent.Envelope>)
        return ended ? Cause.done() : pull
      })
    })
  })
  return pull
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

      // The hot path of every service: no generator, no span, and no effect at all unless
      // the subscriber's slack is used up (then the sliding policy drops its oldest).
      const publish = <D extends BusEvent.Definition>(definition: D, properties: D["properties"]["Type"]) =>
        InstanceState.use(states, (state) => {
          const envelope: BusEvent.Envelope = { id: state.ids.next++, type: definition.type, properties }
          return PubSub.publishUnsafe(state.pubsub, envelope)
            ? Effect.void
            : Effect.asVoid(PubSub.publish(state.pubsub, envelope))
        })

      const subscribeTo = Effect.fnUntraced(function* (type: string | undefined) {
        const state = yield* InstanceState.get(states)
        const subscription = yield* PubSub.subscribe(state.pubsub)
        return Stream.fromPull(Effect.succeed(pullBatches(subscription, type)))
      })

      const subscribeAll = () => subscribeTo(undefined)

      // Only envelopes of `definition.type` pass `pullBatches`.
      const subscribe = <D extends BusEvent.Definition>(definition: D) =>
        subscribeTo(definition.type) as Effect.Effect<
          Stream.Stream<BusEvent.EnvelopeOf<D>>,
          never,
          Instance.Current | Scope.Scope
        >

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
