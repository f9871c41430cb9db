// `gatehouse run`: one command through the whole pipeline — gate, asks, process, truncation —
// printing the output the model would read, without what is said to the model only (its
// status block, the hint on reading the spill file): those go to stderr as notices.
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Bus from "@gatehousejs/core/Bus"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import type * as Sandbox from "@gatehousejs/shell/Sandbox"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import type * as ShellParser from "@gatehousejs/shell/ShellParser"
import * as ShellTool from "@gatehousejs/shell/ShellTool"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as AskPrompt from "../AskPrompt.ts"
import * as CommandFlags from "../CommandFlags.ts"
import * as Config from "../Config.ts"
import { dataDirectory } from "../DataDirectory.ts"
import * as HumanOutput from "../HumanOutput.ts"
import * as TerminalText from "../TerminalText.ts"

const usage = `usage: gatehouse run [--config FILE [--agent NAME]] [--cwd DIR] [--timeout MS] [--mode ask|auto|yolo] [--sandbox auto|enforce|off] [--no-input] [--stderr] [--] COMMAND

Runs COMMAND as the agent's bash tool would: the gate judges it under the project's
gatehouse.json, asks what needs asking, runs it in its own process group and prints the
output as the model would read it (truncated), without the text meant for the model alone;
the truncation with the path of the full output, and a timeout, are said on stderr.

  --config FILE   a configuration read after the user's and the project's gatehouse.json
                  (an opencode.json or .jsonc: its permission blocks)
  --agent NAME    with an opencode --config, also agent.NAME's permission block
  --cwd DIR       the directory the command runs in (default: the current directory); the
                  project is its repository root (the folder with .git), else DIR
  --timeout MS    stop the command after MS milliseconds (default ${ShellContext.DEFAULT_TIMEOUT})
  --mode MODE     ask, auto or yolo (default: the config's mode, else ask)
  --sandbox MODE  auto (the kernel sandbox where available), enforce (none: refuse) or off
                  (default: the config's sandbox.mode, else auto)
  --no-input      never prompt: a command that needs approval is refused
  --stderr        the command's stderr to stderr, as it comes, and only its stdout to stdout
                  (default: both on stdout, in the order they were written, as the model reads them)

When stdin is a terminal (and without --no-input) each ask is shown with its patterns and
the rule that decided them; answer o (once), a (always, remembered for this project),
r (reject), or type what to do instead.

Exit status: the command's own when it ran; 126 when a rule denied it or it needed an
approval nobody gave; 124 on timeout; 128+N when killed by signal N; 130 on Ctrl-C (the
command and everything it started are stopped first); 2 for usage or config errors.`

interface Flags {
  config?: string
  agent?: string
  cwd?: string
  timeout?: number
  mode?: Permission.Mode
  sandbox?: Sandbox.Mode
  noInput: boolean
  stderr: boolean
  command: Array<string>
}

const parseFlags = (argv: ReadonlyArray<string>): Flags | "help" | CommandFlags.UsageError => {
  const flags: Flags = { noInput: false, stderr: false, command: [] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      flags.command.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith("-") || arg === "-") {
      // The first word that is not a flag starts the command.
      flags.command.push(...argv.slice(i))
      break
    }
    if (arg === "--help" || arg === "-h") return "help"
    if (arg === "--no-input") {
      flags.noInput = true
      continue
    }
    if (arg === "--stderr") {
      flags.stderr = true
      continue
    }
    const eq = arg.indexOf("=")
    const name = eq === -1 ? arg : arg.slice(0, eq)
    if (!["--config", "--agent", "--cwd", "--timeout", "--mode", "--sandbox"].includes(name))
      return new CommandFlags.UsageError(`unknown option ${name}`)
    let value: string
    if (eq !== -1) value = arg.slice(eq + 1)
    else {
      const next = argv[i + 1]
      if (next === undefined) return new CommandFlags.UsageError(`${name} needs a value`)
      value = next
      i++
    }
    if (name === "--config") flags.config = value
    else if (name === "--agent") flags.agent = value
    else if (name === "--cwd") flags.cwd = value
    else if (name === "--mode") {
      const parsed = CommandFlags.mode(value)
      if (parsed instanceof CommandFlags.UsageError) return parsed
      flags.mode = parsed
    } else if (name === "--sandbox") {
      const parsed = CommandFlags.sandbox(value)
      if (parsed instanceof CommandFlags.UsageError) return parsed
      flags.sandbox = parsed
    } else {
      const ms = Number(value)
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(ms) || ms <= 0) {
        return new CommandFlags.UsageError(
          `--timeout must be a positive whole number of milliseconds, got "${value}"`
        )
      }
      flags.timeout = ms
    }
  }
  if (flags.command.length === 0 || flags.command.join(" ").trim() === "")
    return new CommandFlags.UsageError("no command given")
  return flags
}

const signalNumber = (signal: string): number =>
  (NodeOs.constants.signals as Record<string, number | undefined>)[signal] ?? 0

const exitCodeOf = (result: ShellTool.Result): number => {
  if (result.interrupted) return 130
  if (result.timedOut) return 124
  if (result.signal !== undefined) return 128 + signalNumber(result.signal)
  return result.exitCode ?? 1
}

// `--stderr`: the command's stderr as it comes, each chunk written before the next is read
// (backpressure); on a terminal its control sequences are shown, not obeyed, as for stdout.
const stderrWriter = () => {
  const terminal = process.stderr.isTTY === true
  const decoder = new TextDecoder()
  return (chunk: Uint8Array) =>
    Effect.callback<void>((resume) => {
      const text = terminal
        ? TerminalText.printable(decoder.decode(chunk, { stream: true }), { newlines: true })
        : chunk
      process.stderr.write(text, () => resume(Effect.void))
    })
}

const print = (stream: NodeJS.WriteStream, text: string): Promise<void> =>
  new Promise((resolve) => stream.write(text.endsWith("\n") ? text : `${text}\n`, () => resolve()))

// What to tell the user when the command was refused, and the exit code.
const refusal = (
  error: ShellTool.Error | ShellParser.LoadError
): { readonly message: string; readonly code: number } => {
  switch (error._tag) {
    case "PermissionDeniedError": {
      const allow = JSON.stringify({ [error.permission]: { [error.pattern]: "allow" } })
      return {
        message: `${error.message}\nTo allow it, add after that rule in the "permission" block of gatehouse.json: ${allow}`,
        code: 126
      }
    }
    case "PermissionRejectedError":
    case "PermissionCorrectedError":
      return { message: error.message, code: 126 }
    default:
      return { message: error.message, code: 2 }
  }
}

/**
 * Runs `gatehouse run`; resolves to the exit code.
 *
 * @since 0.0.0
 */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const flags = CommandFlags.settle("run", usage, parseFlags(argv))
  if (typeof flags === "number") return flags
  const cwd = NodePath.resolve(flags.cwd ?? process.cwd())
  const config = await Config.loadForCommand("run", { cwd, config: flags.config, agent: flags.agent })
  if (config === undefined) return 2
  const mode = flags.mode ?? config.mode
  const interactive = process.stdin.isTTY === true && !flags.noInput
  const sessionID = Identifier.ascending("ses")

  const PermissionLive = Permission.layerWith({ mode, interactive }).pipe(
    Layer.provideMerge(
      Layer.mergeAll(Bus.layer, ApprovalStore.layerFile(NodePath.join(dataDirectory(), "approvals")))
    ),
    Layer.provideMerge(Instance.layer)
  )
  const Live = ShellTool.layerWith({ truncate: Config.truncateOptions(config.toolOutput) }).pipe(
    Layer.provideMerge(PermissionLive)
  )

  // Ctrl-C (and SIGTERM) stop the command: the tool kills its process group, then we exit.
  const stop = Deferred.makeUnsafe<NodeJS.Signals>()
  const onSignal = (signal: NodeJS.Signals) => Deferred.doneUnsafe(stop, Exit.succeed(signal))
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)

  const program = Effect.gen(function* () {
    const permission = yield* Permission.Service
    if (interactive) {
      const bus = yield* Bus.Service
      const asks = yield* bus.subscribe(Permission.Event.Asked)
      const prompt = yield* AskPrompt.make({ input: process.stdin, output: process.stderr })
      yield* Effect.forkScoped(
        Stream.runForEach(asks, (event) =>
          prompt.ask(event.properties).pipe(
            Effect.flatMap((answer) =>
              permission.reply({
                requestID: event.properties.id,
                reply: answer.reply,
                ...(answer.message === undefined ? {} : { message: answer.message })
              })
            ),
            Effect.ignore
          )
        )
      )
    }
    // A stop while an ask waits rejects it: the command never starts.
    yield* Effect.forkScoped(Deferred.await(stop).pipe(Effect.andThen(permission.rejectSession(sessionID))))
    return yield* ShellTool.run({
      command: flags.command.join(" "),
      ...(flags.timeout === undefined ? {} : { timeout: flags.timeout })
    }).pipe(
      Effect.provideService(ShellContext.Service, {
        sessionID,
        ruleset: config.ruleset,
        sources: config.sources,
        projectRoot: config.directory,
        directory: cwd,
        shell: config.shell,
        sandbox: { ...config.sandbox, ...(flags.sandbox === undefined ? {} : { mode: flags.sandbox }) },
        // A person at the command line may ask for more than the model's ceiling.
        maxTimeout: Math.max(flags.timeout ?? 0, ShellContext.DEFAULT_MAX_TIMEOUT),
        abort: Effect.asVoid(Deferred.await(stop)),
        ...(flags.stderr ? { stderr: stderrWriter() } : {})
      })
    )
  }).pipe(
    Effect.scoped,
    Instance.provide(config.directory),
    Effect.provide(Live),
    // Logs (a spill file that could not be written, say) go to stderr: stdout is the command's output.
    Effect.provideService(Logger.LogToStderr, true)
  )

  try {
    const exit = await Effect.runPromiseExit(program)
    const stopped = Deferred.isDoneUnsafe(stop)
    if (Exit.isSuccess(exit)) {
      // On a terminal the output's control sequences are shown, not obeyed (see TerminalText).
      // What the model is told only for itself stays out; the truncation is said on stderr.
      const shown = HumanOutput.forPerson(exit.value.output, exit.value.outputPath)
      const output = shown.output
      await print(
        process.stdout,
        process.stdout.isTTY === true ? TerminalText.printable(output, { newlines: true }) : output
      )
      for (const notice of shown.notices) process.stderr.write(`gatehouse run: ${notice}\n`)
      if (!exit.value.sandboxed && (flags.sandbox ?? config.sandbox.mode ?? "auto") === "auto") {
        process.stderr.write(
          "gatehouse run: warning: no kernel sandbox is available here; the command ran unsandboxed\n"
        )
      }
      return exitCodeOf(exit.value)
    }
    if (stopped) {
      process.stderr.write("gatehouse run: stopped before the command ran\n")
      return 130
    }
    const error = Exit.findErrorOption(exit)
    if (error._tag === "Some") {
      const { message, code } = refusal(error.value)
      process.stderr.write(`gatehouse run: ${HumanOutput.refusal(message)}\n`)
      return code
    }
    process.stderr.write(`gatehouse run: internal error\n${Cause.pretty(exit.cause)}\n`)
    return 1
  } finally {
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
    // A prompt still reading (the run ended while it waited) must not keep the process alive.
    if (interactive) process.stdin.destroy()
  }
}
