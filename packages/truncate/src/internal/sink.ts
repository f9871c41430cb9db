// The streaming spill sink. Memory: the first `maxBytes + 1` and the last `maxBytes + 2`
// bytes, whatever the input size. Until the limits are exceeded everything seen is in the
// head buffer; at that moment the file is created and gets the buffered bytes, then every
// further chunk. `finish` cuts with the same planner as `Truncate.output`.
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as PlatformError from "effect/PlatformError"
import * as Scope from "effect/Scope"
import type { Sink, SpillResult } from "../Truncate.ts"
import * as Cut from "./cut.ts"
import * as SpillFile from "./spillFile.ts"

export interface Settings {
  readonly maxLines: number
  readonly maxBytes: number
  readonly direction: Cut.Direction
  readonly hint: (
    outputPath: string,
    saved?: { readonly savedBytes: number; readonly totalBytes: number }
  ) => string
  readonly unsavedHint: string
  readonly report: (error: PlatformError.PlatformError) => Effect.Effect<void>
}

// Buffers start this small and grow up to their capacity: most outputs are short.
const INITIAL_BYTES = 16 * 1024

const grow = (buffer: Buffer, used: number, needed: number, capacity: number): Buffer => {
  if (buffer.length >= needed || buffer.length >= capacity) return buffer
  const bigger = Buffer.allocUnsafe(Math.min(capacity, Math.max(needed, buffer.length * 2)))
  buffer.copy(bigger, 0, 0, used)
  return bigger
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80

// Length of the UTF-8 sequence a lead byte announces (1 for ASCII and for invalid bytes).
const sequenceLength = (lead: number): number =>
  lead >= 0xf0 && lead < 0xf8 ? 4 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xc0 && lead < 0xe0 ? 2 : 1

export const make = (store: SpillFile.Store, settings: Settings): Effect.Effect<Sink, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { maxLines, maxBytes } = settings
    const headCapacity = maxBytes + 1
    const ringCapacity = maxBytes + 2
    let head: Buffer = Buffer.allocUnsafe(Math.min(headCapacity, INITIAL_BYTES))
    // Until it reaches its capacity the ring has never wrapped: position p is at index p.
    let ring: Buffer = Buffer.allocUnsafe(Math.min(ringCapacity, INITIAL_BYTES))
    let headLength = 0
    let total = 0
    let newlines = 0
    let lastByte: number | undefined
    let phase: "buffering" | "spilling" | "failed" | "done" = "buffering"
    let file: SpillFile.SpillFile | undefined
    let fileScope: Scope.Closeable | undefined
    let result: SpillResult | undefined
    const outer = yield* Scope.Scope

    const remember = (bytes: Uint8Array): void => {
      const length = bytes.length
      if (headLength < headCapacity) {
        const take = Math.min(length, headCapacity - headLength)
        head = grow(head, headLength, headLength + take, headCapacity)
        head.set(take === length ? bytes : bytes.subarray(0, take), headLength)
        headLength += take
      }
      ring = grow(ring, total, total + length, ringCapacity)
      // Only the last `ring.length` bytes of a chunk can matter.
      const size = ring.length
      let from = length > size ? length - size : 0
      let at = (total + from) % size
      while (from < length) {
        const take = Math.min(size - at, length - from)
        ring.set(bytes.subarray(from, from + take), at)
        from += take
        at = 0
      }
      newlines += Cut.countNewlines(bytes)
      lastByte = bytes[length - 1]
      total += length
    }

    const ringByte = (position: number): number => ring[position % ring.length]!

    // Bytes [from, to) of the stream, which must lie within the ring.
    const ringSlice = (from: number, to: number): Buffer => {
      const size = ring.length
      const start = from % size
      const length = to - from
      if (start + length <= size) return ring.subarray(start, start + length)
      const out = Buffer.allocUnsafe(length)
      ring.copy(out, 0, start, size)
      ring.copy(out, size - start, 0, length - (size - start))
      return out
    }

    const totalLines = () => Cut.lineCount(newlines, total, lastByte)

    const fail = (error: PlatformError.PlatformError) =>
      Effect.gen(function* () {
        phase = "failed"
        file = undefined
        if (fileScope !== undefined) yield* Scope.close(fileScope, Exit.void)
        fileScope = undefined
        yield* settings.report(error)
      })

    const startFile = (earlier: Uint8Array, chunk: Uint8Array) =>
      Effect.gen(function* () {
        fileScope = yield* Scope.fork(outer)
        file = yield* SpillFile.open(store).pipe(Scope.provide(fileScope))
        yield* file.append(earlier)
        yield* file.append(chunk)
      }).pipe(Effect.catch(fail))

    const append = Effect.fnUntraced(function* (bytes: Uint8Array) {
      if (phase === "done" || bytes.length === 0) return
      if (phase === "spilling" && file !== undefined) {
        // Queued first: the write runs on libuv's pool while this chunk is counted.
        yield* file.append(bytes).pipe(Effect.catch(fail))
        remember(bytes)
        return
      }
      const before = total
      remember(bytes)
      if (phase === "buffering") {
        if (Cut.fits(totalLines(), total, maxLines, maxBytes)) return
        // Everything before this chunk is still in the head buffer (it fit the limits).
        phase = "spilling"
        yield* startFile(head.subarray(0, before), bytes)
      }
    })

    const preview = (maxChars: number) =>
      Effect.sync(() => {
        const lower = total - Math.min(total, ring.length)
        // Leave out a character whose last bytes have not arrived yet.
        let end = total
        for (let at = total - 1; at >= lower && at >= total - 4; at--) {
          const byte = ringByte(at)
          if (isContinuation(byte)) continue
          if (at + sequenceLength(byte) > total) end = at
          break
        }
        let start = end
        let units = 0
        while (start > lower) {
          let charStart = start - 1
          while (charStart > lower && charStart > start - 4 && isContinuation(ringByte(charStart)))
            charStart--
          if (isContinuation(ringByte(charStart))) break
          const width = start - charStart === 4 ? 2 : 1
          if (units + width > maxChars) break
          units += width
          start = charStart
        }
        return ringSlice(start, end).toString("utf8")
      })

    const finishFile = Effect.gen(function* () {
      if (file === undefined || fileScope === undefined) return undefined
      const { path } = file
      const saved = yield* file.complete.pipe(
        Effect.as(true),
        Effect.catch((error) => Effect.as(fail(error), false))
      )
      if (!saved) return undefined
      yield* Scope.close(fileScope, Exit.void)
      fileScope = undefined
      file = undefined
      return path
    })

    const finish = Effect.gen(function* () {
      if (result !== undefined) return result
      const wasBuffering = phase === "buffering"
      const outputPath = phase === "spilling" ? yield* finishFile : undefined
      phase = "done"
      const lines = totalLines()
      if (wasBuffering) {
        result = {
          content: head.toString("utf8", 0, total),
          truncated: false,
          totalBytes: total,
          totalLines: lines
        }
        return result
      }
      const window = Math.min(total, ring.length)
      const source: Cut.Source = {
        head: head.subarray(0, headLength),
        tail: ringSlice(total - window, total),
        tailStart: total - window,
        totalBytes: total,
        totalLines: lines
      }
      const plan = Cut.plan(source, settings.direction, maxLines, maxBytes)
      // A file that stopped at its cap is not the full output: the hint says so.
      const capped =
        total > store.maxSpillBytes ? { savedBytes: store.maxSpillBytes, totalBytes: total } : undefined
      const hint = outputPath !== undefined ? settings.hint(outputPath, capped) : settings.unsavedHint
      const content = Cut.render(source, plan, hint)
      result =
        outputPath !== undefined
          ? { content, truncated: true, outputPath, totalBytes: total, totalLines: lines }
          : { content, truncated: true, totalBytes: total, totalLines: lines }
      return result
    })

    return { append, preview, finish }
  })
