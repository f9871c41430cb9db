/**
 * The `bash` tool: an `effect/ai` `Tool` that runs one shell command through the whole
 * pipeline — analysis and gate, permission asks, a process in its own group, output
 * streamed into a spill sink — and returns what the model reads.
 *
 * Order, always: analyse -> ask every request of the gate through `Permission`
 * (`external_directory`, `edit`, `read`, `bash`, with the call id in `tool`) -> only then spawn.
 * A denied or rejected ask fails the call and the process is never started.
 *
 * An Effect agent adds {@link handlers} (with {@link layer}) to its `Toolkit`; callers
 * without a model use {@link run}.
 *
 * @since 0.0.0
 */
import * as NodePath from "node:path"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Sandbox from "./Sandbox.ts"
import * as ShellContext from "./ShellContext.ts"
import * as ShellGate from "./ShellGate.ts"
import * as ShellParser from "./ShellParser.ts"
import * as ShellProcess from "./ShellProcess.ts"

// ---------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------

/**
 * What the model passes: the command, an optional timeout (ms) and working directory.
 *
 * @since 0.0.0
 */
export const Parameters = Schema.Struct({
  command: Schema.String.annotate({
    description: "The command to run, exactly as it would be typed into the shell"
  }),
  timeout: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThan(0)).annotate({
      description:
        "Optional timeout in milliseconds after which the command and everything it started is stopped"
    })
  ),
  workdir: Schema.optionalKey(
    Schema.String.annotate({
      description:
        "Directory to run the command in, absolute or relative to the project directory (the default). Use this instead of `cd dir && ...`."
    })
  ),
  unsandboxed: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "Run outside the sandbox. Only for a command the sandbox refused (the result says so); a person is always asked."
    })
  )
})
/**
 * @since 0.0.0
 */
export type Parameters = typeof Parameters.Type

/**
 * The result. `output` is what the model reads: the kept output (or `(no output)`), the
 * truncation notice naming the file with the full output, and a status block when the exit
 * code is not 0, the command timed out or was interrupted. `exitCode` is null when the
 * shell died by `signal`. Preliminary results (progress) have the same shape, with the tail
 * of the output so far and `exitCode` null.
 *
 * @since 0.0.0
 */
export const Result = Schema.Struct({
  output: Schema.String,
  exitCode: Schema.NullOr(Schema.Number),
  signal: Schema.optionalKey(Schema.String),
  timedOut: Schema.Boolean,
  interrupted: Schema.Boolean,
  truncated: Schema.Boolean,
  outputPath: Schema.optionalKey(Schema.String),
  title: Schema.String,
  /** Whether the command ran inside the kernel sandbox. */
  sandboxed: Schema.Boolean,
  /** What the sandbox refused, when the output says it refused something. */
  sandboxRefusal: Schema.optionalKey(Schema.String),
  /**
   * What held every process the command started (see `ShellProcess.Containment`); with
   * `none`, the output says why and what may have escaped. Absent from progress results.
   */
  containment: Schema.optionalKey(Schema.Literals(["sandbox", "cgroup", "pid-namespace", "none"]))
})
/**
 * @since 0.0.0
 */
export type Result = typeof Result.Type

/**
 * How a call can fail: a permission was denied, rejected or corrected, the configured
 * shell is refused or missing, or the process could not start.
 *
 * @since 0.0.0
 */
export type Error =
  | Permission.DeniedError
  | Permission.RejectedError
  | Permission.CorrectedError
  | ShellProcess.UnsupportedShellError
  | ShellProcess.ShellNotFoundError
  | ShellProcess.SpawnError
  | Sandbox.UnavailableError

/**
 * A failure as the tool reports it: the error's tag (so a session can tell a person's
 * rejection from a configured deny) and its message (what the model reads).
 *
 * @since 0.0.0
 */
export const Failure = Schema.Struct({
  _tag: Schema.Literals([
    "PermissionDeniedError",
    "PermissionRejectedError",
    "PermissionCorrectedError",
    "ShellUnsupportedError",
    "ShellNotFoundError",
    "ShellSpawnError",
    "SandboxUnavailableError"
  ]),
  message: Schema.String
})
/**
 * @since 0.0.0
 */
export type Failure = typeof Failure.Type

// ---------------------------------------------------------------------------------------
// The tool
// ---------------------------------------------------------------------------------------

/**
 * The numbers the description states.
 *
 * @since 0.0.0
 */
export interface DescriptionOptions {
  readonly defaultTimeout?: number | undefined
  readonly maxTimeout?: number | undefined
  readonly maxLines?: number | undefined
  readonly maxBytes?: number | undefined
}

/**
 * The tool description the model reads, stating the limits it runs under.
 *
 * @since 0.0.0
 */
export const description = (options: DescriptionOptions = {}): string => {
  const defaultTimeout = options.defaultTimeout ?? ShellContext.DEFAULT_TIMEOUT
  const maxTimeout = options.maxTimeout ?? ShellContext.DEFAULT_MAX_TIMEOUT
  const maxLines = options.maxLines ?? Truncate.MAX_LINES
  const maxBytes = options.maxBytes ?? Truncate.MAX_BYTES
  return [
    "Runs a shell command on the user's machine and returns its output and exit status.",
    "",
    "- Every call starts a new, non-interactive shell process (`<shell> -c <command>`). Nothing carries over from one call to the next: not the directory, not variables, not aliases. To work in another directory pass `workdir` rather than `cd dir && ...`.",
    "- There is no terminal and stdin is empty: a command that waits for input gets end-of-file at once. Use non-interactive flags (`--yes`, `--no-pager`, `-y`).",
    "- stdout and stderr come back merged, in the order they were written.",
    `- The command is stopped after \`timeout\` milliseconds (default ${defaultTimeout}, at most ${maxTimeout}). When a call ends, every process it started, background jobs included, is stopped too: do not start servers or watchers expecting them to keep running.`,
    `- Output longer than ${maxLines} lines or ${maxBytes} bytes is shortened to its beginning and its end; the complete output is saved to a file whose path is given. Read or search that file instead of running the command again.`,
    "- A non-zero exit code, a timeout or an interruption is stated at the end of the output.",
    "- Some commands need the user's approval first. A denied or rejected command did not run: do not retry it unchanged.",
    "- Where the machine allows it, commands run in a sandbox: only the project directory and a private /tmp are writable, credentials in the home directory are hidden, and there is no network unless the user allowed it. A refusal by the sandbox is stated at the end of the output; `unsandboxed: true` asks the user to run that command outside the sandbox."
  ].join("\n")
}

/**
 * The `bash` tool definition. Failures are returned to the model as results (`{ _tag,
 * message }`), so a denied command is something it reads, not an error that ends the turn.
 *
 * @since 0.0.0
 */
export const tool = Tool.make("bash", {
  description: description(),
  parameters: Parameters,
  success: Result,
  failure: Failure,
  failureMode: "return",
  toModelOutput: (result: Result) => [Prompt.makePart("text", { text: result.output })]
})

/**
 * A toolkit holding only {@link tool}; merge it into an agent's toolkit.
 *
 * @since 0.0.0
 */
export const toolkit = Toolkit.make(tool)

// ---------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------

/**
 * Options of one direct call.
 *
 * @since 0.0.0
 */
export interface RunOptions {
  /** The tool call id (default: the context's, else a fresh `tool_…` id). */
  readonly callID?: string | undefined
  /** Receives progress: the tail of the output so far, at most ~10 times a second. */
  readonly onProgress?: ((progress: Result) => Effect.Effect<void>) | undefined
}

/**
 * @since 0.0.0
 */
export interface Interface {
  /** Runs one call with the current {@link ShellContext}. */
  readonly run: (params: Parameters, options?: RunOptions) => Effect.Effect<Result, Error>
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/shell/ShellTool") {}

/**
 * At most this many characters of output in a progress update.
 *
 * @since 0.0.0
 */
export const PROGRESS_CHARS = 30_000

/**
 * Progress updates are at least this far apart (ms).
 *
 * @since 0.0.0
 */
export const PROGRESS_INTERVAL = 100

// The trace of one pattern for a person deciding: which rule decided it and where it is.
const statusBlock = (outcome: ShellProcess.Outcome, timeout: number, maxTimeout: number): string => {
  const lines: Array<string> = []
  if (outcome.timedOut) {
    lines.push(
      `The command timed out after ${timeout} ms and was stopped, with every process it started. ` +
        `If it needs more time and is not waiting for input, run it again with a larger timeout (at most ${maxTimeout} ms).`
    )
  }
  if (outcome.interrupted)
    lines.push("The user interrupted the command; it was stopped, with every process it started.")
  if (outcome.exitCode !== null && outcome.exitCode !== 0) lines.push(`Exit code: ${outcome.exitCode}`)
  // After a timeout or an interruption the signal is ours; otherwise it is news.
  if (outcome.signal !== null && !outcome.timedOut && !outcome.interrupted) {
    lines.push(`Terminated by signal ${outcome.signal}`)
  }
  if (outcome.killed > 0) {
    lines.push(
      `${outcome.killed} process${outcome.killed === 1 ? "" : "es"} the command started ${outcome.killed === 1 ? "was" : "were"} still running after it ended and ${outcome.killed === 1 ? "was" : "were"} stopped${outcome.escaped > 0 ? ` (${outcome.escaped} had left its process group)` : ""}.`
    )
  }
  if (outcome.containment.kind === "none") {
    lines.push(
      `Nothing held this command's processes (${outcome.containment.reason}): one it started that cleared its environment and left its process group (env -i setsid …) could not be found, and may still be running.`
    )
  }
  if (!outcome.complete) {
    lines.push(
      "Output written after the command exited was not all read: a process it started outside its process group still holds the output."
    )
  }
  return lines.length === 0 ? "" : `<command_status>\n${lines.join("\n")}\n</command_status>`
}

// A refusal by the kernel is news of its own: not a bug in the command, and not to be
// worked around without a person.
const refusalBlock = (refused: string): string =>
  `\n<sandbox_status>\nThe sandbox refused ${refused}. This is a policy of this workspace, not an error in the command. ` +
  "If the command must do this, ask for it to run outside the sandbox (`unsandboxed: true`); a person decides.\n</sandbox_status>"

const plantedBlock = (planted: ReturnType<typeof Sandbox.removePlanted>): string => {
  const lines: Array<string> = []
  if (planted.removed.length > 0)
    lines.push(
      `The command created ${planted.removed.join(", ")}, which configure${planted.removed.length === 1 ? "s" : ""} what later commands run; the sandbox removed ${planted.removed.length === 1 ? "it" : "them"} again. ` +
        "Such files are written with the write or edit tool, which asks a person."
    )
  if (planted.failed.length > 0)
    lines.push(
      `The command created ${planted.failed.join(", ")}, which configure${planted.failed.length === 1 ? "s" : ""} what later commands run, and it could not be removed. ` +
        "Nothing should run outside the sandbox in this project until a person has looked at it."
    )
  if (planted.kept.length > 0)
    lines.push(
      `The command (or an editor meanwhile) created ${planted.kept.join(", ")}, which configures later commands.`
    )
  return lines.length === 0 ? "" : `\n<sandbox_status>\n${lines.join("\n")}\n</sandbox_status>`
}

/**
 * The live service: needs `Permission`, `Truncate` and the `ShellParser` the gate uses.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Service, never, Permission.Service | Truncate.Service | ShellParser.Service> =
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const permission = yield* Permission.Service
      const truncate = yield* Truncate.Service
      // Projects' sandbox /tmp folders unused for a week go (looked for once a day).
      const now = yield* Clock.currentTimeMillis
      Sandbox.reapProjectTmpsDaily(Sandbox.projectTmpParent(), now)
      const judge = yield* ShellGate.make
      // The truncation hint points the model at the spill directory: it may always read it.
      const spillDirectories = () => ShellGate.readableDirectory(truncate.directory)
      // Which sandbox this machine offers, found on the first command (it runs bwrap once).
      let available: ReturnType<typeof Sandbox.detect> | undefined
      // Outside the sandbox, where no cgroup can be made: bubblewrap for a PID namespace alone.
      const pidNamespace = (locations: ReadonlyArray<string>) => () => {
        available ??= Sandbox.detect(locations)
        return available.kind === "bwrap" ? available.path : undefined
      }
      const plan = (
        ctx: ShellContext.Shape,
        projectRoot: string
      ): Effect.Effect<Sandbox.Plan, Sandbox.UnavailableError> =>
        Effect.flatMap(
          Effect.service(Sandbox.Locations),
          (locations): Effect.Effect<Sandbox.Plan, Sandbox.UnavailableError> => {
            const settings = { ...Sandbox.defaults, ...ctx.sandbox }
            if (settings.mode === "off") {
              return Effect.succeed({
                sandboxed: false,
                reason: "the sandbox is off",
                policy: Sandbox.unconfined
              })
            }
            const tmp = Sandbox.projectTmp(projectRoot)
            const policy = Sandbox.policy({
              settings,
              ruleset: ctx.ruleset,
              projectRoot,
              home: ctx.env?.HOME,
              tmp,
              env: ctx.env ?? process.env
            })
            if (settings.mode === "enforce" && policy.complete === false) {
              return Effect.fail(
                new Sandbox.UnavailableError({
                  message: `the sandbox is enforced but cannot hold every rule: ${policy.notes.join("; ")}. Nothing was run; name the protected paths literally in the rules.`
                })
              )
            }
            available ??= Sandbox.detect(locations)
            if (available.kind !== undefined) return Effect.succeed({ sandboxed: true, ...available, policy })
            if (settings.mode === "enforce") {
              return Effect.fail(
                new Sandbox.UnavailableError({
                  message: `the sandbox is enforced but unavailable: ${available.reason}. Nothing was run.`
                })
              )
            }
            return Effect.succeed({ sandboxed: false, reason: available.reason, policy })
          }
        )

      const execute = Effect.fnUntraced(function* (
        params: Parameters,
        ctx: ShellContext.Shape,
        projectRoot: string,
        options: RunOptions
      ) {
        const directory = NodePath.resolve(projectRoot, ctx.directory ?? projectRoot)
        const cwd = params.workdir === undefined ? directory : NodePath.resolve(directory, params.workdir)
        const maxTimeout = ctx.maxTimeout ?? ShellContext.DEFAULT_MAX_TIMEOUT
        const requested = params.timeout ?? ctx.defaultTimeout ?? ShellContext.DEFAULT_TIMEOUT
        const timeout = Math.max(1, Math.min(Math.floor(requested), maxTimeout))
        const shell = yield* ShellProcess.selectShell({ configured: ctx.shell, env: ctx.env })
        const callID = options.callID ?? ctx.callID ?? Identifier.ascending("tool")
        const title = params.command

        const verdict = yield* judge(params.command, {
          cwd,
          projectRoot,
          dialect: shell.dialect,
          ruleset: ctx.ruleset,
          mode: ctx.mode ?? permission.mode,
          readable: spillDirectories(),
          ...(ctx.sources === undefined ? {} : { sources: ctx.sources })
        })
        // A denied request goes first: nobody is asked about a call that a rule forbids
        // anyway, and `ask` fails on it at once, before anything waits.
        const requests = [
          ...verdict.requests.filter((request) => request.decision === "deny"),
          ...verdict.requests.filter((request) => request.decision !== "deny")
        ]
        for (const request of requests) {
          yield* permission.ask({
            sessionID: ctx.sessionID,
            permission: request.permission,
            patterns: request.patterns,
            always: request.always,
            alwaysExact: request.alwaysExact,
            ...(request.subject === undefined ? {} : { subject: request.subject }),
            metadata: {
              ...request.metadata,
              rules: request.rules.map(({ pattern, action, rule, source }) => ({
                pattern,
                action,
                rule,
                source
              }))
            },
            tool: {
              callID,
              name: "bash",
              ...(ctx.messageID === undefined ? {} : { messageID: ctx.messageID })
            },
            ruleset: ShellGate.rulesetFor(request, ctx.ruleset),
            needsPerson: request.needsPerson,
            ...(request.escalated ? { unmodelled: true } : {}),
            ...(request.exactApprovals ? { exactApprovals: true } : {})
          })
        }

        let sandbox = yield* plan(ctx, projectRoot)
        if (params.unsandboxed === true && sandbox.sandboxed) {
          // Its own permission, asked with every simple command (as `bash` is: a rule for
          // `npm install *` must not cover `npm install; curl … | sh`); no mode settles it.
          const shellRequest = verdict.requests.find((request) => request.permission === "bash")
          // Only rules written for it decide: a catch-all `"*": "allow"` is not consent to this,
          // and a command the analysis could not model always goes to a person.
          const own = ctx.ruleset.filter((rule) => rule.permission === "bash_unsandboxed")
          // A pattern under another alias of a cmdlet counts only where a rule names it.
          const aliases = new Set(shellRequest?.aliases ?? [])
          const decideOwn = aliases.size === 0 ? undefined : Ruleset.evaluator(own)
          const patterns =
            shellRequest === undefined
              ? [params.command]
              : [
                  ...shellRequest.patterns.filter(
                    (pattern) =>
                      !aliases.has(pattern) || decideOwn?.("bash_unsandboxed", pattern).pattern !== "*"
                  ),
                  params.command
                ]
          const unsandboxedRules: Permission.Ruleset =
            shellRequest?.escalated === true
              ? [
                  ...own,
                  ...patterns.map((pattern) => ({
                    permission: "bash_unsandboxed",
                    pattern,
                    action: "ask" as const
                  })),
                  ...own.filter((rule) => rule.action === "deny")
                ]
              : own
          yield* permission.ask({
            sessionID: ctx.sessionID,
            permission: "bash_unsandboxed",
            patterns,
            always: [],
            alwaysExact: [params.command],
            subject: params.command,
            metadata: { command: params.command, cwd },
            tool: {
              callID,
              name: "bash",
              ...(ctx.messageID === undefined ? {} : { messageID: ctx.messageID })
            },
            ruleset: unsandboxedRules,
            needsPerson: true
          })
          sandbox = {
            sandboxed: false,
            reason: "a person approved running it outside the sandbox",
            policy: sandbox.policy
          }
        }

        const progress = (output: string): Result => ({
          output,
          exitCode: null,
          timedOut: false,
          interrupted: false,
          truncated: false,
          title,
          sandboxed: sandbox.sandboxed
        })
        const onProgress = options.onProgress
        if (onProgress !== undefined) yield* onProgress(progress(""))

        const sink = yield* truncate.spill({ direction: "both" })
        let fresh = false
        const onOutput =
          onProgress === undefined
            ? sink.append
            : (chunk: Uint8Array) =>
                Effect.map(sink.append(chunk), () => {
                  fresh = true
                })
        const ticker =
          onProgress === undefined
            ? undefined
            : yield* Effect.forkScoped(
                Effect.forever(
                  Effect.gen(function* () {
                    yield* Effect.sleep(PROGRESS_INTERVAL)
                    if (!fresh) return
                    fresh = false
                    yield* onProgress(progress(yield* sink.preview(PROGRESS_CHARS)))
                  })
                )
              )

        // A host allow-list: the command's only way out is a proxy of its own, closed after it.
        const allowHosts =
          sandbox.sandboxed && sandbox.kind === "bwrap" ? sandbox.policy.allowHosts : undefined
        const proxy =
          allowHosts === undefined
            ? undefined
            : yield* Effect.acquireRelease(
                Effect.promise(() => Sandbox.startProxy(allowHosts)),
                (started) => Effect.promise(() => started.close())
              )
        // What configures later commands but is missing cannot be bound read-only: checked after.
        const missing = sandbox.sandboxed ? Sandbox.missingConfiguring(projectRoot) : []
        const outcome = yield* ShellProcess.run({
          shell,
          command: params.command,
          cwd,
          env: ctx.env,
          timeout,
          onOutput,
          onStderr: ctx.stderr,
          abort: ctx.abort,
          wrapper: Sandbox.wrapper(sandbox, cwd, proxy?.directory),
          pidNamespace: pidNamespace(yield* Sandbox.Locations),
          cgroupParent: yield* ShellProcess.CgroupParent
        })
        if (ticker !== undefined) yield* Fiber.interrupt(ticker)
        const spilled = yield* sink.finish
        const body = spilled.content === "" ? "(no output)" : spilled.content
        const blockedHosts = proxy?.refused ?? []
        const refused =
          blockedHosts.length > 0
            ? `a connection to ${blockedHosts.join(", ")} (not in sandbox.network.allow)`
            : sandbox.sandboxed && outcome.exitCode !== 0
              ? Sandbox.refusal(spilled.content, sandbox.policy)
              : undefined
        const planted = Sandbox.removePlanted(projectRoot, missing)
        const status =
          statusBlock(outcome, timeout, maxTimeout) +
          (refused === undefined ? "" : refusalBlock(refused)) +
          plantedBlock(planted)
        return {
          output: status === "" ? body : `${body}${body.endsWith("\n") ? "" : "\n"}\n${status}`,
          exitCode: outcome.exitCode,
          ...(outcome.signal === null ? {} : { signal: outcome.signal }),
          timedOut: outcome.timedOut,
          interrupted: outcome.interrupted,
          truncated: spilled.truncated,
          ...(spilled.truncated && spilled.outputPath !== undefined
            ? { outputPath: spilled.outputPath }
            : {}),
          title,
          sandboxed: sandbox.sandboxed,
          ...(refused === undefined ? {} : { sandboxRefusal: refused }),
          containment: outcome.containment.kind
        } satisfies Result
      }, Effect.scoped)

      const run = Effect.fn("ShellTool.run")(function* (params: Parameters, options: RunOptions = {}) {
        const ctx = yield* ShellContext.Service
        const instance = yield* Effect.serviceOption(Instance.Current)
        if (Option.isSome(instance)) {
          const projectRoot = NodePath.resolve(ctx.projectRoot ?? instance.value.directory)
          return yield* execute(params, ctx, projectRoot, options).pipe(
            Effect.provideService(Instance.Current, instance.value)
          )
        }
        const projectRoot = NodePath.resolve(ctx.projectRoot ?? process.cwd())
        return yield* execute(params, ctx, projectRoot, options).pipe(Instance.provide(projectRoot))
      })

      return Service.of({ run })
    })
  )

/**
 * {@link layer} with its own `Truncate` (built from `truncate`: limits, directory) and
 * `ShellParser`; needs only `Permission`.
 *
 * @since 0.0.0
 */
export const layerWith = (
  options: { readonly truncate?: Truncate.LayerOptions | undefined } = {}
): Layer.Layer<Service, ShellParser.LoadError, Permission.Service> =>
  layer.pipe(Layer.provide([Truncate.layerWith(options.truncate), ShellParser.layer]))

/**
 * Runs one call through the pipeline with the current {@link ShellContext}.
 *
 * @example
 * ```ts
 * import { Permission } from "@gatehousejs/permission"
 * import { ShellContext, ShellTool } from "@gatehousejs/shell"
 * import { Effect, Layer } from "effect"
 *
 * const Live = ShellTool.layerWith().pipe(Layer.provide(Permission.layerMemory))
 * const allowEcho = [{ permission: "bash", pattern: "echo *", action: "allow" as const }]
 * const result = await Effect.runPromise(
 *   ShellTool.run({ command: "echo hi" }).pipe(
 *     Effect.provideService(ShellContext.Service, { ...ShellContext.defaults(), ruleset: allowEcho }),
 *     Effect.provide(Live)
 *   )
 * )
 * result.output // "hi\n"
 * ```
 * @since 0.0.0
 */
export const run = (params: Parameters, options?: RunOptions): Effect.Effect<Result, Error, Service> =>
  Effect.gen(function* () {
    const service = yield* Service
    return yield* service.run(params, options)
  })

/**
 * The handler layer an Effect agent provides with its `Toolkit`: runs each `bash` call
 * with the current {@link ShellContext}, the model's tool call id, and progress as
 * preliminary results.
 *
 * @since 0.0.0
 */
export const handlers = toolkit.toLayer(
  Effect.gen(function* () {
    const service = yield* Service
    return toolkit.of({
      bash: (params, handler) =>
        service
          .run(params, { callID: handler.toolCallId, onProgress: handler.preliminary })
          .pipe(Effect.mapError((error): Failure => ({ _tag: error._tag, message: error.message })))
    })
  })
)
