// A directory held open, so that what is written or removed in it lands in that directory
// even when a path on the way is swapped for a symlink after it was judged.
//
// Node has no openat(2). On Linux `/proc/self/fd/<fd>/<name>` is its equivalent: the kernel
// resolves `/proc/self/fd/<fd>` to the open directory itself (not to its path), so only
// `<name>` is looked up, in that directory. The walk opens every component of an absolute
// path from `/`, each through the descriptor of the one before, with O_NOFOLLOW and
// O_DIRECTORY: a symlink anywhere on the way fails the walk (ELOOP or ENOTDIR) instead of
// being followed. Where there is no `/proc/self/fd` (macOS, BSD) the walk opens each
// component by its path with O_NOFOLLOW and checks the descriptor's device and inode against
// an lstat of the path; each operation checks them again just before it acts and refuses on a
// change. That narrows the window to the operation itself; it does not close it.
import * as NodeFsSync from "node:fs"
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"

const { O_RDONLY, O_DIRECTORY = 0, O_NOFOLLOW = 0 } = NodeFs.constants

/** The `code` of the errors that refuse a path because a symlink or another directory is in its way. */
export const MOVED = "EGATEHOUSEMOVED"

// A fact about the platform, probed once per process (not state: it never changes).
let procAvailable: boolean | undefined

/** Whether `/proc/self/fd/<fd>/<name>` reaches into an open directory here (checked once). */
export const pinsThroughProc = (): boolean => {
  if (procAvailable !== undefined) return procAvailable
  let fd: number | undefined
  try {
    fd = NodeFsSync.openSync("/", O_RDONLY | O_DIRECTORY)
    procAvailable = NodeFsSync.statSync(`/proc/self/fd/${fd}/.`).ino === NodeFsSync.statSync("/").ino
  } catch {
    procAvailable = false
  } finally {
    if (fd !== undefined) NodeFsSync.closeSync(fd)
  }
  return procAvailable
}

/** A directory held open: `at(name)` is a path that reaches `name` inside it, race-free on Linux. */
export interface Pinned {
  /** The absolute path the directory was opened at (as judged). */
  readonly path: string
  /** A path naming the entry `name` of this very directory. */
  readonly at: (name: string) => string
  /** Refuses when the directory is no longer at `path` (only needed without `/proc`; a no-op with it). */
  readonly verify: () => Promise<void>
  readonly close: () => Promise<void>
}

const moved = (path: string) =>
  Object.assign(
    new Error(
      `${path} was replaced while it was being written (a symlink or another directory was put in its way)`
    ),
    {
      code: MOVED
    }
  )

const isCode = (cause: unknown, ...codes: ReadonlyArray<string>) =>
  codes.includes((cause as NodeJS.ErrnoException | undefined)?.code ?? "")

const openDirectoryAt = (path: string) => NodeFs.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)

const componentsOf = (absolute: string) => {
  const parsed = NodePath.parse(NodePath.resolve(absolute))
  return {
    root: parsed.root,
    names: NodePath.relative(parsed.root, NodePath.resolve(absolute))
      .split(NodePath.sep)
      .filter((name) => name !== "")
  }
}

const refuseLink =
  (path: string) =>
  (cause: unknown): never => {
    if (isCode(cause, "ELOOP", "ENOTDIR"))
      throw Object.assign(
        new Error(`${path} is not a directory reached without a symlink (it is a symlink or a file now)`),
        {
          code: MOVED
        }
      )
    throw cause
  }

/**
 * Opens the directory `absolute` (every component walked without following a symlink).
 * With `create`, missing directories are made (mode `directoryMode`, less the umask), each
 * inside the directory held before it.
 */
export const open = async (
  absolute: string,
  options: { readonly create?: boolean; readonly directoryMode?: number } = {}
): Promise<Pinned> => {
  const { root, names } = componentsOf(absolute)
  const mode = options.directoryMode ?? 0o777
  const viaProc = pinsThroughProc()
  let handle = await NodeFs.open(root, O_RDONLY | O_DIRECTORY)
  let path = root
  try {
    for (const name of names) {
      const next = NodePath.join(path, name)
      const entry = viaProc ? `/proc/self/fd/${handle.fd}/${name}` : next
      let child = await openDirectoryAt(entry).catch(async (cause: unknown) => {
        if (!(options.create === true && isCode(cause, "ENOENT"))) return refuseLink(next)(cause)
        await NodeFs.mkdir(entry, mode).catch((error: unknown) => {
          if (!isCode(error, "EEXIST")) throw error
        })
        return openDirectoryAt(entry).catch(refuseLink(next))
      })
      if (!viaProc) {
        const [held, now] = await Promise.all([child.stat(), NodeFs.lstat(next)])
        if (held.dev !== now.dev || held.ino !== now.ino) {
          await child.close()
          throw moved(next)
        }
      }
      await handle.close()
      handle = child
      child = undefined as never
      path = next
    }
  } catch (cause) {
    await handle.close()
    throw cause
  }
  const held = handle
  const heldPath = path
  return {
    path: heldPath,
    at: viaProc ? (name) => `/proc/self/fd/${held.fd}/${name}` : (name) => NodePath.join(heldPath, name),
    verify: viaProc
      ? () => Promise.resolve()
      : async () => {
          const [stat, now] = await Promise.all([held.stat(), NodeFs.lstat(heldPath).catch(() => undefined)])
          if (
            now === undefined ||
            stat.dev !== now.dev ||
            stat.ino !== now.ino ||
            (await NodeFs.realpath(heldPath)) !== heldPath
          )
            throw moved(heldPath)
        },
    close: () => held.close()
  }
}

/** Runs `f` with the directory `absolute` held open, closing it after. */
export const withDirectory = async <A>(
  absolute: string,
  options: { readonly create?: boolean },
  f: (directory: Pinned) => Promise<A>
): Promise<A> => {
  const directory = await open(absolute, options)
  try {
    return await f(directory)
  } finally {
    await directory.close()
  }
}
