import { assert, describe, it } from "@effect/vitest"
import * as Arity from "@gatehousejs/permission/Arity"

describe("Arity.prefix", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
    [["unknown", "command", "subcommand"], ["unknown"]],
    [["touch", "foo.txt"], ["touch"]],
    [
      ["git", "checkout", "main"],
      ["git", "checkout"]
    ],
    [
      ["docker", "run", "nginx"],
      ["docker", "run"]
    ],
    [
      ["aws", "s3", "ls", "my-bucket"],
      ["aws", "s3", "ls"]
    ],
    [
      ["npm", "run", "dev", "script"],
      ["npm", "run", "dev"]
    ],
    [
      ["docker", "compose", "up", "service"],
      ["docker", "compose", "up"]
    ],
    [
      ["consul", "kv", "get", "config"],
      ["consul", "kv", "get"]
    ],
    [
      ["git", "checkout"],
      ["git", "checkout"]
    ],
    [
      ["npm", "run", "dev"],
      ["npm", "run", "dev"]
    ],
    [[], []],
    [["single"], ["single"]],
    [["git"], ["git"]],
    // Flags are tokens too.
    [
      ["git", "-C", "dir", "status"],
      ["git", "-C"]
    ],
    [
      ["gh", "pr"],
      ["gh", "pr"]
    ]
  ]
  for (const [tokens, expected] of cases) {
    it(`[${tokens.join(", ")}] -> [${expected.join(", ")}]`, () => {
      assert.deepStrictEqual(Arity.prefix(tokens), expected)
    })
  }

  it("object-prototype names are ordinary unknown commands", () => {
    for (const name of ["toString", "__proto__", "constructor", "hasOwnProperty"]) {
      assert.deepStrictEqual(Arity.prefix([name, "x"]), [name])
    }
  })

  it("holds the 156-entry table: 25 of arity 1, 84 of arity 2, 47 of arity 3", () => {
    const counts = [0, 0, 0, 0]
    for (const arity of Arity.table.values()) counts[arity]!++
    assert.strictEqual(Arity.table.size, 156)
    assert.deepStrictEqual(counts.slice(1), [25, 84, 47])
  })
})
