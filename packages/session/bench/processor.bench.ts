// Streaming text through the processor: 1 000 000 text deltas into one assistant message
// (memory store, one bus subscriber draining every event), against a `for...of` loop over the
// same parts that appends the deltas to a string, alternated in one run; both must end with
// text of the same length. Goals: >= 0.25x the loop, >= 100 000 deltas/s; peak RSS growth
// is sampled through every run.
import * as Bus from "@gatehousejs/core/Bus"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Message from "@gatehousejs/session/Message"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { compare, medianOf, mib, reportComparisons } from "../../../scripts/bench-kit.ts"

const DELTAS = 1_000_000
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

const forOfLoop = async () => {
  let text = ""
  for (const part of parts()) {
    if (part.type === "text-delta") text += part.delta
  }
  return text.length
}

const Live = SessionProcessor.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(SessionStore.layerMemory, SessionStatus.layer)),
  Layer.provideMerge(Permission.layerMemory)
)

let delivered = 0

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
      return text.text.length
    }).pipe(Effect.scoped, Instance.provide(DIR), Effect.provide(Live))
  )

const rate = (ms: number) => Math.round(DELTAS / (ms / 1000))
const comparison = await compare({
  case: `${DELTAS} text deltas`,
  subject: { name: "SessionProcessor (memory store, 1 bus subscriber)", run: processor },
  baseline: { name: "for...of loop + string append", run: forOfLoop },
  rounds: 5,
  warmup: 1,
  sampleRss: true,
  goals: [
    { text: "processor >= 0.25x a for...of loop", judge: "speed", atLeast: 0.25 },
    {
      text: "processor >= 100 000 deltas/s",
      judge: "subject",
      atLeast: 100_000,
      unit: "/s",
      metric: (run) => rate(run.ms)
    }
  ]
})
reportComparisons("session-processor-deltas", [comparison], {
  summary: {
    deltas: DELTAS,
    "peak RSS growth MiB (median: processor / loop)": [
      medianOf(comparison.subject, (run) => mib(run.rssGrowth)),
      medianOf(comparison.baseline, (run) => mib(run.rssGrowth))
    ],
    "bus events delivered to the subscriber (last run)": delivered,
    "message text (UTF-16 MiB)": mib(comparison.subject[0]!.result * 2)
  }
})
