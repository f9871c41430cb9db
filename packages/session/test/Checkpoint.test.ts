import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import * as FileChanges from "@gatehousejs/session/FileChanges"
import * as FileTools from "@gatehousejs/session/FileTools"
import * as Message from "@gatehousejs/session/Message"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { collect, settle } from "./helpers.ts"

// A tool that deletes a file, declaring it first: any file-changing tool uses the same seam.
const Remove = Tool.make("remove", {
  parameters: Schema.Struct({ filePath: Schema.String }),
  success: Schema.String,
  failure: Schema.Struct({ _tag: Schema.String, message: Schema.String }),
  failureMode: "return",
  dependencies: [Instance.Current]
})
const RemoveTools = Toolkit.make(Remove)
const RemoveHandlers = RemoveTools.toLayer(
  Effect.succeed(
    RemoveTools.of({
      remove: ({ filePath }) =>
        Effect.gen(function* () {
          const context = yield* ShellContext.Service
          const path = NodePath.join(context.projectRoot!, filePath)
          const before = yield* Effect.promise(() => NodeFs.readFile(path, "utf8"))
          const changes = yield* FileChanges.Service
          yield* changes.declare([{ path, relative: filePath, action: "delete", before }])
          yield* Effect.promise(() => NodeFs.rm(path))
          return `removed ${filePath}`
        }).pipe(Effect.mapError((error) => ({ _tag: error._tag, message: error.message })))
    })
  )
)
const TestTools = Toolkit.make(FileTools.read, FileTools.write, FileTools.edit, Remove)

const ALLOW: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

const tool = (name: string, params: Record<string, unknown>): ScriptedModel.Turn => ({
  parts: [{ type: "tool-call", name, params }]
})
const say = (text: string): ScriptedModel.Turn => ({ parts: [{ type: "text", text }] })

/** Turn 1 modifies a.txt twice, creates new/dir/b.txt, deletes c.txt; turn 2 creates d.txt and edits a.txt. */
const TWO_TURNS: ReadonlyArray<ScriptedModel.Turn> = [
  tool("edit", { filePath: "a.txt", oldString: "alpha", newString: "ALPHA" }),
  tool("write", { filePath: "new/dir/b.txt", content: "bravo\n" }),
  tool("remove", { filePath: "c.txt" }),
  tool("edit", { filePath: "a.txt", oldString: "ALPHA", newString: "ALPHA!" }),
  say("Turn one done."),
  tool("write", { filePath: "d.txt", content: "delta\n" }),
  tool("edit", { filePath: "a.txt", oldString: "beta", newString: "BETA" }),
  say("Turn two done.")
]

const PROJECT_FILES: Record<string, string> = {
  "a.txt": "alpha\nbeta\n",
  "c.txt": "charlie\n",
  "keep/k.txt": "kilo\n"
}

interface Fixture {
  readonly base: string
  readonly root: string
  readonly data: string
}

const fixture = Effect.acquireRelease(
  Effect.promise(async (): Promise<Fixture> => {
    const base = await NodeFs.realpath(
      await NodeFs.mkdtemp(NodePath.join(NodeOs.tmpdir(), "gatehouse-checkpoint-"))
    )
    const root = NodePath.join(base, "project")
    for (const [path, content] of Object.entries(PROJECT_FILES)) {
      await NodeFs.mkdir(NodePath.dirname(NodePath.join(root, path)), { recursive: true })
      await NodeFs.writeFile(NodePath.join(root, path), content)
    }
    return { base, root, data: NodePath.join(base, "data") }
  }),
  ({ base }) => Effect.promise(() => NodeFs.rm(base, { recursive: true, force: true }))
)

/** Every file and directory under `root`, with file contents: what "the same tree" means. */
const tree = (root: string) =>
  Effect.promise(async () => {
    const out: Record<string, string> = {}
    const visit = async (dir: string) => {
      for (const entry of await NodeFs.readdir(dir, { withFileTypes: true })) {
        const path = NodePath.join(dir, entry.name)
        const key = NodePath.relative(root, path)
        if (entry.isDirectory()) {
          out[`${key}/`] = ""
          await visit(path)
        } else out[key] = await NodeFs.readFile(path, "utf8")
      }
    }
    await visit(root)
    return out
  })

type Services =
  | SessionPrompt.Service
  | Checkpoint.Service
  | SessionStore.Service
  | Permission.Service
  | Bus.Service
  | Instance.Current
  | Scope.Scope

/** Runs `body` against a session loop with checkpoints, on a file store under `data` (or in memory). */
const withLoop = <A, E>(
  fx: Fixture,
  turns: ReadonlyArray<ScriptedModel.Turn>,
  body: Effect.Effect<A, E, Services>,
  options: { readonly file?: boolean; readonly ruleset?: Permission.Ruleset } = {}
) =>
  body.pipe(
    Effect.scoped,
    Instance.provide(fx.root),
    Effect.provide(
      SessionPrompt.layer({ toolkit: TestTools, ruleset: options.ruleset ?? ALLOW }).pipe(
        Layer.provideMerge(Layer.mergeAll(FileTools.handlers, RemoveHandlers)),
        Layer.provideMerge(Truncate.layerWith({ directory: NodePath.join(fx.base, "spill") })),
        Layer.provideMerge(Checkpoint.layer),
        Layer.provideMerge(SessionProcessor.layer),
        Layer.provideMerge(
          Layer.mergeAll(
            options.file === true ? SessionStore.layerFile(fx.data) : SessionStore.layerMemory,
            SessionStatus.layer
          )
        ),
        Layer.provideMerge(Permission.layerMemory),
        Layer.provideMerge(ScriptedModel.layer({ turns }))
      )
    )
  )

const services = Effect.all({
  prompts: SessionPrompt.Service,
  checkpoints: Checkpoint.Service,
  store: SessionStore.Service
})

/** Creates a session and runs the two turns; returns the session id and the tree before each turn. */
const twoTurns = (fx: Fixture) =>
  Effect.gen(function* () {
    const { prompts } = yield* services
    const session = yield* prompts.create({ directory: fx.root })
    const t0 = yield* tree(fx.root)
    const first = yield* prompts.prompt(session.id, "Rename alpha\nand tidy up")
    assert.strictEqual(first?.error, undefined)
    const t1 = yield* tree(fx.root)
    const second = yield* prompts.prompt(session.id, "Add delta")
    assert.strictEqual(second?.error, undefined)
    const t2 = yield* tree(fx.root)
    return { sessionID: session.id, t0, t1, t2 }
  })

const userTexts = (messages: ReadonlyArray<Message.WithParts>) =>
  messages
    .filter((message) => message.info.role === "user")
    .map((message) => message.parts.map((part) => (part.type === "text" ? part.text : "")).join(""))

describe("Checkpoint", () => {
  it.live("one checkpoint per turn, labelled with the prompt, recording each path's first touch only", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      yield* withLoop(
        fx,
        TWO_TURNS,
        Effect.gen(function* () {
          const { checkpoints, store } = yield* services
          const { sessionID, t0, t2 } = yield* twoTurns(fx)
          assert.notDeepEqual(t2, t0)
          const list = yield* checkpoints.list(sessionID)
          assert.deepStrictEqual(
            list.map((info) => [info.turn, info.label, [...info.files]]),
            [
              [1, "Rename alpha", ["a.txt", "new/dir/b.txt", "c.txt"]],
              [2, "Add delta", ["d.txt", "a.txt"]]
            ]
          )
          const messages = yield* store.messages(sessionID)
          assert.strictEqual(list[0]!.messageID, messages[0]!.info.id)
          // a.txt was edited twice in turn 1: its record is the content before the first edit.
          const record = (yield* store.getSidecar({
            sessionID,
            kind: "checkpoint",
            name: "1"
          })) as Checkpoint.Record
          assert.deepStrictEqual(
            record.files.map((file) => [file.relative, file.content]),
            [
              ["a.txt", "alpha\nbeta\n"],
              ["new/dir/b.txt", null],
              ["c.txt", "charlie\n"]
            ]
          )
          assert.strictEqual(record.prompt, "Rename alpha\nand tidy up")
          // Turn 2 recorded a.txt as turn 1 left it.
          const second = (yield* store.getSidecar({
            sessionID,
            kind: "checkpoint",
            name: "2"
          })) as Checkpoint.Record
          assert.strictEqual(
            second.files.find((file) => file.relative === "a.txt")?.content,
            "ALPHA!\nbeta\n"
          )
        })
      )
    }).pipe(Effect.scoped)
  )

  it.live("rewind code: exactly the earlier tree, conversation kept", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      yield* withLoop(
        fx,
        TWO_TURNS,
        Effect.gen(function* () {
          const { checkpoints, store } = yield* services
          const { sessionID, t0, t1 } = yield* twoTurns(fx)
          const before = yield* store.messages(sessionID)
          // To the start of turn 2 first, then of turn 1.
          const toTwo = yield* checkpoints.rewind(sessionID, 2, "code")
          assert.deepStrictEqual(yield* tree(fx.root), t1)
          assert.deepStrictEqual(
            toTwo.files.map((file) => [file.path, file.action]),
            [
              ["d.txt", "deleted"],
              ["a.txt", "restored"]
            ]
          )
          const toOne = yield* checkpoints.rewind(sessionID, 1, "code")
          assert.deepStrictEqual(yield* tree(fx.root), t0)
          assert.deepStrictEqual(toOne.skipped, [])
          assert.deepStrictEqual(toOne.lost, [])
          assert.strictEqual(toOne.prompt, "Rename alpha\nand tidy up")
          assert.deepStrictEqual(toOne.removedMessages, [])
          assert.deepStrictEqual(yield* store.messages(sessionID), before)
          assert.strictEqual((yield* checkpoints.list(sessionID)).length, 2)
        })
      )
    }).pipe(Effect.scoped)
  )

  it.live(
    "rewind conversation: messages from the turn on are dropped and announced, files kept, prompt returned",
    () =>
      Effect.gen(function* () {
        const fx = yield* fixture
        yield* withLoop(
          fx,
          TWO_TURNS,
          Effect.gen(function* () {
            const { checkpoints, store } = yield* services
            const removed = yield* collect(Message.Event.Removed)
            const { sessionID, t2 } = yield* twoTurns(fx)
            const before = yield* store.messages(sessionID)
            const result = yield* checkpoints.rewind(sessionID, 2, "conversation")
            yield* settle
            assert.strictEqual(result.prompt, "Add delta")
            assert.deepStrictEqual(result.files, [])
            assert.deepStrictEqual(yield* tree(fx.root), t2)
            const after = yield* store.messages(sessionID)
            assert.deepStrictEqual(userTexts(after), ["Rename alpha\nand tidy up"])
            const dropped = before.slice(after.length).map((message) => message.info.id)
            assert.deepStrictEqual([...result.removedMessages], dropped)
            assert.deepStrictEqual(
              removed.map((event) => event.messageID),
              [...dropped].reverse()
            )
            assert.deepStrictEqual(
              (yield* checkpoints.list(sessionID)).map((info) => info.turn),
              [1]
            )
          })
        )
      }).pipe(Effect.scoped)
  )

  it.live("rewind both: the earlier tree and the earlier conversation; the next turn is numbered again", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      yield* withLoop(
        fx,
        [...TWO_TURNS, tool("write", { filePath: "e.txt", content: "echo\n" }), say("Again.")],
        Effect.gen(function* () {
          const { checkpoints, prompts, store } = yield* services
          const { sessionID, t0 } = yield* twoTurns(fx)
          const result = yield* checkpoints.rewind(sessionID, 1, "both")
          assert.deepStrictEqual(yield* tree(fx.root), t0)
          assert.strictEqual(result.prompt, "Rename alpha\nand tidy up")
          assert.deepStrictEqual(yield* store.messages(sessionID), [])
          assert.deepStrictEqual(yield* checkpoints.list(sessionID), [])
          yield* prompts.prompt(sessionID, "Write echo")
          assert.deepStrictEqual(
            (yield* checkpoints.list(sessionID)).map((info) => [info.turn, info.label]),
            [[1, "Write echo"]]
          )
        })
      )
    }).pipe(Effect.scoped)
  )

  it.live(
    "a conversation rewind hands its turns' records to the turn before, so an older code rewind still restores them",
    () =>
      Effect.gen(function* () {
        const fx = yield* fixture
        yield* withLoop(
          fx,
          TWO_TURNS,
          Effect.gen(function* () {
            const { checkpoints } = yield* services
            const { sessionID, t0 } = yield* twoTurns(fx)
            yield* checkpoints.rewind(sessionID, 2, "conversation")
            yield* checkpoints.rewind(sessionID, 1, "code")
            assert.deepStrictEqual(yield* tree(fx.root), t0) // d.txt (made in turn 2) is gone too
          })
        )
      }).pipe(Effect.scoped)
  )

  it.live("restart: checkpoints are read back and a rewind still works", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      const { sessionID, t0 } = yield* withLoop(fx, TWO_TURNS, twoTurns(fx), { file: true })
      yield* withLoop(
        fx,
        [],
        Effect.gen(function* () {
          const { checkpoints, store } = yield* services
          assert.deepStrictEqual(
            (yield* checkpoints.list(sessionID)).map((info) => [info.turn, info.label]),
            [
              [1, "Rename alpha"],
              [2, "Add delta"]
            ]
          )
          const result = yield* checkpoints.rewind(sessionID, 1, "both")
          assert.deepStrictEqual(yield* tree(fx.root), t0)
          assert.strictEqual(result.prompt, "Rename alpha\nand tidy up")
          assert.deepStrictEqual(yield* store.messages(sessionID), [])
        }),
        { file: true }
      )
      // And the rewind itself was durable.
      yield* withLoop(
        fx,
        [],
        Effect.gen(function* () {
          const { checkpoints, store } = yield* services
          assert.deepStrictEqual(yield* checkpoints.list(sessionID), [])
          assert.deepStrictEqual(yield* store.messages(sessionID), [])
        }),
        { file: true }
      )
    }).pipe(Effect.scoped)
  )

  it.live("a corrupt checkpoint loses only itself; a corrupt index is rebuilt", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      const turns: ReadonlyArray<ScriptedModel.Turn> = [
        tool("write", { filePath: "one.txt", content: "1\n" }),
        say("1"),
        tool("write", { filePath: "two.txt", content: "2\n" }),
        say("2"),
        tool("edit", { filePath: "a.txt", oldString: "beta", newString: "BETA" }),
        say("3")
      ]
      const sessionID = yield* withLoop(
        fx,
        turns,
        Effect.gen(function* () {
          const { prompts } = yield* services
          const session = yield* prompts.create({ directory: fx.root })
          for (const text of ["first", "second", "third"]) yield* prompts.prompt(session.id, text)
          return session.id
        }),
        { file: true }
      )
      const dir = NodePath.join(fx.data, "session", sessionID, "checkpoint")
      yield* Effect.promise(() => NodeFs.writeFile(NodePath.join(dir, "2.json"), "{ not json"))
      yield* Effect.promise(() => NodeFs.writeFile(NodePath.join(dir, "index.json"), '{"version": 7}'))
      yield* withLoop(
        fx,
        [],
        Effect.gen(function* () {
          const { checkpoints } = yield* services
          assert.deepStrictEqual(
            (yield* checkpoints.list(sessionID)).map((info) => [info.turn, info.label]),
            [
              [1, "first"],
              [3, "third"]
            ]
          )
          const result = yield* checkpoints.rewind(sessionID, 1, "code")
          assert.deepStrictEqual(result.lost, [2])
          const now = yield* tree(fx.root)
          assert.isUndefined(now["one.txt"]) // turn 1's change undone
          assert.strictEqual(now["a.txt"], PROJECT_FILES["a.txt"]) // turn 3's change undone
          assert.strictEqual(now["two.txt"], "2\n") // turn 2's record was lost: its file stays
        }),
        { file: true }
      )
      const index = JSON.parse(
        yield* Effect.promise(() => NodeFs.readFile(NodePath.join(dir, "index.json"), "utf8"))
      )
      assert.deepStrictEqual(
        index.checkpoints.map((info: Checkpoint.Info) => info.turn),
        [1, 3]
      )
    }).pipe(Effect.scoped)
  )

  it.live(
    "a user message that cannot be read back shifts no turn: rewinds address turns by their user message",
    () =>
      Effect.gen(function* () {
        const fx = yield* fixture
        const turns: ReadonlyArray<ScriptedModel.Turn> = [
          tool("write", { filePath: "one.txt", content: "1\n" }),
          say("1"),
          tool("write", { filePath: "two.txt", content: "2\n" }),
          say("2"),
          tool("write", { filePath: "three.txt", content: "3\n" }),
          say("3"),
          tool("write", { filePath: "four.txt", content: "4\n" }),
          say("4")
        ]
        const { sessionID, users } = yield* withLoop(
          fx,
          turns.slice(0, 6),
          Effect.gen(function* () {
            const { prompts, store } = yield* services
            const session = yield* prompts.create({ directory: fx.root })
            for (const text of ["first", "second", "third"]) yield* prompts.prompt(session.id, text)
            const messages = yield* store.messages(session.id)
            return {
              sessionID: session.id,
              users: messages.filter((m) => m.info.role === "user").map((m) => m.info.id)
            }
          }),
          { file: true }
        )
        // The second prompt's record is corrupt: after a restart the conversation has two turns.
        yield* Effect.promise(() =>
          NodeFs.writeFile(NodePath.join(fx.data, "message", sessionID, `${users[1]}.json`), "{ not json")
        )
        yield* withLoop(
          fx,
          turns.slice(6),
          Effect.gen(function* () {
            const { checkpoints, store, prompts } = yield* services
            const list = yield* checkpoints.list(sessionID)
            assert.deepStrictEqual(
              list.map((info) => [info.turn, info.messageID]),
              [
                [1, users[0]],
                [2, users[1]],
                [3, users[2]]
              ]
            )
            // A new turn is numbered after every checkpoint: none is overwritten.
            yield* prompts.prompt(sessionID, "fourth")
            assert.deepStrictEqual(
              (yield* checkpoints.list(sessionID)).map((info) => [info.turn, info.label]),
              [
                [1, "first"],
                [2, "second"],
                [3, "third"],
                [4, "fourth"]
              ]
            )
            assert.strictEqual((yield* tree(fx.root))["four.txt"], "4\n")
            // Turn 3 by its number: its own files come back and its own messages go, nothing of turn 1.
            const byNumber = yield* checkpoints.rewind(sessionID, 3, "both")
            assert.strictEqual(byNumber.messageID, users[2])
            assert.strictEqual(byNumber.prompt, "third")
            const now = yield* tree(fx.root)
            assert.isUndefined(now["three.txt"])
            assert.isUndefined(now["four.txt"])
            assert.strictEqual(now["two.txt"], "2\n")
            assert.strictEqual(now["one.txt"], "1\n")
            assert.deepStrictEqual(userTexts(yield* store.messages(sessionID)), ["first"])
            // Turn 1 by its user message's id.
            const byMessage = yield* checkpoints.rewind(sessionID, users[0]!, "both")
            assert.strictEqual(byMessage.turn, 1)
            assert.strictEqual(byMessage.prompt, "first")
            const after = yield* tree(fx.root)
            assert.isUndefined(after["one.txt"])
            assert.isUndefined(after["two.txt"])
            assert.deepStrictEqual(yield* store.messages(sessionID), [])
            const missing = yield* checkpoints.rewind(sessionID, "msg_nope", "code").pipe(Effect.flip)
            assert.strictEqual(missing._tag, "CheckpointTurnNotFoundError")
            assert.include(missing.message, "msg_nope")
          }),
          { file: true }
        )
      }).pipe(Effect.scoped)
  )

  it.live("fork: a new session with the conversation before the turn; the original is untouched", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      yield* withLoop(
        fx,
        TWO_TURNS,
        Effect.gen(function* () {
          const { checkpoints, store } = yield* services
          const { sessionID, t2 } = yield* twoTurns(fx)
          const original = yield* store.messages(sessionID)
          const originalList = yield* checkpoints.list(sessionID)
          const { session, prompt } = yield* checkpoints.fork(sessionID, 2)
          assert.strictEqual(prompt, "Add delta")
          assert.notStrictEqual(session.id, sessionID)
          const forked = yield* store.messages(session.id)
          const firstTurn = original.slice(
            0,
            original.findIndex((m, i) => i > 0 && m.info.role === "user")
          )
          assert.strictEqual(forked.length, firstTurn.length)
          assert.deepStrictEqual(userTexts(forked), ["Rename alpha\nand tidy up"])
          assert.deepStrictEqual(
            forked.map((message) => message.parts.map((part) => part.type)),
            firstTurn.map((message) => message.parts.map((part) => part.type))
          )
          for (const message of forked) {
            assert.strictEqual(message.info.sessionID, session.id)
            assert.isFalse(original.some((m) => m.info.id === message.info.id))
            if (message.info.role === "assistant")
              assert.isTrue(forked.some((m) => m.info.id === (message.info as Message.Assistant).parentID))
          }
          assert.deepStrictEqual(yield* store.messages(sessionID), original)
          assert.deepStrictEqual(yield* checkpoints.list(sessionID), originalList)
          assert.deepStrictEqual(
            (yield* checkpoints.list(session.id)).map((info) => [info.turn, info.label]),
            [[1, "Rename alpha"]]
          )
          assert.deepStrictEqual(yield* tree(fx.root), t2) // a fork changes no files
          const missing = yield* checkpoints.fork(sessionID, 3).pipe(Effect.flip)
          assert.strictEqual(missing._tag, "CheckpointTurnNotFoundError")
        })
      )
    }).pipe(Effect.scoped)
  )

  it.live("checkpoints are removed with their session", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      yield* withLoop(
        fx,
        TWO_TURNS,
        Effect.gen(function* () {
          const { checkpoints, store } = yield* services
          const { sessionID } = yield* twoTurns(fx)
          const dir = NodePath.join(fx.data, "session", sessionID)
          assert.isTrue(
            yield* Effect.promise(() =>
              NodeFs.stat(dir).then(
                () => true,
                () => false
              )
            )
          )
          yield* store.removeSession(sessionID)
          assert.isFalse(
            yield* Effect.promise(() =>
              NodeFs.stat(dir).then(
                () => true,
                () => false
              )
            )
          )
          const error = yield* checkpoints.list(sessionID).pipe(Effect.flip)
          assert.strictEqual(error._tag, "SessionNotFoundError")
        }),
        { file: true }
      )
    }).pipe(Effect.scoped)
  )

  it.live("a path that leads elsewhere at restore time is skipped, never written", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      yield* withLoop(
        fx,
        [tool("edit", { filePath: "keep/k.txt", oldString: "kilo", newString: "KILO" }), say("ok")],
        Effect.gen(function* () {
          const { checkpoints, prompts } = yield* services
          const session = yield* prompts.create({ directory: fx.root })
          yield* prompts.prompt(session.id, "shout")
          // Something (a shell command, say) swaps keep/ for a symlink out of the project.
          const outside = NodePath.join(fx.base, "outside")
          yield* Effect.promise(async () => {
            await NodeFs.mkdir(outside)
            await NodeFs.writeFile(NodePath.join(outside, "k.txt"), "precious\n")
            await NodeFs.rm(NodePath.join(fx.root, "keep"), { recursive: true })
            await NodeFs.symlink(outside, NodePath.join(fx.root, "keep"))
          })
          const result = yield* checkpoints.rewind(session.id, 1, "code")
          assert.deepStrictEqual(result.files, [])
          assert.strictEqual(result.skipped[0]?.path, "keep/k.txt")
          assert.include(result.skipped[0]?.reason, "symlink")
          assert.strictEqual(
            yield* Effect.promise(() => NodeFs.readFile(NodePath.join(outside, "k.txt"), "utf8")),
            "precious\n"
          )
        })
      )
    }).pipe(Effect.scoped)
  )

  it.live("while a turn runs, rewind and fork fail with CheckpointBusyError; afterwards they work", () =>
    Effect.gen(function* () {
      const fx = yield* fixture
      yield* withLoop(
        fx,
        [tool("write", { filePath: "x.txt", content: "x\n" }), say("ok")],
        Effect.gen(function* () {
          const { checkpoints, prompts } = yield* services
          const permission = yield* Permission.Service
          const bus = yield* Bus.Service
          const asked = yield* bus.subscribe(Permission.Event.Asked)
          const session = yield* prompts.create({ directory: fx.root })
          const turn = yield* Effect.forkChild(prompts.prompt(session.id, "write x"))
          // The write waits on its edit ask: the turn is running.
          const request = yield* asked.pipe(Stream.runHead)
          const rewind = yield* checkpoints.rewind(session.id, 1, "both").pipe(Effect.flip)
          assert.strictEqual(rewind._tag, "CheckpointBusyError")
          const fork = yield* checkpoints.fork(session.id, 1).pipe(Effect.flip)
          assert.strictEqual(fork._tag, "CheckpointBusyError")
          if (request._tag === "Some")
            yield* permission.reply({ requestID: request.value.properties.id, reply: "once" })
          const exit = yield* Fiber.await(turn)
          assert.isTrue(Exit.isSuccess(exit))
          const done = yield* checkpoints.rewind(session.id, 1, "both")
          assert.deepStrictEqual(done.files, [{ path: "x.txt", action: "deleted" }])
        }),
        { ruleset: [...ALLOW, { permission: "edit", pattern: "*", action: "ask" }] }
      )
    }).pipe(Effect.scoped)
  )
})
