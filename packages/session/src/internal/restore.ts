// Putting files back as a checkpoint recorded them. Every path is judged again at restore
// time: it must lie in the project and still be reached without a symlink; a path that
// fails is skipped with the reason, never written. The judging and the writing are one
// step: each file is written or removed through its directory held open (pinnedDirectory),
// walked from `/` without following a symlink, so a directory swapped for a symlink while
// the rewind runs makes that file fail instead of sending the write outside.
import { randomBytes } from "node:crypto"
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import { writeAll } from "./fileWrite.ts"
import { within } from "./paths.ts"
import { type Pinned, withDirectory } from "./pinnedDirectory.ts"

export interface Saved {
  readonly path: string
  readonly relative: string
  /** The text the file had; null when it did not exist. */
  readonly content: string | null
  readonly mode?: number | undefined
  /** Directories creating the file made, deepest first. */
  readonly createdDirectories?: ReadonlyArray<string> | undefined
}

export interface Outcome {
  readonly files: Array<{ readonly path: string; readonly action: "restored" | "deleted" | "unchanged" }>
  readonly skipped: Array<{ readonly path: string; readonly reason: string }>
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = NodeFs.constants

// Only the permission bits come back: never setuid, setgid or sticky, whatever was recorded.
const PERMISSIONS = 0o777

const code = (cause: unknown) => (cause as NodeJS.ErrnoException | undefined)?.code

/** The current text of `name` in `directory`, undefined when it is missing; refuses what is not a file. */
const currentOf = async (directory: Pinned, name: string) => {
  const handle = await NodeFs.open(directory.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((cause) => {
    if (code(cause) === "ENOENT") return undefined
    if (code(cause) === "ELOOP") throw new Error("it is a symlink now")
    throw cause
  })
  if (handle === undefined) return undefined
  try {
    const stat = await handle.stat()
    if (stat.isDirectory()) throw new Error("it is a directory now")
    if (!stat.isFile()) throw new Error("it is not a regular file now")
    return { text: await handle.readFile("utf8"), mode: stat.mode }
  } finally {
    await handle.close()
  }
}

/** Writes `text` as `name` in `directory`: a new file beside it, renamed over whatever is there. */
const replaceIn = async (directory: Pinned, name: string, text: string, mode: number) => {
  const temporary = `.${name}.${randomBytes(6).toString("hex")}.gatehouse.tmp`
  const handle = await NodeFs.open(directory.at(temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
  try {
    try {
      await writeAll(handle, Buffer.from(text, "utf8"))
      await handle.chmod(mode)
      await handle.datasync()
    } finally {
      await handle.close()
    }
    await directory.verify()
    await NodeFs.rename(directory.at(temporary), directory.at(name))
  } catch (cause) {
    await NodeFs.rm(directory.at(temporary), { force: true })
    throw cause
  }
}

const restoreOne = async (root: string, saved: Saved): Promise<"restored" | "deleted" | "unchanged"> => {
  const path = NodePath.resolve(saved.path)
  const relative = within(root, path)
  if (relative === undefined || relative === ".")
    throw new Error("it is outside the project; rewind only restores files inside the project")
  const name = NodePath.basename(path)
  return withDirectory(NodePath.dirname(path), { create: saved.content !== null }, async (directory) => {
    const found = await currentOf(directory, name)
    if (saved.content === null) {
      if (found === undefined) return "unchanged"
      await directory.verify()
      await NodeFs.unlink(directory.at(name))
      return "deleted"
    }
    const mode = saved.mode === undefined ? (found?.mode ?? 0o644) & PERMISSIONS : saved.mode & PERMISSIONS
    if (found !== undefined && found.text === saved.content && (found.mode & 0o7777) === mode)
      return "unchanged"
    await replaceIn(directory, name, saved.content, mode)
    return "restored"
  }).catch((cause: unknown) => {
    if (code(cause) === "ENOENT" && saved.content === null) return "unchanged" as const
    throw cause
  })
}

/** Restores each file (in order) inside `root`, then removes the directories the turn created, if empty. */
export const restoreAll = async (root: string, saved: ReadonlyArray<Saved>): Promise<Outcome> => {
  const outcome: Outcome = { files: [], skipped: [] }
  const directories = new Set<string>()
  for (const file of saved) {
    try {
      const action = await restoreOne(root, file)
      outcome.files.push({ path: file.relative, action })
      if (file.content === null)
        for (const directory of file.createdDirectories ?? []) directories.add(directory)
    } catch (cause) {
      outcome.skipped.push({ path: file.relative, reason: (cause as Error).message })
    }
  }
  // Deepest first; a directory that still holds anything stays, and so does one reached through a symlink.
  for (const directory of [...directories].sort((a, b) => b.length - a.length)) {
    const relative = within(root, directory)
    if (relative === undefined || relative === ".") continue
    await withDirectory(NodePath.dirname(directory), {}, (parent) =>
      parent.verify().then(() => NodeFs.rmdir(parent.at(NodePath.basename(directory))))
    ).catch(() => undefined)
  }
  return outcome
}
