import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Message from "@gatehousejs/session/Message"
import type * as Session from "@gatehousejs/session/Session"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as TestClock from "effect/testing/TestClock"

const session: Session.Info = {
  id: "ses_1",
  directory: "/tmp/p",
  title: "one",
  time: { created: 1, updated: 1 }
}
const user: Message.User = { id: "msg_1", sessionID: "ses_1", role: "user", time: { created: 2 } }
const assistant: Message.Assistant = {
  id: "msg_2",
  sessionID: "ses_1",
  role: "assistant",
  parentID: "msg_1",
  model: { provider: "p", id: "m" },
  tokens: Message.emptyTokens,
  cost: 0,
  time: { created: 3 }
}
const textPart: Message.TextPart = {
  id: "prt_1",
  sessionID: "ses_1",
  messageID: "msg_1",
  type: "text",
  text: "hi"
}
const toolPart: Message.ToolPart = {
  id: "prt_2",
  sessionID: "ses_1",
  messageID: "msg_2",
  type: "tool",
  callID: "c1",
  tool: "bash",
  state: {
    status: "completed",
    input: { command: "ls" },
    output: "a\nb",
    title: "ls",
    metadata: {},
    time: { start: 4, end: 5 }
  }
}

const temp = Effect.acquireRelease(
  Effect.promise(() => NodeFs.mkdtemp(NodePath.join(NodeOs.tmpdir(), "gatehouse-store-"))),
  (dir) => Effect.promise(() => NodeFs.rm(dir, { recursive: true, force: true }))
)

const fill = Effect.gen(function* () {
  const store = yield* SessionStore.Service
  yield* store.putSession(session)
  yield* store.putMessage(user)
  yield* store.putPart(textPart)
  yield* store.putMessage(assistant)
  yield* store.putPart({
    ...toolPart,
    state: { status: "running", input: { command: "ls" }, time: { start: 4 } }
  })
  yield* store.putPart(toolPart)
})

const logs = () => {
  const lines: Array<string> = []
  const logger = Logger.make((options) => {
    lines.push(String(Array.isArray(options.message) ? options.message.join(" ") : options.message))
  })
  return { lines, layer: Logger.layer([logger]) }
}

describe("SessionStore", () => {
  it.effect("layerMemory keeps sessions, messages and parts in order", () =>
    Effect.gen(function* () {
      yield* fill
      const store = yield* SessionStore.Service
      const messages = yield* store.messages("ses_1")
      assert.deepStrictEqual(
        messages.map((m) => [m.info.id, m.parts.map((p) => p.id)]),
        [
          ["msg_1", ["prt_1"]],
          ["msg_2", ["prt_2"]]
        ]
      )
      assert.deepStrictEqual(messages[1]!.parts[0], toolPart)
      yield* store.removePart({ sessionID: "ses_1", messageID: "msg_2", partID: "prt_2" })
      assert.strictEqual((yield* store.message("ses_1", "msg_2"))!.parts.length, 0)
      const missing = yield* Effect.flip(store.getSession("ses_nope"))
      assert.strictEqual(missing._tag, "SessionNotFoundError")
    }).pipe(Effect.provide(SessionStore.layerMemory))
  )

  it.effect("layerFile survives a restart", () =>
    Effect.gen(function* () {
      const dir = yield* temp
      yield* fill.pipe(Effect.provide(SessionStore.layerFile(dir)))
      const reloaded = yield* Effect.gen(function* () {
        const store = yield* SessionStore.Service
        return { sessions: yield* store.listSessions(), messages: yield* store.messages("ses_1") }
      }).pipe(Effect.provide(SessionStore.layerFile(dir)))
      assert.deepStrictEqual(reloaded.sessions, [session])
      assert.deepStrictEqual(reloaded.messages, [
        { info: user, parts: [textPart] },
        { info: assistant, parts: [toolPart] }
      ])
      // Atomic writes leave no temporary files behind.
      const files = yield* Effect.promise(() => NodeFs.readdir(NodePath.join(dir, "part", "ses_1", "msg_2")))
      assert.deepStrictEqual(files, ["prt_2.json"])
    }).pipe(Effect.scoped)
  )

  it.effect("a corrupt record is reported and skipped; the rest loads", () =>
    Effect.gen(function* () {
      const dir = yield* temp
      yield* fill.pipe(Effect.provide(SessionStore.layerFile(dir)))
      const broken = NodePath.join(dir, "part", "ses_1", "msg_1", "prt_1.json")
      yield* Effect.promise(() => NodeFs.writeFile(broken, '{"id": "prt_1", "type": "te'))
      const wrongShape = NodePath.join(dir, "message", "ses_1", "msg_9.json")
      yield* Effect.promise(() =>
        NodeFs.writeFile(wrongShape, JSON.stringify({ id: "msg_9", role: "robot" }))
      )
      const { lines, layer } = logs()
      const messages = yield* Effect.flatMap(SessionStore.Service, (store) => store.messages("ses_1")).pipe(
        Effect.provide(SessionStore.layerFile(dir)),
        Effect.provide(layer)
      )
      assert.deepStrictEqual(
        messages.map((m) => [m.info.id, m.parts.length]),
        [
          ["msg_1", 0],
          ["msg_2", 1]
        ]
      )
      assert.isTrue(lines.some((line) => line.includes(broken)))
      assert.isTrue(lines.some((line) => line.includes(wrongShape)))
    }).pipe(Effect.scoped)
  )

  it.effect("removeSession removes its files", () =>
    Effect.gen(function* () {
      const dir = yield* temp
      yield* Effect.gen(function* () {
        yield* fill
        yield* Effect.flatMap(SessionStore.Service, (store) => store.removeSession("ses_1"))
      }).pipe(Effect.provide(SessionStore.layerFile(dir)))
      const sessions = yield* Effect.flatMap(SessionStore.Service, (store) => store.listSessions()).pipe(
        Effect.provide(SessionStore.layerFile(dir))
      )
      assert.deepStrictEqual(sessions, [])
      const left = yield* Effect.promise(() => NodeFs.readdir(NodePath.join(dir, "part")))
      assert.deepStrictEqual(left, [])
    }).pipe(Effect.scoped)
  )

  it.effect("removeMessage drops a message with its parts, in memory and on disk", () =>
    Effect.gen(function* () {
      const dir = yield* temp
      yield* Effect.gen(function* () {
        yield* fill
        yield* Effect.flatMap(SessionStore.Service, (store) => store.removeMessage("ses_1", "msg_2"))
      }).pipe(Effect.provide(SessionStore.layerFile(dir)))
      const messages = yield* Effect.flatMap(SessionStore.Service, (store) => store.messages("ses_1")).pipe(
        Effect.provide(SessionStore.layerFile(dir))
      )
      assert.deepStrictEqual(
        messages.map((m) => m.info.id),
        ["msg_1"]
      )
      const parts = yield* Effect.promise(() => NodeFs.readdir(NodePath.join(dir, "part", "ses_1")))
      assert.deepStrictEqual(parts, ["msg_1"])
    }).pipe(Effect.scoped)
  )

  for (const [name, layer] of [
    ["layerMemory", () => SessionStore.layerMemory],
    ["layerFile", (dir: string) => SessionStore.layerFile(dir)]
  ] as const)
    it.effect(`${name}: sidecar records beside a session, copied out, removed with it`, () =>
      Effect.gen(function* () {
        const dir = yield* temp
        yield* Effect.gen(function* () {
          const store = yield* SessionStore.Service
          yield* store.putSession(session)
          const value = { n: 1, list: ["a"] }
          yield* store.putSidecar({ sessionID: "ses_1", kind: "checkpoint", name: "1" }, value)
          yield* store.putSidecar({ sessionID: "ses_1", kind: "checkpoint", name: "index" }, { all: [1] })
          value.list.push("mutated")
          assert.deepStrictEqual(
            yield* store.getSidecar({ sessionID: "ses_1", kind: "checkpoint", name: "1" }),
            {
              n: 1,
              list: ["a"]
            }
          )
          assert.isUndefined(yield* store.getSidecar({ sessionID: "ses_1", kind: "checkpoint", name: "2" }))
          assert.deepStrictEqual(yield* store.listSidecars("ses_1", "checkpoint"), ["1", "index"])
          assert.deepStrictEqual(yield* store.listSidecars("ses_1", "other"), [])
          yield* store.removeSidecar({ sessionID: "ses_1", kind: "checkpoint", name: "1" })
          assert.deepStrictEqual(yield* store.listSidecars("ses_1", "checkpoint"), ["index"])
          const bad = yield* Effect.exit(
            store.putSidecar({ sessionID: "ses_1", kind: "../x", name: "1" }, {})
          )
          assert.isTrue(bad._tag === "Failure")
          yield* store.removeSession("ses_1")
          assert.deepStrictEqual(yield* store.listSidecars("ses_1", "checkpoint"), [])
        }).pipe(Effect.provide(layer(dir)))
        if (name === "layerFile") {
          const left = yield* Effect.promise(() => NodeFs.readdir(NodePath.join(dir, "session")))
          assert.deepStrictEqual(left, [])
        }
      }).pipe(Effect.scoped)
    )

  it.effect("layerFile: a sidecar that is not JSON fails to read with its path", () =>
    Effect.gen(function* () {
      const dir = yield* temp
      yield* Effect.gen(function* () {
        const store = yield* SessionStore.Service
        yield* store.putSession(session)
        yield* store.putSidecar({ sessionID: "ses_1", kind: "checkpoint", name: "1" }, { ok: true })
        const path = NodePath.join(dir, "session", "ses_1", "checkpoint", "1.json")
        yield* Effect.promise(() => NodeFs.writeFile(path, "{ broken"))
        const error = yield* Effect.flip(
          store.getSidecar({ sessionID: "ses_1", kind: "checkpoint", name: "1" })
        )
        assert.strictEqual(error.operation, "read")
        assert.strictEqual(error.path, path)
      }).pipe(Effect.provide(SessionStore.layerFile(dir)))
    }).pipe(Effect.scoped)
  )

  it.effect("layerFile: a write that fails leaves nothing in memory that is not on disk", () =>
    Effect.gen(function* () {
      const dir = yield* temp
      // A file where the store keeps session records: writing one fails (ENOTDIR/EEXIST) for any user.
      yield* Effect.promise(() => NodeFs.writeFile(NodePath.join(dir, "session"), "x"))
      yield* Effect.promise(() => NodeFs.mkdir(NodePath.join(dir, "part"), { recursive: true }))
      yield* Effect.promise(() => NodeFs.writeFile(NodePath.join(dir, "part", "ses_1"), "x"))
      yield* Effect.gen(function* () {
        const store = yield* SessionStore.Service
        const failed = yield* Effect.flip(store.putSession(session))
        assert.instanceOf(failed, SessionStore.StoreError)
        assert.strictEqual(failed.operation, "write")
        assert.strictEqual(failed.path, NodePath.join(dir, "session", "ses_1.json"))
        assert.deepStrictEqual(yield* store.listSessions(), [])
        assert.isTrue((yield* Effect.flip(store.getSession("ses_1")))._tag === "SessionNotFoundError")
        // A message is written; its part is not, and it is not in memory either.
        yield* store.putMessage(user)
        yield* Effect.flip(store.putPart(textPart))
        assert.deepStrictEqual((yield* store.message("ses_1", "msg_1"))?.parts, [])
      }).pipe(Effect.provide(SessionStore.layerFile(dir)))
    }).pipe(Effect.scoped)
  )

  it.effect(
    "layerFile: records are private (0600 in 0700 directories) and older loose ones are tightened",
    () =>
      Effect.gen(function* () {
        const dir = yield* temp
        yield* fill.pipe(Effect.provide(SessionStore.layerFile(dir)))
        const mode = (path: string) => Effect.promise(async () => (await NodeFs.stat(path)).mode & 0o777)
        const file = NodePath.join(dir, "part", "ses_1", "msg_2", "prt_2.json")
        assert.strictEqual(yield* mode(file), 0o600)
        assert.strictEqual(yield* mode(NodePath.join(dir, "part", "ses_1")), 0o700)
        yield* Effect.promise(async () => {
          await NodeFs.chmod(file, 0o644)
          await NodeFs.chmod(NodePath.join(dir, "message"), 0o755)
        })
        yield* SessionStore.Service.use((store) => store.listSessions()).pipe(
          Effect.provide(SessionStore.layerFile(dir))
        )
        assert.strictEqual(yield* mode(file), 0o600)
        assert.strictEqual(yield* mode(NodePath.join(dir, "message")), 0o700)
      }).pipe(Effect.scoped)
  )

  it.effect(
    "layerFile: a tool part left running by a process that died is an interrupted error after a restart",
    () =>
      Effect.gen(function* () {
        const dir = yield* temp
        const running: Message.ToolPart = {
          ...toolPart,
          state: { status: "running", input: { command: "sleep 100" }, time: { start: 4 } }
        }
        yield* Effect.gen(function* () {
          const store = yield* SessionStore.Service
          yield* store.putSession(session)
          yield* store.putMessage(assistant)
          yield* store.putPart(running)
        }).pipe(Effect.provide(SessionStore.layerFile(dir)))
        const part = yield* SessionStore.Service.use((store) => store.message("ses_1", "msg_2")).pipe(
          Effect.provide(SessionStore.layerFile(dir)),
          Effect.map((message) => message?.parts[0] as Message.ToolPart)
        )
        assert.strictEqual(part.state.status, "error")
        assert.isTrue(part.state.status === "error" && part.state.interrupted === true)
        assert.include(part.state.status === "error" ? part.state.error : "", "interrupted")
        // Written back: the file says the same.
        const onDisk = JSON.parse(
          yield* Effect.promise(() =>
            NodeFs.readFile(NodePath.join(dir, "part", "ses_1", "msg_2", "prt_2.json"), "utf8")
          )
        )
        assert.strictEqual(onDisk.state.status, "error")
        assert.isTrue(onDisk.state.interrupted)
      }).pipe(Effect.scoped)
  )

  it.effect(
    "layerFile: sessions inactive past the retention go with their checkpoints; a size cap drops the least recent",
    () =>
      Effect.gen(function* () {
        const dir = yield* temp
        const DAY = 24 * 60 * 60 * 1000
        const at = (id: string, updated: number): Session.Info => ({
          id,
          directory: "/tmp/p",
          title: id,
          time: { created: updated, updated }
        })
        // Written without a reaper running: a store with a retention that never comes.
        yield* Effect.gen(function* () {
          const store = yield* SessionStore.Service
          yield* store.putSession(at("ses_old", 1 * DAY))
          yield* store.putSidecar(
            { sessionID: "ses_old", kind: "checkpoint", name: "1" },
            { big: "x".repeat(100) }
          )
          yield* store.putSession(at("ses_mid", 20 * DAY))
          yield* store.putSidecar(
            { sessionID: "ses_mid", kind: "checkpoint", name: "1" },
            { big: "x".repeat(4000) }
          )
          yield* store.putSession(at("ses_new", 39 * DAY))
          yield* store.putSidecar(
            { sessionID: "ses_new", kind: "checkpoint", name: "1" },
            { big: "x".repeat(4000) }
          )
        }).pipe(Effect.provide(SessionStore.layerFile(dir)))
        yield* TestClock.setTime(40 * DAY)
        const ids = yield* Effect.gen(function* () {
          const store = yield* SessionStore.Service
          const listed = () => Effect.map(store.listSessions(), (all) => all.map((info) => info.id))
          assert.deepStrictEqual(yield* listed(), ["ses_mid", "ses_new", "ses_old"])
          // The first pass runs a minute after start; it removes files, so let it finish.
          yield* TestClock.adjust("61 seconds")
          // Done when memory and disk both hold only the newest session.
          const files = () => Effect.promise(() => NodeFs.readdir(NodePath.join(dir, "session")))
          for (let i = 0; i < 400 && ((yield* listed()).length > 1 || (yield* files()).length > 2); i++)
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
          return yield* listed()
        }).pipe(Effect.provide(SessionStore.layerFile(dir, { retention: "30 days", maxBytes: 6000 })))
        // ses_old is 39 days idle; ses_mid went for the cap (the newest always stays).
        assert.deepStrictEqual(ids, ["ses_new"])
        const left = yield* Effect.promise(() => NodeFs.readdir(NodePath.join(dir, "session")))
        assert.deepStrictEqual(left.sort(), ["ses_new", "ses_new.json"])
      }).pipe(Effect.scoped)
  )
})
