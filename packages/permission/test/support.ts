// Helpers shared by the Permission service tests.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import * as Bus from "@gatehousejs/core/Bus"
import type * as BusEvent from "@gatehousejs/core/BusEvent"
import type * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** A fresh temp directory, removed when the scope closes. */
export const tempDir = (prefix = "gatehouse-permission-"): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(NodePath.join(tmpdir(), prefix))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** Collects the properties of every `definition` event published from now on. */
export const collect = <D extends BusEvent.Definition>(
  definition: D
): Effect.Effect<Array<D["properties"]["Type"]>, never, Bus.Service | Instance.Current | Scope.Scope> =>
  Effect.gen(function* () {
    const bus = yield* Bus.Service
    const stream = yield* bus.subscribe(definition)
    const items: Array<D["properties"]["Type"]> = []
    yield* Effect.forkScoped(
      Stream.runForEach(stream, (event) => Effect.sync(() => items.push(event.properties)))
    )
    return items
  })

/** Lets other fibers run until `condition` holds (fails the test after many turns). */
export const until = (condition: () => boolean, what = "condition"): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 10_000; turn++) {
      if (condition()) return
      yield* Effect.yieldNow
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

/** Waits until the current instance has `count` pending requests. */
export const pending = (count: number) =>
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    let current: ReadonlyArray<Permission.Request> = []
    for (let turn = 0; turn < 10_000; turn++) {
      current = yield* permission.list()
      if (current.length === count) return current
      yield* Effect.yieldNow
    }
    return yield* Effect.die(new Error(`expected ${count} pending requests, have ${current.length}`))
  })

/** An ask input with defaults. */
export const input = (overrides: Partial<Permission.AskInput> = {}): Permission.AskInput => ({
  sessionID: "session_test",
  permission: "bash",
  patterns: ["ls"],
  metadata: {},
  always: [],
  ruleset: [],
  ...overrides
})

export const rule = (permission: string, pattern: string, action: Permission.Action): Permission.Rule => ({
  permission,
  pattern,
  action
})
