// ask -> reply round trips through Permission.Service: a replier fiber answers every
// permission.asked event with "once"; the asker waits for each answer. Sequential (one ask
// at a time: latency) and 32 sessions asking concurrently (throughput); every run must
// answer every ask. Goal: >= 20 000 round trips/s sequentially.
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { measure, reportComparisons } from "../../../scripts/bench-kit.ts"

const ROUND_TRIPS = 20_000
const CONCURRENT = 32

const roundTrips = (concurrency: number) =>
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    const bus = yield* Bus.Service
    const asked = yield* bus.subscribe(Permission.Event.Asked)
    let replied = 0
    const replier = yield* Effect.forkChild(
      asked.pipe(
        Stream.take(ROUND_TRIPS),
        Stream.runForEach((event) =>
          Effect.andThen(
            permission.reply({ requestID: event.properties.id, reply: "once" }),
            Effect.sync(() => replied++)
          )
        )
      )
    )
    const perWorker = ROUND_TRIPS / concurrency
    let answered = 0
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
            answered++
          }
        }),
      { concurrency: "unbounded", discard: true }
    )
    yield* Fiber.join(replier)
    return { answered, replied }
  }).pipe(
    Effect.scoped,
    Instance.provide("/tmp/gatehouse-bench-permission"),
    Effect.provide(Permission.layerMemory)
  )

const rate = (ms: number) => Math.round(ROUND_TRIPS / (ms / 1000))
const comparisons = []
for (const concurrency of [1, CONCURRENT]) {
  comparisons.push(
    await measure({
      case: concurrency === 1 ? "sequential (1 asker)" : `concurrent (${CONCURRENT} sessions)`,
      subject: { name: "Permission ask -> reply", run: () => Effect.runPromise(roundTrips(concurrency)) },
      // The concurrent case has no goal of its own: its median time is in the rows.
      goals:
        concurrency === 1
          ? [
              {
                text: ">= 20 000 round trips/s",
                judge: "subject",
                atLeast: 20_000,
                unit: "/s",
                metric: (run) => rate(run.ms)
              }
            ]
          : []
    })
  )
}
reportComparisons("permission-ask-reply", comparisons, { summary: { "round trips per run": ROUND_TRIPS } })
