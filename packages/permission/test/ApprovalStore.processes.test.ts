import { spawn } from "node:child_process"
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Effect from "effect/Effect"
import { tempDir } from "./support.ts"

// One Gatehouse process answering "always" `count` times, one append per answer, as
// Permission.reply does. It starts when its stdin closes, so all processes start together.
const APPROVER = `
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Effect from "effect/Effect"
const [dir, name, count] = process.argv.slice(1)
process.stdin.resume()
process.stdin.on("end", () =>
  Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* ApprovalStore.Service
      for (let i = 0; i < Number(count); i++)
        yield* store.append("prj_shared", [{ permission: "bash", pattern: name + " " + i, action: "allow" }])
    }).pipe(Effect.provide(ApprovalStore.layerFile(dir)))
  ).then(
    () => process.exit(0),
    (error) => { console.error(String(error)); process.exit(1) }
  )
)
process.stdout.write("ready\\n")
`

const PACKAGE = NodePath.resolve(import.meta.dirname, "..")

const approver = (dir: string, name: string, count: number) => {
  const child = spawn(process.execPath, ["--input-type=module", "-e", APPROVER, dir, name, String(count)], {
    cwd: PACKAGE,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.on("data", (chunk) => {
    stderr += chunk
  })
  const ready = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, stderr }))
  )
  return { child, ready, exit }
}

describe("ApprovalStore.layerFile across processes", () => {
  it.effect(
    "4 processes answering 25 always each at the same time: the file keeps all 100",
    () =>
      Effect.gen(function* () {
        const dir = NodePath.join(yield* tempDir(), "approvals")
        const PROCESSES = 4
        const EACH = 25
        const children = Array.from({ length: PROCESSES }, (_, n) => approver(dir, `p${n}`, EACH))
        const exits = yield* Effect.promise(async () => {
          await Promise.all(children.map((c) => c.ready))
          for (const c of children) c.child.stdin.end()
          return Promise.all(children.map((c) => c.exit))
        })
        for (const exit of exits) assert.deepStrictEqual(exit, { code: 0, stderr: "" })
        const file = NodePath.join(dir, "prj_shared.json")
        const saved = JSON.parse(readFileSync(file, "utf8")) as { rules: Array<{ pattern: string }> }
        console.log(
          `approvals: ${PROCESSES * EACH} written by ${PROCESSES} processes, ${saved.rules.length} kept`
        )
        assert.strictEqual(saved.rules.length, PROCESSES * EACH)
        const expected = children.flatMap((_, n) => Array.from({ length: EACH }, (_, i) => `p${n} ${i}`))
        assert.deepStrictEqual(saved.rules.map((rule) => rule.pattern).sort(), expected.sort())
        // Each process's own answers stay in the order it gave them.
        for (let n = 0; n < PROCESSES; n++) {
          const own = saved.rules
            .map((rule) => rule.pattern)
            .filter((pattern) => pattern.startsWith(`p${n} `))
          assert.deepStrictEqual(
            own,
            Array.from({ length: EACH }, (_, i) => `p${n} ${i}`)
          )
        }
        // No lock or temporary file is left, and the file and directory are private.
        assert.deepStrictEqual(readdirSync(dir), ["prj_shared.json"])
        assert.strictEqual(statSync(file).mode & 0o777, 0o600)
        assert.strictEqual(statSync(dir).mode & 0o777, 0o700)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.effect("a lock left by a process killed while it held it is taken over", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      // A pid that cannot be running: the kernel's pid_max is below 2^22 on 64-bit Linux.
      writeFileSync(NodePath.join(dir, "prj_a.json.lock"), "4194304999\nstale\n")
      yield* ApprovalStore.Service.use((store) =>
        store.append("prj_a", [{ permission: "bash", pattern: "ls *", action: "allow" }])
      ).pipe(Effect.provide(ApprovalStore.layerFile(dir)))
      assert.deepStrictEqual(readdirSync(dir), ["prj_a.json"])
      assert.strictEqual(JSON.parse(readFileSync(NodePath.join(dir, "prj_a.json"), "utf8")).rules.length, 1)
    }).pipe(Effect.scoped)
  )

  it.effect("an existing approvals file and directory readable by others are made private", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = NodePath.join(dir, "prj_a.json")
      writeFileSync(file, JSON.stringify({ version: 1, rules: [] }), { mode: 0o644 })
      yield* Effect.promise(async () => (await import("node:fs/promises")).chmod(dir, 0o755))
      yield* ApprovalStore.Service.use((store) => store.load("prj_a")).pipe(
        Effect.provide(ApprovalStore.layerFile(dir))
      )
      assert.strictEqual(statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(statSync(dir).mode & 0o777, 0o700)
    }).pipe(Effect.scoped)
  )
})
