// Bus throughput: one publisher to 1 and to 8 subscribers, against a plain PubSub
// publish/take loop with the same capacity and sliding policy (the floor of this design).
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { median, report, timeRuns } from "../../../scripts/bench-kit.ts"

const EVENTS = 200_000
const RUNS = 7
// Publishers yield now and then so subscribers can run (a real publisher does I/O).
const YIELD_EVERY = 1000

const Tick = BusEvent.define("bench.tick", Schema.Struct({ n: Schema.Number }))

const plainPubSub = (subscribers: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const pubsub = yield* PubSub.sliding<{ n: number }>(Bus.DEFAULT_CAPACITY)
      const fibers = []
      for (let s = 0; s < subscribers; s++) {
        const subscription = yield* PubSub.subscribe(pubsub)
        fibers.push(
          yield* Effect.forkChild(
            Effect.gen(function* () {
              for (let i = 0; i < EVENTS; i++) yield* PubSub.take(subscription)
            })
          )
        )
      }
      for (let n = 0; n < EVENTS; n++) {
        yield* PubSub.publish(pubsub, { n })
        if (n % YIELD_EVERY === 0) yield* Effect.yieldNow
      }
      yield* Fiber.joinAll(fibers)
    })
  )

const BusLive = Bus.layer.pipe(Layer.provideMerge(Instance.layer))

const throughBus = (subscribers: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const fibers = []
      for (let s = 0; s < subscribers; s++) {
        const stream = yield* bus.subscribe(Tick)
        fibers.push(yield* Effect.forkChild(stream.pipe(Stream.take(EVENTS), Stream.runDrain)))
      }
      for (let n = 0; n < EVENTS; n++) {
        yield* bus.publish(Tick, { n })
        if (n % YIELD_EVERY === 0) yield* Effect.yieldNow
      }
      yield* Fiber.joinAll(fibers)
    })
  ).pipe(Instance.provide("/tmp/gatehouse-bench"), Effect.provide(BusLive))

const rate = (ms: number) => Math.round(EVENTS / (ms / 1000))

const rows = []
const rates: Record<string, number> = {}
for (const subscribers of [1, 8]) {
  const plain = median(await timeRuns(RUNS, () => Effect.runPromise(plainPubSub(subscribers))))
  const bus = median(await timeRuns(RUNS, () => Effect.runPromise(throughBus(subscribers))))
  rates[`plain-${subscribers}`] = rate(plain)
  rates[`bus-${subscribers}`] = rate(bus)
  rows.push({
    case: `${subscribers} subscriber${subscribers > 1 ? "s" : ""}`,
    "plain PubSub events/s": rate(plain),
    "Bus events/s": rate(bus),
    "Bus / plain": Math.round((rate(bus) / rate(plain)) * 100) / 100
  })
}
const ratio = rates["bus-1"]! / rates["plain-1"]!
report("core-bus-throughput", rows, {
  events: EVENTS,
  runs: RUNS,
  "target: Bus >= 0.5x plain PubSub with 1 subscriber":
    ratio >= 0.5 ? `met (${ratio.toFixed(2)}x)` : `MISSED (${ratio.toFixed(2)}x)`
})
