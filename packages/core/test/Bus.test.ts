import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

const Ping = BusEvent.define("test.ping", Schema.Struct({ n: Schema.Number }))
const Pong = BusEvent.define("test.pong", Schema.Struct({ text: Schema.String }))

const BusLive = Bus.layer.pipe(Layer.provideMerge(Instance.layer))
const inA = Instance.provide("/tmp/bus-a")
const inB = Instance.provide("/tmp/bus-b")

describe("Bus", () => {
  it.effect("delivers an event published right after subscribe returns", () =>
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const stream = yield* bus.subscribe(Ping)
      yield* bus.publish(Ping, { n: 1 })
      const [first] = yield* stream.pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(first, { id: 1, type: "test.ping", properties: { n: 1 } })
    }).pipe(inA, Effect.scoped, Effect.provide(BusLive))
  )

  it.effect("delivers in publish order with consecutive ids, filtered by type", () =>
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const pings = yield* bus.subscribe(Ping)
      const all = yield* bus.subscribeAll()
      for (let n = 0; n < 50; n++) {
        yield* bus.publish(Ping, { n })
        yield* bus.publish(Pong, { text: `t${n}` })
      }
      const gotPings = yield* pings.pipe(Stream.take(50), Stream.runCollect)
      assert.deepStrictEqual(
        gotPings.map((e) => e.properties.n),
        Array.from({ length: 50 }, (_, n) => n)
      )
      const gotAll = yield* all.pipe(Stream.take(100), Stream.runCollect)
      assert.deepStrictEqual(
        gotAll.map((e) => e.id),
        Array.from({ length: 100 }, (_, i) => i + 1)
      )
    }).pipe(inA, Effect.scoped, Effect.provide(BusLive))
  )

  it.effect("a never-read subscriber blocks neither the publisher nor another subscriber", () =>
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const stalled = yield* bus.subscribeAll()
      const reader = yield* bus.subscribe(Ping)
      const total = 100_000
      const received = yield* reader.pipe(
        Stream.take(total),
        Stream.runFold(
          () => ({ count: 0, ordered: true, last: 0 }),
          (acc, e) => ({
            count: acc.count + 1,
            ordered: acc.ordered && e.properties.n === acc.last + 1,
            last: e.properties.n
          })
        ),
        Effect.forkChild
      )
      for (let n = 1; n <= total; n++) {
        yield* bus.publish(Ping, { n })
        // Let the live reader run now and then, as a real consumer would.
        if (n % 1000 === 0) yield* Effect.yieldNow
      }
      const result = yield* Fiber.join(received)
      assert.deepStrictEqual(result, { count: total, ordered: true, last: total })
      // The stalled subscriber kept only the newest `capacity` events (sliding policy).
      const kept = yield* stalled.pipe(Stream.take(Bus.DEFAULT_CAPACITY), Stream.runCollect)
      assert.strictEqual(kept[0]!.id, total - Bus.DEFAULT_CAPACITY + 1)
      assert.strictEqual(kept[kept.length - 1]!.id, total)
    }).pipe(inA, Effect.scoped, Effect.provide(BusLive))
  )

  it.effect("each directory has its own bus and its own ids", () =>
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const inBoth = yield* Effect.all([bus.subscribeAll().pipe(inA), bus.subscribeAll().pipe(inB)])
      yield* bus.publish(Pong, { text: "for a" }).pipe(inA)
      yield* bus.publish(Pong, { text: "for b" }).pipe(inB)
      yield* bus.publish(Pong, { text: "again a" }).pipe(inA)
      const a = yield* inBoth[0].pipe(Stream.take(2), Stream.runCollect)
      const b = yield* inBoth[1].pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(
        a.map((e) => [e.id, (e.properties as { text: string }).text]),
        [
          [1, "for a"],
          [2, "again a"]
        ]
      )
      assert.deepStrictEqual(
        b.map((e) => [e.id, (e.properties as { text: string }).text]),
        [[1, "for b"]]
      )
    }).pipe(Effect.scoped, Effect.provide(BusLive))
  )

  it.effect("disposal delivers server.instance.disposed last, then ends the streams", () =>
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const all = yield* bus.subscribeAll().pipe(inA)
      const pings = yield* bus.subscribe(Ping).pipe(inA)
      const other = yield* bus.subscribeAll().pipe(inB)
      yield* bus.publish(Ping, { n: 7 }).pipe(inA)
      yield* Instance.dispose("/tmp/bus-a")
      const events = yield* Stream.runCollect(all)
      assert.deepStrictEqual(
        events.map((e) => e.type),
        ["test.ping", "server.instance.disposed"]
      )
      assert.deepStrictEqual(events[1]!.properties, { directory: "/tmp/bus-a" })
      const onlyPings = yield* Stream.runCollect(pings)
      assert.deepStrictEqual(
        onlyPings.map((e) => e.properties.n),
        [7]
      )
      // The other directory's bus still works.
      yield* bus.publish(Ping, { n: 8 }).pipe(inB)
      const fromB = yield* other.pipe(Stream.take(1), Stream.runCollect)
      assert.strictEqual(fromB[0]!.type, "test.ping")
    }).pipe(Effect.scoped, Effect.provide(BusLive))
  )

  it.effect("ids keep counting after an instance is disposed and reopened", () =>
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      yield* bus.publish(Ping, { n: 1 }).pipe(inA)
      yield* bus.publish(Ping, { n: 2 }).pipe(inA)
      yield* Instance.dispose("/tmp/bus-a")
      const fresh = yield* bus.subscribeAll().pipe(inA)
      yield* bus.publish(Ping, { n: 3 }).pipe(inA)
      const [event] = yield* fresh.pipe(Stream.take(1), Stream.runCollect)
      // 1 and 2 were the pings, 3 the disposal notice: a resuming client can never be
      // handed a different event under an id it already saw.
      assert.strictEqual(event!.id, 4)
    }).pipe(Effect.scoped, Effect.provide(BusLive))
  )

  it.effect("envelopes decode with the definition's schema", () =>
    Effect.gen(function* () {
      const decoded = yield* Schema.decodeUnknownEffect(BusEvent.envelopeSchema(Ping))({
        id: 3,
        type: "test.ping",
        properties: { n: 2 }
      })
      assert.deepStrictEqual(decoded, { id: 3, type: "test.ping", properties: { n: 2 } })
      const bad = yield* Schema.decodeUnknownEffect(BusEvent.envelopeSchema(Ping))({
        id: 3,
        type: "test.ping",
        properties: { n: "two" }
      }).pipe(Effect.flip)
      assert.include(String(bad), "n")
    })
  )
})
