// `gatehouse demo`: a scripted agent session in a fresh temporary workspace, rendered in the
// terminal as it happens (streamed text, tool states, output previews, permission asks).
import * as NodeFsSync from "node:fs"
import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import * as DefaultTools from "@gatehousejs/session/DefaultTools"
import type * as Message from "@gatehousejs/session/Message"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Sandbox from "@gatehousejs/shell/Sandbox"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AskPrompt from "../AskPrompt.ts"
import * as CommandFlags from "../CommandFlags.ts"
import * as Config from "../Config.ts"
import * as TerminalText from "../TerminalText.ts"

const usage = `usage: gatehouse demo [--yes] [--script FILE] [--sandbox auto|enforce|off] [--keep]

Plays a scripted agent session in a fresh temporary workspace (never your files): the model
lists and reads files, asks to run a command that needs your approval, tries one the
configuration denies, reads output long enough to be truncated and saved to a file, repeats
a call into a doom loop, and answers. Then, asked for a friendlier greeting, it edits a file
(with your approval), and the demo rewinds that turn: the file and the conversation go back
to how they were, from the turn's checkpoint.

  --yes          answer "once" to every permission ask (unattended runs)
  --script FILE  play another script (JSON: { "turns": [ { "parts": [...] } ] })
  --sandbox MODE the kernel sandbox of the commands: auto (default), enforce or off
  --keep         keep the workspace afterwards (it is removed by default)

Without a terminal and without --yes, permission asks fail closed: they are rejected.
Ctrl-C stops the session: running commands are stopped and the workspace is removed.`

const PROMPT =
  "Show me around this project: what is in it, do its checks pass, and what does the test log say?"

const CONFIG = {
  permission: {
    read: "allow",
    edit: { "*": "ask" },
    bash: { "*": "ask", "ls *": "allow", "cat *": "allow", "rm *": "deny" },
    doom_loop: "ask"
  }
}

const checkScript = `#!/bin/sh
echo "checking src/greet.ts ... ok"
echo "checking src/math.ts ... ok"
echo "2 files checked, 0 problems"
`

// What the gate cannot see: the command is \`sh scripts/cache.sh\`, the write outside the
// project is inside the script. The sandbox refuses it; without one it lands in the demo's
// own temporary folder, beside the project, which is removed with it.
const cacheScript = `#!/bin/sh
echo "warming the build cache in ../build-cache"
mkdir -p ../build-cache && echo warm > ../build-cache/stamp && echo "cache warm"
`

/**
 * Lays out the demo project in `<data>/gatehouse/demo-XXXXXX/project` and returns its
 * directory; the folder around it (removed afterwards) is what lies "outside the project".
 */
const makeWorkspace = async (): Promise<string> => {
  // Not under /tmp: the sandbox gives commands a /tmp of their own, so the folder around a
  // project there would not be "outside" for them.
  const xdg = process.env.XDG_DATA_HOME ?? ""
  const data = NodePath.join(
    NodePath.isAbsolute(xdg) ? xdg : NodePath.join(NodeOs.homedir(), ".local", "share"),
    "gatehouse"
  )
  await NodeFs.mkdir(data, { recursive: true, mode: 0o700 })
  const folder = await NodeFs.realpath(await NodeFs.mkdtemp(NodePath.join(data, "demo-")))
  const root = NodePath.join(folder, "project")
  const files: Record<string, string> = {
    "README.md":
      "# tour-demo\n\nA tiny TypeScript project the Gatehouse demo plays in.\n\n- `src/` holds the code.\n- Run the checks with `sh scripts/check.sh`.\n- Warm the build cache with `sh scripts/cache.sh`.\n- Test results go to `logs/test.log`.\n",
    "src/greet.ts": 'export const greet = (name: string): string => "Hello, " + name + "!"\n',
    "src/math.ts": "export const add = (a: number, b: number): number => a + b\n",
    "scripts/check.sh": checkScript,
    "scripts/cache.sh": cacheScript,
    "build/app.js": "console.log('built')\n",
    "logs/status.txt": "build pending\n",
    "logs/test.log": `${Array.from({ length: 3000 }, (_, i) => `test ${String(i + 1).padStart(4, "0")} ... ok`).join("\n")}\n3000 passed, 0 failed\n`,
    "gatehouse.json": `${JSON.stringify(CONFIG, null, 2)}\n`
  }
  for (const [path, content] of Object.entries(files)) {
    await NodeFs.mkdir(NodePath.dirname(NodePath.join(root, path)), { recursive: true })
    await NodeFs.writeFile(NodePath.join(root, path), content)
  }
  return root
}

// Says at the start whether commands will run in the kernel sandbox.
const sandboxLine = (mode: Sandbox.Mode): string => {
  if (mode === "off") return "sandbox: off (--sandbox off): commands run unsandboxed"
  const found = Sandbox.detect()
  if (found.kind !== undefined)
    return `sandbox: active (${found.kind}): commands can write only inside the workspace`
  return mode === "enforce"
    ? `sandbox: enforced but unavailable (${found.reason}): commands will be refused`
    : `sandbox: unavailable (${found.reason}): commands run unsandboxed`
}

const firstLine = (path: string) => {
  try {
    return TerminalText.printable(NodeFsSync.readFileSync(path, "utf8").split("\n")[0] ?? "")
  } catch {
    return "(unreadable)"
  }
}

interface Flags {
  readonly yes: boolean
  readonly keep: boolean
  readonly script?: string | undefined
  readonly sandbox?: Sandbox.Mode | undefined
}

const parseFlags = (argv: ReadonlyArray<string>): Flags | string => {
  let yes = false
  let keep = false
  let script: string | undefined
  let sandbox: Sandbox.Mode | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--yes" || arg === "-y") yes = true
    else if (arg === "--keep") keep = true
    else if (arg === "--script") {
      script = argv[++i]
      if (script === undefined) return "--script needs a file"
    } else if (arg.startsWith("--script=")) script = arg.slice("--script=".length)
    else if (arg === "--sandbox" || arg.startsWith("--sandbox=")) {
      const value = arg === "--sandbox" ? argv[++i] : arg.slice("--sandbox=".length)
      const parsed = CommandFlags.sandbox(value ?? "")
      if (parsed instanceof CommandFlags.UsageError) return parsed.message
      sandbox = parsed
    } else return `unknown option ${arg}`
  }
  return { yes, keep, script, sandbox }
}

const colors = (on: boolean) => {
  const wrap = (open: number, close: number) => (s: string) =>
    on ? `\u001b[${open}m${s}\u001b[${close}m` : s
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    italic: wrap(3, 23),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39)
  }
}

const oneLine = (value: unknown, max = 80) => {
  const text = TerminalText.printable(JSON.stringify(value) ?? "")
  return text.length > max ? `${text.slice(0, max - 3)}...` : text
}

/** What the model or a tool wrote, safe to print (see TerminalText). */
const safe = (text: string) => TerminalText.printable(text)

/**
 * Published on the demo's bus after each turn: once the renderer has handled it, it has
 * handled everything the turn published before it (a subscriber gets events in order, and
 * the newest one is never the one a lagging subscriber loses).
 */
export const Rendered = BusEvent.define("demo.rendered", Schema.Struct({ step: Schema.Number }))

/**
 * What the renderer may do about a permission ask: reply to it, check that it is still
 * pending (a turn that was interrupted drops its asks without a `permission.replied`), and
 * prompt the person (when there is a terminal).
 */
export interface Actions {
  readonly reply: (input: Permission.ReplyInput) => Effect.Effect<void, never, Instance.Current>
  readonly pending: (requestID: string) => Effect.Effect<boolean, never, Instance.Current>
  readonly prompt?: AskPrompt.Prompt | undefined
  /** The script's corrections, made by the scripted person under --yes. */
  readonly corrections?: ReadonlyArray<ScriptedModel.Correction> | undefined
}

/**
 * Renders bus events as they arrive on `out`; answers asks. Returns counters for the
 * closing line. Exported for the tests.
 */
export const renderer = (
  flags: Pick<Flags, "yes">,
  workspace: string,
  out: NodeJS.WritableStream & { readonly isTTY?: boolean } = process.stdout
) => {
  const c = colors(Boolean(out.isTTY))
  let atLineStart = true
  let streaming: string | undefined
  const stats = {
    calls: 0,
    completed: 0,
    failed: 0,
    asks: 0,
    spilled: [] as Array<string>,
    models: new Set<string>()
  }
  const write = (text: string) => {
    if (text.length === 0) return
    out.write(text)
    atLineStart = text.endsWith("\n")
  }
  const line = (text: string) => {
    if (!atLineStart) write("\n")
    streaming = undefined
    write(`${text}\n`)
  }
  const relative = (path: string) =>
    safe(path.startsWith(workspace) ? NodePath.relative(workspace, path) : path)
  // One Deferred per step: done when the renderer has handled that step's `Rendered`.
  const rendered = new Map<number, Deferred.Deferred<void>>()
  const renderedOf = (step: number) => {
    let done = rendered.get(step)
    if (done === undefined) {
      done = Deferred.makeUnsafe<void>()
      rendered.set(step, done)
    }
    return done
  }

  const onPart = (part: Message.Part, delta: string | undefined) => {
    if ((part.type === "text" || part.type === "reasoning") && delta !== undefined) {
      if (streaming !== part.id) {
        if (!atLineStart) write("\n")
        write(part.type === "reasoning" ? c.dim(c.italic("thinking: ")) : c.cyan("assistant: "))
        streaming = part.id
      }
      const text = TerminalText.printable(delta, { newlines: true })
      write(part.type === "reasoning" ? c.dim(c.italic(text)) : text)
      return
    }
    if (part.type !== "tool") return
    const state = part.state
    if (state.status === "running" && delta === undefined && state.metadata?.output === undefined) {
      stats.calls++
      line(`  ${c.yellow("▸")} ${c.bold(safe(part.tool))} ${c.dim(oneLine(state.input))}`)
    } else if (state.status === "completed") {
      stats.completed++
      line(`  ${c.green("✓")} ${c.bold(safe(part.tool))} ${c.dim(safe(state.title))}`)
      const lines = TerminalText.lines(state.output)
      const shown = lines.slice(0, 6)
      for (const text of shown) line(c.dim(`    │ ${text.length > 100 ? `${text.slice(0, 97)}...` : text}`))
      if (lines.length > shown.length) line(c.dim(`    │ ... ${lines.length - shown.length} more lines`))
      const diff = state.metadata.diff
      if (typeof diff === "string")
        for (const text of TerminalText.lines(diff)
          .slice(3)
          .filter((l) => l.startsWith("-") || l.startsWith("+")))
          line(c.dim(`    │ ${text}`))
      const refused = state.metadata.sandboxRefusal
      if (typeof refused === "string") {
        line(
          `    ${c.yellow("⛨")} the sandbox refused ${refused}: the gate let the command run, the kernel kept it in`
        )
      }
      const outputPath = state.metadata.outputPath
      if (typeof outputPath === "string") {
        stats.spilled.push(outputPath)
        line(`    ${c.yellow("↳")} output truncated; the full output was saved to ${relative(outputPath)}`)
      }
    } else if (state.status === "error") {
      stats.failed++
      const first = TerminalText.lines(state.error)[0] ?? ""
      line(`  ${c.red("✗")} ${c.bold(safe(part.tool))} ${state.interrupted ? "aborted" : first}`)
    }
  }

  return {
    stats,
    line,
    /** Waits until the renderer has handled the `Rendered` event of `step`. */
    caughtUp: (step: number) => Deferred.await(renderedOf(step)),
    handle: (event: BusEvent.Envelope, actions: Actions) =>
      Effect.gen(function* () {
        const { reply } = actions
        switch (event.type) {
          case Rendered.type: {
            const { step } = event.properties as { step: number }
            Deferred.doneUnsafe(renderedOf(step), Exit.void)
            return
          }
          case "message.updated": {
            const { info } = event.properties as { info: Message.Info }
            if (info.role === "assistant") stats.models.add(info.id)
            return
          }
          case "message.part.updated": {
            const { part, delta } = event.properties as { part: Message.Part; delta?: string }
            onPart(part, delta)
            return
          }
          case "message.part.delta": {
            // Streamed text arrives as deltas (Message.Event.PartDelta), not as whole parts.
            const { partID, type, delta } = event.properties as typeof Message.Event.PartDelta.properties.Type
            onPart({ id: partID, type } as Message.Part, delta)
            return
          }
          case "permission.asked": {
            const request = event.properties as Permission.Request
            stats.asks++
            if (request.permission === "doom_loop")
              line(
                c.yellow(`  ⟳ doom loop: the model repeats itself (${request.patterns.map(safe).join(", ")})`)
              )
            // Nobody to ask (no terminal): the ask fails closed on its own.
            if (!flags.yes && actions.prompt === undefined) return
            // An interrupted turn drops its asks silently: do not show, or answer, a stale one.
            if (!(yield* actions.pending(request.id))) return
            if (flags.yes) {
              for (const text of AskPrompt.describe(request, Boolean(out.isTTY))) line(text)
              const correction = actions.corrections?.find((c) => c.command === request.metadata.command)
              if (correction !== undefined) {
                line(c.yellow(`  → rejected with a correction: ${safe(correction.feedback)}`))
                return yield* reply({ requestID: request.id, reply: "reject", message: correction.feedback })
              }
              line(c.dim("  → allowed once (--yes)"))
              return yield* reply({ requestID: request.id, reply: "once" })
            }
            if (!atLineStart) write("\n")
            const answer = yield* actions.prompt!.ask(request)
            atLineStart = true
            streaming = undefined
            return yield* reply({
              requestID: request.id,
              reply: answer.reply,
              ...(answer.message === undefined ? {} : { message: answer.message })
            })
          }
          case "permission.replied": {
            const { reply: answer, reason } = event.properties as { reply: string; reason?: string }
            if (answer === "reject" && reason !== undefined) line(c.red(`  → rejected (${safe(reason)})`))
            return
          }
          case "session.status": {
            const { status } = event.properties as { status: SessionStatus.Info }
            if (status.type === "retry")
              line(
                c.yellow(`  … the model failed (${safe(status.message)}); retry ${status.attempt} shortly`)
              )
            return
          }
          case "session.error": {
            const { error } = event.properties as { error: Message.MessageError }
            line(c.red(`  ! ${safe(error.name)}: ${safe(error.message)}`))
            return
          }
        }
      })
  }
}

const run = (flags: Flags, workspace: string) =>
  Effect.gen(function* () {
    const interactive = flags.yes || Boolean(process.stdin.isTTY)
    // The workspace's gatehouse.json, read like any project's: the agent defaults, then its rules
    // (not the user's file: the demo shows the built-in defaults).
    const config = yield* Config.load({ cwd: workspace, user: false })
    const script = yield* ScriptedModel.load(flags.script ?? ScriptedModel.demoScriptPath)
    const view = renderer(flags, workspace)
    const c = colors(Boolean(process.stdout.isTTY))

    const sandbox = { ...config.sandbox, ...(flags.sandbox === undefined ? {} : { mode: flags.sandbox }) }
    const Live = SessionPrompt.layer({
      toolkit: DefaultTools.toolkit,
      ruleset: config.ruleset,
      shell: { sandbox },
      model: {
        provider: "scripted",
        id: flags.script === undefined ? "demo" : NodePath.basename(flags.script)
      }
    }).pipe(
      Layer.provideMerge(
        DefaultTools.layerWith({
          truncate: { directory: NodePath.join(workspace, ".gatehouse", "tool-output") }
        })
      ),
      Layer.provideMerge(Layer.mergeAll(SessionProcessor.layer, Checkpoint.layer)),
      Layer.provideMerge(Layer.mergeAll(SessionStore.layerMemory, SessionStatus.layer)),
      Layer.provideMerge(Permission.layerWith({ interactive, mode: config.mode })),
      Layer.provideMerge(Layer.mergeAll(Bus.layer, ApprovalStore.layerMemory)),
      Layer.provideMerge(Instance.layer),
      Layer.provideMerge(ScriptedModel.layer(script)),
      Layer.provide(NodeServices.layer)
    )

    return yield* Effect.gen(function* () {
      const bus = yield* Bus.Service
      const permission = yield* Permission.Service
      const sessions = yield* SessionPrompt.Service
      const checkpoints = yield* Checkpoint.Service
      const line = view.line
      const events = yield* bus.subscribeAll()
      // One prompt (one reader of stdin) for the whole demo, closed when it ends.
      const prompt =
        !flags.yes && process.stdin.isTTY === true
          ? yield* AskPrompt.make({ input: process.stdin, output: process.stdout })
          : undefined
      const actions: Actions = {
        reply: (input) => permission.reply(input).pipe(Effect.ignore),
        pending: (requestID) =>
          Effect.map(permission.list(), (asks) => asks.some((ask) => ask.id === requestID)),
        prompt,
        corrections: script.corrections
      }
      yield* events.pipe(
        Stream.runForEach((event) => view.handle(event, actions)),
        Effect.forkScoped
      )
      view.line(c.bold("Gatehouse demo: a scripted agent session"))
      view.line(
        c.dim(`workspace: ${workspace} (a temporary copy of a tiny project; your files are not touched)`)
      )
      view.line(c.dim(`rules: ${JSON.stringify(CONFIG.permission)}`))
      view.line(c.dim(sandboxLine(sandbox.mode ?? "auto")))
      if (!interactive)
        view.line(
          c.yellow(
            "No terminal and no --yes: permission asks fail closed (they are rejected), so the session stops at the first one. Pass --yes to approve each once."
          )
        )
      view.line("")
      const session = yield* sessions.create({ directory: workspace, title: "demo" })
      const steps = script.user ?? [{ prompt: PROMPT }]
      let last: Message.Assistant | undefined
      let completed = true
      for (const [index, step] of steps.entries()) {
        if ("prompt" in step) {
          view.line(`${c.bold("you:")} ${safe(step.prompt)}`)
          last = yield* sessions.prompt(session.id, step.prompt)
          // Everything the turn published is on the bus by now: wait until it is rendered.
          yield* bus.publish(Rendered, { step: index })
          yield* view.caughtUp(index)
          // The model finished its answer: the turn was not cut short by an error or a rejection.
          completed = last !== undefined && last.error === undefined && last.finish === "stop"
          if (!completed) break
          view.line("")
          continue
        }
        const { turn, scope } = step.rewind
        view.line(
          `${c.bold("you:")} ${c.cyan(`⟲ rewind to the start of turn ${turn} (${scope === "both" ? "code and conversation" : scope})`)}`
        )
        const result = yield* checkpoints.rewind(session.id, turn, scope)
        for (const file of result.files) line(`  ${c.green("↺")} ${safe(file.path)} ${file.action}`)
        for (const file of result.skipped)
          line(c.yellow(`  ! ${safe(file.path)} not restored: ${safe(file.reason)}`))
        if (scope !== "code") {
          line(
            c.dim(
              `  ${result.removedMessages.length} messages dropped; your prompt is back to edit and resend:`
            )
          )
          line(`  ${c.dim("›")} ${safe(result.prompt)}`)
        }
        for (const file of result.files.filter((f) => f.action === "restored"))
          line(c.dim(`    │ ${safe(file.path)}: ${firstLine(NodePath.join(workspace, file.path))}`))
        line(c.dim("  (checkpoints cover the file tools only: what a shell command changed is not rewound)"))
        view.line("")
      }
      const { stats } = view
      view.line(
        c.bold("Done: ") +
          `${stats.models.size} model calls, ${stats.calls} tool calls (${stats.completed} completed, ${stats.failed} failed), ${stats.asks} permission asks.`
      )
      // An error was already shown as it happened (session.error).
      if (last?.error === undefined && !completed)
        view.line(c.yellow("The turn stopped before the model finished: a permission ask was rejected."))
      if (!interactive && !completed)
        view.line(
          c.yellow("Asks failed closed because nobody could answer them. Run in a terminal, or with --yes.")
        )
      // A person who rejects has answered: the demo ends well. Asks nobody could answer did not.
      return completed || (interactive && last?.error === undefined) ? 0 : 1
    }).pipe(Effect.scoped, Instance.provide(workspace), Effect.provide(Live))
  })

export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage)
    return 0
  }
  const flags = parseFlags(argv)
  if (typeof flags === "string") {
    console.error(`gatehouse demo: ${flags}\n\n${usage}`)
    return 2
  }
  // Ctrl-C (and SIGTERM) interrupt the program, so its finalizers run: the turn's
  // commands are stopped (their process groups killed), then the workspace is removed.
  let fiber: Fiber.Fiber<number> | undefined
  let stopped = false
  const onSignal = () => {
    stopped = true
    fiber?.interruptUnsafe()
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
  let workspace: string | undefined
  try {
    workspace = await makeWorkspace()
    if (stopped) return 130
    fiber = Effect.runFork(
      run(flags, workspace).pipe(
        Effect.catch((error) =>
          Effect.sync(() => {
            console.error(`gatehouse demo: ${error.message}`)
            return 2
          })
        )
      )
    )
    const exit = await Effect.runPromise(Fiber.await(fiber))
    if (Exit.isSuccess(exit)) return exit.value
    if (Exit.hasInterrupts(exit)) {
      console.error("gatehouse demo: interrupted")
      return 130
    }
    console.error(`gatehouse demo: internal error\n${Cause.pretty(exit.cause)}`)
    return 1
  } finally {
    if (workspace !== undefined) {
      if (flags.keep) console.log(`The workspace was kept: ${workspace}`)
      else await NodeFs.rm(NodePath.dirname(workspace), { recursive: true, force: true })
    }
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
  }
}
