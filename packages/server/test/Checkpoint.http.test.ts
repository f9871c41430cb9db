// Checkpoint routes against a real server: a scripted session edits and writes real files
// in a temporary project, then the routes list, fork and rewind it.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { assert, layer } from "@effect/vitest"
import * as Server from "@gatehousejs/server/Server"
import * as Effect from "effect/Effect"
import { raw, SseClient, stack, tempProject, until } from "./harness.ts"

const TOKEN = "test-token"
const directory = tempProject()
const greet = NodePath.join(directory, "greet.txt")
writeFileSync(greet, "Hello\n")

// Model calls in order: turn 1 edits greet.txt, turn 2 writes notes/todo.txt (creating
// the directory), turn 3 waits on a bash ask so a turn is running.
const script = {
  turns: [
    {
      parts: [
        {
          type: "tool-call" as const,
          name: "edit",
          params: { filePath: "greet.txt", oldString: "Hello", newString: "Hi there" }
        },
        { type: "finish" as const, reason: "tool-calls" as const }
      ]
    },
    { parts: [{ type: "text" as const, text: "Edited greet.txt." }] },
    {
      parts: [
        {
          type: "tool-call" as const,
          name: "write",
          params: { filePath: "notes/todo.txt", content: "buy milk\n" }
        },
        { type: "finish" as const, reason: "tool-calls" as const }
      ]
    },
    { parts: [{ type: "text" as const, text: "Wrote the note." }] },
    {
      parts: [
        { type: "tool-call" as const, name: "bash", params: { command: "echo still-running" } },
        { type: "finish" as const, reason: "tool-calls" as const }
      ]
    }
  ]
}

// Everything is allowed but the shell, which asks (and so holds turn 3 open).
const ruleset = [
  { permission: "*", pattern: "*", action: "allow" as const },
  { permission: "bash", pattern: "*", action: "ask" as const }
]

const call = (path: string, method = "GET", body?: unknown) =>
  Effect.flatMap(Server.Service, (server) =>
    Effect.promise(async () => {
      const response = await fetch(server.url + path, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
      })
      const text = await response.text()
      let json: any
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, json }
    })
  )

const textOf = (messages: ReadonlyArray<any>) =>
  messages.flatMap((m) => m.parts.filter((p: any) => p.type === "text").map((p: any) => p.text))

/** Sends a prompt and waits until the turn has answered `reply` and the session is idle. */
const turn = (id: string, text: string, reply: string) =>
  Effect.gen(function* () {
    assert.strictEqual((yield* call(`/session/${id}/prompt`, "POST", { text })).status, 202)
    yield* until(`the answer "${reply}"`, call(`/session/${id}/message`), (r) =>
      textOf(r.json).includes(reply)
    )
    yield* until("the session to be idle", call(`/session/${id}`), (r) => r.json.status.type === "idle")
  })

layer(stack({ directory, token: TOKEN, script, ruleset }), { excludeTestServices: true })(
  "checkpoint routes",
  (it) => {
    let sessionID = ""
    let events: SseClient | undefined

    it.effect("a turn that edits a file gets a checkpoint, listed with its message and files", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        events = yield* Effect.promise(() => SseClient.open(server.url, TOKEN))
        const created = yield* call("/session", "POST", { title: "rewind me" })
        sessionID = created.json.id
        yield* turn(sessionID, "Say hi instead", "Edited greet.txt.")
        yield* turn(sessionID, "Write a note\nwith details", "Wrote the note.")
        assert.strictEqual(readFileSync(greet, "utf8"), "Hi there\n")
        assert.strictEqual(readFileSync(NodePath.join(directory, "notes/todo.txt"), "utf8"), "buy milk\n")

        const listed = yield* call(`/session/${sessionID}/checkpoint`)
        assert.strictEqual(listed.status, 200)
        const users = (yield* call(`/session/${sessionID}/message`)).json.filter(
          (m: any) => m.info.role === "user"
        )
        assert.deepStrictEqual(
          listed.json.map((c: any) => ({
            turn: c.turn,
            label: c.label,
            files: c.files,
            messageID: c.messageID
          })),
          [
            { turn: 1, label: "Say hi instead", files: ["greet.txt"], messageID: users[0].info.id },
            { turn: 2, label: "Write a note", files: ["notes/todo.txt"], messageID: users[1].info.id }
          ]
        )
      })
    )

    it.effect("rewind and fork are 409 while a turn runs", () =>
      Effect.gen(function* () {
        assert.strictEqual(
          (yield* call(`/session/${sessionID}/prompt`, "POST", { text: "run something" })).status,
          202
        )
        // 409 at once, even before the turn has reached its ask.
        const early = yield* call(`/session/${sessionID}/rewind`, "POST", { turn: 1, scope: "both" })
        assert.strictEqual(early.status, 409)
        yield* until("the ask to be pending", call("/permission"), (r) => r.json.length === 1)
        const rewind = yield* call(`/session/${sessionID}/rewind`, "POST", { turn: 1, scope: "code" })
        assert.strictEqual(rewind.status, 409)
        assert.strictEqual(rewind.json._tag, "BusyError")
        assert.match(rewind.json.message, /running a turn/)
        const fork = yield* call(`/session/${sessionID}/fork`, "POST", { turn: 1 })
        assert.strictEqual(fork.status, 409)
        // Nothing was undone.
        assert.strictEqual(readFileSync(greet, "utf8"), "Hi there\n")

        assert.strictEqual((yield* call(`/session/${sessionID}/abort`, "POST")).status, 204)
        yield* until(
          "the session to be idle",
          call(`/session/${sessionID}`),
          (r) => r.json.status.type === "idle"
        )
        // The aborted turn is turn 3, with nothing recorded.
        const listed = yield* call(`/session/${sessionID}/checkpoint`)
        assert.deepStrictEqual(
          listed.json.map((c: any) => [c.turn, c.files]),
          [
            [1, ["greet.txt"]],
            [2, ["notes/todo.txt"]],
            [3, []]
          ]
        )
      })
    )

    it.effect("unknown session or turn is 404; a malformed body is 400", () =>
      Effect.gen(function* () {
        for (const [method, path, body] of [
          ["GET", "/session/ses_unknown/checkpoint", undefined],
          ["POST", "/session/ses_unknown/rewind", { turn: 1, scope: "code" }],
          ["POST", "/session/ses_unknown/fork", { turn: 1 }]
        ] as const) {
          const response = yield* call(path, method, body)
          assert.strictEqual(response.status, 404, path)
          assert.strictEqual(response.json.kind, "session", path)
          assert.strictEqual(response.json.id, "ses_unknown")
        }
        for (const [path, body] of [
          [`/session/${sessionID}/rewind`, { turn: 9, scope: "code" }],
          [`/session/${sessionID}/fork`, { turn: 9 }]
        ] as const) {
          const response = yield* call(path, "POST", body)
          assert.strictEqual(response.status, 404, path)
          assert.strictEqual(response.json._tag, "TurnNotFoundError")
          assert.strictEqual(response.json.turn, 9)
          assert.strictEqual(response.json.turns, 3)
          assert.match(response.json.message, /has no turn 9 \(it has 3\)/)
        }

        const scope = yield* call(`/session/${sessionID}/rewind`, "POST", { turn: 1, scope: "everything" })
        assert.strictEqual(scope.status, 400)
        assert.deepStrictEqual(scope.json.errors[0].path, ["payload", "scope"])
        const zero = yield* call(`/session/${sessionID}/rewind`, "POST", { turn: 0, scope: "code" })
        assert.strictEqual(zero.status, 400)
        assert.deepStrictEqual(zero.json.errors[0].path, ["payload", "turn"])
        const fraction = yield* call(`/session/${sessionID}/fork`, "POST", { turn: 1.5 })
        assert.strictEqual(fraction.status, 400)
        const missing = yield* call(`/session/${sessionID}/fork`, "POST", {})
        assert.strictEqual(missing.status, 400)
        assert.deepStrictEqual(missing.json.errors[0].path, ["payload", "turn"])
        const notJson = yield* call(`/session/${sessionID}/rewind`, "POST", "{turn")
        assert.strictEqual(notJson.status, 400)
        // None of it touched anything.
        assert.strictEqual(readFileSync(greet, "utf8"), "Hi there\n")
      })
    )

    it.effect("without the token every checkpoint route is 401", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        const before = (yield* call(`/session/${sessionID}/message`)).json
        for (const [method, path, body] of [
          ["GET", `/session/${sessionID}/checkpoint`, undefined],
          ["POST", `/session/${sessionID}/rewind`, { turn: 1, scope: "both" }],
          ["POST", `/session/${sessionID}/fork`, { turn: 1 }]
        ] as const) {
          for (const headers of [{}, { authorization: "Bearer wrong" }]) {
            const response = yield* Effect.promise(() =>
              raw(server.url + path, {
                method,
                headers: { ...headers, "content-type": "application/json" },
                ...(body === undefined ? {} : { body: JSON.stringify(body) })
              })
            )
            assert.strictEqual(response.status, 401, path)
          }
        }
        assert.strictEqual(readFileSync(greet, "utf8"), "Hi there\n")
        assert.deepStrictEqual((yield* call(`/session/${sessionID}/message`)).json, before)
      })
    )

    it.effect("fork: a new session with the conversation before the turn; the original untouched", () =>
      Effect.gen(function* () {
        const before = (yield* call(`/session/${sessionID}/message`)).json
        const forked = yield* call(`/session/${sessionID}/fork`, "POST", { turn: 2 })
        assert.strictEqual(forked.status, 201)
        assert.strictEqual(forked.json.prompt, "Write a note\nwith details")
        const fork = forked.json.session
        assert.notStrictEqual(fork.id, sessionID)
        assert.include(fork.title, "rewind me")
        yield* Effect.promise(() =>
          events!.until((p) =>
            p.frames.some((f) => f.type === "session.created" && f.properties.info.id === fork.id)
          )
        )
        const copied = (yield* call(`/session/${fork.id}/message`)).json
        assert.deepStrictEqual(textOf(copied), ["Say hi instead", "Edited greet.txt."])
        const checkpoints = (yield* call(`/session/${fork.id}/checkpoint`)).json
        assert.deepStrictEqual(
          checkpoints.map((c: any) => [c.turn, c.files, c.messageID]),
          [[1, ["greet.txt"], copied[0].info.id]]
        )
        const sessions = (yield* call("/session")).json.map((s: any) => s.info.id)
        assert.include(sessions, fork.id)
        assert.deepStrictEqual((yield* call(`/session/${sessionID}/message`)).json, before)
        assert.strictEqual(readFileSync(greet, "utf8"), "Hi there\n")
      })
    )

    it.effect("rewind code restores the files and keeps the conversation", () =>
      Effect.gen(function* () {
        const before = (yield* call(`/session/${sessionID}/message`)).json
        const rewound = yield* call(`/session/${sessionID}/rewind`, "POST", { turn: 2, scope: "code" })
        assert.strictEqual(rewound.status, 200)
        assert.deepStrictEqual(rewound.json.files, [{ path: "notes/todo.txt", action: "deleted" }])
        assert.deepStrictEqual(rewound.json.removedMessages, [])
        assert.deepStrictEqual(rewound.json.lost, [])
        assert.strictEqual(rewound.json.prompt, "Write a note\nwith details")
        assert.isFalse(existsSync(NodePath.join(directory, "notes")))
        assert.strictEqual(readFileSync(greet, "utf8"), "Hi there\n")
        assert.deepStrictEqual((yield* call(`/session/${sessionID}/message`)).json, before)
      })
    )

    it.effect("rewind both restores the file, drops the messages (events) and returns the prompt", () =>
      Effect.gen(function* () {
        const users = (yield* call(`/session/${sessionID}/message`)).json
        const rewound = yield* call(`/session/${sessionID}/rewind`, "POST", { turn: 1, scope: "both" })
        assert.strictEqual(rewound.status, 200)
        assert.strictEqual(rewound.json.prompt, "Say hi instead")
        assert.deepStrictEqual(rewound.json.files, [
          { path: "greet.txt", action: "restored" },
          { path: "notes/todo.txt", action: "unchanged" }
        ])
        assert.deepStrictEqual(
          rewound.json.removedMessages,
          users.map((m: any) => m.info.id)
        )
        assert.strictEqual(readFileSync(greet, "utf8"), "Hello\n")
        assert.deepStrictEqual((yield* call(`/session/${sessionID}/message`)).json, [])
        assert.deepStrictEqual((yield* call(`/session/${sessionID}/checkpoint`)).json, [])
        // Every removal is published, then the session's update that follows them.
        const frames = yield* Effect.promise(() =>
          events!.until((p) => {
            const lastRemoved = p.frames.findLastIndex((f) => f.type === "message.removed")
            return (
              lastRemoved !== -1 &&
              p.frames
                .slice(lastRemoved)
                .some((f) => f.type === "session.updated" && f.properties.info.id === sessionID)
            )
          })
        )
        const removed = frames.filter((f) => f.type === "message.removed").map((f) => f.properties)
        assert.deepStrictEqual(
          removed.map((r) => r.messageID).sort(),
          users.map((m: any) => m.info.id).sort()
        )
        assert.isTrue(removed.every((r) => r.sessionID === sessionID))
        events!.close()
      })
    )

    it.effect("a conversation rewind leaves the files alone", () =>
      Effect.gen(function* () {
        const created = yield* call("/session", "POST", { title: "conversation only" })
        const id = created.json.id
        // The script has no model turn left: the turn fails at once, but its messages stay.
        yield* call(`/session/${id}/prompt`, "POST", { text: "Just talk" })
        yield* until("a message", call(`/session/${id}/message`), (r) => r.json.length >= 1)
        yield* until("the session to be idle", call(`/session/${id}`), (r) => r.json.status.type === "idle")
        writeFileSync(greet, "changed by hand\n")
        const rewound = yield* call(`/session/${id}/rewind`, "POST", { turn: 1, scope: "conversation" })
        assert.strictEqual(rewound.status, 200)
        assert.strictEqual(rewound.json.prompt, "Just talk")
        assert.deepStrictEqual(rewound.json.files, [])
        assert.isAbove(rewound.json.removedMessages.length, 0)
        assert.deepStrictEqual((yield* call(`/session/${id}/message`)).json, [])
        assert.strictEqual(readFileSync(greet, "utf8"), "changed by hand\n")
      })
    )
  }
)
