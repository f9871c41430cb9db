// Appends to an open file in the background. Bytes are copied into batch buffers and written
// with one `writev` of every sealed batch at a time, on libuv's pool, while the producer goes
// on: an append is a copy, not a promise. The producer waits only while more than
// HIGH_WATER bytes are queued. The first failure is kept: every later call returns it.
import * as NodeFs from "node:fs"
import * as Effect from "effect/Effect"
import * as PlatformError from "effect/PlatformError"

export interface BatchWriter {
  /** Queues a copy of `bytes`; waits only when the queue is full. */
  readonly append: (bytes: Uint8Array) => Effect.Effect<void, PlatformError.PlatformError>
  /** Queues `bytes` themselves, not a copy: the caller must never change them. */
  readonly appendOwned: (bytes: Uint8Array) => Effect.Effect<void, PlatformError.PlatformError>
  /** Waits until everything queued is in the file. */
  readonly drain: Effect.Effect<void, PlatformError.PlatformError>
  /** Drains, then cuts the file at `length`; later bytes go after it. */
  readonly truncate: (length: number) => Effect.Effect<void, PlatformError.PlatformError>
  /** Waits for a write in flight (ignoring its outcome), then closes the descriptor. */
  readonly close: Effect.Effect<void>
}

const BATCH_BYTES = 1024 * 1024
const HIGH_WATER = 4 * BATCH_BYTES
const POOL = HIGH_WATER / BATCH_BYTES + 2
// Linux's IOV_MAX.
const MAX_BUFFERS = 1024

const tagOf = (code: string | undefined): PlatformError.SystemErrorTag =>
  code === "ENOENT"
    ? "NotFound"
    : code === "EACCES" || code === "EPERM"
      ? "PermissionDenied"
      : code === "EEXIST"
        ? "AlreadyExists"
        : code === "EISDIR" || code === "ENOTDIR" || code === "ELOOP" || code === "EBADF"
          ? "BadResource"
          : code === "EBUSY"
            ? "Busy"
            : "Unknown"

/** A Node file system error as Effect's `PlatformError`, as `NodeFileSystem` reports it. */
export const platformError = (method: string, path: string, error: NodeJS.ErrnoException) =>
  PlatformError.systemError({
    _tag: tagOf(error.code),
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    syscall: error.syscall,
    description: error.message,
    cause: error
  })

/** Opens `path` (`wx`, `mode`) for a batch writer. */
export const open = (path: string, mode: number): Effect.Effect<number, PlatformError.PlatformError> =>
  Effect.callback<number, PlatformError.PlatformError>((resume) => {
    NodeFs.open(path, "wx", mode, (error, fd) =>
      resume(error ? Effect.fail(platformError("open", path, error)) : Effect.succeed(fd))
    )
  })

export const make = (fd: number, path: string): BatchWriter => {
  const sealed: Array<Buffer> = []
  let sealedBytes = 0
  // The batch being filled: [currentStart, currentLength) is not sealed yet; what is before
  // it may be in a write in flight, so it is never written over.
  let current: Buffer | undefined
  let currentStart = 0
  let currentLength = 0
  let position = 0 // the file offset the next write starts at
  let queuedEnd = 0 // the file offset after the last byte queued
  // Full batches waiting for the file to pass their end, then reused: a fresh 1 MiB buffer
  // per MiB would leave the collector behind (their memory is freed lazily).
  const retired: Array<{ readonly buffer: Buffer; readonly end: number }> = []
  const free: Array<Buffer> = []
  let writing = false
  let closed = false
  let failure: PlatformError.PlatformError | undefined
  // Resumed after every write that completes (or fails).
  let waiters: Array<() => void> = []

  const wake = () => {
    const woken = waiters
    waiters = []
    for (const resume of woken) resume()
  }

  const seal = () => {
    if (current === undefined) return
    if (currentLength > currentStart) {
      sealed.push(current.subarray(currentStart, currentLength))
      sealedBytes += currentLength - currentStart
      currentStart = currentLength
    }
    if (currentLength === current.length) {
      retired.push({ buffer: current, end: queuedEnd })
      current = undefined
    }
  }

  const recycle = () => {
    while (retired.length > 0 && retired[0]!.end <= position) {
      const { buffer } = retired.shift()!
      if (free.length < POOL) free.push(buffer)
    }
  }

  const writeNext = (): void => {
    if (writing || closed || failure !== undefined || sealed.length === 0) return
    const buffers = sealed.splice(0, MAX_BUFFERS)
    let length = 0
    for (const buffer of buffers) length += buffer.length
    writing = true
    NodeFs.writev(fd, buffers, position, (error, written) => {
      writing = false
      if (error) {
        failure = platformError("writev", path, error)
        sealed.length = 0
        sealedBytes = 0
      } else {
        position += written
        sealedBytes -= written
        recycle()
        if (written < length) {
          // A short write: what is left goes first next time.
          let skip = written
          const rest: Array<Buffer> = []
          for (const buffer of buffers) {
            if (skip >= buffer.length) skip -= buffer.length
            else {
              rest.push(skip === 0 ? buffer : buffer.subarray(skip))
              skip = 0
            }
          }
          sealed.unshift(...rest)
        }
        seal()
        writeNext()
      }
      wake()
    })
  }

  // Suspends until `done()` holds, re-checked after every completed write.
  const until = (done: () => boolean): Effect.Effect<void, PlatformError.PlatformError> =>
    Effect.callback<void, PlatformError.PlatformError>((resume) => {
      const check = () => {
        if (failure !== undefined) resume(Effect.fail(failure))
        else if (done()) resume(Effect.void)
        else waiters.push(check)
      }
      check()
    })

  const append = (bytes: Uint8Array): Effect.Effect<void, PlatformError.PlatformError> => {
    if (failure !== undefined) return Effect.fail(failure)
    let from = 0
    while (from < bytes.length) {
      if (current === undefined) {
        current = free.pop() ?? Buffer.allocUnsafe(BATCH_BYTES)
        currentStart = 0
        currentLength = 0
      }
      const take = Math.min(current.length - currentLength, bytes.length - from)
      current.set(take === bytes.length ? bytes : bytes.subarray(from, from + take), currentLength)
      currentLength += take
      queuedEnd += take
      from += take
      if (currentLength === current.length) seal()
    }
    // An idle file gets what there is at once: batches grow only while a write is in flight.
    if (!writing) {
      seal()
      writeNext()
    }
    return sealedBytes + currentLength - currentStart > HIGH_WATER
      ? until(() => sealedBytes <= HIGH_WATER / 2)
      : Effect.void
  }

  const appendOwned = (bytes: Uint8Array): Effect.Effect<void, PlatformError.PlatformError> => {
    if (failure !== undefined) return Effect.fail(failure)
    seal() // whatever was copied before goes first
    sealed.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length))
    sealedBytes += bytes.length
    queuedEnd += bytes.length
    writeNext()
    return sealedBytes > HIGH_WATER ? until(() => sealedBytes <= HIGH_WATER / 2) : Effect.void
  }

  const drain = Effect.suspend(() => {
    seal()
    writeNext()
    return until(() => !writing && sealed.length === 0)
  })

  const truncate = (length: number) =>
    Effect.andThen(
      drain,
      Effect.callback<void, PlatformError.PlatformError>((resume) => {
        NodeFs.ftruncate(fd, length, (error) => {
          if (error) {
            failure = platformError("truncate", path, error)
            return resume(Effect.fail(failure))
          }
          position = length
          queuedEnd = length
          resume(Effect.void)
        })
      })
    )

  const close = Effect.suspend(() => {
    // No new write starts once closing; a write in flight must finish before the descriptor
    // can be closed (its number could otherwise be reused under it).
    sealed.length = 0
    current = undefined
    return until(() => !writing).pipe(
      Effect.ignore,
      Effect.andThen(
        Effect.callback<void>((resume) => {
          if (closed) return resume(Effect.void)
          closed = true
          NodeFs.close(fd, () => resume(Effect.void))
        })
      )
    )
  })

  return { append, appendOwned, drain, truncate, close }
}
