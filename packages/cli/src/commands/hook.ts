// `gatehouse hook <agent>`: Gatehouse as the pre-tool-call gate of Claude Code, Gemini CLI
// or Codex. Reads the agent's hook payload on stdin, judges the call with the project's
// gatehouse.json (found from the payload's cwd) and answers in the agent's own form.
// `gatehouse hook install|uninstall <agent>` edits that agent's settings file.
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import * as ShellAnalysis from "@gatehousejs/shell/ShellAnalysis"
import * as ShellGate from "@gatehousejs/shell/ShellGate"
import * as ShellParser from "@gatehousejs/shell/ShellParser"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Config from "../Config.ts"
import * as Hooks from "../Hooks.ts"

const usage = `usage: gatehouse hook claude-code|gemini-cli|codex        (the agent runs this; payload on stdin)
       gatehouse hook install claude-code|gemini-cli [--project|--user] [--cwd DIR]
       gatehouse hook uninstall claude-code|gemini-cli [--project|--user] [--cwd DIR]

As a hook, it judges the agent's tool call with the gatehouse.json of the payload's cwd:
shell commands by the shell gate, file reads and writes by read, edit and
external_directory rules, any other tool by its own name. It answers allow, deny (with a
reason the model reads) or ask in the agent's format; a payload it cannot read is never
allowed. install writes the hook entry into the agent's settings file (--project: DIR/.claude
or DIR/.gemini, the default; --user: your home's), leaving the rest of the file as it was;
uninstall removes only that entry.`

const MAX_PAYLOAD = 4 * 1024 * 1024

const readStdin = async (): Promise<string> => {
  const chunks: Array<Buffer> = []
  let size = 0
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length
    if (size > MAX_PAYLOAD) throw new Error(`the payload is larger than ${MAX_PAYLOAD} bytes`)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString("utf8")
}

const emit = (answer: Hooks.Answer): number => {
  if (answer.stdout !== "") process.stdout.write(answer.stdout)
  if (answer.stderr !== "") process.stderr.write(answer.stderr)
  return answer.exitCode
}

const describeRule = (decision: ShellGate.Decision): string =>
  `${decision.rule.permission} "${decision.rule.pattern}" ${decision.action} (${decision.source})`

// The verdict of the requests that count, with the reason a model or a person reads.
const verdictOf = (
  requests: ReadonlyArray<ShellGate.Judged>,
  notes: ReadonlyArray<string>
): Hooks.Verdict => {
  const denied = requests.find((request) => request.decision === "deny")
  if (denied !== undefined) {
    const rule = denied.rules.find((decision) => decision.action === "deny")
    return {
      decision: "deny",
      reason: `${denied.permission} ${rule === undefined ? denied.patterns.join(", ") : `${rule.pattern}: denied by ${describeRule(rule)}`}. The user's rules forbid this; do not retry it.`
    }
  }
  const asked = requests.filter((request) => request.decision === "ask")
  if (asked.length > 0) {
    const why = asked.map((request) => {
      const rule = request.rules.find((decision) => decision.action === "ask")
      const cause = request.escalated
        ? "not fully understood by the analysis"
        : rule === undefined
          ? "asks"
          : `asked by ${describeRule(rule)}`
      return `${request.permission} ${request.patterns.join(", ")}: ${cause}`
    })
    return { decision: "ask", reason: [...why, ...notes].join("; ") }
  }
  return { decision: "allow", reason: "allowed by the rules of gatehouse.json" }
}

const decide = async (agent: Hooks.Agent): Promise<number> => {
  let payload: unknown
  try {
    payload = JSON.parse(await readStdin())
  } catch (error) {
    return emit(
      Hooks.refuse(agent, `malformed payload: ${error instanceof Error ? error.message : String(error)}`)
    )
  }
  const call = Hooks.callOf(payload)
  if (call instanceof Hooks.PayloadError) return emit(Hooks.refuse(agent, call.message))
  const loaded = await Effect.runPromiseExit(Config.load({ cwd: call.cwd }))
  if (Exit.isFailure(loaded)) {
    const error = Exit.findErrorOption(loaded)
    return emit(
      Hooks.refuse(agent, error._tag === "Some" ? error.value.message : "cannot load gatehouse.json")
    )
  }
  const config = loaded.value
  if (call.kind === "other") {
    const rule = Permission.evaluate(call.permission, call.pattern, config.ruleset)
    const action = rule.action === "ask" && config.mode === "yolo" ? "allow" : rule.action
    const index = config.ruleset.indexOf(rule)
    const source = index === -1 ? "default" : (config.sources[index] ?? `rule ${index + 1}`)
    return emit(
      Hooks.answer(agent, {
        decision: action,
        reason: `${call.permission} ${call.pattern}: ${action} by ${rule.permission} "${rule.pattern}" (${source})`
      })
    )
  }
  const text = call.kind === "shell" ? call.command : Hooks.asShell(call)
  const judged = await Effect.runPromiseExit(
    ShellAnalysis.analyze(text, { cwd: call.cwd, projectRoot: config.directory, dialect: "bash" }).pipe(
      Effect.map((analysis) =>
        ShellGate.judge(analysis, { ruleset: config.ruleset, sources: config.sources, mode: config.mode })
      ),
      Effect.provide(ShellParser.layer)
    )
  )
  if (Exit.isFailure(judged)) return emit(Hooks.refuse(agent, "the shell parser could not be loaded"))
  const verdict = judged.value
  // A file call is judged by its path requests only: the shell text is just how they are made.
  const counted =
    call.kind === "shell"
      ? verdict.requests
      : verdict.requests.filter((request) => request.permission !== "bash")
  const notes =
    call.kind === "shell"
      ? [
          ...new Set(
            [...verdict.analysis.notes, ...verdict.analysis.commands.flatMap((command) => command.notes)].map(
              (note) => note.message
            )
          )
        ]
      : []
  return emit(Hooks.answer(agent, verdictOf(counted, notes)))
}

// ---------------------------------------------------------------------------------------
// install / uninstall

const settingsFile = (agent: "claude-code" | "gemini-cli", scope: "project" | "user", cwd: string): string =>
  NodePath.join(
    scope === "user" ? NodeOs.homedir() : cwd,
    agent === "claude-code" ? ".claude" : ".gemini",
    "settings.json"
  )

/** The command the agent runs: this very entry point, by absolute path (no npx at every call). */
const shellWord = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`
const hookCommand = (agent: Hooks.Agent): string =>
  `${shellWord(process.execPath)} ${shellWord(NodePath.resolve(process.argv[1] ?? "gatehouse"))} hook ${agent}`

// Our entry, whatever path it was installed from: a command ending in `hook <agent>` that names gatehouse.
const ours = (agent: Hooks.Agent) => (hook: unknown) => {
  const command =
    typeof hook === "object" && hook !== null ? (hook as { command?: unknown }).command : undefined
  return (
    typeof command === "string" && command.endsWith(` hook ${agent}`) && /gatehouse|\/cli\//.test(command)
  )
}

const EVENT = { "claude-code": "PreToolUse", "gemini-cli": "BeforeTool" } as const

const edit = (
  agent: "claude-code" | "gemini-cli",
  scope: "project" | "user",
  cwd: string,
  change: "install" | "uninstall"
): number => {
  const file = settingsFile(agent, scope, cwd)
  let original = ""
  try {
    original = NodeFs.readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      console.error(`gatehouse hook ${change}: cannot read ${file}: ${(error as Error).message}`)
      return 2
    }
    if (change === "uninstall") {
      console.log(`${file} does not exist: nothing to remove`)
      return 0
    }
  }
  let settings: Record<string, unknown> = {}
  if (original.trim() !== "") {
    try {
      const parsed: unknown = JSON.parse(original)
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error("not a JSON object")
      settings = parsed as Record<string, unknown>
    } catch (error) {
      console.error(
        `gatehouse hook ${change}: ${file} is not plain JSON (${(error as Error).message}); it was left untouched. Add this under "hooks" by hand: ${JSON.stringify({ [EVENT[agent]]: [entry(agent)] })}`
      )
      return 2
    }
  }
  const hooks = (
    typeof settings.hooks === "object" && settings.hooks !== null ? settings.hooks : {}
  ) as Record<string, unknown>
  const groups = Array.isArray(hooks[EVENT[agent]]) ? (hooks[EVENT[agent]] as Array<unknown>) : []
  const mine = ours(agent)
  const kept = groups
    .map((group) => {
      if (typeof group !== "object" || group === null || !Array.isArray((group as { hooks?: unknown }).hooks))
        return group
      const inner = (group as { hooks: Array<unknown> }).hooks.filter((hook) => !mine(hook))
      return inner.length === (group as { hooks: Array<unknown> }).hooks.length
        ? group
        : inner.length === 0
          ? undefined
          : { ...group, hooks: inner }
    })
    .filter((group) => group !== undefined)
  const installed = kept.length !== groups.length || JSON.stringify(kept) !== JSON.stringify(groups)
  if (change === "uninstall" && !installed) {
    console.log(`no gatehouse hook in ${file}: nothing to remove`)
    return 0
  }
  // An entry already there (perhaps from another path) was taken out above: install adds one.
  const next = change === "install" ? [...kept, entry(agent)] : kept
  const nextHooks = { ...hooks, [EVENT[agent]]: next }
  if (next.length === 0) delete nextHooks[EVENT[agent]]
  const updated = { ...settings, hooks: nextHooks }
  if (Object.keys(nextHooks).length === 0) delete (updated as Record<string, unknown>).hooks
  const indent = /^\{\n([ \t]+)"/.exec(original)?.[1] ?? "  "
  const body = `${JSON.stringify(updated, null, indent)}\n`
  NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true })
  const temporary = `${file}.gatehouse-${process.pid}.tmp`
  const fd = NodeFs.openSync(temporary, "w", 0o644)
  try {
    NodeFs.writeSync(fd, body)
    NodeFs.fsyncSync(fd)
  } finally {
    NodeFs.closeSync(fd)
  }
  NodeFs.renameSync(temporary, file)
  console.log(
    `${change === "install" ? "installed the gatehouse hook in" : "removed the gatehouse hook from"} ${file}`
  )
  return 0
}

const entry = (agent: "claude-code" | "gemini-cli") =>
  agent === "claude-code"
    ? { matcher: "*", hooks: [{ type: "command", command: hookCommand(agent) }] }
    : { matcher: ".*", hooks: [{ type: "command", name: "gatehouse", command: hookCommand(agent) }] }

export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [first, ...rest] = argv
  if (first === undefined || first === "--help" || first === "-h") {
    console.log(usage)
    return first === undefined ? 2 : 0
  }
  if ((Hooks.AGENTS as ReadonlyArray<string>).includes(first)) return decide(first as Hooks.Agent)
  if (first === "install" || first === "uninstall") {
    const agent = rest[0]
    if (agent !== "claude-code" && agent !== "gemini-cli") {
      console.error(
        `gatehouse hook ${first}: expected claude-code or gemini-cli, got ${JSON.stringify(agent ?? "")}\n\n${usage}`
      )
      return 2
    }
    let scope: "project" | "user" = "project"
    let cwd = process.cwd()
    for (let i = 1; i < rest.length; i++) {
      const arg = rest[i]!
      if (arg === "--project") scope = "project"
      else if (arg === "--user") scope = "user"
      else if (arg === "--cwd" && rest[i + 1] !== undefined) cwd = NodePath.resolve(rest[++i]!)
      else {
        console.error(`gatehouse hook ${first}: unknown option ${arg}\n\n${usage}`)
        return 2
      }
    }
    return edit(agent, scope, cwd, first)
  }
  console.error(`gatehouse hook: unknown agent or action "${first}"\n\n${usage}`)
  return 2
}
