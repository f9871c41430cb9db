/**
 * The file tools: `read` (a text file with line numbers), `write` (a whole file) and
 * `edit` (replace a string in a file), as `effect/ai` tools.
 *
 * Each asks before it acts: `external_directory` (pattern `<dir>/*`) for a path outside
 * the project (not for `read` of a spill file, in the directory of `Truncate.Service`,
 * where a truncation hint sends the model), then `read` (for `read`) or `edit` (for
 * `write` and `edit`) with the project-relative path as pattern, so `"edit": { "src/*": "allow", ".git/*": "deny" }`
 * and `"read": { "*.env": "ask" }` govern them. Paths are resolved through symlinks
 * (also those on the way to a file that does not exist yet) before they are judged, and
 * files are written at the resolved path, never through a symlink.
 *
 * Only regular files are read or changed: a directory, a FIFO, a socket or a device is
 * refused, naming what it is. `read` output beyond the Truncate limits is cut and the
 * whole spilled to a file, like any tool output; `read` looks at no more than
 * {@link MAX_READ_BYTES} of a file per call (skipping to `offset`, the lines asked for,
 * counting the rest), and says so when that stopped it. `write` and `edit` refuse a file
 * over {@link MAX_EDIT_BYTES}, and work out a preview first (path, `create | modify`, the
 * current text, the new text): the person asked sees it as a diff, and the tool declares
 * it to `FileChanges.Service` (the session's checkpoint) before changing anything. A file
 * that changed between the preview and the write is not overwritten; a changed file is
 * replaced in one step (a temporary file renamed over it), so no reader ever sees it half
 * written.
 *
 * Failures come back to the model as results (`{ _tag, message }`), the same shape as
 * the `bash` tool's. The call's session, ids, ruleset and project directory come from
 * `ShellContext.Service`, which the session loop sets for every tool call.
 *
 * @since 0.0.0
 */
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as FileChanges from "./FileChanges.ts"
import { unified } from "./internal/diff.ts"
import * as FileAccess from "./internal/fileAccess.ts"
import {
  bounded,
  fileError,
  gate,
  isSpilled,
  type Location,
  locate,
  toFailure
} from "./internal/fileAccess.ts"
import * as FileRead from "./internal/fileRead.ts"
import { replace, writeAll } from "./internal/fileWrite.ts"
import { MOVED, withDirectory } from "./internal/pinnedDirectory.ts"

/**
 * Most bytes of a file `read` looks at in one call (50 MiB): skipping to `offset`, the
 * lines asked for, and counting the lines after them.
 *
 * @since 0.0.0
 */
export const MAX_READ_BYTES: number = FileRead.MAX_READ_BYTES

/**
 * Largest file `write` and `edit` change (10 MiB); a larger one is refused (use `bash`).
 *
 * @since 0.0.0
 */
export const MAX_EDIT_BYTES: number = FileRead.MAX_EDIT_BYTES

/**
 * What `read` returns: the text the model reads, a title for UIs, and where the full
 * output went when it was cut.
 *
 * @since 0.0.0
 */
export const ReadResult = FileAccess.Output
/** @since 0.0.0 */
export type ReadResult = typeof ReadResult.Type

/**
 * What `write` and `edit` return: a sentence for the model, the path as title, what
 * happened to the file and a diff for UIs.
 *
 * @since 0.0.0
 */
export const ChangeResult = Schema.Struct({
  output: Schema.String,
  title: Schema.String,
  action: FileChanges.Action,
  diff: Schema.String
})
/** @since 0.0.0 */
export type ChangeResult = typeof ChangeResult.Type

/**
 * A failure as the model reads it: the error's tag and its message.
 *
 * @since 0.0.0
 */
export const Failure = FileAccess.Failure
/** @since 0.0.0 */
export type Failure = typeof Failure.Type

/**
 * The `read` tool.
 *
 * @since 0.0.0
 */
export const read = Tool.make("read", {
  description:
    "Reads a text file of the project and returns its lines, numbered. Use offset and limit to read a part of a long file. " +
    "Output longer than the tool output limits is cut; the full text is saved to a file whose path is given.",
  parameters: Schema.Struct({
    filePath: Schema.String.annotate({
      description: "The file to read, relative to the project or absolute"
    }),
    offset: Schema.optionalKey(
      Schema.Int.annotate({ description: "The first line to read, from 1 (default 1)" })
    ),
    limit: Schema.optionalKey(Schema.Int.annotate({ description: "How many lines to read (default 2000)" }))
  }),
  success: ReadResult,
  failure: Failure,
  failureMode: "return",
  dependencies: [Instance.Current]
})

/**
 * The `write` tool.
 *
 * @since 0.0.0
 */
export const write = Tool.make("write", {
  description:
    "Writes a whole text file: creates it (and its directories) or replaces its content. " +
    "To change part of an existing file, prefer edit.",
  parameters: Schema.Struct({
    filePath: Schema.String.annotate({
      description: "The file to write, relative to the project or absolute"
    }),
    content: Schema.String.annotate({ description: "The file's complete new content" })
  }),
  success: ChangeResult,
  failure: Failure,
  failureMode: "return",
  dependencies: [Instance.Current]
})

/**
 * The `edit` tool.
 *
 * @since 0.0.0
 */
export const edit = Tool.make("edit", {
  description:
    "Replaces oldString with newString in a text file. oldString must occur exactly once unless replaceAll is true; " +
    "copy it from the file exactly, whitespace included. An empty oldString creates a file that does not exist yet.",
  parameters: Schema.Struct({
    filePath: Schema.String.annotate({
      description: "The file to edit, relative to the project or absolute"
    }),
    oldString: Schema.String.annotate({ description: "The exact text to replace" }),
    newString: Schema.String.annotate({ description: "The text to put in its place" }),
    replaceAll: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Replace every occurrence (default false)" })
    )
  }),
  success: ChangeResult,
  failure: Failure,
  failureMode: "return",
  dependencies: [Instance.Current]
})

/**
 * A toolkit holding `read`, `write` and `edit`.
 *
 * @since 0.0.0
 */
export const toolkit = Toolkit.make(read, write, edit)

type Current =
  | { readonly exists: false }
  | { readonly exists: true; readonly text: string; readonly mode: number }

/** The file's current text, refusing what is not a regular file, large files and binary files. */
const current = (where: Location) =>
  Effect.tryPromise({
    try: async (): Promise<Current> => {
      const opened = await FileRead.openRegular(where.absolute).catch((cause: NodeJS.ErrnoException) => {
        if (cause.code === "ENOENT") return undefined
        throw cause
      })
      if (opened === undefined) return { exists: false }
      const { handle, stat } = opened
      const tooLarge = () =>
        new Error(
          `it is larger than the ${FileRead.mib(MAX_EDIT_BYTES)} write and edit handle; change it with bash instead`
        )
      const bytes = await (stat.size > MAX_EDIT_BYTES
        ? Promise.resolve(undefined)
        : FileRead.readAtMost(handle, MAX_EDIT_BYTES)
      ).finally(() => handle.close())
      if (bytes === undefined) throw tooLarge()
      if (bytes.includes(0))
        throw new Error("it is a binary file; only text files can be changed with this tool")
      return { exists: true, text: bytes.toString("utf8"), mode: stat.mode }
    },
    catch: (cause) => fileError(`cannot change ${where.pattern}: ${(cause as Error).message}`)
  })

const count = (text: string, search: string) => {
  let n = 0
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) n++
  return n
}

const lines = (text: string) => {
  const n = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
  return `${n} line${n === 1 ? "" : "s"}`
}

const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = NodeFs.constants

/**
 * Writes the change at the path that was judged: re-resolved to make sure no symlink was
 * put in its way, never following one at the last component, and only if the file is
 * still what the preview saw.
 */
const apply = (where: Location, change: FileChanges.Change) =>
  Effect.tryPromise({
    try: () =>
      // Through the directory held open, walked from / without following a symlink: one
      // swapped in after the path was judged fails the write instead of redirecting it.
      withDirectory(
        NodePath.dirname(where.absolute),
        { create: change.action === "create" },
        async (directory) => {
          const name = NodePath.basename(where.absolute)
          if (change.action === "create") {
            const handle = await NodeFs.open(
              directory.at(name),
              NodeFs.constants.O_WRONLY | NodeFs.constants.O_CREAT | NodeFs.constants.O_EXCL | O_NOFOLLOW,
              0o666
            )
            try {
              await writeAll(handle, Buffer.from(change.after ?? "", "utf8"))
            } finally {
              await handle.close()
            }
            return
          }
          const changed = () => new Error("it changed since it was read: read it again and retry")
          // Opened for writing, as an in-place write would be: a read-only file stays refused.
          const handle = await NodeFs.open(
            directory.at(name),
            NodeFs.constants.O_RDWR | O_NOFOLLOW | O_NONBLOCK
          )
          try {
            const stat = await handle.stat()
            if (!stat.isFile()) throw changed()
            const bytes = await FileRead.readAtMost(handle, MAX_EDIT_BYTES)
            if (bytes === undefined || bytes.toString("utf8") !== change.before) throw changed()
            const data = Buffer.from(change.after ?? "", "utf8")
            // A rename would split a file with other hard links from them: write those in place.
            if (stat.nlink === 1 && (await replace(directory, name, data, stat.mode, stat.uid, stat.gid)))
              return
            await handle.truncate(0)
            await writeAll(handle, data)
          } finally {
            await handle.close()
          }
        }
      ),
    catch: (cause) => {
      const error = cause as NodeJS.ErrnoException
      const reason =
        error.code === "EEXIST"
          ? "it was created by something else since it was read: read it and retry"
          : error.code === "ELOOP"
            ? "it is a symlink now"
            : error.code === MOVED
              ? error.message
              : error.message
      return fileError(`cannot write ${where.pattern}: ${reason}`)
    }
  })

/**
 * The handlers of {@link toolkit}. Needs `Permission.Service` and `Truncate.Service`;
 * each call declares its changes to the `FileChanges.Service` it runs with.
 *
 * @since 0.0.0
 */
export const handlers = toolkit.toLayer(
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    const truncate = yield* Truncate.Service

    /**
     * The shared path of `write` and `edit`. `prepare` turns the current file into the
     * new text (or a failure the model reads). It runs before the `edit` ask, so the
     * person sees the diff, unless the rules do not let the model read the file: then the
     * ask comes first, so a failed match cannot tell the model anything about the file.
     */
    const change = (
      tool: "write" | "edit",
      filePath: string,
      prepare: (
        where: Location,
        file: Current
      ) => Effect.Effect<{ readonly after: string; readonly note: string }, Failure>
    ) =>
      Effect.gen(function* () {
        const where = yield* locate(filePath)
        const directory = NodePath.dirname(where.absolute)
        const peek =
          where.inside && Permission.evaluate("read", where.pattern, where.context.ruleset).action === "allow"
        if (!peek) yield* gate(permission, tool, "edit", where, directory)
        const file = yield* current(where)
        const { after, note } = yield* prepare(where, file)
        const preview: FileChanges.Change = {
          path: where.absolute,
          relative: where.pattern,
          action: file.exists ? "modify" : "create",
          ...(file.exists ? { before: file.text } : {}),
          after
        }
        const diff = unified(where.pattern, preview.before, after)
        if (peek) yield* gate(permission, tool, "edit", where, directory, { action: preview.action, diff })
        const recorder = yield* FileChanges.Service
        yield* recorder.declare([preview])
        yield* apply(where, preview)
        const result: ChangeResult = {
          output: `${preview.action === "create" ? "Created" : "Updated"} ${where.pattern}: ${note}.`,
          title: where.pattern,
          action: preview.action,
          diff
        }
        return result
      }).pipe(Effect.mapError(toFailure))

    return toolkit.of({
      read: ({ filePath, offset, limit }) =>
        Effect.gen(function* () {
          const where = yield* locate(filePath)
          const spilled = !where.inside && (yield* isSpilled(truncate, where))
          yield* gate(permission, "read", "read", where, NodePath.dirname(where.absolute), {}, spilled)
          const first = Math.max(1, offset ?? 1)
          const take = Math.max(0, limit ?? Truncate.MAX_LINES)
          const found = yield* Effect.tryPromise({
            try: async () => {
              const { handle } = await FileRead.openRegular(where.absolute)
              try {
                return await FileRead.readLines(handle, first, take)
              } finally {
                await handle.close()
              }
            },
            catch: (cause) => fileError(`cannot read ${where.pattern}: ${(cause as Error).message}`)
          })
          if (found.binary) return yield* Effect.fail(fileError(`${where.pattern} is a binary file`))
          const cap = FileRead.mib(MAX_READ_BYTES)
          const shown = found.lines
          if (found.cut && shown.length === 0)
            return yield* Effect.fail(
              fileError(
                `cannot read ${where.pattern} from line ${first}: that line does not end within the first ${cap} of the file, which is as far as read looks; use bash for a file this large (sed -n '${first},${first + take - 1}p')`
              )
            )
          const next = first + shown.length
          const width = String(next).length
          const body = shown.map((line, i) => `${String(first + i).padStart(width, " ")}| ${line}`).join("\n")
          const footer =
            found.rest === undefined
              ? found.cut
                ? ""
                : `\n(more lines follow, not counted: the file is larger than the ${cap} read looks at in one call; read again with offset ${next})`
              : found.rest > 0
                ? `\n(${found.rest} more lines: read again with offset ${next})`
                : ""
          const result = yield* bounded(truncate, `${body}${footer}`, where.pattern)
          if (!found.cut) return result
          // After the truncation, so the model sees it whatever Truncate kept.
          return {
            ...result,
            output: `${result.output}\n\n(read stopped after ${cap} of ${where.pattern}, at line ${next - 1}, before the ${take} lines asked for: read again with offset ${next})`
          }
        }).pipe(Effect.mapError(toFailure)),

      write: ({ filePath, content }) =>
        change("write", filePath, (_, file) =>
          Effect.succeed({
            after: content,
            note: file.exists && file.text === content ? "the content was already the same" : lines(content)
          })
        ),

      edit: ({ filePath, oldString, newString, replaceAll }) =>
        change("edit", filePath, (where, file) => {
          if (!file.exists) {
            if (oldString === "") return Effect.succeed({ after: newString, note: lines(newString) })
            return Effect.fail(
              fileError(
                `${where.pattern} does not exist: check the path, or create it with write (or edit with an empty oldString)`
              )
            )
          }
          if (oldString === "")
            return Effect.fail(
              fileError(
                `oldString is empty but ${where.pattern} exists: give the exact text to replace, or use write to replace the whole file`
              )
            )
          if (oldString === newString)
            return Effect.fail(fileError("oldString and newString are the same: there is nothing to change"))
          // A file with CRLF line ends still matches text the model wrote with LF.
          const crlf = !file.text.includes(oldString) && file.text.includes("\r\n")
          const search = crlf ? oldString.replaceAll("\n", "\r\n") : oldString
          const replacement = crlf ? newString.replaceAll("\n", "\r\n") : newString
          const found = count(file.text, search)
          if (found === 0)
            return Effect.fail(
              fileError(
                `oldString was not found in ${where.pattern}: read the file and copy the text exactly, whitespace and indentation included`
              )
            )
          if (found > 1 && replaceAll !== true)
            return Effect.fail(
              fileError(
                `oldString occurs ${found} times in ${where.pattern}, so it is not unique: add surrounding lines to pick one, or set replaceAll to replace all ${found}`
              )
            )
          return Effect.succeed({
            after: file.text.replaceAll(search, () => replacement),
            note: `${replaceAll === true ? found : 1} replacement${replaceAll === true && found !== 1 ? "s" : ""}`
          })
        })
    })
  })
)
