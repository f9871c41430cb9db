// Streaming text through the processor: 1 000 000 text deltas into one assistant message
// (memory store, one bus subscriber draining every event), against a bare
// `Stream.runForEach` that only appends the same deltas to a string, in the same run.
// Peak RSS is sampled during each processor run and compared with the message text size.
import { spawnSync } from "node:child_process"
import * as Bus from "@gatehousejs/core/Bus"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Message from "@gatehousejs/session/Message"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Response from "effect/ai/Response"
import { median, mib, report, timeRuns } from "../../../scripts/bench-kit.ts"

const DELTAS = 1_000_000
const RUNS = 3
const DIR = "/tmp/gatehouse-bench-session"

const deltaText = (i: number) => (i % 10 === 9 ? "token\n" : "token ")

function* parts(): Generator<Response.AnyPart> {
  yield Response.makePart("text-start", { id: "t" })
  for (let i = 0; i < DELTAS; i++) yield Response.makePart("text-delta", { id: "t", delta: deltaText(i) })
  yield Response.makePart("text-end", { id: "t" })
  yield Response.makePart("finish", {
    reason: "stop",
    usage: new Response.Usage({
      inputTokens: { uncached: 10, total: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: DELTAS, text: undefined, reasoning: undefined }
    }),
    response: undefined
  })
}

const bare = () => {
  let text = ""
  return Effect.runPromise(
    Stream.fromIterable(parts()).pipe(
      Stream.runForEach((part) =>
        Effect.sync(() => {
          if (part.type === "text-delta") text += part.delta
        })
      ),
      Effect.map(() => text.length)
    )
  )
}

const Live = SessionProcessor.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(SessionStore.layerMemory, SessionStatus.layer)),
  Layer.provideMerge(Permission.layerMemory)
)

let delivered = 0
let textLength = 0

const processor = () =>
  Effect.runPromise(
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const store = yield* SessionStore.Service
      const events = yield* bus.subscribe(Message.Event.PartUpdated)
      let received = 0
      const subscriber = yield* events.pipe(
        Stream.runForEach(() => Effect.sync(() => received++)),
        Effect.forkScoped
      )
      yield* store.putSession({
        id: "ses_b",
        directory: DIR,
        title: "bench",
        time: { created: 0, updated: 0 }
      })
      const assistant: Message.Assistant = {
        id: Identifier.ascending("msg"),
        sessionID: "ses_b",
        role: "assistant",
        parentID: "msg_user",
        model: { provider: "bench", id: "bench" },
        tokens: Message.emptyTokens,
        cost: 0,
        time: { created: 0 }
      }
      yield* store.putMessage(assistant)
      const result = yield* (yield* SessionProcessor.Service).process({
        assistant,
        stream: Stream.fromIterable(parts()),
        ruleset: []
      })
      if (result !== "continue") throw new Error(`unexpected result ${result}`)
      // Let the subscriber catch up with what the bus kept for it, then count.
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow
      yield* Fiber.interrupt(subscriber)
      delivered = received
      const message = yield* store.message("ses_b", assistant.id)
      const text = message!.parts.find((p) => p.type === "text") as Message.TextPart
      textLength = text.text.length
    }).pipe(Effect.scoped, Instance.provide(DIR), Effect.provide(Live))
  )

// Peak RSS of one run of `mode` in a fresh process (so earlier runs have not grown the heap),
// sampled every 20 ms, against the RSS just before the run.
const MODES = { bare, processor } as const
if (process.argv[2] === "--mem") {
  const run = MODES[process.argv[3] as keyof typeof MODES]
  globalThis.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 20)
  await run()
  clearInterval(timer)
  peak = Math.max(peak, process.memoryUsage().rss)
  console.log(JSON.stringify({ before, peak, textLength }))
  process.exit(0)
}
const peakRss = (mode: keyof typeof MODES) => {
  const child = spawnSync(process.execPath, ["--expose-gc", import.meta.filename, "--mem", mode], {
    encoding: "utf8"
  })
  const lines = child.stdout.trim().split("\n")
  return JSON.parse(lines[lines.length - 1]!) as { before: number; peak: number; textLength: number }
}

const bareMem = peakRss("bare")
const processorMem = peakRss("processor")
const bareMs = median(await timeRuns(RUNS, bare))
const processorMs = median(await timeRuns(RUNS, processor))

const rate = (ms: number) => Math.round(DELTAS / (ms / 1000))
const ratio = rate(processorMs) / rate(bareMs)
const textMiB = mib(processorMem.textLength * 2)
report(
  "session-processor-deltas",
  [
    {
      case: "bare Stream.runForEach + string append",
      "deltas/s": rate(bareMs),
      "median ms": Math.round(bareMs),
      "peak RSS growth MiB": mib(bareMem.peak - bareMem.before)
    },
    {
      case: "SessionProcessor (memory store, 1 bus subscriber)",
      "deltas/s": rate(processorMs),
      "median ms": Math.round(processorMs),
      "peak RSS growth MiB": mib(processorMem.peak - processorMem.before)
    }
  ],
  {
    deltas: DELTAS,
    runs: RUNS,
    "bus events delivered to the subscriber (last run)": delivered,
    "message text (UTF-16 MiB)": textMiB,
    "target: >= 100 000 deltas/s":
      rate(processorMs) >= 100_000 ? `met (${rate(processorMs)})` : `MISSED (${rate(processorMs)})`,
    "target: >= 0.25x the bare loop":
      ratio >= 0.25 ? `met (${ratio.toFixed(3)}x)` : `MISSED (${ratio.toFixed(3)}x)`
  }
)
