// Putting files back as a checkpoint recorded them. Every path is judged again at restore
// time: it must still lead where it was recorded (no symlink put in its way) and lie in
// the project; a path that fails is skipped with the reason, never written.
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import { resolveReal, within } from "./paths.ts"

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

const O_NOFOLLOW = NodeFs.constants.O_NOFOLLOW ?? 0

const PERMISSIONS = 0o7777

const restoreOne = async (root: string, saved: Saved): Promise<"restored" | "deleted" | "unchanged"> => {
  const real = await resolveReal(saved.path)
  if (real !== saved.path) throw new Error(`it now leads to ${real} (a symlink is in its way)`)
  if (within(root, real) === undefined)
    throw new Error("it is outside the project; rewind only restores files inside the project")
  const stat = await NodeFs.lstat(saved.path).catch(() => undefined)
  if (stat?.isDirectory() === true) throw new Error("it is a directory now")
  if (saved.content === null) {
    if (stat === undefined) return "unchanged"
    await NodeFs.rm(saved.path)
    return "deleted"
  }
  if (stat !== undefined) {
    const text = await NodeFs.readFile(saved.path, "utf8")
    const sameMode = saved.mode === undefined || (stat.mode & PERMISSIONS) === (saved.mode & PERMISSIONS)
    if (text === saved.content && sameMode) return "unchanged"
  } else await NodeFs.mkdir(NodePath.dirname(saved.path), { recursive: true })
  const mode = saved.mode === undefined ? 0o666 : saved.mode & PERMISSIONS
  const handle = await NodeFs.open(
    saved.path,
    NodeFs.constants.O_WRONLY | NodeFs.constants.O_CREAT | NodeFs.constants.O_TRUNC | O_NOFOLLOW,
    mode
  )
  try {
    await handle.writeFile(saved.content, "utf8")
    if (saved.mode !== undefined) await handle.chmod(mode)
  } finally {
    await handle.close()
  }
  return "restored"
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
  // Deepest first; a directory that still holds anything stays.
  for (const directory of [...directories].sort((a, b) => b.length - a.length)) {
    const real = await resolveReal(directory).catch(() => undefined)
    if (real !== directory) continue
    const relative = within(root, directory)
    if (relative === undefined || relative === ".") continue
    await NodeFs.rmdir(directory).catch(() => undefined)
  }
  return outcome
}
