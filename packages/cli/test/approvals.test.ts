// Remembered approvals from the command line: `check` weighs them as `run` does (unless
// --no-approvals), and `gatehouse approvals` lists, revokes and clears them, in the file a
// real `ApprovalStore.layerFile` wrote.
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import type * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as Effect from "effect/Effect"
import { afterAll } from "vitest"

const bin = NodePath.resolve(import.meta.dirname, "../dist/gatehouse.js")
const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-approvals-")))
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))
const data = NodePath.join(base, "data")
const approvals = NodePath.join(data, "gatehouse", "approvals")

const gatehouse = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, SHELL: "/bin/bash", XDG_DATA_HOME: data }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const project = (name: string): string => {
  const dir = NodePath.join(base, name)
  NodeFs.mkdirSync(NodePath.join(dir, ".git"), { recursive: true })
  NodeFs.writeFileSync(
    NodePath.join(dir, "gatehouse.json"),
    JSON.stringify({ permission: { bash: { "*": "ask", "ls *": "allow", "git push *": "deny" } } })
  )
  return dir
}

const remember = (dir: string, rules: Ruleset.Ruleset) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* ApprovalStore.Service
      yield* store.append(Instance.info(dir).projectID, rules)
    }).pipe(Effect.provide(ApprovalStore.layerFile(approvals)))
  )

describe("remembered approvals on the command line", () => {
  it("are the repository's: from a subfolder of it, check and approvals find the ones remembered at its root", {
    timeout: 120_000
  }, async () => {
    const dir = project("subfolder")
    const app = NodePath.join(dir, "app")
    NodeFs.mkdirSync(app)
    await remember(dir, [{ permission: "bash", pattern: "make *", action: "allow" }])
    const verdict = JSON.parse((await gatehouse(["check", "--json", "--", "make test"], app)).stdout)
    assert.strictEqual(verdict.requests[0].approvedBy, "approval")
    const listed = await gatehouse(["approvals", "list", "--json", "--cwd", app], base)
    assert.strictEqual(listed.code, 0, listed.stderr)
    assert.deepStrictEqual(JSON.parse(listed.stdout), [
      { permission: "bash", pattern: "make *", action: "allow" }
    ])
  })

  it("check weighs them as run does, never over a deny; --no-approvals leaves them out", {
    timeout: 120_000
  }, async () => {
    const dir = project("check")
    await remember(dir, [
      { permission: "bash", pattern: "make *", action: "allow" },
      { permission: "bash", pattern: "echo 'a*' | sh", action: "allow", literal: true },
      { permission: "bash", pattern: "git push *", action: "allow" }
    ])
    const verdict = async (...args: Array<string>) =>
      JSON.parse((await gatehouse(["check", "--json", ...args], dir)).stdout)
    const make = await verdict("--", "make test")
    assert.strictEqual(make.decision, "allow")
    assert.strictEqual(make.requests[0].approvedBy, "approval")
    assert.strictEqual(make.requests[0].rules[0].source, "remembered approval")
    assert.strictEqual((await verdict("--no-approvals", "--", "make test")).decision, "ask")
    // The literal approval allows exactly its text, not what its glob characters would match.
    assert.strictEqual((await verdict("--", "echo 'a*' | sh")).decision, "allow")
    assert.strictEqual((await verdict("--", "echo 'ab' | sh")).decision, "ask")
    // A configured deny stands whatever was approved.
    assert.strictEqual((await verdict("--", "git push origin main")).decision, "deny")
    const text = await gatehouse(["check", "--", "make test"], dir)
    assert.include(text.stdout, "(by a remembered approval)")
  })

  it("approvals list, revoke and clear the project's file, and say where it is", {
    timeout: 120_000
  }, async () => {
    const dir = project("manage")
    const other = project("other")
    await remember(dir, [
      { permission: "bash", pattern: "make *", action: "allow" },
      { permission: "edit", pattern: "make *", action: "allow" },
      { permission: "bash", pattern: "npm test", action: "allow" }
    ])
    await remember(other, [{ permission: "bash", pattern: "make *", action: "allow" }])
    const file = ApprovalStore.file(approvals, Instance.info(dir).projectID)

    const listed = await gatehouse(["approvals", "list"], dir)
    assert.strictEqual(listed.code, 0, listed.stderr)
    assert.include(listed.stdout, file)
    assert.include(listed.stdout, 'bash "make *" allow')
    const json = JSON.parse((await gatehouse(["approvals", "list", "--json"], dir)).stdout)
    assert.strictEqual(json.length, 3)

    const revoked = await gatehouse(["approvals", "revoke", "make *", "--permission", "bash"], dir)
    assert.strictEqual(revoked.code, 0, revoked.stderr)
    assert.include(revoked.stdout, 'bash "make *" allow')
    const after = JSON.parse((await gatehouse(["approvals", "list", "--json"], dir)).stdout)
    assert.deepStrictEqual(
      after.map((r: { permission: string; pattern: string }) => `${r.permission} ${r.pattern}`),
      ["edit make *", "bash npm test"]
    )
    const nothing = await gatehouse(["approvals", "revoke", "rm *"], dir)
    assert.strictEqual(nothing.code, 1)
    assert.include(nothing.stderr, 'no remembered approval has the pattern "rm *"')

    const cleared = await gatehouse(["approvals", "clear"], dir)
    assert.strictEqual(cleared.code, 0)
    assert.include(cleared.stdout, "cleared 2")
    assert.deepStrictEqual(JSON.parse((await gatehouse(["approvals", "list", "--json"], dir)).stdout), [])
    // Another project's approvals are untouched.
    assert.strictEqual(JSON.parse((await gatehouse(["approvals", "list", "--json"], other)).stdout).length, 1)

    const bad = await gatehouse(["approvals", "forget"], dir)
    assert.strictEqual(bad.code, 2)
    assert.include(bad.stderr, 'unknown action "forget"')
  })
})
