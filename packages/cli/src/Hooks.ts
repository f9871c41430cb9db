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
      readonly access: "read" | "write"
      readonly paths: ReadonlyArray<string>
      readonly cwd: string
    }
  | { readonly kind: "other"; readonly permission: string; readonly pattern: string; readonly cwd: string }

export interface Verdict {
  readonly decision: "allow" | "ask" | "deny"
  /** For the model (deny) or the person (ask): what decided and why. */
  readonly reason: string
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
const READ = new Set([
  "Read",
  "read_file",
  "read_many_files",
  "NotebookRead",
  "Glob",
  "Grep",
  "LS",
  "list_directory",
  "glob",
  "search_file_content",
  "grep_search"
])
const WRITE = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace", "edit"])

/** Files an `apply_patch` body adds, updates, deletes or moves (its `*** … File:` lines). */
export const patchPaths = (patch: string): Array<string> =>
  [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)].map((match) =>
    (match[1] ?? match[2]!).trim()
  )

/** Reads a hook payload (already parsed JSON) as a {@link Call}. */
export const callOf = (payload: unknown): Call | PayloadError => {
  if (!isObject(payload)) return new PayloadError("the payload is not a JSON object")
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
    const path = text(input, "file_path", "absolute_path", "notebook_path", "path", "dir_path", "directory")
    // A search without a path reads the working directory.
    const paths =
      path === undefined ? (READ.has(tool) && tool !== "Read" && tool !== "read_file" ? ["."] : []) : [path]
    if (paths.length === 0) return new PayloadError(`${tool} names no file`)
    return { kind: "file", access: WRITE.has(tool) ? "write" : "read", paths, cwd }
  }
  // Anything else keeps its own name, so rules can target it (`"WebFetch": "deny"`).
  const pattern = text(input, "url", "query", "prompt") ?? "*"
  return { kind: "other", permission: tool, pattern, cwd }
}

/** The shell text whose analysis judges a file call: the gate's own path resolution. */
export const asShell = (call: Extract<Call, { kind: "file" }>): string =>
  call.paths
    .map((path) => (call.access === "read" ? `cat -- ${quote(path)}` : `: > ${quote(path)}`))
    .join("; ")

export interface Answer {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number
}

const json = (value: unknown) => `${JSON.stringify(value)}\n`

/** The verdict in the agent's own form. */
export const answer = (agent: Agent, verdict: Verdict): Answer => {
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
