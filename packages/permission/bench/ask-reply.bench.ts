// ask -> reply round trips through Permission.Service: a replier fiber answers every
// permission.asked event with "once"; the asker waits for each answer. Sequential (one
// ask at a time: latency) and 32 sessions asking concurrently (throughput).
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { median, report, timeRuns } from "../../../scripts/bench-kit.ts"

const ROUND_TRIPS = 20_000
const RUNS = 7
const CONCURRENT = 32

const roundTrips = (concurrency: number) =>
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    const bus = yield* Bus.Service
    const asked = yield* bus.subscribe(Permission.Event.Asked)
    const replier = yield* Effect.forkChild(
      asked.pipe(
        Stream.take(ROUND_TRIPS),
        Stream.runForEach((event) => permission.reply({ requestID: event.properties.id, reply: "once" }))
      )
    )
    const perWorker = ROUND_TRIPS / concurrency
    yield* Effect.forEach(
      Array.from({ length: concurrency }, (_, worker) => worker),
      (worker) =>
        Effect.gen(function* () {
          for (let i = 0; i < perWorker; i++) {
            yield* permission.ask({
              sessionID: `ses_${worker}`,
              permission: "bash",
              patterns: ["git push origin main"],
              always: ["git push *"],
              metadata: {},
              ruleset: [{ permission: "bash", pattern: "*", action: "ask" }]
            })
          }
        }),
      { concurrency: "unbounded", discard: true }
    )
    yield* Fiber.join(replier)
  }).pipe(
    Effect.scoped,
    Instance.provide("/tmp/gatehouse-bench-permission"),
    Effect.provide(Permission.layerMemory)
  )

const rate = (ms: number) => Math.round(ROUND_TRIPS / (ms / 1000))
const sequential = median(await timeRuns(RUNS, () => Effect.runPromise(roundTrips(1))))
const concurrent = median(await timeRuns(RUNS, () => Effect.runPromise(roundTrips(CONCURRENT))))
const best = Math.max(rate(sequential), rate(concurrent))

report(
  "permission-ask-reply",
  [
    { case: "sequential (1 asker)", "median ms": Math.round(sequential), "round trips/s": rate(sequential) },
    {
      case: `concurrent (${CONCURRENT} sessions)`,
      "median ms": Math.round(concurrent),
      "round trips/s": rate(concurrent)
    }
  ],
  {
    "round trips per run": ROUND_TRIPS,
    runs: RUNS,
    "target: >= 20 000 round trips/s (sequential)":
      rate(sequential) >= 20_000 ? `met (${rate(sequential)}/s)` : `MISSED (${rate(sequential)}/s)`,
    "best round trips/s": best
  }
)
