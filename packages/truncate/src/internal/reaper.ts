// One pass over the spill directory: expire `tool_*` files by mtime, then bound the folder.
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"

export interface Cleanup {
  readonly removed: number
  readonly freedBytes: number
}

export interface Settings {
  readonly fs: FileSystem.FileSystem
  readonly directory: string
  readonly retentionMillis: number
  readonly maxDirectoryBytes: number
  readonly active: ReadonlySet<string>
}

interface Entry {
  readonly path: string
  readonly name: string
  readonly mtime: number
  readonly size: number
  /** Being written by a sink: counts towards the folder size, is never removed. */
  readonly active: boolean
}

// Per-file work (stat, unlink) runs as synchronous syscalls in slices of a few milliseconds,
// yielding in between. A libuv round trip per file costs several times the syscall itself on
// small shared machines: the same pass through FileSystem.stat/remove took 6.5x as long as
// `find -delete` (see bench/cleanup.bench.ts), this way it stays within 2x.
const SLICE_MILLIS = 4

const inSlices = <A>(items: ReadonlyArray<A>, step: (item: A) => void): Effect.Effect<void> =>
  Effect.gen(function* () {
    let index = 0
    while (index < items.length) {
      yield* Effect.sync(() => {
        const deadline = performance.now() + SLICE_MILLIS
        do step(items[index++]!)
        while (index < items.length && (index % 32 !== 0 || performance.now() < deadline))
      })
      yield* Effect.yieldNow
    }
  })

export const run = (settings: Settings): Effect.Effect<Cleanup> =>
  Effect.gen(function* () {
    const { fs, directory } = settings
    const names = yield* fs
      .readDirectory(directory)
      .pipe(
        Effect.catch((error) =>
          error.reason._tag === "NotFound"
            ? Effect.succeed<Array<string>>([])
            : Effect.as(Effect.logWarning("Truncate: cannot list the tool output directory", error), [])
        )
      )
    const now = yield* Clock.currentTimeMillis
    const cutoff = now - settings.retentionMillis
    let removed = 0
    let freedBytes = 0
    const remove = (entry: Entry): void => {
      try {
        NodeFs.unlinkSync(entry.path)
      } catch {
        return
      }
      removed++
      freedBytes += entry.size
    }
    // Like `find -delete`: each expired file goes as soon as it is seen.
    const kept: Array<Entry> = []
    yield* inSlices(names, (name) => {
      if (!name.startsWith("tool_")) return
      const path = NodePath.join(directory, name)
      // A file we cannot stat is left alone: never guess its age (e.g. from its name).
      let info: NodeFs.Stats | undefined
      try {
        info = NodeFs.statSync(path, { throwIfNoEntry: false })
      } catch {
        return
      }
      if (info === undefined || !info.isFile()) return
      const entry = { path, name, mtime: info.mtimeMs, size: info.size, active: settings.active.has(path) }
      if (entry.mtime < cutoff && !entry.active) remove(entry)
      else kept.push(entry)
    })
    let size = 0
    for (const entry of kept) size += entry.size
    if (size > settings.maxDirectoryBytes) {
      // Oldest first; names are sortable ids, so they break mtime ties by creation order.
      kept.sort((a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      const victims: Array<Entry> = []
      for (const entry of kept) {
        if (size <= settings.maxDirectoryBytes) break
        if (entry.active) continue
        victims.push(entry)
        size -= entry.size
      }
      yield* inSlices(victims, remove)
    }
    if (removed > 0) {
      yield* Effect.logDebug(`Truncate: removed ${removed} spill files (${freedBytes} bytes)`)
    }
    return { removed, freedBytes }
  })
