// One spill file: created 0600 with a fresh sortable name, written up to a byte cap, removed
// again when its scope closes before it was completed (failed write, abandoned sink).
import * as NodePath from "node:path"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import type * as Scope from "effect/Scope"
import * as BatchWriter from "./batchWriter.ts"

export interface SpillFile {
  readonly path: string
  /**
   * Appends bytes (a copy of them, unless `owned`: then the caller must never change them);
   * past the cap they are only counted.
   */
  readonly append: (bytes: Uint8Array, owned?: boolean) => Effect.Effect<void, PlatformError.PlatformError>
  /** Records the dropped byte count (if any) and keeps the file when its scope closes. */
  readonly complete: Effect.Effect<void, PlatformError.PlatformError>
}

export interface Store {
  readonly fs: FileSystem.FileSystem
  readonly directory: string
  readonly maxSpillBytes: number
  /** Files being written right now: the reaper leaves them alone. */
  readonly active: Set<string>
}

/** The note at the end of a file that reached `maxSpillBytes`. */
export const droppedNote = (dropped: number, cap: number): string =>
  `\n\n...${dropped} more bytes not saved: spill files stop at ${cap} bytes...\n`

const encoder = new TextEncoder()

const isContinuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80

export const open = (store: Store): Effect.Effect<SpillFile, PlatformError.PlatformError, Scope.Scope> =>
  Effect.gen(function* () {
    const { fs, maxSpillBytes } = store
    yield* fs.makeDirectory(store.directory, { recursive: true, mode: 0o700 })
    const path = NodePath.join(store.directory, Identifier.ascending("tool"))
    let created = false
    let completed = false
    // Added before `open`, so it runs after the descriptor is closed.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        store.active.delete(path)
        return created && !completed ? fs.remove(path).pipe(Effect.ignore) : Effect.void
      })
    )
    const fd = yield* BatchWriter.open(path, 0o600)
    created = true
    store.active.add(path)
    const writer = BatchWriter.make(fd, path)
    yield* Effect.addFinalizer(() => writer.close)

    let seen = 0 // bytes offered
    let accepted = 0 // bytes kept for the file
    let full = false
    // The last bytes accepted, so the cap can back off over a character split across chunks.
    const recent = new Uint8Array(3)
    let recentLength = 0

    const remember = (data: Uint8Array) => {
      if (data.length >= 3) {
        recent.set(data.subarray(data.length - 3))
        recentLength = 3
        return
      }
      for (const byte of data) {
        if (recentLength === 3) {
          recent.copyWithin(0, 1)
          recentLength = 2
        }
        recent[recentLength++] = byte
      }
    }

    const accept = (
      bytes: Uint8Array,
      count: number,
      owned: boolean
    ): Effect.Effect<void, PlatformError.PlatformError> => {
      if (count === 0) return Effect.void
      const data = count === bytes.length ? bytes : bytes.subarray(0, count)
      remember(data)
      accepted += count
      return owned ? writer.appendOwned(data) : writer.append(data)
    }

    const append = (bytes: Uint8Array, owned = false): Effect.Effect<void, PlatformError.PlatformError> => {
      seen += bytes.length
      if (full) return Effect.void
      if (accepted + bytes.length <= maxSpillBytes) return accept(bytes, bytes.length, owned)
      full = true
      // The last character boundary at or before the cap, as `boundaryBefore` finds it in
      // a whole text, even when the character began in an earlier chunk.
      const byteAt = (at: number) =>
        at >= accepted ? bytes[at - accepted] : recent[recentLength - (accepted - at)]
      const earliest = accepted - recentLength
      let cut = maxSpillBytes
      while (cut > 0 && cut > earliest && cut > maxSpillBytes - 3 && isContinuation(byteAt(cut))) cut--
      if (isContinuation(byteAt(cut))) cut = maxSpillBytes
      if (cut >= accepted) return accept(bytes, cut - accepted, owned)
      // Drops accepted bytes past `cut` (at most 3: a character cut by the cap).
      accepted = cut
      return writer.truncate(cut)
    }

    const complete = Effect.suspend(() => {
      const dropped = seen - accepted
      if (dropped === 0) return writer.drain
      return Effect.andThen(writer.append(encoder.encode(droppedNote(dropped, maxSpillBytes))), writer.drain)
    }).pipe(
      Effect.tap(() =>
        Effect.sync(() => {
          completed = true
        })
      )
    )
    return { path, append, complete }
  })

/** Writes a whole spill file; on failure nothing is left behind. */
export const save = (store: Store, bytes: Uint8Array): Effect.Effect<string, PlatformError.PlatformError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const file = yield* open(store)
      yield* file.append(bytes, true)
      yield* file.complete
      return file.path
    })
  )
