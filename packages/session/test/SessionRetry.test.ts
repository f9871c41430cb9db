import { assert, describe, it } from "@effect/vitest"
import * as DoomLoop from "@gatehousejs/session/DoomLoop"
import type * as Message from "@gatehousejs/session/Message"
import * as SessionRetry from "@gatehousejs/session/SessionRetry"
import { httpError } from "./helpers.ts"

describe("SessionRetry.delay", () => {
  it("doubles from 2 s, capped at 30 s, with up to 25 % jitter", () => {
    const none = { headers: {} }
    assert.deepStrictEqual(
      [1, 2, 3, 4, 5, 6].map((n) => SessionRetry.delay(n, none, 0, 0)),
      [2000, 4000, 8000, 16000, 30000, 30000]
    )
    assert.strictEqual(SessionRetry.delay(1, none, 0, 0.999999), 2500)
    assert.strictEqual(SessionRetry.delay(4, none, 0, 0.999999), 20000)
    assert.strictEqual(SessionRetry.delay(5, none, 0, 0.999999), 30000)
  })

  it("retry-after-ms and retry-after (seconds or HTTP date) win, uncapped", () => {
    assert.strictEqual(SessionRetry.delay(4, { headers: { "retry-after-ms": "1500" } }, 0, 0), 1500)
    assert.strictEqual(SessionRetry.delay(1, { headers: { "retry-after": "30" } }, 0, 0), 30000)
    assert.strictEqual(SessionRetry.delay(1, { headers: { "retry-after": "50" } }, 0, 0), 50000)
    const now = Date.parse("2026-01-01T00:00:00Z")
    assert.strictEqual(
      SessionRetry.delay(1, { headers: { "retry-after": "Thu, 01 Jan 2026 00:00:20 GMT" } }, now, 0),
      20000
    )
    // Malformed or past: the backoff.
    assert.strictEqual(SessionRetry.delay(1, { headers: { "retry-after": "soon" } }, now, 0), 2000)
    assert.strictEqual(
      SessionRetry.delay(1, { headers: { "retry-after": "Wed, 31 Dec 2025 00:00:00 GMT" } }, now, 0),
      2000
    )
    assert.strictEqual(SessionRetry.delay(2, { retryAfterMs: 9000 }, 0, 0), 9000)
  })
})

describe("SessionRetry.classify", () => {
  it("reads status, headers and retryability from an AiError", () => {
    const failure = SessionRetry.classify(httpError(429, { "Retry-After": "3" }))
    assert.isTrue(failure.retryable)
    assert.strictEqual(failure.status, 429)
    assert.deepStrictEqual(failure.headers, { "retry-after": "3" })
    assert.isTrue(SessionRetry.classify(httpError(503)).retryable)
    assert.isFalse(SessionRetry.classify(httpError(400)).retryable)
    assert.isFalse(SessionRetry.classify(httpError(401)).retryable)
  })

  it("recognises context overflow and plain transient errors", () => {
    const overflow = SessionRetry.classify(
      httpError(400, {}, "prompt is too long: maximum context length exceeded")
    )
    assert.isTrue(overflow.overflow)
    assert.isFalse(overflow.retryable)
    // Each provider's own words: Anthropic, OpenAI, llama.cpp.
    for (const words of [
      "prompt is too long: 212345 tokens > 200000 maximum",
      "Your input exceeds the context window of this model.",
      "the request exceeds the available context size, try increasing it"
    ])
      assert.isTrue(SessionRetry.classify(httpError(400, {}, words)).overflow, words)
    assert.isTrue(SessionRetry.classify(new Error("fetch failed: ECONNRESET")).retryable)
    assert.isFalse(SessionRetry.classify(new Error("no_kv_space")).retryable)
    assert.isTrue(SessionRetry.classify({ message: "overloaded", status: 529 }).retryable)
  })
})

const tool = (tool: string, input: Record<string, unknown>): Message.Part => ({
  id: "p",
  sessionID: "s",
  messageID: "m",
  type: "tool",
  callID: "c",
  tool,
  state: { status: "completed", input, output: "", title: "", metadata: {}, time: { start: 0, end: 0 } }
})
const say = (text: string): Message.Part => ({ id: "t", sessionID: "s", messageID: "m", type: "text", text })
const step: Message.Part = { id: "s", sessionID: "s", messageID: "m", type: "step-start" }

describe("DoomLoop.detect", () => {
  it("three identical calls, whatever the key order, steps ignored", () => {
    const a = tool("read", { path: "x", limit: 1 })
    const b = tool("read", { limit: 1, path: "x" })
    assert.deepStrictEqual(DoomLoop.detect([a, step, b, step, a])?.kind, "repeat")
    assert.isUndefined(DoomLoop.detect([a, b]))
    assert.isUndefined(DoomLoop.detect([a, say("again"), b, a]))
    assert.isUndefined(DoomLoop.detect([a, b, tool("read", { path: "y", limit: 1 })]))
    // Empty text does not break a streak.
    assert.strictEqual(DoomLoop.detect([a, say(" "), b, a])?.kind, "repeat")
  })

  it("the alternating cycle A, B, A, B, A, B", () => {
    const a = tool("read", { path: "x" })
    const b = tool("bash", { command: "ls" })
    assert.deepStrictEqual(DoomLoop.detect([a, b, a, b, a, b]), {
      kind: "cycle",
      tool: "bash",
      tools: ["bash", "read"]
    })
    assert.isUndefined(DoomLoop.detect([a, b, a, b, a]))
    assert.isUndefined(DoomLoop.detect([b, b, a, b, a, b]))
  })

  it("canonical JSON sorts keys at every depth", () => {
    assert.strictEqual(DoomLoop.canonical({ b: [{ d: 1, c: 2 }], a: null }), '{"a":null,"b":[{"c":2,"d":1}]}')
  })
})
