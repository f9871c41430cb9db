// SSE delivery: publish -> client latency (p50, p99) at 1 000 events/s with 1 and with 50
// clients, and the highest rate 50 clients sustain without `server.resync` (every event
// delivered, in order). The server runs here with the real stack; the clients run in a
// child process (bench/sse-clients.ts) so they do not share the server's core.
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
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
import * as Schema from "effect/Schema"
import { report, root } from "../../../scripts/bench-kit.ts"

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

const scenario = (clients: number, rate: number, seconds: number) =>
  Effect.gen(function* () {
    const server = yield* Server.Service
    const bus = yield* Bus.Service
    const child = spawn(
      process.execPath,
      [NodePath.join(import.meta.dirname, "sse-clients.ts"), server.url, server.token, String(clients)],
      { stdio: ["pipe", "pipe", "inherit"] }
    )
    const lines = Readline.createInterface({ input: child.stdout })
    const next = <A>() =>
      new Promise<A>((resolve) => lines.once("line", (line) => resolve(JSON.parse(line) as A)))
    yield* Effect.promise(next) // ready: every client connected

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
    const achieved = Math.round(total / (elapsed / 1000))
    const used = process.cpuUsage(cpu)
    const serverCpu = Math.round(((used.user + used.system) / 1000 / elapsed) * 100)
    const result = next<Outcome>()
    child.stdin.write(`done ${total}\n`)
    const outcome = yield* Effect.promise(() => result)
    child.kill()
    const lossless = outcome.resyncs === 0 && outcome.ordered && outcome.received === total * clients
    return { clients, rate, achieved, total, lossless, serverCpu, ...outcome }
  }).pipe(Instance.provide(directory))

const round = (ms: number) => Math.round(ms * 100) / 100

const program = Effect.gen(function* () {
  yield* scenario(1, 1000, 1) // warm-up
  const rows = []
  const latency = []
  for (const clients of [1, 50]) {
    const result = yield* scenario(clients, 1000, 5)
    latency.push(result)
    rows.push({
      case: `${clients} client${clients > 1 ? "s" : ""} @ 1000/s`,
      "published/s": result.achieved,
      "server process CPU %": result.serverCpu,
      "delivered (all clients)": result.received,
      resyncs: result.resyncs,
      "p50 ms": round(result.p50),
      "p99 ms": round(result.p99),
      "max ms": round(result.max)
    })
  }
  let sustained = 0
  for (const rate of [2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000]) {
    const result = yield* scenario(50, rate, 3)
    const ok = result.lossless && result.achieved >= rate * 0.9
    rows.push({
      case: `50 clients @ ${rate}/s`,
      "published/s": result.achieved,
      "server process CPU %": result.serverCpu,
      "delivered (all clients)": result.received,
      resyncs: result.resyncs,
      "p50 ms": round(result.p50),
      "p99 ms": round(result.p99),
      "max ms": round(result.max)
    })
    if (!ok) break
    sustained = result.achieved
  }
  const coreFile = NodePath.join(root, "bench-results", "core-bus-throughput.json")
  const core = existsSync(coreFile)
    ? (JSON.parse(readFileSync(coreFile, "utf8")).rows as Array<Record<string, number>>)[0]?.["Bus events/s"]
    : undefined
  const p99 = latency[1]!.p99
  report("server-sse", rows, {
    "highest rate 50 clients sustain without server.resync (events/s)": sustained,
    "in-process bus rate, 1 subscriber (core bench)": core ?? "run `pnpm bench core` first",
    "target: p99 < 50 ms at 1000 events/s with 50 clients":
      p99 < 50 && latency[1]!.lossless ? `met (${round(p99)} ms)` : `MISSED (${round(p99)} ms)`
  })
})

await Effect.runPromise(program.pipe(Effect.provide(Stack)))
process.exit(0)
