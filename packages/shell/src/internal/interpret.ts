// Gives the walked words their meaning: which program runs (through wrappers, payloads
// and aliases) and with which risks. Shared by both dialects: a native program means the
// same thing under bash and PowerShell. What the commands touch on disk is `files.ts`.
import type { Command, NoteKind, PathAccess, Redirect } from "../ShellAnalysis.ts"
import type { Dialect } from "../ShellParser.ts"
import * as Canonical from "./canonical.ts"
import * as Cmdlets from "./cmdlets.ts"
import { commandNote, type Env, type MutableCommand, note, type Payload, type Scope } from "./env.ts"
import {
  argumentPaths,
  changeDirectory,
  commandRedirect,
  createsLink,
  enterDirectory,
  followedLinks,
  foreignGitRepository,
  foreignGitVariable,
  gluedReads,
  namesFile,
  plantedGitDirectory,
  touch
} from "./files.ts"
import * as Getopt from "./getopt.ts"
import * as LongOptions from "./longOptions.ts"
import type { RawAssignment, RawCommand, RawRedirect, WalkResult, Word } from "./model.ts"
import { staticWord, URL_LIKE } from "./model.ts"
import * as Operands from "./operands.ts"
import * as Outputs from "./outputs.ts"
import { resolveFrom } from "./paths.ts"
import { aliasOf, baseName, programKey } from "./programName.ts"
import * as Programs from "./programs.ts"
import * as Risks from "./risks.ts"
import * as Runners from "./runners.ts"
import { runsProjectCode } from "./safe.ts"
import * as ShellOptions from "./shellOptions.ts"
import { ambiguousBraces, braceExpand, decodeEncodedCommand } from "./text.ts"

export type { Env } from "./env.ts"
export { makeEnv, note, rootScope } from "./env.ts"
export { workdir } from "./files.ts"

const MAX_DEPTH = 6
const NONE: ReadonlyArray<string> = []

export const absorb = (env: Env, walk: WalkResult, scope: Scope): void => {
  for (const problem of walk.problems) note(env, "unmodelled", problem)
  env.errors.push(...walk.errors)
  defineFunctions(env, walk.functions)
  for (const raw of walk.commands) interpretRaw(env, raw, scope, "command", undefined, undefined)
}

const defineFunctions = (env: Env, names: ReadonlyArray<string>): void => {
  if (names.length === 0) return
  env.functions ??= new Set()
  for (const name of names) env.functions.add(name)
}

export const absorbPayload = (env: Env, walk: WalkResult, payload: Payload): void => {
  const where = ` (in the command run by ${payload.via})`
  for (const problem of walk.problems) note(env, "unmodelled", problem + where)
  env.errors.push(...walk.errors)
  defineFunctions(env, walk.functions)
  const before = env.commands.length
  for (const raw of walk.commands)
    interpretRaw(env, raw, payload.scope, "payload", payload.parent, payload.via)
  if (payload.scope.sameShell && env.commands.slice(before).some((c) => c.changesDirectory)) {
    note(
      env,
      "unmodelled",
      `a directory change inside ${payload.via} also moves the commands after it, which are not re-resolved`
    )
  }
}

/** The commands with their prefixes, ready to be read. */
export const finish = (
  env: Env,
  prefix: (argv: ReadonlyArray<string>) => ReadonlyArray<string>
): Array<Command> => {
  // Paths were resolved against the file system as it is before the text runs: a link
  // made by one command can redirect the paths of the commands after it.
  for (const link of env.links) {
    if (env.commands.some((c) => c.index > link.index && (c.argv.length > 0 || c.redirects.length > 0))) {
      commandNote(
        link,
        "unmodelled",
        "creates a link that the commands after it may go through: their paths are judged as they are now"
      )
    }
  }
  for (const c of env.commands) {
    c.text = commandText(c)
    c.prefix = prefix(c.canonical ?? c.argv)
  }
  writtenThenRun(env)
  return env.commands
}

// git subcommands that put content of the text into the repository or the work tree: a
// blob made from its input (`git hash-object -w --stdin`), an index entry naming one, a patch
// applied. A later checkout of a committed file brings back what the project already had.
const GIT_CONTENT_WRITES: ReadonlySet<string> = new Set([
  "hash-object",
  "update-index",
  "fast-import",
  "unpack-objects",
  "mktree",
  "commit-tree",
  "mktag",
  "read-tree",
  "checkout-index",
  "apply",
  "am",
  "bundle"
])

// Programs whose writes put no content in a file: making or removing one, its times, its mode.
const WRITES_NO_CONTENT: ReadonlySet<string> = new Set([
  "mkdir",
  "rmdir",
  "rm",
  "unlink",
  "touch",
  "chmod",
  "chown",
  "chgrp"
])

// A command that runs code from files (a build, a test run, a script a shell or an
// interpreter is given, `source`) after the same text wrote a file inside the project, or the
// very file it runs: what it runs was written by the text, and no rule saw it (`printf 'rm
// x' > x.sh && bash x.sh`, `echo '{"scripts":…}' > package.json && npm run x`). Commands run
// in the order their top-level commands are written (a payload with the command that runs it).
const writtenThenRun = (env: Env): void => {
  let writes: Array<PathAccess> | undefined
  // git commands that put the text's content into the repository (`git hash-object -w`, `git
  // apply`): their files are not named, so the work tree stands for them.
  for (const c of env.commands) {
    if (programKey(c.argv[0] ?? "") !== "git") continue
    if (!GIT_CONTENT_WRITES.has(Programs.gitSubcommand(c.canonical ?? c.argv) ?? "")) continue
    writes ??= []
    writes.push({
      text: ".",
      path: env.resolver.root,
      access: "write",
      via: "argument",
      inside: true,
      directory: env.resolver.root,
      relative: "",
      isDirectory: true,
      exists: true,
      command: c.index
    })
  }
  for (const p of env.paths) {
    if (p.access !== "write" || p.command === undefined) continue
    const writer = env.commands[p.command]
    if (writer === undefined) continue
    if (p.via === "argument" && WRITES_NO_CONTENT.has(programKey(writer.argv[0] ?? ""))) continue
    writes ??= []
    writes.push(p)
  }
  if (writes === undefined) return
  const top = (c: MutableCommand): number => {
    let at = c
    for (let hops = 0; at.parent !== undefined && hops < 64; hops++) at = env.commands[at.parent] ?? at
    return at.index
  }
  // In a loop (or run by a command in one), a command runs again after the later ones of the loop.
  const repeated = (c: MutableCommand): boolean => {
    let at = c
    for (let hops = 0; hops < 64; hops++) {
      if (at.repeated === true) return true
      if (at.parent === undefined) return false
      at = env.commands[at.parent] ?? at
    }
    return true
  }
  const ancestor = (older: number, c: MutableCommand): boolean => {
    let at = c
    for (let hops = 0; at.parent !== undefined && hops < 64; hops++) {
      if (at.parent === older) return true
      at = env.commands[at.parent] ?? at
    }
    return false
  }
  // The files each command is given, gathered in one pass (a long text has thousands of paths).
  const given = new Map<number, Array<PathAccess>>()
  for (const p of env.paths) {
    if (p.access !== "read" || p.via === "redirect" || p.command === undefined) continue
    const list = given.get(p.command)
    if (list === undefined) given.set(p.command, [p])
    else list.push(p)
  }
  const none: Array<PathAccess> = []
  for (const c of env.commands) {
    if (c.argv.length === 0 || c.changesDirectory) continue
    const reads = given.get(c.index) ?? none
    if (
      !runsFiles(
        c,
        reads.some((r) => r.via === "argument")
      )
    )
      continue
    const here = top(c)
    const again = repeated(c)
    const written = writes.find((p) => {
      const writer = env.commands[p.command!]!
      if (writer.index === c.index || ancestor(writer.index, c)) return false
      const there = top(writer)
      // Written after it: only inside a loop too (the loop's own redirection is opened before).
      if ((there > here || (there === here && writer.index > c.index)) && !(again && repeated(writer)))
        return false
      // Outside the project: the file it is given, or one under a folder it is given (`make -C
      // /tmp/x`), or a word of it names the file as written (`make -f/tmp/mk`, not followed as a path).
      return (
        p.inside ||
        reads.some((r) => r.path === p.path || p.path.startsWith(`${r.path}/`)) ||
        (p.text !== "" && c.argv.some((word, i) => i > 0 && word.endsWith(p.text)))
      )
    })
    if (written === undefined) continue
    commandNote(
      c,
      "unmodelled",
      written.inside
        ? `runs project code after this text wrote \`${written.relative || "."}\`: what it runs was written by the text, and no rule saw it`
        : `runs \`${written.path}\`, which this text wrote: what it runs was written by the text, and no rule saw it`
    )
  }
}

// Whether `c` runs code from files: see `writtenThenRun`. `readsFiles`: it is given a file.
const runsFiles = (c: MutableCommand, readsFiles: boolean): boolean => {
  if (runsProjectCode(c)) return true
  const argv = c.canonical ?? c.argv
  for (let n = -1; n < c.names.length; n++) {
    const key = programKey(n === -1 ? argv[0]! : c.names[n]!)
    if (Programs.RUNS_PROJECT_FILES.has(key) || Programs.INTERPRETERS.has(key) || Programs.isPython(key))
      return true
    if (readsFiles && (Programs.POSIX_SHELLS.has(key) || Programs.POWERSHELLS.has(key))) return true
  }
  return false
}

// Assignments, argv and redirections joined by single spaces, empty words too (`"" rm -rf x`
// is not `rm -rf x`).
const commandText = (c: MutableCommand): string => {
  let text: string | undefined
  for (const part of c.assignments) text = text === undefined ? part : `${text} ${part}`
  for (const part of c.argv) text = text === undefined ? part : `${text} ${part}`
  for (const redirect of c.redirects) {
    const part = renderRedirect(redirect)
    text = text === undefined ? part : `${text} ${part}`
  }
  return text ?? ""
}

export const renderRedirect = (r: Redirect): string => {
  const head = `${r.descriptor ?? ""}${r.operator}`
  if (r.target === undefined) return head
  if (r.access === "duplicate" || r.access === "heredoc") return `${head}${r.target}`
  return `${head} ${r.target}`
}

// ---------------------------------------------------------------------------------------

const interpretRaw = (
  env: Env,
  raw: RawCommand,
  scope: Scope,
  origin: Command["origin"],
  parent: number | undefined,
  via: string | undefined
): number => {
  const words = expandWords(raw.words, scope.dialect)
  const command: MutableCommand = {
    index: env.commands.length,
    text: "",
    // Both are set later for most commands (prefix by `finish`, names from the program name).
    prefix: NONE,
    source: raw.source,
    argv: words.words.map((w) => w.value),
    assignments: raw.assignments.map((a) => `${a.name}=${a.value.value}`),
    redirects: raw.redirects.map(toRedirect),
    dialect: scope.dialect,
    origin,
    names: NONE,
    changesDirectory: false,
    notes: raw.problems.map((message) => ({ kind: "unmodelled" as const, message }))
  }
  if (parent !== undefined) command.parent = parent
  if (via !== undefined) command.via = via
  if (raw.repeated === true) command.repeated = true
  env.commands.push(command)
  if (words.problem) commandNote(command, "unmodelled", words.problem)
  // Before a program, an assignment is in its environment; alone, only if it was exported already.
  const prefixed = words.words.length > 0
  for (const assignment of raw.assignments)
    checkAssignment(env, command, assignment, raw.assignments, scope, prefixed)
  if (raw.declared !== undefined) {
    const exported =
      words.words[0]?.value === "export" || words.words.some((w) => /^-[a-zA-Z]*x/.test(w.value))
    for (const assignment of raw.declared)
      checkAssignment(env, command, assignment, raw.declared, scope, exported)
  }
  for (const redirect of raw.redirects) commandRedirect(env, command, redirect, scope)
  // Input from the command line: a pipe, a here-document or here-string; a wrapped command
  // reads its wrapper's.
  if (
    raw.stdinPiped === true ||
    raw.redirects.some((r) => r.access === "heredoc" || r.access === "herestring") ||
    (origin === "wrapped" && parent !== undefined && env.stdinText?.has(parent) === true)
  ) {
    env.stdinText ??= new Set()
    env.stdinText.add(command.index)
  }
  if (words.words.length > 0) {
    interpretWords(
      env,
      command,
      words.words,
      scope,
      raw.callOperator,
      words.braced,
      raw.leading === true && origin === "command",
      raw.afterChangeDirectory === true
    )
    if (raw.piped === true) pipedPaths(command, words.words, raw.pipedFrom)
  }
  return command.index
}

// Commands whose output may be file items (or anything, for a command not known to emit text).
const EMITS_ITEMS =
  /^(?!(get-content|gc|cat|type|write-output|echo|write|select-string|sls|out-string|format-\w+|ft|fl|convertto-\w+|'[^']*'|"[^"]*")(\s|$))/i

// PowerShell binds what is piped into a cmdlet to its -Path or -LiteralPath (`'.env' |
// Get-Content`, `Get-ChildItem -Force | Copy-Item -Destination x`): with no path written, the
// files it reads or writes are only known at run time.
const pipedPaths = (command: MutableCommand, words: ReadonlyArray<Word>, from: string | undefined): void => {
  const name = command.names.at(-1) ?? words[0]?.value ?? ""
  const lower = name.toLowerCase()
  const cmdlet = Programs.POWERSHELL_ALIASES.get(lower)?.toLowerCase() ?? lower
  if (!Programs.takesPipelinePaths(cmdlet)) return
  // Select-String searches piped text (Get-Content's lines, strings) and reads piped files.
  if (cmdlet === "select-string" && from !== undefined && !EMITS_ITEMS.test(from)) return
  // The position of -Path among the positional arguments: Select-String's first is -Pattern.
  let before = cmdlet === "select-string" ? 1 : 0
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.parameter) {
      if (before === 0) return
      before--
      continue
    }
    const option = word.value.toLowerCase()
    // A cmdlet whose parameters are known binds them by unique prefix (`-LiteralP x`).
    const bound = Cmdlets.hasParameterTable(cmdlet) ? Cmdlets.bindParameter(cmdlet, option) : undefined
    if (typeof bound === "object") {
      if (bound.name === "path" || bound.name === "literalpath" || bound.name === "filepath") return
      if (bound.kind === "value" || word.joined === true) i++
      continue
    }
    if (/^-(p(a(th?)?)?|literalpath|lp|pspath)$/.test(option) || option.startsWith("-path")) return
    if (cmdlet === "select-string" && /^-pat/.test(option)) before = 0
    if (!Programs.POWERSHELL_SWITCHES.has(option) && !option.includes(":")) i++
  }
  commandNote(
    command,
    "unmodelled",
    `\`${words[0]?.raw ?? name}\` takes the files it works on from its input`
  )
}

const toRedirect = (r: RawRedirect): Redirect => ({
  operator: r.operator,
  access: r.access,
  ...(r.descriptor === undefined ? {} : { descriptor: r.descriptor }),
  ...(r.target === undefined ? {} : { target: r.target.value })
})

const hasBraces = (word: Word): boolean =>
  word.isStatic && word.segments?.some((s) => !s.quoted && s.text.includes("{")) === true

// Bash brace expansion turns one static word into several.
const expandWords = (
  words: ReadonlyArray<Word>,
  dialect: Dialect
): { words: ReadonlyArray<Word>; problem?: string; braced: boolean } => {
  if (dialect !== "bash" || !words.some(hasBraces)) return { words, braced: false }
  const out: Array<Word> = []
  let braced = false
  let problem: string | undefined
  for (const word of words) {
    if (!hasBraces(word) || word.segments === undefined) {
      out.push(word)
      continue
    }
    if (ambiguousBraces(word.segments)) {
      problem = `the brace expansion \`${word.raw}\` may pair its braces otherwise in bash: not followed`
      out.push(word)
      continue
    }
    const expanded = braceExpand(word.segments)
    if (expanded === undefined) {
      problem = `the brace expansion \`${word.raw}\` produces too many words to judge`
      out.push(word)
      continue
    }
    if (expanded.length === 1 && expanded[0] === word.value) {
      out.push(word)
      continue
    }
    if (out.length === 0) braced = true
    for (const value of expanded)
      out.push({ ...word, value, raw: value, path: value, segments: [{ text: value, quoted: true }] })
  }
  return problem === undefined ? { words: out, braced } : { words: out, problem, braced }
}

// `cp -l`/`-s` (alone or in a cluster such as `-al`), `--link`, `--symbolic-link`.
const copiesAsLinks = (words: ReadonlyArray<Word>): boolean => {
  const end = words.findIndex((w) => w.isStatic && w.value === "--")
  return words
    .slice(1, end === -1 ? undefined : end)
    .some((w) => /^-[A-Za-z]*[ls]/.test(w.value) || w.value === "--link" || w.value === "--symbolic-link")
}

// Shell options that change what a glob matches (dotfiles, `.` and `..`, case, `**`).
const GLOB_OPTIONS: ReadonlySet<string> = new Set([
  "dotglob",
  "globskipdots",
  "nocaseglob",
  "globstar",
  "extglob",
  "nullglob",
  "failglob",
  "globasciiranges"
])

// shopt options that change nothing this analysis models: what later commands touch, run
// or how their text is read. Any other one set or unset (or one only known at run time) is
// not followed.
const SHOPT_UNMODELLED_EFFECT: ReadonlySet<string> = new Set([
  "autocd",
  "cdspell",
  "checkhash",
  "checkjobs",
  "checkwinsize",
  "cmdhist",
  "complete_fullquote",
  "direxpand",
  "dirspell",
  "execfail",
  "force_fignore",
  "gnu_errfmt",
  "histappend",
  "histreedit",
  "histverify",
  "hostcomplete",
  "huponexit",
  "inherit_errexit",
  "interactive_comments",
  "lithist",
  "mailwarn",
  "no_empty_cmd_completion",
  "nocasematch",
  "progcomp",
  "progcomp_alias",
  "promptvars",
  "shift_verbose",
  "xpg_echo"
])

// `shopt [-pqsuo] [name …]`: only `-s` and `-u` change anything.
const shopt = (env: Env, command: MutableCommand, words: ReadonlyArray<Word>): void => {
  const options = words.slice(1).filter((w) => !w.isStatic || w.value.startsWith("-"))
  const names = words.slice(1).filter((w) => w.isStatic && !w.value.startsWith("-"))
  if (!options.some((w) => !w.isStatic || /[su]/.test(w.value))) return
  const sets = options.some((w) => w.isStatic && w.value.includes("s"))
  for (const name of names) {
    if (SHOPT_UNMODELLED_EFFECT.has(name.value)) continue
    if (name.value === "expand_aliases" && sets)
      commandNote(command, "unmodelled", "turns on alias expansion: later names may not mean what they say")
    else if (GLOB_OPTIONS.has(name.value))
      commandNote(command, "unmodelled", "changes how globs expand: later globs may match other files")
    else if (name.value === "cdable_vars") {
      // `cd NAME` that is no directory goes to $NAME: a relative `cd` is not followed.
      env.seen.add("cdable_vars")
      commandNote(
        command,
        "unmodelled",
        "turns on cdable_vars: a later `cd NAME` may go to the directory in $NAME"
      )
    } else
      commandNote(command, "unmodelled", `shopt ${name.value} changes how later commands are read or run`)
  }
  if (options.some((w) => !w.isStatic))
    commandNote(command, "unmodelled", "shopt's options are only known at run time")
}

const checkAssignment = (
  env: Env,
  command: MutableCommand,
  assignment: RawAssignment,
  all: ReadonlyArray<RawAssignment>,
  scope: Scope,
  /** Whether the programs the command runs see it (`X=v cmd`, `export X=v`, not `X=v`). */
  exported: boolean
): void => {
  // CDPATH changes where a relative `cd` lands: from here on, such a move is not followed.
  if (assignment.name === "CDPATH") env.seen.add("CDPATH")
  // It names the backups cp, mv, install and ln make: from here on, their names are not known.
  if (assignment.name === "SIMPLE_BACKUP_SUFFIX") env.seen.add("SIMPLE_BACKUP_SUFFIX")
  // GLOBIGNORE also turns on dotglob: `*` then matches dotfiles such as .env.
  if (assignment.name === "GLOBIGNORE") {
    commandNote(command, "unmodelled", "sets GLOBIGNORE: later globs may match other files")
  }
  const kind = Programs.gadgetKind(assignment.name)
  if (kind === undefined) {
    valuePaths(env, command, assignment, scope, exported)
    return
  }
  const name = assignment.name
  const value = assignment.value
  if (kind === "file") {
    // GIT_TRACE=/tmp/x, GIT_INDEX_FILE=x, HISTFILE=x: a file git or the shell writes (1, 2,
    // true or a descriptor number send a trace to the terminal).
    if (!value.isStatic)
      commandNote(command, "unmodelled", `${name} names a file written, only known at run time`)
    else if (!/^(|[0-9]|true|false|yes|no|on|off)$/i.test(value.value))
      touch(env, command, value, "write", "argument", scope)
    return
  }
  if (kind === "flags") {
    // Compiler flags: plain ones change nothing run; shell text or options that run programs do.
    // `CFLAGS="$CFLAGS -O2"` adds to what the variable held already.
    const rest = value.raw.replace(new RegExp(`\\$\\{?${name}\\}?`, "g"), "").replace(/^"|"$/g, "")
    if (
      /[;&|`$<>()\\\n]|(^|\s)@|-wrapper|-fplugin|-B|-specs|linker|link-arg/.test(
        value.isStatic ? value.value : rest
      )
    )
      commandNote(command, "unmodelled", `${name} puts \`${value.raw}\` into the commands builds run`)
    return
  }
  commandNote(command, "executes", `sets ${name}, which makes programs load or run other code`)
  const unknown = () =>
    commandNote(
      command,
      "unmodelled",
      `${name} is set to \`${value.raw}\`, only known at run time, and programs run it`
    )
  switch (kind) {
    case "command":
      // A static command line is judged as the command it is (a deny on it holds).
      if (!value.isStatic) unknown()
      else if (value.value.trim() !== "") enqueueText(env, command, value.value, "bash", scope, name, false)
      return
    case "program":
      if (!value.isStatic) unknown()
      else if (value.value === "") return
      else if (/[\\/]/.test(value.value))
        commandNote(
          command,
          "unmodelled",
          `${name} runs the file \`${value.value}\`: its code is not analysed`
        )
      else enqueueText(env, command, value.value, "bash", scope, name, false)
      return
    case "directory": {
      // Like `git -C`: the repository there (its configuration and hooks) is used. A work
      // tree is written (`GIT_WORK_TREE=y git checkout HEAD -- .` checks every file out in y).
      touch(env, command, value, "read", "cd", scope)
      if (name === "GIT_WORK_TREE") touch(env, command, value, "write", "argument", scope)
      const foreign = foreignGitVariable(env, command, name, value, scope)
      if (foreign !== undefined)
        Risks.opaque(
          sinkFor(env, command, scope),
          `${foreign}, whose configuration no rule judged and which can run programs`
        )
      return
    }
    case "git-config": {
      const index = name.slice("GIT_CONFIG_KEY_".length)
      const paired = all.find((a) => a.name.toUpperCase() === `GIT_CONFIG_VALUE_${index}`)
      if (!value.isStatic || paired === undefined || !paired.value.isStatic || value.value.includes("=")) {
        commandNote(command, "unmodelled", `${name} sets a git configuration whose value is not visible here`)
        return
      }
      Risks.gitConfig("git", `${value.value}=${paired.value.value}`, sinkFor(env, command, scope), name)
      return
    }
    case "git-config-parameters": {
      const settings = value.isStatic ? Risks.gitConfigParameters(value.value) : undefined
      if (settings === undefined) {
        commandNote(command, "unmodelled", `${name} sets git configuration that is not read here`)
        return
      }
      for (const setting of settings) Risks.gitConfig("git", setting, sinkFor(env, command, scope), name)
      return
    }
    case "counted":
      return
    case "less":
      if (!value.isStatic || !/^[-A-Za-z0-9 ]*$/.test(value.value))
        commandNote(command, "unmodelled", `${name} gives less commands to run at start`)
      return
    case "opaque":
      commandNote(
        command,
        "unmodelled",
        `${name} makes programs load code or configuration this analysis cannot see`
      )
      return
  }
}

const interpretWords = (
  env: Env,
  command: MutableCommand,
  words: ReadonlyArray<Word>,
  scope: Scope,
  callOperator: "&" | "." | undefined,
  braced: boolean,
  leading: boolean,
  afterChangeDirectory = false
): void => {
  const name = words[0]!
  const ps = scope.dialect === "powershell"
  if (name.scriptBlock) {
    if (callOperator === ".")
      commandNote(command, "unmodelled", "dot-sources a script block into the current scope")
    return
  }
  if (!name.isStatic) {
    commandNote(command, "unmodelled", `the program name \`${name.raw}\` is only known at run time`)
    return
  }
  if (name.glob)
    commandNote(
      command,
      "unmodelled",
      `the program name \`${name.raw}\` is a glob: what runs depends on the files present`
    )
  if (braced)
    commandNote(command, "unmodelled", `the program name comes from the brace expansion \`${name.raw}\``)
  const program = name.value
  // zsh's equals expansion: `=rm` runs the program rm (bash, one named `=rm`); judged as rm.
  const equals = !ps && program.startsWith("=") && /^=[A-Za-z_]/.test(program) ? program.slice(1) : undefined
  if (equals !== undefined)
    commandNote(
      command,
      "unmodelled",
      `\`${program}\` runs the program ${equals} under zsh (equals expansion)`
    )
  const base = baseName(equals ?? program)
  let key = base.toLowerCase()
  // (`process.platform` is a slow look-up on a large object: asked last, and only when it can matter.)
  if (key.includes(".") && (ps || process.platform === "win32")) key = key.replace(/\.(exe|cmd|bat|com)$/, "")
  // The names the program is judged by, besides argv[0] as written.
  const names: Array<string> = []
  if (base !== program && base !== "") names.push(base)
  // Another name of a program the tables know runs it with the same options (`rust-gdb`, `vimdiff`).
  const alias = ps ? key : aliasOf(key)
  if (alias !== key) {
    names.push(alias)
    key = alias
  }
  // Aliases and cmdlets apply to bare names only: `& C:\bin\rm.exe` runs that file.
  if (ps && base === program && !/\.[a-z0-9]+$/i.test(program)) {
    const canonical = Programs.POWERSHELL_ALIASES.get(key) ?? Programs.POWERSHELL_CMDLETS.get(key)
    if (canonical !== undefined && canonical !== program) names.push(canonical)
    if (canonical !== undefined) {
      key = canonical.toLowerCase()
      // `del x`, `erase x`, `Remove-Item x` run one cmdlet: a rule for `rm *` holds for all.
      const aliases = (Programs.POWERSHELL_ALIASES_OF.get(key) ?? []).filter(
        (alias) => alias !== key && alias !== program.toLowerCase() && !names.includes(alias)
      )
      if (aliases.length > 0) command.aliases = aliases
    }
  } else if (ps && base.toLowerCase().endsWith(".exe")) {
    names.push(base.slice(0, -4))
  } else if (base !== base.toLowerCase() && process.platform !== "linux") {
    // macOS and Windows file systems ignore case: `RM` runs rm.
    names.push(base.toLowerCase())
  }
  command.names = names.length < 2 ? names : [...new Set(names)]

  if (callOperator === ".") {
    commandNote(command, "unmodelled", `dot-sources \`${program}\`: the code it runs is not analysed`)
    commandNote(command, "executes", `runs the script \`${program}\` in the current shell`)
  }
  if (env.functions?.has(ps ? program.toLowerCase() : program) === true) {
    commandNote(
      command,
      "unmodelled",
      `calls the function \`${program}\` defined in this command, not the program of that name`
    )
  }
  if (env.aliases?.has(program) === true) {
    commandNote(command, "unmodelled", `\`${program}\` is an alias defined in this command`)
  }

  if (Programs.DIRECTORY_COMMANDS.has(key)) {
    command.changesDirectory = true
    changeDirectory(env, command, key, words, scope, leading, afterChangeDirectory)
    return
  }

  // A program name glued from quoted or escaped pieces (`'g'it`, `g\it`, `` g`it ``) is
  // judged by its joined value, and asks: it is spelt to dodge rules written as text.
  if ((name.segments !== undefined && name.segments.length > 1) || (ps && name.raw.includes("`"))) {
    commandNote(
      command,
      "unmodelled",
      `the program name \`${name.raw}\` is glued from quoted or escaped pieces (it runs \`${program}\`)`
    )
  }

  // Multi-level programs: global options moved out, directory options judged like a cd.
  let args = words
  let inner = scope
  const form = Canonical.form(key, words)
  if (form !== undefined) {
    if (form.dynamic !== undefined)
      commandNote(
        command,
        "unmodelled",
        `the subcommand \`${form.dynamic.raw}\` of ${program} is only known at run time: no rule on its subcommands can see it`
      )
    if (form.unknown.length > 0)
      commandNote(
        command,
        "unmodelled",
        `${program}: unknown global option ${form.unknown.join(", ")}: where its subcommand starts is a guess`
      )
    for (const { option, value } of form.directories)
      inner = workIn(env, command, value, scope, inner, option, program)
    // The files its global options name are read (`make -f .env`, `kubectl --kubeconfig .env`),
    // where it starts and where its directory options take it.
    const places = inner === scope ? [scope] : [scope, inner]
    for (const { option, value } of form.options) {
      if (value === undefined || form.directories.some((d) => d.option === option)) continue
      for (const place of places)
        if (namesFile(env, value, place)) touch(env, command, value, "read", "argument", place)
    }
    // An option it did not know, or a cluster (`make -pf.env`, `--fi=.env`): what may be glued.
    if (form.moved) {
      const kept = new Set(form.words)
      for (const word of words)
        if (!kept.has(word) && word.isStatic && word.value.startsWith("-"))
          for (const place of places) gluedReads(env, command, word, place)
      command.canonical = form.words.map((w) => w.value)
    }
    args = form.words
    // `pnpm -c exec 'CMD'`, `pnpm --shell-mode exec 'CMD'`: the words after exec are a command
    // line a shell runs (the canonical form leaves the option out).
    if (key === "pnpm" && words.some((w) => w.value === "-c" || w.value === "--shell-mode")) {
      const at = words.findIndex((w) => w.value === "exec")
      if (at !== -1)
        Runners.shellLine(words.slice(at + 1), "pnpm --shell-mode exec", opsFor(env, command, key, inner))
    }
  } else if (key === "tar" || key === "gtar" || key === "bsdtar") {
    // `tar -C dir` (`-Cdir`, `--dir=dir`): the names after it are read or written there.
    for (const { name, value } of Getopt.read(words, Getopt.SPECS.get(key)!).options)
      if ((name === "-C" || name === "--directory") && value !== undefined)
        inner = workIn(env, command, value, scope, inner, "-C", program)
  }

  // GNU long options by any unambiguous prefix (`--in-pl`), read from here on by full name.
  const long = LongOptions.expand(key, args)
  if (long.unknown.length > 0)
    commandNote(
      command,
      "unmodelled",
      `${program} ${long.unknown.join(" ")}: not a long option it is known to have, or a prefix of several`
    )
  args = long.words
  const line = form === undefined ? long.words : words
  if (key === "cp" && copiesAsLinks(args))
    commandNote(
      command,
      "unmodelled",
      `${program} -l/-s makes links, as ln does: a write through one later lands where it points`
    )
  if (
    key === "ln" ||
    key === "link" ||
    (key === "cp" && copiesAsLinks(args)) ||
    (key === "new-item" && createsLink(words))
  )
    env.links.push(command)
  if (key === "git" && !scope.remote) {
    // A repository planted in the project, or one outside it: its configuration can run
    // programs no rule judged.
    const foreign =
      plantedGitDirectory(env, inner) ??
      foreignGitRepository(env, command, scope, inner, form?.directories ?? [])
    if (foreign !== undefined)
      Risks.opaque(
        sinkFor(env, command, inner),
        `${foreign}, whose configuration no rule judged and which can run programs`
      )
  }
  if (ps && (key === "set-item" || key === "new-item" || key === "set-content" || key === "add-content"))
    environmentItem(env, command, args, inner)
  if (Risks.LOADS_DOTENV.has(key) || Programs.isPython(key))
    Risks.loadsDotenv(key, args, sinkFor(env, command, inner))
  const handled = special(env, command, key, args, inner)
  if (handled) return
  const sink = sinkFor(env, command, inner)
  Risks.check(key, line, sink)
  Operands.check(key, line, sink)
  Outputs.check(key, line, sink)
  Operands.programFromInput(key, line, sink, env.stdinText?.has(command.index) === true)
  if (Runners.CHECKED.has(key)) Runners.check(key, words, args, opsFor(env, command, key, inner))
  if (!Programs.isModelled(key, ps)) backstop(command, program, args)
  argumentPaths(env, command, key, args, inner, scope)
}

const opsFor = (env: Env, command: MutableCommand, key: string, scope: Scope): Runners.Ops =>
  new CommandOps(env, command, key, scope)

// A class, not an object of closures: one allocation per command that needs it.
class CommandOps implements Runners.Ops {
  readonly env: Env
  readonly command: MutableCommand
  readonly key: string
  readonly scope: Scope
  readonly projectRoot: string

  constructor(env: Env, command: MutableCommand, key: string, scope: Scope) {
    this.env = env
    this.command = command
    this.key = key
    this.scope = scope
    this.projectRoot = env.resolver.root
  }

  note(kind: NoteKind, message: string): void {
    commandNote(this.command, kind, message)
  }

  child(words: ReadonlyArray<Word>, via: string): void {
    const child = childOf(this.env, this.command, words, [], this.scope, via, "payload")
    if (child !== undefined) this.command.wraps = child
  }

  text(text: string, dialect: Dialect, via: string): void {
    enqueueText(this.env, this.command, text, dialect, this.scope, via, false)
  }

  remote(words: ReadonlyArray<Word>, via: string): void {
    const remote: Scope = { ...this.scope, cwds: [...this.scope.cwds], remote: true }
    if (words.some((w) => !w.isStatic))
      commandNote(this.command, "unmodelled", `${via} runs a command line only known at run time`)
    else enqueueText(this.env, this.command, words.map((w) => w.value).join(" "), "bash", remote, via, false)
  }

  touch(word: Word, access: "read" | "write"): void {
    touch(this.env, this.command, word, access, "argument", this.scope)
  }

  paths(words: ReadonlyArray<Word>): void {
    argumentPaths(this.env, this.command, this.key, words, this.scope)
  }

  home(): string {
    return this.env.home()
  }
}

// Variables whose values are never files or folders a program opens (`TZ=Europe/Paris`).
const NOT_PATHS =
  /^(TZ|LANG|LANGUAGE|LC_[A-Z]+|TERM|COLORTERM|COLUMNS|LINES|NODE_ENV|RAILS_ENV|RACK_ENV|APP_ENV|FLASK_ENV|MIX_ENV|DEBUG|CI|FORCE_COLOR|NO_COLOR|PORT|HOST|LOG_LEVEL|RUST_LOG|RUST_BACKTRACE|GOOS|GOARCH|CGO_ENABLED|GO111MODULE|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|PYTHONHASHSEED|PYTHONWARNINGS|NODE_NO_WARNINGS|VERSION|TAG)$/
// Names that say their variable holds a path: a word of the name (`OUT_DIR`, `CARGO_HOME`,
// `ENV_FILE`) or how it ends (`GOMODCACHE`, `GOPATH`, `KUBECONFIG`); not `TIMEOUT`, `PROFILE`.
const PATH_LIKE_NAME =
  /(^|_)(DIRS?|PATHS?|HOME|CACHE|FILES?|ROOT|PREFIX|DEST|OUT|OUTPUT|TMP|TEMP|CONF|CONFIG|RC|LOGS?|LOCATION|FOLDER|STORE)(_|$)|(DIR|PATH|CACHE|ROOT|PREFIX|CONFIG)$/i
// Names of settings that are no place (`LOG_LEVEL`, `BASE_URL`).
const NOT_A_PLACE =
  /LEVEL|FORMAT|MODE|COLOU?R|SIZE|ENABLED?|DISABLED?|MAX|MIN|NUM|COUNT|TTL|TIMEOUT|PORT|HOST|URL|URI|NAME|_ID$|KEY|TOKEN|SECRET|USER|PASS|VERSION|TYPE|ENV$/i
// Names of places a program makes or clears things in (a cache, an output, a tree it builds):
// what they name is written as well as read.
const MAKES_THINGS =
  /CACHE|TMP|TEMP|OUT|DEST|TARGET|BUILD|DIST|LOG|ARTIFACT|STORE|TRASH|DATA|STATE|WORK|HOME|PREFIX|DIR|OPTS|ARGS|OPTIONS|COVERAGE|REPORT|HIST|TRACE|DUMP|PID|LOCK|RECORD|SAVE/i

// A program may open what any variable it is given names: `GOMODCACHE=/x go clean -modcache`
// deletes /x, `PIP_CACHE_DIR=.git pip install` and `CARGO_TARGET_DIR=.git cargo clean` write
// there, `CONFIG=.env node app.js` reads .env. Which variables a program reads is not known
// here, so a value that names a path is judged: read, and written too where the name says the
// program makes things there (`MAKES_THINGS`). A value names a path when it is spelt as one
// (absolute, from `~`, starting with `.`), or names what exists where the command runs, or, for
// a name made for a path, any value (`PIP_LOG=pre-commit` in .git/hooks); each part of a `:`
// list and each option's value (`-l .git/x`, `-Dlog.file=x`). A value known only at run time
// is not judged in a variable named for a path. A variable set alone reaches programs only when
// it was exported before, which is judged likely for an environment variable's name made for a
// path (`GOMODCACHE=/x; go clean -modcache`) and not otherwise (`hooks=.git/hooks; ls $hooks`,
// whose later uses are judged).
const valuePaths = (
  env: Env,
  command: MutableCommand,
  assignment: RawAssignment,
  scope: Scope,
  exported: boolean
): void => {
  const { name, value } = assignment
  if (
    NOT_PATHS.test(name.toUpperCase()) ||
    /(URL|URI)$/i.test(name) ||
    (!exported && !(/^[A-Z][A-Z0-9_]*$/.test(name) && PATH_LIKE_NAME.test(name)))
  )
    return
  const named = PATH_LIKE_NAME.test(name) && !NOT_A_PLACE.test(name)
  if (!value.isStatic) {
    // `$HOME/go` is known here; `$(pwd)/x`, `$OUT` are not.
    if (value.path !== undefined && !value.glob) judgeValuePath(env, command, name, value, scope)
    else if (named || /[/\\]/.test(value.raw))
      commandNote(command, "unmodelled", `${name} is set to \`${value.raw}\`, a path only known at run time`)
    return
  }
  // A list (`a:b`; a URL's `://` is no separator), options (`-l .git/x`, `-Xlog:gc:file=x`,
  // `-Dlog.file=x`): each part, a setting's value without its name.
  const parts = /[:\s=]/.test(value.value)
    ? value.value.split(/:(?!\/\/)|\s+/).map((part) => part.replace(/^-?[\w.-]*=/, ""))
    : [value.value]
  for (const part of parts) {
    if (part === "" || part.startsWith("-") || URL_LIKE.test(part)) continue
    const word: Word =
      part === value.value
        ? value
        : {
            ...value,
            value: part,
            raw: part,
            path: part.startsWith("~/") ? env.home() + part.slice(1) : part
          }
    if (word.path === undefined) continue
    // `a/b` under a name for no place is a path only where it exists (`BRANCH=feature/x`).
    const spelt = /^[/~.]/.test(word.path) || (named && word.path.includes("/"))
    if (!(spelt || named || namesFile(env, word, scope))) continue
    judgeValuePath(env, command, name, word, scope)
  }
}

// A read of the path a variable's value names, and a write where the name says the program
// makes things there. The project (`.`, `..`) as a whole is only read even then, unless the
// name is a cache or an output: `PROJECT_ROOT=. make test` names where the project is;
// `GOMODCACHE=$PWD go clean -modcache` deletes it.
const judgeValuePath = (env: Env, command: MutableCommand, name: string, word: Word, scope: Scope): void => {
  touch(env, command, word, "read", "argument", scope)
  if (!MAKES_THINGS.test(name)) return
  const holdsProject =
    word.path !== undefined &&
    scope.cwds.some((cwd) => {
      const absolute = resolveFrom(cwd, word.path!)
      return (
        env.resolver.root === absolute ||
        env.resolver.root.startsWith(absolute.endsWith("/") ? absolute : `${absolute}/`)
      )
    })
  if (holdsProject && !CLEARED.test(name)) return
  touch(env, command, word, "write", "argument", scope)
}
// Places a program empties or fills wholesale: named for the project, still written.
const CLEARED = /CACHE|TMP|TEMP|OUT|DEST|TARGET|BUILD|DIST|ARTIFACT|STORE|TRASH/i

// `Set-Item env:NAME value` (and New-Item, Set-Content): an assignment of the environment.
const environmentItem = (
  env: Env,
  command: MutableCommand,
  words: ReadonlyArray<Word>,
  scope: Scope
): void => {
  let name: string | undefined
  let value: Word | undefined
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (word.parameter) {
      const option = word.value.toLowerCase()
      if (Programs.isAbbreviation(option, "-value", 1)) value = words[++i]
      else if (
        Programs.isAbbreviation(option, "-path", 1) ||
        option === "-literalpath" ||
        option === "-name"
      ) {
        const path = words[++i]
        const match = path?.isStatic ? /^(?:env:[\\/]?)([A-Za-z_][A-Za-z0-9_]*)$/i.exec(path.value) : null
        if (match && (option !== "-name" || name === undefined)) name = match[1]
      }
      continue
    }
    const match = word.isStatic ? /^env:[\\/]?([A-Za-z_][A-Za-z0-9_]*)$/i.exec(word.value) : null
    if (match && name === undefined) name = match[1]
    else if (value === undefined) value = word
  }
  if (name === undefined) return
  checkAssignment(env, command, { name, value: value ?? staticWord("") }, [], scope, true)
}

// Options that move where the program works (its relative paths resolve there, and only
// there); `--git-dir`/`--work-tree` name directories it uses besides, so both count.
const MOVES_WORKING_DIRECTORY: ReadonlySet<string> = new Set([
  "-C",
  "--directory",
  "--prefix",
  "--dir",
  "--cwd"
])

const workIn = (
  env: Env,
  command: MutableCommand,
  value: Word,
  outer: Scope,
  inner: Scope,
  option: string,
  program: string
): Scope => {
  const scope = inner === outer ? { ...outer, cwds: [...outer.cwds] } : inner
  const before = scope.cwds.length
  enterDirectory(env, command, value, scope, `${program} ${option}`)
  if (MOVES_WORKING_DIRECTORY.has(option) && scope.cwds.length > before) scope.cwds.splice(0, before)
  return scope
}

const sinkFor = (env: Env, command: MutableCommand, scope: Scope): Risks.Sink =>
  new CommandSink(env, command, scope)

// A class, not an object of closures: one allocation per command.
class CommandSink implements Risks.Sink {
  readonly env: Env
  readonly command: MutableCommand
  readonly scope: Scope
  readonly dialect: Dialect

  constructor(env: Env, command: MutableCommand, scope: Scope) {
    this.env = env
    this.command = command
    this.scope = scope
    this.dialect = scope.dialect
  }

  note(kind: NoteKind, message: string): void {
    commandNote(this.command, kind, message)
  }

  text(text: string, dialect: Dialect, via: string): void {
    enqueueText(this.env, this.command, text, dialect, this.scope, via, false)
  }

  path(text: string, access: "read" | "write"): void {
    const path = text.startsWith("~/") ? this.env.home() + text.slice(1) : text
    touch(this.env, this.command, { ...staticWord(text), path }, access, "argument", this.scope)
  }

  kind(text: string): "file" | "directory" | undefined {
    const path = text.startsWith("~/") ? this.env.home() + text.slice(1) : text
    let found: "file" | "directory" | undefined
    for (const cwd of this.scope.cwds) {
      const resolved = this.env.resolver.resolve(resolveFrom(cwd, path))
      if (resolved.directory) return "directory"
      if (resolved.exists) found = "file"
    }
    return found
  }
}

// Unknown programs are judged by their own name, but an argument that is itself a command
// line, or a shell or interpreter named with its code option, means it may run something
// this analysis cannot see (`tmux new-session 'rm -rf x'`, `somewrapper bash -c …`).
const COMMAND_LINE = /[;&|`\n]|\$\(|>\s*\S|<\(/
const backstop = (command: MutableCommand, program: string, words: ReadonlyArray<Word>): void => {
  const flag = (what: string) =>
    commandNote(command, "unmodelled", `\`${program}\` is not a program this analysis knows, and ${what}`)
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.isStatic) continue
    const text = word.value
    if (text.includes(" ") || text.includes("\n") || text.includes("\t")) {
      // The program a command line would start, after its assignments (`a= rm -f x`).
      const first = /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(\S+)/.exec(text)?.[1]
      const base = first === undefined ? undefined : baseName(first).toLowerCase()
      if (
        COMMAND_LINE.test(text) ||
        (base !== undefined && (Programs.runsOthers(base) || Programs.isModelled(base, false)))
      ) {
        flag(`its argument \`${text.slice(0, 60)}\` is a command line it may run`)
        return
      }
      continue
    }
    if (i + 1 >= words.length || text.startsWith("-")) continue
    let base = text.includes("/") || text.includes("\\") ? baseName(text) : text
    base = base.toLowerCase()
    if (base.endsWith(".exe")) base = base.slice(0, -4)
    // Shells and interpreters (and their code options) are among these.
    if (Programs.runsOthers(base)) {
      flag(`it is given \`${text} ${words[i + 1]!.value}\`, which it may run`)
      return
    }
  }
}

// ---------------------------------------------------------------------------------------
// Programs that run other programs

const special = (
  env: Env,
  command: MutableCommand,
  key: string,
  words: ReadonlyArray<Word>,
  scope: Scope
): boolean => {
  if (Runners.SPECIAL.has(key) && Runners.special(key, words, opsFor(env, command, key, scope))) return true
  const wrapper = Programs.WRAPPERS.get(key)
  if (wrapper) {
    unwrap(env, command, key, wrapper, words, scope)
    return true
  }
  if (Programs.POSIX_SHELLS.has(key)) {
    shell(env, command, key, words, scope)
    return true
  }
  if (Programs.POWERSHELLS.has(key) || key === "pwsh" || key === "powershell") {
    powershell(env, command, key, words, scope)
    return true
  }
  if (Programs.FOREIGN_SHELLS.has(key)) {
    const args = words.slice(1)
    const cmd = key === "cmd" || key === "cmd.exe"
    const commandLine = args.some((w) => /^[-/][ck]$/i.test(w.value) || /^-command$/i.test(w.value))
    // `cmd` without /c is an ordinary program name on a POSIX system.
    if (cmd && !commandLine) return false
    if (args.length === 0 || commandLine) {
      commandNote(command, "unmodelled", `runs a ${key} command line, whose syntax is not analysed`)
      return true
    }
    commandNote(command, "executes", `runs a ${key} script`)
    argumentPaths(env, command, key, words, scope)
    return true
  }
  switch (key) {
    case "eval":
    case "invoke-expression": {
      commandNote(command, "executes", `${words[0]!.value} runs its arguments as a command`)
      const args = words.slice(1).filter((w) => !(key === "invoke-expression" && w.parameter))
      if (args.length === 0) {
        // Invoke-Expression without an argument runs what the pipeline feeds it.
        if (key === "invoke-expression") {
          commandNote(command, "unmodelled", `${words[0]!.value} runs text from its input`)
        }
        return true
      }
      if (args.some((w) => !w.isStatic)) {
        commandNote(command, "unmodelled", `${words[0]!.value} runs text only known at run time`)
        return true
      }
      enqueueText(
        env,
        command,
        args.map((w) => w.value).join(" "),
        scope.dialect,
        scope,
        words[0]!.value,
        true
      )
      return true
    }
    case "source":
    case ".":
      commandNote(
        command,
        "unmodelled",
        `${key} runs the file \`${words[1]?.raw ?? ""}\` in this shell: its commands are not analysed`
      )
      commandNote(command, "executes", `${key} runs a script in the current shell`)
      argumentPaths(env, command, key, words, scope)
      return true
    case "alias":
      for (const word of words.slice(1)) {
        const match = /^([^=]+)=(.*)$/s.exec(word.value)
        if (!match) continue
        env.aliases ??= new Set()
        env.aliases.add(match[1]!)
        if (!word.isStatic)
          commandNote(command, "unmodelled", `the alias \`${match[1]}\` has a value only known at run time`)
        else enqueueText(env, command, match[2]!, "bash", scope, `the alias ${match[1]}`, true)
      }
      return true
    case "trap": {
      // `trap 'cmd' SIGNAL…`: the string runs later, in this shell.
      const args = words.slice(1).filter((w) => w.value !== "--")
      const action = args[0]
      if (!action || action.value.startsWith("-") || args.length < 2) return true
      commandNote(command, "executes", "trap runs a command line when a signal or exit comes")
      if (!action.isStatic)
        commandNote(command, "unmodelled", "trap runs a command line only known at run time")
      else if (action.value !== "") enqueueText(env, command, action.value, "bash", scope, "trap", true)
      return true
    }
    case "shopt":
      shopt(env, command, words)
      return true
    case "set":
      for (const problem of ShellOptions.setProblems(words)) commandNote(command, "unmodelled", problem)
      return false
    case "zstyle":
      // `zstyle -e PATTERN STYLE CODE…` stores code that a later look-up of the style runs.
      if (words.slice(1).some((w) => !w.isStatic || /^-[a-zA-Z]*e/.test(w.value))) {
        commandNote(command, "unmodelled", "zstyle -e stores code that later look-ups run")
        // Judged as well, so that a deny holds: the code is its words after the pattern and style.
        const code = words
          .slice(1)
          .filter((w) => !w.value.startsWith("-"))
          .slice(2)
        if (code.length > 0 && code.every((w) => w.isStatic))
          enqueueText(env, command, code.map((w) => w.value).join(" "), "bash", scope, "zstyle -e", false)
      }
      return true
    case "emulate": {
      // zsh's emulation modes change how every later command is read (any name is a mode);
      // `-c CODE` runs CODE in one.
      commandNote(command, "unmodelled", "emulate changes how later commands are read or expand")
      const at = words.findIndex((w) => w.value === "-c")
      const code = at === -1 ? undefined : words[at + 1]
      if (code?.isStatic === true) enqueueText(env, command, code.value, "bash", scope, "emulate -c", false)
      return true
    }
    case "setopt":
    case "unsetopt":
      for (const problem of ShellOptions.setoptProblems(words)) commandNote(command, "unmodelled", problem)
      return true
    case "set-alias":
    case "new-alias":
      commandNote(command, "unmodelled", "defines an alias: later names may not mean what they say")
      return true
    case "coproc":
    case "function":
      commandNote(command, "unmodelled", `\`${key}\` is not modelled`)
      return true
    case "xargs":
      xargs(env, command, words, scope)
      return true
    case "find":
      find(env, command, words, scope)
      return true
    case "start-process":
      startProcess(env, command, words, scope)
      return true
    case "invoke-command":
    case "start-job":
      commandNote(command, "executes", `${words[0]!.value} runs a script block or script`)
      if (words.some((w) => w.parameter && /^-(filepath|computername|session)/i.test(w.value))) {
        commandNote(command, "unmodelled", `${words[0]!.value} runs a script file or on another computer`)
      }
      return true
    default:
      return false
  }
}

const childOf = (
  env: Env,
  command: MutableCommand,
  words: ReadonlyArray<Word>,
  assignments: ReadonlyArray<RawAssignment>,
  scope: Scope,
  via: string,
  origin: Command["origin"],
  shared = false
): number | undefined => {
  if (words.length === 0) return undefined
  if (scope.depth >= MAX_DEPTH) {
    commandNote(command, "unmodelled", "commands nested too deeply to analyse")
    return undefined
  }
  const raw: RawCommand = {
    source: words.map((w) => w.raw).join(" "),
    assignments,
    words,
    redirects: [],
    problems: []
  }
  if (shared) {
    // The same directories (one array: a `cd` inside moves the commands after it) one level
    // deeper, so `time time … cd` is bounded like any nesting.
    const same: Scope = { ...scope, depth: scope.depth + 1 }
    const index = interpretRaw(env, raw, same, origin, command.index, via)
    if (same.unknown) scope.unknown = true
    return index
  }
  const inner: Scope = { ...scope, cwds: [...scope.cwds], depth: scope.depth + 1 }
  return interpretRaw(env, raw, inner, origin, command.index, via)
}

const enqueueText = (
  env: Env,
  command: MutableCommand,
  text: string,
  dialect: Dialect,
  scope: Scope,
  via: string,
  sameShell: boolean
): void => {
  if (scope.depth >= MAX_DEPTH) {
    commandNote(command, "unmodelled", "command strings nested too deeply to analyse")
    return
  }
  env.payloads.push({
    text,
    dialect,
    parent: command.index,
    via,
    scope: {
      dialect,
      cwds: [...scope.cwds],
      unknown: scope.unknown,
      depth: scope.depth + 1,
      sameShell,
      ...(scope.remote === true ? { remote: true } : {})
    }
  })
}

interface ParsedOptions {
  readonly rest: number
  readonly values: Map<string, Array<Word>>
  readonly flags: Set<string>
  readonly unknown: Array<string>
}

/** Reads options per `spec` from `words[start]`; stops at `--` or the first operand. */
const parseOptions = (
  words: ReadonlyArray<Word>,
  start: number,
  valued: ReadonlyArray<string>,
  flags: ReadonlyArray<string>,
  numeric = false
): ParsedOptions => {
  const values = new Map<string, Array<Word>>()
  const seen = new Set<string>()
  const unknown: Array<string> = []
  const add = (option: string, value: Word) => {
    const list = values.get(option) ?? []
    list.push(value)
    values.set(option, list)
  }
  let i = start
  while (i < words.length) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic && word.raw.startsWith("-")) {
      unknown.push(word.raw)
      i++
      continue
    }
    if (text === "--") {
      i++
      break
    }
    if (!text.startsWith("-") || text === "-" || !word.isStatic) {
      if (text === "-" && flags.includes("-")) {
        seen.add("-")
        i++
        continue
      }
      break
    }
    if (numeric && /^-\d+$/.test(text)) {
      i++
      continue
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=")
      const option = eq === -1 ? text : text.slice(0, eq)
      if (valued.includes(option)) {
        if (eq !== -1) {
          add(option, staticWord(text.slice(eq + 1)))
          i++
        } else {
          const value = words[i + 1]
          if (value) add(option, value)
          i += 2
        }
      } else {
        if (!flags.includes(option)) unknown.push(option)
        seen.add(option)
        i++
      }
      continue
    }
    if (valued.includes(text) || flags.includes(text)) {
      if (valued.includes(text)) {
        const value = words[i + 1]
        if (value) add(text, value)
        i += 2
      } else {
        seen.add(text)
        i++
      }
      continue
    }
    // A cluster of short options (`-iu root`, `-oL`).
    let consumed = 1
    for (let k = 1; k < text.length; k++) {
      const option = `-${text[k]}`
      if (valued.includes(option)) {
        const attached = text.slice(k + 1)
        if (attached) add(option, staticWord(attached))
        else {
          const value = words[i + 1]
          if (value) add(option, value)
          consumed = 2
        }
        break
      }
      if (!flags.includes(option)) unknown.push(option)
      seen.add(option)
    }
    i += consumed
  }
  return { rest: i, values, flags: seen, unknown }
}

const unwrap = (
  env: Env,
  command: MutableCommand,
  key: string,
  spec: Programs.WrapperSpec,
  words: ReadonlyArray<Word>,
  scope: Scope
): void => {
  const options = parseOptions(
    words,
    1,
    spec.valued,
    [...spec.flags, ...(spec.noCommand ?? [])],
    spec.numeric
  )
  if (options.unknown.length > 0) {
    commandNote(
      command,
      "unmodelled",
      `${key}: unknown option ${options.unknown.join(", ")}: where the command it runs starts is a guess`
    )
  }
  for (const option of spec.noCommand ?? []) {
    if (options.flags.has(option) || options.values.has(option)) {
      if (key === "sudo" && (option === "-e" || option === "--edit")) {
        commandNote(command, "writes", "sudoedit changes files as another user")
      }
      argumentPaths(env, command, key, words, scope)
      return
    }
  }
  for (const option of spec.opaque ?? []) {
    if (options.values.has(option) || options.flags.has(option))
      commandNote(command, "unmodelled", `${key} ${option} runs commands this analysis cannot see`)
  }
  // A timer runs the command later, outside the gate and any sandbox.
  if (key === "systemd-run" && words.some((w) => /^--(on-|timer-property)/.test(w.value)))
    commandNote(command, "unmodelled", "systemd-run starts a timer that runs the command later")
  for (const option of spec.writes ?? []) {
    for (const value of options.values.get(option) ?? []) {
      // strace's `-o '!cmd'` and `-o '|cmd'` pipe the trace into a command line.
      if ((key === "strace" || key === "ltrace") && /^[!|]/.test(value.value)) {
        commandNote(command, "executes", `${key} ${option} pipes its trace into a command`)
        if (value.isStatic)
          enqueueText(env, command, value.value.slice(1), "bash", scope, `${key} ${option}`, false)
        else commandNote(command, "unmodelled", `${key} ${option} runs a command line only known at run time`)
      } else touch(env, command, value, "write", "argument", scope)
    }
  }
  // The other values of its options that name a file are read (`dotenv -e .env`, `env-cmd -f
  // .env`: the file's variables go to the command it runs; `rlwrap -f words`), glued ones too
  // (`dotenv -e=.env`).
  for (const [option, values] of options.values) {
    if (spec.writes?.includes(option) || spec.chdir?.includes(option) || spec.script?.includes(option))
      continue
    for (const value of values)
      if (namesFile(env, value, scope)) touch(env, command, value, "read", "argument", scope)
  }
  for (let i = 1; i < options.rest; i++)
    if (words[i]!.isStatic && words[i]!.value.startsWith("-")) gluedReads(env, command, words[i]!, scope)
  let inner = scope
  for (const option of spec.chdir ?? []) {
    for (const value of options.values.get(option) ?? []) {
      inner = { ...scope, cwds: [...scope.cwds] }
      enterDirectory(env, command, value, inner, `${key} ${option}`)
    }
  }
  for (const option of spec.script ?? []) {
    for (const value of options.values.get(option) ?? []) {
      if (!value.isStatic)
        commandNote(command, "unmodelled", `${key} runs a command line only known at run time`)
      else enqueueText(env, command, value.value, "bash", inner, `${key} ${option}`, false)
      commandNote(command, "executes", `${key} ${option} runs a command line`)
    }
  }
  let index = options.rest
  const assignments: Array<RawAssignment> = []
  if (spec.assignments) {
    // Any word with `=` is one (`env A%=x cmd`, `env 'BASH_FUNC_ls%%=() { …; }' make`): env and
    // sudo put it in the environment whatever its name, where a shell would not.
    while (index < words.length) {
      const word = words[index]!
      if (!word.isStatic) {
        if (!word.raw.includes("=")) break
        // `PATH=$PATH:/x`: a name as written, a value known at run time.
        const named = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word.raw)
        if (named === null)
          commandNote(
            command,
            "unmodelled",
            `${key}: \`${word.raw}\` may set a variable only known at run time`
          )
        else {
          const cut = named[0].length
          const value = { ...word, value: word.value.slice(cut), raw: word.raw.slice(cut), path: undefined }
          assignments.push({ name: named[1]!, value })
        }
        index++
        continue
      }
      const match = /^([^=]+)=(.*)$/s.exec(word.value)
      if (!match) break
      assignments.push({ name: match[1]!, value: staticWord(match[2]!) })
      index++
    }
  }
  const positional = spec.positional ?? 0
  if (key === "flock" || key === "logsave") {
    const file = words[index]
    if (file) touch(env, command, file, "write", "argument", scope)
  }
  index += positional
  let rest = words.slice(index)
  if (key === "setarch") {
    // Its options follow the architecture (`setarch x86_64 -R cmd`).
    const after = parseOptions(words, index, spec.valued, spec.flags)
    for (const option of after.unknown)
      commandNote(
        command,
        "unmodelled",
        `${key}: unknown option ${option}: where the command it runs starts is a guess`
      )
    rest = words.slice(after.rest)
  }
  if (key === "watch" && !options.flags.has("-x") && !options.flags.has("--exec") && rest.length > 0) {
    commandNote(command, "executes", "watch runs its arguments through sh -c")
    if (rest.some((w) => !w.isStatic))
      commandNote(command, "unmodelled", "watch runs a command line only known at run time")
    else enqueueText(env, command, rest.map((w) => w.value).join(" "), "bash", inner, "watch", false)
    return
  }
  if (key === "cross-env-shell" && rest.length > 0) {
    enqueueText(env, command, rest.map((w) => w.value).join(" "), "bash", inner, key, false)
    return
  }
  if (rest.length === 0) return
  if (
    key === "sudo" &&
    (options.flags.has("-s") ||
      options.flags.has("-i") ||
      options.flags.has("--shell") ||
      options.flags.has("--login"))
  ) {
    commandNote(command, "executes", "sudo runs the command through a shell")
  }
  // bash's `time` keyword and the builtins `builtin`, `command` (and zsh's precommand
  // modifiers and `repeat`) run their command in the current shell: `time cd dir` moves the
  // commands after it.
  const shared = SAME_SHELL_WRAPPERS.has(key)
  const child = childOf(env, command, rest, assignments, inner, key, "wrapped", shared)
  if (child !== undefined) command.wraps = child
}

const SAME_SHELL_WRAPPERS: ReadonlySet<string> = new Set([
  "time",
  "builtin",
  "command",
  "noglob",
  "nocorrect",
  "-",
  "repeat"
])

const shell = (
  env: Env,
  command: MutableCommand,
  key: string,
  words: ReadonlyArray<Word>,
  scope: Scope
): void => {
  // Options of POSIX shells: clusters of letters, `-o name`, `+o name`; `-c` takes the script
  // from the first operand after the options.
  let i = 1
  let script = false
  let stdin = false
  while (i < words.length) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic && word.raw.startsWith("-")) {
      commandNote(command, "unmodelled", `${key}: option \`${word.raw}\` is only known at run time`)
      i++
      continue
    }
    if (text === "--" || text === "-") {
      i++
      if (text === "-") stdin = true
      break
    }
    const startup = /^--(rcfile|init-file)(=|$)/.exec(text)
    if (startup !== null) {
      // An interactive shell runs the file first, as `source` does: its commands are unseen.
      const file =
        startup[2] === "="
          ? {
              ...word,
              value: text.slice(startup[0].length),
              raw: text.slice(startup[0].length),
              path: text.slice(startup[0].length)
            }
          : words[i + 1]
      commandNote(command, "executes", `${key} --${startup[1]} runs a start-up file`)
      commandNote(command, "unmodelled", `${key} --${startup[1]} runs a file whose commands are not analysed`)
      if (file !== undefined) touch(env, command, file, "read", "argument", scope)
      i += startup[2] === "=" ? 1 : 2
      continue
    }
    // zsh reads a long option's name in any case, with or without `_` (`--GLOB_DOTS`).
    if (/^--[A-Za-z_-]+$/.test(text)) {
      if (key === "zsh")
        for (const problem of ShellOptions.setoptProblems([staticWord("setopt"), staticWord(text.slice(2))]))
          commandNote(command, "unmodelled", `${key} ${problem}`)
      else if (!BASH_LONG_OPTIONS.has(text))
        commandNote(command, "unmodelled", `${key} ${text}: an option this analysis does not model`)
      i++
      continue
    }
    // Options the shell starts with hold for everything it runs (`bash -O dotglob -c 'cat *'`
    // reads .env): judged as `set`, `shopt` and `setopt` in the text are.
    if (/^[-+][a-zA-Z0-9]+$/.test(text)) {
      if (text.startsWith("-") && text.includes("c")) script = true
      if (text.startsWith("-") && text.includes("s")) stdin = true
      // Each `o` of a cluster (and bash's `O`) takes the next word as its option's name
      // (`-euo pipefail`); zsh's `-O` is a letter of its own (CORRECT_ALL).
      const takesName = (letter: string) => letter === "o" || (letter === "O" && key !== "zsh")
      const named: Array<Word> = []
      for (const letter of text.slice(1)) {
        if (!takesName(letter)) continue
        const name = words[i + 1 + named.length]
        if (name === undefined) break
        named.push(name)
        if (!name.isStatic)
          commandNote(command, "unmodelled", `${key} ${text}: an option only known at run time`)
        else if (letter === "O")
          shopt(env, command, [staticWord("shopt"), staticWord(text[0] === "-" ? "-s" : "-u"), name])
        else
          for (const problem of ShellOptions.setProblems([
            staticWord("set"),
            staticWord(`${text[0]}o`),
            name
          ]))
            commandNote(command, "unmodelled", `${key} ${problem}`)
      }
      // The letters only an invocation takes (`-c`, `-s`, `-i`, `-l`, `-r`) aside, as `set` reads them.
      const letters = [...text.slice(1)]
        .filter((letter) => !/[csilr]/.test(letter) && !takesName(letter))
        .join("")
      if (letters !== "")
        for (const problem of ShellOptions.setProblems([staticWord("set"), staticWord(text[0] + letters)]))
          commandNote(command, "unmodelled", `${key} ${problem}`)
      i += 1 + named.length
      continue
    }
    break
  }
  const operand = words[i]
  if (script) {
    commandNote(command, "executes", `${key} -c runs a command line`)
    if (!operand) {
      commandNote(command, "unmodelled", `${key} -c without a command line`)
      return
    }
    if (!operand.isStatic) {
      commandNote(command, "unmodelled", `${key} -c runs a command line only known at run time`)
      return
    }
    enqueueText(env, command, operand.value, "bash", scope, `${key} -c`, false)
    return
  }
  // `bash /dev/stdin` (or /dev/fd/N, /proc/self/fd/N) reads its script from a descriptor.
  if (!operand || stdin || (operand.isStatic && Operands.isDescriptorPath(operand.value))) {
    commandNote(command, "unmodelled", `${key} reads the commands it runs from standard input`)
    commandNote(command, "executes", `${key} runs commands from standard input`)
    return
  }
  commandNote(command, "executes", `${key} runs the script ${operand.raw}`)
  touch(env, command, operand, "read", "argument", scope)
}

// bash's long options that change nothing the analysis models (`--rcfile` is read above).
const BASH_LONG_OPTIONS: ReadonlySet<string> = new Set([
  "--norc",
  "--noprofile",
  "--login",
  "--noediting",
  "--verbose",
  "--version",
  "--help",
  "--restricted",
  "--dump-strings",
  "--dump-po-strings",
  "--pretty-print"
])

const POWERSHELL_VALUED = [
  "-executionpolicy",
  "-ep",
  "-ex",
  "-exec",
  "-windowstyle",
  "-w",
  "-win",
  "-version",
  "-v",
  "-inputformat",
  "-inf",
  "-if",
  "-outputformat",
  "-of",
  "-o",
  "-configurationname",
  "-config",
  "-custompipename",
  "-settingsfile",
  "-settings",
  "-workingdirectory",
  "-wd",
  "-psconsolefile",
  "-configurationfile"
]
const POWERSHELL_FLAGS = [
  "-noprofile",
  "-nop",
  "-noninteractive",
  "-noni",
  "-nologo",
  "-nol",
  "-noexit",
  "-noe",
  "-sta",
  "-mta",
  "-login",
  "-l",
  "-interactive",
  "-i",
  "-noprofileloadtime",
  "-help",
  "-h",
  "-?"
]

const powershell = (
  env: Env,
  command: MutableCommand,
  key: string,
  words: ReadonlyArray<Word>,
  scope: Scope
): void => {
  let i = 1
  let inner: Scope = scope
  while (i < words.length) {
    const word = words[i]!
    const text = word.value.toLowerCase()
    if (!word.isStatic) {
      commandNote(command, "unmodelled", `${key}: argument \`${word.raw}\` is only known at run time`)
      return
    }
    if (!/^[-/]/.test(text)) {
      // The first operand is a script file (`pwsh script.ps1`), like -File.
      commandNote(command, "executes", `${key} runs the script ${word.raw}`)
      touch(env, command, word, "read", "argument", inner)
      return
    }
    const option = text.replace(/^\//, "-")
    if (Programs.isAbbreviation(option, "-command", 2) || option === "-c") {
      commandNote(command, "executes", `${key} -Command runs a command line`)
      const rest = words.slice(i + 1)
      if (rest.length === 0 || (rest.length === 1 && rest[0]!.value === "-")) {
        commandNote(command, "unmodelled", `${key} reads the commands it runs from standard input`)
        return
      }
      if (rest.some((w) => !w.isStatic && !w.scriptBlock)) {
        commandNote(command, "unmodelled", `${key} -Command runs text only known at run time`)
        return
      }
      if (rest.length === 1 && rest[0]!.scriptBlock) {
        enqueueText(env, command, rest[0]!.raw.slice(1, -1), "powershell", inner, `${key} -Command`, false)
        return
      }
      enqueueText(
        env,
        command,
        rest.map((w) => w.value).join(" "),
        "powershell",
        inner,
        `${key} -Command`,
        false
      )
      return
    }
    if (Programs.isAbbreviation(option, "-encodedcommand", 2) || option === "-e" || option === "-ec") {
      commandNote(command, "executes", `${key} -EncodedCommand runs a hidden command line`)
      const value = words[i + 1]
      const decoded = value?.isStatic ? decodeEncodedCommand(value.value) : undefined
      if (decoded === undefined) {
        commandNote(
          command,
          "unmodelled",
          `${key} -EncodedCommand: the value is not valid base64 UTF-16LE text`
        )
        return
      }
      enqueueText(env, command, decoded, "powershell", inner, `${key} -EncodedCommand`, false)
      return
    }
    if (Programs.isAbbreviation(option, "-file", 2) || option === "-f") {
      const file = words[i + 1]
      commandNote(command, "executes", `${key} -File runs the script ${file?.raw ?? ""}`)
      if (file) touch(env, command, file, "read", "argument", inner)
      return
    }
    if (option === "-encodedarguments" || option === "-ea") {
      commandNote(command, "unmodelled", `${key} ${word.value}: encoded arguments are not decoded`)
      i += 2
      continue
    }
    if (POWERSHELL_VALUED.includes(option)) {
      if (option === "-workingdirectory" || option === "-wd") {
        const value = words[i + 1]
        if (value) {
          inner = { ...scope, cwds: [...scope.cwds] }
          enterDirectory(env, command, value, inner, `${key} -WorkingDirectory`)
        }
      }
      i += 2
      continue
    }
    if (POWERSHELL_FLAGS.includes(option)) {
      i++
      continue
    }
    commandNote(command, "unmodelled", `${key}: unknown parameter ${word.value}`)
    i++
  }
  commandNote(command, "unmodelled", `${key} without -Command or -File reads commands interactively`)
}

const xargs = (env: Env, command: MutableCommand, words: ReadonlyArray<Word>, scope: Scope): void => {
  const options = parseOptions(
    words,
    1,
    [
      "-I",
      "-n",
      "-L",
      "-P",
      "-s",
      "-d",
      "-E",
      "-a",
      "--arg-file",
      "--delimiter",
      "--max-args",
      "--max-lines",
      "--max-procs",
      "--max-chars",
      "--process-slot-var"
    ],
    [
      // GNU's -i, -l, -e, --replace, --eof take their argument only glued (`-i{}`,
      // `--replace=%`): `xargs -l nice` runs nice.
      "-i",
      "-l",
      "-e",
      "--replace",
      "--eof",
      "-0",
      "--null",
      "-r",
      "--no-run-if-empty",
      "-t",
      "--verbose",
      "-p",
      "--interactive",
      "-x",
      "--exit",
      "-o",
      "--open-tty",
      "--show-limits"
    ]
  )
  if (options.unknown.length > 0) {
    commandNote(command, "unmodelled", `xargs: unknown option ${options.unknown.join(", ")}`)
  }
  for (const file of [...(options.values.get("-a") ?? []), ...(options.values.get("--arg-file") ?? [])]) {
    touch(env, command, file, "read", "argument", scope)
  }
  commandNote(command, "executes", "xargs runs a command with arguments read from its input")
  let replace = options.values.get("-I")?.[0]?.value
  for (const word of words.slice(1, options.rest)) {
    const optional =
      /^-[0rtpxo]*([ile])(.*)$/s.exec(word.value) ?? /^--(replace|eof)(?:=(.*))?$/s.exec(word.value)
    if (optional === null) continue
    // Their optional, glued argument is read differently by other xargs (BSD's has no -e or -l).
    commandNote(command, "unmodelled", `xargs ${word.value}: an option whose argument is optional`)
    if (optional[1] === "i" || optional[1] === "replace") replace = optional[2] || "{}"
  }
  const rest = words.slice(options.rest).map(placeholder(replace ?? "{}"))
  const program = rest.length > 0 ? rest : [staticWord("echo")]
  // Without -I, xargs appends the words it reads to the command: operands only known at run
  // time (`ls | xargs cat` reads whatever ls lists, prod.env included).
  const appended: Word = { ...staticWord("{}"), isStatic: false, path: undefined }
  const child = childOf(
    env,
    command,
    replace === undefined ? [...program, appended] : program,
    [],
    scope,
    "xargs",
    "payload"
  )
  if (child !== undefined) command.wraps = child
}

// The file-name placeholder of find -exec and xargs -I is not a file of its own.
const placeholder =
  (marker: string) =>
  (word: Word): Word =>
    // The name is only known at run time (a file may be named `rm -rf src`): not static.
    word.isStatic && word.value.includes(marker) ? { ...word, isStatic: false, path: undefined } : word

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"])
const FIND_WRITES = new Set(["-fprint", "-fprint0", "-fprintf", "-fls"])
// Expressions of find that take one argument (so it is not mistaken for a root).
const FIND_VALUED = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-type",
  "-xtype",
  "-size",
  "-perm",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-newer",
  "-anewer",
  "-cnewer",
  "-maxdepth",
  "-mindepth",
  "-links",
  "-inum",
  "-samefile",
  "-lname",
  "-ilname",
  "-fstype",
  "-context",
  "-printf",
  "-used",
  "-regextype",
  "-files0-from"
])

const find = (env: Env, command: MutableCommand, words: ReadonlyArray<Word>, scope: Scope): void => {
  let i = 1
  // Leading options -H -L -P -D x -Ox.
  while (i < words.length && /^-([HLP]|D|O\d*)$/.test(words[i]!.value)) i += words[i]!.value === "-D" ? 2 : 1
  const roots: Array<Word> = []
  while (i < words.length && !/^[-(!),]/.test(words[i]!.value)) roots.push(words[i++]!)
  let destructive = false
  while (i < words.length) {
    const text = words[i]!.value
    if (FIND_EXEC.has(text)) {
      let end = i + 1
      while (end < words.length && words[end]!.value !== ";" && words[end]!.value !== "+") end++
      const inner = words.slice(i + 1, end)
      commandNote(
        command,
        "executes",
        `find ${text} runs \`${inner.map((w) => w.value).join(" ")}\` for each file`
      )
      // -execdir and -okdir run it in the folder of each file found: relative paths there are not known.
      const where = text.endsWith("dir") ? { ...scope, cwds: [...scope.cwds], unknown: true } : scope
      childOf(env, command, inner.map(placeholder("{}")), [], where, `find ${text}`, "payload")
      i = end + 1
      continue
    }
    if (FIND_WRITES.has(text)) {
      commandNote(command, "writes", `find ${text} writes a file`)
      const file = words[i + 1]
      if (file) touch(env, command, file, "write", "argument", scope)
      i += text === "-fprintf" ? 3 : 2
      continue
    }
    if (text === "-delete") {
      destructive = true
      commandNote(command, "destructive", "find -delete removes every file it finds")
    }
    if (FIND_VALUED.has(text)) {
      if (
        text === "-newer" ||
        text === "-anewer" ||
        text === "-cnewer" ||
        text === "-samefile" ||
        text === "-files0-from"
      ) {
        const file = words[i + 1]
        if (file) touch(env, command, file, "read", "argument", scope)
      }
      i += 2
      continue
    }
    i++
  }
  for (const root of roots.length > 0 ? roots : [staticWord(".")]) {
    touch(env, command, root, destructive ? "write" : "read", "argument", scope)
  }
  if (
    Programs.followsLinks(
      "find",
      words.map((w) => w.value)
    )
  )
    followedLinks(env, command)
}

const startProcess = (env: Env, command: MutableCommand, words: ReadonlyArray<Word>, scope: Scope): void => {
  commandNote(command, "executes", "Start-Process runs a program")
  let file: Word | undefined
  let args: Array<Word> = []
  const positional: Array<Word> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (word.parameter) {
      const name = word.value.toLowerCase()
      const value = words[i + 1]
      if (Programs.isAbbreviation(name, "-filepath", 1) || name === "-path") {
        file = value
        i++
      } else if (Programs.isAbbreviation(name, "-argumentlist", 1) || name === "-args") {
        if (value) args = value.items ? [...value.items] : [value]
        i++
      } else if (Programs.isAbbreviation(name, "-workingdirectory", 1)) {
        if (value) touch(env, command, value, "read", "cd", scope)
        i++
      } else if (Programs.isAbbreviation(name, "-verb", 2)) {
        if (value && /runas/i.test(value.value))
          commandNote(command, "executes", "Start-Process -Verb RunAs runs elevated")
        i++
      } else if (/^-(redirectstandard(output|error))/i.test(name)) {
        if (value) touch(env, command, value, "write", "argument", scope)
        i++
      } else if (/^-(redirectstandardinput)/i.test(name)) {
        if (value) touch(env, command, value, "read", "argument", scope)
        i++
      } else if (!Programs.POWERSHELL_SWITCHES.has(name) && name !== "-nonewwindow" && name !== "-passthru") {
        i++
      }
      continue
    }
    positional.push(word)
  }
  if (!file) file = positional.shift()
  if (args.length === 0 && positional[0])
    args = positional[0].items ? [...positional[0].items] : [positional[0]]
  if (!file) return
  if (!file.isStatic || args.some((a) => !a.isStatic)) {
    commandNote(command, "unmodelled", "Start-Process runs a program or arguments only known at run time")
  }
  // A single argument string is a command line the program splits itself.
  const argv = args.length === 1 ? args[0]!.value.split(/\s+/).filter(Boolean).map(staticWord) : args
  const child = childOf(env, command, [file, ...argv], [], scope, "Start-Process", "payload")
  if (child !== undefined) command.wraps = child
}
