// Bus throughput, one publisher to 1 and to 8 subscribers, against a bare sliding `PubSub` of
// the same capacity drained the way the Bus drains (take one, yield, take up to a batch).
// Both sides publish the same events, yield to the subscribers every 1 000, and every
// subscriber sums what it received, checked equal. Goal: Bus >= 0.5x the bare PubSub.
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { type Comparison, compare, reportComparisons } from "../../../scripts/bench-kit.ts"

const EVENTS = 200_000
// Publishers yield now and then so subscribers can run (a real publisher does I/O).
const YIELD_EVERY = 1000
const BATCH = 1024

const Tick = BusEvent.define("bench.tick", Schema.Struct({ n: Schema.Number }))

/** What each subscriber saw: how many events and the sum of their `n`. */
type Seen = ReadonlyArray<{ readonly count: number; readonly sum: number }>

const barePubSub = (subscribers: number): Promise<Seen> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const pubsub = yield* PubSub.sliding<{ readonly n: number }>(Bus.DEFAULT_CAPACITY)
        const fibers = []
        for (let s = 0; s < subscribers; s++) {
          const subscription = yield* PubSub.subscribe(pubsub)
          fibers.push(
            yield* Effect.forkChild(
              Effect.gen(function* () {
                let count = 0
                let sum = 0
                while (count < EVENTS) {
                  const first = yield* PubSub.take(subscription)
                  yield* Effect.yieldNow
                  const rest = yield* PubSub.takeUpTo(subscription, BATCH - 1)
                  count += 1 + rest.length
                  sum += first.n
                  for (const event of rest) sum += event.n
                }
                return { count, sum }
              })
            )
          )
        }
        for (let n = 0; n < EVENTS; n++) {
          yield* PubSub.publish(pubsub, { n })
          if (n % YIELD_EVERY === 0) yield* Effect.yieldNow
        }
        return yield* Fiber.joinAll(fibers)
      })
    )
  )

const BusLive = Bus.layer.pipe(Layer.provideMerge(Instance.layer))

const throughBus = (subscribers: number): Promise<Seen> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const bus = yield* Bus.Service
        const fibers = []
        for (let s = 0; s < subscribers; s++) {
          const stream = yield* bus.subscribe(Tick)
          fibers.push(
            yield* Effect.forkChild(
              Effect.suspend(() => {
                const seen = { count: 0, sum: 0 }
                return stream.pipe(
                  Stream.take(EVENTS),
                  Stream.runForEachArray((events) =>
                    Effect.sync(() => {
                      seen.count += events.length
                      for (const event of events) seen.sum += event.properties.n
                    })
                  ),
                  Effect.as(seen)
                )
              })
            )
          )
        }
        for (let n = 0; n < EVENTS; n++) {
          yield* bus.publish(Tick, { n })
          if (n % YIELD_EVERY === 0) yield* Effect.yieldNow
        }
        return yield* Fiber.joinAll(fibers)
      })
    ).pipe(Instance.provide("/tmp/gatehouse-bench"), Effect.provide(BusLive))
  )

const comparisons: Array<Comparison<Seen>> = []
for (const subscribers of [1, 8]) {
  comparisons.push(
    await compare({
      case: `${EVENTS} events to ${subscribers} subscriber${subscribers > 1 ? "s" : ""}`,
      subject: { name: "Bus", run: () => throughBus(subscribers) },
      baseline: { name: "bare PubSub, batched", run: () => barePubSub(subscribers) },
      rounds: 9,
      goals: [{ text: "Bus >= 0.5x a bare batched PubSub", judge: "speed", atLeast: 0.5 }]
    })
  )
}
reportComparisons("core-bus-throughput", comparisons, {
  summary: { events: EVENTS, "yield every": YIELD_EVERY, batch: BATCH }
})
