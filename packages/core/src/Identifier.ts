/**
 * Sortable, collision-free identifiers such as `ses_0193a5c1f2e0000aB3xY9kLmNoPqRs`.
 *
 * An id is `<prefix>_` followed by 16 hex digits of time (12 for the millisecond,
 * 4 for a counter within it) and 14 random base-62 characters. Ascending ids sort
 * oldest first, descending ids newest first, as plain strings.
 *
 * @since 0.0.0
 */

// Loaded on first use: importing node:crypto costs a one-shot command ~10 ms it rarely needs.
const crypto = () => process.getBuiltinModule("node:crypto")

const MAX_MILLIS = 0xffff_ffff_ffff
const MAX_COUNTER = 0xffff
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const RANDOM_LENGTH = 14

// Process-wide on purpose: two layers (or two tests) minting ids must never collide or
// reorder, so the clock behind ids is shared by the whole process.
let lastMillis = 0
let counter = 0

const nextTick = (): readonly [millis: number, counter: number] => {
  const now = Date.now()
  if (now > lastMillis) {
    lastMillis = now
    counter = 0
  } else if (counter < MAX_COUNTER) {
    counter++
  } else {
    // More than 65 536 ids in one millisecond: borrow the next millisecond.
    lastMillis++
    counter = 0
  }
  return [lastMillis, counter]
}

// One system call per ~290 ids instead of one per id: ids are minted on hot paths.
const pool = new Uint8Array(RANDOM_LENGTH * 292)
let poolOffset = pool.length

const randomSuffix = (): string => {
  if (poolOffset + RANDOM_LENGTH > pool.length) {
    crypto().randomFillSync(pool)
    poolOffset = 0
  }
  let out = ""
  for (let i = 0; i < RANDOM_LENGTH; i++) out += BASE62[pool[poolOffset++]! % 62]
  return out
}

const hex = (value: number, digits: number): string => value.toString(16).padStart(digits, "0")

/**
 * A new id that sorts after every id this process made before it.
 *
 * @example
 * ```ts
 * import { Identifier } from "@gatehousejs/core"
 * const a = Identifier.ascending("msg")
 * const b = Identifier.ascending("msg")
 * a < b // true
 * ```
 * @since 0.0.0
 */
export const ascending = (prefix: string): string => {
  const [millis, count] = nextTick()
  return `${prefix}_${hex(millis, 12)}${hex(count, 4)}${randomSuffix()}`
}

/**
 * A new id that sorts before every id this process made before it (newest first).
 *
 * @since 0.0.0
 */
export const descending = (prefix: string): string => {
  const [millis, count] = nextTick()
  return `${prefix}_${hex(MAX_MILLIS - millis, 12)}${hex(MAX_COUNTER - count, 4)}${randomSuffix()}`
}

/**
 * The creation time (epoch milliseconds) encoded in an ascending id, or `undefined`
 * when the text is not one. Only for display: never age a file by its name.
 *
 * @since 0.0.0
 */
export const timestamp = (id: string): number | undefined => {
  const match = /_([0-9a-f]{12})[0-9a-f]{4}[0-9A-Za-z]{14}$/.exec(id)
  return match ? Number.parseInt(match[1]!, 16) : undefined
}
