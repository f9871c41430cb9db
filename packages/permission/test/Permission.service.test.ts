import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { collect, input, pending, rule, tempDir, until } from "./support.ts"

// Every test builds its own layer (own registry, bus, approvals) and works in a fresh
// temp directory instance.
const run = <A, E>(
  body: (
    dir: string
  ) => Effect.Effect<A, E, Layer.Success<typeof Permission.layerMemory> | Instance.Current | Scope.Scope>,
  layer: Layer.Layer<Layer.Success<typeof Permission.layerMemory>> = Permission.layerMemory
) =>
  Effect.gen(function* () {
    const dir = yield* tempDir()
    return yield* body(dir).pipe(Instance.provide(dir))
  }).pipe(Effect.scoped, Effect.provide(layer))

const failure = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  if (error === undefined || error._tag !== "Fail") throw new Error(`expected a typed failure: ${exit.cause}`)
  return error.error
}

describe("Permission.ask", () => {
  it.effect("returns at once when the ruleset allows", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const result = yield* permission.ask(input({ ruleset: [rule("bash", "*", "allow")] }))
        assert.isUndefined(result)
        assert.deepStrictEqual(yield* permission.list(), [])
      })
    )
  )

  it.effect("fails with DeniedError on a deny, naming the rule and listing the permission's rules", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const ruleset = [rule("bash", "*", "allow"), rule("edit", "*", "deny"), rule("bash", "rm *", "deny")]
        const error = yield* Effect.flip(permission.ask(input({ patterns: ["rm -rf /"], ruleset })))
        assert.instanceOf(error, Permission.DeniedError)
        const denied = error as Permission.DeniedError
        assert.deepStrictEqual(denied.rule, rule("bash", "rm *", "deny"))
        assert.deepStrictEqual(denied.ruleset, [rule("bash", "*", "allow"), rule("bash", "rm *", "deny")])
        assert.include(denied.message, 'bash "rm *" deny')
      })
    )
  )

  it.effect("a deny on any pattern wins and creates nothing pending", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const asked = yield* collect(Permission.Event.Asked)
        const mixed = yield* Effect.flip(
          permission.ask(
            input({
              patterns: ["echo hello", "rm -rf /"],
              ruleset: [rule("bash", "*", "allow"), rule("bash", "rm *", "deny")]
            })
          )
        )
        assert.strictEqual(mixed._tag, "PermissionDeniedError")
        const afterAsk = yield* Effect.flip(
          permission.ask(
            input({
              patterns: ["echo hello", "rm -rf /"],
              ruleset: [rule("bash", "echo *", "ask"), rule("bash", "rm *", "deny")]
            })
          )
        )
        assert.strictEqual(afterAsk._tag, "PermissionDeniedError")
        assert.deepStrictEqual(yield* permission.list(), [])
        assert.deepStrictEqual(asked, [])
      })
    )
  )

  it.effect("returns when every pattern is allowed", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        yield* permission.ask(
          input({ patterns: ["echo hello", "ls -la", "pwd"], ruleset: [rule("bash", "*", "allow")] })
        )
        assert.deepStrictEqual(yield* permission.list(), [])
      })
    )
  )

  it.effect("otherwise waits: the pending request carries the input and is published", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const asked = yield* collect(Permission.Event.Asked)
        const fiber = yield* Effect.forkChild(
          permission.ask(
            input({
              metadata: { cmd: "ls" },
              always: ["ls"],
              tool: { messageID: "msg_test", callID: "call_test" }
            })
          )
        )
        const [request] = yield* pending(1)
        assert.isTrue(request!.id.startsWith("per_"))
        assert.deepStrictEqual(
          { ...request!, id: "" },
          {
            id: "",
            sessionID: "session_test",
            permission: "bash",
            patterns: ["ls"],
            metadata: { cmd: "ls" },
            always: ["ls"],
            asking: ["ls"],
            tool: { messageID: "msg_test", callID: "call_test" }
          }
        )
        yield* until(() => asked.length === 1, "permission.asked")
        assert.deepStrictEqual(asked[0], request)
        assert.isUndefined(fiber.pollUnsafe())
      })
    )
  )

  it.effect("we differ: an empty pattern list is judged as *", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const denied = yield* Effect.flip(
          permission.ask(input({ patterns: [], ruleset: [rule("bash", "*", "deny")] }))
        )
        assert.strictEqual(denied._tag, "PermissionDeniedError")
        yield* Effect.forkChild(permission.ask(input({ id: "per_empty", patterns: [] })))
        const [request] = yield* pending(1)
        assert.deepStrictEqual(request!.patterns, ["*"])
        // Allowed only when `*` itself is allowed.
        yield* permission.ask(input({ patterns: [], ruleset: [rule("bash", "*", "allow")] }))
      })
    )
  )

  it.effect("a second pending ask with the same id fails without disturbing the first", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const first = yield* Effect.forkChild(permission.ask(input({ id: "per_dup" })))
        yield* pending(1)
        const second = yield* Effect.exit(permission.ask(input({ id: "per_dup", patterns: ["pwd"] })))
        assert.isTrue(Exit.isFailure(second))
        assert.strictEqual((yield* permission.list()).length, 1)
        assert.deepStrictEqual((yield* permission.list())[0]!.patterns, ["ls"])
        yield* permission.reply({ requestID: "per_dup", reply: "once" })
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(first)))
      })
    )
  )

  it.effect("interrupting a waiting ask removes it from list() and publishes no reply", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const replied = yield* collect(Permission.Event.Replied)
        const fiber = yield* Effect.forkChild(permission.ask(input({ id: "per_gone" })))
        yield* pending(1)
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual(yield* permission.list(), [])
        const error = yield* Effect.flip(permission.reply({ requestID: "per_gone", reply: "once" }))
        assert.strictEqual(error._tag, "PermissionNotFoundError")
        // A later, real reply is the only permission.replied event.
        const later = yield* Effect.forkChild(permission.ask(input({ id: "per_later" })))
        yield* pending(1)
        yield* permission.reply({ requestID: "per_later", reply: "once" })
        yield* Fiber.join(later)
        yield* until(() => replied.length >= 1, "permission.replied")
        assert.deepStrictEqual(replied, [
          { sessionID: "session_test", requestID: "per_later", reply: "once" }
        ])
      })
    )
  )

  it.effect("a stale cleanup cannot delete a newer request reusing the id", () => {
    // A bus whose permission.replied publishing waits on a gate holds the timed-out ask
    // between its removal from the pending map and its own cleanup.
    const gate = Latch.makeUnsafe(true)
    const GatedBus = Layer.effect(
      Bus.Service,
      Effect.gen(function* () {
        const bus = yield* Bus.Service
        return Bus.Service.of({
          ...bus,
          publish: (definition, properties) =>
            definition.type === Permission.Event.Replied.type
              ? Effect.andThen(gate.await, bus.publish(definition, properties))
              : bus.publish(definition, properties)
        })
      })
    ).pipe(Layer.provide(Bus.layer))
    const layer = Permission.layerWith({ askTimeout: "1 second" }).pipe(
      Layer.provideMerge(Layer.mergeAll(GatedBus, ApprovalStore.layerMemory)),
      Layer.provideMerge(Instance.layer)
    )
    return run(
      () =>
        Effect.gen(function* () {
          const permission = yield* Permission.Service
          yield* gate.close
          const old = yield* Effect.forkChild(permission.ask(input({ id: "per_reuse" })))
          yield* pending(1)
          yield* TestClock.adjust("1 second")
          yield* pending(0)
          assert.isUndefined(old.pollUnsafe(), "the old ask is held before its cleanup")
          const fresh = yield* Effect.forkChild(permission.ask(input({ id: "per_reuse", patterns: ["pwd"] })))
          yield* pending(1)
          yield* gate.open
          const error = failure(yield* Fiber.await(old))
          assert.strictEqual((error as Permission.RejectedError).reason, "timeout")
          const list = yield* permission.list()
          assert.deepStrictEqual(
            list.map((request) => [request.id, request.patterns]),
            [["per_reuse", ["pwd"]]]
          )
          yield* permission.reply({ requestID: "per_reuse", reply: "once" })
          yield* Fiber.join(fresh)
        }),
      layer
    )
  })
})

describe("Permission.reply", () => {
  it.effect("once resolves the ask and publishes exactly { sessionID, requestID, reply }", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const replied = yield* collect(Permission.Event.Replied)
        const fiber = yield* Effect.forkChild(permission.ask(input({ id: "per_test7" })))
        yield* pending(1)
        yield* permission.reply({ requestID: "per_test7", reply: "once" })
        assert.isUndefined(yield* Fiber.join(fiber))
        yield* until(() => replied.length === 1, "permission.replied")
        assert.deepStrictEqual(replied[0], {
          sessionID: "session_test",
          requestID: "per_test7",
          reply: "once"
        })
        assert.deepStrictEqual(yield* permission.list(), [])
      })
    )
  )

  it.effect("reject fails the ask with RejectedError; with a message, CorrectedError", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const plain = yield* Effect.forkChild(permission.ask(input({ id: "per_test2" })))
        yield* pending(1)
        yield* permission.reply({ requestID: "per_test2", reply: "reject" })
        const rejected = failure(yield* Fiber.await(plain))
        assert.instanceOf(rejected, Permission.RejectedError)
        assert.strictEqual((rejected as Permission.RejectedError).reason, "user")

        const corrected = yield* Effect.forkChild(permission.ask(input({ id: "per_test3" })))
        yield* pending(1)
        yield* permission.reply({ requestID: "per_test3", reply: "reject", message: "Use a safer command" })
        const error = failure(yield* Fiber.await(corrected))
        assert.instanceOf(error, Permission.CorrectedError)
        assert.strictEqual((error as Permission.CorrectedError).feedback, "Use a safer command")
        assert.include(String(error), "Use a safer command")
      })
    )
  )

  it.effect("reject cascades to the other pending requests of the session only", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const replied = yield* collect(Permission.Event.Replied)
        const a = yield* Effect.forkChild(permission.ask(input({ id: "per_test4a" })))
        const b = yield* Effect.forkChild(
          permission.ask(input({ id: "per_test4b", permission: "edit", patterns: ["foo.ts"] }))
        )
        const other = yield* Effect.forkChild(
          permission.ask(input({ id: "per_other", sessionID: "session_b" }))
        )
        yield* pending(3)
        yield* permission.reply({ requestID: "per_test4a", reply: "reject" })
        assert.strictEqual(failure(yield* Fiber.await(a))._tag, "PermissionRejectedError")
        assert.strictEqual(failure(yield* Fiber.await(b))._tag, "PermissionRejectedError")
        assert.deepStrictEqual(
          (yield* permission.list()).map((request) => request.id),
          ["per_other"]
        )
        assert.isUndefined(other.pollUnsafe())
        yield* until(() => replied.length === 2, "two replies")
        assert.deepStrictEqual(
          replied.map((event) => [event.requestID, event.reply]),
          [
            ["per_test4a", "reject"],
            ["per_test4b", "reject"]
          ]
        )
      })
    )
  )

  it.effect(
    "always resolves, remembers the always patterns for every session, cascades within the session",
    () =>
      run(() =>
        Effect.gen(function* () {
          const permission = yield* Permission.Service
          const replied = yield* collect(Permission.Event.Replied)
          const a = yield* Effect.forkChild(permission.ask(input({ id: "per_test5a", always: ["ls"] })))
          const b = yield* Effect.forkChild(permission.ask(input({ id: "per_test5b" })))
          const c = yield* Effect.forkChild(
            permission.ask(input({ id: "per_test6b", sessionID: "session_b" }))
          )
          const d = yield* Effect.forkChild(permission.ask(input({ id: "per_test5d", patterns: ["pwd"] })))
          yield* pending(4)
          yield* permission.reply({ requestID: "per_test5a", reply: "always" })
          yield* Fiber.join(a)
          yield* Fiber.join(b)
          // Other sessions and requests the approval does not cover stay pending.
          assert.deepStrictEqual(
            (yield* permission.list()).map((request) => request.id),
            ["per_test6b", "per_test5d"]
          )
          assert.isUndefined(c.pollUnsafe())
          assert.isUndefined(d.pollUnsafe())
          // A different session's next ask passes at once.
          yield* permission.ask(input({ sessionID: "session_c" }))
          yield* until(() => replied.length === 2, "two replies")
          assert.deepStrictEqual(
            replied.map((event) => [event.requestID, event.reply]),
            [
              ["per_test5a", "always"],
              ["per_test5b", "always"]
            ]
          )
        })
      )
  )

  it.effect("we differ: a configured deny beats a live always approval", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const skill = (ruleset: Permission.Ruleset) =>
          input({
            id: "per_skill",
            permission: "skill",
            patterns: ["brainstorming"],
            always: ["brainstorming"],
            ruleset
          })
        const asking = yield* Effect.forkChild(permission.ask(skill(Permission.fromConfig({ skill: "ask" }))))
        yield* pending(1)
        yield* permission.reply({ requestID: "per_skill", reply: "always" })
        yield* Fiber.join(asking)
        // The approval turns the configured ask into allow...
        yield* permission.ask(skill(Permission.fromConfig({ skill: "ask" })))
        // ...but not a configured deny.
        const error = yield* Effect.flip(
          permission.ask(
            skill(
              Permission.merge(
                Permission.fromConfig({ skill: "ask" }),
                Permission.fromConfig({ skill: { brainstorming: "deny" } })
              )
            )
          )
        )
        assert.instanceOf(error, Permission.DeniedError)
        assert.deepInclude((error as Permission.DeniedError).ruleset, rule("skill", "brainstorming", "deny"))
        const configOnly = yield* Effect.flip(
          permission.ask(skill(Permission.fromConfig({ skill: { brainstorming: "deny" } })))
        )
        assert.strictEqual(configOnly._tag, "PermissionDeniedError")
      })
    )
  )

  it.effect("we differ: an unknown or settled id fails with NotFoundError", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const error = yield* Effect.flip(permission.reply({ requestID: "per_unknown", reply: "once" }))
        assert.instanceOf(error, Permission.NotFoundError)
        assert.strictEqual(error.requestID, "per_unknown")
        assert.deepStrictEqual(yield* permission.list(), [])
        const fiber = yield* Effect.forkChild(permission.ask(input({ id: "per_once" })))
        yield* pending(1)
        yield* permission.reply({ requestID: "per_once", reply: "once" })
        yield* Fiber.join(fiber)
        const again = yield* Effect.flip(permission.reply({ requestID: "per_once", reply: "reject" }))
        assert.strictEqual(again._tag, "PermissionNotFoundError")
      })
    )
  )

  it.effect("we differ: of two concurrent replies exactly one wins", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const fiber = yield* Effect.forkChild(permission.ask(input({ id: "per_race" })))
        yield* pending(1)
        const [first, second] = yield* Effect.all(
          [
            Effect.exit(permission.reply({ requestID: "per_race", reply: "once" })),
            Effect.exit(permission.reply({ requestID: "per_race", reply: "reject" }))
          ],
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual([Exit.isSuccess(first!), Exit.isSuccess(second!)], [true, false])
        assert.strictEqual(failure(second!)._tag, "PermissionNotFoundError")
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)))
      })
    )
  )

  it.effect("interrupting a reply cannot orphan the waiting ask", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const asking = yield* Effect.forkChild(permission.ask(input({ id: "per_orphan" })))
        yield* pending(1)
        const replying = yield* Effect.forkChild(
          permission.reply({ requestID: "per_orphan", reply: "once" }),
          {
            startImmediately: true
          }
        )
        yield* Fiber.interrupt(replying)
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(asking)))
        assert.deepStrictEqual(yield* permission.list(), [])
      })
    )
  )
})

describe("Permission instances and sessions", () => {
  it.effect("pending requests are isolated per directory", () =>
    Effect.gen(function* () {
      const permission = yield* Permission.Service
      const dirA = yield* tempDir()
      const dirB = yield* tempDir()
      const a = yield* Effect.forkChild(
        permission.ask(input({ id: "per_dir_a" })).pipe(Instance.provide(dirA))
      )
      const b = yield* Effect.forkChild(
        permission.ask(input({ id: "per_dir_b" })).pipe(Instance.provide(dirB))
      )
      yield* pending(1).pipe(Instance.provide(dirA))
      yield* pending(1).pipe(Instance.provide(dirB))
      assert.deepStrictEqual(
        (yield* permission.list().pipe(Instance.provide(dirA))).map((request) => request.id),
        ["per_dir_a"]
      )
      // A reply in the wrong directory does not find the request.
      const wrong = yield* Effect.flip(
        permission.reply({ requestID: "per_dir_a", reply: "once" }).pipe(Instance.provide(dirB))
      )
      assert.strictEqual(wrong._tag, "PermissionNotFoundError")
      yield* permission.reply({ requestID: "per_dir_a", reply: "once" }).pipe(Instance.provide(dirA))
      yield* permission.reply({ requestID: "per_dir_b", reply: "once" }).pipe(Instance.provide(dirB))
      yield* Fiber.join(a)
      yield* Fiber.join(b)
    }).pipe(Effect.scoped, Effect.provide(Permission.layerMemory))
  )

  it.effect("disposing the instance rejects its pending asks (reason disposed); a reload starts clean", () =>
    run((dir) =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const fiber = yield* Effect.forkChild(permission.ask(input({ ruleset: [rule("bash", "*", "ask")] })))
        yield* pending(1)
        yield* Instance.dispose(dir)
        const error = failure(yield* Fiber.await(fiber))
        assert.instanceOf(error, Permission.RejectedError)
        assert.strictEqual((error as Permission.RejectedError).reason, "disposed")
        // The reloaded instance has a fresh, working state.
        assert.deepStrictEqual(yield* permission.list(), [])
        const again = yield* Effect.forkChild(permission.ask(input({ id: "per_after_reload" })))
        yield* pending(1)
        yield* permission.reply({ requestID: "per_after_reload", reply: "once" })
        yield* Fiber.join(again)
      })
    )
  )

  it.effect("rejectSession rejects that session's pending asks (reason session-cancelled)", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const replied = yield* collect(Permission.Event.Replied)
        const a = yield* Effect.forkChild(permission.ask(input({ id: "per_a1" })))
        const b = yield* Effect.forkChild(permission.ask(input({ id: "per_b1", sessionID: "session_b" })))
        yield* pending(2)
        yield* permission.rejectSession("session_test")
        const error = failure(yield* Fiber.await(a))
        assert.strictEqual((error as Permission.RejectedError).reason, "session-cancelled")
        assert.include(error.message, "cancelled")
        assert.deepStrictEqual(
          (yield* permission.list()).map((request) => request.id),
          ["per_b1"]
        )
        assert.isUndefined(b.pollUnsafe())
        yield* until(() => replied.length === 1, "permission.replied")
        assert.deepStrictEqual(replied[0], {
          sessionID: "session_test",
          requestID: "per_a1",
          reply: "reject",
          reason: "session-cancelled"
        })
      })
    )
  )

  it.effect("list() returns pending requests in ask order", () =>
    run(() =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const ids = ["per_3", "per_1", "per_2"]
        for (const [index, id] of ids.entries()) {
          yield* Effect.forkChild(permission.ask(input({ id })))
          yield* pending(index + 1)
        }
        const list = yield* permission.list()
        assert.deepStrictEqual(
          list.map((request) => request.id),
          ["per_3", "per_1", "per_2"]
        )
      })
    )
  )
})

describe("Permission with a store other processes write to (ApprovalStore.changes)", () => {
  it.effect(
    "an approval remembered elsewhere applies to the next ask here; a configured deny still wins",
    () =>
      Effect.gen(function* () {
        const arrived = yield* Deferred.make<ReadonlyArray<Permission.Rule>>()
        const applied = yield* Deferred.make<void>()
        // The stream pulls its second element only once the first has been handled.
        const changes = Stream.fromEffect(Deferred.await(arrived)).pipe(
          Stream.concat(Stream.fromEffect(Deferred.succeed(applied, undefined)).pipe(Stream.drain)),
          Stream.concat(Stream.never)
        )
        const Shared = Layer.succeed(
          ApprovalStore.Service,
          ApprovalStore.Service.of({
            load: () => Effect.succeed([]),
            append: () => Effect.void,
            changes: () => changes
          })
        )
        const layer = Permission.layer.pipe(
          Layer.provideMerge(Layer.mergeAll(Bus.layer, Shared)),
          Layer.provideMerge(Instance.layer)
        )
        yield* run(
          () =>
            Effect.gen(function* () {
              const permission = yield* Permission.Service
              const waiting = yield* Effect.forkChild(permission.ask(input({ id: "per_before" })))
              yield* pending(1)
              yield* Deferred.succeed(arrived, [rule("bash", "ls", "allow"), rule("bash", "rm *", "allow")])
              yield* Deferred.await(applied)
              // The next ask passes at once; what already waited is its server's to settle.
              yield* permission.ask(input({ sessionID: "session_other" }))
              assert.isUndefined(waiting.pollUnsafe())
              const denied = yield* Effect.flip(
                permission.ask(input({ patterns: ["rm -rf x"], ruleset: [rule("bash", "rm *", "deny")] }))
              )
              assert.instanceOf(denied, Permission.DeniedError)
              assert.deepStrictEqual(
                (yield* permission.list()).map((request) => request.id),
                ["per_before"]
              )
            }),
          layer
        )
      })
  )
})
