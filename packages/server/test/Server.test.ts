import { assert, layer } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Server from "@gatehousejs/server/Server"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { raw, stack, tempProject, until } from "./harness.ts"

const TOKEN = "test-token"
const directory = tempProject()

const call = (
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}
) =>
  Effect.gen(function* () {
    const server = yield* Server.Service
    return yield* Effect.promise(async () => {
      const response = await fetch(server.url + path, {
        method: init.method ?? "GET",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
          ...init.headers
        },
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) })
      })
      const text = await response.text()
      let json: any
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, headers: response.headers, text, json }
    })
  })

// Every route of the server, with a body where it takes one.
const ROUTES: ReadonlyArray<readonly [string, string, unknown?]> = [
  ["GET", "/"],
  ["GET", "/doc"],
  ["GET", "/event"],
  ["GET", "/permission"],
  ["POST", "/permission/per_x/reply", { reply: "once" }],
  ["GET", "/session"],
  ["POST", "/session", {}],
  ["GET", "/session/ses_x"],
  ["GET", "/session/ses_x/message"],
  ["POST", "/session/ses_x/prompt", { text: "hi" }],
  ["POST", "/session/ses_x/abort"],
  ["GET", "/session/ses_x/checkpoint"],
  ["POST", "/session/ses_x/rewind", { turn: 1, scope: "both" }],
  ["POST", "/session/ses_x/fork", { turn: 1 }],
  ["GET", "/no/such/route"]
]

layer(stack({ directory, token: TOKEN, maxBodyBytes: 4096 }), { excludeTestServices: true })(
  "Server",
  (it) => {
    it.effect("prints a loopback URL with the token", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/)
        assert.isAbove(server.port, 0)
        assert.strictEqual(server.pageUrl, `${server.url}/?token=${TOKEN}`)
        assert.strictEqual(server.directory, Instance.info(directory).directory)
      })
    )

    it.effect("every route without a token, or with a wrong one, is 401", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        for (const [method, path, body] of ROUTES) {
          for (const headers of [
            {},
            { authorization: "Bearer wrong" },
            { authorization: `Basic ${TOKEN}` }
          ]) {
            const response = yield* Effect.promise(() =>
              raw(server.url + path, {
                method,
                headers: { ...headers, "content-type": "application/json" },
                ...(body === undefined ? {} : { body: JSON.stringify(body) })
              })
            )
            assert.strictEqual(response.status, 401, `${method} ${path} ${JSON.stringify(headers)}`)
            assert.strictEqual(response.headers["www-authenticate"], 'Bearer realm="gatehouse"')
            assert.match(JSON.parse(response.body).detail, /bearer token/)
          }
        }
      })
    )

    it.effect("the Bearer scheme is matched case-insensitively (RFC 7235)", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
          const response = yield* Effect.promise(() =>
            raw(`${server.url}/permission`, { headers: { authorization: `${scheme} ${TOKEN}` } })
          )
          assert.strictEqual(response.status, 200, scheme)
        }
        const other = yield* Effect.promise(() =>
          raw(`${server.url}/permission`, { headers: { authorization: `Basic ${TOKEN}` } })
        )
        assert.strictEqual(other.status, 401)
      })
    )

    it.effect("the token may come in the query for GET only", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        const page = yield* Effect.promise(() => raw(`${server.url}/?token=${TOKEN}`))
        assert.strictEqual(page.status, 200)
        const post = yield* Effect.promise(() =>
          raw(`${server.url}/session?token=${TOKEN}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}"
          })
        )
        assert.strictEqual(post.status, 401)
      })
    )

    it.effect("a non-loopback Host or a foreign Origin is 403, even with the token", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        const auth = { authorization: `Bearer ${TOKEN}` }
        for (const host of ["evil.example", "attacker.test:80", "192.168.1.10", "127.0.0.1.evil.example"]) {
          const response = yield* Effect.promise(() =>
            raw(`${server.url}/permission`, { headers: { ...auth, host } })
          )
          assert.strictEqual(response.status, 403, host)
          assert.match(JSON.parse(response.body).detail, /not a loopback name/)
        }
        for (const origin of [
          "http://evil.example",
          "null",
          `http://localhost:${server.port + 1}`,
          "https://127.0.0.1"
        ]) {
          const response = yield* Effect.promise(() =>
            raw(`${server.url}/permission`, { headers: { ...auth, origin } })
          )
          assert.strictEqual(response.status, 403, origin)
        }
        const crossSite = yield* Effect.promise(() =>
          raw(`${server.url}/permission`, { headers: { ...auth, "sec-fetch-site": "cross-site" } })
        )
        assert.strictEqual(crossSite.status, 403)
        // Loopback names, and the page's own origin, pass.
        for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `[::1]:${server.port}`]) {
          const response = yield* Effect.promise(() =>
            raw(`${server.url}/permission`, { headers: { ...auth, host, origin: `http://${host}` } })
          )
          assert.strictEqual(response.status, 200, host)
        }
      })
    )

    it.effect("a malformed body is 400 and says what was wrong", () =>
      Effect.gen(function* () {
        const badReply = yield* call("/permission/per_x/reply", { method: "POST", body: { reply: "sure" } })
        assert.strictEqual(badReply.status, 400)
        assert.deepStrictEqual(badReply.json.errors[0].path, ["payload", "reply"])
        assert.match(badReply.json.errors[0].message, /once.*always.*reject/)
        const notJson = yield* call("/permission/per_x/reply", { method: "POST", body: "{nope" })
        assert.strictEqual(notJson.status, 400)
        assert.match(notJson.json.errors[0].message, /valid JSON/)
        const missing = yield* call("/session/ses_x/prompt", { method: "POST", body: {} })
        assert.strictEqual(missing.status, 400)
        assert.deepStrictEqual(missing.json.errors[0].path, ["payload", "text"])
        const wrongType = yield* call("/session", { method: "POST", body: { title: 42 } })
        assert.strictEqual(wrongType.status, 400)
        assert.deepStrictEqual(wrongType.json.errors[0].path, ["payload", "title"])
      })
    )

    it.effect("an oversize body is 413, declared or streamed", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        const big = JSON.stringify({ reply: "reject", message: "x".repeat(10_000) })
        const declared = yield* call("/permission/per_x/reply", { method: "POST", body: big })
        assert.strictEqual(declared.status, 413)
        // Chunked, with no declared length: cut while reading.
        const streamed = yield* Effect.promise(() =>
          raw(`${server.url}/permission/per_x/reply`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${TOKEN}`,
              "content-type": "application/json",
              "transfer-encoding": "chunked"
            },
            body: big
          })
        )
        assert.strictEqual(streamed.status, 413)
      })
    )

    it.effect("unknown ids are 404", () =>
      Effect.gen(function* () {
        const reply = yield* call("/permission/per_unknown/reply", {
          method: "POST",
          body: { reply: "once" }
        })
        assert.strictEqual(reply.status, 404)
        assert.strictEqual(reply.json.kind, "permission")
        assert.match(reply.json.message, /No pending permission request per_unknown/)
        for (const [method, path, body] of [
          ["GET", "/session/ses_unknown"],
          ["GET", "/session/ses_unknown/message"],
          ["POST", "/session/ses_unknown/prompt", { text: "hi" }],
          ["POST", "/session/ses_unknown/abort"]
        ] as const) {
          const response = yield* call(path, { method, ...(body === undefined ? {} : { body }) })
          assert.strictEqual(response.status, 404, path)
          assert.strictEqual(response.json.kind, "session")
        }
        const route = yield* call("/no/such/route")
        assert.strictEqual(route.status, 404)
        assert.strictEqual(route.json.title, "Not Found")
      })
    )

    it.effect("a reply through HTTP resolves the waiting ask", () =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        const ask = (id: string) =>
          permission
            .ask({
              id,
              sessionID: "ses_http",
              permission: "bash",
              patterns: ["git push origin main"],
              always: ["git push *"],
              metadata: { command: "git push origin main" },
              ruleset: []
            })
            .pipe(Instance.provide(directory))
        const waiting = yield* ask("per_http_once").pipe(
          Effect.exit,
          Effect.forkChild({ startImmediately: true })
        )
        const listed = yield* until("the ask to be listed", call("/permission"), (r) => r.json.length > 0)
        assert.strictEqual(listed.json[0].id, "per_http_once")
        assert.deepStrictEqual(listed.json[0].patterns, ["git push origin main"])
        const replied = yield* call("/permission/per_http_once/reply", {
          method: "POST",
          body: { reply: "once" }
        })
        assert.strictEqual(replied.status, 204)
        assert.isTrue(Exit.isSuccess(yield* Fiber.join(waiting)))
        assert.deepStrictEqual((yield* call("/permission")).json, [])
        // A second reply to the same id: it is settled, so 404.
        const again = yield* call("/permission/per_http_once/reply", {
          method: "POST",
          body: { reply: "once" }
        })
        assert.strictEqual(again.status, 404)

        // Reject with feedback: the ask fails with the person's correction.
        const rejected = yield* ask("per_http_reject").pipe(
          Effect.exit,
          Effect.forkChild({ startImmediately: true })
        )
        yield* until("the second ask to be listed", call("/permission"), (r) => r.json.length > 0)
        const reply = yield* call("/permission/per_http_reject/reply", {
          method: "POST",
          body: { reply: "reject", message: "use the release script instead" }
        })
        assert.strictEqual(reply.status, 204)
        const exit = yield* Fiber.join(rejected)
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "use the release script instead")
      })
    )

    it.effect("GET /doc is the OpenAPI document of the API, bearer auth included", () =>
      Effect.gen(function* () {
        const doc = yield* call("/doc")
        assert.strictEqual(doc.status, 200)
        assert.strictEqual(doc.json.openapi, "3.1.0")
        assert.strictEqual(doc.json.info.title, "Gatehouse")
        for (const path of [
          "/event",
          "/permission",
          "/permission/{requestID}/reply",
          "/session",
          "/session/{sessionID}",
          "/session/{sessionID}/message",
          "/session/{sessionID}/prompt",
          "/session/{sessionID}/abort",
          "/session/{sessionID}/checkpoint",
          "/session/{sessionID}/rewind",
          "/session/{sessionID}/fork"
        ]) {
          assert.property(doc.json.paths, path)
        }
        assert.property(doc.json.paths["/event"].get.responses["200"].content, "text/event-stream")
        assert.property(doc.json.paths["/session/{sessionID}/prompt"].post.responses, "409")
        for (const path of ["/session/{sessionID}/rewind", "/session/{sessionID}/fork"]) {
          const responses = doc.json.paths[path].post.responses
          for (const status of ["400", "404", "409", "500"])
            assert.property(responses, status, `${path} ${status}`)
          assert.property(doc.json.paths[path].post.requestBody.content, "application/json")
        }
        assert.property(doc.json.paths["/session/{sessionID}/rewind"].post.responses, "200")
        assert.property(doc.json.paths["/session/{sessionID}/fork"].post.responses, "201")
        assert.match(doc.json.paths["/session/{sessionID}/rewind"].post.description, /shell commands/i)
        assert.deepStrictEqual(doc.json.components.securitySchemes.bearer, { type: "http", scheme: "bearer" })
        assert.deepStrictEqual(doc.json.security, [{ bearer: [] }])
      })
    )

    it.effect("GET / is the self-contained page, locked down by its CSP", () =>
      Effect.gen(function* () {
        const page = yield* call("/")
        assert.strictEqual(page.status, 200)
        assert.match(page.headers.get("content-type")!, /^text\/html/)
        assert.include(page.text, Instance.info(directory).directory)
        const csp = page.headers.get("content-security-policy")!
        assert.match(csp, /default-src 'none'/)
        assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'/)
        assert.match(csp, /frame-ancestors 'none'/)
        // Nothing is loaded from elsewhere.
        assert.notMatch(page.text, /<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!127)/)
      })
    )
  }
)
