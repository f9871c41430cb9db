// `gatehouse serve [--host H] [--port P] [--cwd DIR] [--script FILE] [--redis URL]`: the HTTP
// API, the event stream and the web page for one project directory, on loopback, behind a
// token; with --redis, one of a group of servers sharing events, asks and approvals.
import { existsSync, statSync } from "node:fs"
import * as NodePath from "node:path"
import { parseArgs } from "node:util"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import type * as RedisStack from "@gatehousejs/redis/RedisStack"
import * as Server from "@gatehousejs/server/Server"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import * as DefaultTools from "@gatehousejs/session/DefaultTools"
import type * as Model from "@gatehousejs/session/Model"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Sandbox from "@gatehousejs/shell/Sandbox"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import type * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as CommandFlags from "../CommandFlags.ts"
import * as Config from "../Config.ts"
import { dataDirectory } from "../DataDirectory.ts"
import * as ModelChoice from "../ModelChoice.ts"

const usage = `usage: gatehouse serve [--host H] [--port P] [--cwd DIR] [--config FILE [--agent NAME]] [--sandbox auto|enforce|off]
       [--model M [--base-url URL] | --script FILE] [--redis URL] [--max-clients N]

Serves the HTTP API, the event stream (/event) and a web page (/) for the project in DIR
(default: the current directory), on 127.0.0.1 and a free port unless told otherwise, and
prints the page's URL with its token. The token is GATEHOUSE_SERVER_TOKEN if set.

The web page's prompts go to the model of --model (else "model" in the config; see
gatehouse chat --help for the forms and the key variables), else to a scripted model: FILE
(a script of turns), else the demo script. Every tool call is
judged by the rules of the configuration (the user's gatehouse.json, the project's, then
--config) alone, without the built-in defaults of check and run: what they do not
allow or deny asks you in the web page.

options:
  --host H       interface to listen on (default 127.0.0.1)
  --port P       port, 0 for any free one (default 0)
  --cwd DIR      a directory of the project (default .): the project is its repository
                 root (the folder with .git), else DIR
  --config FILE  a configuration read after the user's and the project's gatehouse.json
                 (an opencode.json or .jsonc: its permission blocks)
  --agent NAME   with an opencode --config, also agent.NAME's permission block
  --model M      anthropic/<id>, openai/<id> or openai-compatible/<id>
  --base-url URL the provider's URL (required for openai-compatible, unless the config has
                 provider["openai-compatible"].base_url)
  --script FILE  model script (JSON), instead of the demo script
  --sandbox MODE the kernel sandbox of the commands: auto (default), enforce or off
  --redis URL    join the group of servers sharing this Redis (redis://host:port, or "redis"
                 in the config): one event stream, one set of pending asks, shared approvals
  --max-clients N  most event stream clients (web pages, UIs) at once (default 64); past
                 it GET /event answers 429
  -h, --help     this help`

/** 127.0.0.0/8, ::1 and localhost: the only hosts nothing else on the network can reach. */
const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

const fail = (message: string): number => {
  console.error(`gatehouse serve: ${message}`)
  return 2
}

/** Everything the server stands on, for one project directory. */
const stack = (options: {
  readonly directory: string
  readonly config: Config.Info
  readonly script?: string
  /** A real model, else the script (the demo's by default). */
  readonly model?: ModelChoice.Choice | undefined
  readonly sandbox?: Sandbox.Mode | undefined
  /** The group to join: the module, loaded only for --redis, and its URL. */
  readonly group?: { readonly stack: typeof RedisStack; readonly url: string } | undefined
}) => {
  const data = dataDirectory()
  const projectID = Instance.info(options.directory).projectID
  const ModelLive: Layer.Layer<LanguageModel.LanguageModel, Model.ConfigError | ScriptedModel.ScriptError> =
    options.model !== undefined
      ? ModelChoice.layer(options.model)
      : ScriptedModel.layerFile(options.script ?? ScriptedModel.demoScriptPath)
  const Permissions = options.group
    ? options.group.stack.layer({ url: options.group.url, permission: { mode: options.config.mode } })
    : Permission.layerWith({ mode: options.config.mode }).pipe(
        Layer.provideMerge(Bus.layer),
        Layer.provide(ApprovalStore.layerFile(NodePath.join(data, "approvals"))),
        Layer.provideMerge(Instance.layer)
      )
  const Sessions = SessionPrompt.layer({
    toolkit: DefaultTools.toolkit,
    // The file's own rules, without the built-in defaults (which allow harmless commands): a person
    // answers in the web page whatever the file does not settle (see the usage text).
    ruleset: options.config.permission,
    model: options.model?.spec ?? { provider: "scripted", id: NodePath.basename(options.script ?? "demo") },
    shell: {
      ...(options.config.shell === undefined ? {} : { shell: options.config.shell }),
      sandbox: {
        ...options.config.sandbox,
        ...(options.sandbox === undefined ? {} : { mode: options.sandbox })
      }
    }
  }).pipe(
    Layer.provide(DefaultTools.layer),
    Layer.provide(ModelLive),
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
    agent?: string
    script?: string
    model?: string
    "base-url"?: string
    sandbox?: string
    redis?: string
    "max-clients"?: string
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
        agent: { type: "string" },
        script: { type: "string" },
        model: { type: "string" },
        "base-url": { type: "string" },
        sandbox: { type: "string" },
        redis: { type: "string" },
        "max-clients": { type: "string" },
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
  const maxClients = values["max-clients"] === undefined ? undefined : Number(values["max-clients"])
  if (maxClients !== undefined && (!Number.isInteger(maxClients) || maxClients < 1 || maxClients > 100_000)) {
    return fail(
      `--max-clients: expected a whole number 1-100000, got ${JSON.stringify(values["max-clients"])}`
    )
  }
  const cwd = NodePath.resolve(values.cwd ?? ".")
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    return fail(`--cwd: ${cwd} is not a directory`)
  }
  const sandbox = values.sandbox === undefined ? undefined : CommandFlags.sandbox(values.sandbox)
  if (sandbox instanceof CommandFlags.UsageError) return fail(sandbox.message)
  const script = values.script === undefined ? undefined : NodePath.resolve(values.script)
  if (script !== undefined && !existsSync(script)) return fail(`--script: ${script} does not exist`)
  if (script !== undefined && values.model !== undefined) return fail("--model and --script: choose one")

  const program = Effect.gen(function* () {
    const config = yield* Config.load({ cwd, config: values.config, agent: values.agent }).pipe(
      Effect.mapError((error) => error.message)
    )
    for (const note of config.notes) console.error(`gatehouse serve: ${note}`)
    // The project: the repository root of --cwd (else --cwd), as for every command.
    const directory = config.directory
    // A script given is the model; else --model or the config's, else the demo script.
    const model =
      script === undefined && (values.model !== undefined || config.models.model !== undefined)
        ? ModelChoice.choose({
            flag: values.model,
            baseUrl: values["base-url"],
            settings: config.models,
            file: config.modelFile ?? config.file ?? Config.FILE_NAME
          })
        : undefined
    if (model instanceof ModelChoice.ChoiceError) return yield* Effect.fail(model.message)
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
    const redisUrl = values.redis ?? config.redis
    // The Redis client is ~650 modules: loaded only by a server that joins a group.
    const group =
      redisUrl === undefined
        ? undefined
        : { stack: yield* Effect.promise(() => import("@gatehousejs/redis/RedisStack")), url: redisUrl }
    const Services = stack({
      directory,
      config,
      sandbox,
      group,
      model,
      ...(script === undefined ? {} : { script })
    })
    // In a group, a 404 for a session another server holds names that server.
    const Located =
      group === undefined
        ? Services
        : Layer.effect(
            Server.SessionOwner,
            Effect.map(
              // Its RedisGroup is in Services (the group's stack), which the union type hides.
              group.stack.locateSession(directory) as Effect.Effect<
                (sessionID: string) => Effect.Effect<string | undefined>
              >,
              (locate) => Server.SessionOwner.of({ locate })
            )
          ).pipe(Layer.provideMerge(Services))
    const Live = Server.layer({
      directory,
      host: values.host,
      port,
      events: {
        ...(maxClients === undefined ? {} : { maxClients }),
        ...(group === undefined ? {} : { run: group.stack.run(directory) })
      }
    }).pipe(Layer.provideMerge(Located))
    // The group learns this server's URL once it listens (its RedisGroup, likewise, from Live).
    const announce = (url: string) =>
      group === undefined ? Effect.void : (group.stack.announce(url) as Effect.Effect<void>)
    const Announced = Layer.effectDiscard(
      Effect.flatMap(Server.Service, (server) => announce(server.url))
    ).pipe(Layer.provideMerge(Live))
    return yield* Effect.gen(function* () {
      const server = yield* Server.Service
      console.log(`Gatehouse is serving ${server.directory}

  web page  ${server.pageUrl}
  API       ${server.url}  (Authorization: Bearer ${server.token}; OpenAPI at /doc)
  model     ${model === undefined ? (script ?? "the demo script") : `${model.spec.provider}/${model.spec.id} (from ${model.from})`}
  sandbox   ${sandboxStatus}
  group     ${group === undefined ? "none (this process alone)" : `Redis ${group.url}`}

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
    }).pipe(Effect.provide(Announced))
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
