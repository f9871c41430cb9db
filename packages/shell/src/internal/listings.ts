// Directory listings remembered from one judgement to the next (a recursive read or write of
// a directory names its entries): a directory listed before is checked again with one stat
// instead of listed again. A listing is trusted only while the directory is the same one
// (device and inode) and its own times say that no entry was added, removed or renamed since,
// as `knownRoots.ts` does for the project root.
import * as fs from "node:fs"

export interface Entry {
  readonly name: string
  readonly directory: boolean
}

interface Listing {
  readonly dev: number
  readonly ino: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly entries: ReadonlyArray<Entry>
}

const listings = new Map<string, Listing>()
const MAX_DIRECTORIES = 256
const MAX_ENTRIES = 4096
// A directory's times change whenever an entry changes, but only as finely as the file
// system's clock ticks: a listing is remembered only of a directory whose last change is
// older than this, so that any later change gives it new times (see `knownRoots.ts`).
const SETTLED_MS = 3000

/**
 * The entries of `directory` (through symlinks, as `readdir` reads it), `[]` when it cannot
 * be listed. `now` is the current time in milliseconds, on the clock file times are set by.
 */
export const listDirectory = (directory: string, now: number): ReadonlyArray<Entry> => {
  const found = stat(directory)
  if (found === undefined) {
    listings.delete(directory)
    return read(directory)
  }
  const known = listings.get(directory)
  if (
    known !== undefined &&
    known.dev === found.dev &&
    known.ino === found.ino &&
    known.mtimeMs === found.mtimeMs &&
    known.ctimeMs === found.ctimeMs
  )
    return known.entries
  const entries = read(directory)
  if (
    found.isDirectory() &&
    now - Math.max(found.mtimeMs, found.ctimeMs) >= SETTLED_MS &&
    entries.length > 0 &&
    entries.length <= MAX_ENTRIES
  ) {
    if (listings.size >= MAX_DIRECTORIES) listings.clear()
    const { dev, ino, mtimeMs, ctimeMs } = found
    listings.set(directory, { dev, ino, mtimeMs, ctimeMs, entries })
  } else {
    listings.delete(directory)
  }
  return entries
}

const read = (directory: string): ReadonlyArray<Entry> => {
  try {
    return fs
      .readdirSync(directory, { withFileTypes: true })
      .map((d): Entry => ({ name: d.name, directory: d.isDirectory() }))
  } catch {
    return []
  }
}

const stat = (path: string): fs.Stats | undefined => {
  try {
    return fs.statSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}
