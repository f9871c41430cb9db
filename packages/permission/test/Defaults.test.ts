// The built-in rules and the conditional rules they are made of: a `when: "harmless"` rule
// decides only what its caller vouched for, never a call of a caller that knows nothing of it.
import { assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as Defaults from "@gatehousejs/permission/Defaults"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { input, tempDir } from "./support.ts"

const CONDITIONAL: Ruleset.Ruleset = [
  { permission: "bash", pattern: "*", action: "ask" },
  { permission: "bash", pattern: "*", action: "allow", when: "harmless" }
]

describe("conditional rules", () => {
  it("are passed over unless the ruleset is vouched for, which lifts them at the same index", () => {
    assert.strictEqual(Ruleset.evaluate("bash", "ls", CONDITIONAL), CONDITIONAL[0])
    const vouched = Ruleset.vouched(CONDITIONAL)
    assert.strictEqual(vouched.length, CONDITIONAL.length)
    const rule = Ruleset.evaluate("bash", "ls", vouched)
    assert.deepStrictEqual(rule, { permission: "bash", pattern: "*", action: "allow" })
    assert.strictEqual(vouched.indexOf(rule), 1)
    assert.strictEqual(vouched[0], CONDITIONAL[0])
  })

  it("a vouched ruleset is the same array each time, and follows a ruleset changed in place", () => {
    const rules: Array<Ruleset.Rule> = [...CONDITIONAL]
    assert.strictEqual(Ruleset.vouched(rules), Ruleset.vouched(rules))
    const plain: Ruleset.Ruleset = [{ permission: "bash", pattern: "*", action: "ask" }]
    assert.strictEqual(Ruleset.vouched(plain), plain)
    rules[1] = { permission: "bash", pattern: "*", action: "deny", when: "harmless" }
    assert.strictEqual(Ruleset.evaluate("bash", "ls", Ruleset.vouched(rules)).action, "deny")
  })

  it("never hide a tool, and never allow through the service, which cannot vouch", () =>
    Effect.gen(function* () {
      const hiding: Ruleset.Ruleset = [{ permission: "bash", pattern: "*", action: "deny", when: "harmless" }]
      assert.deepStrictEqual([...Ruleset.disabled(["bash"], hiding)], [])
      const dir = yield* tempDir()
      const permission = yield* Permission.Service
      const refused = yield* Effect.flip(permission.ask(input({ ruleset: CONDITIONAL }))).pipe(
        Instance.provide(dir)
      )
      assert.strictEqual(refused._tag, "PermissionRejectedError")
    }).pipe(Effect.scoped, Effect.provide(Permission.layerMemoryWith({ interactive: false }))))

  it("decode with their condition, and an unknown condition is an error", () => {
    const decode = Schema.decodeUnknownSync(Permission.Rule)
    assert.deepStrictEqual(decode({ permission: "bash", pattern: "*", action: "allow", when: "harmless" }), {
      permission: "bash",
      pattern: "*",
      action: "allow",
      when: "harmless"
    })
    assert.throws(() => decode({ permission: "bash", pattern: "*", action: "allow", when: "always" }))
  })
})

describe("Defaults", () => {
  it("names every rule, and the sources say they are the defaults", () => {
    assert.strictEqual(Defaults.sources.length, Defaults.ruleset.length)
    for (const source of Defaults.sources) {
      assert.match(source, /^default: \S/)
      assert.isTrue(Defaults.isSource(source))
    }
    assert.isTrue(Defaults.isSource("default"))
    assert.isFalse(Defaults.isSource('gatehouse.json permission.bash["*"]'))
  })

  it("ask for a command nobody vouched for, allow one vouched for as harmless", () => {
    assert.strictEqual(Ruleset.evaluate("bash", "ls", Defaults.ruleset).action, "ask")
    assert.strictEqual(Ruleset.evaluate("bash", "rm -rf .", Defaults.ruleset).action, "ask")
    assert.strictEqual(Ruleset.evaluate("bash", "ls", Ruleset.vouched(Defaults.ruleset)).action, "allow")
  })

  it("allow reads and edits in the project but of .git/; outside the project, repeated calls and .env files ask", () => {
    const action = (permission: string, pattern: string) =>
      Ruleset.evaluate(permission, pattern, Defaults.ruleset).action
    assert.strictEqual(action("read", "src/index.ts"), "allow")
    assert.strictEqual(action("edit", "src/index.ts"), "allow")
    // git's own files decide what `git status` and `git diff` run (fsmonitor, hooks, drivers).
    assert.strictEqual(action("edit", ".git/config"), "ask")
    assert.strictEqual(action("edit", ".git/hooks/pre-commit"), "ask")
    assert.strictEqual(action("list", "src"), "allow")
    assert.strictEqual(action("external_directory", "/etc/*"), "ask")
    assert.strictEqual(action("doom_loop", "read"), "ask")
    assert.strictEqual(action("read", "config/.env"), "ask")
    assert.strictEqual(action("read", ".env.local"), "ask")
    assert.strictEqual(action("read", ".env.example"), "allow")
    // Keys and credentials, inside the project too (the home folder may be the project).
    for (const path of [
      ".ssh/id_rsa",
      "/home/ada/.ssh/id_ed25519",
      ".gnupg/secring.gpg",
      ".aws/credentials",
      ".netrc",
      ".git-credentials",
      ".config/gh/hosts.yml",
      "/home/ada/.kube/config",
      ".docker/config.json",
      ".bash_history",
      ".config/git/credentials",
      ".local/share/powershell/PSReadLine/ConsoleHost_history.txt",
      ".python_history",
      ".psql_history",
      "/home/ada/.local/share/fish/fish_history"
    ])
      assert.strictEqual(action("read", path), "ask", path)
    // Every place of the list, as a file, as a folder's entry, relative and absolute.
    for (const place of Defaults.HOME_CREDENTIALS)
      for (const path of [place, `${place}/x`, `/home/ada/${place}`, `/home/ada/${place}/x`])
        assert.strictEqual(action("read", path), "ask", path)
    assert.strictEqual(action("read", "docs/ssh.md"), "allow")
    assert.strictEqual(action("read", ".config/git/ignore"), "allow")
    assert.strictEqual(action("read", "kube/deploy.yaml"), "allow")
  })

  it("a user's rule after them is followed as written", () => {
    const ruleset = Permission.merge(Defaults.ruleset, Permission.fromConfig({ bash: { "rm *": "allow" } }))
    assert.strictEqual(Ruleset.evaluate("bash", "rm -rf build", ruleset).action, "allow")
    const strict = Permission.merge(Defaults.ruleset, Permission.fromConfig({ bash: "ask" }))
    assert.strictEqual(Ruleset.evaluate("bash", "ls", Ruleset.vouched(strict)).action, "ask")
  })
})
