import { assert, describe, it } from "@effect/vitest"
import * as Identifier from "@gatehousejs/core/Identifier"

describe("Identifier", () => {
  it("ascending ids are unique and sort in creation order", () => {
    const ids = Array.from({ length: 200_000 }, () => Identifier.ascending("per"))
    assert.strictEqual(new Set(ids).size, ids.length)
    assert.deepStrictEqual([...ids].sort(), ids)
    assert.match(ids[0]!, /^per_[0-9a-f]{16}[0-9A-Za-z]{14}$/)
  })

  it("descending ids sort newest first", () => {
    const ids = Array.from({ length: 10_000 }, () => Identifier.descending("ses"))
    assert.deepStrictEqual([...ids].sort(), [...ids].reverse())
  })

  it("interleaved ascending and descending ids stay ordered within their kind", () => {
    const up: Array<string> = []
    const down: Array<string> = []
    for (let i = 0; i < 5000; i++) {
      up.push(Identifier.ascending("a"))
      down.push(Identifier.descending("d"))
    }
    assert.deepStrictEqual([...up].sort(), up)
    assert.deepStrictEqual([...down].sort(), [...down].reverse())
  })

  it("timestamp reads the creation time of an ascending id", () => {
    const before = Date.now()
    const id = Identifier.ascending("tool")
    const at = Identifier.timestamp(id)!
    assert.isTrue(at >= before && at <= Date.now() + 1000)
    assert.isUndefined(Identifier.timestamp("tool_nothex"))
  })
})
