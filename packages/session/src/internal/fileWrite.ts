// Writing a changed file so that no reader ever sees it half written, and no write is
// ever partial: every byte is written (one write call may take only part of a buffer).
import { randomBytes } from "node:crypto"
import * as NodeFs from "node:fs/promises"
import type { Pinned } from "./pinnedDirectory.ts"

const { O_NOFOLLOW = 0 } = NodeFs.constants

/** Writes all of `data` at the start of `handle` (a single write may take only part of it). */
export const writeAll = async (handle: NodeFs.FileHandle, data: Buffer) => {
  for (let at = 0; at < data.length; ) {
    const { bytesWritten } = await handle.write(data, at, data.length - at, at)
    if (bytesWritten === 0) throw new Error("the file system took no more bytes")
    at += bytesWritten
  }
}

/**
 * Replaces the file `name` of `directory` (held open) with `data` in one step: a temporary
 * file in the same directory, written in full and flushed, with the file's permission bits
 * (never setuid/setgid/sticky) and owner (when allowed), renamed over it. `undefined` when
 * the directory does not let us create it.
 */
export const replace = async (
  directory: Pinned,
  name: string,
  data: Buffer,
  mode: number,
  uid: number,
  gid: number
) => {
  const temporary = directory.at(`.${name}.${randomBytes(6).toString("hex")}.gatehouse.tmp`)
  const handle = await NodeFs.open(
    temporary,
    NodeFs.constants.O_WRONLY | NodeFs.constants.O_CREAT | NodeFs.constants.O_EXCL | O_NOFOLLOW,
    0o600
  ).catch((cause: NodeJS.ErrnoException) => {
    if (cause.code === "EACCES" || cause.code === "EPERM" || cause.code === "EROFS") return undefined
    throw cause
  })
  if (handle === undefined) return undefined
  try {
    try {
      await writeAll(handle, data)
      await handle.chown(uid, gid).catch(() => {})
      await handle.chmod(mode & 0o777)
      await handle.datasync()
    } finally {
      await handle.close()
    }
    await directory.verify()
    await NodeFs.rename(temporary, directory.at(name))
    return true
  } catch (cause) {
    await NodeFs.rm(temporary, { force: true })
    throw cause
  }
}
