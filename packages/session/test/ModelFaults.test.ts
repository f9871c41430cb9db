// Provider faults on each real provider package, from a fake server speaking its protocol:
// 429 and overloaded retried after the server's retry-after (TestClock), a retry-after past
// the cap given up at once, a connection cut mid-stream or gone silent retried, a malformed
// chunk reported naming the provider, a context-length error turned into compaction, and no
// key in any event, error or log line of a failing run.
import { assert, describe, it } from "@effect/vitest"
import type * as Message from "@gatehousejs/session/Message"
import * as SessionHistory from "@gatehousejs/session/SessionHistory"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import * as FakeProviders from "./fakeProviders.ts"
import { KEY, runTurn } from "./modelHarness.ts"

const liveSleep = (ms: number) => TestClock.withLive(Effect.sleep(ms))

interface Retry {
  readonly attempt: number
  readonly wait: number
  readonly requestsSoFar: number
  readonly message: string
}

/**
 * Moves the TestClock on for each retry (by its wait, again on every tick while the retry
 * is still pending, so a sleep that starts late is not missed), recording the wait and how
 * many requests the server had seen. With `nudge`, also moves it by that much on every tick
 * once a request was sent and before any retry (for timeouts that start when the stream does).
 */
const followRetries =
  (server: FakeProviders.FakeProvider, retries: Array<Retry>, nudge?: number) => (sessionID: string) =>
    Effect.gen(function* () {
      const status = yield* SessionStatus.Service
      for (;;) {
        yield* liveSleep(20)
        const info = yield* status.get(sessionID)
        if (info.type === "retry") {
          let retry = retries.find((seen) => seen.attempt === info.attempt)
          if (retry === undefined) {
            retry = {
              attempt: info.attempt,
              wait: info.next - (yield* Clock.currentTimeMillis),
              requestsSoFar: server.requests.length,
              message: info.message
            }
            retries.push(retry)
          }
          yield* TestClock.adjust(Math.max(1, retry.wait))
        } else if (nudge !== undefined && retries.length === 0 && server.requests.length > 0) {
          yield* TestClock.adjust(nudge)
        }
      }
    })

const answerText = (messages: ReadonlyArray<Message.WithParts>) =>
  messages
    .filter((m) => m.info.role === "assistant")
    .flatMap((m) => m.parts)
    .filter((p): p is Message.TextPart => p.type === "text")
    .map((p) => p.text)

const noKey = (...texts: ReadonlyArray<ReadonlyArray<string> | string>) => {
  for (const text of texts.flat()) assert.notInclude(text, KEY)
}

// An error message from the provider's package starts with the provider's name.
const named = (provider: FakeProviders.Provider) =>
  new RegExp(`${provider}\\.(streamText|create\\w+Stream): `)

const overloaded: Record<FakeProviders.Provider, number> = {
  anthropic: 529,
  openai: 503,
  "openai-compatible": 503
}

for (const provider of ["anthropic", "openai", "openai-compatible"] as const) {
  describe(`${provider} faults`, () => {
    it.effect("429 is retried after the server's retry-after, then the turn goes on", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, [
          { type: "status", status: 429, headers: { "retry-after": "7" }, message: "slow down" },
          { type: "reply", text: "Back again." }
        ])
        const retries: Array<Retry> = []
        yield* runTurn(
          server,
          "hello",
          ({ last, messages, events }) =>
            Effect.sync(() => {
              assert.deepStrictEqual(
                retries.map(({ attempt, wait, requestsSoFar }) => ({ attempt, wait, requestsSoFar })),
                [{ attempt: 1, wait: 7_000, requestsSoFar: 1 }]
              )
              assert.strictEqual(server.requests.length, 2)
              assert.isUndefined(last?.error)
              assert.strictEqual(last?.finish, "stop")
              assert.deepStrictEqual(answerText(messages), ["Back again."])
              noKey(events, retries[0]!.message)
            }),
          { drive: followRetries(server, retries) }
        )
      }).pipe(Effect.scoped)
    )

    it.effect(`overloaded (${overloaded[provider]}) is retried after its retry-after`, () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, [
          {
            type: "status",
            status: overloaded[provider],
            headers: { "retry-after": "3" },
            message: "Overloaded"
          },
          { type: "reply", text: "Here now." }
        ])
        const retries: Array<Retry> = []
        yield* runTurn(
          server,
          "hello",
          ({ last, messages }) =>
            Effect.sync(() => {
              assert.deepStrictEqual(
                retries.map(({ wait, requestsSoFar }) => ({ wait, requestsSoFar })),
                [{ wait: 3_000, requestsSoFar: 1 }]
              )
              assert.isUndefined(last?.error)
              assert.deepStrictEqual(answerText(messages), ["Here now."])
            }),
          { drive: followRetries(server, retries) }
        )
      }).pipe(Effect.scoped)
    )

    it.effect(
      "a retry-after past the cap is not waited for: the turn fails at once, naming the provider",
      () =>
        Effect.gen(function* () {
          const server = yield* FakeProviders.fake(provider, [
            { type: "status", status: 429, headers: { "retry-after": "600" }, message: "come back later" }
          ])
          const retries: Array<Retry> = []
          yield* runTurn(
            server,
            "hello",
            ({ last, events, logs }) =>
              Effect.sync(() => {
                assert.deepStrictEqual(retries, [])
                assert.strictEqual(server.requests.length, 1)
                assert.strictEqual(last?.error?.name, "APIError")
                assert.strictEqual(last?.error?.status, 429)
                assert.match(last?.error?.message ?? "", named(provider))
                const error = events.find((event) => event.includes('"session.error"'))
                assert.isDefined(error)
                assert.match(error ?? "", named(provider))
                noKey(events, logs, JSON.stringify(last))
              }),
            { drive: followRetries(server, retries) }
          )
        }).pipe(Effect.scoped)
    )

    it.effect("a connection cut mid-stream is retried; the partial answer is dropped", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, [
          { type: "cut", text: "This answer will be cut short" },
          { type: "reply", text: "The whole answer." }
        ])
        const retries: Array<Retry> = []
        yield* runTurn(
          server,
          "hello",
          ({ last, messages, events, logs }) =>
            Effect.sync(() => {
              assert.lengthOf(retries, 1)
              assert.strictEqual(retries[0]!.requestsSoFar, 1)
              assert.include(retries[0]!.message, provider)
              assert.strictEqual(server.requests.length, 2)
              assert.isUndefined(last?.error)
              assert.deepStrictEqual(answerText(messages), ["The whole answer."])
              noKey(events, logs)
            }),
          { drive: followRetries(server, retries) }
        )
      }).pipe(Effect.scoped)
    )

    if (provider !== "openai-compatible")
      it.effect("a connection cut after a tool ran is reported, not retried", () =>
        Effect.gen(function* () {
          const server = yield* FakeProviders.fake(provider, [
            { type: "cut", calls: [{ id: "call_bash_1", name: "bash", input: { command: "echo ran" } }] },
            { type: "reply", text: "never asked for" }
          ])
          const retries: Array<Retry> = []
          yield* runTurn(
            server,
            "hello",
            ({ last, messages, events }) =>
              Effect.sync(() => {
                assert.deepStrictEqual(retries, [])
                assert.strictEqual(server.requests.length, 1)
                const tool = messages
                  .flatMap((m) => m.parts)
                  .find((p): p is Message.ToolPart => p.type === "tool")
                assert.strictEqual(tool?.state.status, "completed")
                assert.match(last?.error?.message ?? "", named(provider))
                assert.include(last?.error?.message, "the connection broke while the answer streamed")
                assert.isDefined(events.find((event) => event.includes('"session.error"')))
              }),
            { drive: followRetries(server, retries) }
          )
        }).pipe(Effect.scoped)
      )

    it.effect("a connection gone silent fails after the idle timeout and is retried", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, [
          { type: "stall" },
          { type: "reply", text: "Awake." }
        ])
        const retries: Array<Retry> = []
        yield* runTurn(
          server,
          "hello",
          ({ last, messages }) =>
            Effect.sync(() => {
              assert.lengthOf(retries, 1)
              assert.include(retries[0]!.message, "no data from the model for 5m")
              assert.isUndefined(last?.error)
              assert.deepStrictEqual(answerText(messages), ["Awake."])
            }),
          { drive: followRetries(server, retries, 60_000) }
        )
      }).pipe(Effect.scoped)
    )

    it.effect("a malformed chunk is reported as a session.error naming the provider", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(
          provider,
          Array.from({ length: 5 }, () => ({ type: "malformed" }) as const)
        )
        const retries: Array<Retry> = []
        yield* runTurn(
          server,
          "hello",
          ({ last, events, logs }) =>
            Effect.sync(() => {
              assert.isDefined(last?.error)
              assert.match(last?.error?.message ?? "", named(provider))
              assert.match(
                last?.error?.message ?? "",
                provider === "openai-compatible" ? /malformed chunk from the server/ : /Invalid output/
              )
              const error = events.find((event) => event.includes('"session.error"'))
              assert.match(error ?? "", named(provider))
              // The turn ended: no request was left hanging.
              assert.strictEqual(server.requests.length, 1 + retries.length)
              noKey(events, logs, JSON.stringify(last))
            }),
          { drive: followRetries(server, retries) }
        )
      }).pipe(Effect.scoped)
    )

    it.effect("a context-length error compacts the conversation and the turn goes on", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, [
          { type: "overflow" },
          { type: "reply", text: "Summary: the user said hello." },
          { type: "reply", text: "Hello again, from the summary." }
        ])
        yield* runTurn(server, "hello", ({ last, messages }) =>
          Effect.sync(() => {
            assert.strictEqual(server.requests.length, 3)
            // The second request asks for the summary, the third goes on from it.
            assert.include(
              JSON.stringify(server.requests[1]!.body),
              SessionHistory.SUMMARY_REQUEST.slice(0, 40)
            )
            const third = JSON.stringify(server.requests[2]!.body)
            assert.include(third, "Summary: the user said hello.")
            assert.include(third, "Continue with the task")
            const summary = messages.find((m) => m.info.role === "assistant" && m.info.summary === true)
            assert.isDefined(summary)
            assert.isUndefined(last?.error)
            assert.strictEqual(last?.finish, "stop")
            assert.include(answerText(messages), "Hello again, from the summary.")
          })
        )
      }).pipe(Effect.scoped)
    )

    it.effect("a rejected key fails the turn without the key in its error, events or logs", () =>
      Effect.gen(function* () {
        const server = yield* FakeProviders.fake(provider, [
          { type: "status", status: 401, message: "invalid x-api-key" }
        ])
        yield* runTurn(server, "hello", ({ last, events, logs }) =>
          Effect.sync(() => {
            assert.strictEqual(server.requests.length, 1)
            assert.isDefined(last?.error)
            assert.isFalse(last?.error?.retryable)
            noKey(events, logs, JSON.stringify(last))
          })
        )
      }).pipe(Effect.scoped)
    )
  })
}
