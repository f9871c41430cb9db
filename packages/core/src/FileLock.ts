/**
 * An advisory lock between processes on one machine, for read-merge-write of a shared file.
 *
 * Node has no `flock`, so the lock is a file created with `O_CREAT | O_EXCL` (`<path>.lock`,
 * mode 0600) holding the owner's pid; it is removed when the work ends. A lock whose owner
 * is gone (a process killed with `kill -9` while it held it) is taken over: it is renamed
 * aside under a unique name, and only the process whose rename succeeded removes it. A live
 * owner is waited for (polling with backoff) up to `timeout`, then the work fails with
 * {@link LockError} naming the owner.
 *
 * @since 0.1.0
 */
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

// Loaded on first use: importing node:crypto costs a one-shot command ~10 ms it rarely needs.
const crypto = () => process.getBuiltinModule("node:crypto")

/**
 * The lock could not be taken: another process held it for longer than the timeout, or the
 * lock file could not be created.
 *
 * @since 0.1.0
 */
export class LockError extends Schema.TaggedError<LockError>()("FileLockError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `could not lock ${this.path}: ${this.reason}`
  }
}

const code = (cause: unknown) => (cause as NodeJS.ErrnoException | undefined)?.code

const errorText = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** Whether process `pid` exists on this machine (EPERM: it does, owned by someone else). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return code(cause) === "EPERM"
  }
}

type Attempt = { readonly _tag: "Taken" } | { readonly _tag: "Held"; readonly owner: string }

const tryTake = async (lock: string, stamp: string): Promise<Attempt> => {
  try {
    const handle = await NodeFs.open(lock, "wx", 0o600)
    try {
      await handle.writeFile(stamp)
    } finally {
      await handle.close()
    }
    return { _tag: "Taken" }
  } catch (cause) {
    if (code(cause) !== "EEXIST") throw cause
  }
  const owner = await NodeFs.readFile(lock, "utf8").catch(() => "")
  const pid = Number.parseInt(owner, 10)
  // An empty file is one being written this instant: wait for it like a live owner.
  if (Number.isInteger(pid) && pid > 0 && !alive(pid)) {
    const aside = `${lock}.stale-${crypto().randomBytes(6).toString("hex")}`
    const renamed = await NodeFs.rename(lock, aside).then(
      () => true,
      () => false
    )
    if (renamed) {
      const taken = await NodeFs.readFile(aside, "utf8").catch(() => "")
      await NodeFs.rm(aside, { force: true })
      // Another process took it over and locked it again between our read and our rename:
      // we removed a live lock; say it is held so we retry, and the owner's release is a no-op.
      if (taken !== owner) return { _tag: "Held", owner: taken }
    }
    return tryTake(lock, stamp)
  }
  return { _tag: "Held", owner }
}

/**
 * Runs `effect` while holding the lock `<path>.lock`, then releases it (also on failure or
 * interruption).
 *
 * @example
 * ```ts
 * import * as FileLock from "@gatehousejs/core/FileLock"
 * import * as Effect from "effect/Effect"
 *
 * const merged = FileLock.withLock("/tmp/gatehouse-example/approvals.json")(Effect.log("read, merge, write"))
 * ```
 * @since 0.1.0
 */
export const withLock =
  (path: string, options: { readonly timeout?: Duration.Input } = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | LockError, R> => {
    const lock = `${path}.lock`
    const timeout = Duration.toMillis(Duration.fromInputUnsafe(options.timeout ?? "10 seconds"))
    const stamp = `${process.pid}\n${crypto().randomBytes(6).toString("hex")}\n`
    const acquire = Effect.gen(function* () {
      yield* Effect.tryPromise({
        try: () => NodeFs.mkdir(NodePath.dirname(path), { recursive: true, mode: 0o700 }),
        catch: (cause) => new LockError({ path, reason: errorText(cause) })
      })
      const start = yield* Clock.currentTimeMillis
      let delay = 2
      for (;;) {
        const attempt = yield* Effect.tryPromise({
          try: () => tryTake(lock, stamp),
          catch: (cause) => new LockError({ path, reason: errorText(cause) })
        })
        if (attempt._tag === "Taken") return
        if ((yield* Clock.currentTimeMillis) - start >= timeout)
          return yield* new LockError({
            path,
            reason: `held by process ${attempt.owner.trim() || "(unknown)"} for over ${timeout} ms (remove ${lock} if that process is gone)`
          })
        yield* Effect.sleep(Duration.millis(delay))
        delay = Math.min(delay * 2, 50)
      }
    })
    const release = Effect.promise(async () => {
      // Only our own lock is removed (a takeover may have replaced it).
      const owner = await NodeFs.readFile(lock, "utf8").catch(() => undefined)
      if (owner === stamp) await NodeFs.rm(lock, { force: true })
    })
    return Effect.acquireUseRelease(
      acquire,
      () => effect,
      () => release
    )
  }
