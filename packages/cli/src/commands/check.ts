// `gatehouse check`: the gate's verdict for a command, without running it, with the trace
// (each simple command, the rule that decided each pattern and where it came from, the
// notes). `--jsonl` judges one JSON object per stdin line with the parser loaded once.
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Sandbox from "@gatehousejs/shell/Sandbox"
import * as ShellAnalysis from "@gatehousejs/shell/ShellAnalysis"
import * as ShellGate from "@gatehousejs/shell/ShellGate"
import * as ShellParser from "@gatehousejs/shell/ShellParser"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as CommandFlags from "../CommandFlags.ts"
import * as Config from "../Config.ts"
import { dataDirectory } from "../DataDirectory.ts"

const usage = `usage: gatehouse check [--config FILE [--agent NAME] [--only-config]] [--cwd DIR] [--shell bash|powershell] [--mode ask|auto|yolo] [--json] [--exit-code] [--no-approvals] [--] COMMAND
       gatehouse check --jsonl [--config FILE [--agent NAME]] [--cwd DIR] [--shell …] [--mode …] [--exit-code] < lines

Prints the verdict (allow, ask or deny) for COMMAND under the project's gatehouse.json and
its remembered approvals (as \`gatehouse run\` would decide it), and the trace: every
simple command, the rule that decided each pattern, and the notes.
Nothing is run.

  --config FILE   a configuration read after the user's and the project's gatehouse.json
                  (an opencode.json or .jsonc: its permission blocks)
  --agent NAME    with an opencode --config, also agent.NAME's permission block
  --only-config   read --config alone, not the user's or the project's gatehouse.json nor its
                  remembered approvals (CI on a checkout you do not trust: its own file could
                  set mode yolo)
  --cwd DIR       the directory the command runs in (default: the current directory); the
                  project is its repository root (the folder with .git), else DIR
  --shell NAME    bash (any POSIX shell) or powershell (default: the config's shell, else $SHELL)
  --mode MODE     ask, auto or yolo (default: the config's mode, else ask)
  --json          print { decision, requests, commands, notes } as JSON
  --jsonl         read { "command", "cwd"?, "shell"? } per stdin line, write one result per line
  --no-approvals  leave out the project's remembered "always" answers (as a fresh run)
  --exit-code     exit with the verdict: 0 allow, 1 ask, 2 deny (with --jsonl, the strictest
                  line's); 3 for an error (for pre-commit hooks and CI)

Exit status: 0 after a check whatever the verdict; 2 for a bad flag, a missing --cwd, an
unreadable or invalid config, or a malformed input line (3 with --exit-code).`

interface Flags {
  config?: string
  agent?: string
  cwd?: string
  shell?: string
  mode?: Permission.Mode
  json: boolean
  jsonl: boolean
  exitCode: boolean
  approvals: boolean
  onlyConfig: boolean
  command: Array<string>
}

const parseFlags = (argv: ReadonlyArray<string>): Flags | "help" | CommandFlags.UsageError => {
  const flags: Flags = {
    json: false,
    jsonl: false,
    exitCode: false,
    approvals: true,
    onlyConfig: false,
    command: []
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      flags.command.push(...argv.slice(i + 1))
      break
    }
    if (arg === "--help" || arg === "-h") return "help"
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1
    const name = eq === -1 ? arg : arg.slice(0, eq)
    const takeValue = (): string | CommandFlags.UsageError => {
      if (eq !== -1) return arg.slice(eq + 1)
      const value = argv[i + 1]
      if (value === undefined) return new CommandFlags.UsageError(`${name} needs a value`)
      i++
      return value
    }
    switch (name) {
      case "--config":
      case "--agent":
      case "--cwd":
      case "--shell":
      case "--mode": {
        const value = takeValue()
        if (value instanceof CommandFlags.UsageError) return value
        if (name === "--mode") {
          const parsed = CommandFlags.mode(value)
          if (parsed instanceof CommandFlags.UsageError) return parsed
          flags.mode = parsed
        } else if (name === "--shell") {
          if (ShellParser.knownDialect(value) === undefined) {
            return new CommandFlags.UsageError(
              `--shell must be bash or powershell (or a POSIX shell or pwsh), got "${value}"`
            )
          }
          flags.shell = value
        } else if (name === "--config") flags.config = value
        else if (name === "--agent") flags.agent = value
        else flags.cwd = value
        break
      }
      case "--json":
        flags.json = true
        break
      case "--jsonl":
        flags.jsonl = true
        break
      case "--exit-code":
        flags.exitCode = true
        break
      case "--no-approvals":
        flags.approvals = false
        break
      case "--only-config":
        flags.onlyConfig = true
        break
      default:
        if (arg.startsWith("-") && flags.command.length === 0)
          return new CommandFlags.UsageError(`unknown option ${arg}`)
        flags.command.push(...argv.slice(i))
        i = argv.length
    }
  }
  if (flags.jsonl && flags.command.length > 0)
    return new CommandFlags.UsageError("--jsonl reads commands from stdin: give no COMMAND")
  if (flags.jsonl && flags.json) return new CommandFlags.UsageError("--json and --jsonl cannot be combined")
  if (!flags.jsonl && flags.command.length === 0) return new CommandFlags.UsageError("no COMMAND given")
  if (flags.onlyConfig && flags.config === undefined)
    return new CommandFlags.UsageError("--only-config needs --config FILE")
  return flags
}

/**
 * Runs `gatehouse check`; resolves to the exit code.
 *
 * @since 0.0.0
 */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  // With --exit-code, 2 means deny, so an error has a status of its own.
  const end = argv.indexOf("--")
  const failed = (end === -1 ? argv : argv.slice(0, end)).includes("--exit-code") ? 3 : 2
  const flags = CommandFlags.settle("check", usage, parseFlags(argv), failed)
  if (typeof flags === "number") return flags
  const cwd = NodePath.resolve(flags.cwd ?? process.cwd())
  if (!isDirectory(cwd)) {
    console.error(`gatehouse check: --cwd ${cwd}: no such directory`)
    return failed
  }
  const config = await Config.loadForCommand("check", {
    cwd,
    config: flags.config,
    agent: flags.agent,
    only: flags.onlyConfig
  })
  if (config === undefined) return failed
  const shell = flags.shell ?? config.shell ?? process.env.SHELL ?? "bash"
  const dialect = ShellParser.knownDialect(shell) ?? "bash"
  const mode = flags.mode ?? config.mode
  const approvalsDirectory = NodePath.join(dataDirectory(), "approvals")
  // --only-config is that file alone: the checkout's remembered approvals are not read either.
  const approved =
    flags.approvals && !flags.onlyConfig
      ? await Effect.runPromise(
          ApprovalStore.readRemembered(approvalsDirectory, Instance.info(config.directory).projectID).pipe(
            Effect.map((rules) => rules.filter((rule) => rule.action === "allow")),
            Effect.catch((error) =>
              Effect.sync(() => {
                console.error(`gatehouse check: ${error.message}; judging without remembered approvals`)
                return []
              })
            )
          )
        )
      : []

  // Where `gatehouse run` spills truncated output (Truncate's default directory): always readable.
  const readable = ShellGate.readableDirectory(NodePath.join(dataDirectory(), "tool-output"))

  const scope = Effect.runSync(Scope.make())
  try {
    const built = await Effect.runPromiseExit(Layer.buildWithScope(ShellParser.layer, scope))
    if (Exit.isFailure(built)) {
      const error = Exit.findErrorOption(built)
      console.error(
        `gatehouse check: ${error._tag === "Some" ? error.value.message : "cannot load the shell parser"}`
      )
      return failed
    }
    const context = built.value
    const judge = (command: string, commandCwd: string, commandDialect: ShellParser.Dialect) =>
      ShellAnalysis.analyze(command, {
        cwd: commandCwd,
        projectRoot: config.directory,
        dialect: commandDialect
      }).pipe(
        Effect.map((analysis) =>
          ShellGate.judge(analysis, {
            ruleset: config.ruleset,
            sources: config.sources,
            mode,
            approved,
            readable
          })
        )
      )
    const run = <A>(effect: Effect.Effect<A, never, ShellParser.Service>): A =>
      Effect.runSync(Effect.provideContext(effect, context))
    if (flags.jsonl) {
      const { malformed, strictest } = await jsonl(judge, run, cwd, dialect)
      if (malformed > 0) return failed
      return flags.exitCode ? verdictStatus(strictest) : 0
    }
    const verdict = run(judge(flags.command.join(" "), cwd, dialect))
    // The policy the command would run under, next to the verdict (found without running bwrap).
    const settings = { ...Sandbox.defaults, ...config.sandbox }
    const tmp = settings.mode === "off" ? undefined : Sandbox.projectTmp(config.directory)
    const policy = Sandbox.policy({ settings, ruleset: config.ruleset, projectRoot: config.directory, tmp })
    const enforcer = settings.mode === "off" ? undefined : Sandbox.installed()
    if (flags.json) {
      console.log(
        JSON.stringify({
          ...toJson(verdict),
          sandbox: {
            mode: settings.mode,
            enforcer: enforcer ?? null,
            sandboxed: enforcer !== undefined,
            ...policy
          }
        })
      )
    } else
      console.log(
        `${render(verdict, config, mode)}\n\n${Sandbox.describe(settings, policy, enforcer).join("\n")}`
      )
    return flags.exitCode ? verdictStatus(verdict.decision) : 0
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const isDirectory = (path: string): boolean => {
  try {
    return NodeFs.statSync(path).isDirectory()
  } catch {
    return false
  }
}

const STATUS: Record<Permission.Action, number> = { allow: 0, ask: 1, deny: 2 }

/** The exit status `--exit-code` gives a verdict. */
const verdictStatus = (decision: Permission.Action): number => STATUS[decision]

type Judge = (
  command: string,
  cwd: string,
  dialect: ShellParser.Dialect
) => Effect.Effect<ShellGate.Verdict, never, ShellParser.Service>
type Run = <A>(effect: Effect.Effect<A, never, ShellParser.Service>) => A

// Lines are judged in batches, one Effect run per batch, and written in input order.
const BATCH = 256

/** Judges every line; resolves to how many were malformed and the strictest verdict. */
const jsonl = async (
  judge: Judge,
  run: Run,
  cwd: string,
  dialect: ShellParser.Dialect
): Promise<{ readonly malformed: number; readonly strictest: Permission.Action }> => {
  // Loaded here: only --jsonl reads lines.
  const lines = process
    .getBuiltinModule("node:readline")
    .createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })
  let malformed = 0
  let strictest: Permission.Action = "allow"
  let number = 0
  let batch: Array<{ readonly line: number; readonly input: ReturnType<typeof parseLine> }> = []
  const judgeBatch = async () => {
    if (batch.length === 0) return
    const items = batch
    batch = []
    const out = run(
      Effect.forEach(items, ({ line, input }) => {
        if (typeof input === "string") return Effect.succeed(JSON.stringify({ line, error: input }))
        const verdict = judge(
          input.command,
          input.cwd === undefined ? cwd : NodePath.resolve(cwd, input.cwd),
          input.shell === undefined ? dialect : (ShellParser.knownDialect(input.shell) ?? dialect)
        )
        return Effect.exit(verdict).pipe(
          Effect.map((exit) => {
            if (Exit.isSuccess(exit)) {
              if (STATUS[exit.value.decision] > STATUS[strictest]) strictest = exit.value.decision
              return JSON.stringify({ line, ...toJson(exit.value) })
            }
            malformed++
            return JSON.stringify({ line, error: "cannot judge this command (internal error)" })
          })
        )
      })
    )
    const chunk = `${out.join("\n")}\n`
    if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once("drain", resolve))
  }
  for await (const line of lines) {
    number++
    if (line.trim() === "") continue
    const input = parseLine(line)
    if (typeof input === "string") {
      malformed++
      process.stderr.write(`gatehouse check: line ${number}: ${input}\n`)
    }
    batch.push({ line: number, input })
    if (batch.length >= BATCH) await judgeBatch()
  }
  await judgeBatch()
  // Nothing more is read: release stdin so a pending read does not keep the process alive.
  lines.close()
  process.stdin.destroy()
  return { malformed, strictest }
}

const parseLine = (line: string): { command: string; cwd?: string; shell?: string } | string => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return "not valid JSON"
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "expected a JSON object"
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) {
    if (key !== "command" && key !== "cwd" && key !== "shell")
      return `unknown key "${key}" (expected command, cwd, shell)`
  }
  if (typeof record.command !== "string") return `"command" must be a string`
  if (record.cwd !== undefined && typeof record.cwd !== "string") return `"cwd" must be a string`
  if (record.shell !== undefined) {
    if (typeof record.shell !== "string" || ShellParser.knownDialect(record.shell) === undefined) {
      return `"shell" must be bash or powershell (or a POSIX shell or pwsh)`
    }
  }
  return {
    command: record.command,
    ...(record.cwd === undefined ? {} : { cwd: record.cwd as string }),
    ...(record.shell === undefined ? {} : { shell: record.shell as string })
  }
}

const allNotes = (analysis: ShellAnalysis.Analysis) => [
  ...analysis.notes.map((n) => ({ kind: n.kind, message: n.message })),
  ...analysis.commands.flatMap((c) =>
    c.notes.map((n) => ({ kind: n.kind, message: n.message, command: c.text }))
  )
]

/**
 * The `--json` shape of a verdict.
 *
 * @since 0.0.0
 */
export const toJson = (verdict: ShellGate.Verdict) => ({
  decision: verdict.decision,
  requests: verdict.requests.map((r) => ({
    permission: r.permission,
    patterns: r.patterns,
    always: r.always,
    ...(r.alwaysExact.length > 0 ? { alwaysExact: r.alwaysExact } : {}),
    decision: r.decision,
    needsPerson: r.needsPerson,
    ...(r.escalated ? { escalated: true } : {}),
    ...(r.approvedBy === undefined ? {} : { approvedBy: r.approvedBy }),
    rules: r.rules.map((d) => ({
      pattern: d.pattern,
      action: d.action,
      rule: { permission: d.rule.permission, pattern: d.rule.pattern, action: d.rule.action },
      source: d.source
    }))
  })),
  commands: verdict.analysis.commands.map((c) => ({
    text: c.text,
    argv: c.argv,
    prefix: c.prefix,
    ...(c.canonical === undefined ? {} : { canonical: c.canonical }),
    ...(c.via === undefined ? {} : { via: c.via })
  })),
  notes: allNotes(verdict.analysis)
})

const render = (verdict: ShellGate.Verdict, config: Config.Info, mode: Permission.Mode): string => {
  const { analysis } = verdict
  const lines: Array<string> = []
  lines.push(`verdict: ${verdict.decision}`)
  lines.push(
    `config: ${config.files.length === 0 ? "defaults (no gatehouse.json)" : config.files.join(" + ")} · project ${config.directory} · mode ${mode} · ${analysis.dialect} · cwd ${analysis.cwd}`
  )
  lines.push("", "commands:")
  if (analysis.commands.length === 0) lines.push("  (none)")
  analysis.commands.forEach((c, i) => {
    const how = c.via === undefined ? "" : `   [via ${c.via}]`
    lines.push(`  ${i + 1}. ${c.text}${how}`)
    if (c.canonical !== undefined)
      lines.push(`     canonical form: ${c.canonical.join(" ")} (global options moved out; judged too)`)
    if (c.prefix.length > 0 && !c.changesDirectory) lines.push(`     prefix: ${c.prefix.join(" ")}`)
    for (const n of c.notes) lines.push(`     ${n.kind}: ${n.message}`)
  })
  const canonicalPatterns = new Set(analysis.commands.flatMap(ShellGate.canonicalPatterns))
  lines.push("", "requests:")
  if (verdict.requests.length === 0) lines.push("  (none)")
  for (const r of verdict.requests) {
    const auto =
      r.approvedBy === undefined
        ? ""
        : r.approvedBy === "approval"
          ? " (by a remembered approval)"
          : ` (approved by mode ${r.approvedBy})`
    const escalated =
      r.escalated && r.ruled === "allow"
        ? " (escalated: not fully modelled, or it changes what later commands run)"
        : ""
    lines.push(
      `  ${r.permission}: ${r.decision}${auto}${escalated}${r.needsPerson ? " · needs a person in auto mode" : ""}`
    )
    for (const d of r.rules) {
      const form = canonicalPatterns.has(d.pattern) && r.permission === "bash" ? "   [canonical form]" : ""
      lines.push(`    ${d.action.padEnd(5)} ${d.pattern}${form}`)
      lines.push(
        `          by ${d.rule.permission} ${JSON.stringify(d.rule.pattern)} ${d.rule.action} — ${d.source}`
      )
    }
    const remembered = [...r.always, ...r.alwaysExact.map((text) => `exactly ${JSON.stringify(text)}`)]
    if (remembered.length > 0) lines.push(`    always would remember: ${remembered.join(" · ")}`)
  }
  const notes = analysis.notes
  if (notes.length > 0) {
    lines.push("", "notes:")
    for (const n of notes) lines.push(`  ${n.kind}: ${n.message}`)
  }
  return lines.join("\n")
}
