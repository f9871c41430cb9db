/**
 * The one seam between tools that change files and whatever keeps a record of the
 * changes (a {@link Checkpoint}).
 *
 * A file-changing tool works out, before it touches anything, a preview of what it will
 * do: each file's path, whether it will be created, modified or deleted, and its current
 * text. It then hands the preview to `FileChanges.Service` and changes the files only once
 * `declare` has succeeded. Tools never copy files themselves; whoever provides the
 * service decides what to keep (the session loop provides the turn's checkpoint
 * recorder around each tool call).
 *
 * `FileChanges.Service` is a `Context.Reference`: unset, `declare` records nothing, so a
 * tool used outside a session still works.
 *
 * Shell commands do not come through here: nothing can know which files a shell command
 * touched, so they are not part of any checkpoint.
 *
 * @example
 * ```ts
 * import { FileChanges } from "@gatehousejs/session"
 * import { Effect } from "effect"
 *
 * const seen: Array<FileChanges.Change> = []
 * const recorder: FileChanges.Interface = {
 *   declare: (changes) => Effect.sync(() => void seen.push(...changes))
 * }
 * const program = Effect.flatMap(FileChanges.Service, (changes) =>
 *   changes.declare([{ path: "/tmp/p/a.txt", relative: "a.txt", action: "create", after: "hi\n" }])
 * ).pipe(Effect.provideService(FileChanges.Service, recorder))
 * ```
 * @since 0.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * What a change does to its file.
 *
 * @since 0.0.0
 */
export const Action = Schema.Literals(["create", "modify", "delete"])
/** @since 0.0.0 */
export type Action = typeof Action.Type

/**
 * One file a tool is about to change: its absolute path (through symlinks), the path
 * shown to people (project-relative when inside the project), the action, the text it
 * has now (`before`, absent for `create`) and the text it will have (`after`, absent for
 * `delete`).
 *
 * @since 0.0.0
 */
export const Change = Schema.Struct({
  path: Schema.String,
  relative: Schema.String,
  action: Action,
  before: Schema.optionalKey(Schema.String),
  after: Schema.optionalKey(Schema.String)
})
/** @since 0.0.0 */
export type Change = typeof Change.Type

/**
 * The record of a declared change could not be kept, so the change was not made.
 *
 * @since 0.0.0
 */
export class RecordError extends Schema.TaggedError<RecordError>()("FileChangeRecordError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `could not record the current content of ${this.path} before changing it (${this.reason}), so it was not changed: check that the session's data directory is writable`
  }
}

/**
 * @since 0.0.0
 */
export interface Interface {
  /** Records what `changes` are about to do; the tool changes nothing unless this succeeds. */
  readonly declare: (changes: ReadonlyArray<Change>) => Effect.Effect<void, RecordError>
}

/**
 * A recorder that keeps nothing (the default).
 *
 * @since 0.0.0
 */
export const none: Interface = { declare: () => Effect.void }

/**
 * The current call's recorder (a reference: unset, it is {@link none}).
 *
 * @since 0.0.0
 */
export const Service: Context.Reference<Interface> = Context.Reference<Interface>(
  "@gatehousejs/session/FileChanges",
  { defaultValue: () => none }
)
