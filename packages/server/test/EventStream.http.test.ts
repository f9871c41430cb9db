import * as Net from "node:net"
import * as V8 from "node:v8"
import * as Vm from "node:vm"
import { assert, layer } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as EventStream from "@gatehousejs/server/EventStream"
import * as Server from "@gatehousejs/server/Server"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SseClient, stack, tempProject } from "./harness.ts"
import type { SseFrame } from "./sse.ts"

const TOKEN = "test-token"
const directory = tempProject()
const Tick = BusEvent.define(
  "test.tick",
  Schema.Struct({ n: Schema.Number, pad: Schema.optional(Schema.String) })
)

V8.setFlagsFromString("--expose-gc")
const gc: () => void = Vm.runInNewContext("gc")

const publish = (n: number, pad?: string) =>
  Bus.publish(Tick, pad === undefined ? { n } : { n, pad }).pipe(Instance.provide(directory))

/** Lets the event loop run (socket writes, reads of the clients in this process). */
const tick = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

const open = (headers: Record<string, string> = {}, options?: ConstructorParameters<typeof SseClient>[0]) =>
  Effect.flatMap(Server.Service, (server) =>
    Effect.promise(() => SseClient.open(server.url, TOKEN, headers, options))
  )

const ticks = (frames: ReadonlyArray<SseFrame>) => frames.filter((frame) => frame.type === "test.tick")

layer(stack({ directory, token: TOKEN, events: { replayEvents: 100, maxClients: 200 } }), {
  excludeTestServices: true
})("EventStream over HTTP", (it) => {
  it.effect("server.connected first, then every event in order, id: = envelope id, no-cache headers", () =>
    Effect.gen(function* () {
      const client = yield* open()
      yield* Effect.promise(() => client.until((p) => p.count >= 1))
      assert.strictEqual(client.response!.headers["content-type"], "text/event-stream")
      assert.strictEqual(client.response!.headers["cache-control"], "no-cache, no-transform")
      assert.strictEqual(client.response!.headers["x-accel-buffering"], "no")
      for (let n = 1; n <= 50; n++) yield* publish(n)
      const frames = yield* Effect.promise(() => client.until((p) => ticks(p.frames).length >= 50))
      assert.strictEqual(frames[0]!.type, "server.connected")
      const received = ticks(frames)
      assert.deepStrictEqual(
        received.map((f) => f.properties.n),
        Array.from({ length: 50 }, (_, i) => i + 1)
      )
      const ids = received.map((f) => Number(f.id))
      for (const [i, frame] of received.entries()) assert.strictEqual(ids[i], frame.envelopeId)
      for (let i = 1; i < ids.length; i++) assert.strictEqual(ids[i], ids[i - 1]! + 1)
      client.close()
    })
  )

  it.effect("Last-Event-ID resumes from the replay buffer; beyond it, server.resync", () =>
    Effect.gen(function* () {
      const events = yield* EventStream.Service
      const first = yield* open()
      for (let n = 1; n <= 30; n++) yield* publish(n)
      const seen = yield* Effect.promise(() => first.until((p) => ticks(p.frames).length >= 30))
      const tenth = ticks(seen)[9]!
      first.close()
      for (let n = 31; n <= 40; n++) yield* publish(n)
      while ((yield* events.stats).lastEventId < Number(ticks(seen).at(-1)!.id) + 10) yield* tick

      const resumed = yield* open({ "last-event-id": tenth.rawId! })
      const replayed = yield* Effect.promise(() => resumed.until((p) => ticks(p.frames).length >= 30))
      assert.strictEqual(replayed[0]!.type, "server.connected")
      assert.deepStrictEqual(
        ticks(replayed).map((f) => f.properties.n),
        Array.from({ length: 30 }, (_, i) => i + 11)
      )
      assert.isFalse(replayed.some((f) => f.type === "server.resync"))
      resumed.close()

      // 150 more events: the buffer (100) no longer reaches back to the tenth.
      for (let n = 41; n <= 190; n++) yield* publish(n)
      const latest = (yield* events.stats).lastEventId
      while ((yield* events.stats).lastEventId < latest) yield* tick
      const late = yield* open({ "last-event-id": tenth.rawId! })
      const frames = yield* Effect.promise(() => late.until((p) => p.count >= 2))
      assert.strictEqual(frames[1]!.type, "server.resync")
      assert.strictEqual(frames[1]!.properties.reason, "replay-gap")
      assert.strictEqual(frames[1]!.id, String((yield* events.stats).lastEventId))
      late.close()
    })
  )

  it.effect("a client that never reads does not grow the server while 100 000 events pass", () =>
    Effect.gen(function* () {
      const server = yield* Server.Service
      const events = yield* EventStream.Service
      // A raw socket that sends the request and then reads nothing.
      const socket = Net.connect(server.port, "127.0.0.1")
      socket.pause()
      socket.write(
        `GET /event HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`
      )
      while ((yield* events.stats).clients === 0) yield* tick

      const pad = "x".repeat(1000)
      for (let n = 0; n < 5_000; n++) yield* publish(n, pad)
      yield* tick
      gc()
      const memory = () => {
        const usage = process.memoryUsage()
        return usage.heapUsed + usage.arrayBuffers
      }
      const baseline = memory()
      let peak = baseline
      let peakQueued = 0
      const total = 100_000
      for (let n = 0; n < total; n++) {
        yield* publish(n, pad)
        if (n % 1000 === 999) {
          yield* tick
          peakQueued = Math.max(peakQueued, (yield* events.stats).queuedBytes)
        }
        if (n % 10_000 === 9_999) {
          gc()
          peak = Math.max(peak, memory())
        }
      }
      const grown = (peak - baseline) / 1024 / 1024
      // 100 000 events of 1 KiB (~100 MiB) went past; the server holds at most one
      // client queue (8 MiB) plus the replay buffer.
      assert.isBelow(grown, 24, `server memory grew by ${grown.toFixed(1)} MiB`)
      assert.isAtMost(peakQueued, 8 * 1024 * 1024)

      // When it finally reads, it is told to resync rather than handed a silent gap.
      let text = ""
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString("latin1")
      })
      socket.resume()
      yield* publish(-1)
      const deadline = Date.now() + 10_000
      while (
        !(text.includes('"reason":"client-overflow"') && text.includes('"n":-1')) &&
        Date.now() < deadline
      ) {
        yield* Effect.sleep("10 millis")
      }
      assert.include(text, '"type":"server.resync"')
      assert.include(text, '"reason":"client-overflow"')
      assert.include(text, '"n":-1')
      socket.destroy()
    })
  )

  it.effect(
    "100 concurrent clients all receive 10 000 events in order",
    () =>
      Effect.gen(function* () {
        const clients: Array<{ client: SseClient; next: number; ordered: boolean; resync: boolean }> = []
        for (let i = 0; i < 100; i++) {
          const state = { client: undefined as unknown as SseClient, next: 0, ordered: true, resync: false }
          state.client = yield* open(
            {},
            {
              keep: false,
              onFrame: (frame) => {
                if (frame.type === "server.resync") state.resync = true
                if (frame.type !== "test.tick") return
                if (frame.properties.n !== state.next || Number(frame.id) !== frame.envelopeId)
                  state.ordered = false
                state.next++
              }
            }
          )
          clients.push(state)
        }
        yield* Effect.promise(() => Promise.all(clients.map((s) => s.client.until((p) => p.count >= 1))))
        const total = 10_000
        for (let n = 0; n < total; n++) {
          yield* publish(n)
          // Flow control for the test: stay well inside each client's queue bound.
          if (n % 500 === 499) {
            while (Math.min(...clients.map((s) => s.next)) < n - 2000) yield* tick
          }
        }
        yield* Effect.promise(() =>
          Promise.all(clients.map((s) => s.client.until(() => s.next >= total, 30_000)))
        )
        for (const state of clients) {
          assert.strictEqual(state.next, total)
          assert.isTrue(state.ordered)
          assert.isFalse(state.resync)
          state.client.close()
        }
      }),
    60_000
  )

  // Last: disposes the instance the layer serves.
  it.effect("server.instance.disposed ends the stream", () =>
    Effect.gen(function* () {
      const client = yield* open()
      yield* Effect.promise(() => client.until((p) => p.count >= 1))
      yield* Instance.dispose(directory)
      const frames = yield* Effect.promise(() => client.until(() => client.ended))
      assert.strictEqual(frames.at(-1)!.type, "server.instance.disposed")
      assert.isTrue(client.ended)
    })
  )
})
