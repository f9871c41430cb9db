// What every model call of Model.layer goes through: the HTTP client (effect's fetch client,
// saying so when a body breaks while it streams) and the guard on each call's stream (errors
// named by provider, a stream cut before its finish or silent too long failing retryably).
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

type Provider = "anthropic" | "openai" | "openai-compatible"

// A body that fails while it streams (the connection reset or closed) surfaces from fetch as a
// DecodeError without words, which the packages report as "Invalid output: Failed to decode
// response"; this says what happened instead.
const described = (error: HttpClientError.HttpClientError): HttpClientError.HttpClientError =>
  error.reason._tag === "DecodeError" && error.reason.description === undefined
    ? decodeError(
        error.reason.response,
        `the connection broke while the answer streamed (${
          error.reason.cause instanceof Error ? error.reason.cause.message : String(error.reason.cause)
        })`,
        error.reason.cause
      )
    : error

const decodeError = (response: HttpClientResponse.HttpClientResponse, description: string, cause?: unknown) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.DecodeError({ request: response.request, response, cause, description })
  })

// The compat package skips an SSE `data:` line that is not JSON, so a malformed chunk would
// silently cost the answer a piece: such a line fails the body instead. Chat Completions
// servers send each chunk as one line of JSON (or `[DONE]`).
const checkedChunks =
  (response: HttpClientResponse.HttpClientResponse) =>
  <E, R>(
    body: Stream.Stream<Uint8Array, E, R>
  ): Stream.Stream<Uint8Array, E | HttpClientError.HttpClientError, R> =>
    Stream.suspend(() => {
      const decoder = new TextDecoder()
      let partial = ""
      return Stream.mapEffect(body, (bytes) => {
        const lines = (partial + decoder.decode(bytes, { stream: true })).split("\n")
        partial = lines.pop() ?? ""
        for (const line of lines) {
          if (!line.startsWith("data:")) continue
          const data = line.slice(5).trim()
          if (data === "[DONE]") continue
          try {
            JSON.parse(data)
          } catch {
            return Effect.fail(
              decodeError(response, `malformed chunk from the server: ${data.slice(0, 120)}`)
            )
          }
        }
        return Effect.succeed(bytes)
      })
    })

const guardedBody =
  (checkChunks: boolean) =>
  (response: HttpClientResponse.HttpClientResponse): HttpClientResponse.HttpClientResponse =>
    Object.create(response, {
      stream: {
        get: () => {
          const body = Stream.mapError(response.stream, described)
          const sse = (response.headers["content-type"] ?? "").includes("text/event-stream")
          return checkChunks && sse ? checkedChunks(response)(body) : body
        }
      }
    })

/** effect's fetch client, with bodies that say how they broke (see above). */
export const http = (provider: Provider) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(
      HttpClient.HttpClient,
      HttpClient.transformResponse(Effect.map(guardedBody(provider === "openai-compatible")))
    )
  ).pipe(Layer.provide(FetchHttpClient.layer))

const cut = (provider: Provider, url: string, description: string) =>
  AiError.make({
    module: provider,
    method: "streamText",
    reason: new AiError.NetworkError({ reason: "TransportError", method: "POST", url, description })
  })

// Where each package posts (its default root, then its path), for the errors of a cut stream.
export const endpoint = (provider: Provider, apiUrl: string | undefined): string =>
  provider === "anthropic"
    ? `${apiUrl ?? "https://api.anthropic.com"}/v1/messages`
    : provider === "openai"
      ? `${apiUrl ?? "https://api.openai.com/v1"}/responses`
      : `${apiUrl}/chat/completions`

// The provider's module name (`OpenAiLanguageModel` serves two providers) becomes the provider's.
const named = (provider: Provider) => (error: unknown) =>
  AiError.isAiError(error)
    ? AiError.make({ module: provider, method: error.method, reason: error.reason })
    : error

const guardStream =
  (provider: Provider, url: string, idle: Duration.Duration) =>
  <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
    Stream.suspend(() => {
      let finished = false
      return stream.pipe(
        Stream.tap((part) =>
          Effect.sync(() => {
            if ((part as Response.AnyPart).type === "finish") finished = true
          })
        ),
        Stream.timeoutOrElse({
          duration: idle,
          orElse: () =>
            Stream.fail(
              cut(
                provider,
                url,
                `no data from the model for ${Duration.format(idle)}: the connection looks dead`
              )
            )
        }),
        Stream.concat(
          Stream.suspend(() =>
            finished
              ? Stream.empty
              : Stream.fail(cut(provider, url, "the stream ended before the model finished its answer"))
          )
        ),
        Stream.mapError(named(provider))
      ) as Stream.Stream<A, E, R>
    })

export const guarded = (provider: Provider, url: string, idle: Duration.Duration) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.map(LanguageModel.LanguageModel, (model) =>
      LanguageModel.LanguageModel.of({
        ...model,
        generateText: ((options: never) =>
          Effect.mapError(
            model.generateText(options),
            named(provider)
          )) as unknown as typeof model.generateText,
        generateObject: ((options: never) =>
          Effect.mapError(
            model.generateObject(options),
            named(provider)
          )) as unknown as typeof model.generateObject,
        streamText: ((options: never) =>
          guardStream(provider, url, idle)(model.streamText(options))) as unknown as typeof model.streamText
      })
    )
  )
