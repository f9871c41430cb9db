/**
 * Where "always" approvals are remembered, per project: the allow rules a person granted
 * by answering "always", loaded when a project's permission state is created.
 *
 * `layerFile(directory)` keeps one JSON file per project, `<directory>/<projectID>.json`
 * (0600, in a 0700 directory; older, looser ones are tightened when the layer starts),
 * written atomically (a temp file flushed with fsync, then a rename, then the directory
 * flushed). Several processes may share the directory: every `append` takes an advisory
 * lock (`<file>.lock`, see `FileLock`), reads the file again, adds the rules it does not
 * hold yet and writes it, so no process's approvals overwrite another's. A file that cannot be read as approvals
 * is logged with its path, moved aside (`<file>.corrupt-<time>`) and treated as empty; the
 * next `append` writes a fresh file. `layerMemory` keeps them in memory, for tests.
 *
 * @since 0.0.0
 */
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import * as AtomicFile from "@gatehousejs/core/AtomicFile"
import * as FileLock from "@gatehousejs/core/FileLock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import type * as Stream from "effect/Stream"
import { type Rule, Ruleset } from "./internal/rule.ts"

/**
 * Writing approvals failed (the rules still hold in memory until the instance closes).
 *
 * @since 0.0.0
 */
export class WriteError extends Schema.TaggedError<WriteError>()("ApprovalStoreWriteError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Could not save approvals to ${this.path}: ${this.reason}`
  }
}

/**
 * @since 0.0.0
 */
export interface Interface {
  /** The remembered rules of `projectID`, oldest first (`[]` when there are none). */
  readonly load: (projectID: string) => Effect.Effect<Ruleset>
  /** Remembers `rules` for `projectID`, after the ones already remembered. */
  readonly append: (projectID: string, rules: Ruleset) => Effect.Effect<void, WriteError>
  /**
   * For a store that other processes write to (servers sharing approvals): the remembered
   * rules of `projectID`, once when pulled and again whenever another process appends, so a
   * rule approved elsewhere applies here too. Absent when only this process writes.
   */
  readonly changes?: ((projectID: string) => Stream.Stream<Ruleset>) | undefined
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/permission/ApprovalStore") {}

/**
 * Approvals in memory: they live as long as the layer.
 *
 * @since 0.0.0
 */
export const layerMemory: Layer.Layer<Service> = Layer.sync(Service, () => {
  const projects = new Map<string, Array<Rule>>()
  return Service.of({
    load: (projectID) => Effect.sync(() => [...(projects.get(projectID) ?? [])]),
    append: (projectID, rules) =>
      Effect.sync(() => {
        const current = projects.get(projectID) ?? []
        projects.set(projectID, [...current, ...rules])
      })
  })
})

/**
 * The format of an approvals file.
 *
 * @since 0.0.0
 */
export const File = Schema.Struct({
  version: Schema.Literal(1),
  rules: Ruleset
})

const decodeFile = Schema.decodeUnknownEffect(Schema.fromJsonString(File))

const errorText = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

const key = (rule: Rule) => JSON.stringify([rule.permission, rule.pattern, rule.action])

const isMissing = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && (cause as { code?: unknown }).code === "ENOENT"

const fileIn = (root: string, projectID: string) =>
  NodePath.join(root, `${NodePath.basename(projectID)}.json`)

// Missing -> []; corrupt -> moved aside, reported, []; unreadable -> fails (an append
// must not overwrite approvals it could not read).
const readFile = Effect.fnUntraced(function* (file: string) {
  const text = yield* Effect.tryPromise({
    try: () => NodeFs.readFile(file, "utf8"),
    catch: (cause) => cause
  }).pipe(
    Effect.map((text): string | undefined => text),
    Effect.catchIf(isMissing, () => Effect.succeed(undefined)),
    Effect.mapError((cause) => new WriteError({ path: file, reason: `cannot read it: ${errorText(cause)}` }))
  )
  if (text === undefined) return []
  const decoded = yield* decodeFile(text).pipe(Effect.option)
  if (decoded._tag === "Some") return decoded.value.rules
  const aside = `${file}.corrupt-${Date.now()}`
  yield* Effect.tryPromise(() => NodeFs.rename(file, aside)).pipe(Effect.ignore)
  yield* Effect.logWarning(`corrupt approvals file ${file} moved to ${aside}; starting with no approvals`)
  return []
})

const writeFile = (file: string, rules: Ruleset) =>
  Effect.tryPromise({
    try: () =>
      AtomicFile.writeText(file, `${JSON.stringify({ version: 1, rules }, null, 2)}\n`, { sync: true }),
    catch: (cause) => new WriteError({ path: file, reason: errorText(cause) })
  })

/**
 * The approvals file of `projectID` under `directory` (what {@link layerFile} keeps).
 *
 * @since 0.1.0
 */
export const file = (directory: string, projectID: string): string =>
  fileIn(NodePath.resolve(directory), projectID)

/**
 * The rules remembered in the approvals file of `projectID` under `directory`, oldest first.
 *
 * @since 0.1.0
 */
export const readRemembered = (directory: string, projectID: string): Effect.Effect<Ruleset, WriteError> =>
  readFile(file(directory, projectID))

/**
 * Rewrites the approvals file of `projectID` under the same lock as {@link layerFile}'s
 * appends: `update` gets the remembered rules and returns the ones to keep. Resolves to the
 * rules before and after. Processes that already loaded the approvals keep theirs until
 * they start again.
 *
 * @since 0.1.0
 */
export const rewrite = (
  directory: string,
  projectID: string,
  update: (rules: Ruleset) => Ruleset
): Effect.Effect<{ readonly before: Ruleset; readonly after: Ruleset }, WriteError> => {
  const path = file(directory, projectID)
  return Effect.gen(function* () {
    const before = yield* readFile(path)
    const after = update(before)
    if (after.length !== before.length || after.some((rule, i) => rule !== before[i]))
      yield* writeFile(path, after)
    return { before, after }
  }).pipe(
    FileLock.withLock(path),
    Effect.catchTag("FileLockError", (error) =>
      Effect.fail(new WriteError({ path: error.path, reason: error.reason }))
    )
  )
}

/**
 * Approvals in `<directory>/<projectID>.json`, one file per project. The directory is
 * created on the first write.
 *
 * @since 0.0.0
 */
export const layerFile = (directory: string): Layer.Layer<Service> =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const root = NodePath.resolve(directory)
      yield* Effect.tryPromise(() => AtomicFile.tighten(root)).pipe(
        Effect.catch((cause) =>
          Effect.logWarning(`approvals: cannot tighten the permissions of ${root}: ${errorText(cause)}`)
        )
      )
      // One writer at a time in this process; the file lock orders the processes. Every
      // append reads the file again under both, so none is lost.
      const lock = yield* Semaphore.make(1)

      const fileOf = (projectID: string) => fileIn(root, projectID)
      const read = (projectID: string) => readFile(fileOf(projectID))
      const write = (projectID: string, rules: Ruleset) => writeFile(fileOf(projectID), rules)

      return Service.of({
        load: (projectID) =>
          lock.withPermits(1)(
            read(projectID).pipe(
              Effect.catch((error) =>
                Effect.logWarning(`${error.message}; starting with no approvals`).pipe(Effect.as<Ruleset>([]))
              )
            )
          ),
        append: (projectID, rules) =>
          lock.withPermits(1)(
            Effect.gen(function* () {
              const current = yield* read(projectID)
              const held = new Set(current.map(key))
              const fresh = rules.filter((rule) => {
                if (held.has(key(rule))) return false
                held.add(key(rule))
                return true
              })
              if (fresh.length === 0) return
              yield* write(projectID, [...current, ...fresh])
            }).pipe(
              FileLock.withLock(fileOf(projectID)),
              Effect.catchTag("FileLockError", (error) =>
                Effect.fail(new WriteError({ path: error.path, reason: error.reason }))
              )
            )
          )
      })
    })
  )
