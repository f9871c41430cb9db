/**
 * What stands in front of every route: a local agent server must not be drivable by any
 * web page the user happens to visit, nor by another user of the machine.
 *
 * In order, a request is refused when its `Host` is not a loopback name (403; defeats DNS
 * rebinding), when it carries a foreign `Origin` or `Sec-Fetch-Site: cross-site` (403;
 * defeats cross-site requests), when it lacks the bearer token (401), and when its
 * declared body is larger than the limit (413; a body without a declared length is cut at
 * the same limit while it is read). Refusals are `application/problem+json`.
 *
 * The token is read from `Authorization: Bearer <token>`, or for `GET`/`HEAD` from the
 * `token` query parameter, so the printed URL opens the web page in a browser.
 *
 * @since 0.0.0
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"

/**
 * @since 0.0.0
 */
export interface Options {
  /** The secret every request must present. */
  readonly token: string
  /** Host names accepted besides the loopback ones (e.g. an explicitly configured host). */
  readonly allowedHosts?: ReadonlyArray<string>
  /** Largest request body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number
}

/**
 * The default body limit: 1 MiB.
 *
 * @since 0.0.0
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024

/**
 * A fresh random token (32 bytes, base64url).
 *
 * @since 0.0.0
 */
export const generateToken = (): string => randomBytes(32).toString("base64url")

/**
 * The host name of a `Host` header value, without port and lower-cased
 * (`[::1]:8080` -> `[::1]`), or `undefined` when it is malformed.
 *
 * @since 0.0.0
 */
export const hostName = (host: string): string | undefined => {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/]+)(?::(\d{1,5}))?$/.exec(host.trim())
  return match ? match[1]!.toLowerCase() : undefined
}

/**
 * Whether `name` (a host name as returned by {@link hostName}) is a loopback name:
 * `localhost` (and `*.localhost`), `127.0.0.0/8`, `[::1]`.
 *
 * @since 0.0.0
 */
export const isLoopbackName = (name: string): boolean =>
  name === "localhost" ||
  name.endsWith(".localhost") ||
  name === "[::1]" ||
  /^127\.(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})$/.test(name)

const problem = (status: number, title: string, detail: string, headers?: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe(
    { type: "about:blank", title, status, detail },
    { status, contentType: "application/problem+json", ...(headers ? { headers } : {}) }
  )

const sameSecret = (given: string, expected: Buffer): boolean => {
  const buffer = Buffer.from(given)
  return buffer.length === expected.length && timingSafeEqual(buffer, expected)
}

const queryToken = (url: string): string | undefined => {
  const query = url.indexOf("?")
  if (query === -1) return undefined
  return new URLSearchParams(url.slice(query + 1)).get("token") ?? undefined
}

/**
 * Checks one request; `undefined` means it may proceed, otherwise the refusal to send.
 *
 * @since 0.0.0
 */
export const check = (
  options: Options
): ((request: HttpServerRequest.HttpServerRequest) => HttpServerResponse.HttpServerResponse | undefined) => {
  const expected = Buffer.from(options.token)
  const extraHosts = new Set((options.allowedHosts ?? []).map((host) => host.toLowerCase()))
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  return (request) => {
    const host = request.headers.host
    const name = host === undefined ? undefined : hostName(host)
    if (name === undefined || !(isLoopbackName(name) || extraHosts.has(name))) {
      return problem(403, "Forbidden", `Host ${JSON.stringify(host ?? "")} is not a loopback name.`)
    }
    const origin = request.headers.origin
    if (origin !== undefined && origin.toLowerCase() !== `http://${host!.trim().toLowerCase()}`) {
      return problem(403, "Forbidden", `Origin ${JSON.stringify(origin)} may not use this server.`)
    }
    if (request.headers["sec-fetch-site"] === "cross-site") {
      return problem(403, "Forbidden", "Cross-site requests may not use this server.")
    }
    const authorization = request.headers.authorization
    // The scheme is case-insensitive (RFC 7235 §2.1): `bearer`, `BEARER` and `Bearer` are one.
    const scheme = authorization === undefined ? undefined : /^bearer[ \t]+/i.exec(authorization)
    const bearer = scheme == null ? undefined : authorization!.slice(scheme[0].length).trim()
    const token =
      bearer ?? (request.method === "GET" || request.method === "HEAD" ? queryToken(request.url) : undefined)
    if (token === undefined || !sameSecret(token, expected)) {
      return problem(
        401,
        "Unauthorized",
        "A bearer token is required: send `Authorization: Bearer <token>` with the token `gatehouse serve` printed.",
        { "www-authenticate": 'Bearer realm="gatehouse"' }
      )
    }
    const length = request.headers["content-length"]
    if (length !== undefined && Number(length) > maxBodyBytes) {
      return problem(413, "Content Too Large", `The request body may be at most ${maxBodyBytes} bytes.`, {
        connection: "close"
      })
    }
    return undefined
  }
}

/**
 * The guard as a global router middleware. It also bounds bodies read without a
 * declared length, and answers unknown routes with a problem document (404).
 *
 * @since 0.0.0
 */
export const layer = (options: Options) => {
  const refuse = check(options)
  const maxBody = ByteSize.bytes(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)
  return HttpRouter.middleware<{ handles: HttpServerError.HttpServerError }>()(
    (app) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const refusal = refuse(request)
        if (refusal !== undefined) return Effect.succeed(refusal)
        return app.pipe(
          Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBody),
          Effect.catchTag("HttpServerError", (error) =>
            error.reason._tag === "RouteNotFound"
              ? Effect.succeed(
                  problem(404, "Not Found", `No route for ${request.method} ${request.url.split("?")[0]}.`)
                )
              : Effect.fail(error)
          )
        )
      }),
    { global: true }
  )
}
