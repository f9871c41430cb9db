import { homedir } from "node:os"
import { assert, describe, it } from "@effect/vitest"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"

const rules = (block: unknown) => Effect.runSync(Permission.decodeRules(block))
const problem = (block: unknown) => Effect.runSync(Effect.flip(Permission.decodeRules(block))).message

describe("Permission.decodeRules", () => {
  it("reads Tool, Tool(glob) and Tool=literal, mapping tool names onto permissions", () => {
    assert.deepStrictEqual(
      rules({
        allow: ["Bash(git *)", "Read", "Edit(src/**)", "Write(docs/*)", "WebFetch", "Bash=rm *.tmp"]
      }),
      [
        { permission: "bash", pattern: "git *", action: "allow" },
        { permission: "read", pattern: "*", action: "allow" },
        { permission: "edit", pattern: "src/**", action: "allow" },
        { permission: "edit", pattern: "docs/*", action: "allow" },
        { permission: "webfetch", pattern: "*", action: "allow" },
        { permission: "bash", pattern: "rm *.tmp", action: "allow", literal: true }
      ]
    )
    assert.deepStrictEqual(rules({ deny: ["Read(~/.ssh/*)"] }), [
      { permission: "read", pattern: `${homedir()}/.ssh/*`, action: "deny" }
    ])
  })

  it("Claude Code's prefix form Bash(npm run test:*) matches the command with or without arguments", () => {
    const ruleset = rules({ allow: ["Bash(npm run test:*)"] })
    assert.deepStrictEqual(ruleset, [{ permission: "bash", pattern: "npm run test *", action: "allow" }])
    assert.strictEqual(Permission.evaluate("bash", "npm run test", ruleset).action, "allow")
    assert.strictEqual(Permission.evaluate("bash", "npm run test -- a.ts", ruleset).action, "allow")
    assert.strictEqual(Permission.evaluate("bash", "npm run tests", ruleset).action, "ask")
  })

  it("within a block, deny beats ask beats allow whatever the order of the arrays", () => {
    const ruleset = rules({ deny: ["Bash(git push *)"], ask: ["Bash(git *)"], allow: ["Bash"] })
    assert.strictEqual(Permission.evaluate("bash", "ls", ruleset).action, "allow")
    assert.strictEqual(Permission.evaluate("bash", "git log", ruleset).action, "ask")
    assert.strictEqual(Permission.evaluate("bash", "git push --force", ruleset).action, "deny")
  })

  it("names the string that does not parse, and why", () => {
    assert.strictEqual(
      problem({ allow: ["Bash", "Bash(git *"] }),
      'rules.allow[1]: expected Tool, Tool(glob) or Tool=literal, got "Bash(git *" (the ( is not closed by a ) at the end)'
    )
    assert.include(
      problem({ deny: ["(rm *)"] }),
      'rules.deny[0]: expected Tool, Tool(glob) or Tool=literal, got "(rm *)" (the tool name before ( is empty)'
    )
    assert.include(problem({ ask: [""] }), "rules.ask[0]")
    assert.include(problem({ ask: ["=ls"] }), "the tool name before = is empty")
    assert.include(problem({ ask: ["Bash()"] }), "the parentheses are empty")
    assert.include(problem({ allow: [3] }), "rules.allow[0]: expected a rule string")
    assert.include(problem({ allow: "Bash" }), "rules.allow: expected an array of rule strings")
    assert.include(problem({ permit: ["Bash"] }), "rules.permit: expected allow, ask or deny")
  })
})
