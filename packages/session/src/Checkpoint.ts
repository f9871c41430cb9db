/**
 * Checkpoints: the safety net after the permission gate.
 *
 * The session loop opens one checkpoint per user turn, labelled with the prompt. Before a
 * file-changing tool acts it declares a preview (see {@link FileChanges}); the turn's
 * checkpoint keeps, for each path the first time the turn touches it, the content the
 * file had before (or that it did not exist). Later touches of the same path in the same
 * turn record nothing: the checkpoint holds the state at the start of the turn.
 *
 * Shell commands are not tracked: nothing can know which files a shell command touched,
 * so a rewind cannot undo what `bash` did.
 *
 * - `list(sessionID)`: the session's checkpoints, oldest first.
 * - `rewind(sessionID, turn, scope)`:
 *   - `code`: for every checkpoint from `turn` to the latest, each path goes back to its
 *     earliest recorded content (absent: the file is deleted, with the directories its
 *     creation made, if empty). Every path is judged again at restore time: it must lie
 *     in the project and still lead where it was recorded; otherwise it is skipped and
 *     the result says why.
 *   - `conversation`: the messages from that turn's user message on are dropped
 *     (`message.removed` is published for each, then `session.updated`), and the turn's
 *     prompt is returned so it can be edited and sent again.
 *   - `both`: the two together.
 * - `fork(sessionID, turn)`: a new session holding the conversation before that turn
 *   (and the checkpoints of those turns); the original is left untouched.
 *
 * Turns are numbered from 1 in the order of the session's user prompts. A rewind or a
 * fork fails with {@link BusyError} while a turn runs.
 *
 * Storage: beside the session, as `SessionStore` sidecar records (kind `checkpoint`): one
 * JSON record per checkpoint (`<turn>`) and a small `index`, each written atomically.
 * A checkpoint that cannot be read back loses only itself (a rewind over it reports its
 * turn in `lost`); an unreadable index is rebuilt from the records. After a restart the
 * index is read again on first use; checkpoints are removed with their session.
 *
 * @since 0.0.0
 */
import * as Bus from "@gatehousejs/core/Bus"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as FileChanges from "./FileChanges.ts"
import * as Storage from "./internal/checkpointStorage.ts"
import { stateBefore } from "./internal/fileState.ts"
import { resolveReal } from "./internal/paths.ts"
import { restoreAll } from "./internal/restore.ts"
import * as Message from "./Message.ts"
import * as Session from "./Session.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * What a rewind restores: the files, the conversation, or both.
 *
 * @since 0.0.0
 */
export const RewindScope = Schema.Literals(["code", "conversation", "both"])
/** @since 0.0.0 */
export type RewindScope = typeof RewindScope.Type

export {
  /** A file as a turn found it: path, path for people, text (`null`: absent), mode, directories its creation made. */
  FileState,
  /** A checkpoint as `list` shows it: turn, user message, label, time, recorded paths. */
  Info,
  /** A checkpoint's stored record: its `Info` with the whole prompt and the files. */
  Record
} from "./internal/checkpointStorage.ts"

const Turn = Storage.Turn
type Info = Storage.Info
type Record = Storage.Record
type FileState = Storage.FileState

// A body names its turn by `messageID` or by `turn`.
const addressed = Schema.makeFilter<{ readonly messageID?: string; readonly turn?: number }>((input) =>
  input.messageID !== undefined || input.turn !== undefined
    ? undefined
    : { path: ["turn"], issue: "give the turn's messageID (preferred) or its number" }
)

/**
 * The body of a rewind request (`POST /session/:id/rewind`).
 *
 * @since 0.0.0
 */
export const RewindInput = Schema.Struct({
  /** The turn's user message: the address that cannot drift (prefer it). */
  messageID: Schema.optionalKey(Schema.String),
  /** The turn's number as `list` shows it (used when `messageID` is absent). */
  turn: Schema.optionalKey(Turn),
  scope: RewindScope
}).check(addressed)
/** @since 0.0.0 */
export type RewindInput = typeof RewindInput.Type

/**
 * The body of a fork request (`POST /session/:id/fork`).
 *
 * @since 0.0.0
 */
export const ForkInput = Schema.Struct({
  messageID: Schema.optionalKey(Schema.String),
  turn: Schema.optionalKey(Turn)
}).check(addressed)
/** @since 0.0.0 */
export type ForkInput = typeof ForkInput.Type

/**
 * What a rewind did: the turn's prompt (to edit and send again), each file restored,
 * deleted or found unchanged, the files skipped and why, the turns whose checkpoint was
 * missing or unreadable (their changes were not undone), and the messages dropped.
 *
 * @since 0.0.0
 */
export const RewindResult = Schema.Struct({
  sessionID: Schema.String,
  turn: Turn,
  messageID: Schema.String,
  scope: RewindScope,
  prompt: Schema.String,
  files: Schema.Array(
    Schema.Struct({ path: Schema.String, action: Schema.Literals(["restored", "deleted", "unchanged"]) })
  ),
  skipped: Schema.Array(Schema.Struct({ path: Schema.String, reason: Schema.String })),
  lost: Schema.Array(Schema.Int),
  removedMessages: Schema.Array(Schema.String)
})
/** @since 0.0.0 */
export type RewindResult = typeof RewindResult.Type

/**
 * What a fork made: the new session, and the prompt of the turn it stops before.
 *
 * @since 0.0.0
 */
export const ForkResult = Schema.Struct({ session: Session.Info, prompt: Schema.String })
/** @since 0.0.0 */
export type ForkResult = typeof ForkResult.Type

/**
 * The session has no such turn.
 *
 * @since 0.0.0
 */
export class TurnNotFoundError extends Schema.TaggedError<TurnNotFoundError>()(
  "CheckpointTurnNotFoundError",
  {
    sessionID: Schema.String,
    turn: Schema.Number,
    messageID: Schema.optionalKey(Schema.String),
    turns: Schema.Number
  }
) {
  override get message(): string {
    const which =
      this.messageID === undefined ? `turn ${this.turn}` : `turn opened by message ${this.messageID}`
    return `session ${this.sessionID} has no ${which} (it has ${this.turns}): list its checkpoints to pick one`
  }
}

/**
 * A turn is running in the session: files and messages are still changing.
 *
 * @since 0.0.0
 */
export class BusyError extends Schema.TaggedError<BusyError>()("CheckpointBusyError", {
  sessionID: Schema.String
}) {
  override get message(): string {
    return `session ${this.sessionID} is running a turn: wait for it to finish or abort it, then try again`
  }
}

/**
 * A turn's checkpoint while the turn runs: its number and the recorder its tools declare
 * their changes to.
 *
 * @since 0.0.0
 */
export interface Opened {
  readonly turn: number
  readonly changes: FileChanges.Interface
}

/**
 * Which turn: the id of the user message that opened it (stable whatever records are
 * missing), or its number as `list` shows it (the number of its checkpoint).
 *
 * @since 0.1.0
 */
export type TurnAddress = number | string

/**
 * The address a rewind or fork body names: its `messageID`, else its `turn` (0, no turn, when neither is given).
 *
 * @since 0.1.0
 */
export const addressOf = (input: { readonly messageID?: string; readonly turn?: number }): TurnAddress =>
  input.messageID ?? input.turn ?? 0

/**
 * @since 0.0.0
 */
export interface Interface {
  /** The session's checkpoints, oldest first. */
  readonly list: (sessionID: string) => Effect.Effect<ReadonlyArray<Info>, Session.NotFoundError>
  /**
   * Rewinds the session to the start of a turn: `turn` is its user message's id (the
   * address to prefer) or its number as `list` shows it; see the module documentation.
   */
  readonly rewind: (
    sessionID: string,
    turn: TurnAddress,
    scope: RewindScope
  ) => Effect.Effect<
    RewindResult,
    Session.NotFoundError | TurnNotFoundError | BusyError | SessionStore.StoreError
  >
  /** A new session with the conversation before `turn`. */
  readonly fork: (
    sessionID: string,
    turn: TurnAddress
  ) => Effect.Effect<
    ForkResult,
    Session.NotFoundError | TurnNotFoundError | BusyError | SessionStore.StoreError
  >
  /**
   * Opens the checkpoint of a turn about to start (before its user message `messageID`
   * is stored), for as long as the scope lasts. Used by the session loop.
   */
  readonly open: (input: {
    readonly session: Session.Info
    readonly messageID: string
    readonly prompt: string
  }) => Effect.Effect<Opened, SessionStore.StoreError, Scope.Scope>
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/session/Checkpoint") {}

const LABEL_LENGTH = 100

/** The user messages that are turns: a person's prompts, not the loop's synthetic ones. */
export const turns = (messages: ReadonlyArray<Message.WithParts>): ReadonlyArray<Message.WithParts> =>
  messages.filter(
    (message) =>
      message.info.role === "user" &&
      !(
        message.parts.length > 0 &&
        message.parts.every((part) => part.type === "text" && part.synthetic === true)
      )
  )

const promptOf = (message: Message.WithParts) =>
  message.parts
    .filter((part): part is Message.TextPart => part.type === "text" && part.synthetic !== true)
    .map((part) => part.text)
    .join("\n")

const labelOf = (prompt: string) => {
  const line = prompt.trim().split("\n")[0] ?? ""
  return line.length > LABEL_LENGTH ? `${line.slice(0, LABEL_LENGTH - 1)}…` : line
}

/**
 * The checkpoints of every session, kept beside each session in `SessionStore.Service`.
 * Needs `SessionStore.Service` and `Bus.Service`.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Service, never, SessionStore.Service | Bus.Service> = Layer.effect(
  Service,
  Effect.gen(function* () {
    const store = yield* SessionStore.Service
    const bus = yield* Bus.Service
    const storage = Storage.make(store)
    const { indexOf, readRecord } = storage

    /** The session, or NotFound (forgetting what was kept about a removed one). */
    const sessionOf = (sessionID: string) =>
      store.getSession(sessionID).pipe(Effect.tapError(() => storage.forget(sessionID)))

    const list = Effect.fn("Checkpoint.list")(function* (sessionID: string) {
      yield* sessionOf(sessionID)
      return yield* indexOf(sessionID).pipe(Effect.orElseSucceed((): ReadonlyArray<Info> => []))
    })

    const open = Effect.fn("Checkpoint.open")(function* (input: {
      readonly session: Session.Info
      readonly messageID: string
      readonly prompt: string
    }) {
      const { session } = input
      const state = storage.stateOf(session.id)
      yield* Effect.acquireRelease(state.lock.take(1), () => state.lock.release(1))
      // After every checkpoint whose turn is still in the conversation, even when a user
      // message could not be read back (counting the messages alone would reuse a number).
      const present = new Set(turns(yield* store.messages(session.id)).map((message) => message.info.id))
      const numbered = (yield* indexOf(session.id)).filter((info) => present.has(info.messageID))
      const turn = Math.max(present.size, ...numbered.map((info) => info.turn)) + 1
      const root = yield* Effect.promise(() => resolveReal(session.directory).catch(() => session.directory))
      const created = yield* Clock.currentTimeMillis
      let record: Record = {
        version: 1,
        sessionID: session.id,
        turn,
        messageID: input.messageID,
        label: labelOf(input.prompt),
        prompt: input.prompt,
        time: { created },
        files: []
      }
      // Checkpoints numbered from this turn on belong to a conversation that is gone.
      const previous = yield* indexOf(session.id)
      for (const info of previous) if (info.turn > turn) yield* storage.removeRecord(session.id, info.turn)
      const save = (next: Record) =>
        Effect.andThen(
          storage.save(next),
          Effect.sync(() => {
            record = next
          })
        )
      yield* save(record)

      const serial = yield* Semaphore.make(1)
      const stateOfFile = (change: FileChanges.Change) =>
        Effect.tryPromise({
          try: () => stateBefore(change, root),
          catch: (cause) =>
            new FileChanges.RecordError({
              path: change.relative,
              reason: `it could not be read as it was before the change: ${(cause as Error).message}`
            })
        })
      const changes: FileChanges.Interface = {
        declare: (declared) =>
          serial.withPermits(1)(
            Effect.gen(function* () {
              const known = new Set(record.files.map((file) => file.path))
              const fresh: Array<FileState> = []
              for (const change of declared) {
                if (known.has(change.path)) continue
                known.add(change.path)
                fresh.push(yield* stateOfFile(change))
              }
              if (fresh.length === 0) return
              yield* save({ ...record, files: [...record.files, ...fresh] }).pipe(
                Effect.mapError(
                  (error) => new FileChanges.RecordError({ path: fresh[0]!.relative, reason: error.message })
                )
              )
            })
          )
      }
      return { turn, changes } satisfies Opened
    })

    /** Puts the files back as they were at the start of `turn`. */
    const restoreCode = Effect.fnUntraced(function* (session: Session.Info, turn: number, latest: number) {
      const index = yield* indexOf(session.id)
      const lost: Array<number> = []
      const earliest = new Map<string, FileState>()
      for (let t = turn; t <= latest; t++) {
        const record = index.some((info) => info.turn === t) ? yield* readRecord(session.id, t) : undefined
        if (record === undefined) {
          lost.push(t)
          continue
        }
        for (const file of record.files) if (!earliest.has(file.path)) earliest.set(file.path, file)
      }
      const root = yield* Effect.promise(() => resolveReal(session.directory).catch(() => session.directory))
      const outcome = yield* Effect.promise(() => restoreAll(root, [...earliest.values()]))
      return { ...outcome, lost }
    })

    const now = Clock.currentTimeMillis

    /** Drops the messages from `user` on and tells UIs. */
    const dropMessages = Effect.fnUntraced(function* (
      session: Session.Info,
      messages: ReadonlyArray<Message.WithParts>,
      user: Message.WithParts
    ) {
      const from = messages.findIndex((message) => message.info.id === user.info.id)
      const dropped = messages.slice(from).reverse()
      for (const message of dropped) {
        yield* store.removeMessage(session.id, message.info.id)
        yield* bus.publish(Message.Event.Removed, { sessionID: session.id, messageID: message.info.id })
      }
      const updated: Session.Info = { ...session, time: { ...session.time, updated: yield* now } }
      yield* store.putSession(updated)
      yield* bus.publish(Session.Event.Updated, { info: updated })
      return dropped.map((message) => message.info.id).reverse()
    })

    /** Runs `body` holding the session's lock, or fails with BusyError while a turn holds it. */
    const exclusive = <A, E>(sessionID: string, body: Effect.Effect<A, E>) =>
      storage
        .stateOf(sessionID)
        .lock.withPermitsIfAvailable(1)(body)
        .pipe(
          Effect.flatMap((result) =>
            Option.isSome(result) ? Effect.succeed(result.value) : Effect.fail(new BusyError({ sessionID }))
          )
        )

    /**
     * The turn at `at`: its user message, and the number of its checkpoint (what the files
     * are restored from), matched through the checkpoint's own `messageID`, never by
     * counting messages, so a message that could not be read back shifts nothing.
     */
    const turnOf = Effect.fnUntraced(function* (session: Session.Info, at: TurnAddress) {
      const messages = yield* store.messages(session.id)
      const all = turns(messages)
      const index = yield* indexOf(session.id).pipe(Effect.orElseSucceed((): ReadonlyArray<Info> => []))
      const byMessage = new Map(index.map((info) => [info.messageID, info]))
      let user: Message.WithParts | undefined
      if (typeof at === "string") user = all.find((message) => message.info.id === at)
      else if (Number.isInteger(at) && at >= 1) {
        const entry = index.find((info) => info.turn === at)
        if (entry !== undefined) user = all.find((message) => message.info.id === entry.messageID)
        else {
          // No checkpoint has that number: the turn at that position, unless its checkpoint says otherwise.
          const candidate = all[at - 1]
          const its = candidate === undefined ? undefined : byMessage.get(candidate.info.id)
          if (its === undefined || its.turn === at) user = candidate
        }
      }
      if (user === undefined)
        return yield* new TurnNotFoundError({
          sessionID: session.id,
          turn: typeof at === "number" ? at : 0,
          ...(typeof at === "string" ? { messageID: at } : {}),
          turns: all.length
        })
      const from = messages.findIndex((message) => message.info.id === user.info.id)
      const later = new Set(messages.slice(from).map((message) => message.info.id))
      // This turn's checkpoint, else the first of a later turn (a turn without one changed no file).
      const own = byMessage.get(user.info.id)
      const next = index.find((info) => later.has(info.messageID))
      const latest = Math.max(0, ...index.map((info) => info.turn))
      const turn = own?.turn ?? next?.turn ?? latest + 1
      return { messages, latest, user, turn }
    })

    const rewind = Effect.fn("Checkpoint.rewind")(function* (
      sessionID: string,
      at: TurnAddress,
      scope: RewindScope
    ) {
      const session = yield* sessionOf(sessionID)
      return yield* exclusive(
        sessionID,
        Effect.gen(function* () {
          const { messages, latest, user, turn } = yield* turnOf(session, at)
          const code =
            scope === "conversation"
              ? { files: [], skipped: [], lost: [] }
              : yield* restoreCode(session, turn, latest)
          if (code.lost.length > 0)
            yield* Effect.logWarning(
              `checkpoint: rewinding session ${sessionID} to turn ${turn}: no readable checkpoint for turns ${code.lost.join(", ")}; their file changes were not undone`
            )
          let removedMessages: ReadonlyArray<string> = []
          if (scope !== "code") {
            removedMessages = yield* dropMessages(session, messages, user)
            yield* storage.dropFrom(sessionID, turn)
          }
          const result: RewindResult = {
            sessionID,
            turn,
            messageID: user.info.id,
            scope,
            prompt: promptOf(user),
            files: code.files,
            skipped: code.skipped,
            lost: code.lost,
            removedMessages
          }
          return result
        }).pipe(Instance.provide(session.directory))
      )
    })

    const fork = Effect.fn("Checkpoint.fork")(function* (sessionID: string, at: TurnAddress) {
      const session = yield* sessionOf(sessionID)
      return yield* exclusive(
        sessionID,
        Effect.gen(function* () {
          const { messages, user, turn } = yield* turnOf(session, at)
          const kept = messages.slice(
            0,
            messages.findIndex((message) => message.info.id === user.info.id)
          )
          const created = yield* now
          const info: Session.Info = {
            id: Identifier.ascending("ses"),
            directory: session.directory,
            title: `${session.title} (fork before turn ${turn})`,
            time: { created, updated: created }
          }
          yield* store.putSession(info)
          const ids = new Map<string, string>()
          for (const message of kept) {
            const id = Identifier.ascending("msg")
            ids.set(message.info.id, id)
            const copy: Message.Info =
              message.info.role === "assistant"
                ? { ...message.info, id, sessionID: info.id, parentID: ids.get(message.info.parentID) ?? "" }
                : { ...message.info, id, sessionID: info.id }
            yield* store.putMessage(copy)
            for (const part of message.parts)
              yield* store.putPart({
                ...part,
                id: Identifier.ascending("prt"),
                sessionID: info.id,
                messageID: id
              })
          }
          // The fork keeps the checkpoints of the turns it holds, so it can be rewound too.
          for (const entry of yield* indexOf(sessionID)) {
            if (entry.turn >= turn) continue
            const record = yield* readRecord(sessionID, entry.turn)
            const messageID = record === undefined ? undefined : ids.get(record.messageID)
            if (record === undefined || messageID === undefined) continue
            const copy: Record = { ...record, sessionID: info.id, messageID }
            yield* storage.save(copy)
          }
          yield* bus.publish(Session.Event.Created, { info })
          const result: ForkResult = { session: info, prompt: promptOf(user) }
          return result
        }).pipe(Instance.provide(session.directory))
      )
    })

    return Service.of({ list, rewind, fork, open })
  })
)
