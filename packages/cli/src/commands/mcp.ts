// `gatehouse mcp`: Gatehouse's own tools (bash, read, write, edit, list) served over the
// Model Context Protocol on stdio, for any MCP client. Every call goes through the same
// gate, sandbox, truncation and spill as in a Gatehouse session; an ask is put to the
// person by MCP elicitation when the client offers it, else it fails closed.
import * as NodePath from "node:path"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as Bus from "@gatehousejs/core/Bus"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as DefaultTools from "@gatehousejs/session/DefaultTools"
import type * as Sandbox from "@gatehousejs/shell/Sandbox"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as McpProtocol from "effect/ai/McpProtocol"
import * as McpSchema from "effect/ai/McpSchema"
import * as McpServer from "effect/ai/McpServer"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as CommandFlags from "../CommandFlags.ts"
import * as Config from "../Config.ts"
import { dataDirectory } from "../DataDirectory.ts"

const usage = `usage: gatehouse mcp [--config FILE [--agent NAME]] [--cwd DIR] [--mode ask|auto|yolo] [--sandbox auto|enforce|off]

Serves Gatehouse's tools (bash, read, write, edit, list) over the Model Context Protocol
on stdin/stdout, for an MCP client to start as a subprocess. Each call is judged by the
configuration of DIR's project (default: the current directory's; see --cwd) and runs as
in a Gatehouse session:
sandboxed, its output truncated and spilled. A call that needs approval is put to the
person through the client's elicitation form when the client supports it; otherwise it is
refused with the rule to add. Logs go to stderr; stdout carries only MCP messages.

  --config FILE   a configuration read after the user's and the project's gatehouse.json
                  (an opencode.json or .jsonc: its permission blocks)
  --agent NAME    with an opencode --config, also agent.NAME's permission block
  --cwd DIR       a directory of the project (default: the current directory); the project
                  is its repository root (the folder with .git), else DIR
  --mode MODE     ask, auto or yolo (default: the config's mode, else ask)
  --sandbox MODE  auto, enforce or off (default: the config's sandbox.mode, else auto)

Client configuration (Claude Desktop, Cursor, Zed, ...):
  { "command": "gatehouse", "args": ["mcp", "--cwd", "/path/to/project"] }`

interface Flags {
  config?: string
  agent?: string
  cwd?: string
  mode?: Permission.Mode
  sandbox?: Sandbox.Mode
}

const parseFlags = (argv: ReadonlyArray<string>): Flags | "help" | CommandFlags.UsageError => {
  const flags: Flags = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--help" || arg === "-h") return "help"
    const eq = arg.indexOf("=")
    const name = eq === -1 ? arg : arg.slice(0, eq)
    if (!["--config", "--agent", "--cwd", "--mode", "--sandbox"].includes(name))
      return new CommandFlags.UsageError(`unknown option ${arg}`)
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined) return new CommandFlags.UsageError(`${name} needs a value`)
    if (name === "--config") flags.config = value
    else if (name === "--agent") flags.agent = value
    else if (name === "--cwd") flags.cwd = value
    else {
      const parsed = name === "--mode" ? CommandFlags.mode(value) : CommandFlags.sandbox(value)
      if (parsed instanceof CommandFlags.UsageError) return parsed
      if (name === "--mode") flags.mode = parsed as Permission.Mode
      else flags.sandbox = parsed as Sandbox.Mode
    }
  }
  return flags
}

// 2025-11-25 says an empty `elicitation` object means form mode (what earlier revisions had).
const offersForm = (capabilities: McpSchema.ClientCapabilities): boolean => {
  const elicitation = capabilities.elicitation
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined)
}

const Answer = Schema.Struct({
  answer: Schema.Literals(["once", "always", "reject"]).annotate({
    title: "Allow?",
    description: "once: this call; always: remember an allow rule for this project; reject: refuse it"
  }),
  instead: Schema.optionalKey(
    Schema.String.annotate({
      title: "Instead",
      description: "with reject: what the agent should do instead"
    })
  )
})

const question = (request: Permission.Request): string => {
  const command = request.metadata.command
  const what =
    typeof command === "string"
      ? `run \`${command}\``
      : `${request.permission} ${request.patterns.map((pattern) => JSON.stringify(pattern)).join(", ")}`
  return `Gatehouse: the agent asks to ${what} (${request.permission}: ${request.patterns.join(", ")}). Allow it?`
}

/**
 * The permission service of the MCP server: asks go to the person through the calling
 * client's elicitation form; a client without one gets the headless refusal, which names
 * the rule to add. Approvals and pending asks stay those of one service, `interactive`.
 */
const layerEliciting = (mode: Permission.Mode) =>
  Layer.effect(
    Permission.Service,
    Effect.gen(function* () {
      const service = (interactive: boolean) =>
        Layer.build(Permission.layerWith({ mode, interactive })).pipe(
          Effect.map((context) => Context.get(context, Permission.Service))
        )
      const interactive = yield* service(true)
      const headless = yield* service(false)
      const bus = yield* Bus.Service

      const elicitReply = (request: Permission.Request) =>
        McpServer.elicit({ message: question(request), schema: Answer }).pipe(
          Effect.map(
            (answer): Permission.ReplyInput => ({
              requestID: request.id,
              reply: answer.answer,
              ...(answer.answer === "reject" && answer.instead?.trim() ? { message: answer.instead } : {})
            })
          ),
          // Declined, cancelled or failed: nobody approved it.
          Effect.catchCause(() =>
            Effect.succeed<Permission.ReplyInput>({ requestID: request.id, reply: "reject" })
          ),
          Effect.flatMap(interactive.reply),
          Effect.ignore
        )

      const ask = (input: Permission.AskInput) =>
        Effect.gen(function* () {
          // The client of the tools/call being handled: asks run in its fiber.
          const client = yield* Effect.serviceOption(McpSchema.McpServerClient)
          if (Option.isNone(client) || !offersForm(client.value.clientCapabilities))
            return yield* headless.ask(input)
          const id = input.id ?? Identifier.ascending("per")
          const asked = yield* bus.subscribe(Permission.Event.Asked)
          yield* asked.pipe(
            Stream.filter((event) => event.properties.id === id),
            Stream.take(1),
            Stream.runForEach((event) => elicitReply(event.properties)),
            Effect.provideService(McpSchema.McpServerClient, client.value),
            Effect.forkScoped
          )
          return yield* interactive.ask({ ...input, id })
        }).pipe(Effect.scoped)

      return Permission.Service.of({ ...interactive, ask })
    })
  )

/** Runs `gatehouse mcp` until the client closes stdin; resolves to the exit code. */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const flags = CommandFlags.settle("mcp", usage, parseFlags(argv))
  if (typeof flags === "number") return flags
  const cwd = NodePath.resolve(flags.cwd ?? process.cwd())
  const config = await Config.loadForCommand("mcp", { cwd, config: flags.config, agent: flags.agent })
  if (config === undefined) return 2
  const sessionID = Identifier.ascending("ses")
  const context: ShellContext.Shape = {
    sessionID,
    ruleset: config.ruleset,
    sources: config.sources,
    projectRoot: config.directory,
    directory: config.directory,
    shell: config.shell,
    sandbox: { ...config.sandbox, ...(flags.sandbox === undefined ? {} : { mode: flags.sandbox }) }
  }
  // Each call runs in the project's instance, with the project's rules.
  const Project = McpServer.middleware<{ provides: Instance.Current }>()((effect) =>
    effect.pipe(Effect.provideService(ShellContext.Service, context), Instance.provide(config.directory))
  )
  const Tools = McpServer.toolkit(DefaultTools.toolkit).pipe(
    Layer.provide(Project.layer),
    Layer.provide(DefaultTools.layer)
  )
  const Server = McpServer.layerStdio({
    name: "gatehouse",
    version: "0.1.0",
    instructions:
      "Gatehouse's gated tools: every call is judged by the project's gatehouse.json and runs sandboxed. " +
      "A refused call says why; do not retry it unchanged.",
    protocols: [
      McpProtocol.v2026_07_28,
      McpProtocol.v2025_11_25,
      McpProtocol.v2025_06_18,
      McpProtocol.v2025_03_26,
      McpProtocol.v2024_11_05
    ],
    registrations: Tools
  }).pipe(
    Layer.provide(
      Layer.mergeAll(
        layerEliciting(flags.mode ?? config.mode),
        Truncate.layerWith(Config.truncateOptions(config.toolOutput))
      )
    ),
    Layer.provide(
      Layer.mergeAll(Bus.layer, ApprovalStore.layerFile(NodePath.join(dataDirectory(), "approvals")))
    ),
    Layer.provide(Instance.layer),
    Layer.provide(NodeStdio.layer)
  )
  const exit = await Effect.runPromiseExit(
    Layer.launch(Server).pipe(Effect.provideService(Logger.LogToStderr, true))
  )
  if (Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)) return 0
  process.stderr.write(`gatehouse mcp: ${Cause.pretty(exit.cause)}\n`)
  return 1
}
