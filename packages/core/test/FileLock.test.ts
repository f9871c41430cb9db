import * as fs from "node:fs"
import * as os from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as FileLock from "@gatehousejs/core/FileLock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(NodePath.join(os.tmpdir(), "gatehouse-lock-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("FileLock.withLock", () => {
  it.effect("holds <path>.lock while the work runs and removes it after, also on failure", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = NodePath.join(dir, "state.json")
      const inside = yield* Effect.sync(() => fs.readFileSync(`${path}.lock`, "utf8")).pipe(
        FileLock.withLock(path)
      )
      assert.strictEqual(inside.split("\n")[0], String(process.pid))
      const failed = yield* Effect.fail("boom").pipe(FileLock.withLock(path), Effect.flip)
      assert.strictEqual(failed, "boom")
      assert.deepStrictEqual(fs.readdirSync(dir), [])
    }).pipe(Effect.scoped)
  )

  it.effect("waits for a live owner, then fails naming it once the timeout has passed", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = NodePath.join(dir, "state.json")
      // This very process is the owner: it is alive.
      fs.writeFileSync(`${path}.lock`, `${process.pid}\nother\n`)
      const fiber = yield* Effect.forkChild(
        Effect.succeed("ran").pipe(FileLock.withLock(path, { timeout: "1 second" }))
      )
      // Each poll does real file I/O between its virtual sleeps: let it run, then move the clock.
      for (let step = 0; step < 200 && fiber.pollUnsafe() === undefined; step++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))
        yield* TestClock.adjust("50 millis")
      }
      const error = yield* Fiber.join(fiber).pipe(Effect.flip)
      assert.instanceOf(error, FileLock.LockError)
      assert.include(error.message, `held by process ${process.pid}`)
      // The owner's lock is left alone.
      assert.strictEqual(fs.readFileSync(`${path}.lock`, "utf8"), `${process.pid}\nother\n`)
    }).pipe(Effect.scoped)
  )
})
