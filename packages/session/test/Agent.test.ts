// Agent.layer: the whole stack from one value, on real processes and files; and each piece
// replaced: the rules, the permission stack, the session store, truncation, the tools, the
// platform.

import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Agent from "@gatehousejs/session/Agent"
import type * as Message from "@gatehousejs/session/Message"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

const temp = (name: string) =>
  NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), `gatehouse-agent-${name}-`)))

type Call = { readonly name: string; readonly params: Record<string, unknown> }
const script = (...calls: ReadonlyArray<Call>): ScriptedModel.Script => ({
  turns: [
    ...calls.map((call) => ({
      parts: [{ type: "tool-call" as const, name: call.name, params: call.params }]
    })),
    { parts: [{ type: "text" as const, text: "Done." }] }
  ]
})
const bash = (command: string): Call => ({ name: "bash", params: { command } })

/** Runs one turn in `directory` on `layer` and returns its tool parts, in order. */
const turn = <E>(directory: string, layer: Layer.Layer<Agent.Services, E>) =>
  Effect.gen(function* () {
    const sessions = yield* SessionPrompt.Service
    const session = yield* sessions.create({ directory })
    yield* sessions.prompt(session.id, "go")
    const messages = yield* (yield* SessionStore.Service).messages(session.id)
    return {
      session,
      tools: messages.flatMap((m) => m.parts).filter((p): p is Message.ToolPart => p.type === "tool")
    }
  }).pipe(Effect.provide(layer))

const output = (part: Message.ToolPart | undefined) =>
  part?.state.status === "completed"
    ? part.state.output
    : `(${part?.state.status}: ${part?.state.status === "error" ? part.state.error : ""})`

const headless = { interactive: false } as const

describe("Agent.layer", () => {
  it.live(
    "with only a model: the default tools under the built-in rules (ls, read and a write run; rm -rf and a git hook are refused)",
    () =>
      Effect.gen(function* () {
        const dir = temp("defaults")
        NodeFs.writeFileSync(NodePath.join(dir, "notes.txt"), "a note\n")
        const model = ScriptedModel.layer(
          script(
            bash("ls"),
            { name: "read", params: { filePath: "notes.txt" } },
            { name: "write", params: { filePath: "made.txt", content: "x\n" } },
            bash("rm -rf notes.txt")
          )
        )
        const { tools } = yield* turn(dir, Agent.layer({ model, permission: headless }))
        assert.deepStrictEqual(
          tools.map((t) => t.tool),
          ["bash", "read", "write", "bash"]
        )
        assert.strictEqual(output(tools[0]), "notes.txt\n")
        assert.include(output(tools[1]), "a note")
        // An edit in the project is allowed.
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(dir, "made.txt"), "utf8"), "x\n")
        assert.include(output(tools[3]), "needs approval")
        assert.isTrue(NodeFs.existsSync(NodePath.join(dir, "notes.txt")))
        // One of git's own files asks (refused here): its hooks and config decide what git runs.
        const hook = { name: "write", params: { filePath: ".git/hooks/pre-commit", content: "rm -rf ~\n" } }
        const refused = yield* turn(
          dir,
          Agent.layer({ model: ScriptedModel.layer(script(hook)), permission: headless })
        )
        assert.include(output(refused.tools[0]), "needs a person's approval")
        assert.isFalse(NodeFs.existsSync(NodePath.join(dir, ".git", "hooks", "pre-commit")))
      })
  )

  it.live(
    "rules of yours come after the defaults and win where they match; a whole ruleset replaces both",
    () =>
      Effect.gen(function* () {
        const dir = temp("rules")
        NodeFs.mkdirSync(NodePath.join(dir, "build"))
        const model = () => ScriptedModel.layer(script(bash("rm -rf build"), bash("ls")))
        const allowed = yield* turn(
          dir,
          Agent.layer({
            model: model(),
            permission: headless,
            rules: Permission.fromConfig({ bash: { "rm *": "allow" } })
          })
        )
        assert.strictEqual(output(allowed.tools[0]), "(no output)")
        assert.isFalse(NodeFs.existsSync(NodePath.join(dir, "build")))
        const replaced = yield* turn(
          dir,
          Agent.layer({
            model: model(),
            permission: headless,
            ruleset: Permission.fromConfig({ "*": "allow", bash: { "*": "allow", "ls *": "deny" } })
          })
        )
        assert.strictEqual(output(replaced.tools[0]), "(no output)")
        assert.include(output(replaced.tools[1]), "Denied by rule bash")
      })
  )

  it.live("a permission stack of your own replaces the stack's (here: yolo approves the rm)", () =>
    Effect.gen(function* () {
      const dir = temp("permission")
      NodeFs.mkdirSync(NodePath.join(dir, "doomed"))
      const { tools } = yield* turn(
        dir,
        Agent.layer({
          model: ScriptedModel.layer(script(bash("rm -rf doomed"))),
          layers: { permission: Permission.layerMemoryWith({ mode: "yolo" }) }
        })
      )
      assert.strictEqual(output(tools[0]), "(no output)")
      assert.isFalse(NodeFs.existsSync(NodePath.join(dir, "doomed")))
    })
  )

  it.live("sessions and approvals kept in files under a directory, found again by a new stack", () =>
    Effect.gen(function* () {
      const dir = temp("files")
      const store = temp("store")
      const approvals = temp("approvals")
      // `nproc` is no command the gate knows: it asks, and "always" remembers `nproc *`.
      const first = yield* Effect.gen(function* () {
        const permission = yield* Permission.Service
        const sessions = yield* SessionPrompt.Service
        const session = yield* sessions.create({ directory: dir })
        const running = yield* Effect.forkChild(sessions.prompt(session.id, "go"))
        const [ask] = yield* Effect.repeat(permission.list(), {
          until: (pending) => pending.length > 0
        }).pipe(Instance.provide(dir))
        yield* permission.reply({ requestID: ask!.id, reply: "always" }).pipe(Instance.provide(dir))
        yield* Fiber.join(running)
        return session
      }).pipe(
        Effect.provide(
          Agent.layer({
            model: ScriptedModel.layer(script(bash("nproc"))),
            sessions: { directory: store },
            approvals: { directory: approvals }
          })
        )
      )
      const remembered = NodeFs.readdirSync(approvals).filter((name) => name.endsWith(".json"))
      assert.lengthOf(remembered, 1)
      assert.include(NodeFs.readFileSync(NodePath.join(approvals, remembered[0]!), "utf8"), "nproc *")
      // A new stack on the same directories: the session is there, and the approval holds
      // with nobody to ask.
      const again = yield* Effect.gen(function* () {
        const store_ = yield* SessionStore.Service
        const listed = yield* store_.listSessions()
        yield* (yield* SessionPrompt.Service).prompt(first.id, "again")
        const messages = yield* store_.messages(first.id)
        return { listed, messages }
      }).pipe(
        Effect.provide(
          Agent.layer({
            model: ScriptedModel.layer(script(bash("nproc --all"))),
            sessions: { directory: store },
            approvals: { directory: approvals },
            permission: headless
          })
        )
      )
      assert.deepStrictEqual(
        again.listed.map((s) => s.id),
        [first.id]
      )
      const ran = again.messages
        .flatMap((m) => m.parts)
        .filter((p): p is Message.ToolPart => p.type === "tool")
      assert.lengthOf(ran, 2)
      assert.match(output(ran[1]), /^\d+\n$/)
    })
  )

  it.live("a session store and a truncation of your own replace the stack's", () =>
    Effect.gen(function* () {
      const dir = temp("pieces")
      const spill = temp("spill")
      const store = temp("own-store")
      const { tools } = yield* turn(
        dir,
        Agent.layer({
          model: ScriptedModel.layer(script(bash("seq 1 50"))),
          permission: headless,
          layers: {
            sessions: SessionStore.layerFile(store),
            truncate: Truncate.layerWith({ directory: spill, maxLines: 5 })
          }
        })
      )
      const part = tools[0]!
      assert.strictEqual(part.state.status, "completed")
      const metadata =
        part.state.status === "completed" ? (part.state.metadata as { outputPath?: string }) : {}
      assert.isTrue(metadata.outputPath?.startsWith(spill), JSON.stringify(metadata))
      assert.isAbove(NodeFs.readdirSync(store).length, 0)
    })
  )

  it.live(
    "the bash tool alone, and a model that needs the platform's services gets them from a platform of your own",
    () =>
      Effect.gen(function* () {
        const dir = temp("platform")
        // A model read from a script file, through whatever FileSystem the platform gives.
        const model = Layer.effect(
          LanguageModel.LanguageModel,
          Effect.gen(function* () {
            const fs = yield* FileSystem.FileSystem
            const text = yield* fs.readFileString("/nowhere/script.json")
            const decoded = yield* ScriptedModel.decode(JSON.parse(text))
            return (yield* ScriptedModel.make(decoded)).model
          })
        ).pipe(Layer.orDie)
        const platform = Layer.merge(
          NodeServices.layer,
          FileSystem.layerNoop({
            readFileString: () => Effect.succeed(JSON.stringify(script(bash("echo from the platform"))))
          })
        )
        const { tools } = yield* turn(
          dir,
          Agent.layer({ model, tools: Agent.bashOnly, permission: headless, layers: { platform } })
        )
        assert.strictEqual(output(tools[0]), "from the platform\n")
        assert.deepStrictEqual(Object.keys(Agent.bashOnly.toolkit.tools), ["bash"])
      })
  )

  it.live("an ask's trace names the default that asked, and a rule of yours by its place", () =>
    Effect.gen(function* () {
      const dir = temp("trace")
      const sources = yield* Effect.gen(function* () {
        const permission = yield* Permission.Service
        const bus = yield* Bus.Service
        const asked = yield* bus.subscribe(Permission.Event.Asked)
        const seen: Array<ReadonlyArray<string>> = []
        yield* asked.pipe(
          Stream.runForEach((event) => {
            const rules = (event.properties.metadata.rules ?? []) as ReadonlyArray<{
              readonly source: string
            }>
            seen.push(rules.map((rule) => rule.source))
            return permission.reply({ requestID: event.properties.id, reply: "once" })
          }),
          Effect.forkScoped
        )
        const sessions = yield* SessionPrompt.Service
        const session = yield* sessions.create({ directory: dir })
        yield* sessions.prompt(session.id, "go")
        return seen
      }).pipe(
        Effect.scoped,
        Instance.provide(dir),
        Effect.provide(
          Agent.layer({
            model: ScriptedModel.layer(script(bash("nproc"), bash("ls"))),
            rules: Permission.fromConfig({ bash: { "ls *": "ask" } })
          })
        )
      )
      assert.deepStrictEqual(sources, [["default: a command asks unless it is harmless"], ["rules[0]"]])
    })
  )
})
