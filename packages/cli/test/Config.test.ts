import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { afterAll } from "vitest"
import * as Config from "../src/Config.ts"

const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-config-")))
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))

const write = (name: string, value: unknown): string => {
  const dir = NodePath.join(base, name)
  NodeFs.mkdirSync(dir, { recursive: true })
  NodeFs.writeFileSync(
    NodePath.join(dir, Config.FILE_NAME),
    typeof value === "string" ? value : JSON.stringify(value)
  )
  return dir
}

const failure = (exit: Exit.Exit<Config.Info, Config.ConfigError>) => {
  assert.isTrue(Exit.isFailure(exit))
  const error = Exit.isFailure(exit) ? Exit.findErrorOption(exit) : undefined
  return error?._tag === "Some" ? error.value : undefined
}

describe("Config.load", () => {
  it.effect("reads gatehouse.json of the directory: defaults first, then the file's rules in key order", () =>
    Effect.gen(function* () {
      const dir = write("ok", {
        $schema: "https://example.invalid/schema.json",
        permission: {
          bash: { "*": "ask", "git status": "allow", "rm *": "deny" },
          external_directory: "allow"
        },
        mode: "auto",
        tool_output: { max_lines: 100, max_bytes: 2048, retention_days: 1.5 },
        shell: "zsh"
      })
      const info = yield* Config.load({ cwd: dir })
      assert.strictEqual(info.file, NodePath.join(dir, "gatehouse.json"))
      assert.strictEqual(info.directory, dir)
      assert.strictEqual(info.mode, "auto")
      assert.strictEqual(info.shell, "zsh")
      assert.deepStrictEqual(info.toolOutput, { maxLines: 100, maxBytes: 2048, retentionDays: 1.5 })
      assert.deepStrictEqual(info.ruleset.slice(0, Config.defaults.length), Config.defaults)
      assert.strictEqual(info.ruleset.length, info.sources.length)
      assert.deepStrictEqual(info.sources.slice(Config.defaults.length), [
        'gatehouse.json permission.bash["*"]',
        'gatehouse.json permission.bash["git status"]',
        'gatehouse.json permission.bash["rm *"]',
        "gatehouse.json permission.external_directory"
      ])
      // Later rules win: the file's external_directory allow beats the default ask.
      assert.strictEqual(Permission.evaluate("external_directory", "/tmp/*", info.ruleset).action, "allow")
      assert.strictEqual(Permission.evaluate("bash", "rm -rf x", info.ruleset).action, "deny")
      assert.strictEqual(Permission.evaluate("read", "src/.env", info.ruleset).action, "ask")
      assert.strictEqual(Permission.evaluate("read", ".env.example", info.ruleset).action, "allow")
    })
  )

  it.effect("without a file, the defaults apply and the project root is the directory", () =>
    Effect.gen(function* () {
      const dir = NodePath.join(base, "empty")
      NodeFs.mkdirSync(dir, { recursive: true })
      const info = yield* Config.load({ cwd: dir })
      assert.isUndefined(info.file)
      assert.strictEqual(info.directory, dir)
      assert.strictEqual(info.mode, "ask")
      assert.deepStrictEqual(info.ruleset, Config.defaults)
      assert.strictEqual(Permission.evaluate("doom_loop", "x", info.ruleset).action, "ask")
    })
  )

  it.effect("--config names the file; the project root is its directory", () =>
    Effect.gen(function* () {
      const dir = write("elsewhere", { mode: "yolo" })
      const info = yield* Config.load({ cwd: base, config: NodePath.join(dir, "gatehouse.json") })
      assert.strictEqual(info.mode, "yolo")
      assert.strictEqual(info.directory, dir)
    })
  )

  it.effect("reports unknown keys and wrong types with the JSON path of the offending value", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<[unknown, string]> = [
        [[], ""],
        [{ "odd key": 1 }, '["odd key"]'],
        [{ permission: { edit: { "*": 3 } } }, 'permission.edit["*"]'],
        [{ tool_output: { max_bytes: 1.5 } }, "tool_output.max_bytes"],
        [{ tool_output: [] }, "tool_output"],
        [{ mode: null }, "mode"],
        [{ permission: null }, "permission"],
        [{ sandbox: "strict" }, "sandbox"],
        [{ sandbox: { mode: "on" } }, "sandbox.mode"],
        [{ sandbox: { network: { allow: "github.com" } } }, "sandbox.network"],
        [{ sandbox: { allow_write: ["relative/dir"] } }, "sandbox.allow_write[0]"],
        [{ sandbox: { writable: [] } }, "sandbox.writable"]
      ]
      for (const [index, [value, path]] of cases.entries()) {
        const error = failure(yield* Effect.exit(Config.load({ cwd: write(`bad-${index}`, value) })))
        assert.instanceOf(error, Config.ConfigError)
        assert.strictEqual(error?.path, path, JSON.stringify(value))
        assert.include(error?.message ?? "", "gatehouse.json")
      }
    })
  )

  it.effect("reads the sandbox block: a mode alone, or mode, network and paths", () =>
    Effect.gen(function* () {
      const short = yield* Config.load({ cwd: write("sandbox-short", { sandbox: "enforce" }) })
      assert.deepStrictEqual(short.sandbox, { mode: "enforce" })
      const full = yield* Config.load({
        cwd: write("sandbox-full", {
          sandbox: { mode: "off", network: { allow: ["github.com"] }, allow_write: ["~/.cache"], deny_read: ["/srv"] }
        })
      })
      assert.deepStrictEqual(full.sandbox, {
        mode: "off",
        network: { allow: ["github.com"] },
        allowWrite: ["~/.cache"],
        denyRead: ["/srv"]
      })
      const none = yield* Config.load({ cwd: write("sandbox-none", {}) })
      assert.deepStrictEqual(none.sandbox, {})
    })
  )

  it.effect("a missing --config file or invalid JSON fails, never falls back to defaults", () =>
    Effect.gen(function* () {
      const missing = failure(yield* Effect.exit(Config.load({ cwd: base, config: "nope.json" })))
      assert.include(missing?.message ?? "", "cannot read")
      const broken = failure(yield* Effect.exit(Config.load({ cwd: write("broken", "{ oops") })))
      assert.include(broken?.message ?? "", "not valid JSON")
    })
  )
})
