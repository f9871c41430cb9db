// Reading a file the model names without trusting it: only a regular file is opened (a
// FIFO blocks forever, /dev/zero never ends), only where it was judged to be (no symlink
// swapped in on the way), and never more than a cap of bytes is read.
import type { Stats } from "node:fs"
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import { MOVED, withDirectory } from "./pinnedDirectory.ts"

/** Most bytes `read` looks at in one call: skipping to `offset`, the lines, counting the rest. */
export const MAX_READ_BYTES = 50 * 1024 * 1024

/** Largest file `write` and `edit` change (they hold the old and the new text, and a diff). */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024

const CHUNK = 256 * 1024

const { O_RDONLY, O_NONBLOCK = 0, O_NOCTTY = 0, O_NOFOLLOW = 0 } = NodeFs.constants

export const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`

const kindOf = (stat: Stats): string =>
  stat.isDirectory()
    ? "a directory"
    : stat.isFIFO()
      ? "a FIFO (named pipe)"
      : stat.isSocket()
        ? "a socket"
        : stat.isCharacterDevice()
          ? "a character device"
          : stat.isBlockDevice()
            ? "a block device"
            : "not a regular file"

/** Why `stat` is not something the file tools read, or undefined for a regular file. */
export const notRegular = (stat: Stats): string | undefined =>
  stat.isFile() ? undefined : `it is ${kindOf(stat)}, not a regular file`

const symlinkNow = () => Object.assign(new Error("it is a symlink now"), { code: "ELOOP" })

// The errors of a path under `/proc/self/fd` said without that path, which means nothing to the model.
const plainly = (cause: NodeJS.ErrnoException): never => {
  if (cause.code === "ENOENT") throw Object.assign(new Error("it does not exist"), { code: "ENOENT" })
  if (cause.code === "ELOOP") throw symlinkNow()
  if (cause.code === "EACCES" || cause.code === "EPERM")
    throw Object.assign(new Error("permission denied"), { code: cause.code })
  throw cause
}

/**
 * Opens the regular file at `path` (absolute, as judged) for reading, race-free the way
 * writes are: through its directory held open (every component walked from `/` without
 * following a symlink), the file itself with `O_NOFOLLOW`. A directory on the way or the
 * file swapped for a symlink after the path was judged makes the open fail (`ELOOP`,
 * `ENOTDIR` or `MOVED`) instead of reading outside. The entry is checked before the open
 * (so a FIFO or a device is never opened) and the open handle again (same device and inode,
 * still regular; the non-blocking open cannot hang on a FIFO swapped in between). A missing
 * file fails with `ENOENT`.
 */
export const openRegular = (path: string): Promise<{ handle: NodeFs.FileHandle; stat: Stats }> =>
  withDirectory(NodePath.dirname(path), {}, async (directory) => {
    const entry = directory.at(NodePath.basename(path))
    const before = await NodeFs.lstat(entry).catch(plainly)
    if (before.isSymbolicLink()) throw symlinkNow()
    const reason = notRegular(before)
    if (reason !== undefined) throw new Error(reason)
    const handle = await NodeFs.open(entry, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW).catch(plainly)
    try {
      const stat = await handle.stat()
      const now = notRegular(stat)
      if (now !== undefined) throw new Error(now)
      if (stat.dev !== before.dev || stat.ino !== before.ino)
        throw Object.assign(new Error("it was replaced while it was being opened"), { code: MOVED })
      await directory.verify()
      return { handle, stat }
    } catch (cause) {
      await handle.close()
      throw cause
    }
  }).catch(plainly)

/** The whole content of `handle`, or undefined (having read `max` + 1 bytes) when it is larger. */
export const readAtMost = async (handle: NodeFs.FileHandle, max: number): Promise<Buffer | undefined> => {
  const chunks: Array<Buffer> = []
  let total = 0
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, max + 1 - total))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, total)
    if (bytesRead === 0) return Buffer.concat(chunks, total)
    chunks.push(buffer.subarray(0, bytesRead))
    total += bytesRead
    if (total > max) return undefined
  }
}

/** What {@link readLines} found. */
export interface Lines {
  /** The lines from `first`, at most `take` of them, without their line ends. */
  readonly lines: Array<string>
  /** Lines after those: a count when the end of the file was reached, else undefined. */
  readonly rest: number | undefined
  /** The byte cap stopped the read before `take` lines (or before line `first`). */
  readonly cut: boolean
  /** A NUL byte was seen: a binary file. */
  readonly binary: boolean
}

/**
 * Lines `first` .. `first + take - 1` of the file (split at `\n`, a `\r` before it
 * dropped), reading at most `maxBytes` bytes in all: lines before `first` are skipped
 * without being kept, and the rest is counted only while the cap allows.
 */
export const readLines = async (
  handle: NodeFs.FileHandle,
  first: number,
  take: number,
  maxBytes: number = MAX_READ_BYTES
): Promise<Lines> => {
  const lines: Array<string> = []
  let line = 1 // the number of the line being read
  let pending: Array<Buffer> = [] // the start of that line, when it is kept
  let partial = false // bytes of that line were read
  let rest = 0
  let read = 0
  const keep = () => line >= first && lines.length < take
  const finish = (end: Buffer) => {
    if (keep()) {
      const bytes = pending.length === 0 ? end : Buffer.concat([...pending, end])
      const text = bytes.toString("utf8")
      lines.push(text.endsWith("\r") ? text.slice(0, -1) : text)
    } else if (line >= first) rest++
    pending = []
    partial = false
    line++
  }
  const buffer = Buffer.allocUnsafe(CHUNK)
  for (;;) {
    if (read >= maxBytes) {
      // At the cap: a file that ends exactly here was read whole.
      if ((await handle.read(buffer, 0, 1, read)).bytesRead === 0) break
      return { lines, rest: undefined, cut: lines.length < take, binary: false }
    }
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, maxBytes - read), read)
    if (bytesRead === 0) break
    read += bytesRead
    const chunk = buffer.subarray(0, bytesRead)
    if (chunk.includes(0)) return { lines, rest: undefined, cut: false, binary: true }
    let from = 0
    for (let end = chunk.indexOf(10, from); end !== -1; end = chunk.indexOf(10, from)) {
      finish(chunk.subarray(from, end))
      from = end + 1
    }
    if (from < chunk.length) {
      partial = true
      // The buffer is reused for the next chunk: keep a copy of a kept line's start.
      if (keep()) pending.push(Buffer.from(chunk.subarray(from)))
    }
  }
  if (partial) finish(Buffer.alloc(0))
  return { lines, rest, cut: false, binary: false }
}
