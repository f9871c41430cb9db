// What commands touch on disk: the directories they move into (`cd`, `pushd`,
// `Set-Location`), and their file arguments and redirection targets, resolved against every
// directory they may run in and classified read or write.
import * as fs from "node:fs"
import * as NodePath from "node:path"
import type { PathAccess } from "../ShellAnalysis.ts"
import { archiveWrites, tarPaths } from "./archives.ts"
import * as Cmdlets from "./cmdlets.ts"
import { commandNote, type Env, type MutableCommand, type Scope } from "./env.ts"
import { generatedPaths, generates } from "./generated.ts"
import { isOptionWord } from "./getopt.ts"
import { GREP_PROGRAMS, parseGrep } from "./grep.ts"
import type { RawRedirect, Word } from "./model.ts"
import { staticWord, URL_LIKE } from "./model.ts"
import {
  expandGlob,
  globPrefix,
  isNormalAbsolute,
  joinAsWritten,
  type Resolved,
  resolveFrom,
  resolvePath
} from "./paths.ts"
import { programKey } from "./programName.ts"
import * as Programs from "./programs.ts"

const MAX_DIRECTORIES = 16

/** The starting directory is touched too: outside the project it needs `external_directory`. */
export const workdir = (env: Env, cwd: string): void => {
  if (cwd === env.resolver.root) return
  const real = env.resolver.real(cwd)
  if (env.resolver.inside(real)) return
  addPath(env, {
    text: cwd,
    path: real,
    access: "read",
    via: "workdir",
    inside: false,
    directory: real,
    isDirectory: true,
    exists: true
  })
}

// ---------------------------------------------------------------------------------------
// Directories

export const changeDirectory = (
  env: Env,
  command: MutableCommand,
  key: string,
  words: ReadonlyArray<Word>,
  scope: Scope,
  leading: boolean,
  afterChangeDirectory = false
): void => {
  const ps = key === "set-location" || key === "push-location" || key === "pop-location"
  const operands = ps ? locationOperands(words) : directoryOperands(key, words)
  if (typeof operands === "string") {
    // The builtin refuses an option it does not take, or this analysis does not know it:
    // where later commands run is not followed.
    scope.unknown = true
    commandNote(
      command,
      "unmodelled",
      `${words[0]!.value}: option \`${operands}\` is not understood, so where later commands run is unknown`
    )
    return
  }
  if (operands.length > 1) {
    // bash and PowerShell refuse it (the commands after run where they were); zsh and ksh
    // move to the current path with the first replaced by the second.
    scope.unknown = true
    commandNote(
      command,
      "unmodelled",
      `${words[0]!.value} is given ${operands.length} directories, so where later commands run is unknown`
    )
    return
  }
  const target = operands[0]
  const rotates =
    !ps && target !== undefined && /^[+-]\d+$/.test(target.value) && key !== "cd" && key !== "chdir"
  if (key === "popd" || key === "pop-location" || rotates) {
    // Returns to a directory this text already moved from (the stack is never inherited).
    if (!env.seen.has("pushd"))
      commandNote(command, "unmodelled", `${words[0]!.value} returns to a directory set before this command`)
    returnToLeftBehind(env, scope)
    return
  }
  if (key === "pushd" || key === "push-location") env.seen.add("pushd")
  if (!target) {
    if (key === "cd" || key === "chdir" || key === "set-location")
      enterDirectory(env, command, staticWord(env.home()), scope, key)
    return
  }
  if (target.isStatic && target.value === "-") {
    // PowerShell's location history starts empty. bash's OLDPWD is a directory this text
    // was in only once one of its own `cd`s has certainly succeeded; before that it may be
    // inherited from the environment (`cd nothere; cd -`), anywhere.
    if (ps ? !env.seen.has("cd") : !afterChangeDirectory) {
      if (!ps) scope.unknown = true
      commandNote(
        command,
        "unmodelled",
        ps
          ? "`cd -` returns to a directory set before this command"
          : `\`${words[0]!.value} -\` returns to $OLDPWD, which may come from the environment: later paths are relative to a directory only known at run time`
      )
      return
    }
    returnToLeftBehind(env, scope)
    return
  }
  // `pushd -n` only stacks the directory: where later commands run does not change (until
  // a `popd`), so it replaces nothing.
  const stacksOnly =
    key === "pushd" && words.slice(1, words.length - operands.length).some((w) => w.value === "-n")
  enterDirectory(env, command, target, scope, key, leading && !stacksOnly)
}

// bash's `cd [-L|-P [-e]] [-@] [--] [dir]`, `pushd [-n] [--] [+N|-N|dir]` and `popd [-n]
// [+N|-N]`: the operands after the options, or the first option not among them. `pushd -n`
// only adds to the stack, which a later `popd` enters: its directory counts like a move.
const directoryOperands = (key: string, words: ReadonlyArray<Word>): ReadonlyArray<Word> | string => {
  const options = key === "cd" || key === "chdir" ? /^-[LPe@]+$/ : /^-n$/
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.value
    if (text === "--") return words.slice(i + 1)
    if (!words[i]!.isStatic || text === "-" || !text.startsWith("-")) return words.slice(i)
    if (key !== "cd" && key !== "chdir" && /^-\d+$/.test(text)) return words.slice(i)
    if (!options.test(text)) return text
  }
  return []
}

// Set-Location / Push-Location / Pop-Location parameters, by the unique prefix PowerShell
// accepts: `-Path` and `-LiteralPath` name the target, the other valued ones take a value
// that is not a directory (`-StackName`), switches take none.
const LOCATION_PARAMETERS: ReadonlyMap<string, "target" | "value" | "switch"> = new Map([
  ["-path", "target"],
  ["-literalpath", "target"],
  ["-pspath", "target"],
  ["-lp", "target"],
  ["-stackname", "value"],
  ["-passthru", "switch"],
  ["-verbose", "switch"],
  ["-debug", "switch"],
  ["-erroraction", "value"],
  ["-warningaction", "value"],
  ["-informationaction", "value"],
  ["-errorvariable", "value"],
  ["-warningvariable", "value"],
  ["-informationvariable", "value"],
  ["-outvariable", "value"],
  ["-outbuffer", "value"],
  ["-pipelinevariable", "value"],
  ["-progressaction", "value"]
])

const locationOperands = (words: ReadonlyArray<Word>): ReadonlyArray<Word> | string => {
  const targets: Array<Word> = []
  const positional: Array<Word> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.parameter) {
      positional.push(word)
      continue
    }
    const option = word.value.toLowerCase()
    if (option === "--") {
      positional.push(...words.slice(i + 1))
      break
    }
    const matches = [...LOCATION_PARAMETERS.keys()].filter((name) => name.startsWith(option))
    const kind =
      LOCATION_PARAMETERS.get(option) ??
      (matches.length === 1 ? LOCATION_PARAMETERS.get(matches[0]!) : undefined)
    if (kind === undefined) return word.value
    if (kind === "switch") continue
    const value = words[++i]
    if (kind === "target" && value !== undefined) targets.push(value)
  }
  return [...targets, ...positional]
}

// A return to an earlier directory may reach the one a leading `cd` replaced in the set.
const returnToLeftBehind = (env: Env, scope: Scope): void => {
  for (const directory of env.leftBehind) if (!scope.cwds.includes(directory)) scope.cwds.push(directory)
}

/**
 * Adds the target to the directories later commands may run in. Only the very first
 * command of the text, moving into a directory that exists and may be searched, replaces
 * them (it cannot be skipped and will succeed; `cd -` and `popd` return to the one it
 * left); anywhere else the move may not happen, so both count.
 */
export const enterDirectory = (
  env: Env,
  command: MutableCommand,
  target: Word,
  scope: Scope,
  via: string,
  leading = false
): void => {
  if (scope.remote === true) return
  env.seen.add("cd")
  const cdpath =
    (env.seen.has("CDPATH") || env.seen.has("cdable_vars")) &&
    !(target.path !== undefined && NodePath.isAbsolute(target.path))
  const targets = cdpath ? undefined : resolveWord(env, command, target, scope, "read")
  if (targets === undefined) {
    scope.unknown = true
    commandNote(
      command,
      "unmodelled",
      `${via}: the directory \`${target.raw}\` is only known at run time, so later paths are too`
    )
    return
  }
  const replace =
    leading && scope.cwds.length === 1 && targets.length === 1 && enterable(env, targets[0]!.absolute)
  if (replace) {
    env.leftBehind.push(scope.cwds[0]!)
    scope.cwds.length = 0
  }
  for (const { absolute, text } of targets) {
    // `cd` is logical in bash and PowerShell (`link/..` is where it started), but `cd -P`
    // and the kernel go by real paths (`link/..` is the parent of where `link` points):
    // when the two differ, later commands may run in either.
    const logical = resolvePath(absolute)
    const physical = env.resolver.real(absolute)
    const directories = env.resolver.real(logical) === physical ? [logical] : [logical, physical]
    for (const directory of directories) {
      const { real, unresolved } = env.resolver.resolve(directory)
      if (unresolved !== undefined)
        commandNote(command, "unmodelled", `\`${text}\` is not followed: ${unresolved}`)
      addPath(env, {
        text,
        path: real,
        access: "read",
        via: "cd",
        inside: env.resolver.inside(real),
        directory: real,
        isDirectory: true,
        exists: true,
        command: command.index,
        ...(env.resolver.inside(real) ? { relative: env.resolver.relative(real) } : {})
      })
      if (!scope.cwds.includes(directory)) scope.cwds.push(directory)
    }
  }
  if (scope.cwds.length > MAX_DIRECTORIES) {
    scope.cwds.splice(0, scope.cwds.length - MAX_DIRECTORIES)
    commandNote(command, "unmodelled", "too many directory changes to follow")
  }
}

// Whether `cd` into `absolute` succeeds: an existing directory we may search (a folder
// without the search permission exists, but the `cd` fails and the commands after it run
// where they were).
const enterable = (env: Env, absolute: string): boolean => {
  if (!env.resolver.resolve(absolute).directory) return false
  try {
    fs.accessSync(absolute, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------
// Paths

// PowerShell drives that are not folders: names of the session, and the registry and
// certificate stores (Windows).
const POWERSHELL_NAME_DRIVES: ReadonlySet<string> = new Set(["env", "function", "alias", "variable"])
const POWERSHELL_ITEM_DRIVES: ReadonlySet<string> = new Set([
  ...POWERSHELL_NAME_DRIVES,
  "hklm",
  "hkcu",
  "cert",
  "wsman"
])

const CLIMBS = /(^|[\\/])\.\.([\\/]|$)/

/**
 * The paths a written path may name. As written, the resolver steps over `..` the way the
 * kernel does (`link/..` is the parent of where `link` points); programs that normalise a
 * path as text first (PowerShell's cmdlets, .NET, every program on Windows, many tools)
 * read `link/..` as the directory `link` is in. When the path climbs, both are judged.
 */
const readings = (absolute: string): Array<string> => {
  if (!absolute.includes("..") || !CLIMBS.test(absolute)) return [absolute]
  const normalised = NodePath.resolve(absolute)
  return normalised === absolute ? [absolute] : [absolute, normalised]
}

/**
 * A path a word may name: absolute, or (`directory` set) `relative` as written from that
 * directory, which the resolver follows without building the joined path.
 */
type Target =
  | { readonly absolute: string; readonly text: string; readonly directories?: undefined }
  | {
      readonly absolute?: undefined
      /** `relative` from each of these, in order. */
      readonly directories: ReadonlyArray<string>
      readonly relative: string
      readonly text: string
    }

/**
 * Absolute candidates for a word: one per directory the command may run in (`joined`: all
 * of them absolute paths).
 */
function resolveWord(
  env: Env,
  command: MutableCommand,
  word: Word,
  scope: Scope,
  access: "read" | "write",
  joined: false,
  variants?: boolean
): Array<Target> | undefined
function resolveWord(
  env: Env,
  command: MutableCommand,
  word: Word,
  scope: Scope,
  access: "read" | "write",
  joined?: true,
  variants?: boolean
): Array<{ absolute: string; text: string }> | undefined
function resolveWord(
  env: Env,
  command: MutableCommand,
  word: Word,
  scope: Scope,
  access: "read" | "write",
  joined: boolean,
  variants?: boolean
): Array<Target> | undefined
function resolveWord(
  env: Env,
  command: MutableCommand,
  word: Word,
  scope: Scope,
  access: "read" | "write",
  joined = true,
  variants = true
): Array<Target> | undefined {
  let path = word.path
  if (path === undefined) return undefined
  if (scope.dialect === "powershell" || process.platform === "win32") {
    // `FileSystem::x`, `Microsoft.PowerShell.Core\FileSystem::x`: a provider-qualified path.
    const provider = /^([A-Za-z][\w.\\]*)::(.*)$/s.exec(path)
    if (provider) {
      if (provider[1]!.toLowerCase().endsWith("filesystem")) path = provider[2]!
      else return []
    }
    const drive = /^([A-Za-z]{2,}):(.*)$/s.exec(path)
    if (drive) {
      const name = drive[1]!.toLowerCase()
      if (access === "write" && (name === "function" || name === "alias" || name === "variable")) {
        commandNote(
          command,
          "unmodelled",
          `writes to the PowerShell ${drive[1]}: drive: later names may not mean what they say`
        )
      }
      if (name === "env" && access === "write")
        commandNote(command, "executes", "changes environment variables")
      else if (!POWERSHELL_ITEM_DRIVES.has(name))
        // `Temp:` and drives made with New-PSDrive are folders somewhere on disk.
        commandNote(
          command,
          "unmodelled",
          `\`${word.raw}\` is on the drive ${drive[1]}:, whose folder is not known here`
        )
      else if (access === "write" && !POWERSHELL_NAME_DRIVES.has(name))
        commandNote(command, "unmodelled", `writes to the ${drive[1]}: drive (the registry or certificates)`)
      return []
    }
    if (process.platform !== "win32") path = path.replace(/\\/g, "/")
    // Other names the same text reads: a cmdlet's -Path unescapes its wildcard escapes
    // (`` .e`nv `` is .env), and Windows drops trailing spaces and dots from a name (`.env `
    // is .env). Each is judged, and the text as written (-LiteralPath, another system).
    const others = variants ? windowsNames(path, scope.dialect === "powershell") : []
    if (others.length > 0) {
      if (word.glob && path.includes("`")) {
        commandNote(command, "unmodelled", `the wildcard \`${word.raw}\` has escapes, which are not followed`)
        return undefined
      }
      const out: Array<Target> = []
      for (const [i, name] of [path, ...others].entries()) {
        const targets = resolveWord(env, command, { ...word, path: name }, scope, access, joined, i > 0)
        if (targets === undefined) return undefined
        out.push(...targets)
      }
      return out
    }
  }
  if (path[1] === ":" && process.platform !== "win32" && /^[A-Za-z]:[\\/]/.test(path)) {
    return [{ absolute: `/${path.replace(/\\/g, "/")}`, text: word.raw }]
  }
  if (word.glob) {
    if (word.literalWildcards) {
      commandNote(
        command,
        "unmodelled",
        `the glob \`${word.raw}\` has quoted wildcard characters, which are not followed`
      )
      return undefined
    }
    // The shell expands the glob before the command sees it: judge what it expands to
    // (`cd .gi?` enters .git, `src/*/../../..` climbs out), never only its prefix.
    const matches: Array<{ absolute: string; text: string }> = []
    for (const cwd of scope.cwds) {
      const expanded = expandGlob(path, cwd, scope.dialect === "powershell", (directory) =>
        env.resolver.list(directory)
      )
      if (!Array.isArray(expanded)) {
        commandNote(command, "unmodelled", `the glob \`${word.raw}\` is not followed: ${expanded.unmodelled}`)
        return undefined
      }
      for (const absolute of expanded)
        for (const reading of readings(absolute)) matches.push({ absolute: reading, text: word.raw })
    }
    if (matches.length > 0) return matches
    // No match: bash passes the word as written; a `..` after the first wildcard could
    // still climb anywhere once files exist, so that is not followed.
    if (/(^|\/)\.\.(\/|$)/.test(path.slice(globPrefix(path).length))) {
      commandNote(command, "unmodelled", `the glob \`${word.raw}\` climbs with \`..\` after a wildcard`)
      return undefined
    }
    path = globPrefix(path)
  }
  const out: Array<Target> = []
  const relative = !NodePath.isAbsolute(path)
  // A plain relative path is resolved from each directory without joining the two (a path
  // that climbs has a second reading, and is joined).
  if (!joined && relative && !path.includes("..") && scope.cwds.every((cwd) => !cwd.includes("..")))
    out.push({ directories: scope.cwds, relative: path, text: word.raw })
  else
    for (const cwd of scope.cwds) {
      for (const absolute of readings(relative ? joinAsWritten(cwd, path) : path)) {
        if (!out.some((seen) => seen.absolute === absolute)) out.push({ absolute, text: word.raw })
      }
    }
  // `/proc/self/cwd/x` is `x` where the command runs (the link itself is not followed): judged
  // there too, so `.git/*` rules hold for `> /proc/self/cwd/.git/config`.
  const here = relative ? null : PROC_CWD.exec(path)
  if (here !== null)
    for (const cwd of scope.cwds) {
      const absolute = joinAsWritten(cwd, here[1] ?? "")
      if (!out.some((seen) => seen.absolute === absolute)) out.push({ absolute, text: word.raw })
    }
  if (scope.unknown && relative) {
    commandNote(command, "unmodelled", `\`${word.raw}\` is relative to a directory only known at run time`)
  }
  return out
}

const PROC_CWD = /^\/proc\/(?:self|thread-self)\/cwd(?:\/+(.*))?$/s

// `New-Item -ItemType SymbolicLink | HardLink | Junction`: any item type but a plain file or
// directory (`-Type` is its alias; `-ItemType:X` is one word).
export const createsLink = (words: ReadonlyArray<Word>): boolean =>
  words.some((w, i) => {
    if (!w.parameter) return false
    const [name = "", inline] = w.value.toLowerCase().split(":", 2)
    if (!Programs.isAbbreviation(name, "-itemtype", 1) && !Programs.isAbbreviation(name, "-type", 2))
      return false
    const value = inline ?? (words[i + 1]?.isStatic ? words[i + 1]!.value.toLowerCase() : undefined)
    return value !== "file" && value !== "directory"
  })

const windowsNames = (path: string, wildcards: boolean): Array<string> => {
  const out: Array<string> = []
  if (wildcards && path.includes("`")) out.push(path.replace(/`(.)/gs, "$1"))
  const trimmed = path
    .split("/")
    .map((part) => (part === "." || part === ".." ? part : part.replace(/[ .]+$/, "") || part))
    .join("/")
  if (trimmed !== path) out.push(trimmed)
  return out
}

export const touch = (
  env: Env,
  command: MutableCommand,
  word: Word,
  access: "read" | "write",
  via: PathAccess["via"],
  scope: Scope
): void => {
  // Another computer's files are not judged as ours (the command itself still is).
  if (scope.remote === true) return
  if (word.isStatic && word.value.includes("://") && URL_LIKE.test(word.value)) return
  if (word.path !== undefined) {
    if (access === "write" ? Programs.HARMLESS_WRITES.has(word.path) : Programs.isHarmlessRead(word.path))
      return
  }
  if (word.path === undefined) {
    if (scope.dialect === "powershell" && /^\$null$/i.test(word.raw)) return
    if (access === "write") {
      commandNote(command, "unmodelled", `writes to \`${word.raw}\`, a file only known at run time`)
    } else {
      // `cat "$X"` may read anything: a file argument known only at run time is not judged.
      commandNote(command, "unmodelled", `reads \`${word.raw}\`, a file only known at run time`)
    }
    return
  }
  if (word.path === "" && !word.glob) return
  // A glob is judged by what it expands to (resolveWord expands it, once).
  const targets = resolveWord(env, command, word, scope, access, false)
  if (targets === undefined) return
  for (const target of targets) {
    if (target.directories === undefined)
      record(env, command, env.resolver.resolve(target.absolute), target.text, access, via)
    else {
      // Its names are cut out once for every directory (their hashes are then computed once).
      const names = target.relative.includes("/") ? target.relative.split("/") : undefined
      for (const directory of target.directories)
        record(
          env,
          command,
          env.resolver.resolveIn(directory, target.relative, names),
          target.text,
          access,
          via
        )
    }
  }
}

const record = (
  env: Env,
  command: MutableCommand,
  resolved: Resolved,
  text: string,
  access: "read" | "write",
  via: PathAccess["via"]
): void => {
  const { real, directory: isDirectory, exists, unresolved, parent, name } = resolved
  if (unresolved !== undefined)
    commandNote(command, "unmodelled", `\`${text}\` is not followed: ${unresolved}`)
  // A write to a file that configures later commands (`.npmrc`, `.git/hooks/*`, `~/.bashrc`)
  // is an edit that executes, inside the project or not.
  const configures = access === "write" && Programs.configuresExecution(real)
  if (configures)
    commandNote(command, "executes", `writes \`${text}\`, which configures what later commands run`)
  // The same path is reached from many words and directories: the entry is built only once.
  // A folder (or what may become one) read is kept once per command: what a command reads of
  // it (its names, or every file under it: `ls . && grep -r KEY .`) is the command's.
  const fresh = claimPath(env, access, via, real)
  if (access === "read" && (isDirectory || !exists) && readsTrees(env, command)) {
    const reader = claimCommandRead(env, command.index * 16 + VIA_BITS[via], real)
    if (!fresh && !reader) return
  } else if (!fresh) return
  const relative = env.resolver.relativeIfInside(real, parent, name)
  const inside = relative !== undefined
  const directory = isDirectory ? real : (parent ?? NodePath.dirname(real))
  // Built whole, with its relative path when inside: a field added afterwards takes a
  // block of its own, and thousands of these are kept until the verdict.
  const path: Mutable<PathAccess> = inside
    ? {
        text,
        path: real,
        access,
        via,
        inside,
        directory,
        isDirectory,
        exists,
        command: command.index,
        relative
      }
    : { text, path: real, access, via, inside, directory, isDirectory, exists, command: command.index }
  if (configures) path.configures = true
  env.paths.push(path)
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const VIA_BITS: Record<PathAccess["via"], number> = { argument: 1, redirect: 2, cd: 4, workdir: 8 }

// Whether `access via path` is new to the analysis; marks it seen. (By the path alone, then
// a bit per access and via: the path strings come from the resolver's cache, so their hashes
// are computed once.)
const claimPath = (env: Env, access: PathAccess["access"], via: PathAccess["via"], path: string): boolean => {
  const bit = VIA_BITS[via] << (access === "write" ? 4 : 0)
  const seen = env.pathKeys.get(path) ?? 0
  if ((seen & bit) !== 0) return false
  env.pathKeys.set(path, seen | bit)
  return true
}

// Whether a command reads every file under a folder it is given (`grep -r`, `tar`, `rg`),
// asked once per command.
const readsTrees = (env: Env, command: MutableCommand): boolean => {
  env.treeReaders ??= new Map()
  let reads = env.treeReaders.get(command.index)
  if (reads === undefined) {
    const argv = command.argv
    reads = argv.length > 0 && Programs.readsDirectoryContents(programKey(argv[0]!), argv) !== undefined
    env.treeReaders.set(command.index, reads)
  }
  return reads
}

// Whether this command's read of `path` (a folder, or nothing yet) by this way is new to the
// analysis (`reader`: the command's index and the way's bit).
const claimCommandRead = (env: Env, reader: number, path: string): boolean => {
  env.commandReads ??= new Map()
  const readers = env.commandReads.get(path)
  if (readers === undefined) {
    env.commandReads.set(path, [reader])
    return true
  }
  if (readers.includes(reader)) return false
  readers.push(reader)
  return true
}

const addPath = (env: Env, path: PathAccess): void => {
  if (claimPath(env, path.access, path.via, path.path)) env.paths.push(path)
}

export const commandRedirect = (
  env: Env,
  command: MutableCommand,
  redirect: RawRedirect,
  scope: Scope
): void => {
  if (redirect.access !== "read" && redirect.access !== "write") return
  const target = redirect.target
  if (!target) return
  if (target.raw[1] === "(" && (target.raw[0] === "<" || target.raw[0] === ">")) return
  if (
    redirect.access === "write" &&
    !(target.path !== undefined && Programs.HARMLESS_WRITES.has(target.path))
  ) {
    if (!(scope.dialect === "powershell" && /^\$null$/i.test(target.raw))) {
      commandNote(command, "writes", `redirects output into \`${target.raw}\``)
    }
  }
  touch(env, command, target, redirect.access, "redirect", scope)
}

// ---------------------------------------------------------------------------------------
// Arguments as files

export const argumentPaths = (
  env: Env,
  command: MutableCommand,
  key: string,
  written: ReadonlyArray<Word>,
  scope: Scope,
  /** Where the command runs, before the directory it moves to itself (`tar -C`). */
  outer: Scope = scope
): void => {
  if (Programs.NO_PATH_ARGUMENTS.has(key)) return
  if (Programs.mayServeFiles(key)) servedDirectories(env, command, key, written, scope)
  // `python -m pip …` is pip's command line.
  if (Programs.isPython(key)) {
    const at = written.findIndex((w, i) => w.value === "pip" && written[i - 1]?.value === "-m")
    if (at !== -1) {
      argumentPaths(env, command, "pip", written.slice(at), scope, outer)
      return
    }
  }
  let words = written
  const link = key === "new-item" && scope.dialect === "powershell" && createsLink(written)
  if (scope.dialect === "powershell" && Cmdlets.hasParameterTable(key)) {
    // Parameter names as PowerShell binds them (`-Pat` is -Path, `-PSPath` -LiteralPath);
    // what is not a path (`-Value x`, `-Encoding utf8`) is no operand.
    const bound = Cmdlets.bindWords(
      key,
      written,
      (name) => PATH_PARAMETERS.has(name) || (link && name === "value"),
      // `Remove-Item * -Include .env`: the names it filters by are judged as its operands.
      (name) => name === "include" || name === "filter"
    )
    for (const problem of bound.problems) commandNote(command, "unmodelled", problem)
    words = bound.words
    if (key === "new-item" || key === "rename-item") itemNames(env, command, key, bound, scope)
  }
  if (key === "ssh") {
    // Its operands are a host and a remote command line: only its key and config files are ours.
    for (let i = 1; i < words.length - 1; i++) {
      const option = words[i]!.value
      if (option === "-i" || option === "-F") touch(env, command, words[i + 1]!, "read", "argument", scope)
      if (option === "-E") touch(env, command, words[i + 1]!, "write", "argument", scope)
    }
    return
  }
  if (GREP_PROGRAMS.has(key)) {
    grepPaths(env, command, words, scope)
    return
  }
  if (COPY_OPTIONS.has(key)) {
    copyPaths(env, command, key, words, scope)
    return
  }
  if (key === "sed" && sedInPlace(words)) sedBackups(env, command, words, scope)
  if (key === "perl") perlBackups(env, command, words, scope)
  if (key === "tar" || key === "gtar" || key === "bsdtar") {
    const tar = tarPaths(key, words)
    for (const reason of tar.unmodelled) commandNote(command, "unmodelled", reason)
    // tar opens its archive where it starts, and an option's file where the -C before it
    // (if any) moved: each is judged in both places.
    const places = outer === scope ? [scope] : [outer, scope]
    for (const place of places) {
      for (const word of tar.reads) touch(env, command, word, "read", "argument", place)
      for (const word of tar.writes) touch(env, command, word, "write", "argument", place)
    }
    for (const word of tar.members)
      touch(env, command, word, tar.removes ? "write" : "read", "argument", scope)
    if (tar.removes) for (const word of tar.members) touch(env, command, word, "read", "argument", scope)
    if (tar.here !== undefined) touch(env, command, tar.here, "write", "argument", scope)
    if (tar.followsLinks) followedLinks(env, command)
    return
  }
  if (generates(key)) {
    const made = generatedPaths(key, words)
    for (const reason of made.unmodelled) commandNote(command, "unmodelled", reason)
    for (const word of made.reads) touch(env, command, word, "read", "argument", scope)
    for (const word of made.writes) touch(env, command, word, "write", "argument", scope)
    return
  }
  const archive = archiveWrites(key, words)
  for (const reason of archive.unmodelled) commandNote(command, "unmodelled", reason)
  for (const word of archive.writes) touch(env, command, word, "write", "argument", scope)
  const ps = scope.dialect === "powershell"
  const writeOptions = Programs.WRITE_OPTIONS.get(Programs.isPip(key) ? "pip" : key) ?? []
  const patternOptions = Programs.PATTERN_FIRST.get(key)
  const search = Programs.SEARCH_OPTION_VALUES.get(key)
  const operands: Array<Word> = []
  let patternGiven = false
  let targetDirectory = false
  let endOfOptions = false
  let start = 1
  if (key === "git") {
    // Global options before the subcommand: -C and --git-dir name directories.
    while (start < words.length && words[start]!.value.startsWith("-")) {
      const option = words[start]!.value
      if (option === "-C" || option === "--git-dir" || option === "--work-tree") {
        const value = words[start + 1]
        if (value) touch(env, command, value, "read", "argument", scope)
        start += 2
      } else if (
        option === "-c" ||
        option === "--namespace" ||
        option === "--config-env" ||
        option === "--super-prefix"
      ) {
        start += 2
      } else {
        const eq = /^--(git-dir|work-tree)=(.*)$/s.exec(option)
        if (eq)
          touch(
            env,
            command,
            { ...staticWord(eq[2]!), path: eq[2]!.startsWith("~") ? env.home() + eq[2]!.slice(1) : eq[2]! },
            "read",
            "argument",
            scope
          )
        start++
      }
    }
  }
  if (key === "git" && words[start]?.value === "bundle" && words[start + 1]?.value === "create") {
    // `git bundle create [-q] [--version=N] FILE REVS…` writes FILE.
    const file = words.slice(start + 2).find((w) => !w.value.startsWith("-"))
    if (file !== undefined) touch(env, command, file, "write", "argument", scope)
  }
  const writesAll =
    Programs.WRITES_ALL.has(key) ||
    (key === "sed" && sedInPlace(words)) ||
    // yq, tomlq and xq edit their files in place with -i (`-yi`, `--in-place`).
    (YQ.has(key) && words.some((w) => w.value === "--in-place" || /^-[a-zA-Z]*i/.test(w.value))) ||
    ((key === "perl" || key === "ruby") && words.some((w) => /^-[a-zA-Z]*i/.test(w.value)))
  // A cmdlet the tables do not know, whose verb is not one that only looks (`Start-Transcript
  // -Path X`, `Export-Alias X`, `Save-Help -DestinationPath X`): it writes the paths it is given.
  const changesFiles = ps && unknownChangingCmdlet(key)
  for (let i = start; i < words.length; i++) {
    const word = words[i]!
    if (word.scriptBlock) continue
    if (ps && word.parameter) {
      const name = word.value.toLowerCase()
      const value = words[i + 1]
      // A link's -Value (-Target is its alias) is what it points to, read as `ln`'s target:
      // `New-Item -ItemType HardLink -Path x -Value .env` makes x a second name for .env.
      if (
        key === "new-item" &&
        (Programs.isAbbreviation(name, "-value", 1) || Programs.isAbbreviation(name, "-target", 1)) &&
        value &&
        !value.parameter &&
        link
      ) {
        touch(env, command, value, "read", "argument", scope)
        i++
        continue
      }
      let isPathParameter = changesFiles && PLACE_PARAMETER.test(name)
      for (const p of Programs.POWERSHELL_PATH_PARAMETERS)
        if (Programs.isAbbreviation(name, p, 2) || name === p) isPathParameter = true
      if (isPathParameter && value && !value.parameter) {
        const writes =
          changesFiles ||
          writeOptions.some((o) => Programs.isAbbreviation(name, o, 2) || name === o) ||
          (writesAll && WRITTEN_PATHS.some((o) => Programs.isAbbreviation(name, o, 2) || name === o))
        if (name.startsWith("-workingdirectory")) touch(env, command, value, "read", "cd", scope)
        else touch(env, command, value, writes ? "write" : "read", "argument", scope)
        if (MOVES.has(key) && writes && /^-(path|literalpath|lp)/.test(name))
          touch(env, command, value, "read", "argument", scope)
        i++
      }
      continue
    }
    const text = word.value
    if (!endOfOptions && word.isStatic && text === "--") {
      endOfOptions = true
      continue
    }
    if (!endOfOptions && isOptionWord(word)) {
      const eq = text.includes("=") ? /^(--?[^=]+)=(.*)$/s.exec(text) : null
      const option = eq ? eq[1]! : text
      // `-e X`, `-fFILE`, and in a cluster of flags (`sed -nf FILE`): the pattern is given.
      const cluster = text.startsWith("--") ? "" : (/^-([a-zA-Z]*)/.exec(text)?.[1] ?? "")
      if (
        patternOptions?.includes(option) ||
        patternOptions?.some((o) => o.length === 2 && (text.startsWith(o) || cluster.includes(o[1]!)))
      ) {
        patternGiven = true
      }
      if (search !== undefined && eq === null && (search.values.has(option) || search.files.has(option))) {
        // `grep -e KEY`, `rg -g '*.ts'`: the value is not a path operand; `grep -f FILE` reads one.
        const value = words[i + 1]
        if (value !== undefined && search.files.has(option))
          touch(env, command, value, "read", "argument", scope)
        i++
        continue
      }
      if (option === "-t" || option === "--target-directory") targetDirectory = true
      if (eq === null && Programs.WRITES_SECOND.get(key)?.includes(option)) {
        // `uniq -f 1 in out`: the value is not an operand.
        i++
        continue
      }
      const glued =
        eq === null && key !== "git" && key !== "go" ? gluedShortValue(text, writeOptions) : undefined
      if (glued !== undefined && !writeOptions.includes(option)) {
        // `sort -o/tmp/x`, `curl -sSo/tmp/x`: a short option's value glued to it or to the
        // flags clustered before it; at the cluster's end, the value is the next word.
        const value =
          glued === ""
            ? words[i + 1]
            : { ...word, value: glued, raw: glued, path: word.path === undefined ? undefined : glued }
        if (value !== undefined)
          for (const way of accessOf(key)) touch(env, command, value, way, "argument", scope)
        if (glued === "") i++
        continue
      }
      if (writeOptions.includes(option) || pipAbbreviates(key, option, writeOptions)) {
        const access = accessOf(key)
        const file = eq
          ? { ...word, value: eq[2]!, raw: eq[2]!, path: word.path === undefined ? undefined : eq[2]! }
          : words[i + 1]
        if (file !== undefined) for (const way of access) touch(env, command, file, way, "argument", scope)
        if (!eq && file !== undefined) i++
        continue
      }
      gluedReads(env, command, word, scope)
      continue
    }
    if (word.isStatic && text.includes("=") && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
      const [name, ...rest] = text.split("=")
      const value = rest.join("=")
      if (key === "dd" && (name === "of" || name === "if")) {
        touch(
          env,
          command,
          { ...word, value, raw: value, path: value },
          name === "of" ? "write" : "read",
          "argument",
          scope
        )
        if (name === "of") commandNote(command, "writes", `dd writes ${value}`)
      } else if (/^(\/|~)/.test(value)) {
        touch(
          env,
          command,
          { ...word, value, raw: value, path: value.startsWith("~") ? env.home() + value.slice(1) : value },
          "read",
          "argument",
          scope
        )
      }
      continue
    }
    operands.push(word)
  }
  if (patternOptions !== undefined && !patternGiven) operands.shift()
  // `npm pkg set scripts.x=…`, `npm set-script x …`: the package manager edits the manifest
  // (whose scripts a later `npm run x` runs), here or the nearest one above.
  const manager = key === "npm" || key === "pnpm" || key === "yarn" || key === "bun"
  if (manager && editsManifest(operands))
    touch(env, command, staticWord("package.json"), "write", "argument", scope)
  // `npm pack`, `npm publish`: the package takes every file its ignore lists leave (.env too).
  if (
    manager &&
    Programs.packsProject(
      key,
      words.map((w) => w.value)
    )
  )
    touch(env, command, staticWord("."), "read", "argument", scope)
  if (key === "git" && words[start]?.value === "mv") {
    // `git mv SRC… DST` moves its sources away and writes DST (`git mv run.sh
    // .git/hooks/pre-commit` moves the file there, although git calls the path invalid).
    for (const word of words.slice(start + 1))
      if (!(word.isStatic && word.value.startsWith("-")))
        touch(env, command, word, "write", "argument", scope)
  }
  if (key === "git" && words[start]?.value === "worktree" && words[start + 1]?.value === "add") {
    // `git worktree add [-b NAME] PATH [COMMIT]` checks the tree out at PATH.
    for (let i = start + 2; i < words.length; i++) {
      if (/^(-b|-B|--reason|--orphan)$/.test(words[i]!.value)) i++
      else if (!words[i]!.value.startsWith("-")) {
        touch(env, command, words[i]!, "write", "argument", scope)
        break
      }
    }
  }
  if (key === "git" || key === "npm" || key === "pnpm" || key === "yarn" || key === "cargo" || key === "go") {
    // Subcommand words are not files.
    operands.shift()
  }
  // A git operand that names a path here narrows what git reads to it.
  const existsHere = (word: Word) =>
    word.isStatic && scope.cwds.some((cwd) => env.resolver.exists(resolveFrom(cwd, word.value)))
  if (key === "git" && words[start]?.value === "grep") {
    // `git grep KEY [REV…] [--] [PATH…]` reads every tracked file under its paths; with no
    // path that exists here (`git grep KEY HEAD`), the whole tree, as `grep -r KEY .` does.
    if (!words.some((w) => /^(-e|-f|--regexp|--file)$/.test(w.value))) operands.shift()
    if (!operands.some(existsHere)) operands.push(staticWord("."))
  }
  if (key === "git" && (words[start]?.value === "add" || words[start]?.value === "stage"))
    gitAddPaths(env, words.slice(start), operands)
  const values = key === "git" ? words.map((w) => w.value) : []
  if (key === "git" && Programs.gitPrintsContents(values)) {
    // `git diff`, `git log -p`, `git show HEAD`: the content of every tracked file of the
    // repository, wherever git runs, unless the paths that exist here or the objects named
    // (`HEAD:src/a.ts`, read as such) narrow it.
    const object = (word: Word) => /^(?::[0-3]:|[^:]*:)(?!\/)(.+)$/s.test(word.value)
    const revisions = operands.filter((word) => !existsHere(word))
    const narrowed = revisions.length < operands.length || (revisions.length > 0 && revisions.every(object))
    if (!narrowed || Programs.gitPrintsWholeCommits(values))
      operands.push({ ...staticWord(env.resolver.root), path: env.resolver.root })
  }
  // `rg KEY`, `grep -r KEY`: with no path, a recursive search reads the working directory.
  if (
    operands.length === 0 &&
    Programs.SEARCHES_WORKING_DIRECTORY.has(key) &&
    Programs.readsDirectoryContents(
      key,
      words.map((w) => w.value)
    ) !== undefined
  ) {
    operands.push(staticWord("."))
  }
  const follows =
    Programs.LINK_FOLLOWERS.has(key) &&
    Programs.followsLinks(
      key,
      words.map((w) => w.value)
    )
  operands.forEach((word, index) => {
    let access: "read" | "write" = "read"
    if (writesAll || changesFiles) access = "write"
    else if (
      Programs.WRITES_LAST.has(key) &&
      !targetDirectory &&
      index === operands.length - 1 &&
      operands.length > 1
    )
      access = "write"
    else if (Programs.WRITES_SECOND.has(key) && index === 1) access = "write"
    // `cargo new PATH`, `cargo init PATH`, `cargo vendor DIR` make the folder they name.
    else if (key === "cargo" && CARGO_MAKES.has(words[1]?.value ?? "")) access = "write"
    if (MOVES.has(key) && index === 0) touch(env, command, word, "read", "argument", scope)
    touch(env, command, word, access, "argument", scope)
    // `gcc @args`, `ld @.env`: a response file, read for more arguments (its text is echoed
    // in the errors about them). curl's `@` is modelled with its options (`--data-raw @x` is text).
    if (word.value.startsWith("@") && word.value.length > 1 && key !== "curl") {
      const file = rest(word, 1)
      if (namesFile(env, file, scope)) touch(env, command, file, "read", "argument", scope)
    }
  })
  // `rsync -a SRC DEST`, `scp -r SRC DEST`: a source lands inside DEST under its own name
  // (rsync: unless written with a trailing slash, which copies its contents), and what lands
  // there is written too: `rsync -a t/p ..` writes `../p`, which may be the project itself.
  if ((key === "rsync" || key === "scp") && !targetDirectory && operands.length > 1) {
    const into = operands.at(-1)!
    for (const source of operands.slice(0, -1)) {
      if (into.path === undefined || source.path === undefined) continue
      if (key === "rsync" && (source.path.endsWith("/") || source.path === "." || source.path.endsWith("/.")))
        continue
      const name = NodePath.basename(source.path)
      if (name === "" || name === "." || name === "..") continue
      const inside = joinAsWritten(into.path, name)
      touch(
        env,
        command,
        { ...into, value: inside, raw: inside, path: inside, glob: into.glob || source.glob },
        "write",
        "argument",
        scope
      )
    }
  }
  if (follows) followedLinks(env, command)
}

// Whether a package manager's operands edit its manifest: `pkg set|delete|fix`, `set-script`.
const editsManifest = (operands: ReadonlyArray<Word>): boolean => {
  const sub = operands[0]?.value
  if (sub === "set-script") return true
  return sub === "pkg" && /^(set|delete|fix)$/.test(operands[1]?.value ?? "")
}

// `git add` reads (and stages, for later commands to print) every file under a directory it
// is given, hidden ones included; `-A`/`-u` with no pathspec, and `:/`, every file of the tree.
const gitAddPaths = (env: Env, words: ReadonlyArray<Word>, operands: Array<Word>): void => {
  const root = env.resolver.root
  operands.forEach((word, index) => {
    const top = word.isStatic ? /^:\/(?![(!^])(.*)$/s.exec(word.value) : null
    if (top) operands[index] = { ...staticWord(`${root}/${top[1]}`), raw: word.raw }
  })
  if (
    operands.length === 0 &&
    words.some((w) => /^(-[a-zA-Z]*[Au][a-zA-Z]*|--all|--update|--no-ignore-removal)$/.test(w.value))
  )
    operands.push({ ...staticWord(root), path: root })
}

// The parameters that name what a cmdlet writing its paths writes (by any prefix PowerShell
// takes: `Set-ItemProperty -Pat x` writes x).
const WRITTEN_PATHS = ["-path", "-literalpath", "-lp", "-pspath", "-filepath"]

// The parameters of a cmdlet with a parameter table whose value is a path it reads or writes.
const PATH_PARAMETERS: ReadonlySet<string> = new Set([
  "path",
  "literalpath",
  "filepath",
  "destination",
  "destinationpath",
  "outfile",
  "infile"
])

// `New-Item -Path d -Name f` (or `New-Item d -Name f`) makes `d/f` (`./f` with no -Path);
// `Rename-Item d/a b` (or
// `-NewName b`) writes `d/b`, beside what it renames.
const itemNames = (
  env: Env,
  command: MutableCommand,
  key: string,
  bound: Cmdlets.Bound,
  scope: Scope
): void => {
  const rename = key === "rename-item"
  const positional = bound.words.slice(1).filter((w, i, all) => !w.parameter && !all[i - 1]?.parameter)
  const paths = [...(bound.named.get("path") ?? []), ...(bound.named.get("literalpath") ?? [])]
  // -Path is the first positional word of both (`New-Item .git/hooks -Name x`).
  if (paths.length === 0) paths.push(positional.shift() ?? staticWord("."))
  const names = bound.named.get(rename ? "newname" : "name") ?? (rename ? positional.slice(0, 1) : [])
  for (const name of names)
    for (const base of paths) {
      const items = base.items ?? [base]
      for (const item of items) {
        const directory =
          item.path === undefined ? undefined : rename ? NodePath.dirname(item.path) : item.path
        const path =
          directory !== undefined && name.isStatic ? joinAsWritten(directory, name.value) : undefined
        const raw = `${item.raw}${rename ? " -> " : "/"}${name.raw}`
        touch(
          env,
          command,
          {
            value: path ?? raw,
            raw,
            isStatic: item.isStatic && name.isStatic,
            path,
            glob: path !== undefined && (item.glob || name.glob)
          },
          "write",
          "argument",
          scope
        )
      }
    }
}

const YQ: ReadonlySet<string> = new Set(["yq", "tomlq", "xq"])
const CARGO_MAKES: ReadonlySet<string> = new Set(["new", "init", "vendor"])

// Cmdlets that move their -Path (mv is in copyPaths): it is read too, its content moving
// to a name no rule may protect.
const MOVES: ReadonlySet<string> = new Set(["move-item", "rename-item"])

// A file server reads every file of the directory it serves: judged as a recursive read of it
// (see `readsDirectoryContents`). That is the one its option names (`python -m http.server
// -d DIR`, `php -S … -t DIR`, `httpd -h DIR`), else the one it runs in; other servers take it as
// an operand, told apart from their options' values by nobody here: the directory they run in
// and each operand are judged.
const servedDirectories = (
  env: Env,
  command: MutableCommand,
  key: string,
  words: ReadonlyArray<Word>,
  scope: Scope
): void => {
  const argv = words.map((w) => w.value)
  if (!Programs.servesFiles(key, argv)) return
  const option = SERVED_DIRECTORY_OPTIONS.get(Programs.isPython(key) ? "python" : key)
  const from = Programs.isPython(key) ? Programs.servedModule(argv) + 1 : 1
  let directory: Word = staticWord(".")
  const operands: Array<Word> = []
  for (let i = from; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (option === undefined) {
      if (!isOptionWord(word)) operands.push(word)
    } else if (option.includes(text) && words[i + 1] !== undefined) directory = words[++i]!
    else {
      const long = option.find((o) => o.startsWith("--") && text.startsWith(`${o}=`))
      const short = option.find((o) => !o.startsWith("--") && text.startsWith(o) && text.length > o.length)
      if (long !== undefined) directory = rest(word, long.length + 1)
      else if (short !== undefined) directory = rest(word, short.length)
    }
  }
  touch(env, command, directory, "read", "argument", scope)
  for (const operand of operands) touch(env, command, operand, "read", "argument", scope)
}
const SERVED_DIRECTORY_OPTIONS: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["python", ["-d", "--directory"]],
  ["php", ["-t", "--docroot"]],
  ["httpd", ["-h"]],
  ["caddy", ["-r", "--root"]]
])

// cp, mv, install and ln (GNU coreutils): their short options, and those that take a value
// (glued, `-S.json`, or the next word); their long options that take one (`--suffix S`,
// `--suffix=S`; the others, `--backup=numbered`, only glued).
const COPY_OPTIONS: ReadonlyMap<string, { readonly flags: string; readonly valued: string }> = new Map([
  ["cp", { flags: "abdfilnprsuvxHLPRTZ", valued: "St" }],
  ["mv", { flags: "bfinuvTZ", valued: "St" }],
  ["ln", { flags: "bdfinrsvFLPT", valued: "St" }],
  ["install", { flags: "bcdpsvCDTZ", valued: "gmotS" }]
])
const COPY_VALUED: ReadonlySet<string> = new Set([
  "--suffix",
  "--target-directory",
  "--no-preserve",
  "--sparse",
  "--group",
  "--mode",
  "--owner",
  "--strip-program"
])
const BACKUP_CONTROLS = ["none", "off", "simple", "never", "existing", "nil", "numbered", "t"]

// The rest of an option word from `from` on: a value glued to its option.
const rest = (word: Word, from: number): Word => ({
  ...word,
  value: word.value.slice(from),
  raw: word.value.slice(from),
  path: word.path?.slice(from)
})

// cp/mv/install/ln write their destination and, asked for backups (`-b`, `--backup`, `-S`,
// `--suffix`), rename what it replaces to the destination plus a suffix first: that name
// (`gatehouse.json`, `.npmrc`, `.git/hooks/pre-commit`) is written too.
const copyPaths = (
  env: Env,
  command: MutableCommand,
  key: string,
  words: ReadonlyArray<Word>,
  scope: Scope
): void => {
  const { flags, valued } = COPY_OPTIONS.get(key)!
  const operands: Array<Word> = []
  let directory: Word | undefined
  let noDirectory = false
  let makesDirectories = false
  let parents = false
  let backup = false
  let control: Word | undefined
  let suffix: Word | undefined
  const option = (name: string, value: Word | undefined): void => {
    if (name === "-b" || name === "--backup") {
      backup = true
      control = value
    } else if (name === "-S" || name === "--suffix") {
      backup = true
      suffix = value
    } else if (name === "-t" || name === "--target-directory") directory = value
    else if (name === "-T" || name === "--no-target-directory") noDirectory = true
    else if (key === "install" && (name === "-d" || name === "--directory")) makesDirectories = true
    else if (key === "cp" && name === "--parents") parents = true
    else if (name === "--strip-program") {
      commandNote(command, "executes", `${key} --strip-program runs \`${value?.raw ?? ""}\``)
      commandNote(command, "unmodelled", `${key} --strip-program: what it runs is not judged here`)
    }
  }
  let ended = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (ended || !isOptionWord(word)) {
      operands.push(word)
      continue
    }
    if (!word.isStatic || word.glob) {
      commandNote(command, "unmodelled", `${key} \`${word.raw}\`: an option only known at run time`)
      continue
    }
    if (text === "--") ended = true
    else if (text.startsWith("--")) {
      // Long options are written out in full here (LongOptions.expand); an unknown one is noted there.
      const eq = text.indexOf("=")
      const name = eq === -1 ? text : text.slice(0, eq)
      option(name, eq !== -1 ? rest(word, eq + 1) : COPY_VALUED.has(name) ? words[++i] : undefined)
    } else
      for (let at = 1; at < text.length; at++) {
        const letter = text[at]!
        if (valued.includes(letter)) {
          option(`-${letter}`, at + 1 < text.length ? rest(word, at + 1) : words[++i])
          break
        }
        if (!flags.includes(letter)) {
          commandNote(command, "unmodelled", `\`-${letter}\` is not an option ${key} is known to have`)
          break
        }
        option(`-${letter}`, undefined)
      }
  }
  if (makesDirectories) {
    for (const word of operands) touch(env, command, word, "write", "argument", scope)
    return
  }
  // `ln -s TARGET LINK`: a relative target is resolved from the link's directory.
  if (
    key === "ln" &&
    operands.length === 2 &&
    words.some((w) => /^-[a-zA-Z]*s/.test(w.value) || w.value === "--symbolic")
  ) {
    const [target, link] = operands as [Word, Word]
    if (target.path !== undefined && link.path !== undefined && !NodePath.isAbsolute(target.path)) {
      const from = link.path.endsWith("/") ? link.path : NodePath.dirname(link.path)
      operands[0] = { ...target, path: joinAsWritten(from, target.path) }
    }
  }
  if (directory !== undefined) touch(env, command, directory, "write", "argument", scope)
  // A last operand that is now a folder holding the project (`..`; and no -T) is not
  // replaced: what lands in it is written (below), not the folder itself, which would be
  // judged as a write of the whole project (`cp notes.txt ..` writes `../notes.txt`). Any
  // other directory is still written as named (a `.git` deny holds for `cp x .git`).
  const intoDirectory = (word: Word): boolean =>
    !noDirectory &&
    word.isStatic &&
    !word.glob &&
    word.path !== undefined &&
    word.path !== "" &&
    scope.cwds.every((cwd) => {
      const found = env.resolver.resolve(resolveFrom(cwd, word.path!))
      return found.directory && holdsRoot(env, found.real)
    })
  operands.forEach((word, index) => {
    const last = directory === undefined && index === operands.length - 1 && operands.length > 1
    // mv removes its sources and also reads them: their content moves to a name no rule may protect.
    if (key === "mv" && !last) touch(env, command, word, "read", "argument", scope)
    if (last && operands.length === 2 && intoDirectory(word)) return
    touch(env, command, word, key === "mv" || last ? "write" : "read", "argument", scope)
  })
  // Where each source lands (and a backup is made): inside the -t directory; the last of two
  // operands itself and, unless -T, inside it (it may be a directory by then); inside the last
  // of more; for ln's one operand, here.
  const sources = directory !== undefined || operands.length === 1 ? operands : operands.slice(0, -1)
  const into =
    directory ?? (operands.length === 1 ? (key === "ln" ? staticWord(".") : undefined) : operands.at(-1))
  const landings: Array<Word> = []
  if (into !== undefined) {
    if (directory === undefined && operands.length === 2) landings.push(into)
    if (directory !== undefined || !noDirectory)
      for (const source of sources) {
        const name =
          source.path === undefined ? undefined : parents ? source.path : NodePath.basename(source.path)
        const inside =
          into.path === undefined || name === undefined ? undefined : joinAsWritten(into.path, name)
        landings.push({
          ...into,
          value: inside ?? into.value,
          raw: inside ?? into.raw,
          path: inside,
          glob: into.glob || source.glob
        })
      }
  }
  if (key === "ln" && operands.length === 1 && directory === undefined)
    for (const landing of landings) touch(env, command, landing, "write", "argument", scope)
  // What lands inside a directory is written too, under its own name (`cp -r t/p ..` writes
  // `../p`, which may be the project itself: its `.git/hooks` merged, the edit rules unasked).
  else
    for (const landing of landings)
      if (landing.path !== undefined && landing.path !== into?.path)
        touch(env, command, landing, "write", "argument", scope)
  if (backup)
    for (const ending of backupEndings(env, command, key, control, suffix))
      for (const landing of landings) {
        if (landing.glob) {
          commandNote(
            command,
            "unmodelled",
            `${key} backs up what a glob matches: their names are not followed`
          )
          break
        }
        const path = landing.path === undefined ? undefined : landing.path + ending
        touch(
          env,
          command,
          { ...landing, value: landing.value + ending, raw: landing.raw + ending, path },
          "write",
          "argument",
          scope
        )
      }
  const values = words.map((w) => w.value)
  if (Programs.LINK_FOLLOWERS.has(key) && Programs.followsLinks(key, values)) followedLinks(env, command)
}

// Whether `directory` (absolute, through links) holds the project root and is not it.
const holdsRoot = (env: Env, directory: string): boolean => {
  const prefix = directory.endsWith(NodePath.sep) ? directory : directory + NodePath.sep
  let real = env.resolver.root
  try {
    real = fs.realpathSync(env.resolver.root)
  } catch {}
  return [env.resolver.root, real].some((root) => root !== directory && root.startsWith(prefix))
}

// The endings a backup's name may get: the simple suffix (`-S`, else $SIMPLE_BACKUP_SUFFIX,
// else `~`), a number (`.~1~`: which one, no rule or configuring name tells apart), or both
// (`existing`, the default, picks by what is on disk then).
const backupEndings = (
  env: Env,
  command: MutableCommand,
  key: string,
  control: Word | undefined,
  suffix: Word | undefined
): ReadonlyArray<string> => {
  // `--backup=CONTROL` by any unambiguous prefix (argmatch); one not read here is read as `existing`.
  const written = control?.isStatic === true ? control.value : undefined
  const named = written === undefined ? [] : BACKUP_CONTROLS.filter((c) => c.startsWith(written))
  const type =
    written !== undefined && named.includes(written) ? written : named.length === 1 ? named[0] : "existing"
  if (type === "none" || type === "off") return []
  const numbered = ".~1~"
  if (type === "numbered" || type === "t") return [numbered]
  // An empty suffix is `~`; one with a slash would put the backup elsewhere: not followed.
  const simple =
    suffix === undefined
      ? env.seen.has("SIMPLE_BACKUP_SUFFIX")
        ? undefined
        : "~"
      : suffix.isStatic && !suffix.glob && !suffix.value.includes("/")
        ? suffix.value || "~"
        : undefined
  if (simple === undefined) {
    commandNote(command, "unmodelled", `${key} names its backups with a suffix only known at run time`)
    return [numbered]
  }
  return type === "simple" || type === "never" ? [simple] : [simple, numbered]
}

// PowerShell's approved verbs that only get, test, print or convert what they are given.
const LOOKING_VERBS: ReadonlySet<string> = new Set([
  "get",
  "test",
  "select",
  "format",
  "measure",
  "compare",
  "find",
  "search",
  "show",
  "resolve",
  "read",
  "write",
  "convertto",
  "convertfrom",
  "group",
  "sort",
  "where",
  "foreach",
  "join",
  "split",
  "wait",
  "confirm"
])
// A parameter whose name says it names a place (`-HistorySavePath`, `-OutputDirectory`).
const PLACE_PARAMETER = /path|file|director|destination|output|folder/

const unknownChangingCmdlet = (key: string): boolean => {
  const dash = key.indexOf("-")
  return dash > 0 && !Programs.POWERSHELL_CMDLETS.has(key) && !LOOKING_VERBS.has(key.slice(0, dash))
}

// pip takes any unambiguous prefix of a long option (`--tar` is --target, `--wheel-d`
// --wheel-dir): one that begins only write options is one.
const pipAbbreviates = (key: string, option: string, writeOptions: ReadonlyArray<string>): boolean =>
  option.startsWith("--") &&
  option.length >= 4 &&
  Programs.isPip(key) &&
  writeOptions.some((o) => o.startsWith(option))

// How a program uses the file its output option names: ssh-keygen -f also names the key it
// reads (-y prints a private key's public half, -l its fingerprint).
const accessOf = (key: string): ReadonlyArray<"read" | "write"> =>
  key === "ssh-keygen" ? ["read", "write"] : ["write"]

/**
 * Reads the files an option word names in a value glued to it: `--env-file=.env`,
 * `--config=/etc/x`, `--from-file=key=.env` (after its last `=`), `--data=@.env`; `-c.env`,
 * `-vf./id_rsa`, `-e=.env` (a short option's value glued to it, or to the flags clustered
 * before it: which letters take a value only the program knows, so every rest that is not a
 * cluster of flags, letters and digits only, is looked up).
 */
export const gluedReads = (env: Env, command: MutableCommand, word: Word, scope: Scope): void => {
  if (word.path === undefined) return
  const text = word.value
  const read = (value: string) => {
    const file = { ...word, value, raw: value, path: value }
    if (namesFile(env, file, scope)) touch(env, command, file, "read", "argument", scope)
  }
  const eq = text.includes("=") ? /^(--?[^=]+)=(.*)$/s.exec(text) : null
  if (eq !== null) {
    const value = eq[2]!
    if (value === "") return
    // Spelt as a path (`/x`, `~/x`, `./x`), it is judged even where nothing is there yet.
    if (/^(\/|~|\.\.?\/)/.test(value)) {
      const path = value.startsWith("~") ? env.home() + value.slice(1) : value
      touch(env, command, { ...word, value: path, raw: value, path }, "read", "argument", scope)
    } else read(value)
    const last = value.slice(value.lastIndexOf("=") + 1)
    if (last !== value && last !== "") read(last)
    if (last.startsWith("@") && last.length > 1) read(last.slice(1))
  } else if (!text.startsWith("--")) {
    // A glued value starts right after a letter of the cluster.
    for (let at = 2; at < text.length && FLAG_LETTER.test(text[at - 1]!); at++)
      if (!FLAG_CLUSTER.test(text.slice(at))) read(text.slice(at))
  }
}

const FLAG_CLUSTER = /^[A-Za-z0-9]+$/
const FLAG_LETTER = /^[A-Za-z0-9]$/

/**
 * Whether a static word may name something that exists where the command runs (where that is
 * not known, it may).
 */
export const namesFile = (env: Env, word: Word, scope: Scope): boolean =>
  word.isStatic &&
  word.path !== undefined &&
  word.path !== "" &&
  (scope.unknown || scope.cwds.some((cwd) => env.resolver.exists(resolveFrom(cwd, word.path!))))

// The value of the first short write option (`-o`) in a cluster of short options (`-ro/x`:
// `/x`; `-ro`: "", the next word), if any.
const gluedShortValue = (text: string, writeOptions: ReadonlyArray<string>): string | undefined => {
  if (text.startsWith("--") || text.length < 2) return undefined
  for (let i = 1; i < text.length; i++) {
    const letter = text[i]!
    if (!/[A-Za-z0-9]/.test(letter)) return undefined
    if (writeOptions.includes(`-${letter}`)) return text.slice(i + 1)
  }
  return undefined
}

// grep reads its pattern files and its file operands (every file under a directory with
// `-r`); an option it does not have is not guessed at.
const grepPaths = (env: Env, command: MutableCommand, words: ReadonlyArray<Word>, scope: Scope): void => {
  const line = parseGrep(words.slice(1))
  for (const option of line.unknown)
    commandNote(command, "unmodelled", `\`${option}\` is not an option grep is known to read this way`)
  for (const file of line.files) touch(env, command, file, "read", "argument", scope)
  const operands = line.patternGiven ? [...line.operands] : line.operands.slice(1)
  if (operands.length === 0 && line.recursive) operands.push(staticWord("."))
  for (const word of operands) touch(env, command, word, "read", "argument", scope)
  if (line.dereference) followedLinks(env, command)
}

const LINK_DEPTH = 8
const LINK_ENTRIES = 5_000

/**
 * For a program that follows symbolic links inside the trees it reads: every link under the
 * directories it reads that leads out of the project is a read of where it leads (bounded in
 * depth and entries; past the bound, the command is unmodelled).
 */
export const followedLinks = (env: Env, command: MutableCommand): void => {
  const roots = env.paths.filter(
    (p) => p.command === command.index && p.access === "read" && p.isDirectory && p.via === "argument"
  )
  let seen = 0
  const visited = new Set<string>()
  const walk = (directory: string, depth: number): boolean => {
    if (visited.has(directory)) return true
    visited.add(directory)
    let entries: Array<fs.Dirent>
    try {
      entries = fs.readdirSync(directory, { withFileTypes: true })
    } catch {
      return true
    }
    for (const entry of entries) {
      if (++seen > LINK_ENTRIES) return false
      const path = NodePath.join(directory, entry.name)
      if (entry.isSymbolicLink()) {
        const { real, directory: isDirectory, exists } = env.resolver.resolve(path)
        if (!exists) continue
        if (!env.resolver.inside(real)) {
          addPath(env, {
            text: path,
            path: real,
            access: "read",
            via: "argument",
            inside: false,
            directory: isDirectory ? real : NodePath.dirname(real),
            isDirectory,
            exists,
            command: command.index
          })
          if (isDirectory && depth < LINK_DEPTH && !walk(real, depth + 1)) return false
        } else if (isDirectory && depth < LINK_DEPTH && !walk(real, depth + 1)) return false
        continue
      }
      if (entry.isDirectory()) {
        if (depth >= LINK_DEPTH) return false
        if (!walk(path, depth + 1)) return false
      }
    }
    return true
  }
  for (const root of roots) {
    if (!walk(root.path, 0)) {
      commandNote(
        command,
        "unmodelled",
        `follows symbolic links under \`${root.text}\`: the tree is too large or deep to list where they lead`
      )
      return
    }
  }
}

const sedInPlace = (words: ReadonlyArray<Word>): boolean =>
  words.some((w) => w.isStatic && (w.value.startsWith("--in-place") || /^-[a-zA-Z]*i/.test(w.value)))

// GNU sed's `-iSUFFIX`/`--in-place=SUFFIX` renames each file to a backup before writing it
// (`-i'.git/*'` backs `config` up as `.git/config`).
const sedBackups = (env: Env, command: MutableCommand, words: ReadonlyArray<Word>, scope: Scope): void => {
  let suffix = ""
  let scriptOption = false
  let followsLinks = false
  let ended = false
  const operands: Array<Word> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (ended || !isOptionWord(word)) {
      operands.push(word)
      continue
    }
    if (!word.isStatic) {
      if (/^-(-i|[a-zA-Z]*i)/.test(word.raw))
        commandNote(command, "unmodelled", `sed \`${word.raw}\`: a backup suffix only known at run time`)
      continue
    }
    if (text === "--") ended = true
    else if (text === "--in-place") suffix = ""
    else if (text.startsWith("--in-place=")) suffix = text.slice("--in-place=".length)
    else if (text === "--follow-symlinks") followsLinks = true
    else if (text === "--expression" || text === "--file") {
      scriptOption = true
      i++
    } else if (text.startsWith("--expression=") || text.startsWith("--file=")) scriptOption = true
    else if (text === "--line-length") i++
    else if (!text.startsWith("--"))
      for (let at = 1; at < text.length; at++) {
        const letter = text[at]!
        if (letter === "i") {
          suffix = text.slice(at + 1)
          break
        }
        if (letter === "e" || letter === "f" || letter === "l") {
          if (letter !== "l") scriptOption = true
          if (at + 1 === text.length) i++
          break
        }
      }
  }
  // No suffix, or `*` alone (the file itself): no backup.
  if (suffix === "" || suffix === "*") return
  if (followsLinks) {
    commandNote(command, "unmodelled", "sed --follow-symlinks names its backups after where the links lead")
    return
  }
  backups(env, command, "sed", suffix, scriptOption ? operands : operands.slice(1), scope)
}

// `perl -i[SUFFIX]` backs files up as sed does (`*` is the name as given). Its options end
// at the first operand: the script file, unless `-e`/`-E` gave the code.
const perlBackups = (env: Env, command: MutableCommand, words: ReadonlyArray<Word>, scope: Scope): void => {
  let suffix = ""
  let code = false
  let i = 1
  for (; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic) {
      if (word.raw.startsWith("-"))
        commandNote(command, "unmodelled", `perl \`${word.raw}\`: an option only known at run time`)
      else break
      continue
    }
    if (text === "--") {
      i++
      break
    }
    if (!text.startsWith("-") || text === "-") break
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!
      if (letter === "i") {
        suffix = text.slice(at + 1)
        break
      }
      if (letter === "e" || letter === "E") {
        code = true
        if (at + 1 === text.length) i++
        break
      }
      // Options whose value is the rest of the word.
      if ("IMmxdDClC0".includes(letter)) break
    }
  }
  if (suffix === "" || suffix === "*") return
  backups(env, command, "perl", suffix, words.slice(code ? i : i + 1), scope)
}

// Each file's backup: the suffix with each `*` replaced by its name as given, else the name
// with the suffix appended, from where the program runs.
const backups = (
  env: Env,
  command: MutableCommand,
  program: string,
  suffix: string,
  files: ReadonlyArray<Word>,
  scope: Scope
): void => {
  for (const file of files) {
    const name = file.path
    if (file.glob && name !== undefined && !suffix.includes("*")) {
      // Each file the glob matches, with the suffix appended.
      for (const match of resolveWord(env, command, file, scope, "read") ?? [])
        touch(env, command, staticWord(match.absolute + suffix), "write", "argument", scope)
      continue
    }
    if (name === undefined || file.glob) {
      commandNote(
        command,
        "unmodelled",
        `${program} backs up \`${file.raw}\` under a name only known at run time`
      )
      continue
    }
    const backup = suffix.includes("*") ? suffix.replaceAll("*", name) : name + suffix
    touch(env, command, staticWord(backup), "write", "argument", scope)
  }
}

// Per analysis: where plantedGitDirectory finds git looking from each directory (the file
// system does not change while a text is judged), the written paths it has read, and which
// searches look at each place (a directory or its HEAD), so a new write marks them at once.
// What git finds in each directory is looked up once (the directories git may run in share
// their parents): where it looks for a bare repository, or `null` for a `.git` there.
export interface GitLookups {
  paths: number
  readonly written: Set<string>
  readonly searched: Map<string, GitSearches>
  readonly watching: Map<string, Array<GitSearches>>
  readonly places: Map<string, GitSearch | null>
  /** Whether each directory git may run in is inside the project (`insideProject`). */
  readonly inside: Map<string, boolean>
}
/** Where git looks from one directory, and whether one of those places is planted. */
interface GitSearches {
  readonly list: ReadonlyArray<GitSearch>
  planted: boolean
}
/** A directory git looks in for a repository, with its `HEAD` (a bare repository's). */
interface GitSearch {
  readonly dir: string
  readonly head: string
  readonly headExists: boolean
  /**
   * A `.git` is there that is not the project's own (`sub/.git`, a gitfile naming another
   * repository): git stops and uses it, and no `.git/*` rule guards its configuration.
   */
  readonly nested: boolean
}
const gitLookups = (env: Env): GitLookups => {
  env.gitLookups ??= {
    paths: 0,
    written: new Set(),
    searched: new Map(),
    watching: new Map(),
    places: new Map(),
    inside: new Map()
  }
  return env.gitLookups
}

const isPlanted = (seen: GitLookups, { dir, head, headExists, nested }: GitSearch): boolean =>
  nested || headExists || seen.written.has(dir) || seen.written.has(head)

// Where git looks for a repository in `dir`, or `null` at the project's own `.git`.
const gitPlace = (env: Env, seen: GitLookups, dir: string): GitSearch | null => {
  let place = seen.places.get(dir)
  if (place === undefined) {
    // `NodePath.join`, without its work for a directory that is normal already.
    const normal = isNormalAbsolute(dir)
    const dotGit = normal ? joinAsWritten(dir, ".git") : NodePath.join(dir, ".git")
    if (env.resolver.exists(dotGit))
      place = dir === env.resolver.root ? null : { dir, head: dotGit, headExists: false, nested: true }
    else {
      const head = normal ? joinAsWritten(dir, "HEAD") : NodePath.join(dir, "HEAD")
      place = { dir, head, headExists: env.resolver.exists(head), nested: false }
    }
    seen.places.set(dir, place)
  }
  return place
}

// The directories git looks in from `cwd` up to the project's top, until one with a `.git`.
const gitSearch = (env: Env, seen: GitLookups, cwd: string): GitSearches => {
  let searched = seen.searched.get(cwd)
  if (searched === undefined) {
    const list: Array<GitSearch> = []
    const root = env.resolver.root
    const under = root + NodePath.sep
    for (let dir = cwd; dir === root || dir.startsWith(under); dir = NodePath.dirname(dir)) {
      const place = gitPlace(env, seen, dir)
      if (place === null) break
      list.push(place)
      if (place.nested || dir === root) break
    }
    searched = { list, planted: list.some((search) => isPlanted(seen, search)) }
    for (const { dir, head } of list)
      for (const place of [dir, head]) {
        const watchers = seen.watching.get(place)
        if (watchers === undefined) seen.watching.set(place, [searched])
        else watchers.push(searched)
      }
    seen.searched.set(cwd, searched)
  }
  return searched
}

/**
 * git finds its repository from where it runs: at each directory up to the project's top, a
 * `.git` there (whose writes the edit rules judge) or the directory itself when it looks like
 * a bare repository (a `HEAD` file). A folder of the project planted that way (`cp -r
 * .git/objects .git/refs .git/HEAD src/f`, a `config` with a textconv driver) hands git a
 * configuration no rule judged, which can run programs. So does a folder the text itself
 * writes into before git runs there. The repository git would use there, if planted.
 */
export const plantedGitDirectory = (env: Env, scope: Scope): string | undefined => {
  const seen = gitLookups(env)
  // The paths written so far, added to as the text goes on (once each: a long text has
  // thousands of paths and many git commands); each marks the searches that look at it.
  for (; seen.paths < env.paths.length; seen.paths++) {
    const path = env.paths[seen.paths]!
    if (path.access !== "write" || seen.written.has(path.path)) continue
    seen.written.add(path.path)
    for (const searches of seen.watching.get(path.path) ?? []) searches.planted = true
  }
  for (const cwd of scope.cwds) {
    const searches = gitSearch(env, seen, cwd)
    if (!searches.planted) continue
    const { dir } = searches.list.find((search) => isPlanted(seen, search))!
    return `git in ${dir} uses the repository there, made inside the project`
  }
  return undefined
}

// The project's own repository: its `.git` (a folder, or a file naming one), which the edit
// rules guard (`.git/config`, `.git/hooks/*`).
const ownRepository = (env: Env, absolute: string): boolean => {
  const own = NodePath.join(env.resolver.root, ".git")
  const path = resolvePath(absolute)
  return path === own || env.resolver.real(path) === env.resolver.real(own)
}

const insideProject = (env: Env, absolute: string): boolean =>
  env.resolver.inside(env.resolver.real(resolvePath(absolute)))

/**
 * A repository git uses that is not the project's own, or `undefined`: the one git finds
 * from a directory outside the project (`git -C /x log`, `cd /x && git status`), one named
 * by `--git-dir` that is not the project's `.git`, or a work tree outside the project
 * (`--work-tree=/x`). Such a repository may have been made by an earlier command with a
 * hostile configuration (core.fsmonitor, core.pager, diff.external), which no rule judged.
 * `-C` moves where the other options' relative paths resolve, in whatever order they come.
 * A directory only known at run time is left to the note its `-C` or `cd` already has.
 */
export const foreignGitRepository = (
  env: Env,
  command: MutableCommand,
  outer: Scope,
  inner: Scope,
  directories: ReadonlyArray<{ readonly option: string; readonly value: Word }>
): string | undefined => {
  let cwds = outer.cwds
  for (const { option, value } of directories) {
    if (option !== "-C" || (value.isStatic && value.value === "")) continue
    const targets = resolveWord(env, command, value, { ...outer, cwds: [...cwds] }, "read")
    if (targets === undefined) return undefined
    cwds = targets.map((target) => target.absolute)
  }
  // Every git command asks this of every directory it may run in: answered once each.
  const inside = gitLookups(env).inside
  const insideHere = (cwd: string): boolean => {
    let answer = inside.get(cwd)
    if (answer === undefined) {
      answer = insideProject(env, cwd)
      inside.set(cwd, answer)
    }
    return answer
  }
  for (const cwd of cwds)
    if (!insideHere(cwd)) return `git in ${cwd}, outside the project, uses the repository found there`
  for (const cwd of inner.cwds)
    if (!insideHere(cwd)) return `git in ${cwd}, outside the project, uses the repository found there`
  for (const { option, value } of directories) {
    if (option === "-C") continue
    const targets = resolveWord(env, command, value, { ...outer, cwds: [...cwds] }, "read")
    if (targets === undefined) return undefined
    for (const { absolute } of targets) {
      if (option === "--git-dir" && !ownRepository(env, absolute))
        return `git --git-dir ${absolute} is not the project's repository`
      if (option === "--work-tree" && !insideProject(env, absolute))
        return `git --work-tree ${absolute} is outside the project`
    }
  }
  return undefined
}

/**
 * `GIT_DIR=/x git status`: the same for the variables that name git's repository (GIT_DIR,
 * GIT_COMMON_DIR, whose configuration git reads) or its work tree (GIT_WORK_TREE).
 */
export const foreignGitVariable = (
  env: Env,
  command: MutableCommand,
  name: string,
  value: Word,
  scope: Scope
): string | undefined => {
  if (name !== "GIT_DIR" && name !== "GIT_COMMON_DIR" && name !== "GIT_WORK_TREE") return undefined
  if (!value.isStatic || value.value === "") return undefined
  const targets = resolveWord(env, command, value, scope, "read")
  if (targets === undefined) return undefined
  for (const { absolute } of targets) {
    if (name === "GIT_WORK_TREE" ? !insideProject(env, absolute) : !ownRepository(env, absolute))
      return `${name}=${value.raw} names a repository that is not the project's`
  }
  return undefined
}
