import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"

/** A fresh temp directory (removed with the scope) and a service whose spill folder is inside it. */
export const makeTruncate = (
  options: Truncate.LayerOptions = {}
): Effect.Effect<
  { readonly root: string; readonly directory: string; readonly truncate: Truncate.Interface },
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const root = yield* fs.makeTempDirectoryScoped({ prefix: "gatehouse-truncate-" }).pipe(Effect.orDie)
    const directory = options.directory ?? NodePath.join(root, "tool-output")
    const context = yield* Layer.build(Truncate.layerWith({ ...options, directory }))
    return { root, directory, truncate: Context.get(context, Truncate.Service) }
  }).pipe(Effect.provide(NodeFileSystem.layer))

/** Names of the spill files in `directory` (none when it does not exist). */
export const spillFiles = (directory: string): Array<string> =>
  NodeFs.existsSync(directory)
    ? NodeFs.readdirSync(directory)
        .filter((name) => name.startsWith("tool_"))
        .sort()
    : []

/** Polls `condition` on real time (the test clock does not wait for file I/O). */
export const eventually = (condition: () => boolean, what: string): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let i = 0; i < 300; i++) {
      if (condition()) return
      yield* TestClock.withLive(Effect.sleep("10 millis"))
    }
    return yield* Effect.die(new Error(`timed out waiting for: ${what}`))
  })

/** Lets background fibers run for a moment of real time. */
export const settle = TestClock.withLive(Effect.sleep("50 millis"))

/** Writes a file and sets its mtime `age` before `now`. */
export const fileAged = (path: string, age: Duration.Input, now: number, content = "x"): void => {
  NodeFs.writeFileSync(path, content)
  const when = new Date(now - Duration.toMillis(age))
  NodeFs.utimesSync(path, when, when)
}

/** Deterministic PRNG (mulberry32), so a failing random case can be replayed. */
export const random = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(0, items.length - 1)]!
  return { next, int, pick }
}
