import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { input, pending, rule, tempDir } from "./support.ts"

const allow = (pattern: string) => rule("bash", pattern, "allow")

/** Runs `effect` with a logger that records every message as text. */
const withLogs = <A, E, R>(effect: Effect.Effect<A, E, R>, logs: Array<string>) =>
  effect.pipe(
    Effect.provide(
      Logger.layer([
        Logger.make((options) => {
          logs.push([options.message].flat().map(String).join(" "))
        })
      ])
    )
  )

describe("ApprovalStore.layerMemory", () => {
  it.effect("keeps rules per project, in append order", () =>
    Effect.gen(function* () {
      const store = yield* ApprovalStore.Service
      assert.deepStrictEqual(yield* store.load("prj_a"), [])
      yield* store.append("prj_a", [allow("ls *")])
      yield* store.append("prj_a", [allow("git status *")])
      assert.deepStrictEqual(yield* store.load("prj_a"), [allow("ls *"), allow("git status *")])
      assert.deepStrictEqual(yield* store.load("prj_b"), [])
    }).pipe(Effect.provide(ApprovalStore.layerMemory))
  )
})

describe("ApprovalStore.layerFile", () => {
  it.effect("writes <directory>/<projectID>.json atomically and reads it back", () =>
    Effect.gen(function* () {
      const dir = NodePath.join(yield* tempDir(), "approvals")
      const layer = ApprovalStore.layerFile(dir)
      yield* Effect.gen(function* () {
        const store = yield* ApprovalStore.Service
        assert.deepStrictEqual(yield* store.load("prj_a"), [])
        yield* store.append("prj_a", [allow("ls *")])
        yield* Effect.all(
          [store.append("prj_a", [allow("pwd")]), store.append("prj_a", [allow("git status *")])],
          { concurrency: "unbounded" }
        )
        yield* store.append("prj_b", [allow("make *")])
      }).pipe(Effect.provide(layer))
      // Only the two project files: no temp file is left behind.
      assert.deepStrictEqual(readdirSync(dir).sort(), ["prj_a.json", "prj_b.json"])
      const saved = JSON.parse(readFileSync(NodePath.join(dir, "prj_a.json"), "utf8"))
      assert.strictEqual(saved.version, 1)
      assert.strictEqual(saved.rules.length, 3)
      // A new layer (a restart) sees every concurrent write.
      const rules = yield* ApprovalStore.Service.use((store) => store.load("prj_a")).pipe(
        Effect.provide(layer)
      )
      assert.deepStrictEqual(rules.map((r) => r.pattern).sort(), ["git status *", "ls *", "pwd"])
    }).pipe(Effect.scoped)
  )

  it.effect("a corrupt file is reported with its path, moved aside, and the next write starts fresh", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = NodePath.join(dir, "prj_bad.json")
      const logs: Array<string> = []
      for (const garbage of ["{not json", JSON.stringify({ version: 1, rules: [{ permission: 1 }] })]) {
        writeFileSync(file, garbage)
        const rules = yield* withLogs(
          ApprovalStore.Service.use((store) => store.load("prj_bad")).pipe(
            Effect.provide(ApprovalStore.layerFile(dir))
          ),
          logs
        )
        assert.deepStrictEqual(rules, [])
      }
      assert.strictEqual(logs.length, 2)
      assert.include(logs[0], file)
      const aside = readdirSync(dir).filter((name) => name.startsWith("prj_bad.json.corrupt-"))
      assert.isAtLeast(aside.length, 1)
      assert.strictEqual(readFileSync(NodePath.join(dir, aside.sort()[0]!), "utf8"), "{not json")
      // Corrupt again, then append: the write is not lost and holds only valid rules.
      writeFileSync(file, "[[[")
      yield* withLogs(
        ApprovalStore.Service.use((store) => store.append("prj_bad", [allow("ls *")])).pipe(
          Effect.provide(ApprovalStore.layerFile(dir))
        ),
        logs
      )
      assert.deepStrictEqual(JSON.parse(readFileSync(file, "utf8")), { version: 1, rules: [allow("ls *")] })
    }).pipe(Effect.scoped)
  )

  it.effect("an unreadable file makes append fail instead of overwriting it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      // A directory where the file should be cannot be read (or replaced).
      mkdirSync(NodePath.join(dir, "prj_x.json"))
      const logs: Array<string> = []
      const error = yield* withLogs(
        Effect.gen(function* () {
          const store = yield* ApprovalStore.Service
          assert.deepStrictEqual(yield* store.load("prj_x"), [])
          return yield* Effect.flip(store.append("prj_x", [allow("ls *")]))
        }).pipe(Effect.provide(ApprovalStore.layerFile(dir))),
        logs
      )
      assert.instanceOf(error, ApprovalStore.WriteError)
      assert.include(error.message, "prj_x.json")
      assert.strictEqual(logs.length, 1)
    }).pipe(Effect.scoped)
  )
})

describe("Permission with ApprovalStore.layerFile", () => {
  const permissionLayer = (storeDir: string) =>
    Permission.layer.pipe(
      Layer.provideMerge(Layer.mergeAll(Bus.layer, ApprovalStore.layerFile(storeDir))),
      Layer.provideMerge(Instance.layer)
    )

  it.effect(
    "an always approval survives a restart, keyed by the project id; a configured deny still wins",
    () =>
      Effect.gen(function* () {
        const project = yield* tempDir()
        const storeDir = NodePath.join(yield* tempDir(), "approvals")
        const config = Permission.fromConfig({ bash: { "*": "ask", "rm *": "deny" } })

        // First run: a person answers "always" for `git status *`.
        yield* Effect.gen(function* () {
          const permission = yield* Permission.Service
          const fiber = yield* Effect.forkChild(
            permission.ask(
              input({
                id: "per_first",
                patterns: ["git status"],
                always: ["git status *", "rm *"],
                ruleset: config
              })
            )
          )
          yield* pending(1)
          yield* permission.reply({ requestID: "per_first", reply: "always" })
          yield* Fiber.join(fiber)
        }).pipe(Instance.provide(project), Effect.scoped, Effect.provide(permissionLayer(storeDir)))

        const file = NodePath.join(storeDir, `${Instance.info(project).projectID}.json`)
        assert.deepStrictEqual(JSON.parse(readFileSync(file, "utf8")).rules, [
          allow("git status *"),
          allow("rm *")
        ])

        // Second run, new layers: the approval holds at once, the configured deny still wins.
        yield* Effect.gen(function* () {
          const permission = yield* Permission.Service
          yield* permission.ask(input({ patterns: ["git status --short"], ruleset: config }))
          assert.deepStrictEqual(yield* permission.list(), [])
          const denied = yield* Effect.flip(
            permission.ask(input({ patterns: ["rm -rf /"], ruleset: config }))
          )
          assert.strictEqual(denied._tag, "PermissionDeniedError")
          // Another project does not inherit it.
          const other = yield* tempDir()
          const fiber = yield* Effect.forkChild(
            permission.ask(input({ patterns: ["git status"], ruleset: config })).pipe(Instance.provide(other))
          )
          yield* pending(1).pipe(Instance.provide(other))
          yield* Fiber.interrupt(fiber)
        }).pipe(Instance.provide(project), Effect.scoped, Effect.provide(permissionLayer(storeDir)))
      }).pipe(Effect.scoped)
  )

  it.effect("a corrupt approvals file never stops the service", () =>
    Effect.gen(function* () {
      const project = yield* tempDir()
      const storeDir = yield* tempDir()
      const file = NodePath.join(storeDir, `${Instance.info(project).projectID}.json`)
      writeFileSync(file, "\u0000garbage")
      const logs: Array<string> = []
      yield* withLogs(
        Effect.gen(function* () {
          const permission = yield* Permission.Service
          const fiber = yield* Effect.forkChild(
            permission.ask(input({ id: "per_c", patterns: ["make"], always: ["make *"] }))
          )
          yield* pending(1)
          yield* permission.reply({ requestID: "per_c", reply: "always" })
          yield* Fiber.join(fiber)
        }).pipe(Instance.provide(project), Effect.scoped, Effect.provide(permissionLayer(storeDir))),
        logs
      )
      assert.isTrue(logs.some((line) => line.includes(file)))
      assert.deepStrictEqual(JSON.parse(readFileSync(file, "utf8")).rules, [allow("make *")])
    }).pipe(Effect.scoped)
  )
})
