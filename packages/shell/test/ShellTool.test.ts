import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as AskMetadata from "@gatehousejs/permission/AskMetadata"
import * as Defaults from "@gatehousejs/permission/Defaults"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Tool from "effect/ai/Tool"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { liveMembers } from "../src/internal/processGroup.ts"
import * as Sandbox from "../src/Sandbox.ts"
import * as ShellContext from "../src/ShellContext.ts"
import * as ShellParser from "../src/ShellParser.ts"
import * as ShellProcess from "../src/ShellProcess.ts"
import * as ShellTool from "../src/ShellTool.ts"

const root = realpathSync(mkdtempSync(NodePath.join(tmpdir(), "gatehouse-tool-")))
const project = NodePath.join(root, "project")
const outside = NodePath.join(root, "outside")
const spill = NodePath.join(root, "spill")
mkdirSync(project)
mkdirSync(outside)

const allowAll: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

const context = (overrides: Partial<ShellContext.Shape> = {}): ShellContext.Shape => ({
  sessionID: "ses_test",
  ruleset: allowAll,
  projectRoot: project,
  mode: "ask",
  ...overrides
})

const live = (options: Permission.Options = {}) =>
  ShellTool.layer.pipe(
    Layer.provideMerge(Permission.layerMemoryWith(options)),
    Layer.provideMerge(Truncate.layerWith({ directory: spill })),
    Layer.provideMerge(ShellParser.layer)
  )

const inProject =
  (overrides: Partial<ShellContext.Shape> = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.provideService(ShellContext.Service, context(overrides)), Instance.provide(project))

/** Waits until `count` asks are pending and returns them. */
const pendingAsks = (count = 1) =>
  Effect.gen(function* () {
    const permission = yield* Permission.Service
    while (true) {
      const list = yield* permission.list()
      if (list.length >= count) return list
      yield* Effect.sleep(5)
    }
  }).pipe(Instance.provide(project))

const marker = (name: string) => NodePath.join(project, name)

// Everything asks except writes inside the project (`touch` is also an `edit`).
const askBash: Permission.Ruleset = [{ permission: "edit", pattern: "*", action: "allow" }]

describe("ShellTool.run", () => {
  it.live("runs a command and returns its output, exit code and title", () =>
    Effect.gen(function* () {
      const result = yield* ShellTool.run({ command: "echo test" }).pipe(inProject())
      assert.deepStrictEqual(result, {
        output: "test\n",
        exitCode: 0,
        timedOut: false,
        interrupted: false,
        truncated: false,
        title: "echo test",
        sandboxed: Sandbox.detect().kind !== undefined,
        containment: Sandbox.detect().kind !== undefined ? "sandbox" : result.containment!
      })
      const empty = yield* ShellTool.run({ command: "true" }).pipe(inProject())
      assert.strictEqual(empty.output, "(no output)")
    }).pipe(Effect.provide(live()))
  )

  it.live("tells the model when processes the command started had to be stopped after it ended", () =>
    Effect.gen(function* () {
      // Unsandboxed: the escape is found by the run's tag (the sandbox's PID namespace ends it anyway).
      const result = yield* ShellTool.run({
        command: "setsid sleep 30 >/dev/null 2>&1 </dev/null & echo started"
      }).pipe(inProject({ sandbox: { mode: "off" } }))
      assert.match(result.output, /^started\n/)
      assert.match(
        result.output,
        /1 process the command started was still running after it ended and was stopped \(1 had left its process group\)/
      )
    }).pipe(Effect.provide(live()))
  )

  it.live("says what held the command's processes, and tells the model when nothing could", () =>
    Effect.gen(function* () {
      const held = yield* ShellTool.run({ command: "true" }).pipe(inProject({ sandbox: { mode: "off" } }))
      assert.oneOf(held.containment, ["cgroup", "pid-namespace", "none"])
      assert.notInclude(held.output, "Nothing held")
      // No cgroup can be made and no bubblewrap is found: the result says so, and why.
      const bare = yield* ShellTool.run({ command: "echo hi" }).pipe(
        inProject({ sandbox: { mode: "off" } }),
        Effect.provideService(ShellProcess.CgroupParent, "/nonexistent/gatehouse"),
        Effect.provideService(Sandbox.Locations, [])
      )
      assert.strictEqual(bare.containment, "none")
      assert.strictEqual(
        bare.output,
        "hi\n\n<command_status>\nNothing held this command's processes (no cgroup can be made in /nonexistent/gatehouse (ENOENT), and no bubblewrap that can make a PID namespace): one it started that cleared its environment and left its process group (env -i setsid …) could not be found, and may still be running.\n</command_status>"
      )
    }).pipe(Effect.provide(live()))
  )

  it.live("tells the model a non-zero exit code, and a death by signal", () =>
    Effect.gen(function* () {
      const failed = yield* ShellTool.run({ command: "echo out; echo err >&2; exit 3" }).pipe(inProject())
      assert.strictEqual(failed.exitCode, 3)
      assert.strictEqual(failed.output, "out\nerr\n\n<command_status>\nExit code: 3\n</command_status>")
      // Unsandboxed: bubblewrap reports a child's death by signal N as exit code 128+N.
      const killed = yield* ShellTool.run({ command: "kill -KILL $$" }).pipe(
        inProject({ sandbox: { mode: "off" } })
      )
      assert.strictEqual(killed.exitCode, null)
      assert.strictEqual(killed.signal, "SIGKILL")
      assert.include(killed.output, "(no output)")
      assert.include(killed.output, "Terminated by signal SIGKILL")
    }).pipe(Effect.provide(live()))
  )

  it.live("runs in the project directory, or in workdir resolved from it", () =>
    Effect.gen(function* () {
      mkdirSync(marker("sub"), { recursive: true })
      const here = yield* ShellTool.run({ command: "pwd" }).pipe(inProject())
      assert.strictEqual(here.output, `${project}\n`)
      const sub = yield* ShellTool.run({ command: "pwd", workdir: "sub" }).pipe(inProject())
      assert.strictEqual(sub.output, `${marker("sub")}\n`)
      const missing = yield* Effect.flip(ShellTool.run({ command: "pwd", workdir: "nope" }).pipe(inProject()))
      assert.strictEqual(missing._tag, "ShellSpawnError")
    }).pipe(Effect.provide(live()))
  )

  it.live("on timeout stops the command, keeps the output so far and says so", () =>
    Effect.gen(function* () {
      const result = yield* ShellTool.run({ command: "echo started; sleep 30", timeout: 300 }).pipe(
        inProject()
      )
      assert.isTrue(result.timedOut)
      assert.strictEqual(result.exitCode, null)
      assert.isTrue(result.output.startsWith("started\n"))
      assert.include(result.output, "timed out after 300 ms")
      assert.include(result.output, "larger timeout")
    }).pipe(Effect.provide(live()))
  )

  it.live("caps a requested timeout at the context's maximum", () =>
    Effect.gen(function* () {
      const start = Date.now()
      const result = yield* ShellTool.run({ command: "sleep 30", timeout: 60_000 }).pipe(
        inProject({ maxTimeout: 200 })
      )
      assert.isTrue(result.timedOut)
      assert.isBelow(Date.now() - start, 2000)
      assert.include(result.output, "timed out after 200 ms")
    }).pipe(Effect.provide(live()))
  )

  it.live("an abort from the context stops the command and reports interrupted", () =>
    Effect.gen(function* () {
      const abort = yield* Deferred.make<void>()
      const result = yield* ShellTool.run(
        { command: "echo before; sleep 30" },
        {
          onProgress: (progress) =>
            progress.output.includes("before") ? Deferred.succeed(abort, undefined) : Effect.void
        }
      ).pipe(inProject({ abort: Deferred.await(abort) }))
      assert.isTrue(result.interrupted)
      assert.isTrue(result.output.startsWith("before\n"))
      assert.include(result.output, "The user interrupted the command")
    }).pipe(Effect.provide(live()))
  )

  it.live("interrupting the call kills the process group", () =>
    Effect.gen(function* () {
      const pid = yield* Deferred.make<number>()
      const fiber = yield* Effect.forkChild(
        ShellTool.run(
          { command: "echo $$; sleep 30" },
          {
            onProgress: (progress) =>
              progress.output.includes("\n")
                ? Deferred.succeed(pid, Number(progress.output.trim()))
                : Effect.void
          }
        ).pipe(inProject())
      )
      const shell = yield* Deferred.await(pid)
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.deepStrictEqual(liveMembers(shell), [])
    }).pipe(Effect.provide(live()))
  )

  it.live("decodes multi-byte characters split across chunks", () =>
    Effect.gen(function* () {
      const result = yield* ShellTool.run({
        command:
          "printf '\\xe2\\x82'; sleep 0.15; printf '\\xac \\xf0\\x9f\\x98'; sleep 0.15; printf '\\x80\\n'"
      }).pipe(inProject())
      assert.strictEqual(result.output, "€ 😀\n")
    }).pipe(Effect.provide(live()))
  )

  it.live("sends progress: the tail so far, throttled, never a broken character", () =>
    Effect.gen(function* () {
      const updates: Array<string> = []
      const start = Date.now()
      const result = yield* ShellTool.run(
        {
          command:
            "echo first; sleep 0.3; for i in $(seq 1 60); do printf 'é€😀%.0s' $(seq 1 3000); sleep 0.01; done; echo; echo second"
        },
        { onProgress: (progress) => Effect.sync(() => void updates.push(progress.output)) }
      ).pipe(inProject())
      assert.strictEqual(updates[0], "")
      assert.isTrue(updates.some((u) => u.includes("first") && !u.includes("second")))
      // At most ~10 updates a second (plus the initial empty one and a last one).
      assert.isAtMost(updates.length, Math.ceil((Date.now() - start) / ShellTool.PROGRESS_INTERVAL) + 2)
      assert.isAtLeast(updates.length, 3)
      for (const update of updates) {
        assert.isAtMost(update.length, ShellTool.PROGRESS_CHARS)
        assert.notInclude(update, "\uFFFD")
      }
      assert.isTrue(updates.some((u) => u.length > 20_000))
      assert.include(result.output, "second")
      assert.isTrue(result.truncated)
    }).pipe(Effect.provide(live()))
  )

  it.live("streams 200 MiB with bounded memory into a byte-identical spill file", () =>
    Effect.gen(function* () {
      const command = "yes 'gatehouse spill — 200 MiB of text, line after line' | head -c 209715200"
      const expected = execFileSync("sh", ["-c", `${command} | sha256sum`])
        .toString()
        .split(" ")[0]
      global.gc?.()
      const before = process.memoryUsage.rss()
      let peak = before
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss())
      }, 10)
      const result = yield* ShellTool.run({ command }).pipe(
        inProject(),
        Effect.ensuring(Effect.sync(() => clearInterval(sampler)))
      )
      assert.isBelow(peak - before, 100 * 1024 * 1024)
      assert.isTrue(result.truncated)
      assert.isDefined(result.outputPath)
      assert.include(result.output, result.outputPath!)
      assert.isBelow(Buffer.byteLength(result.output), 3 * Truncate.MAX_BYTES)
      const actual = yield* Effect.promise(
        () =>
          new Promise<string>((resolve, reject) => {
            const hash = createHash("sha256")
            createReadStream(result.outputPath!)
              .on("data", (chunk) => hash.update(chunk))
              .on("end", () => resolve(hash.digest("hex")))
              .on("error", reject)
          })
      )
      assert.strictEqual(actual, expected)
      rmSync(result.outputPath!)
    }).pipe(Effect.provide(live()))
  )
})

describe("ShellTool permissions", () => {
  it.live("a denied command never starts, and the error names the rule", () =>
    Effect.gen(function* () {
      const ruleset: Permission.Ruleset = [
        ...allowAll,
        { permission: "bash", pattern: "touch *", action: "deny" }
      ]
      const error = yield* Effect.flip(
        ShellTool.run({ command: "touch denied.txt" }).pipe(inProject({ ruleset }))
      )
      assert.strictEqual(error._tag, "PermissionDeniedError")
      assert.include(error.message, "touch *")
      assert.isFalse(existsSync(marker("denied.txt")))
    }).pipe(Effect.provide(live()))
  )

  it.live("a deny wins before anybody is asked about the rest of the call", () =>
    Effect.gen(function* () {
      const ruleset: Permission.Ruleset = [{ permission: "bash", pattern: "touch *", action: "deny" }]
      const error = yield* Effect.flip(
        ShellTool.run({ command: `touch denied2.txt; cat ${outside}/x` }).pipe(inProject({ ruleset }))
      )
      assert.strictEqual(error._tag, "PermissionDeniedError")
      const permission = yield* Permission.Service
      const pending = yield* permission.list().pipe(Instance.provide(project))
      assert.deepStrictEqual(pending, [])
      assert.isFalse(existsSync(marker("denied2.txt")))
    }).pipe(Effect.provide(live()))
  )

  it.live("a rejected ask never starts the process; the ask carries the call id", () =>
    Effect.gen(function* () {
      const permission = yield* Permission.Service
      const fiber = yield* Effect.forkChild(
        ShellTool.run({ command: "touch rejected.txt" }, { callID: "call_42" }).pipe(
          inProject({ ruleset: askBash, messageID: "msg_1" })
        )
      )
      const [request] = yield* pendingAsks()
      assert.strictEqual(request!.permission, "bash")
      assert.deepStrictEqual(request!.patterns, ["touch rejected.txt"])
      assert.deepStrictEqual(request!.tool, { callID: "call_42", name: "bash", messageID: "msg_1" })
      assert.strictEqual(request!.sessionID, "ses_test")
      yield* permission.reply({ requestID: request!.id, reply: "reject" }).pipe(Instance.provide(project))
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isFailure(exit))
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error._tag, "PermissionRejectedError")
      assert.isFalse(existsSync(marker("rejected.txt")))
    }).pipe(Effect.provide(live()))
  )

  it.live("a read rule holds for the shell: reading .env asks read before it runs", () =>
    Effect.gen(function* () {
      const permission = yield* Permission.Service
      const ruleset: Permission.Ruleset = [
        ...allowAll,
        { permission: "read", pattern: "*.env", action: "ask" }
      ]
      writeFileSync(NodePath.join(project, ".env"), "TOKEN=x\n")
      const fiber = yield* Effect.forkChild(
        ShellTool.run({ command: "cat .env; touch read-env.txt" }).pipe(inProject({ ruleset }))
      )
      const [request] = yield* pendingAsks()
      assert.strictEqual(request!.permission, "read")
      assert.deepStrictEqual(request!.patterns, [".env"])
      yield* permission.reply({ requestID: request!.id, reply: "reject" }).pipe(Instance.provide(project))
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error._tag, "PermissionRejectedError")
      assert.isFalse(existsSync(marker("read-env.txt")))
    }).pipe(Effect.provide(live()))
  )

  it.live("a rejection with feedback is a correction, and the process never starts", () =>
    Effect.gen(function* () {
      const permission = yield* Permission.Service
      const fiber = yield* Effect.forkChild(
        ShellTool.run({ command: "touch corrected.txt" }).pipe(inProject({ ruleset: askBash }))
      )
      const [request] = yield* pendingAsks()
      yield* permission
        .reply({ requestID: request!.id, reply: "reject", message: "use mkdir instead" })
        .pipe(Instance.provide(project))
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error._tag, "PermissionCorrectedError")
      assert.include(error.message, "use mkdir instead")
      assert.isFalse(existsSync(marker("corrected.txt")))
    }).pipe(Effect.provide(live()))
  )

  it.live("an approved ask runs the command", () =>
    Effect.gen(function* () {
      const permission = yield* Permission.Service
      const fiber = yield* Effect.forkChild(
        ShellTool.run({ command: "touch approved.txt" }).pipe(inProject({ ruleset: askBash }))
      )
      const [request] = yield* pendingAsks()
      assert.isFalse(existsSync(marker("approved.txt")))
      yield* permission.reply({ requestID: request!.id, reply: "once" }).pipe(Instance.provide(project))
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.exitCode, 0)
      assert.isTrue(existsSync(marker("approved.txt")))
    }).pipe(Effect.provide(live()))
  )

  it.live("headless: an ask fails closed and the process never starts", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ShellTool.run({ command: "touch headless.txt" }).pipe(inProject({ ruleset: [] }))
      )
      assert.strictEqual(error._tag, "PermissionRejectedError")
      assert.include(error.message, "not interactive")
      assert.include(error.message, "To allow it")
      assert.isFalse(existsSync(marker("headless.txt")))
      // A fork bomb defines a function the analysis cannot model: no rule could approve it, so none is suggested.
      const bomb = yield* Effect.flip(
        ShellTool.run({ command: ":(){ :|:& };:" }).pipe(
          inProject({ ruleset: [{ permission: "*", pattern: "*", action: "allow" }] })
        )
      )
      assert.strictEqual(bomb._tag, "PermissionRejectedError")
      assert.include(bomb.message, "could not model it")
      assert.notInclude(bomb.message, "To allow it")
    }).pipe(Effect.provide(live({ interactive: false })))
  )

  it.live("the default context asks for everything: with no approver the call fails closed", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ShellTool.run({ command: `touch ${marker("default.txt")}` }).pipe(Instance.provide(project))
      )
      assert.strictEqual(error._tag, "PermissionRejectedError")
      assert.isFalse(existsSync(marker("default.txt")))
      assert.deepStrictEqual(ShellContext.defaults(), { sessionID: "direct", ruleset: [] })
    }).pipe(Effect.provide(live({ interactive: false })))
  )

  it.live(
    "under the built-in defaults rm -rf needs a person (refused headless, nothing deleted); ls runs",
    () =>
      Effect.gen(function* () {
        const doomed = marker("doomed")
        mkdirSync(doomed)
        writeFileSync(NodePath.join(doomed, "keep.txt"), "kept\n")
        const defaults = inProject({ ruleset: Defaults.ruleset, sources: Defaults.sources })
        const error = yield* Effect.flip(ShellTool.run({ command: "rm -rf doomed" }).pipe(defaults))
        assert.strictEqual(error._tag, "PermissionRejectedError")
        assert.isTrue(existsSync(NodePath.join(doomed, "keep.txt")))
        const listed = yield* ShellTool.run({ command: "ls doomed" }).pipe(defaults)
        assert.strictEqual(listed.output, "keep.txt\n")
      }).pipe(Effect.provide(live({ interactive: false })))
  )

  it.live("the full output of a truncated command can be read even under external_directory deny", () =>
    Effect.gen(function* () {
      const ruleset = Permission.merge(
        Defaults.ruleset,
        Permission.fromConfig({ external_directory: "deny" })
      )
      const strict = inProject({ ruleset, sandbox: { mode: "off" } })
      const long = yield* ShellTool.run({ command: "seq 1 3000" }).pipe(strict)
      assert.isTrue(long.truncated)
      assert.isTrue(long.outputPath!.startsWith(spill))
      const counted = yield* ShellTool.run({ command: `wc -l < ${long.outputPath}` }).pipe(strict)
      assert.strictEqual(counted.output.trim(), "3000")
      // Writing there is still outside the project.
      const planted = NodePath.join(spill, "planted")
      const denied = yield* Effect.flip(ShellTool.run({ command: `echo x > ${planted}` }).pipe(strict))
      assert.strictEqual(denied._tag, "PermissionDeniedError")
      assert.isFalse(existsSync(planted))
    }).pipe(Effect.provide(live({ interactive: false })))
  )

  it.live("a workdir outside the project asks external_directory first", () =>
    Effect.gen(function* () {
      const permission = yield* Permission.Service
      const ruleset: Permission.Ruleset = [
        { permission: "bash", pattern: "*", action: "ask" },
        { permission: "external_directory", pattern: "*", action: "ask" }
      ]
      // The gate's own behaviour, without the sandbox (which keeps the project's writes inside it).
      const fiber = yield* Effect.forkChild(
        ShellTool.run({ command: "touch ext.txt", workdir: outside }).pipe(
          inProject({ ruleset, sandbox: { mode: "off" } })
        )
      )
      const [first] = yield* pendingAsks()
      assert.strictEqual(first!.permission, "external_directory")
      assert.include(first!.patterns, `${outside}/*`)
      yield* permission.reply({ requestID: first!.id, reply: "once" }).pipe(Instance.provide(project))
      const second = yield* Effect.gen(function* () {
        while (true) {
          const list = yield* permission.list()
          if (list.length > 0 && list[0]!.id !== first!.id) return list[0]!
          yield* Effect.sleep(5)
        }
      }).pipe(Instance.provide(project))
      assert.strictEqual(second.permission, "bash")
      assert.isFalse(existsSync(NodePath.join(outside, "ext.txt")))
      yield* permission.reply({ requestID: second.id, reply: "once" }).pipe(Instance.provide(project))
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.exitCode, 0)
      assert.isTrue(existsSync(NodePath.join(outside, "ext.txt")))
    }).pipe(Effect.provide(live()))
  )

  it.live("a refused shell fails before anything is asked or run", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ShellTool.run({ command: "touch fish.txt" }).pipe(inProject({ shell: "fish", ruleset: [] }))
      )
      assert.strictEqual(error._tag, "ShellUnsupportedError")
      assert.isFalse(existsSync(marker("fish.txt")))
    }).pipe(Effect.provide(live({ interactive: false })))
  )
})

describe("ShellTool as an effect/ai tool", () => {
  it.effect(
    "is named bash, with params { command, timeout?, workdir?, unsandboxed? } and a truthful description",
    () =>
      Effect.sync(() => {
        assert.strictEqual(ShellTool.tool.name, "bash")
        const schema = Tool.getJsonSchema(ShellTool.tool) as {
          properties: Record<string, { type?: string; exclusiveMinimum?: number }>
          required: Array<string>
        }
        assert.deepStrictEqual(Object.keys(schema.properties).sort(), [
          "command",
          "timeout",
          "unsandboxed",
          "workdir"
        ])
        assert.deepStrictEqual(schema.required, ["command"])
        assert.strictEqual(schema.properties.timeout!.type, "integer")
        assert.strictEqual(schema.properties.timeout!.exclusiveMinimum, 0)
        const text = ShellTool.tool.description ?? ""
        assert.include(text, "non-interactive")
        assert.include(text, "saved to a file")
        assert.notInclude(text, "persistent")
        assert.isTrue(
          Exit.isFailure(Schema.decodeUnknownExit(ShellTool.Parameters)({ command: "x", timeout: 0 }))
        )
        assert.isTrue(
          Exit.isFailure(Schema.decodeUnknownExit(ShellTool.Parameters)({ command: "x", timeout: 1.5 }))
        )
      })
  )

  it.live("its handler streams preliminary results, then the final result", () =>
    Effect.gen(function* () {
      const handlers = yield* ShellTool.toolkit
      const stream = yield* handlers.handle("bash", { command: "echo one; sleep 0.3; echo two" }, "call_7")
      const results = yield* Stream.runCollect(stream)
      const final = results[results.length - 1]!
      assert.isFalse(final.preliminary)
      assert.isFalse(final.isFailure)
      assert.strictEqual((final.result as ShellTool.Result).output, "one\ntwo\n")
      const preliminary = results
        .filter((r) => r.preliminary)
        .map((r) => (r.result as ShellTool.Result).output)
      assert.isTrue(preliminary.includes("one\n"))
    }).pipe(inProject(), Effect.provide(ShellTool.handlers.pipe(Layer.provideMerge(live()))))
  )

  it.live("returns a denial to the model as a failure result with its tag and message", () =>
    Effect.gen(function* () {
      const handlers = yield* ShellTool.toolkit
      const stream = yield* handlers.handle("bash", { command: "touch tool-denied.txt" }, "call_8")
      const results = yield* Stream.runCollect(stream)
      const final = results[results.length - 1]!
      assert.isTrue(final.isFailure)
      const failure = final.result as ShellTool.Failure
      assert.strictEqual(failure._tag, "PermissionDeniedError")
      assert.include(failure.message, "touch *")
      assert.isFalse(existsSync(marker("tool-denied.txt")))
    }).pipe(
      inProject({ ruleset: [{ permission: "bash", pattern: "touch *", action: "deny" }] }),
      Effect.provide(ShellTool.handlers.pipe(Layer.provideMerge(live())))
    )
  )
})

process.on("exit", () => rmSync(root, { recursive: true, force: true }))

describe("ShellTool asks a person with typed metadata", () => {
  it.live(
    "a piped download into sh: notes per sub-command, cwd, rules; 'always' remembers only that text",
    () =>
      Effect.gen(function* () {
        const permission = yield* Permission.Service
        // Every command is allowed, so only the escalation asks; the pipeline must not reach the network.
        const pipe = "echo 'echo piped' | sh"
        const first = yield* Effect.forkChild(ShellTool.run({ command: pipe }).pipe(inProject()))
        const [request] = yield* pendingAsks()
        const typed = yield* AskMetadata.decode(request!)
        assert.strictEqual(typed.permission, "bash")
        if (typed.permission !== "bash") return
        assert.strictEqual(typed.metadata.command, pipe)
        assert.strictEqual(typed.metadata.cwd, project)
        assert.isTrue(typed.metadata.escalated)
        assert.isTrue(
          typed.metadata.notes.some((note) => note.kind === "unmodelled" && note.command === "sh")
        )
        assert.deepStrictEqual(
          typed.metadata.rules.map((d) => [d.pattern, d.action, d.source]),
          [
            ["echo echo piped", "allow", "rule 1"],
            ["sh", "allow", "rule 1"]
          ]
        )
        assert.deepStrictEqual(request!.always, [])
        assert.deepStrictEqual(request!.alwaysExact, [pipe])
        yield* permission.reply({ requestID: request!.id, reply: "always" }).pipe(Instance.provide(project))
        assert.include((yield* Fiber.join(first)).output, "piped")
        // The same text runs without a person now; `sh` on its own in another pipeline still asks.
        assert.include((yield* ShellTool.run({ command: pipe }).pipe(inProject())).output, "piped")
        const other = yield* Effect.forkChild(
          ShellTool.run({ command: "echo 'echo other' | sh" }).pipe(inProject())
        )
        const [again] = yield* pendingAsks()
        assert.strictEqual(again!.subject, "echo 'echo other' | sh")
        yield* permission.reply({ requestID: again!.id, reply: "reject" }).pipe(Instance.provide(project))
        assert.strictEqual((yield* Effect.flip(Fiber.join(other)))._tag, "PermissionRejectedError")
      }).pipe(Effect.provide(live()))
  )
})
