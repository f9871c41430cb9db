import { homedir } from "node:os"
import { assert, describe, it } from "@effect/vitest"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"

type Rule = Permission.Rule
const r = (permission: string, pattern: string, action: Permission.Action): Rule => ({
  permission,
  pattern,
  action
})
const E = (permission: string, pattern: string, ...rulesets: ReadonlyArray<Permission.Ruleset>) =>
  Permission.evaluate(permission, pattern, ...rulesets).action
const home = homedir()

describe("Permission.fromConfig", () => {
  it("a string value is pattern *; objects keep their order", () => {
    assert.deepStrictEqual(Permission.fromConfig({ bash: "allow" }), [r("bash", "*", "allow")])
    assert.deepStrictEqual(Permission.fromConfig({ bash: { "*": "allow", rm: "deny" } }), [
      r("bash", "*", "allow"),
      r("bash", "rm", "deny")
    ])
    assert.deepStrictEqual(
      Permission.fromConfig({ bash: { "*": "allow", rm: "deny" }, edit: "allow", webfetch: "ask" }),
      [r("bash", "*", "allow"), r("bash", "rm", "deny"), r("edit", "*", "allow"), r("webfetch", "*", "ask")]
    )
    assert.deepStrictEqual(Permission.fromConfig({}), [])
    // A bare action is `{ "*": action }`.
    assert.deepStrictEqual(Permission.fromConfig("deny"), [r("*", "*", "deny")])
  })

  it("expands ~ and $HOME at the start of a pattern only", () => {
    const pattern = (config: unknown) => Permission.fromConfig(config)[0]!.pattern
    assert.strictEqual(pattern({ external_directory: { "~/projects/*": "allow" } }), `${home}/projects/*`)
    assert.strictEqual(pattern({ external_directory: { "$HOME/projects/*": "allow" } }), `${home}/projects/*`)
    assert.strictEqual(pattern({ external_directory: { $HOME: "allow" } }), home)
    assert.strictEqual(pattern({ external_directory: { "~": "allow" } }), home)
    assert.strictEqual(pattern({ external_directory: { "/some/~/path": "allow" } }), "/some/~/path")
    assert.strictEqual(pattern({ external_directory: { "~user/x": "allow" } }), "~user/x")
    // Another variable whose name starts with HOME is not the home directory.
    assert.strictEqual(pattern({ external_directory: { $HOMEfoo: "allow" } }), "$HOMEfoo")
    // The permission key is never expanded.
    assert.strictEqual(Permission.fromConfig({ "~": "allow" })[0]!.permission, "~")
    assert.strictEqual(Permission.fromConfig({ x: { "~/a": "allow" } }, { home: "/h" })[0]!.pattern, "/h/a")
    assert.strictEqual(
      E(
        "external_directory",
        `${home}/projects/file.txt`,
        Permission.fromConfig({ external_directory: { "~/projects/*": "allow" } })
      ),
      "allow"
    )
    assert.strictEqual(
      E(
        "external_directory",
        `${home}/projects/file.txt`,
        Permission.fromConfig({ external_directory: { "$HOME/projects/*": "allow" } })
      ),
      "allow"
    )
  })

  it("key order is precedence", () => {
    const denyFirst = Permission.fromConfig({ "*": "deny", bash: "allow" })
    assert.deepStrictEqual(
      denyFirst.map((rule) => rule.permission),
      ["*", "bash"]
    )
    assert.strictEqual(E("bash", "ls", denyFirst), "allow")
    const bashFirst = Permission.fromConfig({ bash: "allow", "*": "deny" })
    assert.deepStrictEqual(
      bashFirst.map((rule) => rule.permission),
      ["bash", "*"]
    )
    assert.strictEqual(E("bash", "ls", bashFirst), "deny")

    const askAll = Permission.fromConfig({ "*": "ask", bash: "allow" })
    assert.strictEqual(E("edit", "foo.ts", askAll), "ask")
    assert.strictEqual(E("bash", "ls", askAll), "allow")

    assert.deepStrictEqual(
      Permission.fromConfig({ bash: "allow", "*": "ask", edit: "deny", "mcp_*": "allow" }).map(
        (rule) => rule.permission
      ),
      ["bash", "*", "edit", "mcp_*"]
    )

    const git = Permission.fromConfig({ bash: { "*": "deny", "git *": "allow" } })
    assert.deepStrictEqual(
      git.map((rule) => rule.pattern),
      ["*", "git *"]
    )
    assert.strictEqual(E("bash", "rm foo", git), "deny")
    assert.strictEqual(E("bash", "git status", git), "allow")

    const mixed = Permission.fromConfig({ "*": "ask", bash: "allow", edit: "deny" })
    assert.strictEqual(E("bash", "ls", mixed), "allow")
    assert.strictEqual(E("edit", "foo.ts", mixed), "deny")
    assert.strictEqual(E("read", "foo.ts", mixed), "ask")
  })

  it("names the offending path of invalid input", () => {
    const failure = (config: unknown) => {
      try {
        Permission.fromConfig(config)
      } catch (error) {
        assert.instanceOf(error, Permission.ConfigError)
        return error.message
      }
      assert.fail("expected a ConfigError")
    }
    assert.strictEqual(
      failure({ bash: { "rm *": "nope" } }),
      'permission.bash["rm *"]: expected allow | ask | deny, got "nope"'
    )
    assert.strictEqual(
      failure({ edit: 42 }),
      "permission.edit: expected allow | ask | deny or an object of pattern -> action, got 42"
    )
    assert.strictEqual(
      failure({ "mcp-x": ["allow"] }),
      'permission["mcp-x"]: expected allow | ask | deny or an object of pattern -> action, got an array'
    )
    assert.strictEqual(failure(7), "permission: expected allow | ask | deny or an object, got 7")
  })

  it.effect("decodeConfig fails in the error channel", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Permission.decodeConfig({ bash: { "*": "yes" } }))
      assert.strictEqual(error._tag, "PermissionConfigError")
      assert.strictEqual(error.path, 'permission.bash["*"]')
      assert.deepStrictEqual(yield* Permission.decodeConfig({ bash: "ask" }), [r("bash", "*", "ask")])
    })
  )
})

describe("Permission.merge", () => {
  it("concatenates in order, later rulesets winning", () => {
    assert.deepStrictEqual(Permission.merge([r("bash", "*", "allow")], [r("bash", "*", "deny")]), [
      r("bash", "*", "allow"),
      r("bash", "*", "deny")
    ])
    assert.deepStrictEqual(Permission.merge([r("bash", "*", "allow")], [r("edit", "*", "deny")]), [
      r("bash", "*", "allow"),
      r("edit", "*", "deny")
    ])
    assert.deepStrictEqual(Permission.merge([r("bash", "foo", "ask")], [r("bash", "*", "deny")]), [
      r("bash", "foo", "ask"),
      r("bash", "*", "deny")
    ])
    assert.deepStrictEqual(
      Permission.merge([r("bash", "*", "allow")], [r("bash", "rm", "ask")], [r("edit", "*", "allow")]),
      [r("bash", "*", "allow"), r("bash", "rm", "ask"), r("edit", "*", "allow")]
    )
    assert.deepStrictEqual(Permission.merge([r("bash", "*", "allow")], []), [r("bash", "*", "allow")])
    assert.deepStrictEqual(
      Permission.merge(
        [r("edit", "src/*", "allow"), r("edit", "src/secret/*", "deny")],
        [r("edit", "src/secret/ok.ts", "allow")]
      ),
      [r("edit", "src/*", "allow"), r("edit", "src/secret/*", "deny"), r("edit", "src/secret/ok.ts", "allow")]
    )
    const merged = Permission.merge([r("*", "*", "ask")], [r("bash", "*", "allow")])
    assert.strictEqual(E("bash", "ls", merged), "allow")
    assert.strictEqual(E("edit", "foo.ts", merged), "ask")
    assert.strictEqual(
      E("bash", "ls", Permission.merge([r("bash", "*", "allow")], [r("bash", "*", "ask")])),
      "ask"
    )
  })
})

describe("Permission.evaluate", () => {
  const cases: ReadonlyArray<
    readonly [string, string, ReadonlyArray<Permission.Ruleset>, Permission.Action]
  > = [
    ["bash", "rm", [[r("bash", "rm", "deny")]], "deny"],
    ["bash", "rm", [[r("bash", "*", "allow")]], "allow"],
    ["bash", "rm", [[r("bash", "*", "allow"), r("bash", "rm", "deny")]], "deny"],
    ["bash", "rm", [[r("bash", "rm", "deny"), r("bash", "*", "allow")]], "allow"],
    ["edit", "src/foo.ts", [[r("edit", "src/*", "allow")]], "allow"],
    [
      "edit",
      "src/components/Button.tsx",
      [[r("edit", "src/*", "deny"), r("edit", "src/components/*", "allow")]],
      "allow"
    ],
    [
      "edit",
      "src/components/Button.tsx",
      [[r("edit", "src/components/*", "allow"), r("edit", "src/*", "deny")]],
      "deny"
    ],
    ["unknown_tool", "anything", [[r("bash", "*", "allow")]], "ask"],
    ["bash", "rm", [[]], "ask"],
    ["bash", "rm", [], "ask"],
    ["edit", "etc/passwd", [[r("edit", "src/*", "allow")]], "ask"],
    [
      "edit",
      "src/secret.ts",
      [[r("edit", "*", "ask"), r("edit", "src/*", "allow"), r("edit", "src/secret.ts", "deny")]],
      "deny"
    ],
    [
      "edit",
      "src/foo.ts",
      [[r("edit", "*", "ask"), r("edit", "test/*", "deny"), r("edit", "src/*", "allow")]],
      "allow"
    ],
    ["bash", "/bin/rm", [[r("bash", "*", "allow"), r("bash", "/bin/rm", "deny")]], "deny"],
    ["bash", "/bin/rm", [[r("bash", "/bin/rm", "deny"), r("bash", "*", "allow")]], "allow"],
    ["bash", "rm", [[r("*", "*", "deny")]], "deny"],
    ["bash", "rm", [[r("*", "rm", "deny")]], "deny"],
    ["mcp_server_tool", "anything", [[r("mcp_*", "*", "allow")]], "allow"],
    ["bash", "rm", [[r("*", "*", "deny"), r("bash", "*", "allow")]], "allow"],
    ["edit", "src/foo.ts", [[r("*", "*", "deny"), r("edit", "src/*", "allow")]], "allow"],
    [
      "mcp_dangerous",
      "anything",
      [[r("*", "*", "ask"), r("mcp_*", "*", "allow"), r("mcp_dangerous", "*", "deny")]],
      "deny"
    ],
    ["unknown_tool", "anything", [[r("*", "*", "ask"), r("bash", "*", "allow")]], "ask"],
    ["bash", "rm", [[r("bash", "*", "allow"), r("*", "*", "deny")]], "deny"],
    ["bash", "rm", [[r("bash", "*", "allow")], [r("bash", "rm", "deny")]], "deny"]
  ]
  for (const [permission, pattern, rulesets, expected] of cases) {
    it(`${permission} ${JSON.stringify(pattern)} -> ${expected}`, () => {
      assert.strictEqual(E(permission, pattern, ...rulesets), expected)
    })
  }

  it("returns the deciding rule itself, or the ask fallback", () => {
    const rule = r("bash", "git *", "allow")
    assert.strictEqual(Permission.evaluate("bash", "git log", [r("bash", "*", "ask"), rule]), rule)
    assert.deepStrictEqual(Permission.evaluate("bash", "ls", []), r("bash", "*", "ask"))
  })
})

describe("Permission.disabled", () => {
  const tools3 = ["bash", "edit", "read"]
  it("disables a tool whose last matching rule is * deny", () => {
    assert.deepStrictEqual([...Permission.disabled(tools3, [r("*", "*", "allow")])], [])
    const bashDenied = Permission.disabled(tools3, [r("*", "*", "allow"), r("bash", "*", "deny")])
    assert.deepStrictEqual([...bashDenied], ["bash"])
    assert.deepStrictEqual(
      [
        ...Permission.disabled(
          ["edit", "write", "apply_patch", "bash"],
          [r("*", "*", "allow"), r("edit", "*", "deny")]
        )
      ],
      ["edit", "write", "apply_patch"]
    )
    assert.isTrue(Permission.disabled(["multiedit"], [r("edit", "*", "deny")]).has("multiedit"))
    assert.isFalse(
      Permission.disabled(["bash"], [r("bash", "*", "allow"), r("bash", "rm *", "deny")]).has("bash")
    )
    assert.deepStrictEqual([...Permission.disabled(["bash", "edit"], [r("*", "*", "ask")])], [])
    assert.isFalse(
      Permission.disabled(["bash"], [r("bash", "*", "deny"), r("bash", "echo *", "allow")]).has("bash")
    )
    assert.isFalse(
      Permission.disabled(["bash"], [r("bash", "rm *", "deny"), r("bash", "*", "allow")]).has("bash")
    )
    assert.deepStrictEqual(
      [
        ...Permission.disabled(
          ["bash", "edit", "webfetch"],
          [r("bash", "*", "deny"), r("edit", "*", "deny"), r("webfetch", "*", "deny")]
        )
      ],
      ["bash", "edit", "webfetch"]
    )
    assert.deepStrictEqual([...Permission.disabled(tools3, [r("*", "*", "deny")])], tools3)
    assert.deepStrictEqual(
      [...Permission.disabled(tools3, [r("*", "*", "deny"), r("bash", "*", "allow")])],
      ["edit", "read"]
    )
  })
})

describe("Permission errors", () => {
  it("DeniedError names the deciding rule", () => {
    const error = new Permission.DeniedError({
      permission: "bash",
      pattern: "rm -rf /",
      rule: r("bash", "rm *", "deny"),
      ruleset: []
    })
    assert.include(error.message, 'bash "rm *" deny')
    assert.include(error.message, '"rm -rf /"')
  })

  it("CorrectedError carries the feedback in its message", () => {
    const error = new Permission.CorrectedError({ feedback: "Use a safer command" })
    assert.include(error.message, "Use a safer command")
    assert.include(String(error), "Use a safer command")
  })
})
