// Storage failures seen through the API: a real file system error (a file where the store
// needs a directory, which fails every write under it with ENOTDIR/EEXIST for any user,
// root included) must reach the client as a problem document and an event, and leave no
// record in memory that is not on disk.
import { mkdirSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as Server from "@gatehousejs/server/Server"
import * as Session from "@gatehousejs/session/Session"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { stack, tempProject, until } from "./harness.ts"

const TOKEN = "test-token"

const call = (path: string, method = "GET", body?: unknown) =>
  Effect.flatMap(Server.Service, (server) =>
    Effect.promise(async () => {
      const response = await fetch(server.url + path, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await response.text()
      return {
        status: response.status,
        contentType: response.headers.get("content-type"),
        text,
        json: text === "" ? undefined : JSON.parse(text)
      }
    })
  )

const withServer = <A, E>(
  obstruct: ReadonlyArray<string>,
  effect: (
    data: string,
    directory: string
  ) => Effect.Effect<A, E, Layer.Success<ReturnType<typeof stack>> | Scope.Scope>
) =>
  Effect.gen(function* () {
    const directory = tempProject()
    const data = NodePath.join(directory, ".data")
    mkdirSync(data)
    // A file where the store keeps a directory: every write under it fails.
    for (const name of obstruct) writeFileSync(NodePath.join(data, name), "not a directory")
    const script = {
      turns: [
        {
          parts: [
            { type: "text" as const, text: "hi" },
            { type: "finish" as const, reason: "stop" as const }
          ]
        }
      ]
    }
    return yield* effect(data, directory).pipe(
      Effect.provide(stack({ directory, token: TOKEN, script, store: SessionStore.layerFile(data) }))
    )
  }).pipe(Effect.scoped)

describe("storage failures over HTTP", () => {
  it.live(
    "POST /session on a store that cannot write: 500 problem+json naming the operation and path, no ghost",
    () =>
      withServer(["session"], (data) =>
        Effect.gen(function* () {
          const created = yield* call("/session", "POST", { title: "doomed" })
          assert.strictEqual(created.status, 500)
          assert.strictEqual(created.contentType, "application/problem+json")
          assert.strictEqual(created.json.title, "Storage failed")
          assert.strictEqual(created.json.status, 500)
          assert.strictEqual(created.json.operation, "write")
          assert.isTrue(created.json.path.startsWith(NodePath.join(data, "session")))
          assert.include(created.json.detail, created.json.path)
          // The session was never stored, so it is not listed either.
          assert.deepStrictEqual((yield* call("/session")).json, [])
        })
      )
  )

  it.live("a turn stopped by the disk publishes session.error and the session goes back to idle", () =>
    withServer(["part"], () =>
      Effect.gen(function* () {
        const bus = yield* Bus.Service
        const directory = (yield* Server.Service).directory
        const errors: Array<typeof Session.Event.Error.properties.Type> = []
        const events = yield* bus.subscribe(Session.Event.Error).pipe(Instance.provide(directory))
        yield* Effect.forkScoped(
          Stream.runForEach(events, (event) => Effect.sync(() => errors.push(event.properties)))
        )
        const created = yield* call("/session", "POST", { title: "turn" })
        assert.strictEqual(created.status, 201)
        const id: string = created.json.id
        const started = yield* call(`/session/${id}/prompt`, "POST", { text: "hello" })
        assert.strictEqual(started.status, 202)
        yield* until(
          "a session.error",
          Effect.sync(() => errors.length),
          (n) => n > 0
        )
        assert.strictEqual(errors[0]!.sessionID, id)
        assert.strictEqual(errors[0]!.error.name, "SessionStoreError")
        assert.include(errors[0]!.error.message, "could not write")
        yield* until("the session to be idle", call(`/session/${id}`), (r) => r.json.status.type === "idle")
        // What the API shows is what is on disk: the user message without the part that failed.
        const messages = (yield* call(`/session/${id}/message`)).json
        for (const message of messages) assert.deepStrictEqual(message.parts, [])
        assert.isFalse(yield* SessionPrompt.Service.use((prompts) => prompts.busy(id)))
      })
    )
  )
})
