// The test harness's own guarantees: a wait that never ends fails with a message.
import { assert, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { until } from "./harness.ts"

it.live("until fails after its deadline, naming what it waited for and what it saw last", () =>
  Effect.gen(function* () {
    let polls = 0
    const exit = yield* until(
      "the answer",
      Effect.sync(() => ++polls),
      () => false,
      100
    ).pipe(Effect.exit)
    assert.isTrue(Exit.isFailure(exit))
    const message = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
    assert.include(message, "gave up after 100 ms waiting for the answer; last seen: ")
    assert.isAbove(polls, 1)
    // A condition that holds returns the value it was met with.
    assert.strictEqual(yield* until("three", Effect.succeed(3), (n) => n === 3), 3)
  })
)
