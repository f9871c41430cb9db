import { assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import { collect, input, pending, rule, tempDir, until } from "./support.ts"

type Services = Layer.Success<typeof Permission.layerMemory>

const run = <A, E>(
  options: Permission.Options,
  body: (dir: string) => Effect.Effect<A, E, Services | Instance.Current | Scope.Scope>
) =>
  Effect.gen(function* () {
    const dir = yield* tempDir()
    return yield* body(dir).pipe(Instance.provide(dir))
  }).pipe(Effect.scoped, Effect.provide(Permission.layerMemoryWith(options)))

/** Asks and reports whether the ask settled at once or is waiting for a person. */
const outcome = (askInput: Permission.AskInput) =>
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    const fiber = yield* Effect.forkChild(permission.ask(askInput))
    for (let turn = 0; turn < 200; turn++) {
      const exit = fiber.pollUnsafe()
      if (exit !== undefined) {
        if (Exit.isSuccess(exit)) return "approved" as const
        const reason = exit.cause.reasons[0]
        return reason?._tag === "Fail" ? (reason.error as { _tag: string })._tag : "defect"
      }
      if ((yield* permission.list()).length > 0) {
        yield* Fiber.interrupt(fiber)
        return "asks a person" as const
      }
      yield* Effect.yieldNow
    }
    return "stuck" as const
  })

const gitConfig = Permission.fromConfig({ bash: { "*": "allow", "git push *": "ask", "rm *": "deny" } })

describe("Permission.Service.mode", () => {
  it.effect("is the mode the layer was built with, ask by default", () =>
    Effect.gen(function* () {
      for (const mode of ["auto", "yolo"] as const) {
        const seen = yield* run({ mode }, () => Permission.Service.use((p) => Effect.succeed(p.mode)))
        assert.strictEqual(seen, mode)
      }
      assert.strictEqual(yield* run({}, () => Permission.Service.use((p) => Effect.succeed(p.mode))), "ask")
    })
  )
})

describe("mode auto", () => {
  it.effect("approves asks decided by a catch-all rule or the fallback, visibly on the bus", () =>
    run({ mode: "auto" }, () =>
      Effect.gen(function* () {
        const approved = yield* collect(Permission.Event.AutoApproved)
        const asked = yield* collect(Permission.Event.Asked)
        assert.strictEqual(
          yield* outcome(
            input({ id: "per_auto1", ruleset: [rule("bash", "*", "ask")], metadata: { cmd: "ls" } })
          ),
          "approved"
        )
        assert.strictEqual(yield* outcome(input({ id: "per_auto2", ruleset: [] })), "approved")
        assert.strictEqual(yield* outcome(input({ ruleset: [rule("*", "*", "ask")] })), "approved")
        yield* until(() => approved.length === 3, "auto approvals")
        assert.deepStrictEqual(approved[0], {
          id: "per_auto1",
          sessionID: "session_test",
          permission: "bash",
          patterns: ["ls"],
          metadata: { cmd: "ls" },
          always: [],
          asking: ["ls"],
          mode: "auto"
        })
        assert.deepStrictEqual(asked, [])
      })
    )
  )

  it.effect("still asks for a specific ask rule, external_directory, doom_loop and needsPerson", () =>
    run({ mode: "auto" }, () =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome(input({ patterns: ["git push origin"], ruleset: gitConfig })),
          "asks a person"
        )
        // One specific pattern among catch-all ones is enough to ask.
        assert.strictEqual(
          yield* outcome(
            input({ patterns: ["ls", "git push origin"], ruleset: [...gitConfig, rule("bash", "ls", "ask")] })
          ),
          "asks a person"
        )
        const catchAll = [rule("*", "*", "ask")]
        assert.strictEqual(
          yield* outcome(
            input({ permission: "external_directory", patterns: ["/etc/*"], ruleset: catchAll })
          ),
          "asks a person"
        )
        assert.strictEqual(
          yield* outcome(input({ permission: "doom_loop", patterns: ["bash"], ruleset: catchAll })),
          "asks a person"
        )
        assert.strictEqual(yield* outcome(input({ ruleset: catchAll, needsPerson: true })), "asks a person")
        assert.strictEqual(yield* outcome(input({ ruleset: catchAll, needsPerson: false })), "approved")
      })
    )
  )

  it.effect("never overrides a deny", () =>
    run({ mode: "auto" }, () =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome(input({ patterns: ["rm -rf /"], ruleset: gitConfig })),
          "PermissionDeniedError"
        )
      })
    )
  )
})

describe("mode yolo", () => {
  it.effect("approves every ask, never a deny", () =>
    run({ mode: "yolo" }, () =>
      Effect.gen(function* () {
        const approved = yield* collect(Permission.Event.AutoApproved)
        assert.strictEqual(
          yield* outcome(input({ patterns: ["git push origin"], ruleset: gitConfig })),
          "approved"
        )
        assert.strictEqual(
          yield* outcome(
            input({ permission: "external_directory", patterns: ["/etc/*"], needsPerson: true })
          ),
          "approved"
        )
        assert.strictEqual(
          yield* outcome(input({ patterns: ["rm -rf /"], ruleset: gitConfig })),
          "PermissionDeniedError"
        )
        yield* until(() => approved.length === 2, "yolo approvals")
        assert.deepStrictEqual(
          approved.map((event) => event.mode),
          ["yolo", "yolo"]
        )
      })
    )
  )
})

describe("mode yolo and a shell command its caller could not model", () => {
  const fileDenies = Permission.fromConfig({ bash: { "*": "ask" }, edit: { "*": "allow", ".env": "deny" } })
  it.effect("goes to a person where a bash rule denies (the program it hides may be the denied one)", () =>
    run({ mode: "yolo" }, () =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome(input({ patterns: ["git push origin"], ruleset: gitConfig, unmodelled: true })),
          "asks a person"
        )
        // Denies of files only: the sandbox holds those, whatever the command.
        assert.strictEqual(
          yield* outcome(input({ patterns: ["$CMD x"], ruleset: fileDenies, unmodelled: true })),
          "approved"
        )
        // Modelled, or not a shell command: as before.
        assert.strictEqual(
          yield* outcome(input({ patterns: ["git push origin"], ruleset: gitConfig })),
          "approved"
        )
        assert.strictEqual(
          yield* outcome(
            input({ permission: "edit", patterns: [".git/hooks/x"], ruleset: gitConfig, unmodelled: true })
          ),
          "approved"
        )
      })
    )
  )
  it.effect("is refused when no person can be asked", () =>
    run({ mode: "yolo", interactive: false }, () =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome(input({ patterns: ["git push origin"], ruleset: gitConfig, unmodelled: true })),
          "PermissionRejectedError"
        )
      })
    )
  )
})

describe("mode ask (default)", () => {
  it.effect("asks a person even for catch-all rules", () =>
    run({}, () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* outcome(input({ ruleset: [rule("bash", "*", "ask")] })), "asks a person")
      })
    )
  )
})

describe("interactive: false", () => {
  it.effect("an ask that would wait fails at once with reason headless and a rule to add", () =>
    run({ interactive: false }, () =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const asked = yield* collect(Permission.Event.Asked)
        const error = yield* Effect.flip(
          permission.ask(
            input({ patterns: ["git push origin main"], always: ["git push *"], ruleset: gitConfig })
          )
        )
        assert.instanceOf(error, Permission.RejectedError)
        const rejected = error as Permission.RejectedError
        assert.strictEqual(rejected.reason, "headless")
        assert.include(rejected.message, 'bash "git push origin main"')
        assert.include(rejected.message, "not interactive")
        assert.include(rejected.message, '{"bash":{"git push *":"allow"}}')
        // Without a specific "always" pattern the rule names the pattern itself.
        const plain = yield* Effect.flip(permission.ask(input({ patterns: ["make"], always: ["*"] })))
        assert.include(plain.message, '{"bash":{"make":"allow"}}')
        // A call the caller could not model asks whatever the rules say: no rule is suggested.
        const unmodelled = yield* Effect.flip(
          permission.ask(input({ patterns: [":"], always: [":"], unmodelled: true }))
        )
        assert.include(unmodelled.message, "could not model it")
        assert.notInclude(unmodelled.message, "To allow it")
        // Allowed and denied asks are unaffected; nothing was pending or published.
        yield* permission.ask(input({ patterns: ["ls"], ruleset: gitConfig }))
        const denied = yield* Effect.flip(
          permission.ask(input({ patterns: ["rm -rf /"], ruleset: gitConfig }))
        )
        assert.strictEqual(denied._tag, "PermissionDeniedError")
        assert.deepStrictEqual(yield* permission.list(), [])
        assert.deepStrictEqual(asked, [])
      })
    )
  )

  it.effect("with mode auto, catch-all asks pass and specific ones fail closed", () =>
    run({ interactive: false, mode: "auto" }, () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* outcome(input({ ruleset: [rule("bash", "*", "ask")] })), "approved")
        assert.strictEqual(
          yield* outcome(input({ patterns: ["git push origin"], ruleset: gitConfig })),
          "PermissionRejectedError"
        )
      })
    )
  )
})

describe("askTimeout", () => {
  it.effect("rejects a pending ask with reason timeout when it elapses", () =>
    run({ askTimeout: "30 seconds" }, () =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const replied = yield* collect(Permission.Event.Replied)
        const fiber = yield* Effect.forkChild(permission.ask(input({ id: "per_slow" })))
        yield* pending(1)
        yield* TestClock.adjust("29 seconds")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 second")
        const exit = yield* Fiber.await(fiber)
        assert.isTrue(Exit.isFailure(exit))
        const error = yield* Effect.flip(exit)
        assert.instanceOf(error, Permission.RejectedError)
        assert.strictEqual((error as Permission.RejectedError).reason, "timeout")
        assert.deepStrictEqual(yield* permission.list(), [])
        yield* until(() => replied.length === 1, "permission.replied")
        assert.deepStrictEqual(replied[0], {
          sessionID: "session_test",
          requestID: "per_slow",
          reply: "reject",
          reason: "timeout"
        })
      })
    )
  )

  it.effect("a reply in time wins and no timeout follows", () =>
    run({ askTimeout: "30 seconds" }, () =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const replied = yield* collect(Permission.Event.Replied)
        const fiber = yield* Effect.forkChild(permission.ask(input({ id: "per_quick" })))
        yield* pending(1)
        yield* TestClock.adjust("10 seconds")
        yield* permission.reply({ requestID: "per_quick", reply: "once" })
        yield* Fiber.join(fiber)
        yield* TestClock.adjust("1 minute")
        yield* until(() => replied.length === 1, "permission.replied")
        for (let turn = 0; turn < 20; turn++) yield* Effect.yieldNow
        assert.deepStrictEqual(
          replied.map((event) => event.reply),
          ["once"]
        )
      })
    )
  )
})
