/**
 * State kept per instance (project directory): created on first use from the current
 * `Instance`, one value per directory even under concurrent first use, and finalised
 * when the instance is disposed or the layer that made it closes.
 *
 * @example
 * ```ts
 * import { Effect, Ref } from "effect"
 * import { Instance, InstanceState } from "@gatehousejs/core"
 *
 * const program = Effect.gen(function* () {
 *   const counters = yield* InstanceState.make(() => Ref.make(0))
 *   const ref = yield* InstanceState.get(counters).pipe(Instance.provide("/tmp/a"))
 *   yield* Ref.update(ref, (n) => n + 1)
 * })
 * ```
 * @since 0.0.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Instance from "./Instance.ts"

const TypeId = "~@gatehousejs/core/InstanceState"

// What waiters get when the fiber creating the value was interrupted: try again, since
// nobody interrupted them.
const RETRY: unique symbol = Symbol.for("@gatehousejs/core/InstanceState/retry")

interface Entry<A, E> {
  readonly deferred: Deferred.Deferred<A | typeof RETRY, E>
  // Set once created, so the hot path (every publish, every ask) skips the Deferred.
  value?: Effect.Effect<A>
  created?: { readonly value: A }
}

/**
 * A per-instance value of type `A`, whose creation may fail with `E`.
 *
 * @since 0.0.0
 */
export interface InstanceState<A, E = never> {
  readonly [TypeId]: typeof TypeId
  /** @internal */
  readonly entries: Map<string, Entry<A, E>>
  /** @internal */
  readonly create: (info: Instance.Info, entry: Entry<A, E>) => Effect.Effect<A, E>
}

/**
 * Declares per-instance state. `init` runs once per directory, in a scope that closes
 * when that instance is disposed (so `Effect.addFinalizer` inside it is the state's
 * finaliser). The services `init` needs are captured from the caller now.
 *
 * @since 0.0.0
 */
export const make = <A, E = never, R = never>(
  init: (instance: Instance.Info) => Effect.Effect<A, E, R>
): Effect.Effect<
  InstanceState<A, E>,
  never,
  Exclude<R, Scope.Scope | Instance.Current> | Instance.Registry | Scope.Scope
> =>
  Effect.gen(function* () {
    const registry = yield* Instance.Registry
    const context = yield* Effect.context<Exclude<R, Scope.Scope | Instance.Current>>()
    const entries = new Map<string, Entry<A, E>>()
    const scopes = new Set<Scope.Closeable>()

    // When the layer that declared this state closes, every value it made is finalised.
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...scopes], (scope) => Scope.close(scope, Exit.void), { discard: true })
    )

    const create = (info: Instance.Info, entry: Entry<A, E>): Effect.Effect<A, E> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const parent = yield* registry.scope(info)
          const scope = yield* Scope.fork(parent)
          scopes.add(scope)
          yield* Scope.addFinalizer(
            scope,
            Effect.sync(() => {
              scopes.delete(scope)
              // A later value for the same directory must survive this one's cleanup.
              if (entries.get(info.directory) === entry) entries.delete(info.directory)
            })
          )
          const exit = yield* restore(init(info)).pipe(
            Effect.provideService(Scope.Scope, scope),
            Effect.provideService(Instance.Current, info),
            Effect.provideContext(context as Context.Context<R>),
            Effect.exit
          )
          if (Exit.isSuccess(exit)) {
            entry.value = Effect.succeed(exit.value)
            entry.created = { value: exit.value }
            yield* Deferred.succeed(entry.deferred, exit.value)
          } else {
            yield* Scope.close(scope, exit)
            if (Cause.hasInterruptsOnly(exit.cause)) yield* Deferred.succeed(entry.deferred, RETRY)
            else yield* Deferred.done(entry.deferred, exit)
          }
          return yield* exit
        })
      )

    return { [TypeId]: TypeId, entries, create } satisfies InstanceState<A, E>
  })

/**
 * The value for the current instance, created now if this is its first use.
 *
 * @since 0.0.0
 */
export const get = <A, E>(state: InstanceState<A, E>): Effect.Effect<A, E, Instance.Current> =>
  // withFiber reads the current instance without an extra flatMap: this runs per publish.
  Effect.withFiber((fiber) => {
    const info = Context.getUnsafe(fiber.context as Context.Context<Instance.Current>, Instance.Current)
    const existing = state.entries.get(info.directory)
    if (existing !== undefined) {
      return (
        existing.value ??
        Effect.flatMap(Deferred.await(existing.deferred), (value) =>
          value === RETRY ? get(state) : Effect.succeed(value)
        )
      )
    }
    const entry: Entry<A, E> = { deferred: Deferred.makeUnsafe() }
    state.entries.set(info.directory, entry)
    return state.create(info, entry)
  })

/**
 * `get`, then `f` of the value: once the value exists, `f` runs without an extra step (for
 * hot paths such as every publish).
 *
 * @since 0.0.0
 */
export const use = <A, E, B, E2, R2>(
  state: InstanceState<A, E>,
  f: (value: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R2 | Instance.Current> =>
  Effect.withFiber((fiber) => {
    const info = Context.getUnsafe(fiber.context as Context.Context<Instance.Current>, Instance.Current)
    const created = state.entries.get(info.directory)?.created
    return created !== undefined ? f(created.value) : Effect.flatMap(get(state), f)
  })

/**
 * Whether the current instance already has a value (without creating one).
 *
 * @since 0.0.0
 */
export const has = <A, E>(state: InstanceState<A, E>): Effect.Effect<boolean, never, Instance.Current> =>
  Effect.map(Instance.Current, (info) => state.entries.has(info.directory))
