import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import { eventually, fileAged, makeTruncate, settle, spillFiles } from "./helpers.ts"

// The reaper reads the clock; start the test clock at the real time so mtimes make sense.
const startClock = Effect.sync(() => Date.now()).pipe(Effect.tap((now) => TestClock.setTime(now)))

const exists = (path: string) => () => NodeFs.existsSync(path)
const gone = (path: string) => () => !NodeFs.existsSync(path)

describe("cleanup", () => {
  it.effect("removes tool_* files whose mtime is older than the retention, by mtime only", () =>
    Effect.gen(function* () {
      const now = yield* startClock
      const { truncate, directory } = yield* makeTruncate()
      NodeFs.mkdirSync(directory, { recursive: true })
      const at = (name: string) => NodePath.join(directory, name)
      fileAged(at("tool_old"), "10 days", now, "0123456789")
      fileAged(at("tool_recent"), "3 days", now)
      fileAged(at("notes.txt"), "30 days", now)
      // Ids whose encoded time says the opposite of their mtime: the name must not matter.
      fileAged(at("tool_000000000001000000000000000000"), "1 hour", now)
      fileAged(at(Identifier.ascending("tool")), "8 days", now, "abc")
      const result = yield* truncate.cleanup
      assert.deepStrictEqual(result, { removed: 2, freedBytes: 13 })
      assert.deepStrictEqual(spillFiles(directory), ["tool_000000000001000000000000000000", "tool_recent"])
      assert.isTrue(NodeFs.existsSync(at("notes.txt")), "only tool_* files are touched")
    }).pipe(Effect.scoped)
  )

  it.effect("leaves alone a file it cannot stat", () =>
    Effect.gen(function* () {
      const now = yield* startClock
      const { truncate, directory } = yield* makeTruncate()
      NodeFs.mkdirSync(directory, { recursive: true })
      const dangling = NodePath.join(directory, "tool_dangling")
      NodeFs.symlinkSync(NodePath.join(directory, "missing-target"), dangling)
      const loop = NodePath.join(directory, "tool_loop")
      NodeFs.symlinkSync(loop, loop)
      fileAged(NodePath.join(directory, "tool_expired"), "8 days", now)
      const old = new Date(now - 30 * 24 * 3600 * 1000)
      NodeFs.lutimesSync(dangling, old, old)
      NodeFs.lutimesSync(loop, old, old)
      assert.deepStrictEqual(yield* truncate.cleanup, { removed: 1, freedBytes: 1 })
      assert.deepStrictEqual(spillFiles(directory), ["tool_dangling", "tool_loop"])
    }).pipe(Effect.scoped)
  )

  it.effect("enforces maxDirectoryBytes by removing the oldest files first", () =>
    Effect.gen(function* () {
      const now = yield* startClock
      const { truncate, directory } = yield* makeTruncate({ maxDirectoryBytes: 1000 })
      NodeFs.mkdirSync(directory, { recursive: true })
      for (let hours = 5; hours >= 1; hours--) {
        fileAged(NodePath.join(directory, `tool_${hours}h`), `${hours} hours`, now, "x".repeat(300))
      }
      assert.deepStrictEqual(yield* truncate.cleanup, { removed: 2, freedBytes: 600 })
      assert.deepStrictEqual(spillFiles(directory), ["tool_1h", "tool_2h", "tool_3h"])
    }).pipe(Effect.scoped)
  )

  it.effect("never removes the file of a sink that is still writing", () =>
    Effect.gen(function* () {
      const now = yield* startClock
      const { truncate, directory } = yield* makeTruncate({ maxDirectoryBytes: 1000 })
      const sink = yield* truncate.spill({ maxBytes: 100 })
      yield* sink.append(new Uint8Array(20_000).fill(97))
      const [active] = spillFiles(directory)
      assert.isDefined(active)
      const activePath = NodePath.join(directory, active!)
      const ancient = new Date(now - 30 * 24 * 3600 * 1000)
      NodeFs.utimesSync(activePath, ancient, ancient)
      fileAged(NodePath.join(directory, "tool_other"), "1 hour", now, "y".repeat(10))
      assert.deepStrictEqual(yield* truncate.cleanup, { removed: 1, freedBytes: 10 })
      assert.deepStrictEqual(spillFiles(directory), [active])
      const result = yield* sink.finish
      assert.strictEqual(result.truncated && result.outputPath, activePath)
      assert.strictEqual(NodeFs.statSync(activePath).size, 20_000)
    }).pipe(Effect.scoped)
  )

  it.effect("a missing or unreadable directory is nothing to do", () =>
    Effect.gen(function* () {
      yield* startClock
      const { truncate, root } = yield* makeTruncate()
      assert.deepStrictEqual(yield* truncate.cleanup, { removed: 0, freedBytes: 0 })
      const file = NodePath.join(root, "a-file")
      NodeFs.writeFileSync(file, "")
      const { truncate: onFile } = yield* makeTruncate({ directory: file })
      assert.deepStrictEqual(yield* onFile.cleanup, { removed: 0, freedBytes: 0 })
    }).pipe(Effect.scoped)
  )
})

describe("reaper", () => {
  it.effect("first runs a minute after start, then every reapInterval", () =>
    Effect.gen(function* () {
      const now = yield* startClock
      const { directory } = yield* makeTruncate({ reapInterval: "1 hour" })
      NodeFs.mkdirSync(directory, { recursive: true })
      const first = NodePath.join(directory, "tool_first")
      fileAged(first, "8 days", now)

      yield* TestClock.adjust("59 seconds")
      yield* settle
      assert.isTrue(NodeFs.existsSync(first), "no pass before the first minute")
      yield* TestClock.adjust("1 second")
      yield* eventually(gone(first), "the first pass")
      yield* settle

      const second = NodePath.join(directory, "tool_second")
      fileAged(second, "8 days", now)
      yield* TestClock.adjust("59 minutes")
      yield* settle
      assert.isTrue(NodeFs.existsSync(second), "no pass before the interval")
      yield* TestClock.adjust("1 minute")
      yield* eventually(gone(second), "the second pass")
    }).pipe(Effect.scoped)
  )

  it.effect("ages files against the clock: a file expires once retention has passed", () =>
    Effect.gen(function* () {
      const now = yield* startClock
      const { directory } = yield* makeTruncate({ retention: "2 hours", reapInterval: "1 hour" })
      NodeFs.mkdirSync(directory, { recursive: true })
      const file = NodePath.join(directory, "tool_aging")
      fileAged(file, "30 minutes", now)
      yield* TestClock.adjust("1 minute")
      yield* settle
      assert.isTrue(NodeFs.existsSync(file), "31 minutes old")
      yield* TestClock.adjust("1 hour")
      yield* settle
      assert.isTrue(NodeFs.existsSync(file), "91 minutes old")
      yield* TestClock.adjust("1 hour")
      yield* eventually(gone(file), "151 minutes old")
    }).pipe(Effect.scoped)
  )

  it.effect("stops when the layer closes", () =>
    Effect.gen(function* () {
      const now = yield* startClock
      const { root } = yield* makeTruncate()
      const directory = NodePath.join(root, "closed")
      NodeFs.mkdirSync(directory)
      const expired = NodePath.join(directory, "tool_expired")
      fileAged(expired, "8 days", now)
      const scope = yield* Scope.make()
      yield* makeTruncate({ directory }).pipe(Scope.provide(scope))
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("3 hours")
      yield* settle
      assert.isTrue(NodeFs.existsSync(expired), "no pass after close")
      // The same file under a running layer is reaped, so the assertion above can fail.
      yield* makeTruncate({ directory })
      yield* TestClock.adjust("1 minute")
      yield* eventually(gone(expired), "a pass of the open layer")
      assert.isFalse(exists(expired)())
    }).pipe(Effect.scoped)
  )
})
