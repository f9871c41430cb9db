/**
 * The `list` tool of the default toolset: the files under a directory of the project.
 * (`read`, `write` and `edit` are in {@link FileTools}.)
 *
 * It asks before it looks: `external_directory` (pattern `<dir>/*`) for a directory
 * outside the project, then `read` with the project-relative path as pattern (so
 * `"read": { "secret/*": "deny" }` governs it). Paths are resolved through symlinks
 * before they are judged. Output beyond the Truncate limits is cut and the full text
 * spilled to a file, like any tool output. Failures come back to the model as results
 * (`{ _tag, message }`), the same shape as the `bash` tool's.
 *
 * The call's session, ids, ruleset and project directory come from `ShellContext.Service`,
 * which the session loop sets for every tool call.
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
import * as FileAccess from "./internal/fileAccess.ts"
import { bounded, fileError, gate, locate, toFailure } from "./internal/fileAccess.ts"

/**
 * What `list` returns: the text the model reads, a title for UIs, and where
 * the full output went when it was cut.
 *
 * @since 0.0.0
 */
export const Result = FileAccess.Output
/** @since 0.0.0 */
export type Result = typeof Result.Type

/**
 * A failure as the model reads it: the error's tag and its message.
 *
 * @since 0.0.0
 */
export const Failure = FileAccess.Failure
/** @since 0.0.0 */
export type Failure = typeof Failure.Type

/**
 * Most entries `list` shows.
 *
 * @since 0.0.0
 */
export const LIST_LIMIT = 500

const IGNORED = new Set([".git", "node_modules", ".hg", ".svn", "dist", ".cache"])

/**
 * The `list` tool.
 *
 * @since 0.0.0
 */
export const list = Tool.make("list", {
  description:
    "Lists the files and directories under a directory of the project (recursively, skipping .git and node_modules), " +
    `at most ${LIST_LIMIT} entries. Use it to find your way around before reading files.`,
  parameters: Schema.Struct({
    path: Schema.optionalKey(
      Schema.String.annotate({
        description: "The directory to list, relative to the project (default: the project)"
      })
    )
  }),
  success: Result,
  failure: Failure,
  failureMode: "return",
  dependencies: [Instance.Current]
})

/**
 * A toolkit holding `list`.
 *
 * @since 0.0.0
 */
export const toolkit = Toolkit.make(list)

const walk = async (root: string): Promise<{ lines: Array<string>; more: boolean }> => {
  const lines: Array<string> = []
  let more = false
  const visit = async (directory: string, depth: number): Promise<void> => {
    const entries = (await NodeFs.readdir(directory, { withFileTypes: true })).sort((a, b) =>
      a.isDirectory() === b.isDirectory() ? a.name.localeCompare(b.name) : a.isDirectory() ? -1 : 1
    )
    for (const entry of entries) {
      if (lines.length >= LIST_LIMIT) {
        more = true
        return
      }
      if (IGNORED.has(entry.name)) continue
      const indent = "  ".repeat(depth)
      if (entry.isDirectory()) {
        lines.push(`${indent}${entry.name}/`)
        await visit(NodePath.join(directory, entry.name), depth + 1)
      } else lines.push(`${indent}${entry.name}`)
    }
  }
  await visit(root, 1)
  return { lines, more }
}

/**
 * The handlers of {@link toolkit}. Needs `Permission.Service` and `Truncate.Service`.
 *
 * @since 0.0.0
 */
export const handlers = toolkit.toLayer(
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    const truncate = yield* Truncate.Service
    return toolkit.of({
      list: ({ path }) =>
        Effect.gen(function* () {
          const where = yield* locate(path ?? ".")
          yield* gate(permission, "list", "read", where, where.absolute)
          const listing = yield* Effect.tryPromise({
            try: () => walk(where.absolute),
            catch: (cause) => fileError(`cannot list ${where.pattern}: ${(cause as Error).message}`)
          })
          const header = `${where.absolute}/`
          const body = listing.lines.join("\n")
          const footer = listing.more ? `\n(more entries not shown: list a subdirectory to see them)` : ""
          return yield* bounded(truncate, `${header}\n${body}${footer}`, where.pattern)
        }).pipe(Effect.mapError(toFailure))
    })
  })
)
