/**
 * Where sessions, messages and parts are kept.
 *
 * `layerMemory` keeps them in memory (tests, the demo); `layerFile(directory)` also writes
 * every record to its own JSON file, atomically (a temporary file renamed over the old
 * one), and loads them back when the layer starts, so sessions survive a restart. A
 * record that cannot be read back (broken JSON, a shape that does not decode, a part
 * whose message is gone) is reported in the log with its path and skipped: one bad file
 * never stops the others from loading.
 *
 * The store is not on the streaming hot path: the processor publishes every text delta on
 * the bus but writes a part only at its boundaries (and at most about once a second while
 * it streams), so a long answer costs a handful of writes, not one per delta.
 *
 * Other modules keep records of their own beside a session ("sidecars", e.g. the
 * {@link Checkpoint}s of its turns): JSON values under a kind and a name, written the same
 * atomic way, read on demand rather than loaded at start, and removed with the session.
 *
 * Layout of `layerFile(directory)`:
 * `session/<sessionID>.json`, `message/<sessionID>/<messageID>.json`,
 * `part/<sessionID>/<messageID>/<partID>.json`, and the sidecars
 * `session/<sessionID>/<kind>/<name>.json`.
 *
 * @since 0.0.0
 */
import * as NodeFsSync from "node:fs"
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import * as AtomicFile from "@gatehousejs/core/AtomicFile"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Message from "./Message.ts"
import * as Session from "./Session.ts"

/**
 * A record could not be written (or removed) on disk.
 *
 * @since 0.0.0
 */
export class StoreError extends Schema.TaggedError<StoreError>()("SessionStoreError", {
  path: Schema.String,
  operation: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `could not ${this.operation} ${this.path}: ${this.reason} (check that the session directory is writable and the disk is not full)`
  }
}

/**
 * Where a sidecar record is: its session, its kind (the module that keeps it) and its
 * name. Kind and name are plain names (letters, digits, `.`, `_`, `-`).
 *
 * @since 0.0.0
 */
export interface SidecarRef {
  readonly sessionID: string
  readonly kind: string
  readonly name: string
}

/**
 * @since 0.0.0
 */
export interface Interface {
  /** Creates or replaces a session. */
  readonly putSession: (info: Session.Info) => Effect.Effect<void, StoreError>
  readonly getSession: (sessionID: string) => Effect.Effect<Session.Info, Session.NotFoundError>
  /** Every session, oldest first. */
  readonly listSessions: () => Effect.Effect<ReadonlyArray<Session.Info>>
  /** Removes a session with its messages and parts. */
  readonly removeSession: (sessionID: string) => Effect.Effect<void, StoreError>
  /** Creates or replaces a message. */
  readonly putMessage: (info: Message.Info) => Effect.Effect<void, StoreError>
  /** Removes a message with its parts. */
  readonly removeMessage: (sessionID: string, messageID: string) => Effect.Effect<void, StoreError>
  /** Creates or replaces a part (its message must exist). */
  readonly putPart: (part: Message.Part) => Effect.Effect<void, StoreError>
  readonly removePart: (ref: {
    readonly sessionID: string
    readonly messageID: string
    readonly partID: string
  }) => Effect.Effect<void, StoreError>
  /** The session's messages with their parts, in order. */
  readonly messages: (sessionID: string) => Effect.Effect<ReadonlyArray<Message.WithParts>>
  /** One message with its parts, if it exists. */
  readonly message: (sessionID: string, messageID: string) => Effect.Effect<Message.WithParts | undefined>
  /** Creates or replaces a sidecar record (a JSON value) of a session. */
  readonly putSidecar: (ref: SidecarRef, value: unknown) => Effect.Effect<void, StoreError>
  /**
   * A sidecar record: `undefined` when there is none, a `StoreError` (operation `read`)
   * when it cannot be read back or is not JSON.
   */
  readonly getSidecar: (ref: SidecarRef) => Effect.Effect<unknown, StoreError>
  /** The names of a session's sidecar records of `kind`, sorted. */
  readonly listSidecars: (sessionID: string, kind: string) => Effect.Effect<ReadonlyArray<string>>
  readonly removeSidecar: (ref: SidecarRef) => Effect.Effect<void, StoreError>
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/session/SessionStore") {}

interface Entry {
  info: Message.Info
  readonly parts: Map<string, Message.Part>
}

interface Persist {
  readonly write: (path: ReadonlyArray<string>, value: unknown) => Effect.Effect<void, StoreError>
  readonly remove: (path: ReadonlyArray<string>, recursive: boolean) => Effect.Effect<void, StoreError>
}

/** Where sidecar records live: in memory, or in files read on demand. */
interface Sidecars {
  readonly put: (ref: SidecarRef, value: unknown) => Effect.Effect<void, StoreError>
  readonly get: (ref: SidecarRef) => Effect.Effect<unknown, StoreError>
  readonly list: (sessionID: string, kind: string) => Effect.Effect<ReadonlyArray<string>>
  readonly remove: (ref: SidecarRef) => Effect.Effect<void, StoreError>
  readonly removeAll: (sessionID: string) => Effect.Effect<void, StoreError>
}

const noPersist: Persist = { write: () => Effect.void, remove: () => Effect.void }

const PLAIN_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/

const checked = (ref: SidecarRef) =>
  PLAIN_NAME.test(ref.kind) && PLAIN_NAME.test(ref.name) && PLAIN_NAME.test(ref.sessionID)
    ? Effect.void
    : Effect.die(
        `invalid sidecar reference ${JSON.stringify(ref)}: kind, name and session id must be plain names`
      )

// Values are kept as JSON text, so what comes back is a copy, as it is from a file.
const memorySidecars = (): Sidecars => {
  const bySession = new Map<string, Map<string, string>>()
  const key = (kind: string, name: string) => `${kind}/${name}`
  return {
    put: (ref, value) =>
      Effect.andThen(
        checked(ref),
        Effect.sync(() => {
          let records = bySession.get(ref.sessionID)
          if (records === undefined) {
            records = new Map()
            bySession.set(ref.sessionID, records)
          }
          records.set(key(ref.kind, ref.name), JSON.stringify(value))
        })
      ),
    get: (ref) =>
      Effect.sync(() => {
        const text = bySession.get(ref.sessionID)?.get(key(ref.kind, ref.name))
        return text === undefined ? undefined : (JSON.parse(text) as unknown)
      }),
    list: (sessionID, kind) =>
      Effect.sync(() =>
        [...(bySession.get(sessionID)?.keys() ?? [])]
          .filter((k) => k.startsWith(`${kind}/`))
          .map((k) => k.slice(kind.length + 1))
          .sort()
      ),
    remove: (ref) => Effect.sync(() => void bySession.get(ref.sessionID)?.delete(key(ref.kind, ref.name))),
    removeAll: (sessionID) => Effect.sync(() => void bySession.delete(sessionID))
  }
}

const byId = <A extends { readonly id: string }>(a: A, b: A) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const makeStore = (
  sessions: Map<string, Session.Info>,
  messages: Map<string, Map<string, Entry>>,
  persist: Persist,
  sidecars: Sidecars
): Interface => {
  const snapshot = (entry: Entry): Message.WithParts => ({
    info: entry.info,
    parts: [...entry.parts.values()]
  })
  const entriesOf = (sessionID: string) => {
    let entries = messages.get(sessionID)
    if (entries === undefined) {
      entries = new Map()
      messages.set(sessionID, entries)
    }
    return entries
  }
  return {
    // Every change is written first and kept in memory only once it is on disk: a failed
    // write leaves no ghost record that a restart would take away.
    putSession: (info) =>
      Effect.andThen(
        persist.write(["session", `${info.id}.json`], info),
        Effect.sync(() => void sessions.set(info.id, info))
      ),
    getSession: (sessionID) =>
      Effect.suspend(() => {
        const info = sessions.get(sessionID)
        return info === undefined
          ? Effect.fail(new Session.NotFoundError({ sessionID }))
          : Effect.succeed(info)
      }),
    listSessions: () => Effect.sync(() => [...sessions.values()].sort(byId)),
    // The session file goes first: once it is gone the session is gone, whatever remains.
    removeSession: (sessionID) =>
      Effect.andThen(
        persist.remove(["session", `${sessionID}.json`], false),
        Effect.suspend(() => {
          sessions.delete(sessionID)
          messages.delete(sessionID)
          return Effect.all(
            [
              persist.remove(["message", sessionID], true),
              persist.remove(["part", sessionID], true),
              sidecars.removeAll(sessionID)
            ],
            { discard: true }
          )
        })
      ),
    putMessage: (info) =>
      Effect.andThen(
        persist.write(["message", info.sessionID, `${info.id}.json`], info),
        Effect.sync(() => {
          const entries = entriesOf(info.sessionID)
          const entry = entries.get(info.id)
          if (entry === undefined) entries.set(info.id, { info, parts: new Map() })
          else entry.info = info
        })
      ),
    removeMessage: (sessionID, messageID) =>
      Effect.andThen(
        persist.remove(["message", sessionID, `${messageID}.json`], false),
        Effect.suspend(() => {
          messages.get(sessionID)?.delete(messageID)
          return persist.remove(["part", sessionID, messageID], true)
        })
      ),
    putPart: (part) =>
      Effect.suspend(() => {
        if (messages.get(part.sessionID)?.get(part.messageID) === undefined)
          return Effect.die(`part ${part.id} written before its message ${part.messageID}`)
        return Effect.andThen(
          persist.write(["part", part.sessionID, part.messageID, `${part.id}.json`], part),
          Effect.sync(() => void messages.get(part.sessionID)?.get(part.messageID)?.parts.set(part.id, part))
        )
      }),
    removePart: ({ sessionID, messageID, partID }) =>
      Effect.andThen(
        persist.remove(["part", sessionID, messageID, `${partID}.json`], false),
        Effect.sync(() => void messages.get(sessionID)?.get(messageID)?.parts.delete(partID))
      ),
    messages: (sessionID) => Effect.sync(() => [...(messages.get(sessionID)?.values() ?? [])].map(snapshot)),
    message: (sessionID, messageID) =>
      Effect.sync(() => {
        const entry = messages.get(sessionID)?.get(messageID)
        return entry === undefined ? undefined : snapshot(entry)
      }),
    putSidecar: (ref, value) => Effect.andThen(checked(ref), sidecars.put(ref, value)),
    getSidecar: (ref) => Effect.andThen(checked(ref), sidecars.get(ref)),
    listSidecars: (sessionID, kind) =>
      Effect.andThen(checked({ sessionID, kind, name: "index" }), sidecars.list(sessionID, kind)),
    removeSidecar: (ref) => Effect.andThen(checked(ref), sidecars.remove(ref))
  }
}

/**
 * A store in memory: nothing survives the layer.
 *
 * @since 0.0.0
 */
export const layerMemory: Layer.Layer<Service> = Layer.sync(Service, () =>
  Service.of(makeStore(new Map(), new Map(), noPersist, memorySidecars()))
)

const errorText = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

const readDir = (path: string) =>
  Effect.promise(() => NodeFs.readdir(path, { withFileTypes: true }).catch(() => [] as Array<never>))

const loadRecord = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, path: string) =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({ try: () => NodeFs.readFile(path, "utf8"), catch: errorText })
    const json = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: errorText })
    return yield* Schema.decodeUnknownEffect(schema)(json).pipe(Effect.mapError((error) => error.message))
  }).pipe(
    Effect.map((value): S["Type"] | undefined => value),
    Effect.catch((reason) =>
      Effect.logWarning(`session store: skipped unreadable record ${path}: ${reason}`).pipe(
        Effect.annotateLogs({ path }),
        Effect.as(undefined)
      )
    )
  )

const jsonFiles = (entries: ReadonlyArray<{ readonly name: string; isFile(): boolean }>) =>
  entries.filter((entry) => entry.isFile() && entry.name.endsWith(".json")).map((entry) => entry.name)

/** Why a tool part left `running` (or `pending`) by an earlier process is an error now. */
export const INTERRUPTED_BY_RESTART =
  "Tool execution interrupted: the Gatehouse process running it stopped (it crashed or was killed) before the call finished"

/** A tool part an earlier process left unfinished, as an interrupted error (undefined when it is finished). */
const interruptedByRestart = (part: Message.Part, now: number): Message.Part | undefined => {
  if (part.type !== "tool" || (part.state.status !== "running" && part.state.status !== "pending"))
    return undefined
  const start = part.state.status === "running" ? part.state.time.start : now
  return {
    ...part,
    state: {
      status: "error",
      input: part.state.input,
      error: INTERRUPTED_BY_RESTART,
      ...(part.state.status === "running" && part.state.metadata !== undefined
        ? { metadata: part.state.metadata }
        : {}),
      interrupted: true,
      time: { start, end: Math.max(start, now) }
    }
  }
}

const load = Effect.fnUntraced(function* (root: string) {
  const sessions = new Map<string, Session.Info>()
  const messages = new Map<string, Map<string, Entry>>()
  for (const name of jsonFiles(yield* readDir(NodePath.join(root, "session")))) {
    const info = yield* loadRecord(Session.Info, NodePath.join(root, "session", name))
    if (info !== undefined) sessions.set(info.id, info)
  }
  for (const sessionID of [...sessions.keys()].sort()) {
    const dir = NodePath.join(root, "message", sessionID)
    const loaded: Array<Message.Info> = []
    for (const name of jsonFiles(yield* readDir(dir))) {
      const info = yield* loadRecord(Message.Info, NodePath.join(dir, name))
      if (info !== undefined) loaded.push(info)
    }
    const entries = new Map<string, Entry>()
    for (const info of loaded.sort(byId)) {
      const partDir = NodePath.join(root, "part", sessionID, info.id)
      const parts: Array<Message.Part> = []
      for (const name of jsonFiles(yield* readDir(partDir))) {
        const path = NodePath.join(partDir, name)
        const part = yield* loadRecord(Message.Part, path)
        if (part === undefined) continue
        const interrupted = interruptedByRestart(part, yield* Clock.currentTimeMillis)
        if (interrupted === undefined) {
          parts.push(part)
          continue
        }
        // Kept as it is on disk when it cannot be written back: memory and disk agree.
        const written = yield* Effect.tryPromise(() =>
          AtomicFile.writeText(path, JSON.stringify(interrupted))
        ).pipe(
          Effect.as(true),
          Effect.catch((cause) =>
            Effect.logError(
              `session store: cannot mark the unfinished tool part ${path} interrupted: ${errorText(cause)}`
            ).pipe(Effect.as(false))
          )
        )
        parts.push(written ? interrupted : part)
      }
      entries.set(info.id, {
        info,
        parts: new Map(parts.sort(byId).map((part) => [part.id, part]))
      })
    }
    messages.set(sessionID, entries)
  }
  return { sessions, messages }
})

/**
 * Default time after a session's last activity when the reaper removes it (30 days).
 *
 * @since 0.1.0
 */
export const RETENTION: Duration.Duration = Duration.days(30)

/**
 * Default cap of everything the file store keeps (2 GiB): past it the sessions least
 * recently active are removed first.
 *
 * @since 0.1.0
 */
export const MAX_STORE_BYTES = 2 * 1024 * 1024 * 1024

/**
 * Default time between two reaper passes (1 hour); the first runs a minute after start.
 *
 * @since 0.1.0
 */
export const REAP_INTERVAL: Duration.Duration = Duration.hours(1)

const FIRST_REAP_DELAY = Duration.minutes(1)

/**
 * How long the file store keeps sessions. Checkpoints hold whole file contents, so stored
 * sessions would otherwise grow without bound.
 *
 * @since 0.1.0
 */
export interface RetentionOptions {
  /** Age by last activity after which a session goes, with its messages and checkpoints (default 30 days). */
  readonly retention?: Duration.Input | undefined
  /** Most bytes kept in all (default 2 GiB); the least recently active sessions go first. */
  readonly maxBytes?: number | undefined
  /** Time between passes (default 1 hour). */
  readonly reapInterval?: Duration.Input | undefined
}

/** When a session was last active: its last update, or its newest message. */
const lastActivity = (info: Session.Info, entries: Map<string, Entry> | undefined) => {
  let last = info.time.updated
  for (const entry of entries?.values() ?? []) {
    const time = entry.info.time as { readonly created: number; readonly completed?: number }
    last = Math.max(last, time.created, time.completed ?? 0)
  }
  return last
}

/** Bytes under `path` (a file or a directory), counted without following symlinks. */
const sizeOf = (path: string): number => {
  let stat: NodeFsSync.Stats | undefined
  try {
    stat = NodeFsSync.lstatSync(path, { throwIfNoEntry: false })
  } catch {
    return 0
  }
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.size
  let total = 0
  for (const name of NodeFsSync.readdirSync(path)) total += sizeOf(NodePath.join(path, name))
  return total
}

/**
 * The reaper of the file store, as Truncate's: a pass a minute after start, then every
 * interval, forked into the layer's scope. A pass removes every session inactive for
 * longer than the retention, then the least recently active ones until the store is under
 * its cap. A failed pass is logged; the next one still runs.
 */
const reaper = (
  root: string,
  sessions: Map<string, Session.Info>,
  messages: Map<string, Map<string, Entry>>,
  store: Interface,
  options: RetentionOptions
) =>
  Effect.gen(function* () {
    const retention = Duration.toMillis(Duration.fromInputUnsafe(options.retention ?? RETENTION))
    const maxBytes = options.maxBytes ?? MAX_STORE_BYTES
    const pass = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const byAge = [...sessions.values()]
        .map((info) => ({ info, last: lastActivity(info, messages.get(info.id)) }))
        .sort((a, b) => a.last - b.last)
      const expired = byAge.filter((entry) => now - entry.last > retention)
      const kept = byAge.filter((entry) => now - entry.last <= retention)
      const sizes = new Map(
        kept.map((entry) => {
          const id = entry.info.id
          const size =
            sizeOf(NodePath.join(root, "session", `${id}.json`)) +
            sizeOf(NodePath.join(root, "session", id)) +
            sizeOf(NodePath.join(root, "message", id)) +
            sizeOf(NodePath.join(root, "part", id))
          return [id, size]
        })
      )
      let total = 0
      for (const size of sizes.values()) total += size
      const victims = expired.map((entry) => entry.info.id)
      // The newest session stays whatever its size: it may be the one in use.
      for (const entry of kept.slice(0, -1)) {
        if (total <= maxBytes) break
        victims.push(entry.info.id)
        total -= sizes.get(entry.info.id) ?? 0
      }
      for (const id of victims) yield* store.removeSession(id)
      if (victims.length > 0)
        yield* Effect.logInfo(
          `session store: removed ${victims.length} session${victims.length === 1 ? "" : "s"} (${expired.length} inactive for over ${Duration.format(Duration.millis(retention))})`
        )
    }).pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.logError("session store: the retention pass failed", cause)
      )
    )
    yield* Effect.sleep(FIRST_REAP_DELAY).pipe(
      Effect.andThen(Effect.repeat(pass, Schedule.spaced(options.reapInterval ?? REAP_INTERVAL))),
      Effect.forkScoped
    )
  })

/**
 * A store that keeps every record in a JSON file under `directory` and loads them back
 * when the layer starts. Writes are atomic and applied in the order they were made.
 *
 * @since 0.0.0
 */
export const layerFile = (directory: string, options: RetentionOptions = {}): Layer.Layer<Service> =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const root = NodePath.resolve(directory)
      // Data left by an older version was created 0644 in 0755 directories: make it private.
      yield* Effect.tryPromise(() => AtomicFile.tighten(root)).pipe(
        Effect.catch((cause) =>
          Effect.logWarning(`session store: cannot tighten the permissions of ${root}: ${errorText(cause)}`)
        )
      )
      const { sessions, messages } = yield* load(root)
      // One writer at a time: a later write of a record must never be overtaken by an older one.
      const lock = yield* Semaphore.make(1)
      const persist: Persist = {
        write: (segments, value) => {
          const path = NodePath.join(root, ...segments)
          return lock.withPermits(1)(
            Effect.tryPromise({
              try: () => AtomicFile.writeText(path, JSON.stringify(value)),
              catch: (cause) => new StoreError({ path, operation: "write", reason: errorText(cause) })
            })
          )
        },
        remove: (segments, recursive) => {
          const path = NodePath.join(root, ...segments)
          return lock.withPermits(1)(
            Effect.tryPromise({
              try: () => NodeFs.rm(path, { recursive, force: true }),
              catch: (cause) => new StoreError({ path, operation: "remove", reason: errorText(cause) })
            })
          )
        }
      }
      const sidecarPath = (ref: SidecarRef) => ["session", ref.sessionID, ref.kind, `${ref.name}.json`]
      const sidecars: Sidecars = {
        put: (ref, value) => persist.write(sidecarPath(ref), value),
        get: (ref) => {
          const path = NodePath.join(root, ...sidecarPath(ref))
          return Effect.tryPromise({
            try: async () => {
              const text = await NodeFs.readFile(path, "utf8").catch((cause: NodeJS.ErrnoException) => {
                if (cause.code === "ENOENT") return undefined
                throw cause
              })
              return text === undefined ? undefined : (JSON.parse(text) as unknown)
            },
            catch: (cause) => new StoreError({ path, operation: "read", reason: errorText(cause) })
          })
        },
        list: (sessionID, kind) =>
          Effect.map(readDir(NodePath.join(root, "session", sessionID, kind)), (entries) =>
            jsonFiles(entries)
              .map((name) => name.slice(0, -".json".length))
              .sort()
          ),
        remove: (ref) => persist.remove(sidecarPath(ref), false),
        removeAll: (sessionID) => persist.remove(["session", sessionID], true)
      }
      const store = makeStore(sessions, messages, persist, sidecars)
      yield* reaper(root, sessions, messages, store, options)
      return Service.of(store)
    })
  )
