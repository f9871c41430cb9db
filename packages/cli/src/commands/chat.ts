// `gatehouse chat`: the agent loop with a real model in the terminal, every tool call through
// the gate. One turn with --prompt, else a conversation; the session is stored per project,
// so --continue picks the last one up.
import { existsSync, statSync } from "node:fs"
import * as NodePath from "node:path"
import { parseArgs } from "node:util"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import * as DefaultTools from "@gatehousejs/session/DefaultTools"
import type * as Message from "@gatehousejs/session/Message"
import type * as Session from "@gatehousejs/session/Session"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import type * as Sandbox from "@gatehousejs/shell/Sandbox"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AskPrompt from "../AskPrompt.ts"
import * as ChatRenderer from "../ChatRenderer.ts"
import * as CommandFlags from "../CommandFlags.ts"
import * as Config from "../Config.ts"
import { dataDirectory } from "../DataDirectory.ts"
import * as ModelChoice from "../ModelChoice.ts"
import * as TerminalText from "../TerminalText.ts"

const usage = `usage: gatehouse chat [--model M] [--base-url URL] [--prompt TEXT] [--yes] [--continue | --session ID]
       [--cwd DIR] [--config FILE [--agent NAME]] [--mode ask|auto|yolo] [--sandbox auto|enforce|off]

Talks to a model in the project of DIR (default: the current directory), with Gatehouse's
tools (list, read, write, edit, bash), every call judged by the gate. With --prompt it runs
that one turn and exits; else it reads your prompts one after another.

  --model M       anthropic/<id>, openai/<id> or openai-compatible/<id> (default: "model"
                  in the config)
  --base-url URL  the provider's URL (default: provider.<name>.base_url in the config);
                  required for openai-compatible, e.g. http://127.0.0.1:8080/v1 (llama.cpp),
                  http://127.0.0.1:11434/v1 (Ollama)
  --prompt TEXT   run one turn and exit: 0 when the model finished its answer, 1 otherwise
  --yes           answer "once" to every permission ask (unattended runs)
  --continue      resume the last session of this project instead of starting one
  --session ID    resume that session of this project (its id is printed when a chat ends)
  --cwd DIR       a directory of the project (default .): the project is its repository
                  root (the folder with .git), else DIR; the tools start there
  --config FILE   a configuration read after the user's and the project's gatehouse.json
                  (an opencode.json or .jsonc: its permission blocks)
  --agent NAME    with an opencode --config, also agent.NAME's permission block
  --mode MODE     ask, auto or yolo (default: the config's mode, else ask)
  --sandbox MODE  the kernel sandbox of the commands: auto (default), enforce or off

Keys come from the environment only: ANTHROPIC_API_KEY, OPENAI_API_KEY, and GATEHOUSE_API_KEY
(optional) for openai-compatible. Rules: as for run, the built-in defaults (harmless
commands and edits in the project go ahead; other commands, paths outside the project and
.env reads ask you), then the config's. Without a terminal and without --yes, asks fail
closed. The answer goes to stdout, everything else to stderr. Ctrl-C interrupts the turn;
at the prompt, Ctrl-C or Ctrl-D ends the chat (exit 130 and 0); SIGTERM ends it with 143. Sessions are stored under
$XDG_DATA_HOME/gatehouse/session/ (default ~/.local/share/gatehouse/session/).`

interface Flags {
  readonly model: string | undefined
  readonly baseUrl: string | undefined
  readonly prompt: string | undefined
  readonly yes: boolean
  readonly resume: boolean
  readonly session: string | undefined
  readonly cwd: string
  readonly config: string | undefined
  readonly agent: string | undefined
  readonly mode: Permission.Mode | undefined
  readonly sandbox: Sandbox.Mode | undefined
}

const readArgs = (argv: ReadonlyArray<string>) =>
  parseArgs({
    args: [...argv],
    options: {
      model: { type: "string" },
      "base-url": { type: "string" },
      prompt: { type: "string", short: "p" },
      yes: { type: "boolean", short: "y" },
      continue: { type: "boolean", short: "c" },
      session: { type: "string" },
      cwd: { type: "string" },
      config: { type: "string" },
      agent: { type: "string" },
      mode: { type: "string" },
      sandbox: { type: "string" },
      help: { type: "boolean", short: "h" }
    },
    strict: true,
    allowPositionals: false
  }).values

const parseFlags = (argv: ReadonlyArray<string>): Flags | "help" | CommandFlags.UsageError => {
  let values: ReturnType<typeof readArgs>
  try {
    values = readArgs(argv)
  } catch (error) {
    return new CommandFlags.UsageError(error instanceof Error ? error.message : String(error))
  }
  if (values.help) return "help"
  const mode = values.mode === undefined ? undefined : CommandFlags.mode(values.mode)
  if (mode instanceof CommandFlags.UsageError) return mode
  const sandbox = values.sandbox === undefined ? undefined : CommandFlags.sandbox(values.sandbox)
  if (sandbox instanceof CommandFlags.UsageError) return sandbox
  if (values.prompt !== undefined && values.prompt.trim() === "")
    return new CommandFlags.UsageError("--prompt needs a text")
  if (values.continue === true && values.session !== undefined)
    return new CommandFlags.UsageError("--continue and --session: choose one")
  return {
    model: values.model,
    baseUrl: values["base-url"],
    prompt: values.prompt,
    yes: values.yes === true,
    resume: values.continue === true,
    session: values.session,
    cwd: NodePath.resolve(values.cwd ?? "."),
    config: values.config,
    agent: values.agent,
    mode,
    sandbox
  }
}

const system = (directory: string) =>
  `You are a coding assistant working in the project at ${directory}. Use the tools to look at ` +
  "files and run commands there. Every tool call is checked by Gatehouse: a person may be asked " +
  "to approve it, and a rejected call did not run. Answer briefly."

/** Published after each turn: once rendered, everything the turn published was rendered. */
const Rendered = BusEvent.define("chat.rendered", Schema.Struct({ turn: Schema.Number }))

const fail = (message: string, code = 2): number => {
  process.stderr.write(`gatehouse chat: ${message}\n`)
  return code
}

/** The newest session of `directory` in the store, if any. */
const lastSession = (sessions: ReadonlyArray<Session.Info>, directory: string) =>
  sessions
    .filter((session) => session.directory === directory)
    .reduce<Session.Info | undefined>(
      (last, session) => (last === undefined || session.time.updated > last.time.updated ? session : last),
      undefined
    )

/** Why a turn that did not end with the model's answer ended, for the closing message. */
const unfinished = (last: Message.Assistant | undefined): string | undefined => {
  if (last === undefined) return "the model gave no answer"
  if (last.error !== undefined) return `${last.error.name}: ${last.error.message}`
  if (last.finish !== "stop")
    return `the turn stopped before the model finished its answer (${last.finish ?? "no finish"})`
  return undefined
}

export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const flags = CommandFlags.settle("chat", usage, parseFlags(argv))
  if (typeof flags === "number") return flags
  if (!existsSync(flags.cwd) || !statSync(flags.cwd).isDirectory())
    return fail(`--cwd: ${flags.cwd} is not a directory`)
  const config = await Config.loadForCommand("chat", {
    cwd: flags.cwd,
    config: flags.config,
    agent: flags.agent
  })
  if (config === undefined) return 2
  // The project (its sessions, approvals, where the tools start): the repository root of --cwd.
  const directory = config.directory
  const choice = ModelChoice.choose({
    flag: flags.model,
    baseUrl: flags.baseUrl,
    settings: config.models,
    file: config.modelFile ?? config.file ?? Config.FILE_NAME
  })
  if (choice instanceof ModelChoice.ChoiceError) return fail(choice.message)

  const terminal = process.stdin.isTTY === true
  const interactive = flags.yes || terminal
  const oneTurn = flags.prompt !== undefined
  if (!oneTurn && !terminal)
    return fail("without --prompt, chat reads your prompts from a terminal: pass --prompt TEXT")
  const data = dataDirectory()
  const Live = SessionPrompt.layer({
    toolkit: DefaultTools.toolkit,
    // As run, check and mcp: the built-in defaults, then the file's rules.
    ruleset: config.ruleset,
    mode: flags.mode ?? config.mode,
    system: system(directory),
    model: choice.spec,
    shell: {
      ...(config.shell === undefined ? {} : { shell: config.shell }),
      sandbox: { ...config.sandbox, ...(flags.sandbox === undefined ? {} : { mode: flags.sandbox }) }
    }
  }).pipe(
    Layer.provide(DefaultTools.layer),
    Layer.provide(ModelChoice.layer(choice)),
    Layer.provideMerge(Layer.mergeAll(SessionProcessor.layer, Checkpoint.layer)),
    Layer.provideMerge(SessionStatus.layer),
    Layer.provideMerge(
      SessionStore.layerFile(NodePath.join(data, "session", Instance.info(directory).projectID))
    ),
    Layer.provide(Truncate.layerWith(Config.truncateOptions(config.toolOutput))),
    Layer.provideMerge(
      Permission.layerWith({ mode: flags.mode ?? config.mode, interactive }).pipe(
        Layer.provideMerge(Bus.layer),
        Layer.provide(ApprovalStore.layerFile(NodePath.join(data, "approvals"))),
        Layer.provideMerge(Instance.layer)
      )
    ),
    Layer.provide(NodeServices.layer)
  )

  // Ctrl-C: the program decides what it means (interrupt the turn, or end the chat).
  const signals = Effect.runSync(Queue.unbounded<NodeJS.Signals>())
  const onSignal = (signal: NodeJS.Signals) => Queue.offerUnsafe(signals, signal)
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)

  const program = Effect.gen(function* () {
    const bus = yield* Bus.Service
    const permission = yield* Permission.Service
    const sessions = yield* SessionPrompt.Service
    const store = yield* SessionStore.Service
    const color = process.stderr.isTTY === true && process.env.NO_COLOR === undefined
    // One reader of the terminal for the prompts and the asks.
    const prompt = terminal
      ? yield* AskPrompt.make({ input: process.stdin, output: process.stderr, color })
      : undefined
    const view = ChatRenderer.make(
      { answer: process.stdout, status: process.stderr, color },
      {
        yes: flags.yes,
        prompt,
        reply: (input) => permission.reply(input).pipe(Effect.ignore),
        pending: (requestID) =>
          Effect.map(permission.list(), (asks) => asks.some((ask) => ask.id === requestID))
      }
    )
    const rendered = new Map<number, Deferred.Deferred<void>>()
    const renderedOf = (turn: number) => {
      const done = rendered.get(turn) ?? Deferred.makeUnsafe<void>()
      rendered.set(turn, done)
      return done
    }
    const events = yield* bus.subscribeAll()
    yield* events.pipe(
      Stream.runForEach((event) =>
        event.type === Rendered.type
          ? Deferred.succeed(renderedOf((event.properties as { turn: number }).turn), undefined)
          : view.handle(event)
      ),
      Effect.forkScoped
    )

    const stored = flags.resume || flags.session !== undefined ? yield* store.listSessions() : []
    const resumed = flags.resume
      ? lastSession(stored, directory)
      : stored.find((info) => info.id === flags.session && info.directory === directory)
    if (flags.session !== undefined && resumed === undefined)
      return fail(`no session ${safe(flags.session)} in this project (${safe(directory)})`)
    let session: Session.Info | undefined = resumed
    view.line(
      `gatehouse chat: ${choice.spec.provider}/${safe(choice.spec.id)} (from ${choice.from}) in ${safe(directory)}`
    )
    if (flags.resume && resumed === undefined)
      view.line("no earlier session in this project: starting a new one")
    if (resumed !== undefined) {
      const messages = yield* store.messages(resumed.id)
      view.line(`resuming session ${resumed.id} "${safe(resumed.title)}" (${messages.length} messages)`)
      view.replay(messages)
    }
    if (!interactive) view.line("no terminal and no --yes: permission asks fail closed (they are rejected)")

    // Interrupts: during a turn the first aborts it, the next ends the chat; at the prompt one ends it.
    const quit = yield* Deferred.make<number>()
    let turning = false
    let interrupted = false
    yield* Queue.take(signals).pipe(
      Effect.flatMap((signal) =>
        Effect.gen(function* () {
          if (signal === "SIGINT" && turning && !interrupted && session !== undefined) {
            interrupted = true
            view.cancelAsks()
            view.line("interrupting the turn (Ctrl-C again to exit)")
            yield* sessions.abort(session.id).pipe(Effect.ignore)
            return
          }
          // The terminal echoed ^C after the prompt (or mid-line): end that line first.
          view.line(signal === "SIGTERM" ? "terminated (SIGTERM)" : "")
          yield* Deferred.succeed(quit, signal === "SIGTERM" ? 143 : 130)
        })
      ),
      Effect.forever,
      Effect.forkScoped
    )

    let turn = 0
    const runTurn = (text: string) =>
      Effect.gen(function* () {
        if (session === undefined)
          session = yield* sessions.create({
            directory,
            title: text.length > 60 ? `${text.slice(0, 57)}...` : text
          })
        turning = true
        interrupted = false
        const last = yield* sessions
          .prompt(session.id, text)
          .pipe(Effect.ensuring(Effect.sync(() => (turning = false))))
        yield* bus.publish(Rendered, { turn })
        yield* Deferred.await(renderedOf(turn))
        turn++
        view.endLine()
        return last
      })

    const conversation = Effect.gen(function* () {
      if (oneTurn) {
        const last = yield* runTurn(flags.prompt!)
        if (interrupted) return fail("interrupted", 130)
        const why = unfinished(last)
        if (why === undefined) return 0
        // A turn cut short without an error was stopped by a refusal: say why nobody answered.
        const nobody = !interactive && last?.error === undefined
        return fail(
          nobody ? `${why}\n(asks fail closed without a terminal: pass --yes, or run it in a terminal)` : why,
          1
        )
      }
      if (prompt === undefined) return fail("no terminal to read prompts from")
      view.line("Ctrl-C interrupts a turn; Ctrl-C or Ctrl-D at the prompt ends the chat")
      while (true) {
        const text = yield* prompt.line(color ? "\u001b[1myou>\u001b[22m " : "you> ")
        if (text === undefined) {
          process.stderr.write("\n")
          return 0
        }
        if (text.trim() === "") continue
        yield* runTurn(text)
      }
    })
    const code = yield* Effect.raceFirst(conversation, Deferred.await(quit))
    if (session !== undefined)
      view.line(
        `session ${session.id} is stored: gatehouse chat --continue (or --session ${session.id}) resumes it`
      )
    return code
  }).pipe(
    Effect.scoped,
    Instance.provide(directory),
    Effect.provide(Live),
    Effect.provideService(Logger.LogToStderr, true)
  )

  try {
    const exit = await Effect.runPromiseExit(program)
    if (Exit.isSuccess(exit)) return exit.value
    const error = Exit.findErrorOption(exit)
    // A model that cannot be built (a missing key, a bad URL) is a configuration error: 2.
    if (error._tag === "Some")
      return fail(error.value.message, error.value._tag === "ModelConfigError" ? 2 : 1)
    return fail(`internal error\n${Cause.pretty(exit.cause)}`, 1)
  } finally {
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
    // A prompt still reading must not keep the process alive.
    if (terminal) process.stdin.destroy()
  }
}

const safe = (text: string) => TerminalText.printable(text)
