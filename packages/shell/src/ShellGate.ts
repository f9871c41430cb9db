/**
 * The gate: from an {@link ShellAnalysis.Analysis}, the permission requests a command needs
 * (in order: `external_directory`, `edit`, `read`, `bash`) and the verdict under a ruleset and an
 * approval mode, with the rule that decided every pattern. `gatehouse check` and the shell
 * tool use this one code path.
 *
 * - `external_directory`: `<dir>/*` for every directory outside the project a path touches.
 * - `edit`: files the command writes inside the project, project-relative, so an `edit`
 *   rule such as `".git/*": "deny"` holds for shell writes too.
 * - `read`: existing files and directories the command reads, project-relative inside the project
 *   (absolute outside), as the `read` tool names them: `"read": { "*.env": "ask" }` holds
 *   for `cat .env` too. A directory is also named with `/*`, and with its entries when the
 *   program reads the files under it (`grep -r KEY .` names `.env`).
 * - `bash`: every simple command (wrapped and payload commands included) by its text, and
 *   also without its assignments, by the base name of a program given as a path, and by the
 *   cmdlet a PowerShell alias runs. A text with no simple command is judged whole.
 *
 * Verdict: deny if any pattern is denied, else ask if any request asks, else allow. A
 * command the analysis could not fully model asks even where the rules allow it; in `auto`
 * mode a command with notes or risk flags always asks a person.
 *
 * @since 0.0.0
 */
import * as fs from "node:fs"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import { renderRedirect } from "./internal/interpret.ts"
import { isBroadProgram, readsDirectoryContents } from "./internal/programs.ts"
import { isKnownSafe } from "./internal/safe.ts"
import * as ShellAnalysis from "./ShellAnalysis.ts"
import type * as ShellParser from "./ShellParser.ts"

/**
 * A permission request, before any rule is consulted (what `Permission.Service.ask` takes,
 * minus the session and ruleset).
 *
 * @since 0.0.0
 */
export interface Request {
  readonly permission: "external_directory" | "edit" | "read" | "bash"
  readonly patterns: ReadonlyArray<string>
  /** What "always allow" remembers. Never `*`, never a whole shell, wrapper or interpreter. */
  readonly always: ReadonlyArray<string>
  /** The command carries notes or risk flags: mode `auto` must still ask a person. */
  readonly needsPerson: boolean
  /**
   * The analysis could not model the command: the request must ask even where the rules
   * allow every pattern (use {@link rulesetFor} when passing it to `Permission.ask`).
   */
  readonly escalated: boolean
  readonly metadata: Record<string, unknown>
}

/**
 * The rule that decided one pattern, and where it came from.
 *
 * @since 0.0.0
 */
export interface Decision {
  readonly pattern: string
  readonly action: Permission.Action
  readonly rule: Permission.Rule
  /** The origin of the rule (`sources[i]` for rule `i`), or `default` when no rule matched. */
  readonly source: string
}

/**
 * A request with its verdict.
 *
 * @since 0.0.0
 */
export interface Judged extends Request {
  /** The verdict of this request under the mode. */
  readonly decision: Permission.Action
  /** What the rules alone say (before escalation and the mode). */
  readonly ruled: Permission.Action
  /** Set when the mode turned an ask into allow. */
  readonly approvedBy?: "auto" | "yolo"
  readonly rules: ReadonlyArray<Decision>
}

/**
 * @since 0.0.0
 */
export interface Verdict {
  readonly decision: Permission.Action
  readonly requests: ReadonlyArray<Judged>
  readonly analysis: ShellAnalysis.Analysis
}

/**
 * @since 0.0.0
 */
export interface Options {
  readonly ruleset: Permission.Ruleset
  readonly mode?: Permission.Mode
  /** Where each rule of `ruleset` comes from (same indexes), for the trace. */
  readonly sources?: ReadonlyArray<string>
}

const ALWAYS_ASK: ReadonlySet<string> = new Set(["external_directory", "doom_loop"])
const WILDCARD = /[*?]/

/**
 * The patterns a command is judged by.
 *
 * @example
 * ```ts
 * // `CI=1 /usr/bin/git  push` -> ["CI=1 /usr/bin/git push", "/usr/bin/git push", "CI=1 git push", "git push"]
 * ```
 * @since 0.0.0
 */
export const commandPatterns = (command: ShellAnalysis.Command): Array<string> => {
  if (command.changesDirectory) return []
  if (command.argv.length === 0) return command.redirects.length > 0 ? [command.text] : []
  // As written, and in canonical form (global options moved out): every form is judged.
  const out = formPatterns(command, command.argv)
  if (command.canonical !== undefined) out.push(...formPatterns(command, command.canonical))
  return [...new Set(out)]
}

/**
 * The patterns of a command's canonical form alone (`git -C src push -f` -> `git push -f`),
 * `[]` when it has none: what the trace marks as judged by the canonical form.
 *
 * @since 0.0.0
 */
export const canonicalPatterns = (command: ShellAnalysis.Command): Array<string> =>
  command.canonical === undefined || command.changesDirectory ? [] : formPatterns(command, command.canonical)

const formPatterns = (command: ShellAnalysis.Command, argv: ReadonlyArray<string>): Array<string> => {
  const rest = [...argv.slice(1), ...command.redirects.map(renderRedirect)]
  const out: Array<string> = []
  for (const name of [argv[0]!, ...command.names]) {
    const bare = [name, ...rest].join(" ")
    if (command.assignments.length > 0) out.push([...command.assignments, bare].join(" "))
    out.push(bare)
  }
  return out
}

// Whether mode `auto` must leave the command to a person: it carries a note (a write inside
// the project is left to the edit rules), or it is not a command known to be safe.
const flagged = (analysis: ShellAnalysis.Analysis): boolean => {
  if (analysis.notes.length > 0) return true
  const writesOutside = analysis.paths.some(
    (p) => p.access === "write" && (!p.inside || p.configures === true)
  )
  for (const command of analysis.commands) {
    if (command.notes.some((n) => n.kind !== "writes" || writesOutside)) return true
    if (!isKnownSafe(command)) return true
  }
  return false
}

const unmodelled = (analysis: ShellAnalysis.Analysis): boolean =>
  analysis.notes.some((n) => n.kind === "unmodelled") ||
  analysis.commands.some((c) => c.notes.some((n) => n.kind === "unmodelled"))

/**
 * What "always allow" may remember for a command: its arity prefix plus `" *"` when it is
 * plain; its exact text when it carries notes, assignments or a wrapper; nothing that
 * would cover a whole shell, wrapper or interpreter, and nothing with wildcard characters.
 *
 * @since 0.0.0
 */
export const commandAlways = (command: ShellAnalysis.Command, textFlagged = false): Array<string> => {
  if (command.changesDirectory || command.argv.length === 0) return []
  const exact = command.text
  const exactly = WILDCARD.test(exact) || exact.trim() === "" ? [] : [exact]
  if (
    textFlagged ||
    command.notes.length > 0 ||
    command.assignments.length > 0 ||
    command.wraps !== undefined
  ) {
    return exactly
  }
  const prefix = command.prefix
  const head = prefix[0]
  if (head === undefined) return exactly
  const key = (head.split(/[\\/]/).pop() ?? head).toLowerCase().replace(/\.exe$/, "")
  if (isBroadProgram(key) && (prefix.length < 2 || prefix[1]!.startsWith("-"))) return exactly
  if (prefix.some((token) => WILDCARD.test(token) || token === "")) return exactly
  // The prefix is read from the canonical form (`git -C src push` -> `git push *`); the text
  // as written is remembered too, since it is judged as well.
  return command.canonical === undefined ? [`${prefix.join(" ")} *`] : [`${prefix.join(" ")} *`, ...exactly]
}

const directoryPattern = (directory: string): string =>
  directory.endsWith(NodePath.sep) ? `${directory}*` : `${directory}${NodePath.sep}*`

/**
 * The ordered permission requests of an analysis (no rule consulted yet).
 *
 * @since 0.0.0
 */
export const requests = (analysis: ShellAnalysis.Analysis): Array<Request> => {
  const needsPerson = flagged(analysis)
  const escalated = unmodelled(analysis)
  const out: Array<Request> = []

  const directories = [...new Set(analysis.paths.filter((p) => !p.inside).map((p) => p.directory))]
  if (directories.length > 0) {
    const patterns = directories.map(directoryPattern)
    out.push({
      permission: "external_directory",
      patterns,
      always: patterns,
      needsPerson,
      escalated: false,
      metadata: { command: analysis.command, directories, patterns }
    })
  }

  const { files, targets } = editPatterns(analysis)
  if (files.length > 0) {
    out.push({
      permission: "edit",
      patterns: files,
      always: targets.filter((f) => !WILDCARD.test(f)),
      needsPerson,
      escalated: false,
      metadata: { command: analysis.command, files }
    })
  }

  const reads = readPatterns(analysis)
  if (reads.length > 0) {
    out.push({
      permission: "read",
      patterns: reads,
      always: reads.filter((f) => !WILDCARD.test(f)),
      needsPerson,
      escalated: false,
      metadata: { command: analysis.command, files: reads }
    })
  }

  const patterns: Array<string> = []
  const always: Array<string> = []
  const textFlagged = analysis.notes.length > 0
  let simple = 0
  for (const command of analysis.commands) {
    if (command.argv.length > 0 || command.changesDirectory) simple++
    patterns.push(...commandPatterns(command))
    always.push(...commandAlways(command, textFlagged))
  }
  const text = analysis.text.trim()
  if (analysis.errors.length > 0) {
    // Whatever did not parse is judged as written, and so is every line (a shell runs the
    // lines before a syntax error).
    for (const error of analysis.errors) if (error.trim() !== "") patterns.push(error.trim())
    patterns.push(text)
    for (const line of text.split("\n")) if (line.trim() !== "") patterns.push(line.trim())
  }
  if (simple === 0 && text !== "") patterns.push(text)
  if (patterns.length > 0) {
    const unique = [...new Set(patterns)]
    out.push({
      permission: "bash",
      patterns: unique,
      always: [...new Set(always)],
      needsPerson,
      escalated,
      metadata: {
        command: analysis.command,
        commands: analysis.commands.map((c) => c.text),
        notes: [...analysis.notes, ...analysis.commands.flatMap((c) => c.notes)].map(
          (n) => `${n.kind}: ${n.message}`
        )
      }
    })
  }
  return out
}

const MAX_LISTED = 100

const editPatterns = (analysis: ShellAnalysis.Analysis): { files: Array<string>; targets: Array<string> } => {
  const out: Array<string> = []
  const targets: Array<string> = []
  for (const path of analysis.paths) {
    if (path.access === "write" && path.configures === true && !path.inside) {
      // `~/.bashrc`, `~/.ssh/config`: an edit of a file that configures later commands.
      out.push(path.path)
      targets.push(path.path)
      continue
    }
    if (path.access !== "write" || !path.inside || path.relative === undefined) continue
    const relative = path.relative === "" ? "." : path.relative
    out.push(relative)
    targets.push(relative)
    if (path.isDirectory) {
      // A write to a directory (rm -r, mv, chmod -R) reaches what is inside it: name the
      // entries too, so `".git/*": "deny"` holds for `rm -rf .`.
      out.push(relative === "." ? "*" : `${relative}/*`)
      for (const entry of listDirectory(path.path).slice(0, MAX_LISTED)) {
        const child = relative === "." ? entry.name : `${relative}/${entry.name}`
        out.push(child)
        if (entry.directory) out.push(`${child}/*`)
      }
    }
  }
  return { files: [...new Set(out)], targets: [...new Set(targets)] }
}

const readPatterns = (analysis: ShellAnalysis.Analysis): Array<string> => {
  const out: Array<string> = []
  // A path that does not exist reads nothing (`git commit -m "a message"`, `npm i zod` name
  // no file), unless the text itself writes it first (`mv .env a.env && cat a.env`).
  const written = new Set(analysis.paths.filter((p) => p.access === "write").map((p) => p.path))
  for (const path of analysis.paths) {
    if (path.access !== "read" || (path.via !== "argument" && path.via !== "redirect")) continue
    if (!path.exists && !written.has(path.path)) continue
    const inside = path.inside && path.relative !== undefined
    const name = inside ? path.relative || "." : path.path
    out.push(name)
    if (!path.isDirectory) continue
    out.push(name === "." ? "*" : inside ? `${name}/*` : directoryPattern(name))
    // A program that reads the files under the directory (`grep -r`, `rg`, `tar`) reads
    // each entry too: name them, so `"*.env": "ask"` holds for `grep -r KEY .`.
    const command = path.command === undefined ? undefined : analysis.commands[path.command]
    if (command === undefined || command.argv.length === 0) continue
    const names = [command.argv[0]!, ...command.names].map((n) => (n.split(/[\\/]/).pop() ?? n).toLowerCase())
    const reads = names.map((name) => readsDirectoryContents(name, command.argv)).find((r) => r !== undefined)
    if (reads === undefined) continue
    const entries = listDirectory(path.path).filter((e) => reads === "all" || !e.name.startsWith("."))
    for (const entry of entries.slice(0, MAX_LISTED)) {
      out.push(name === "." ? entry.name : inside ? `${name}/${entry.name}` : NodePath.join(name, entry.name))
    }
  }
  return [...new Set(out)]
}

const listDirectory = (directory: string): Array<{ name: string; directory: boolean }> => {
  try {
    return fs
      .readdirSync(directory, { withFileTypes: true })
      .map((d) => ({ name: d.name, directory: d.isDirectory() }))
  } catch {
    return []
  }
}

/**
 * Judges the requests of an analysis against `ruleset` under `mode` (default `ask`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Permission } from "@gatehousejs/permission"
 * import { ShellAnalysis, ShellGate, ShellParser } from "@gatehousejs/shell"
 *
 * const ruleset = Permission.fromConfig({ bash: { "*": "allow", "git commit *": "deny" } })
 * const program = ShellAnalysis.analyze("CI=1 git commit -m x", { cwd: ".", projectRoot: ".", dialect: "bash" }).pipe(
 *   Effect.map((analysis) => ShellGate.judge(analysis, { ruleset }).decision) // "deny"
 * )
 * ```
 * @since 0.0.0
 */
export const judge = (analysis: ShellAnalysis.Analysis, options: Options): Verdict => {
  const mode = options.mode ?? "ask"
  const judged = requests(analysis).map((request): Judged => {
    const rules = request.patterns.map((pattern): Decision => {
      const rule = Permission.evaluate(request.permission, pattern, options.ruleset)
      const index = options.ruleset.indexOf(rule)
      const source = index === -1 ? "default" : (options.sources?.[index] ?? `rule ${index + 1}`)
      return { pattern, action: rule.action, rule, source }
    })
    const ruled: Permission.Action = rules.some((r) => r.action === "deny")
      ? "deny"
      : rules.some((r) => r.action === "ask")
        ? "ask"
        : "allow"
    const base: Permission.Action = ruled === "allow" && request.escalated ? "ask" : ruled
    if (base !== "ask") return { ...request, decision: base, ruled, rules }
    if (mode === "yolo") return { ...request, decision: "allow", ruled, rules, approvedBy: "yolo" }
    if (
      mode === "auto" &&
      !request.needsPerson &&
      !request.escalated &&
      !ALWAYS_ASK.has(request.permission) &&
      rules.filter((r) => r.action === "ask").every((r) => r.rule.pattern === "*")
    ) {
      return { ...request, decision: "allow", ruled, rules, approvedBy: "auto" }
    }
    return { ...request, decision: "ask", ruled, rules }
  })
  const decision: Permission.Action = judged.some((r) => r.decision === "deny")
    ? "deny"
    : judged.some((r) => r.decision === "ask")
      ? "ask"
      : "allow"
  return { decision, requests: judged, analysis }
}

/**
 * The ruleset to pass to `Permission.ask` for `request`: `ruleset` itself, or for an
 * escalated request, `ruleset` plus an `ask` rule for each pattern the rules allow (so the
 * person is asked; a configured deny still wins, it is decided before).
 *
 * @since 0.0.0
 */
export const rulesetFor = (request: Request, ruleset: Permission.Ruleset): Permission.Ruleset => {
  if (!request.escalated) return ruleset
  const extra = request.patterns
    .filter((pattern) => Permission.evaluate(request.permission, pattern, ruleset).action === "allow")
    .map((pattern): Permission.Rule => ({ permission: request.permission, pattern, action: "ask" }))
  return extra.length === 0 ? ruleset : Permission.merge(ruleset, extra)
}

/**
 * An analyse-and-judge function bound to the current `ShellParser` (what the shell tool
 * and `gatehouse check` call per command).
 *
 * @since 0.0.0
 */
export const make: Effect.Effect<
  (command: string, options: ShellAnalysis.Options & Options) => Effect.Effect<Verdict>,
  never,
  ShellParser.Service
> = Effect.map(
  Effect.context<ShellParser.Service>(),
  (context) => (command, options) =>
    ShellAnalysis.analyze(command, options).pipe(
      Effect.map((analysis) => judge(analysis, options)),
      Effect.provideContext(context)
    )
)
