/**
 * The gate: from an {@link ShellAnalysis.Analysis}, the permission requests a command needs
 * (in order: `external_directory`, `edit`, `read`, `bash`) and the verdict under a ruleset and an
 * approval mode, with the rule that decided every pattern. `gatehouse check` and the shell
 * tool use this one code path.
 *
 * - `external_directory`: `<dir>/*` for every directory outside the project a path touches.
 * - `edit`: files the command writes inside the project, project-relative, so an `edit`
 *   rule such as `".git/*": "deny"` holds for shell writes too. A write into a folder that
 *   holds the project (`tar xf p.tar -C ..`) is also a write of the project root.
 * - `read`: existing files and directories the command reads, project-relative inside the project
 *   (absolute outside), as the `read` tool names them: `"read": { "*.env": "ask" }` holds
 *   for `cat .env` too. A directory is also named with `/*`, and with its entries when the
 *   program reads the files under it (`grep -r KEY .` names `.env`); such a read of a folder
 *   that holds the project (`grep -r KEY ..`) names the project root's entries too.
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
import * as os from "node:os"
import * as NodePath from "node:path"
import type * as AskMetadata from "@gatehousejs/permission/AskMetadata"
import * as Defaults from "@gatehousejs/permission/Defaults"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as Effect from "effect/Effect"
import { renderRedirect } from "./internal/interpret.ts"
import { currentEntries } from "./internal/knownRoots.ts"
import { isNormalAbsolute } from "./internal/paths.ts"
import { baseName, programKey } from "./internal/programName.ts"
import {
  configuresExecution as configures,
  isBroadProgram,
  readsDirectoryContents,
  WRITES_LAST
} from "./internal/programs.ts"
import { isKnownSafe, runsProjectCode } from "./internal/safe.ts"
import { HOME_SECRETS } from "./Sandbox.ts"
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
  /** What "always allow" remembers as globs. Never `*`, never a whole shell, wrapper or interpreter. */
  readonly always: ReadonlyArray<string>
  /**
   * What "always allow" remembers as literal rules (matched exactly): the whole command for
   * one with notes or that the analysis could not model, a sub-command with glob characters.
   */
  readonly alwaysExact: ReadonlyArray<string>
  /** The command as given: an exact approval of it settles this request next time. */
  readonly subject?: string
  /** The command carries notes or risk flags: mode `auto` must still ask a person. */
  readonly needsPerson: boolean
  /**
   * The analysis could not model the command: the request must ask even where the rules
   * allow every pattern (use {@link rulesetFor} when passing it to `Permission.ask`).
   */
  readonly escalated: boolean
  /**
   * The command carries risk a remembered glob approval was never given for: a note that
   * it runs code or destroys data, a write outside the project or to a file that configures
   * later commands, a parse error, or something the analysis could not model. "Always"
   * remembers globs only for commands without any of these (`npm run build` -> `npm run
   * build *`), so such a glob must not settle this request (`npm run build
   * --script-shell=x.sh`): only an exact approval of its text does (`AskInput.exactApprovals`).
   */
  readonly exactApprovals: boolean
  /**
   * The patterns the gate vouches are harmless (see {@link harmlessPatterns}): rules with
   * `when: "harmless"` decide these, and only these (use {@link rulesetFor}).
   */
  readonly harmless: ReadonlyArray<string>
  /**
   * Patterns of a PowerShell command under the other aliases of its cmdlet (`rm x`, `erase x`
   * for `del x`; see `Command.aliases`), also in `patterns`: a rule written for one of them
   * decides it, the catch-all `*` does not (use {@link rulesetFor}).
   */
  readonly aliases?: ReadonlyArray<string>
  readonly metadata: AskMetadata.Bash | AskMetadata.Edit | AskMetadata.Read | AskMetadata.ExternalDirectory
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
  /** Set when the mode, or a remembered "always" answer, turned an ask into allow. */
  readonly approvedBy?: "auto" | "yolo" | "approval"
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
  /**
   * The project's remembered approvals ("always" answers), weighed as `Permission` weighs
   * them: they turn an ask into allow, never a deny.
   */
  readonly approved?: Permission.Ruleset
  /**
   * Directories outside the project the agent may always read (the spill directory of
   * truncated output, whose path the truncation hint gives): a read there asks no
   * `external_directory`, whatever the rules say of it; a write there still does. Absolute
   * and through symlinks, as the analysis resolves paths.
   */
  readonly readable?: ReadonlyArray<string>
}

const ALWAYS_ASK: ReadonlySet<string> = new Set(["external_directory", "doom_loop"])
// Whether `text` has a glob character (`*` or `?`).
const hasWildcard = (text: string): boolean => text.includes("*") || text.includes("?")

/**
 * The patterns a command is judged by.
 *
 * @example
 * ```ts
 * // `CI=1 /usr/bin/git  push` -> ["CI=1 /usr/bin/git push", "/usr/bin/git push", "CI=1 git push", "git push"]
 * ```
 * @since 0.0.0
 */
export const commandPatterns = (command: ShellAnalysis.Command): Array<string> =>
  unique(patternsWithRepeats(command))

// The patterns of `commandPatterns`, some perhaps twice: for a caller that removes repeats
// across many commands at once.
const patternsWithRepeats = (command: ShellAnalysis.Command): Array<string> => {
  if (command.changesDirectory) return []
  if (command.argv.length === 0) return command.redirects.length > 0 ? [command.text] : []
  // As written, and in canonical form (global options moved out): every form is judged.
  const out: Array<string> = []
  formPatterns(command, command.argv, out)
  if (command.canonical !== undefined) formPatterns(command, command.canonical, out)
  return out
}

/**
 * The patterns of a command's canonical form alone (`git -C src push -f` -> `git push -f`),
 * `[]` when it has none: what the trace marks as judged by the canonical form.
 *
 * @since 0.0.0
 */
export const canonicalPatterns = (command: ShellAnalysis.Command): Array<string> =>
  command.canonical === undefined || command.changesDirectory
    ? []
    : formPatterns(command, command.canonical, [])

// Pushes onto `out` the texts of `argv` (with the command's redirects) under each name of
// its program, with and without the command's assignments.
const formPatterns = (
  command: ShellAnalysis.Command,
  argv: ReadonlyArray<string>,
  out: Array<string>
): Array<string> => {
  // Joined, not concatenated word by word: a flat string is hashed and matched without
  // first being copied out of a chain of pieces.
  const words = argv.length === 0 ? [""] : argv.slice()
  for (const redirect of command.redirects) words.push(renderRedirect(redirect))
  const assignments = command.assignments.length > 0 ? `${command.assignments.join(" ")} ` : ""
  const push = (name: string) => {
    words[0] = name
    const bare = words.join(" ")
    if (assignments !== "") out.push(assignments + bare)
    out.push(bare)
  }
  push(argv[0] ?? "")
  for (const name of command.names) push(name)
  return out
}

// The patterns of a PowerShell command under the other aliases of its cmdlet (as written and
// in canonical form), some perhaps twice.
const aliasPatterns = (command: ShellAnalysis.Command): Array<string> => {
  const aliases = command.aliases
  if (aliases === undefined || aliases.length === 0 || command.changesDirectory || command.argv.length === 0)
    return []
  const named = { ...command, names: aliases }
  const out: Array<string> = []
  formPatterns(named, command.argv, out)
  if (command.canonical !== undefined) formPatterns(named, command.canonical, out)
  return out
}

// The alias patterns that are not also the commands' own patterns, each once.
const aliasOnly = (aliased: ReadonlyArray<string>, patterns: ReadonlyArray<string>): Array<string> => {
  const own = new Set(patterns)
  return unique(aliased.filter((pattern) => !own.has(pattern)))
}

// The strings of `items` without repeats, in order of first appearance (a new array).
const unique = (items: ReadonlyArray<string>): Array<string> => {
  if (items.length > 8) return [...new Set(items)]
  // A few strings (a command's patterns): compared in place, no set built.
  const out: Array<string> = []
  for (const item of items) if (!out.includes(item)) out.push(item)
  return out
}

// What the requests need of all the paths together, read in one pass: a long command has
// thousands of path records.
interface PathSummary {
  /** A write outside the project, or to a file that configures later commands. */
  readonly writesOutside: boolean
  /** A write to a file that configures later commands. */
  readonly configures: boolean
  /** The directories outside the project the paths are in (reads in `readable` aside), each once. */
  readonly outsideDirectories: ReadonlyArray<string>
  /** The paths written (absolute). */
  readonly written: ReadonlySet<string>
}

const NOTHING_WRITTEN: ReadonlySet<string> = new Set()

const summarize = (analysis: ShellAnalysis.Analysis, readable: ReadonlyArray<string>): PathSummary => {
  let writesOutside = false
  let configures = false
  let outsideDirectories: Set<string> | undefined
  let written: Set<string> | undefined
  for (const p of analysis.paths) {
    if (p.access === "write") {
      written ??= new Set()
      written.add(p.path)
      if (!p.inside || p.configures === true) writesOutside = true
      if (p.configures === true) configures = true
    }
    if (p.inside || (p.access === "read" && readable.some((dir) => isWithin(dir, p.path)))) continue
    outsideDirectories ??= new Set()
    outsideDirectories.add(p.directory)
  }
  return {
    writesOutside,
    configures,
    outsideDirectories: outsideDirectories === undefined ? [] : [...outsideDirectories],
    written: written ?? NOTHING_WRITTEN
  }
}

// A command with no note (a write inside the project is left to the edit rules) that is
// known to be safe.
const plainSafe = (command: ShellAnalysis.Command, outside: boolean): boolean =>
  !command.notes.some((n) => n.kind !== "writes" || outside) && isKnownSafe(command)

/**
 * The `bash` patterns of an analysis that the gate vouches are harmless: those of simple
 * commands known to be safe (`internal/safe.ts`: reads, version-control reads, file
 * operations the edit rules judge) that carry no note or risk flag, in a text with no note
 * of its own, no parse error and nothing the analysis could not model. Builds and tests
 * (`npm test`, `make`, `cargo build`, `pytest`, `eslint`) are known safe but not harmless:
 * they run what the project's files say, and the model can change those files. A pattern
 * another command also gives (one that is not harmless) is not vouched for. So in `npm install && git status` only
 * `git status` is, and in `sudo ls` only `ls`: the other patterns go by the other rules.
 * (The `harmless` of the `bash` request of {@link requests}.)
 *
 * @since 0.1.0
 */
export const harmlessPatterns = (analysis: ShellAnalysis.Analysis): Array<string> => [
  ...(requests(analysis).find((request) => request.permission === "bash")?.harmless ?? [])
]

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
  const exactly = hasWildcard(exact) || exact.trim() === "" ? [] : [exact]
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
  const key = programKey(head)
  if (isBroadProgram(key) && (prefix.length < 2 || prefix[1]!.startsWith("-"))) return exactly
  if (prefix.some((token) => hasWildcard(token) || token === "")) return exactly
  // The prefix is read from the canonical form (`git -C src push` -> `git push *`); the text
  // as written is remembered too, since it is judged as well.
  return command.canonical === undefined ? [`${prefix.join(" ")} *`] : [`${prefix.join(" ")} *`, ...exactly]
}

// `--dry-run`, `--dry-run=client`, `--dryrun`, PowerShell's `-WhatIf`: an option that makes
// the command only say what it would do.
const isDryRun = (word: string): boolean =>
  word.startsWith("-") && /^(--dry-?run(=.*)?|-whatif(:\$?true)?)$/i.test(word)

const directoryPattern = (directory: string): string =>
  directory.endsWith(NodePath.sep) ? `${directory}*` : `${directory}${NodePath.sep}*`

/**
 * The notes of an analysis, each with the sub-command it is about (none for the whole text).
 *
 * @since 0.0.0
 */
export const notesOf = (analysis: ShellAnalysis.Analysis): Array<AskMetadata.Note> => {
  const out: Array<AskMetadata.Note> = []
  for (const n of analysis.notes) out.push({ kind: n.kind, message: n.message })
  for (const c of analysis.commands)
    for (const n of c.notes) out.push({ kind: n.kind, message: n.message, command: c.text })
  return out
}

/**
 * The ordered permission requests of an analysis (no rule consulted yet).
 *
 * @since 0.0.0
 */
export const requests = (
  analysis: ShellAnalysis.Analysis,
  options: Pick<Options, "readable"> = {}
): Array<Request> => {
  // Mode `auto` must leave the command to a person when it carries a note (a write inside
  // the project is left to the edit rules) or is not a command known to be safe.
  const paths = summarize(analysis, options.readable ?? [])
  const outside = paths.writesOutside
  const textFlagged = analysis.notes.length > 0
  // Which commands are safe matters only for a text without notes of its own.
  const safe = textFlagged ? [] : analysis.commands.map((command) => plainSafe(command, outside))
  const needsPerson = textFlagged || safe.includes(false)
  const escalated = unmodelled(analysis)
  const notes = notesOf(analysis)
  const cwd = analysis.cwd
  const subject = subjectOf(analysis)
  const out: Array<Request> = []

  if (paths.outsideDirectories.length > 0) {
    const directories = paths.outsideDirectories
    const patterns = directories.map(directoryPattern)
    // "Always" for a directory that holds the home directory (`~`, `/home`, `/`) would
    // reach every file in it: `cat ~/.gitconfig` must not allow `cat ~/.ssh/id_rsa` for
    // good. Such a directory is remembered only with the exact command (as its subject).
    const holds = holdsHome(analysis)
    const held = directories.map(holds)
    const broad = held.includes(true)
    const always = directories.filter((_, i) => !held[i]).map(directoryPattern)
    out.push({
      permission: "external_directory",
      patterns,
      always,
      alwaysExact: broad && analysis.command.trim() !== "" ? [subject] : [],
      ...(broad ? { subject } : {}),
      needsPerson,
      escalated: false,
      exactApprovals: false,
      harmless: [],
      metadata: { command: analysis.command, cwd, directories, patterns }
    })
  }

  const { files, targets } = editPatterns(analysis)
  if (files.length > 0) {
    // A write to a file that configures what later commands run (`.git/hooks/*`,
    // `.git/config`, `.npmrc`, `~/.bashrc`) runs code later: a person decides it even
    // where the edit rules allow every file (a deny still denies), and "always" remembers
    // the command, not the file (which any later write, by any tool, would then pass).
    const configures = paths.configures
    out.push({
      permission: "edit",
      patterns: files,
      always: configures ? [] : targets.filter((f) => !hasWildcard(f)),
      alwaysExact: configures
        ? analysis.command.trim() === ""
          ? []
          : [subject]
        : targets.filter((f) => hasWildcard(f)),
      ...(configures ? { subject } : {}),
      needsPerson,
      escalated: configures,
      exactApprovals: false,
      harmless: [],
      metadata: { command: analysis.command, cwd, files }
    })
  }

  const { patterns: reads, unseen } = readPatterns(analysis, paths.written)
  if (reads.length > 0) {
    out.push({
      permission: "read",
      patterns: reads,
      always: reads.filter((f) => !hasWildcard(f)),
      alwaysExact: [],
      needsPerson,
      escalated: unseen,
      exactApprovals: false,
      harmless: [],
      metadata: { command: analysis.command, cwd, files: reads }
    })
  }

  // Repeats are removed once, at the end.
  const patterns: Array<string> = []
  const always: Array<string> = []
  // A sub-command with glob characters has no glob to remember: its exact text, literally.
  const literal: Array<string> = []
  // What the gate vouches for: see `harmlessPatterns`.
  const vouchable = !textFlagged && analysis.errors.length === 0 && !escalated
  const vouched = new Set<string>()
  const notVouched = new Set<string>()
  // Patterns under other aliases only (a rule written for them decides them).
  const aliased: Array<string> = []
  let simple = 0
  for (let index = 0; index < analysis.commands.length; index++) {
    const command = analysis.commands[index]!
    if (command.argv.length > 0 || command.changesDirectory) simple++
    const own = patternsWithRepeats(command)
    for (const pattern of own) patterns.push(pattern)
    for (const pattern of aliasPatterns(command)) aliased.push(pattern)
    if (vouchable) {
      const harmless = safe[index] === true && !runsProjectCode(command)
      for (const pattern of own) (harmless ? vouched : notVouched).add(pattern)
    }
    const remembered = commandAlways(command, textFlagged)
    for (const glob of remembered) always.push(glob)
    if (
      remembered.length === 0 &&
      command.argv.length > 0 &&
      !command.changesDirectory &&
      hasWildcard(command.text)
    )
      literal.push(command.text)
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
    const aliases = aliased.length === 0 ? [] : aliasOnly(aliased, patterns)
    const judged = aliases.length === 0 ? unique(patterns) : unique([...patterns, ...aliases])
    // A command with notes, or one the analysis could not model, is remembered only as the
    // exact text the person saw: "always" for `curl … | sh` must not allow `sh` for good.
    // So is a dry run (`npm publish --dry-run`): its prefix would pass the real `npm publish`.
    const exactOnly = escalated || notes.length > 0 || analysis.commands.some((c) => c.argv.some(isDryRun))
    const globs = exactOnly ? [] : unique(always)
    // Outside the project root the exact texts are remembered with the directory they ran
    // in (the subject): `rm -rf *` approved in build/ must not pass at the root.
    const exact = exactOnly
      ? analysis.command.trim() === ""
        ? []
        : [subject]
      : literal.length > 0 && subject !== analysis.command
        ? [subject]
        : [...new Set(literal)]
    out.push({
      permission: "bash",
      patterns: judged,
      always: globs,
      alwaysExact: exact,
      subject,
      needsPerson,
      escalated,
      exactApprovals:
        escalated || outside || analysis.errors.length > 0 || notes.some((note) => note.kind !== "writes"),
      harmless: vouched.size === 0 ? [] : [...vouched].filter((pattern) => !notVouched.has(pattern)),
      ...(aliases.length === 0 ? {} : { aliases }),
      metadata: {
        command: analysis.command,
        cwd,
        commands: analysis.commands.map((c) => c.text),
        notes,
        rules: [],
        ...(escalated ? { escalated: true } : {})
      }
    })
  }
  return out
}

const MAX_LISTED = 100

/**
 * What an exact approval of an analysis names: its text as given, run at the project root;
 * in another directory, `cd DIR && TEXT` (project-relative, else absolute): the same text
 * elsewhere touches other files (`rm -rf *` in `build/` or at the root), so it is another
 * approval. A request's {@link Request.subject}.
 *
 * @since 0.1.0
 */
export const subjectOf = (analysis: ShellAnalysis.Analysis): string => {
  const isOutside = (relative: string) =>
    relative === ".." || relative.startsWith(`..${NodePath.sep}`) || NodePath.isAbsolute(relative)
  // At the root itself (the usual case) without `NodePath.relative`'s two resolves.
  if (analysis.cwd === analysis.projectRoot) return analysis.command
  let relative = NodePath.relative(analysis.projectRoot, analysis.cwd)
  // The project root is a real path; the directory may be named through a link to it.
  if (isOutside(relative)) relative = NodePath.relative(analysis.projectRoot, realDirectory(analysis.cwd))
  if (relative === "") return analysis.command
  const directory = isOutside(relative) ? analysis.cwd : relative.split(NodePath.sep).join("/")
  return `cd ${shellWord(directory)} && ${analysis.command}`
}

const realDirectory = (directory: string): string => {
  try {
    return fs.realpathSync(directory)
  } catch {
    return directory
  }
}

const shellWord = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`

// Whether `directory` is the home directory, one of its ancestors (`/home`, `/`) or a
// filesystem root, whose `<dir>/*` would reach every file of the user; or lies in one of
// the home's credential folders (`~/.ssh`, `~/.aws`: Sandbox.HOME_SECRETS), where
// `cat ~/.ssh/known_hosts` "always" must not allow `cat ~/.ssh/id_rsa` for good.
const holdsHome = (analysis: ShellAnalysis.Analysis): ((directory: string) => boolean) => {
  const home = analysis.home ?? os.homedir()
  const own = homes(home)
  const secrets = own.map(secretFolders)
  return (directory) => {
    if (NodePath.parse(directory).root === directory || own.some((h) => isWithin(directory, h))) return true
    // Inside a credential folder, or above one (`~/.config/*` would cover `~/.config/gh`).
    // Some seventy folders per home: compared as prefixes where both sides are normal.
    const normal = isNormalAbsolute(directory)
    return secrets.some(({ folders, allNormal }) =>
      normal && allNormal
        ? folders.some((folder) => isWithinNormal(folder, directory) || isWithinNormal(directory, folder))
        : folders.some((folder) => isWithin(folder, directory) || isWithin(directory, folder))
    )
  }
}

// The credential folders under a home, by home: joined once, not for every directory judged.
interface SecretFolders {
  readonly folders: ReadonlyArray<string>
  /** Every folder is a normal absolute path (`isNormalAbsolute`). */
  readonly allNormal: boolean
}
const secretsByHome = new Map<string, SecretFolders>()
const secretFolders = (home: string): SecretFolders => {
  let secrets = secretsByHome.get(home)
  if (secrets === undefined) {
    const folders = HOME_SECRETS.map((secret) => NodePath.join(home, secret))
    secrets = { folders, allNormal: folders.every(isNormalAbsolute) }
    if (secretsByHome.size >= 16) secretsByHome.clear()
    secretsByHome.set(home, secrets)
  }
  return secrets
}

const homes = (home: string): Array<string> => readableDirectory(NodePath.resolve(home))

/**
 * `directory` as {@link Options} `readable` takes it: as given and through symlinks (the
 * analysis resolves paths through them), for a directory that may not exist yet.
 *
 * @since 0.1.0
 */
export const readableDirectory = (directory: string): Array<string> => {
  try {
    const real = fs.realpathSync(directory)
    return real === directory ? [directory] : [directory, real]
  } catch {
    return [directory]
  }
}

const isWithin = (directory: string, path: string): boolean => {
  // Both absolute and normal on POSIX: a prefix says it (NodePath.relative costs a parse of each).
  if (isNormalAbsolute(directory) && isNormalAbsolute(path)) return isWithinNormal(directory, path)
  const relative = NodePath.relative(directory, path)
  return (
    relative === "" ||
    (relative !== ".." && !relative.startsWith(`..${NodePath.sep}`) && !NodePath.isAbsolute(relative))
  )
}

// `isWithin` for two normal absolute POSIX paths (`isNormalAbsolute`).
const isWithinNormal = (directory: string, path: string): boolean =>
  directory === "/" ||
  path === directory ||
  (path.startsWith(directory) && path.charCodeAt(directory.length) === 47)

const editPatterns = (analysis: ShellAnalysis.Analysis): { files: Array<string>; targets: Array<string> } => {
  const out: Array<string> = []
  const root = analysis.projectRoot
  const holdsProject = projectHolder(root)
  // Until a directory's entries are named, the files are the targets: one list is filled.
  let targets: Array<string> | undefined
  for (const path of analysis.paths) {
    if (path.access !== "write") continue
    if (path.configures === true && !path.inside) {
      // `~/.bashrc`, `~/.ssh/config`: an edit of a file that configures later commands.
      out.push(path.path)
      targets?.push(path.path)
      continue
    }
    // A folder above the project (`..`, `/tmp`) holds it: what is written into it (`rsync -a
    // t/ ..`, `tar xf p.tar -C ..`, `chmod -R a+w ..`) may land in the project, so it is judged
    // as a write of the project root too, whose entries the edit rules then judge.
    const holder = !path.inside && path.isDirectory && holdsProject(path.path)
    if (!holder && (!path.inside || path.relative === undefined)) continue
    const relative = holder || path.relative === "" ? "." : path.relative!
    out.push(relative)
    targets?.push(relative)
    if (path.isDirectory) {
      targets ??= out.slice()
      // A write to a directory (rm -r, mv, chmod -R) reaches what is inside it: name the
      // entries too, so `".git/*": "deny"` holds for `rm -rf .`.
      out.push(relative === "." ? "*" : `${relative}/*`)
      let named = 0
      for (const [name, kind] of listDirectory(holder ? root : path.path)) {
        if (named++ === MAX_LISTED) break
        const child = relative === "." ? name : `${relative}/${name}`
        out.push(child)
        if (kind === "directory") out.push(`${child}/*`)
      }
    }
  }
  const files = unique(out)
  return { files, targets: targets === undefined ? files : unique(targets) }
}

// Whether a directory holds the project `root` (and is not the root itself): as given and
// through links (paths are resolved through them), looked up once.
const projectHolder = (root: string): ((directory: string) => boolean) => {
  let roots: ReadonlyArray<string> | undefined
  return (directory) => {
    roots ??= readableDirectory(root)
    return roots.some((r) => r !== directory && isWithin(directory, r))
  }
}

// Whether the command reading `path` writes it (or a folder it is in) itself: `zip -r a.zip
// src` reads the archive it makes, `tar -xf a.tgz -C build` names a.tgz in build.
const ownOutput = (analysis: ShellAnalysis.Analysis, path: ShellAnalysis.PathAccess): boolean =>
  analysis.paths.some(
    (p) =>
      p.access === "write" &&
      p.command === path.command &&
      (p.path === path.path ||
        path.path.startsWith(p.path.endsWith(NodePath.sep) ? p.path : p.path + NodePath.sep))
  )

// The paths written that may hold names the text makes: all but the destinations of mv and
// the programs that write their last operand (cp, install, ln, link, rsync, scp), whose new
// names are writes of their own (`mv a tests/`: tests/a) and whose sources are judged as
// read, whole folders too (`cp -r . y` reads .env; a link made is not followed after it).
const COPIERS: ReadonlySet<string> = new Set(["mv", ...WRITES_LAST])
const treesWritten = (analysis: ShellAnalysis.Analysis): ReadonlySet<string> => {
  const out = new Set<string>()
  for (const p of analysis.paths) {
    if (p.access !== "write") continue
    const program = analysis.commands[p.command ?? -1]?.argv[0]
    if (program !== undefined && COPIERS.has(programKey(program))) continue
    out.add(p.path)
  }
  return out
}

// `written`: the paths the text writes (`PathSummary.written`).
const readPatterns = (
  analysis: ShellAnalysis.Analysis,
  written: ReadonlySet<string>
): { readonly patterns: Array<string>; readonly unseen: boolean } => {
  const out: Array<string> = []
  // Whether a folder the text makes is read whole, or through a glob (`git clone . y && grep
  // -r KEY y`, `cat y/.e*`): what it holds is not known here, so no name can be judged.
  let unseen = false
  const root = analysis.projectRoot
  const projectHeld = projectHolder(root)
  // What each command reads of a directory it is given (see `readsDirectoryContents`).
  let readings: Map<number, "all" | "visible" | undefined> | undefined
  // A long text reads the same folder many times (`git diff` reads the whole repository):
  // each folder is listed once per reading, and each name looked up once.
  let expanded: Set<string> | undefined
  let folds: Map<string, boolean> | undefined
  // Per folder, whether it or one it is in is written with what may be new names in it
  // (many paths share a folder).
  let writtenFolders: Map<string, boolean> | undefined
  let trees: ReadonlySet<string> | undefined
  // (Paths come in runs from one folder: the last answer is kept at hand.)
  let lastFolder: string | undefined
  let lastAnswer = false
  const writtenBelow = (directory: string): boolean => {
    if (directory === lastFolder) return lastAnswer
    lastFolder = directory
    lastAnswer = writtenAbove(directory)
    return lastAnswer
  }
  const writtenAbove = (directory: string): boolean => {
    writtenFolders ??= new Map()
    let known = writtenFolders.get(directory)
    if (known === undefined) {
      trees ??= treesWritten(analysis)
      // Each folder above is asked once, through this memo. (Whatever the order of the
      // commands: a function or a loop runs a read written before the write again after it.)
      const cut = directory.lastIndexOf(NodePath.sep)
      known = trees.size > 0 && (trees.has(directory) || (cut > 0 && writtenAbove(directory.slice(0, cut))))
      writtenFolders.set(directory, known)
    }
    return known
  }
  const foldsHere = (file: string): boolean => {
    folds ??= new Map()
    const known = folds.get(file)
    if (known !== undefined) return known
    const found = foldsCase(file)
    folds.set(file, found)
    return found
  }
  for (const path of analysis.paths) {
    if (path.access !== "read" || (path.via !== "argument" && path.via !== "redirect")) continue
    // A path that does not exist reads nothing (`git commit -m "a message"`, `npm i zod` name
    // no file), unless the text itself writes it or a folder it is in first (`mv .env a.env &&
    // cat a.env`, `git clone . y && cat y/.env`, `cp --rec . y; cat y/.env`).
    if (!path.exists && (written.size === 0 || !(written.has(path.path) || writtenBelow(path.directory))))
      continue
    if (!path.exists && !unseen)
      unseen =
        (/[*?[]/.test(path.text) || readsContents(analysis.commands[path.command ?? -1]) !== undefined) &&
        !ownOutput(analysis, path)
    const inside = path.inside && path.relative !== undefined
    const name = inside ? path.relative || "." : path.path
    out.push(name)
    // (What is not there was not found under any case either.)
    if (path.exists && name.toLowerCase() !== name && foldsHere(path.path)) out.push(name.toLowerCase())
    if (!path.isDirectory) continue
    out.push(name === "." ? "*" : inside ? `${name}/*` : directoryPattern(name))
    // A program that reads the files under the directory (`grep -r`, `rg`, `tar`) reads
    // each entry too: name them, so `"*.env": "ask"` holds for `grep -r KEY .`.
    if (path.command === undefined) continue
    readings ??= new Map()
    let reads = readings.get(path.command)
    if (!readings.has(path.command)) {
      reads = readsContents(analysis.commands[path.command])
      readings.set(path.command, reads)
    }
    if (reads === undefined) continue
    expand(name, path.path, inside, reads)
    // A folder that holds the project (`..`, `/`) holds it whole: a recursive read of it
    // reads the project's files too, so it is judged as a read of the project root as well
    // (`grep -r KEY ..` names `.env`, as `grep -r KEY .` does).
    if (!inside && path.path !== root && projectHeld(path.path)) {
      out.push("*")
      expand(".", root, true, reads)
    }
  }
  return { patterns: unique(out), unseen }

  // Names the entries of `directory` (named `name`) a reading of it reaches, and the
  // credential places deeper in it.
  function expand(name: string, directory: string, inside: boolean, reads: "all" | "visible"): void {
    const reading = `${reads}\0${name}\0${directory}`
    expanded ??= new Set()
    if (expanded.has(reading)) return
    expanded.add(reading)
    const entries = listDirectory(directory)
    const reached = (entry: string) => reads === "all" || !entry.startsWith(".")
    // Whether the directory keeps case, looked up once (see `decidedByDirectory`).
    let keeps: boolean | undefined
    let named = 0
    for (const entry of entries.keys()) {
      if (!reached(entry)) continue
      if (named++ === MAX_LISTED) break
      const child = name === "." ? entry : inside ? `${name}/${entry}` : NodePath.join(name, entry)
      out.push(child)
      if (child.toLowerCase() === child) continue
      if (decidedByDirectory(directory, entry, entries)) {
        keeps ??= keepsCase(directory, entry)
        if (keeps) continue
      }
      if (foldsHere(NodePath.join(directory, entry))) out.push(child.toLowerCase())
    }
    // Deeper than its entries, the credential places it holds (`.config/git/credentials`
    // under `.config`, `.ssh` under `.`): the read reaches them, so it is judged as theirs.
    const listed = (entry: string) => reached(entry) && entries.has(entry)
    for (const rest of credentialsUnder(name === "." ? "" : name, directory, reads === "all", listed))
      out.push(name === "." ? rest : inside ? `${name}/${rest}` : NodePath.join(name, rest))
  }
}

// What `command` reads of a directory it is given, by the first of its program's names that
// `readsDirectoryContents` knows.
const readsContents = (command: ShellAnalysis.Command | undefined): "all" | "visible" | undefined => {
  if (command === undefined || command.argv.length === 0) return undefined
  for (let n = -1; n < command.names.length; n++) {
    const name = n === -1 ? command.argv[0]! : command.names[n]!
    const reads = readsDirectoryContents(baseName(name).toLowerCase(), command.argv)
    if (reads !== undefined) return reads
  }
  return undefined
}

// The parts of `Defaults.HOME_CREDENTIALS` places that exist under `directory` (named
// `name`): the whole place (`directory` is a home), or what follows the part of it that
// `name` ends with (`name` is `.config`, the place `.config/git/credentials`: `git/credentials`).
// `listed` tells the directory's entries: a place whose first step is not among them is not
// there, so only the deeper ones are looked up.
const CREDENTIAL_PARTS = Defaults.HOME_CREDENTIALS.map((place) => place.split("/"))
const credentialsUnder = (
  name: string,
  directory: string,
  hidden: boolean,
  listed: (entry: string) => boolean
): Array<string> => {
  let components: ReadonlyArray<string> | undefined
  const out: Array<string> = []
  for (const parts of CREDENTIAL_PARTS) {
    for (let k = 0; k < parts.length; k++) {
      if (!listed(parts[k]!)) continue
      components ??= name.split(/[/]/).filter((c) => c !== "")
      if (!endsWith(components, parts, k)) continue
      const rest = parts.slice(k)
      if (!hidden && rest.some((part) => part.startsWith("."))) continue
      if (rest.length === 1 || lstatExists(NodePath.join(directory, ...rest))) out.push(rest.join("/"))
    }
  }
  return out
}

// Whether `components` ends with the first `count` of `parts`.
const endsWith = (
  components: ReadonlyArray<string>,
  parts: ReadonlyArray<string>,
  count: number
): boolean => {
  for (let i = 0; i < count; i++) if (components[components.length - count + i] !== parts[i]) return false
  return true
}

const lstatExists = (path: string): boolean => {
  try {
    fs.lstatSync(path)
    return true
  } catch {
    return false
  }
}

// Whether a read of `path` may read a file whose name differs only in case (`.ENV` is
// `.env`): then its name is judged folded too, against rules written in lower case. Always
// on macOS and Windows, whose file systems usually ignore case (APFS, NTFS); elsewhere only
// where this folder does (a vfat or NTFS mount, WSL's /mnt/c, ext4 casefold), seen as the
// folded name leading to the same file. So on Linux `cat README.md` is judged as written.
const foldsCase = (path: string): boolean => {
  if (process.platform === "darwin" || process.platform === "win32") return true
  try {
    // The folded name is looked up first: on a file system that keeps case it is usually missing.
    const folded = fs.statSync(path.toLowerCase(), { throwIfNoEntry: false })
    const own = folded === undefined ? undefined : fs.statSync(path, { throwIfNoEntry: false })
    return own !== undefined && folded!.ino === own.ino && folded!.dev === own.dev
  } catch {
    return false
  }
}

// The kind of each entry of a directory, in the order the directory gives them (a symlink
// is `other`); empty when it cannot be listed.
type Entries = ReadonlyMap<string, "file" | "directory" | "other">
const NO_ENTRIES: Entries = new Map()

// Whether `directory` keeping case answers `foldsCase` for its entry `entry` (listed in
// `entries`), so that one lookup (`keepsCase`) answers for all such entries: an ASCII name
// whose lower-case form is not listed, in a directory named without upper case. Where the
// directory keeps case no lookup of that form finds anything (`foldsCase` is false), and
// keeping or folding ASCII case is a property of the directory (ext4 casefold, WSL's
// per-folder flag) or of the mount (vfat, NTFS), alike for every such name.
const decidedByDirectory = (directory: string, entry: string, entries: Entries): boolean =>
  process.platform !== "darwin" &&
  process.platform !== "win32" &&
  /^[\x00-\x7f]*$/.test(entry) &&
  !entries.has(entry.toLowerCase()) &&
  directory.toLowerCase() === directory

// Whether `directory` keeps case, seen as the lower-case form of its entry `entry` missing
// (an lstat: a dangling link is found as itself). Any other failure proves nothing.
const keepsCase = (directory: string, entry: string): boolean => {
  try {
    return (
      fs.lstatSync(NodePath.join(directory, entry.toLowerCase()), { throwIfNoEntry: false }) === undefined
    )
  } catch {
    return false
  }
}

// Listed afresh for every judgement: a listing kept across judgements would trust the
// folder's times to change with its entries, which not every file system does, and a folder
// swapped while it was listed would keep its wrong listing. The one exception is a project
// root's listing as `knownRoots` keeps it (read through a descriptor of the directory it
// checked, then trusted while the root is that directory with the same settled times): the
// analysis already trusts it to say which paths under the root exist, and the gate's use of
// it trusts nothing more.
const listDirectory = (directory: string): Entries => {
  const remembered = currentEntries(directory)
  if (remembered !== undefined) return remembered
  try {
    const entries = new Map<string, "file" | "directory" | "other">()
    for (const d of fs.readdirSync(directory, { withFileTypes: true }))
      entries.set(d.name, d.isFile() ? "file" : d.isDirectory() ? "directory" : "other")
    return entries
  } catch {
    return NO_ENTRIES
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
  // Each ruleset compiled once for every pattern of the command (the vouched one, made when
  // a pattern is vouched for). A long command is decided by the same few rules many times:
  // each rule's source is looked up once per judgement (a vouched ruleset holds the same
  // rules at the same indexes, conditions lifted, so each ruleset has its own lookup).
  const plain: Evaluation = {
    decide: Ruleset.evaluator(options.ruleset),
    source: sourcesOf(options.ruleset, options.sources)
  }
  let lifted: Evaluation | undefined
  const liftedRules = (): Evaluation => {
    if (lifted === undefined) {
      const vouched = Ruleset.vouched(options.ruleset)
      lifted =
        vouched === options.ruleset
          ? plain
          : { decide: Ruleset.evaluator(vouched), source: sourcesOf(vouched, options.sources) }
    }
    return lifted
  }
  const judged = requests(analysis, options).map((request): Judged => {
    const harmless = request.harmless.length === 0 ? undefined : new Set(request.harmless)
    const aliases = request.aliases === undefined ? undefined : new Set(request.aliases)
    let denies = false
    let asks = false
    const rules: Array<Decision> = []
    for (const pattern of request.patterns) {
      const evaluation = harmless?.has(pattern) === true ? liftedRules() : plain
      const rule = evaluation.decide(request.permission, pattern)
      // Under another alias of the cmdlet, only a rule written for that name decides.
      if (aliases?.has(pattern) === true && rule.pattern === "*") continue
      const source = evaluation.source(rule)
      if (rule.action === "deny") denies = true
      else if (rule.action === "ask") asks = true
      rules.push({ pattern, action: rule.action, rule, source })
    }
    const ruled: Permission.Action = denies ? "deny" : asks ? "ask" : "allow"
    const base: Permission.Action = ruled === "allow" && request.escalated ? "ask" : ruled
    if (base !== "ask") return { ...request, decision: base, ruled, rules }
    const remembered = rememberedAllow(request, rules, options)
    if (remembered !== undefined)
      return { ...request, decision: "allow", ruled, rules: remembered, approvedBy: "approval" }
    // A text the analysis could not model may run, unseen, a program a rule denies: not
    // yolo's to pass (see Permission's mode).
    if (
      mode === "yolo" &&
      !(request.permission === "bash" && request.escalated && Ruleset.deniesAny("bash", options.ruleset))
    )
      return { ...request, decision: "allow", ruled, rules, approvedBy: "yolo" }
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

// A ruleset's rule for a pattern, and where a rule of it comes from.
interface Evaluation {
  readonly decide: (permission: string, pattern: string) => Permission.Rule
  readonly source: (rule: Permission.Rule) => string
}

// Where `rule` comes from: `sources[i]` (or `rule i+1`) for the first index `i` that holds
// it in `ruleset`, `default` for none; remembered per rule, for one judgement.
const sourcesOf = (
  ruleset: Permission.Ruleset,
  sources: ReadonlyArray<string> | undefined
): ((rule: Permission.Rule) => string) => {
  const known = new Map<Permission.Rule, string>()
  return (rule) => {
    let source = known.get(rule)
    if (source === undefined) {
      const index = ruleset.indexOf(rule)
      source = index === -1 ? "default" : (sources?.[index] ?? `rule ${index + 1}`)
      known.set(rule, source)
    }
    return source
  }
}

// The request's decisions when remembered approvals allow every one of its patterns, the
// way `Permission.ask` would find them (with the escalation's extra asks in the ruleset).
const rememberedAllow = (
  request: Request,
  rules: ReadonlyArray<Decision>,
  options: Options
): ReadonlyArray<Decision> | undefined => {
  const approved = options.approved ?? []
  if (approved.length === 0) return undefined
  const asked = rulesetFor(request, options.ruleset)
  const decided = rules.map((decision): Decision => {
    const rule = Ruleset.withApprovals(
      request.permission,
      decision.pattern,
      asked,
      approved,
      request.subject,
      request.exactApprovals
    )
    return approved.includes(rule)
      ? { ...decision, action: rule.action, rule, source: "remembered approval" }
      : decision
  })
  return decided.every((d) => d.action === "allow") ? decided : undefined
}

/**
 * The ruleset to pass to `Permission.ask` for `request`: `ruleset` itself, plus a literal
 * rule for each of the request's {@link Request.harmless} patterns that a `when:
 * "harmless"` rule decides (what that rule says, for that pattern only); for an escalated
 * request, plus an `ask` rule for each pattern the rules allow (so the person is asked; a
 * configured deny still wins, it is decided before).
 *
 * @since 0.0.0
 */
export const rulesetFor = (request: Request, given: Permission.Ruleset): Permission.Ruleset => {
  const ruleset = aliasRuleset(request, given)
  if (request.escalated) return escalatedRuleset(request.permission, request.patterns, ruleset)
  if (request.harmless.length === 0) return ruleset
  const vouched = Ruleset.vouched(ruleset)
  const decide = Ruleset.evaluator(vouched)
  const decided = request.harmless.flatMap((pattern): Array<Permission.Rule> => {
    const rule = decide(request.permission, pattern)
    // Only where a lifted condition decides: the last matching rule is a conditional one.
    const index = vouched.indexOf(rule)
    return index !== -1 && ruleset[index]!.when !== undefined
      ? [{ permission: request.permission, pattern, action: rule.action, literal: true }]
      : []
  })
  return decided.length === 0 ? ruleset : Ruleset.merge(ruleset, decided)
}

// `ruleset` with a literal `allow` for each of the request's patterns under another alias
// (`Request.aliases`) that only the catch-all `*` (or no rule) decides: the command's own
// names decide it, as `judge` does.
const aliasRuleset = (request: Request, ruleset: Permission.Ruleset): Permission.Ruleset => {
  if (request.aliases === undefined || request.aliases.length === 0) return ruleset
  const decide = Ruleset.evaluator(ruleset)
  const extra = request.aliases
    .filter((pattern) => decide(request.permission, pattern).pattern === "*")
    .map(
      (pattern): Permission.Rule => ({
        permission: request.permission,
        pattern,
        action: "allow",
        literal: true
      })
    )
  return extra.length === 0 ? ruleset : Ruleset.merge(ruleset, extra)
}

/**
 * `ruleset` with an `ask` rule for each of `patterns` that it allows: what an escalated
 * request is judged by (a person is asked; a configured deny still wins, decided before).
 *
 * @since 0.0.0
 */
export const escalatedRuleset = (
  permission: string,
  patterns: ReadonlyArray<string>,
  ruleset: Permission.Ruleset
): Permission.Ruleset => {
  const decide = Ruleset.evaluator(ruleset)
  const extra = patterns
    .filter((pattern) => decide(permission, pattern).action === "allow")
    .map((pattern): Permission.Rule => ({ permission, pattern, action: "ask" }))
  return extra.length === 0 ? ruleset : Ruleset.merge(ruleset, extra)
}

/**
 * Whether writing `path` (absolute, links resolved) changes what later commands run or what
 * the gate allows: `.git/hooks/*`, `.npmrc`, shell profiles, `gatehouse.json`, agents'
 * settings. Such a write is an escalated edit, whichever tool makes it.
 *
 * @since 0.0.0
 */
export const configuresExecution: (path: string) => boolean = configures

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
