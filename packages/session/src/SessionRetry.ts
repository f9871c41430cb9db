/**
 * When and how long to retry a failed model call.
 *
 * `classify` turns whatever a model stream failed with (an `effect/ai` `AiError`, an
 * `error` stream part, a permission error) into a {@link Failure}: a message, whether a
 * retry may help, whether the context window overflowed, and the response headers.
 * `delay` computes the wait before retry `attempt`: 2 s x 2^(attempt-1) plus up to 25 %
 * jitter, capped at 30 s, unless the provider said when to come back (`retry-after-ms`,
 * `retry-after` in seconds or as an HTTP date), which wins. A wait over
 * {@link MAX_WAIT} is not worth holding a turn for: the caller gives up instead.
 *
 * @since 0.0.0
 */

import * as AiError from "effect/ai/AiError"
import * as Duration from "effect/Duration"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"

/** Model calls per step, at most: the first and up to four retries. @since 0.0.0 */
export const MAX_ATTEMPTS = 5
/** @since 0.0.0 */
export const INITIAL_DELAY = 2_000
/** @since 0.0.0 */
export const BACKOFF_FACTOR = 2
/** @since 0.0.0 */
export const JITTER_FACTOR = 0.25
/** Cap of the computed backoff (a provider's own `retry-after` is not capped by it). @since 0.0.0 */
export const MAX_BACKOFF = 30_000
/** The longest wait worth retrying for; past it the turn fails at once. @since 0.0.0 */
export const MAX_WAIT = 120_000

/**
 * A classified model failure.
 *
 * @since 0.0.0
 */
export interface Failure {
  /** `APIError`, `ContextOverflowError`, `MessageAbortedError`, `DoomLoopError`, ... */
  readonly name: string
  readonly message: string
  readonly retryable: boolean
  /** The input no longer fits the model's context window: compact, do not retry. */
  readonly overflow: boolean
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** A wait the provider asked for without a header (e.g. `AiError.retryAfter`). */
  readonly retryAfterMs?: number | undefined
}

// The last two are llama.cpp's ("the request exceeds the available context size", code
// exceed_context_size_error).
const OVERFLOW =
  /context[ _-]?length|context window|maximum context|too many tokens|prompt is too long|context size|exceed_context_size/i
const TRANSIENT =
  /rate.?limit|too many requests|overloaded|unavailable|internal (server )?error|timed? ?out|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|fetch failed|network|try again|at capacity/i

const retryableStatus = (status: number) =>
  status === 408 || status === 409 || status === 429 || status >= 500

const plainHeaders = (headers: unknown): Record<string, string> | undefined => {
  if (!Predicate.isObject(headers)) return undefined
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(headers)) {
    if (typeof value === "string") out[key.toLowerCase()] = value
    else if (Redacted.isRedacted(value)) out[key.toLowerCase()] = String(Redacted.value(value))
    else if (typeof value === "number") out[key.toLowerCase()] = String(value)
  }
  return out
}

const textOf = (error: unknown): string => {
  if (typeof error === "string") return error
  if (Predicate.isObject(error) && "message" in error && typeof error.message === "string")
    return error.message
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return String(error)
  }
}

const fromAiError = (error: AiError.AiError): Failure => {
  const reason = error.reason as {
    readonly http?: { readonly response?: { readonly status?: number; readonly headers?: unknown } }
  }
  const status = reason.http?.response?.status
  const headers = plainHeaders(reason.http?.response?.headers)
  const retryAfter = error.retryAfter
  const message = error.message
  const overflow = error.reason._tag === "InvalidRequestError" && OVERFLOW.test(message)
  return {
    name: overflow ? "ContextOverflowError" : "APIError",
    message,
    retryable: !overflow && (error.isRetryable || (status !== undefined && retryableStatus(status))),
    overflow,
    status,
    headers,
    retryAfterMs: retryAfter === undefined ? undefined : Duration.toMillis(retryAfter)
  }
}

/**
 * What a model stream failed with, classified.
 *
 * @since 0.0.0
 */
export const classify = (error: unknown): Failure => {
  if (AiError.isAiError(error)) return fromAiError(error)
  if (AiError.isAiErrorReason(error))
    return fromAiError(AiError.make({ module: "Session", method: "stream", reason: error }))
  const message = textOf(error)
  if (Predicate.isTagged(error, "DoomLoopError"))
    return { name: "DoomLoopError", message, retryable: false, overflow: false }
  if (
    Predicate.isObject(error) &&
    "_tag" in error &&
    typeof error._tag === "string" &&
    error._tag.startsWith("Permission")
  )
    return { name: error._tag, message, retryable: false, overflow: false }
  const record = Predicate.isObject(error) ? (error as Record<string, unknown>) : {}
  const status =
    typeof record.status === "number"
      ? record.status
      : typeof record.statusCode === "number"
        ? record.statusCode
        : undefined
  const headers = plainHeaders(record.headers)
  const overflow = OVERFLOW.test(message)
  const retryable =
    !overflow &&
    (record.retryable === true ||
      (status !== undefined
        ? retryableStatus(status)
        : record.retryable !== false && TRANSIENT.test(message)))
  return {
    name: overflow ? "ContextOverflowError" : status !== undefined ? "APIError" : "UnknownError",
    message,
    retryable,
    overflow,
    status,
    headers
  }
}

const parseRetryAfter = (headers: Readonly<Record<string, string>>, now: number): number | undefined => {
  const ms = headers["retry-after-ms"]
  if (ms !== undefined) {
    const value = Number.parseFloat(ms)
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value)
  }
  const after = headers["retry-after"]
  if (after !== undefined) {
    const trimmed = after.trim()
    if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number.parseFloat(trimmed) * 1000)
    const date = Date.parse(trimmed)
    if (Number.isFinite(date) && date > now) return date - now
  }
  return undefined
}

/**
 * Milliseconds to wait before retry number `attempt` (1 for the first retry). `random`
 * is in [0, 1) and scales the jitter; `now` (epoch ms) resolves an HTTP-date header.
 *
 * @example
 * ```ts
 * import { SessionRetry } from "@gatehousejs/session"
 * SessionRetry.delay(1, { headers: {} }, 0, 0) // 2000
 * SessionRetry.delay(3, { headers: { "retry-after": "7" } }, 0, 0) // 7000
 * ```
 * @since 0.0.0
 */
export const delay = (
  attempt: number,
  failure: Pick<Failure, "headers" | "retryAfterMs">,
  now: number,
  random: number
): number => {
  const fromHeaders = failure.headers === undefined ? undefined : parseRetryAfter(failure.headers, now)
  if (fromHeaders !== undefined) return fromHeaders
  if (failure.retryAfterMs !== undefined) return Math.ceil(failure.retryAfterMs)
  const base = INITIAL_DELAY * BACKOFF_FACTOR ** (attempt - 1)
  return Math.min(MAX_BACKOFF, Math.ceil(base + base * JITTER_FACTOR * random))
}
