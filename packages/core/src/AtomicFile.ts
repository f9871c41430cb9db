/**
 * Whole-file writes that a crash or a concurrent reader never sees half done.
 *
 * Files are created 0600 and directories 0700 unless told otherwise: what Gatehouse keeps
 * (sessions, approvals, checkpoints, tool output) is nobody else's to read.
 *
 * @since 0.0.0
 */
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"

// Loaded on first use: importing node:crypto costs a one-shot command ~10 ms it rarely needs.
const crypto = () => process.getBuiltinModule("node:crypto")

/**
 * How {@link writeText} writes.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The file's permission bits (default 0600). */
  readonly mode?: number
  /** The permission bits of directories it creates (default 0700). */
  readonly directoryMode?: number
  /**
   * Flush the file before the rename and the directory after it (default false): the new
   * content survives a power loss once the call returns.
   */
  readonly sync?: boolean
}

/** The default permission bits of a data file. */
export const FILE_MODE = 0o600
/** The default permission bits of a data directory. */
export const DIRECTORY_MODE = 0o700

const syncDirectory = async (directory: string) => {
  const handle = await NodeFs.open(directory, "r")
  try {
    await handle.sync()
  } catch (cause) {
    // Some file systems cannot fsync a directory; the file itself was flushed.
    if ((cause as NodeJS.ErrnoException).code !== "EINVAL") throw cause
  } finally {
    await handle.close()
  }
}

/**
 * Writes `text` to `path` through a temporary file in the same directory, renamed over
 * the old file; creates the directory when missing. On failure no temporary file is left.
 *
 * @example
 * ```ts
 * import { AtomicFile } from "@gatehousejs/core"
 * await AtomicFile.writeText("/tmp/gatehouse-example/state.json", "{}\n", { sync: true })
 * ```
 * @since 0.0.0
 */
export const writeText = async (path: string, text: string, options: Options = {}): Promise<void> => {
  const directory = NodePath.dirname(path)
  await NodeFs.mkdir(directory, { recursive: true, mode: options.directoryMode ?? DIRECTORY_MODE })
  const temporary = `${path}.${crypto().randomBytes(6).toString("hex")}.tmp`
  const mode = options.mode ?? FILE_MODE
  try {
    const handle = await NodeFs.open(temporary, "wx", mode)
    try {
      await handle.writeFile(text, "utf8")
      // The umask may have taken bits away; the mode asked for is the mode kept.
      await handle.chmod(mode)
      if (options.sync === true) await handle.sync()
    } finally {
      await handle.close()
    }
    await NodeFs.rename(temporary, path)
  } catch (cause) {
    await NodeFs.rm(temporary, { force: true })
    throw cause
  }
  if (options.sync === true) await syncDirectory(directory)
}

/**
 * Makes `directory` (and the directories under it, and their files) reachable by its owner
 * only: directories 0700, files 0600. For data kept by an older version, created 0755/0644.
 * Symlinks are left alone and not followed; a missing directory is no error.
 *
 * @since 0.1.0
 */
export const tighten = async (directory: string): Promise<void> => {
  const stat = await NodeFs.lstat(directory).catch(() => undefined)
  if (stat === undefined || !stat.isDirectory()) return
  if ((stat.mode & 0o777) !== DIRECTORY_MODE) await NodeFs.chmod(directory, DIRECTORY_MODE)
  const entries = await NodeFs.readdir(directory, { withFileTypes: true })
  for (const entry of entries) {
    const path = NodePath.join(directory, entry.name)
    if (entry.isDirectory()) await tighten(path)
    else if (entry.isFile()) {
      const file = await NodeFs.lstat(path).catch(() => undefined)
      if (file !== undefined && (file.mode & 0o077) !== 0) await NodeFs.chmod(path, file.mode & 0o700)
    }
  }
}
