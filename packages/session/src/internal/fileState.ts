// What a checkpoint records of a file before a tool changes it: its text and permission
// bits, read where the path was judged to be. The read goes through `openRegular`, so a
// directory on the way swapped for a symlink since cannot make the checkpoint hold a file
// from outside the project (which a rewind would then write into it).
import type * as FileChanges from "../FileChanges.ts"
import type { FileState } from "./checkpointStorage.ts"
import { openRegular } from "./fileRead.ts"
import { missingAncestors } from "./paths.ts"

/**
 * The state of `change.path` before the change. A missing file is recorded as absent
 * (`content: null`, with the directories creating it would make); a path that is not a
 * regular file reached without a symlink fails, so nothing wrong is recorded.
 */
export const stateBefore = async (change: FileChanges.Change, root: string): Promise<FileState> => {
  const opened = await openRegular(change.path).catch((cause: NodeJS.ErrnoException) => {
    if (cause.code === "ENOENT") return undefined
    throw cause
  })
  let content: string | null = null
  let mode: number | undefined
  if (opened !== undefined) {
    try {
      mode = opened.stat.mode & 0o7777
      // A tool that left out the current text still gets it recorded, from the file.
      if (change.action !== "create") content = change.before ?? (await opened.handle.readFile("utf8"))
    } finally {
      await opened.handle.close()
    }
  }
  const createdDirectories = content === null ? await missingAncestors(change.path, root) : []
  return {
    path: change.path,
    relative: change.relative,
    content,
    ...(mode === undefined ? {} : { mode }),
    ...(createdDirectories.length > 0 ? { createdDirectories } : {})
  }
}
