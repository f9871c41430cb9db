// SSE delivery: publish -> client latency at 1 000 events/s with 50 clients, the Gatehouse
// server (real stack, Bus -> /event) against a raw `node:http` SSE server writing the same
// events, alternated in one run, each warmed up with the same 50 clients; every client must
// get every event, in order, on both. Goal: p99 < 50 ms. Then the highest rate 50 clients
// sustain on the Gatehouse server without `server.resync`. The clients run in a child
// process (bench/sse-clients.ts) so they do not share the server's core.
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import * as Http from "node:http"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import * as Readline from "node:readline"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Server from "@gatehousejs/server/Server"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import * as DefaultTools from "@gatehousejs/session/DefaultTools"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { compare, median, type Row, reportComparisons, root } from "../../../scripts/bench-kit.ts"

const Tick = BusEvent.define(
  "bench.tick",
  Schema.Struct({ n: Schema.Number, t: Schema.Number, pad: Schema.String })
)
const PAD = "x".repeat(120)
const now = () => performance.timeOrigin + performance.now()
const directory = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-sse-bench-"))

const Stack = Server.layer({ directory }).pipe(
  Layer.provideMerge(
    SessionPrompt.layer({ toolkit: DefaultTools.toolkit }).pipe(
      Layer.provide(DefaultTools.layer),
      Layer.provide(ScriptedModel.layer({ turns: [] })),
      Layer.provideMerge(Layer.mergeAll(SessionProcessor.layer, Checkpoint.layer)),
      Layer.provideMerge(SessionStatus.layer),
      Layer.provideMerge(SessionStore.layerMemory),
      Layer.provide(Truncate.layerWith({ directory: NodePath.join(directory, ".spill") })),
      Layer.provide(NodeServices.layer)
    )
  ),
  Layer.provideMerge(Permission.layerMemory)
)

interface Outcome {
  readonly received: number
  readonly resyncs: number
  readonly ordered: boolean
  readonly p50: number
  readonly p99: number
  readonly max: number
}

/** The clients' process, connected to `url`; `next` reads its next JSON line. */
const openClients = async (url: string, token: string, clients: number) => {
  const child = spawn(
    process.execPath,
    [NodePath.join(import.meta.dirname, "sse-clients.ts"), url, token, String(clients)],
    { stdio: ["pipe", "pipe", "inherit"] }
  )
  const lines = Readline.createInterface({ input: child.stdout })
  const next = <A>() =>
    new Promise<A>((resolve) => lines.once("line", (line) => resolve(JSON.parse(line) as A)))
  await next() // ready: every client connected
  const finish = async (total: number) => {
    const result = next<Outcome>()
    child.stdin.write(`done ${total}\n`)
    const outcome = await result
    child.kill()
    return outcome
  }
  return { finish }
}

const summarize = (
  clients: number,
  rate: number,
  total: number,
  elapsed: number,
  serverCpu: number,
  outcome: Outcome
) => {
  const achieved = Math.round(total / (elapsed / 1000))
  const lossless = outcome.resyncs === 0 && outcome.ordered && outcome.received === total * clients
  return { clients, rate, achieved, total, lossless, serverCpu, ...outcome }
}
type Scenario = ReturnType<typeof summarize>

const scenario = (clients: number, rate: number, seconds: number) =>
  Effect.gen(function* () {
    const server = yield* Server.Service
    const bus = yield* Bus.Service
    const { finish } = yield* Effect.promise(() => openClients(server.url, server.token, clients))
    const total = rate * seconds
    const cpu = process.cpuUsage()
    const start = now()
    let sent = 0
    while (sent < total) {
      const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate) + 1)
      while (sent < due) {
        yield* bus.publish(Tick, { n: sent, t: now(), pad: PAD })
        sent++
      }
      yield* Effect.sleep("1 millis")
    }
    const elapsed = now() - start
    const used = process.cpuUsage(cpu)
    const serverCpu = Math.round(((used.user + used.system) / 1000 / elapsed) * 100)
    const outcome = yield* Effect.promise(() => finish(total))
    return summarize(clients, rate, total, elapsed, serverCpu, outcome)
  }).pipe(Instance.provide(directory))

// The same events on the same wire format from a bare node:http server: one JSON encoding per
// event, written to every open response.
const rawServer = async () => {
  const responses = new Set<Http.ServerResponse>()
  let id = 0
  const server = Http.createServer((request, response) => {
    if (request.url !== "/event") return void response.writeHead(404).end()
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    response.write(
      `id: ${++id}\ndata: ${JSON.stringify({ id, type: "server.connected", properties: {} })}\n\n`
    )
    responses.add(response)
    request.on("close", () => responses.delete(response))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  const publish = (properties: { n: number; t: number; pad: string }) => {
    id++
    const frame = `id: ${id}\ndata: ${JSON.stringify({ id, type: "bench.tick", properties })}\n\n`
    for (const response of responses) response.write(frame)
  }
  const close = () =>
    new Promise<void>((resolve) => {
      for (const response of responses) response.end()
      server.close(() => resolve())
    })
  return { url: `http://127.0.0.1:${port}`, publish, close }
}

const rawScenario = async (clients: number, rate: number, seconds: number): Promise<Scenario> => {
  const server = await rawServer()
  try {
    const { finish } = await openClients(server.url, "raw", clients)
    const total = rate * seconds
    const cpu = process.cpuUsage()
    const start = now()
    let sent = 0
    while (sent < total) {
      const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate) + 1)
      while (sent < due) {
        server.publish({ n: sent, t: now(), pad: PAD })
        sent++
      }
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    const elapsed = now() - start
    const used = process.cpuUsage(cpu)
    const serverCpu = Math.round(((used.user + used.system) / 1000 / elapsed) * 100)
    return summarize(clients, rate, total, elapsed, serverCpu, await finish(total))
  } finally {
    await server.close()
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100

const runtime = ManagedRuntime.make(Stack)
const CLIENTS = 50
const row = (name: string, result: Scenario): Row => ({
  case: name,
  "published/s": result.achieved,
  "server process CPU %": result.serverCpu,
  "delivered (all clients)": result.received,
  resyncs: result.resyncs,
  "p50 ms": round(result.p50),
  "p99 ms": round(result.p99),
  "max ms": round(result.max)
})

try {
  const latency = await compare<Scenario>({
    case: `${CLIENTS} clients @ 1000 events/s for 3 s`,
    subject: { name: "Gatehouse /event", run: () => runtime.runPromise(scenario(CLIENTS, 1000, 3)) },
    baseline: { name: "raw node:http SSE", run: () => rawScenario(CLIENTS, 1000, 3) },
    rounds: 5,
    warmup: 1,
    same: (result) => ({ received: result.received, lossless: result.lossless }),
    goals: [
      {
        text: "p99 publish -> client < 50 ms",
        judge: "subject",
        atMost: 50,
        unit: "ms",
        metric: (run) => run.result.p99
      }
    ]
  })
  const rows: Array<Row> = [
    row("Gatehouse, last round", latency.subject.at(-1)!.result),
    row("raw node:http, last round", latency.baseline.at(-1)!.result)
  ]
  let sustained = 0
  for (const rate of [2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000]) {
    const result = await runtime.runPromise(scenario(CLIENTS, rate, 3))
    rows.push(row(`Gatehouse, ${CLIENTS} clients @ ${rate}/s`, result))
    if (!(result.lossless && result.achieved >= rate * 0.9)) break
    sustained = result.achieved
  }
  const coreFile = NodePath.join(root, "bench-results", "core-bus-throughput.json")
  const core = existsSync(coreFile)
    ? (JSON.parse(readFileSync(coreFile, "utf8")).rows as Array<Record<string, number>>)[0]?.[
        "subject median ms"
      ]
    : undefined
  reportComparisons("server-sse", [latency], {
    rows,
    summary: {
      "p99 Gatehouse / raw node:http, median of the rounds": round(
        median(
          latency.subject.map((run, i) => run.result.p99 / Math.max(latency.baseline[i]!.result.p99, 0.01))
        )
      ),
      "highest rate 50 clients sustain without server.resync (events/s)": sustained,
      "in-process Bus, 200 000 events to 1 subscriber (core bench, median ms)":
        core ?? "run `pnpm bench core` first"
    }
  })
} finally {
  await runtime.dispose()
}
process.exit(0)
