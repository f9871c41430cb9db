// What is remembered of project roots from one analysis to the next. A root with no symlink
// in its path is checked again with one lstat (same device and inode) instead of one per
// component of its path. Its entries are listed once and trusted while the root's own times
// say that nothing in it changed, so the first component of a path under the root needs no
// lookup of its own.
import * as fs from "node:fs"

/** What the listing says of a name in the root; `undefined` when only a lookup can tell. */
export type Listed = "file" | "directory" | "missing" | undefined

export interface KnownRoot {
  /** Present when the root's listing can be trusted for this analysis. */
  readonly lookup: ((name: string) => Listed) | undefined
}

interface Listing {
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly kinds: ReadonlyMap<string, "file" | "directory" | "other">
  /** Every name in ASCII lower case: on a case-insensitive file system `SRC` is `src`. */
  readonly folded: ReadonlySet<string>
  /**
   * Whether a name absent from the listing is missing. Not when an entry's name is not
   * ASCII: file systems that normalise or fold names (APFS, Linux casefold directories)
   * find `ſecrets` under `secrets` and `x;` under `x\u037E`.
   */
  readonly absentIsMissing: boolean
}

interface Known {
  readonly dev: number
  readonly ino: number
  listing: Listing | undefined
}

const known = new Map<string, Known>()
const MAX_ROOTS = 64
const MAX_LISTED = 4096
// A directory's times change whenever an entry is added, removed or renamed, but only as
// finely as the file system's clock ticks (a second on some): a change in the same tick as
// the listing would leave them equal. A listing is therefore taken only of a root whose last
// change is older than this, so any later change gives it new times (as git does for its
// index).
const SETTLED_MS = 3000

/**
 * The root as remembered, if it still is the same plain directory; one lstat. `now` is
 * the current time in milliseconds, on the clock file times are set by. A root whose
 * component above it became a symlink to that same directory still passes: paths spelt
 * through the new route resolve outside the root and are asked about, stricter not looser.
 */
export const checkRoot = (root: string, now: number): KnownRoot | undefined => {
  const entry = known.get(root)
  if (entry === undefined) return undefined
  const found = lstat(root)
  if (found === undefined || !found.isDirectory() || found.dev !== entry.dev || found.ino !== entry.ino) {
    known.delete(root)
    return undefined
  }
  const listing = entry.listing
  if (listing === undefined || listing.mtimeMs !== found.mtimeMs || listing.ctimeMs !== found.ctimeMs) {
    entry.listing = list(root, found, now)
  }
  const current = entry.listing
  return { lookup: current === undefined ? undefined : (name) => lookup(current, name) }
}

/** Remembers a root found to have no symlink in its path. */
export const rememberRoot = (root: string): void => {
  const found = lstat(root)
  if (found === undefined || !found.isDirectory()) return
  if (known.size >= MAX_ROOTS) known.clear()
  known.set(root, { dev: found.dev, ino: found.ino, listing: undefined })
}

const lookup = (listing: Listing, name: string): Listed => {
  const kind = listing.kinds.get(name)
  if (kind === "file" || kind === "directory") return kind
  if (kind !== undefined) return undefined
  // Absent as spelt: missing, unless the file system may know it under another spelling
  // (another case; non-ASCII names, which some file systems also normalise).
  if (!listing.absentIsMissing || !isAscii(name) || listing.folded.has(name.toLowerCase())) return undefined
  // Windows also finds an entry under its 8.3 short name (`LONGNA~1`).
  if (name.includes("~")) return undefined
  return "missing"
}

const isAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false
  return true
}

const list = (root: string, stat: fs.Stats, now: number): Listing | undefined => {
  if (now - Math.max(stat.mtimeMs, stat.ctimeMs) < SETTLED_MS) return undefined
  const entries = readOpened(root, stat)
  if (entries === undefined) return undefined
  if (entries.length > MAX_LISTED) return undefined
  const kinds = new Map<string, "file" | "directory" | "other">()
  const folded = new Set<string>()
  let absentIsMissing = true
  for (const entry of entries) {
    // A symlink, or a type the file system does not report, is looked up as before.
    kinds.set(entry.name, entry.isFile() ? "file" : entry.isDirectory() ? "directory" : "other")
    folded.add(entry.name.toLowerCase())
    if (!isAscii(entry.name)) absentIsMissing = false
  }
  return { mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, kinds, folded, absentIsMissing }
}

// The entries of the directory `stat` describes, read through a descriptor of it: a listing
// read by path could be of another directory swapped in between the lstat and the read (and
// back again), and would then be trusted for as long as the root's times stay the same. Only
// where the open directory can be listed again (Linux's /proc/self/fd); elsewhere, no listing.
const readOpened = (root: string, stat: fs.Stats): Array<fs.Dirent> | undefined => {
  if (process.platform !== "linux") return undefined
  let fd: number
  try {
    fd = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    const opened = fs.fstatSync(fd)
    if (
      opened.dev !== stat.dev ||
      opened.ino !== stat.ino ||
      opened.mtimeMs !== stat.mtimeMs ||
      opened.ctimeMs !== stat.ctimeMs
    )
      return undefined
    return fs.readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true })
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

const lstat = (path: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/**
 * The entries of a remembered root (name and kind, in the order the directory gave them),
 * when its listing is still current by `checkRoot`'s checks; one lstat, no listing taken.
 * `undefined` when the root is not remembered, not listed, or changed: only a fresh listing
 * can tell then. A symlink's kind is `other`, as a directory entry reports it.
 */
export const currentEntries = (
  root: string
): ReadonlyMap<string, "file" | "directory" | "other"> | undefined => {
  const entry = known.get(root)
  const listing = entry?.listing
  if (entry === undefined || listing === undefined) return undefined
  const found = lstat(root)
  if (
    found === undefined ||
    !found.isDirectory() ||
    found.dev !== entry.dev ||
    found.ino !== entry.ino ||
    found.mtimeMs !== listing.mtimeMs ||
    found.ctimeMs !== listing.ctimeMs
  )
    return undefined
  return listing.kinds
}
