import { assert, describe, it } from "@effect/vitest"
import * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as Wildcard from "@gatehousejs/permission/Wildcard"

// The definition the compiled evaluation must agree with: the last rule whose permission
// and pattern both match, found by plain Wildcard.match calls.
const oracle = (permission: string, pattern: string, ruleset: Ruleset.Ruleset): Ruleset.Rule => {
  for (let i = ruleset.length - 1; i >= 0; i--) {
    const rule = ruleset[i]!
    if (
      Wildcard.match(permission, rule.permission) &&
      (rule.literal === true ? pattern === rule.pattern : Wildcard.match(pattern, rule.pattern))
    )
      return rule
  }
  return { permission, pattern: "*", action: "ask" }
}

let seed = 11
const random = () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
  return seed / 2 ** 32
}
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

describe("Ruleset.evaluate", () => {
  it("agrees with the find-last definition on 20 000 seeded pairs, literal and glob rules mixed", () => {
    const words = ["git", "status", "ls", "a", "rm", "-rf", "/", "src\\x", "src/x", "*", "?", "", " "]
    const patternOf = () =>
      Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(words)).join(pick([" ", "", "*", " *"]))
    const ruleset: Array<Ruleset.Rule> = Array.from({ length: 60 }, () => ({
      permission: pick(["bash", "edit", "*", "ba*", "read", "mcp_?"]),
      pattern: patternOf(),
      action: pick(["allow", "ask", "deny"] as const),
      ...(random() < 0.2 ? { literal: true } : {})
    }))
    for (let i = 0; i < 20_000; i++) {
      const permission = pick(["bash", "edit", "read", "mcp_x", "bas", "webfetch"])
      const pattern = patternOf()
      const expected = oracle(permission, pattern, ruleset)
      const got = Ruleset.evaluate(permission, pattern, ruleset)
      if (ruleset.includes(expected)) assert.strictEqual(got, expected, `${permission} ${pattern}`)
      else assert.deepStrictEqual(got, expected)
    }
  })

  it("a later literal rule beats an earlier glob and the other way round", () => {
    const rules: Ruleset.Ruleset = [
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "bash", pattern: "git push", action: "deny" },
      { permission: "bash", pattern: "git p*", action: "ask" }
    ]
    assert.strictEqual(Ruleset.evaluate("bash", "git push", rules), rules[2])
    assert.strictEqual(Ruleset.evaluate("bash", "git status", rules), rules[0])
    assert.strictEqual(Ruleset.evaluate("bash", "git push", rules.slice(0, 2)).action, "deny")
  })

  it("a ruleset changed in place is judged by its new rules, never by the cached compilation", () => {
    const rules: Array<Ruleset.Rule> = [{ permission: "bash", pattern: "*", action: "allow" }]
    assert.strictEqual(Ruleset.evaluate("bash", "rm -rf /", rules).action, "allow")
    rules.push({ permission: "bash", pattern: "rm *", action: "deny" })
    assert.strictEqual(Ruleset.evaluate("bash", "rm -rf /", rules).action, "deny")
    rules[1] = { permission: "bash", pattern: "rm *", action: "ask" }
    assert.strictEqual(Ruleset.evaluate("bash", "rm -rf /", rules).action, "ask")
    const mutable = rules[1] as { pattern: string }
    mutable.pattern = "ls"
    assert.strictEqual(Ruleset.evaluate("bash", "rm -rf /", rules).action, "allow")
  })

  it("later rulesets take precedence; no match asks", () => {
    const base: Ruleset.Ruleset = [{ permission: "*", pattern: "*", action: "deny" }]
    const over: Ruleset.Ruleset = [{ permission: "edit", pattern: "src/*", action: "allow" }]
    assert.strictEqual(Ruleset.evaluate("edit", "src\\a.ts", base, over).action, "allow")
    assert.strictEqual(Ruleset.evaluate("edit", "docs/a.md", base, over).action, "deny")
    assert.deepStrictEqual(Ruleset.evaluate("edit", "a", [], []), {
      permission: "edit",
      pattern: "*",
      action: "ask"
    })
  })
})

describe("Ruleset.evaluator", () => {
  it("decides as evaluate does, for every pattern, and for an empty ruleset", () => {
    const words = ["git", "status", "ls", "a", "rm", "-rf", "/", "src/x", "*", "?", ""]
    const patternOf = () =>
      Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(words)).join(pick([" ", "*", " *"]))
    const ruleset: Array<Ruleset.Rule> = Array.from({ length: 50 }, () => ({
      permission: pick(["bash", "edit", "*", "read"]),
      pattern: patternOf(),
      action: pick(["allow", "ask", "deny"] as const),
      ...(random() < 0.2 ? { literal: true } : {})
    }))
    const decide = Ruleset.evaluator(ruleset)
    const none = Ruleset.evaluator([])
    for (let i = 0; i < 5_000; i++) {
      const permission = pick(["bash", "edit", "read", "webfetch"])
      const pattern = patternOf()
      const expected = Ruleset.evaluate(permission, pattern, ruleset)
      if (ruleset.includes(expected)) assert.strictEqual(decide(permission, pattern), expected, pattern)
      else assert.deepStrictEqual(decide(permission, pattern), expected, pattern)
      assert.deepStrictEqual(none(permission, pattern), { permission, pattern: "*", action: "ask" })
    }
  })
})

describe("Wildcard.compile", () => {
  it("answers as match does", () => {
    for (const pattern of ["ls *", "*", "", "a?c", "git * --force", "C:\\Win\\*", "*.env", "x**"]) {
      const matcher = Wildcard.compile(pattern)
      for (const input of ["ls", "ls -la", "abc", "", "git push --force", "C:/Win/a", "a.env", "x"]) {
        assert.strictEqual(matcher.matches(input), Wildcard.match(input, pattern), `${input} / ${pattern}`)
      }
    }
  })
})
