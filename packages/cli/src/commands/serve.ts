// `gatehouse serve [--host H] [--port P] [--cwd DIR] [--script FILE]`: the HTTP API, the
// event stream and the web page for one project directory, on loopback, behind a token.
import { existsSync, statSync } from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { parseArgs } from "node:util"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Server from "@gatehousejs/server/Server"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import * as DefaultTools from "@gatehousejs/session/DefaultTools"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Sandbox from "@gatehousejs/shell/Sandbox"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as CommandFlags from "../CommandFlags.ts"
import * as Config from "../Config.ts"

const usage = `usage: gatehouse serve [--host H] [--port P] [--cwd DIR] [--config FILE] [--script FILE] [--sandbox auto|enforce|off]

Serves the HTTP API, the event stream (/event) and a web page (/) for the project in DIR
(default: the current directory), on 127.0.0.1 and a free port unless told otherwise, and
prints the page's URL with its token. The token is GATEHOUSE_SERVER_TOKEN if set.

The model is scripted: FILE (a script of turns), else the demo script. Every tool call is
judged by the "permission" block of the config (DIR/gatehouse.json, or --config) alone,
without the allow-everything agent defaults of check and run: what the config does not
allow or deny asks you in the web page.

options:
  --host H       interface to listen on (default 127.0.0.1)
  --port P       port, 0 for any free one (default 0)
  --cwd DIR      project directory (default .)
  --config FILE  configuration (default DIR/gatehouse.json, if it exists)
  --script FILE  model script (JSON), instead of the demo script
  --sandbox MODE the kernel sandbox of the commands: auto (default), enforce or off
  -h, --help     this help`

/** 127.0.0.0/8, ::1 and localhost: the only hosts nothing else on the network can reach. */
const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

const fail = (message: string): number => {
  console.error(`gatehouse serve: ${message}`)
  return 2
}

/** `$XDG_DATA_HOME/gatehouse`, or `~/.local/share/gatehouse`. */
const dataDirectory = (): string => {
  const xdg = process.env.XDG_DATA_HOME ?? ""
  return NodePath.join(
    NodePath.isAbsolute(xdg) ? xdg : NodePath.join(NodeOs.homedir(), ".local", "share"),
    "gatehouse"
  )
}

/** Everything the server stands on, for one project directory. */
const stack = (options: {
  readonly directory: string
  readonly config: Config.Info
  readonly script?: string
  readonly sandbox?: Sandbox.Mode | undefined
}) => {
  const data = dataDirectory()
  const projectID = Instance.info(options.directory).projectID
  const Model = options.script
    ? ScriptedModel.layerFile(options.script)
    : ScriptedModel.layerFile(ScriptedModel.demoScriptPath)
  const Permissions = Permission.layerWith({ mode: options.config.mode }).pipe(
    Layer.provideMerge(Bus.layer),
    Layer.provide(ApprovalStore.layerFile(NodePath.join(data, "approvals"))),
    Layer.provideMerge(Instance.layer)
  )
  const Sessions = SessionPrompt.layer({
    toolkit: DefaultTools.toolkit,
    // The file's own rules, without the allow-everything agent defaults: a person
    // answers in the web page whatever the file does not settle (see the usage text).
    ruleset: options.config.permission,
    shell: {
      ...(options.config.shell === undefined ? {} : { shell: options.config.shell }),
      sandbox: {
        ...options.config.sandbox,
        ...(options.sandbox === undefined ? {} : { mode: options.sandbox })
      }
    }
  }).pipe(
    Layer.provide(DefaultTools.layer),
    Layer.provide(Model),
    Layer.provideMerge(Layer.mergeAll(SessionProcessor.layer, Checkpoint.layer)),
    Layer.provideMerge(SessionStatus.layer),
    Layer.provideMerge(SessionStore.layerFile(NodePath.join(data, "session", projectID))),
    Layer.provide(Truncate.layerWith(Config.truncateOptions(options.config.toolOutput))),
    Layer.provide(NodeServices.layer)
  )
  return Sessions.pipe(Layer.provideMerge(Permissions))
}

export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  let values: {
    host?: string
    port?: string
    cwd?: string
    config?: string
    script?: string
    sandbox?: string
    help?: boolean
  }
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        host: { type: "string" },
        port: { type: "string" },
        cwd: { type: "string" },
        config: { type: "string" },
        script: { type: "string" },
        sandbox: { type: "string" },
        help: { type: "boolean", short: "h" }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`)
  }
  if (values.help) {
    console.log(usage)
    return 0
  }
  const port = values.port === undefined ? 0 : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return fail(`--port: expected a port number 0-65535, got ${JSON.stringify(values.port)}`)
  }
  const directory = NodePath.resolve(values.cwd ?? ".")
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    return fail(`--cwd: ${directory} is not a directory`)
  }
  const sandbox = values.sandbox === undefined ? undefined : CommandFlags.sandbox(values.sandbox)
  if (sandbox instanceof CommandFlags.UsageError) return fail(sandbox.message)
  const script = values.script === undefined ? undefined : NodePath.resolve(values.script)
  if (script !== undefined && !existsSync(script)) return fail(`--script: ${script} does not exist`)

  const program = Effect.gen(function* () {
    const config = yield* Config.load({ cwd: directory, config: values.config }).pipe(
      Effect.mapError((error) => error.message)
    )
    const sandboxMode = sandbox ?? config.sandbox.mode ?? "auto"
    const found = sandboxMode === "off" ? undefined : Sandbox.detect()
    if (sandboxMode === "enforce" && found?.kind === undefined) {
      return yield* Effect.fail(
        `the sandbox is enforced but unavailable: ${found !== undefined && "reason" in found ? found.reason : "unknown"}`
      )
    }
    const sandboxStatus =
      found === undefined
        ? "off: commands run unsandboxed (--sandbox off)"
        : found.kind === undefined
          ? `WARNING: unavailable (${found.reason}): commands run unsandboxed`
          : `${sandboxMode} (${found.kind}): commands write only inside ${directory}`
    const Live = Server.layer({ directory, host: values.host, port }).pipe(
      Layer.provideMerge(stack({ directory, config, sandbox, ...(script === undefined ? {} : { script }) }))
    )
    return yield* Effect.gen(function* () {
      const server = yield* Server.Service
      console.log(`Gatehouse is serving ${server.directory}

  web page  ${server.pageUrl}
  API       ${server.url}  (Authorization: Bearer ${server.token}; OpenAPI at /doc)
  model     ${script ?? "the demo script"}
  sandbox   ${sandboxStatus}

Press Ctrl+C to stop.`)
      const host = values.host
      if (host !== undefined && !isLoopback(host))
        console.error(
          `gatehouse serve: warning: --host ${host} is not a loopback address: port ${server.port} (the HTTP API that ` +
            "creates sessions, runs the agent's tools and answers permission asks, the event stream and the web page) " +
            "can be reached from other machines on the network. Every request still needs the token, and requests " +
            "whose Host header is not a loopback name are refused (403); use an SSH tunnel or a reverse proxy you trust."
        )
      yield* Effect.callback<void>((resume) => {
        const stop = () => resume(Effect.void)
        process.once("SIGINT", stop)
        process.once("SIGTERM", stop)
        return Effect.sync(() => {
          process.off("SIGINT", stop)
          process.off("SIGTERM", stop)
        })
      })
      return 0
    }).pipe(Effect.provide(Live))
  })

  return Effect.runPromise(
    program.pipe(
      // Logs go to stderr, stdout holds only what the server prints for a person.
      Effect.provideService(Logger.LogToStderr, true),
      Effect.catch((error: unknown) =>
        Effect.sync(() =>
          fail(typeof error === "string" ? error : error instanceof Error ? error.message : String(error))
        )
      )
    )
  )
}
