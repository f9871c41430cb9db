import { assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as InstanceState from "@gatehousejs/core/InstanceState"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"

describe("Instance", () => {
  it("derives a stable project id from the resolved directory", () => {
    const a = Instance.info("/tmp/project/../project")
    assert.strictEqual(a.directory, "/tmp/project")
    assert.strictEqual(a.projectID, Instance.info("/tmp/project").projectID)
    assert.notStrictEqual(a.projectID, Instance.info("/tmp/other").projectID)
  })

  it.effect("provide sets the current instance for the effect", () =>
    Effect.gen(function* () {
      const info = yield* Instance.Current.pipe(Instance.provide("/tmp/x"))
      assert.strictEqual(info.directory, "/tmp/x")
    })
  )
})

describe("InstanceState", () => {
  it.effect("gives each directory its own value", () =>
    Effect.gen(function* () {
      const state = yield* InstanceState.make((instance) => Ref.make([instance.directory]))
      const a = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/a"))
      const b = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/b"))
      yield* Ref.update(a, (xs) => [...xs, "touched"])
      assert.deepStrictEqual(yield* Ref.get(a), ["/tmp/a", "touched"])
      assert.deepStrictEqual(yield* Ref.get(b), ["/tmp/b"])
      assert.strictEqual(yield* InstanceState.get(state).pipe(Instance.provide("/tmp/a")), a)
    }).pipe(Effect.provide(Instance.layer), Effect.scoped)
  )

  it.effect("creates one value under concurrent first use", () =>
    Effect.gen(function* () {
      const inits = yield* Ref.make(0)
      const state = yield* InstanceState.make(() =>
        Effect.gen(function* () {
          yield* Ref.update(inits, (n) => n + 1)
          // Give the other fibers every chance to race past the first one.
          for (let i = 0; i < 10; i++) yield* Effect.yieldNow
          return { created: Math.random() }
        })
      )
      const values = yield* Effect.all(
        Array.from({ length: 100 }, () => InstanceState.get(state).pipe(Instance.provide("/tmp/race"))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(yield* Ref.get(inits), 1)
      assert.strictEqual(new Set(values).size, 1)
    }).pipe(Effect.provide(Instance.layer), Effect.scoped)
  )

  it.effect("disposal runs the finaliser once and leaves other directories alone", () =>
    Effect.gen(function* () {
      const finalised = yield* Ref.make<Array<string>>([])
      const state = yield* InstanceState.make((instance) =>
        Effect.gen(function* () {
          yield* Effect.addFinalizer(() => Ref.update(finalised, (xs) => [...xs, instance.directory]))
          return { directory: instance.directory }
        })
      )
      const a1 = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/a"))
      const b1 = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/b"))
      yield* Instance.dispose("/tmp/a")
      yield* Instance.dispose("/tmp/a")
      assert.deepStrictEqual(yield* Ref.get(finalised), ["/tmp/a"])
      assert.isFalse(yield* InstanceState.has(state).pipe(Instance.provide("/tmp/a")))
      assert.strictEqual(yield* InstanceState.get(state).pipe(Instance.provide("/tmp/b")), b1)
      // A disposed directory gets a fresh value on its next use.
      const a2 = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/a"))
      assert.notStrictEqual(a2, a1)
    }).pipe(Effect.provide(Instance.layer), Effect.scoped)
  )

  it.effect("closing the declaring scope finalises every value", () =>
    Effect.gen(function* () {
      const finalised = yield* Ref.make(0)
      const scope = yield* Scope.make()
      const state = yield* InstanceState.make(() =>
        Effect.addFinalizer(() => Ref.update(finalised, (n) => n + 1))
      ).pipe(Scope.provide(scope))
      yield* InstanceState.get(state).pipe(Instance.provide("/tmp/a"))
      yield* InstanceState.get(state).pipe(Instance.provide("/tmp/b"))
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* Ref.get(finalised), 2)
      // Disposing the instances later must not run the finalisers a second time.
      yield* Instance.dispose("/tmp/a")
      assert.strictEqual(yield* Ref.get(finalised), 2)
    }).pipe(Effect.provide(Instance.layer), Effect.scoped)
  )

  it.effect("an interrupted creator leaves concurrent waiters to create the value themselves", () =>
    Effect.gen(function* () {
      const calls = yield* Ref.make(0)
      const started = yield* Deferred.make<void>()
      const state = yield* InstanceState.make(() =>
        Effect.gen(function* () {
          const call = yield* Ref.updateAndGet(calls, (n) => n + 1)
          // The first creation hangs until it is interrupted; the retry succeeds at once.
          if (call === 1) yield* Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never))
          return call
        })
      )
      const creator = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/i"), Effect.forkChild)
      yield* Deferred.await(started)
      const waiter = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/i"), Effect.forkChild)
      yield* Effect.yieldNow
      yield* Fiber.interrupt(creator)
      assert.strictEqual(yield* Fiber.join(waiter), 2)
    }).pipe(Effect.provide(Instance.layer), Effect.scoped)
  )

  it.effect("a failed creation is not cached", () =>
    Effect.gen(function* () {
      const attempts = yield* Ref.make(0)
      const state = yield* InstanceState.make(() =>
        Ref.updateAndGet(attempts, (n) => n + 1).pipe(
          Effect.flatMap((n) => (n === 1 ? Effect.fail("first attempt fails" as const) : Effect.succeed(n)))
        )
      )
      const first = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/f"), Effect.exit)
      assert.isTrue(Exit.isFailure(first))
      const second = yield* InstanceState.get(state).pipe(Instance.provide("/tmp/f"))
      assert.strictEqual(second, 2)
    }).pipe(Effect.provide(Instance.layer), Effect.scoped)
  )

  it.effect("the registry's layer closing disposes every instance", () =>
    Effect.gen(function* () {
      const finalised = yield* Ref.make(0)
      yield* Effect.gen(function* () {
        const state = yield* InstanceState.make(() =>
          Effect.addFinalizer(() => Ref.update(finalised, (n) => n + 1))
        )
        yield* InstanceState.get(state).pipe(Instance.provide("/tmp/a"))
      }).pipe(Effect.provide(Layer.fresh(Instance.layer)), Effect.scoped)
      assert.strictEqual(yield* Ref.get(finalised), 1)
    })
  )
})
