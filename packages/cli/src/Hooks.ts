// The hook protocols of other agents (Claude Code's and Codex's `PreToolUse`, Gemini CLI's
// `BeforeTool`): their payloads read as Gatehouse requests, and Gatehouse's verdict written
// back in each one's form. Pure: `commands/hook.ts` does the I/O.
import * as NodePath from "node:path"

export type Agent = "claude-code" | "gemini-cli" | "codex"

export const AGENTS: ReadonlyArray<Agent> = ["claude-code", "gemini-cli", "codex"]

/** What a tool call asks for, in Gatehouse's terms. */
export type Call =
  | { readonly kind: "shell"; readonly command: string; readonly cwd: string }
  | {
      readonly kind: "file"
      /** `search`: the contents of every file under each path are read (a grep, a glob read). */
      readonly access: "read" | "write" | "search"
      readonly paths: ReadonlyArray<string>
      readonly cwd: string
    }
  | { readonly kind: "other"; readonly permission: string; readonly pattern: string; readonly cwd: string }

export interface Verdict {
  readonly decision: "allow" | "ask" | "deny"
  /** For the model (deny) or the person (ask): what decided and why. */
  readonly reason: string
  /**
   * Set on an allow that only Gatehouse's built-in defaults gave (no rule of the user's):
   * the agent's own permission rules then decide, so the hook is never looser than they are.
   */
  readonly byDefaults?: boolean
}

/** A payload that is not one this hook understands; never an allow. */
export class PayloadError {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const text = (input: Record<string, unknown>, ...keys: ReadonlyArray<string>): string | undefined => {
  for (const key of keys) {
    const value = input[key]
    if (typeof value === "string" && value !== "") return value
  }
  return undefined
}

const quote = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`

// Claude Code and Codex name tools alike (Codex reports its shell as Bash); Gemini CLI has its own names.
const SHELL = new Set(["Bash", "run_shell_command", "shell", "exec_command", "local_shell"])
// One file's content.
const READ = new Set(["Read", "read_file", "NotebookRead"])
// Names under a directory (a glob's names are listed, not read).
const LIST = new Set(["LS", "list_directory", "Glob", "glob"])
// The contents of every file under a directory: a search reads what a denied rule hides.
const SEARCH = new Set(["Grep", "search_file_content", "grep_search"])
const WRITE = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace", "edit"])

const GLOB_CHARS = /[*?[\]{}]/

// Whether a class body (`.`, `!a`, `,-/`) can match a dot.
const classMatchesDot = (body: string): boolean => {
  if (body.startsWith("!") || body.startsWith("^")) return !body.includes(".")
  if (body.includes(".")) return true
  for (const range of body.matchAll(/(.)-(.)/g)) if (range[1]! <= "." && "." <= range[2]!) return true
  return false
}

// Whether a component may match `..` (`..`, `[.][.]`, `.[!x]`): two dots, each a dot or a class.
const mayClimb = (part: string): boolean => {
  const atoms = [...part.matchAll(/\[([^\]]*)\]|(.)/g)]
  return (
    part.includes("..") ||
    (atoms.length === 2 &&
      atoms.every((atom) => (atom[1] !== undefined ? classMatchesDot(atom[1]) : atom[2] === ".")))
  )
}

// The directory a glob pattern (without braces) starts from: its components before the
// first wildcard. A `..` after a wildcard, or a class that can match a dot there
// (`src/*/../../etc/*`, `[.][.]/x`), may climb anywhere: the glob then starts from `/`.
const baseOf = (pattern: string): string => {
  const parts = pattern.split("/")
  const fixed: Array<string> = []
  for (const part of parts) {
    if (GLOB_CHARS.test(part)) break
    fixed.push(part)
  }
  if (fixed.length === parts.length) return pattern
  if (parts.slice(fixed.length).some(mayClimb)) return "/"
  const base = fixed.join("/")
  return base === "" ? (pattern.startsWith("/") ? "/" : ".") : base
}

const MAX_EXPANSIONS = 64

// `{a,b}` alternatives written out, innermost group first; undefined past MAX_EXPANSIONS.
const expandBraces = (pattern: string): ReadonlyArray<string> | undefined => {
  const group = /\{([^{}]*)\}/.exec(pattern)
  if (group === null) return [pattern]
  const out: Array<string> = []
  for (const choice of group[1]!.split(",")) {
    const rest = expandBraces(
      pattern.slice(0, group.index) + choice + pattern.slice(group.index + group[0].length)
    )
    if (rest === undefined || out.length + rest.length > MAX_EXPANSIONS) return undefined
    out.push(...rest)
  }
  return out
}

/**
 * The directories a glob pattern starts from: one per brace alternative (`{/etc/*,x}`
 * reaches /etc, `.{.,}/x` is `../x`), each as {@link baseOf} finds it; `/` for a pattern
 * with too many alternatives to judge one by one.
 */
export const globBases = (pattern: string): ReadonlyArray<string> => {
  const expanded = expandBraces(pattern)
  return expanded === undefined ? ["/"] : [...new Set(expanded.map(baseOf))]
}

/** `path` from `directory`, as a tool resolves it: an absolute path stays as it is. */
const from = (directory: string, path: string): string =>
  NodePath.isAbsolute(path) ? path : NodePath.join(directory, path)

const strings = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) && value.every((entry) => typeof entry === "string" && entry !== "")
    ? (value as ReadonlyArray<string>)
    : undefined

/** Files an `apply_patch` body adds, updates, deletes or moves (its `*** … File:` lines). */
export const patchPaths = (patch: string): Array<string> =>
  [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)].map((match) =>
    (match[1] ?? match[2]!).trim()
  )

/** The hook event each agent calls this for: its pre-tool-call event. */
export const EVENT: Record<Agent, string> = {
  "claude-code": "PreToolUse",
  "gemini-cli": "BeforeTool",
  codex: "PreToolUse"
}

/** Reads `agent`'s hook payload (already parsed JSON) as a {@link Call}. */
export const callOf = (agent: Agent, payload: unknown): Call | PayloadError => {
  if (!isObject(payload)) return new PayloadError("the payload is not a JSON object")
  // Another event's payload (a hook installed under the wrong event) is not a call to judge.
  if (payload.hook_event_name !== EVENT[agent])
    return new PayloadError(
      `this hook answers ${EVENT[agent]} payloads, got hook_event_name ${JSON.stringify(payload.hook_event_name ?? null)}`
    )
  const tool = payload.tool_name
  if (typeof tool !== "string" || tool === "") return new PayloadError("the payload has no tool_name")
  const cwd = payload.cwd
  if (typeof cwd !== "string" || !NodePath.isAbsolute(cwd))
    return new PayloadError("the payload has no absolute cwd")
  const input = payload.tool_input
  if (!isObject(input)) return new PayloadError(`tool_input of ${tool} is not an object`)
  const at = (directory: string | undefined) =>
    directory === undefined ? cwd : NodePath.resolve(cwd, directory)
  if (SHELL.has(tool)) {
    const raw = input.command
    // Codex may hand the argv itself; it is judged as the shell would read it quoted.
    const command =
      typeof raw === "string"
        ? raw
        : Array.isArray(raw) && raw.every((word) => typeof word === "string")
          ? raw.map(quote).join(" ")
          : undefined
    if (command === undefined || command.trim() === "") return new PayloadError(`${tool} has no command`)
    return { kind: "shell", command, cwd: at(text(input, "cwd", "workdir", "directory", "dir_path")) }
  }
  if (tool === "apply_patch") {
    const patch = text(input, "command", "patch", "input")
    if (patch === undefined) return new PayloadError("apply_patch has no patch")
    const paths = patchPaths(patch)
    if (paths.length === 0) return new PayloadError("apply_patch names no file")
    return { kind: "file", access: "write", paths, cwd }
  }
  if (READ.has(tool) || WRITE.has(tool)) {
    const path = text(input, "file_path", "absolute_path", "notebook_path", "path")
    if (path === undefined) return new PayloadError(`${tool} names no file`)
    return { kind: "file", access: WRITE.has(tool) ? "write" : "read", paths: [path], cwd }
  }
  // Without a path, a listing or a search starts at the working directory.
  const directory = text(input, "path", "dir_path", "directory") ?? "."
  if (LIST.has(tool)) {
    const pattern = text(input, "pattern")
    // A glob reaches where its pattern leads ("../../etc/*"), from its directory.
    const bases =
      pattern === undefined ? [directory] : globBases(pattern).map((base) => from(directory, base))
    return { kind: "file", access: "read", paths: bases, cwd }
  }
  if (SEARCH.has(tool)) return { kind: "file", access: "search", paths: [directory], cwd }
  if (tool === "read_many_files") {
    const paths = strings(input.paths)
    const include = input.include === undefined ? [] : strings(input.include)
    if (paths === undefined || paths.length === 0 || include === undefined)
      return new PayloadError("read_many_files has no list of paths")
    // A literal path is one file read; a glob reads every file it matches under its base.
    const searched: Array<string> = []
    const read: Array<string> = []
    for (const entry of [...paths, ...include]) {
      if (GLOB_CHARS.test(entry)) searched.push(...globBases(entry).map((base) => from(directory, base)))
      else read.push(from(directory, entry))
    }
    // One call, judged as the stricter of the two: every searched directory is read whole.
    return searched.length > 0
      ? { kind: "file", access: "search", paths: [...searched, ...read], cwd }
      : { kind: "file", access: "read", paths: read, cwd }
  }
  // Anything else keeps its own name, so rules can target it (`"WebFetch": "deny"`).
  const pattern = text(input, "url", "query", "prompt") ?? "*"
  return { kind: "other", permission: tool, pattern, cwd }
}

/** The shell text whose analysis judges a file call: the gate's own path resolution. */
export const asShell = (call: Extract<Call, { kind: "file" }>): string =>
  call.paths
    .map((path) =>
      call.access === "read"
        ? `cat -- ${quote(path)}`
        : call.access === "search"
          ? `grep -r -e x -- ${quote(path)}`
          : `: > ${quote(path)}`
    )
    .join("; ")

export interface Answer {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number
}

const json = (value: unknown) => `${JSON.stringify(value)}\n`

/** The verdict in the agent's own form. */
export const answer = (agent: Agent, verdict: Verdict): Answer => {
  // No decision at all: the agent goes on as it would without the hook.
  if (verdict.decision === "allow" && verdict.byDefaults === true)
    return { stdout: "", stderr: "", exitCode: 0 }
  const reason = `gatehouse: ${verdict.reason}`
  if (agent === "gemini-cli") {
    // BeforeTool has allow and deny; "ask" leaves the decision to Gemini CLI's own confirmation.
    if (verdict.decision === "ask")
      return { stdout: json({ systemMessage: reason }), stderr: "", exitCode: 0 }
    return {
      stdout: json(
        verdict.decision === "deny" ? { decision: "deny", reason } : { decision: "allow", reason }
      ),
      stderr: "",
      exitCode: 0
    }
  }
  if (agent === "codex") {
    // Codex's PreToolUse can only block: an allow leaves Codex's own approval policy in
    // charge, and an ask (which it cannot put to a person from a hook) blocks with the reason.
    if (verdict.decision === "allow") return { stdout: "", stderr: "", exitCode: 0 }
    const why =
      verdict.decision === "ask" ? `${reason} (a person must approve this; Codex hooks cannot ask)` : reason
    return {
      stdout: json({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: why
        }
      }),
      stderr: "",
      exitCode: 0
    }
  }
  return {
    stdout: json({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: verdict.decision,
        permissionDecisionReason: reason
      }
    }),
    stderr: "",
    exitCode: 0
  }
}

/** A payload the hook could not read: the agent's fail-closed form, never an allow. */
export const refuse = (agent: Agent, message: string): Answer => {
  const reason = `gatehouse hook ${agent}: ${message}`
  if (agent === "claude-code") {
    // Claude Code: "ask" hands the call to its own prompt; exit 2 would block it outright.
    return {
      stdout: json({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "ask",
          permissionDecisionReason: reason
        }
      }),
      stderr: `${reason}\n`,
      exitCode: 0
    }
  }
  // Gemini CLI and Codex: exit 2 blocks the tool, with stderr as the reason.
  return { stdout: "", stderr: `${reason}\n`, exitCode: 2 }
}
