// Event latency from `publish` on server A to the SSE clients, at 1 000 events/s with 50
// clients: over a group of two servers sharing a real redis-server (25 clients on A, 25 on
// B), against one process (50 clients on its own bus). Both sides build the same event
// streams (EventStream, as `gatehouse serve` does) and their clients parse every frame; the
// latency is taken from a timestamp in the event to the moment a client parsed it. Both
// sides must deliver every event to every client (the results are checked equal). The two
// group members run in this one process (each with its own Redis connections, bus, reader and
// event stream), so one clock times them; the HTTP socket between a stream and a browser is
// left out on both sides.
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as RedisStack from "@gatehousejs/redis/RedisStack"
import * as EventStream from "@gatehousejs/server/EventStream"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { compare, percentile, reportComparisons } from "../../../scripts/bench-kit.ts"
import { project, startRedis } from "../test/processes.ts"

const RATE = 1000
const EVENTS = 2000
const CLIENTS = 50
const Tick = BusEvent.define(
  "bench.tick",
  Schema.Struct({ round: Schema.Number, n: Schema.Number, t: Schema.Number })
)

interface Client {
  round: number
  received: number
  readonly latencies: Array<number>
}

type Server = Context.Context<Bus.Service | EventStream.Service | Instance.Current>

const scope = Effect.runSync(Scope.make())
const build = <E>(layer: Layer.Layer<Bus.Service | EventStream.Service | Instance.Current, E>) =>
  Effect.runPromise(Layer.buildWithScope(layer, scope)) as Promise<Server>

const serverLayer = <E>(
  directory: string,
  base: Layer.Layer<Bus.Service | Instance.Registry, E>,
  run?: string
) =>
  EventStream.layerWith({ maxClients: 64, ...(run === undefined ? {} : { run }) }).pipe(
    Layer.provideMerge(base),
    Layer.provideMerge(Layer.succeed(Instance.Current, Instance.info(directory)))
  )

// A client reads its byte stream as a browser would: frames split on blank lines, JSON parsed.
const connect = (server: Server, clients: Array<Client>) => {
  const client: Client = { round: -1, received: 0, latencies: [] }
  clients.push(client)
  const decoder = new TextDecoder()
  let text = ""
  const onChunk = (chunk: Uint8Array) =>
    Effect.sync(() => {
      text += decoder.decode(chunk, { stream: true })
      let end = text.indexOf("\n\n")
      while (end !== -1) {
        const frame = text.slice(0, end)
        text = text.slice(end + 2)
        const data = frame.slice(frame.indexOf("data: ") + 6)
        const event = JSON.parse(data) as { type: string; properties: { round: number; t: number } }
        if (event.type === Tick.type && event.properties.round === client.round) {
          client.latencies.push(performance.now() - event.properties.t)
          client.received++
        }
        end = text.indexOf("\n\n")
      }
    })
  Effect.runFork(
    Effect.flatMap(EventStream.Service, (events) => Stream.runForEach(events.connect(), onChunk)).pipe(
      Effect.provideContext(server)
    )
  )
}

let round = 0
const measure = async (publisher: Server, clients: Array<Client>) => {
  const current = round++
  for (const client of clients) {
    client.round = current
    client.received = 0
    client.latencies.length = 0
  }
  await Effect.runPromise(
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const start = performance.now()
      for (let n = 0; n < EVENTS; n++) {
        const due = start + (n * 1000) / RATE - performance.now()
        if (due > 0) yield* Effect.sleep(due)
        yield* bus.publish(Tick, { round: current, n, t: performance.now() })
      }
      const deadline = performance.now() + 30_000
      while (clients.some((client) => client.received < EVENTS) && performance.now() < deadline) {
        yield* Effect.sleep(5)
      }
    }).pipe(Effect.provideContext(publisher))
  )
  const all = clients.flatMap((client) => client.latencies).sort((a, b) => a - b)
  return { delivered: all.length, p50: percentile(all, 50), p99: percentile(all, 99) }
}

const redis = await startRedis()
try {
  const dir = project([])
  const run = RedisStack.run(dir)
  const member = () =>
    build(serverLayer(dir, RedisStack.layer({ url: redis.url, heartbeatInterval: "1 second" }), run))
  const [a, b] = [await member(), await member()]
  const single = await build(serverLayer(dir, Bus.layer.pipe(Layer.provideMerge(Instance.layer))))
  const groupClients: Array<Client> = []
  const singleClients: Array<Client> = []
  for (let i = 0; i < CLIENTS; i++) {
    connect(i % 2 === 0 ? a : b, groupClients)
    connect(single, singleClients)
  }
  await new Promise((resolve) => setTimeout(resolve, 500))

  const comparison = await compare({
    case: `${RATE} events/s, ${CLIENTS} SSE clients`,
    subject: {
      name: "two servers over Redis (publish on A, clients on A and B)",
      run: () => measure(a, groupClients)
    },
    baseline: { name: "one process", run: () => measure(single, singleClients) },
    same: (result) => result.delivered,
    rounds: 5,
    warmup: 1,
    goals: [
      { text: "group p50 latency", judge: "subject", unit: "ms", atMost: 10, metric: (r) => r.result.p50 },
      { text: "group p99 latency", judge: "subject", unit: "ms", atMost: 50, metric: (r) => r.result.p99 },
      { text: "group p99 / one process p99", judge: "cost", atMost: 20, metric: (r) => r.result.p99 }
    ]
  })
  const side = (runs: typeof comparison.subject) => ({
    p50: runs.map((r) => Math.round(r.result.p50 * 100) / 100),
    p99: runs.map((r) => Math.round(r.result.p99 * 100) / 100)
  })
  reportComparisons("redis-latency", [comparison], {
    summary: {
      group: side(comparison.subject),
      single: side(comparison.baseline),
      events: EVENTS,
      clients: CLIENTS
    }
  })
} finally {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await redis.remove()
}
process.exit(0)
