import { assert, layer } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as Server from "@gatehousejs/server/Server"
import * as Effect from "effect/Effect"
import { stack, tempProject, until } from "./harness.ts"

const TOKEN = "test-token"
const directory = tempProject()

// One turn that waits on a person: the model asks to run a command nobody allowed.
const script = {
  turns: [
    {
      parts: [
        { type: "text" as const, text: "Let me check." },
        { type: "tool-call" as const, name: "bash", params: { command: "echo waiting-for-you" } },
        { type: "finish" as const, reason: "tool-calls" as const }
      ]
    }
  ]
}

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
      return { status: response.status, json: text === "" ? undefined : JSON.parse(text) }
    })
  )

layer(stack({ directory, token: TOKEN, script }), { excludeTestServices: true })("session routes", (it) => {
  it.effect("create, list, get, prompt (202, then 409 while busy), abort, messages", () =>
    Effect.gen(function* () {
      const created = yield* call("/session", "POST", { title: "via http" })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(created.json.title, "via http")
      assert.strictEqual(created.json.directory, Instance.info(directory).directory)
      const id: string = created.json.id
      assert.match(id, /^ses_/)

      const list = yield* call("/session")
      assert.deepStrictEqual(
        list.json.map((s: { info: { id: string } }) => s.info.id),
        [id]
      )
      assert.deepStrictEqual(list.json[0].status, { type: "idle" })
      const one = yield* call(`/session/${id}`)
      assert.strictEqual(one.json.info.id, id)

      // The prompt returns at once, while the turn waits on the ask.
      const started = yield* call(`/session/${id}/prompt`, "POST", { text: "run it" })
      assert.strictEqual(started.status, 202)
      const asks = yield* until("the ask to be pending", call("/permission"), (r) => r.json.length === 1)
      assert.strictEqual(asks.json[0].sessionID, id)
      assert.deepStrictEqual((yield* call(`/session/${id}`)).json.status, { type: "busy" })
      const busy = yield* call(`/session/${id}/prompt`, "POST", { text: "again" })
      assert.strictEqual(busy.status, 409)
      assert.match(busy.json.message, /running a turn/)

      // Abort ends the turn and takes its ask with it.
      const aborted = yield* call(`/session/${id}/abort`, "POST")
      assert.strictEqual(aborted.status, 204)
      yield* until("the session to be idle", call(`/session/${id}`), (r) => r.json.status.type === "idle")
      assert.deepStrictEqual((yield* call("/permission")).json, [])

      const messages = yield* call(`/session/${id}/message`)
      assert.strictEqual(messages.status, 200)
      const [user, assistant] = messages.json
      assert.strictEqual(user.info.role, "user")
      assert.strictEqual(user.parts[0].text, "run it")
      assert.strictEqual(assistant.info.role, "assistant")
      const tool = assistant.parts.find((p: { type: string }) => p.type === "tool")
      assert.strictEqual(tool.tool, "bash")
      assert.strictEqual(tool.state.status, "error")
    })
  )

  it.effect("of two concurrent prompts to one session, exactly one starts", () =>
    Effect.gen(function* () {
      const { json: info } = yield* call("/session", "POST", {})
      const [a, b] = yield* Effect.all(
        [
          call(`/session/${info.id}/prompt`, "POST", { text: "one" }),
          call(`/session/${info.id}/prompt`, "POST", { text: "two" })
        ],
        { concurrency: 2 }
      )
      assert.deepStrictEqual([a.status, b.status].sort(), [202, 409])
      yield* until(
        "the session to be idle",
        call(`/session/${info.id}`),
        (r) => r.json.status.type === "idle"
      )
    })
  )
})
