import { assert, describe, it } from "@effect/vitest"
import { compare, judge, measure } from "../bench-kit.ts"

describe("bench-kit compare", () => {
  it("alternates subject and baseline, swapping the order every round, with the same warm-up", async () => {
    const order: Array<string> = []
    const result = await compare({
      case: "order",
      subject: { name: "A", run: () => void order.push("A") },
      baseline: { name: "B", run: () => void order.push("B") },
      rounds: 5,
      warmup: 1,
      goals: []
    })
    // The warm-up round, then five timed ones: B A, A B, B A, A B, B A, A B.
    assert.deepStrictEqual(order.join(""), "BAABBAABBAAB")
    assert.strictEqual(result.subject.length, 5)
    assert.strictEqual(result.baseline.length, 5)
  })

  it("fails when the two sides' results differ, naming both", async () => {
    let calls = 0
    const run = compare({
      case: "skips work",
      subject: { name: "fast", run: () => (++calls > 4 ? 1 : 2) },
      baseline: { name: "honest", run: () => 2 },
      rounds: 5,
      goals: []
    })
    const error = await run.then(
      () => undefined,
      (e: Error) => e
    )
    assert.include(error?.message, "fast and honest differ")
  })

  it("refuses fewer than 5 rounds", async () => {
    const error = await compare({
      case: "short",
      subject: { name: "A", run: () => 0 },
      baseline: { name: "B", run: () => 0 },
      rounds: 3,
      goals: []
    }).then(
      () => undefined,
      (e: Error) => e
    )
    assert.include(error?.message, "at least 5 rounds")
  })

  it("judges a goal per round: speed is baseline / subject, cost subject / baseline", async () => {
    const metric = (run: { result: { ms: number } }) => run.result.ms
    const result = await compare({
      case: "ratios",
      subject: { name: "A", run: () => ({ ms: 4 }) },
      baseline: { name: "B", run: () => ({ ms: 2 }) },
      rounds: 5,
      same: () => true,
      goals: [
        { text: "speed", judge: "speed", atLeast: 0.6, metric },
        { text: "cost", judge: "cost", atMost: 3, metric }
      ]
    })
    const [speed, cost] = result.goals
    assert.deepStrictEqual([speed!.median, speed!.met], [0.5, false])
    assert.deepStrictEqual([cost!.median, cost!.met], [2, true])
  })
})

describe("bench-kit judge and measure", () => {
  it("reports min, median and max of the values and meets on the median", () => {
    const verdict = judge("c", { text: "t", judge: "subject", atMost: 20, unit: "MiB" }, [30, 10, 15, 12, 40])
    assert.deepStrictEqual(
      [verdict.min, verdict.median, verdict.max, verdict.met, verdict.unit],
      [10, 15, 40, true, "MiB"]
    )
  })

  it("measure fails when a round's result differs from the first", async () => {
    let n = 0
    const error = await measure({
      case: "drift",
      subject: { name: "A", run: () => (n++ === 4 ? "other" : "same") },
      rounds: 5,
      goals: []
    }).then(
      () => undefined,
      (e: Error) => e
    )
    assert.include(error?.message, "differs")
  })
})
