// `gatehouse hook <agent>`: Gatehouse as the pre-tool-call gate of Claude Code, Gemini CLI
// or Codex. Reads the agent's hook payload on stdin, judges the call with the project's
// gatehouse.json (found from the payload's cwd) and answers in the agent's own form.
// `gatehouse hook install|uninstall <agent>` edits that agent's settings file.
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Defaults from "@gatehousejs/permission/Defaults"
import * as PermissionConfig from "@gatehousejs/permission/PermissionConfig"
import * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as ShellAnalysis from "@gatehousejs/shell/ShellAnalysis"
import * as ShellGate from "@gatehousejs/shell/ShellGate"
import * as ShellParser from "@gatehousejs/shell/ShellParser"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Config from "../Config.ts"
import * as Hooks from "../Hooks.ts"
import * as JsoncEdit from "../JsoncEdit.ts"

const usage = `usage: gatehouse hook claude-code|gemini-cli|codex        (the agent runs this; payload on stdin)
       gatehouse hook install claude-code|gemini-cli [--project|--user] [--cwd DIR]
       gatehouse hook uninstall claude-code|gemini-cli [--project|--user] [--cwd DIR]

As a hook, it judges the agent's tool call with the configuration of the payload's cwd
(your gatehouse.json, then its project's, at the repository root):
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
  notes: ReadonlyArray<string>,
  escalation = "not fully understood by the analysis"
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
        ? escalation
        : rule === undefined
          ? "asks"
          : `asked by ${describeRule(rule)}`
      return `${request.permission} ${request.patterns.join(", ")}: ${cause}`
    })
    return { decision: "ask", reason: [...why, ...notes].join("; ") }
  }
  const byDefaults = requests.every((request) =>
    request.rules.every((decision) => decision.action !== "allow" || isDefault(decision.source))
  )
  return { decision: "allow", reason: "allowed by the rules of gatehouse.json", byDefaults }
}

const isDefault = Defaults.isSource

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const

/**
 * The strictest verdict on a call of another tool, over every name and subject it may be
 * written as: the tool's name as the agent gives it and as a rule string names it
 * (`WebFetch` and `webfetch`: `"deny": ["WebFetch"]` is a rule for `webfetch`), and for a
 * URL, as given, in its canonical form (scheme and host lower-cased, default port dropped,
 * `..` resolved, a trailing dot of the host dropped) and as `domain:HOST` for the host and
 * each domain above it (Claude Code's `WebFetch(domain:example.com)`). A rule for any of them decides as strictly as it says:
 * `HTTPS://EVIL.COM/` does not pass a deny of `https://evil.com/*`.
 */
const strictest = (
  tool: string,
  subject: string,
  ruleset: Ruleset.Ruleset
): { readonly rule: Ruleset.Rule; readonly permission: string; readonly pattern: string } => {
  const names = [...new Set([tool, PermissionConfig.permissionOf(tool)])]
  const subjects = [subject, ...urlForms(subject)]
  let found: { rule: Ruleset.Rule; permission: string; pattern: string } | undefined
  for (const permission of names) {
    for (const pattern of subjects) {
      const rule = Ruleset.evaluate(permission, pattern, ruleset)
      if (found === undefined || STRICTNESS[rule.action] > STRICTNESS[found.rule.action])
        found = { rule, permission, pattern }
    }
  }
  return found!
}

const urlForms = (subject: string): Array<string> => {
  let url: URL
  try {
    url = new URL(subject.trim())
  } catch {
    return []
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return []
  const host = url.hostname.replace(/\.+$/, "")
  const canonical = url.href
  url.hostname = host
  // A deny of a domain holds for its subdomains too (`domain:evil.com` for `x.evil.com`).
  const labels = host.split(".")
  const domains = labels
    .slice(0, Math.max(1, labels.length - 1))
    .map((_, i) => `domain:${labels.slice(i).join(".")}`)
  return [...new Set([canonical, url.href, ...domains])].filter((form) => form !== subject)
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
  const call = Hooks.callOf(agent, payload)
  if (call instanceof Hooks.PayloadError) return emit(Hooks.refuse(agent, call.message))
  const loaded = await Effect.runPromiseExit(Config.load({ cwd: call.cwd, unsandboxed: true }))
  if (Exit.isFailure(loaded)) {
    const error = Exit.findErrorOption(loaded)
    return emit(
      Hooks.refuse(agent, error._tag === "Some" ? error.value.message : "cannot load gatehouse.json")
    )
  }
  const config = loaded.value
  // Said where the agent logs a hook's stderr: what of the repository's file was left out.
  for (const note of config.notes) process.stderr.write(`gatehouse hook: ${note}\n`)
  if (call.kind === "other") {
    const { rule, permission, pattern } = strictest(call.permission, call.pattern, config.ruleset)
    const action = rule.action === "ask" && config.mode === "yolo" ? "allow" : rule.action
    const index = config.ruleset.indexOf(rule)
    const source = index === -1 ? "default" : (config.sources[index] ?? `rule ${index + 1}`)
    const judged =
      permission === call.permission && pattern === call.pattern ? "" : ` (as ${permission} ${pattern})`
    return emit(
      Hooks.answer(agent, {
        decision: action,
        reason: `${call.permission} ${call.pattern}${judged}: ${action} by ${rule.permission} "${rule.pattern}" (${source})`,
        byDefaults: action === "allow" && rule.action === "allow" && isDefault(source)
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
  const all = [...verdict.analysis.notes, ...verdict.analysis.commands.flatMap((command) => command.notes)]
  if (call.kind === "shell")
    return emit(Hooks.answer(agent, verdictOf(counted, [...new Set(all.map((note) => note.message))])))
  // A file call escalates only by what it writes (a git hook, .npmrc, gatehouse.json): say so.
  const writes = [...new Set(all.filter((note) => note.kind === "executes").map((note) => note.message))]
  return emit(
    Hooks.answer(agent, verdictOf(counted, writes, "a person must approve it, whatever the rules allow"))
  )
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

const EVENT = Hooks.EVENT

type Found = { readonly container: JsoncEdit.Node; readonly index: number }

const memberOf = (node: JsoncEdit.Node | undefined, key: string) =>
  node?.kind === "object" ? node.members.findIndex((member) => member.key === key) : -1

// Our entry, as the outermost element that holds nothing else: the hook, its group, the
// event's list or the whole "hooks" block.
const findOurs = (root: JsoncEdit.Node, agent: "claude-code" | "gemini-cli"): Found | undefined => {
  if (root.kind !== "object") return undefined
  const hooksAt = memberOf(root, "hooks")
  const hooks = root.members[hooksAt]?.value
  const eventAt = memberOf(hooks, EVENT[agent])
  const event = hooks?.kind === "object" ? hooks.members[eventAt]?.value : undefined
  if (hooks?.kind !== "object" || event?.kind !== "array") return undefined
  const mine = ours(agent)
  for (const [groupAt, group] of event.items.entries()) {
    const inner = group.kind === "object" ? group.members[memberOf(group, "hooks")]?.value : undefined
    if (inner?.kind !== "array") continue
    const hookAt = inner.items.findIndex((hook) => mine(JsoncEdit.plain(hook)))
    if (hookAt === -1) continue
    if (inner.items.length > 1) return { container: inner, index: hookAt }
    if (event.items.length > 1) return { container: event, index: groupAt }
    if (hooks.members.length > 1) return { container: hooks, index: eventAt }
    return { container: root, index: hooksAt }
  }
  return undefined
}

// Adds our entry where it belongs, creating "hooks" and the event's list if need be.
const addOurs = (text: string, root: JsoncEdit.Node, agent: "claude-code" | "gemini-cli"): string => {
  const unit = JsoncEdit.indentUnit(text)
  const show = (value: unknown) => JSON.stringify(value, null, unit)
  const hooks = root.kind === "object" ? root.members[memberOf(root, "hooks")]?.value : undefined
  if (hooks === undefined)
    return JsoncEdit.append(text, root, `"hooks": ${show({ [EVENT[agent]]: [entry(agent)] })}`)
  const event = hooks.kind === "object" ? hooks.members[memberOf(hooks, EVENT[agent])]?.value : undefined
  if (event === undefined)
    return JsoncEdit.append(text, hooks, `${JSON.stringify(EVENT[agent])}: ${show([entry(agent)])}`)
  return JsoncEdit.append(text, event, show(entry(agent)))
}

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
  const refuse = (why: string) => {
    console.error(
      `gatehouse hook ${change}: ${file}: ${why}; it was left untouched. Add this under "hooks" by hand: ${JSON.stringify({ [EVENT[agent]]: [entry(agent)] })}`
    )
    return 2
  }
  // Edited as text, so comments, order and layout stay as they were.
  let text = original.trim() === "" ? "{}\n" : original
  let root = JsoncEdit.parse(text)
  if (root instanceof JsoncEdit.ParseError) return refuse(`not JSON (${root.message})`)
  if (root.kind !== "object") return refuse("not a JSON object")
  const hooks = root.members[memberOf(root, "hooks")]?.value
  const event = hooks?.kind === "object" ? hooks.members[memberOf(hooks, EVENT[agent])]?.value : undefined
  if ((hooks !== undefined && hooks.kind !== "object") || (event !== undefined && event.kind !== "array"))
    return refuse(`"hooks" or "hooks.${EVENT[agent]}" is not what ${agent} expects`)
  // An entry already there (perhaps from another path) is taken out: install adds one.
  let removed = false
  for (let found = findOurs(root, agent); found !== undefined; found = findOurs(root, agent)) {
    text = JsoncEdit.remove(text, found.container, found.index)
    const reparsed = JsoncEdit.parse(text)
    if (reparsed instanceof JsoncEdit.ParseError)
      throw new Error(`hook ${change} broke ${file}: ${reparsed.message}`)
    root = reparsed
    removed = true
  }
  if (change === "uninstall" && !removed) {
    console.log(`no gatehouse hook in ${file}: nothing to remove`)
    return 0
  }
  const body = change === "install" ? addOurs(text, root, agent) : text
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
