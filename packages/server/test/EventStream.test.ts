import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as EventStream from "@gatehousejs/server/EventStream"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { SseParser } from "./sse.ts"

const Tick = BusEvent.define("test.tick", Schema.Struct({ n: Schema.Number }))
const DIR = "/tmp/gatehouse-eventstream-test"

const setup = (options: EventStream.Options = {}, busCapacity = Bus.DEFAULT_CAPACITY) =>
  EventStream.layerWith(options).pipe(
    Layer.provideMerge(Bus.layerWith({ capacity: busCapacity })),
    Layer.provideMerge(Instance.layer),
    Layer.provideMerge(Layer.succeed(Instance.Current, Instance.info(DIR)))
  )

/** Opens a client and returns a reader that pulls until it has `n` frames (or the end). */
/** Connects; a `lastEventId` of digits only is an event id of this run (sent as `<run>-<id>`). */
const open = (lastEventId?: string, options: { readonly raw?: boolean } = {}) =>
  Effect.gen(function* () {
    const events = yield* EventStream.Service
    const { run } = yield* events.stats
    const sent =
      lastEventId !== undefined && options.raw !== true && /^\d+$/.test(lastEventId)
        ? `${run}-${lastEventId}`
        : lastEventId
    const pull = yield* Stream.toPull(events.connect({ lastEventId: sent }))
    const parser = new SseParser()
    let ended = false
    /** Pulls until there are `n` frames, or one with SSE id `id`, or the end. */
    const until = (n: number, id?: string) =>
      Effect.gen(function* () {
        const done = () =>
          id === undefined ? parser.frames.length >= n : parser.frames.some((frame) => frame.id === id)
        while (!done() && !ended) {
          const chunks = yield* pull.pipe(
            Effect.catchIf(Cause.isDone, () =>
              Effect.sync(() => {
                ended = true
                return [] as Array<Uint8Array>
              })
            )
          )
          for (const chunk of chunks) parser.push(chunk)
        }
        return parser.frames
      })
    return { parser, until, ended: () => ended }
  })

/** Waits until the stream has dispatched the event with id `id`. */
const settle = (id: number) =>
  Effect.gen(function* () {
    const events = yield* EventStream.Service
    while ((yield* events.stats).lastEventId < id) yield* Effect.yieldNow
  })

const publish = (from: number, to: number) =>
  Effect.gen(function* () {
    const bus = yield* Bus.Service
    for (let n = from; n <= to; n++) yield* bus.publish(Tick, { n })
  })

describe("EventStream", () => {
  it.effect("server.connected first, then bus events in order with id = envelope id", () =>
    Effect.gen(function* () {
      const client = yield* open()
      yield* client.until(1)
      yield* publish(1, 20)
      const frames = yield* client.until(21)
      assert.strictEqual(frames[0]!.type, "server.connected")
      assert.strictEqual(frames[0]!.id, undefined)
      const ticks = frames.slice(1)
      assert.deepStrictEqual(
        ticks.map((f) => f.properties.n),
        Array.from({ length: 20 }, (_, i) => i + 1)
      )
      for (const frame of ticks) {
        assert.strictEqual(frame.type, "test.tick")
        assert.strictEqual(frame.id, String(frame.envelopeId))
      }
      assert.deepStrictEqual(
        ticks.map((f) => f.envelopeId),
        Array.from({ length: 20 }, (_, i) => i + 1)
      )
    }).pipe(Effect.scoped, Effect.provide(setup()))
  )

  it.effect("Last-Event-ID replays the missed events from the buffer, then goes live", () =>
    Effect.gen(function* () {
      yield* publish(1, 10)
      yield* settle(10)
      const client = yield* open("6")
      const replayed = yield* client.until(5)
      assert.deepStrictEqual(
        replayed.map((f) => f.type),
        ["server.connected", "test.tick", "test.tick", "test.tick", "test.tick"]
      )
      assert.deepStrictEqual(
        replayed.slice(1).map((f) => f.id),
        ["7", "8", "9", "10"]
      )
      yield* publish(11, 11)
      const frames = yield* client.until(6)
      assert.strictEqual(frames[5]!.id, "11")
    }).pipe(Effect.scoped, Effect.provide(setup()))
  )

  it.effect("a shared run (Options.run) prefixes every id, and a resume with it replays", () =>
    Effect.gen(function* () {
      yield* publish(1, 4)
      yield* settle(4)
      assert.strictEqual((yield* (yield* EventStream.Service).stats).run, "group7")
      const client = yield* open("group7-2", { raw: true })
      const frames = yield* client.until(3)
      assert.deepStrictEqual(
        frames.slice(1).map((f) => [f.rawId, f.id]),
        [
          ["group7-3", "3"],
          ["group7-4", "4"]
        ]
      )
    }).pipe(Effect.scoped, Effect.provide(setup({ run: "group7" })))
  )

  it.effect("a Last-Event-ID older than the buffer gets server.resync instead of a silent gap", () =>
    Effect.gen(function* () {
      yield* publish(1, 20)
      yield* settle(20)
      const client = yield* open("3")
      const frames = yield* client.until(2)
      assert.strictEqual(frames[1]!.type, "server.resync")
      assert.strictEqual(frames[1]!.properties.reason, "replay-gap")
      // The resync's id is the newest event the refetched state covers.
      assert.strictEqual(frames[1]!.id, "20")
      yield* publish(21, 21)
      assert.strictEqual((yield* client.until(3))[2]!.id, "21")
      // Within the buffer, replay still works.
      const inside = yield* open("17")
      const replayed = yield* inside.until(5)
      assert.deepStrictEqual(
        replayed.slice(1).map((f) => f.id),
        ["18", "19", "20", "21"]
      )
    }).pipe(Effect.scoped, Effect.provide(setup({ replayEvents: 5 })))
  )

  it.effect("an id this server never issued gets server.resync (unknown-id)", () =>
    Effect.gen(function* () {
      yield* publish(1, 3)
      yield* settle(3)
      for (const id of ["999", "abc"]) {
        const client = yield* open(id)
        const frames = yield* client.until(2)
        assert.strictEqual(frames[1]!.type, "server.resync")
        assert.strictEqual(frames[1]!.properties.reason, "unknown-id")
      }
      // An id of an event this run has, but from another run (before a restart), or
      // without a run at all: never taken for this run's event 2.
      const { run } = yield* EventStream.Service.use((events) => events.stats)
      for (const id of ["0123456789ab-2", "2"]) {
        assert.notStrictEqual(id.split("-")[0], run)
        const client = yield* open(id, { raw: true })
        const frames = yield* client.until(2)
        assert.strictEqual(frames[1]!.type, "server.resync")
        assert.strictEqual(frames[1]!.properties.reason, "unknown-id")
        assert.strictEqual(frames[1]!.rawId, `${run}-3`)
      }
      // Caught up exactly: nothing to replay, no resync.
      const current = yield* open("3")
      yield* current.until(1)
      yield* publish(4, 4)
      const frames = yield* current.until(2)
      assert.strictEqual(frames[1]!.id, "4")
    }).pipe(Effect.scoped, Effect.provide(setup()))
  )

  it.effect("sends server.heartbeat every 10 s", () =>
    Effect.gen(function* () {
      const client = yield* open()
      yield* client.until(1)
      yield* TestClock.adjust("9 seconds")
      yield* publish(1, 1)
      assert.strictEqual((yield* client.until(2))[1]!.type, "test.tick")
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* client.until(3))[2]!.type, "server.heartbeat")
      yield* TestClock.adjust("10 seconds")
      const frames = yield* client.until(4)
      assert.strictEqual(frames[3]!.type, "server.heartbeat")
      assert.strictEqual(frames[3]!.id, undefined)
    }).pipe(Effect.scoped, Effect.provide(setup()))
  )

  it.effect("a client that stops reading gets server.resync and its backlog dropped", () =>
    Effect.gen(function* () {
      const events = yield* EventStream.Service
      const client = yield* open()
      yield* client.until(1)
      // The client reads nothing while 500 events pass a queue of 10.
      yield* publish(1, 500)
      yield* settle(500)
      const stats = yield* events.stats
      assert.isAtMost(stats.queuedBytes, 10 * 200)
      const frames = yield* client.until(2)
      const resync = frames[1]!
      assert.strictEqual(resync.type, "server.resync")
      assert.strictEqual(resync.properties.reason, "client-overflow")
      // What follows the resync continues right after the id it covers, up to the newest.
      const after = frames.slice(2)
      const ids = after.map((f) => Number(f.id))
      assert.deepStrictEqual(
        ids,
        Array.from({ length: ids.length }, (_, i) => Number(resync.id) + 1 + i)
      )
      assert.strictEqual(ids.length === 0 ? Number(resync.id) : ids.at(-1), 500)
      // A reader that keeps up is not affected.
      yield* publish(501, 505)
      const more = yield* client.until(frames.length + 5)
      assert.deepStrictEqual(
        more.slice(-5).map((f) => f.id),
        ["501", "502", "503", "504", "505"]
      )
    }).pipe(Effect.scoped, Effect.provide(setup({ clientQueueEvents: 10 })))
  )

  it.effect("events the bus dropped for the server become server.resync (bus-overflow)", () =>
    Effect.gen(function* () {
      const client = yield* open()
      yield* client.until(1)
      yield* publish(1, 1)
      yield* client.until(2)
      // Without yielding, the publisher outruns the server's bus subscription (capacity 8).
      yield* publish(2, 100)
      const frames = yield* client.until(3)
      const resync = frames.find((f) => f.type === "server.resync")
      assert.isDefined(resync)
      assert.strictEqual(resync!.properties.reason, "bus-overflow")
      const last = yield* client.until(0, "100")
      assert.strictEqual(last.at(-1)!.id, "100")
      // Across the resync, ids still only go up.
      const ids = last.filter((f) => f.id !== undefined).map((f) => Number(f.id))
      assert.deepStrictEqual(
        ids,
        [...ids].sort((a, b) => a - b)
      )
    }).pipe(Effect.scoped, Effect.provide(setup({}, 8)))
  )

  it.effect("server.instance.disposed ends the stream; the next client follows the new bus", () =>
    Effect.gen(function* () {
      const events = yield* EventStream.Service
      const client = yield* open()
      yield* publish(1, 2)
      yield* client.until(3)
      yield* Instance.dispose(DIR)
      const frames = yield* client.until(100)
      assert.isTrue(client.ended())
      assert.strictEqual(frames.at(-1)!.type, "server.instance.disposed")
      assert.strictEqual(frames.at(-1)!.id, "3")
      assert.strictEqual((yield* events.stats).clients, 0)
      const next = yield* open()
      yield* next.until(1)
      yield* publish(1, 1)
      const again = yield* next.until(2)
      // Ids keep counting across the disposal, so an old Last-Event-ID never names a new event.
      assert.strictEqual(again[1]!.id, "4")
    }).pipe(Effect.scoped, Effect.provide(setup()))
  )

  it.effect("a client is removed when its stream is interrupted", () =>
    Effect.gen(function* () {
      const events = yield* EventStream.Service
      yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* open()
          yield* client.until(1)
          assert.strictEqual((yield* events.stats).clients, 1)
        })
      )
      assert.strictEqual((yield* events.stats).clients, 0)
    }).pipe(Effect.scoped, Effect.provide(setup()))
  )
})
