// How checkpoints are kept: their schemas, and their records and index as sidecars of the
// session in SessionStore (one record per turn, a small index), with the per-session state
// the Checkpoint service holds (its lock and the index once read).
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import type * as SessionStore from "../SessionStore.ts"

export const Turn = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * A file as a turn found it: its absolute path, its path for people, its text (`null`:
 * it did not exist), its permission bits, and the directories creating it made.
 *
 * @since 0.0.0
 */
export const FileState = Schema.Struct({
  path: Schema.String,
  relative: Schema.String,
  content: Schema.NullOr(Schema.String),
  mode: Schema.optionalKey(Schema.Number),
  createdDirectories: Schema.optionalKey(Schema.Array(Schema.String))
})
/** @since 0.0.0 */
export type FileState = typeof FileState.Type

/**
 * A checkpoint as `list` shows it: its turn, the user message that opened it, a label
 * (the prompt's first line), when it was opened, and the paths it recorded.
 *
 * @since 0.0.0
 */
export const Info = Schema.Struct({
  sessionID: Schema.String,
  turn: Turn,
  messageID: Schema.String,
  label: Schema.String,
  time: Schema.Struct({ created: Schema.Number }),
  files: Schema.Array(Schema.String)
})
/** @since 0.0.0 */
export type Info = typeof Info.Type

/**
 * A checkpoint's stored record: its {@link Info} with the whole prompt and the files.
 *
 * @since 0.0.0
 */
export const Record = Schema.Struct({
  version: Schema.Literal(1),
  sessionID: Schema.String,
  turn: Turn,
  messageID: Schema.String,
  label: Schema.String,
  prompt: Schema.String,
  time: Schema.Struct({ created: Schema.Number }),
  files: Schema.Array(FileState)
})
/** @since 0.0.0 */
export type Record = typeof Record.Type

const Index = Schema.Struct({ version: Schema.Literal(1), checkpoints: Schema.Array(Info) })

const KIND = "checkpoint"
const INDEX = "index"

export const infoOf = (record: Record): Info => ({
  sessionID: record.sessionID,
  turn: record.turn,
  messageID: record.messageID,
  label: record.label,
  time: record.time,
  files: record.files.map((file) => file.relative)
})

interface State {
  /** Held by a running turn, and by a rewind or a fork while it works. */
  readonly lock: Semaphore.Semaphore
  index: Array<Info> | undefined
}

export const make = (store: SessionStore.Interface) => {
  const states = new Map<string, State>()

  const stateOf = (sessionID: string) => {
    let state = states.get(sessionID)
    if (state === undefined) {
      state = { lock: Semaphore.makeUnsafe(1), index: undefined }
      states.set(sessionID, state)
    }
    return state
  }

  const ref = (sessionID: string, name: string) => ({ sessionID, kind: KIND, name })

  /** A turn's record, or undefined (logged) when it is missing or unreadable: it alone is lost. */
  const readRecord = (sessionID: string, turn: number) =>
    store.getSidecar(ref(sessionID, String(turn))).pipe(
      Effect.flatMap((value) =>
        value === undefined
          ? Effect.fail("it is missing")
          : Schema.decodeUnknownEffect(Record)(value).pipe(Effect.mapError((error) => error.message))
      ),
      Effect.catch((reason) =>
        Effect.logWarning(
          `checkpoint: turn ${turn} of session ${sessionID} cannot be read back (${typeof reason === "string" ? reason : reason.reason}); it is lost`
        ).pipe(Effect.as(undefined))
      )
    )

  const writeIndex = (sessionID: string, index: Array<Info>) =>
    Effect.andThen(
      store.putSidecar(ref(sessionID, INDEX), { version: 1, checkpoints: index }),
      Effect.sync(() => {
        stateOf(sessionID).index = index
      })
    )

  /** The session's index, read on first use; an unreadable one is rebuilt from the records. */
  const indexOf = Effect.fnUntraced(function* (sessionID: string) {
    const state = stateOf(sessionID)
    if (state.index !== undefined) return state.index
    const names = yield* store.listSidecars(sessionID, KIND)
    const stored = new Set(names.filter((name) => /^\d+$/.test(name)).map(Number))
    const raw = yield* store.getSidecar(ref(sessionID, INDEX)).pipe(Effect.option)
    const decoded = Option.flatMap(raw, (value) =>
      value === undefined ? Option.none() : Schema.decodeUnknownOption(Index)(value)
    )
    if (Option.isNone(decoded) && names.includes(INDEX))
      yield* Effect.logWarning(`checkpoint: the index of session ${sessionID} is unreadable; rebuilding it`)
    const listed = Option.match(decoded, { onNone: () => [], onSome: (index) => index.checkpoints })
    // An entry without its record is gone; a record without an entry was written just before a crash.
    const index = listed.filter((info) => stored.has(info.turn))
    for (const turn of stored) {
      if (index.some((info) => info.turn === turn)) continue
      const record = yield* readRecord(sessionID, turn)
      if (record !== undefined && record.sessionID === sessionID) index.push(infoOf(record))
    }
    index.sort((a, b) => a.turn - b.turn)
    if (index.length !== listed.length) yield* writeIndex(sessionID, index).pipe(Effect.ignore)
    state.index = index
    return index
  })

  /** Writes a record, then the index with its entry in place of those from its turn on. */
  const save = Effect.fnUntraced(function* (record: Record) {
    yield* store.putSidecar(ref(record.sessionID, String(record.turn)), record)
    const index = yield* indexOf(record.sessionID)
    yield* writeIndex(record.sessionID, [...index.filter((info) => info.turn < record.turn), infoOf(record)])
  })

  const removeRecord = (sessionID: string, turn: number) => store.removeSidecar(ref(sessionID, String(turn)))

  /**
   * Drops the checkpoints from `turn` on. What they recorded first joins the checkpoint
   * before (the files had the same content then, as far as the file tools know), so a
   * later rewind to an older turn still restores it.
   */
  const dropFrom = Effect.fnUntraced(function* (sessionID: string, turn: number) {
    const index = yield* indexOf(sessionID)
    const dropped = index.filter((info) => info.turn >= turn)
    if (dropped.length === 0) return
    const before = index.findLast((info) => info.turn < turn)
    let merged: Record | undefined
    if (before !== undefined) {
      const base = yield* readRecord(sessionID, before.turn)
      if (base !== undefined) {
        const files = [...base.files]
        const known = new Set(files.map((file) => file.path))
        for (const info of dropped) {
          const record = yield* readRecord(sessionID, info.turn)
          for (const file of record?.files ?? []) {
            if (known.has(file.path)) continue
            known.add(file.path)
            files.push(file)
          }
        }
        if (files.length > base.files.length) {
          merged = { ...base, files }
          yield* store.putSidecar(ref(sessionID, String(before.turn)), merged)
        }
      }
    }
    // Records go first: an index entry without its record is ignored on load, a record without an entry is not.
    for (const info of dropped) yield* removeRecord(sessionID, info.turn)
    yield* writeIndex(
      sessionID,
      index
        .filter((info) => info.turn < turn)
        .map((info) => (merged !== undefined && info.turn === merged.turn ? infoOf(merged) : info))
    )
  })

  return {
    /** The per-session state (created on first use). */
    stateOf,
    /** Forgets what is held about a session (it was removed). */
    forget: (sessionID: string) => Effect.sync(() => void states.delete(sessionID)),
    readRecord,
    indexOf,
    save,
    removeRecord,
    writeIndex,
    dropFrom
  }
}
