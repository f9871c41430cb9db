// One spill file: created 0600 with a fresh sortable name, written up to a byte cap, removed
// again when its scope closes before it was completed (failed write, abandoned sink).
import * as NodePath from "node:path"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import type * as Scope from "effect/Scope"

export interface SpillFile {
  readonly path: string
  /** Appends bytes; past the cap they are only counted. */
  readonly append: (bytes: Uint8Array) => Effect.Effect<void, PlatformError.PlatformError>
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

// Chunks below DIRECT_BYTES are collected into one write of up to BUFFER_BYTES: a child
// process that prints line by line would otherwise cost a syscall per line.
const BUFFER_BYTES = 64 * 1024
const DIRECT_BYTES = 16 * 1024

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
    const file = yield* fs.open(path, { flag: "wx", mode: 0o600 })
    created = true
    store.active.add(path)

    let seen = 0 // bytes offered
    let accepted = 0 // bytes kept for the file: flushed + pending
    let flushed = 0 // bytes handed to the file
    let full = false
    let pending: Buffer | undefined
    let pendingLength = 0
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

    const flush = Effect.suspend(() => {
      if (pendingLength === 0 || pending === undefined) return Effect.void
      const data = pending.subarray(0, pendingLength)
      flushed += pendingLength
      pendingLength = 0
      return file.writeAll(data)
    })

    const buffer = (data: Uint8Array) => {
      pending ??= Buffer.allocUnsafe(BUFFER_BYTES)
      pending.set(data, pendingLength)
      pendingLength += data.length
    }

    const accept = (bytes: Uint8Array, count: number): Effect.Effect<void, PlatformError.PlatformError> => {
      if (count === 0) return Effect.void
      const data = count === bytes.length ? bytes : bytes.subarray(0, count)
      remember(data)
      accepted += count
      // Small chunks are batched into one write; large ones go straight to the file.
      if (count >= DIRECT_BYTES) {
        return Effect.andThen(
          flush,
          Effect.suspend(() => {
            flushed += count
            return file.writeAll(data)
          })
        )
      }
      if (pendingLength + count > BUFFER_BYTES)
        return Effect.andThen(
          flush,
          Effect.sync(() => buffer(data))
        )
      buffer(data)
      return Effect.void
    }

    // Drops accepted bytes past `to` (at most 3: a character cut by the cap).
    const cutBack = (to: number): Effect.Effect<void, PlatformError.PlatformError> => {
      accepted = to
      if (to >= flushed) {
        pendingLength = to - flushed
        return Effect.void
      }
      pendingLength = 0
      flushed = to
      return file.truncate(to)
    }

    const append = (bytes: Uint8Array): Effect.Effect<void, PlatformError.PlatformError> => {
      seen += bytes.length
      if (full) return Effect.void
      if (accepted + bytes.length <= maxSpillBytes) return accept(bytes, bytes.length)
      full = true
      // The last character boundary at or before the cap, as `boundaryBefore` finds it in
      // a whole text, even when the character began in an earlier chunk.
      const byteAt = (at: number) =>
        at >= accepted ? bytes[at - accepted] : recent[recentLength - (accepted - at)]
      const earliest = accepted - recentLength
      let cut = maxSpillBytes
      while (cut > 0 && cut > earliest && cut > maxSpillBytes - 3 && isContinuation(byteAt(cut))) cut--
      if (isContinuation(byteAt(cut))) cut = maxSpillBytes
      return cut >= accepted ? accept(bytes, cut - accepted) : cutBack(cut)
    }

    const complete = Effect.suspend(() => {
      const dropped = seen - accepted
      if (dropped === 0) return flush
      return Effect.andThen(flush, file.writeAll(encoder.encode(droppedNote(dropped, maxSpillBytes))))
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
      yield* file.append(bytes)
      yield* file.complete
      return file.path
    })
  )
