/**
 * The project directory a piece of work runs for.
 *
 * `Instance.Current` says which directory the current fiber works for;
 * `Instance.Registry` owns one scope per directory, which `InstanceState` values hang
 * their resources on and which `Instance.dispose(directory)` closes.
 *
 * @since 0.0.0
 */
import * as NodePath from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Sha256 from "./Sha256.ts"

/**
 * What identifies an instance: its absolute directory and a stable id derived from it.
 *
 * @since 0.0.0
 */
export interface Info {
  readonly directory: string
  readonly projectID: string
}

/**
 * The instance the current fiber works for. Provide it with {@link provide}.
 *
 * @since 0.0.0
 */
export class Current extends Context.Service<Current, Info>()("@gatehousejs/core/Instance/Current") {}

/**
 * The instance for `directory` (resolved to an absolute path). The project id is a
 * hash of that path, so the same directory always gets the same id.
 *
 * @since 0.0.0
 */
export const info = (directory: string): Info => {
  const resolved = NodePath.resolve(directory)
  const projectID = `prj_${Sha256.hex(resolved).slice(0, 20)}`
  return { directory: resolved, projectID }
}

/**
 * Runs `effect` for the instance of `directory`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Instance } from "@gatehousejs/core"
 * const program = Effect.map(Instance.Current, (i) => i.directory)
 * Effect.runSync(program.pipe(Instance.provide("/tmp/project"))) // "/tmp/project"
 * ```
 * @since 0.0.0
 */
export const provide =
  (directory: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Current>> =>
    Effect.provideService(effect, Current, info(directory))

/**
 * Owns one scope per live instance.
 *
 * @since 0.0.0
 */
export class Registry extends Context.Service<
  Registry,
  {
    /** The scope of `directory`'s instance, opened on first use. */
    readonly scope: (info: Info) => Effect.Effect<Scope.Scope>
    /** Closes the instance of `directory`: every state made for it is finalised once. */
    readonly dispose: (directory: string) => Effect.Effect<void>
  }
>()("@gatehousejs/core/Instance/Registry") {}

/**
 * The registry. Closing the layer disposes every instance still open.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Registry> = Layer.effect(
  Registry,
  Effect.gen(function* () {
    const scopes = new Map<string, Scope.Closeable>()

    const close = (directory: string) =>
      Effect.suspend(() => {
        const scope = scopes.get(directory)
        if (scope === undefined) return Effect.void
        scopes.delete(directory)
        return Scope.close(scope, Exit.void)
      })

    yield* Effect.addFinalizer(() => Effect.forEach([...scopes.keys()], close, { discard: true }))

    return Registry.of({
      scope: (instance) =>
        Effect.sync(() => {
          let scope = scopes.get(instance.directory)
          if (scope === undefined) {
            scope = Scope.makeUnsafe()
            scopes.set(instance.directory, scope)
          }
          return scope
        }),
      dispose: (directory) => close(NodePath.resolve(directory))
    })
  })
)

/**
 * Disposes the instance of `directory`: its states are finalised (pending permission
 * asks rejected, bus subscribers told and ended). Other directories are untouched.
 *
 * @since 0.0.0
 */
export const dispose = (directory: string): Effect.Effect<void, never, Registry> =>
  Registry.use((registry) => registry.dispose(directory))
