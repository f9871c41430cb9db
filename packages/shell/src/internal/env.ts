// What the interpretation of one text builds up: its commands, the paths they touch, its
// notes, and where commands run (a scope per text or payload).
import type { Command, Note, NoteKind, PathAccess, Redirect } from "../ShellAnalysis.ts"
import type { Dialect } from "../ShellParser.ts"
import type { GitLookups } from "./files.ts"
import { makeResolver, type Resolver } from "./paths.ts"

/** Where commands run: every directory they may run in (a superset, so `cd x || …` is safe). */
export interface Scope {
  readonly dialect: Dialect
  readonly cwds: Array<string>
  unknown: boolean
  readonly depth: number
  /** Same shell as the text around it (eval, Invoke-Expression): its `cd` would leak out. */
  readonly sameShell: boolean
  /** Runs on another computer (`ssh host cmd`, `docker exec`): its paths are not local files. */
  readonly remote?: boolean
}

export interface Payload {
  readonly text: string
  readonly dialect: Dialect
  readonly scope: Scope
  readonly parent: number
  readonly via: string
}

/** A command while it is interpreted; {@link finish} fills in its text and prefix. */
export interface MutableCommand {
  index: number
  text: string
  prefix: ReadonlyArray<string>
  source: string
  argv: Array<string>
  assignments: Array<string>
  redirects: Array<Redirect>
  dialect: Dialect
  origin: Command["origin"]
  parent?: number
  via?: string
  wraps?: number
  names: ReadonlyArray<string>
  aliases?: ReadonlyArray<string>
  changesDirectory: boolean
  canonical?: Array<string>
  notes: Array<Note>
  /** In a loop's body (`RawCommand.repeated`). */
  repeated?: boolean
}

export interface Env {
  readonly resolver: Resolver
  /** The home directory, looked up when first needed. */
  readonly home: () => string
  readonly cwd: string
  readonly commands: Array<MutableCommand>
  readonly paths: Array<PathAccess>
  /** The accesses and vias (a bit each) of every path in `paths`, so a repeat is found without a scan. */
  readonly pathKeys: Map<string, number>
  /** Per folder (or path not there yet) read, who read it: command index × 16 + the way's bit (made when first needed). */
  commandReads?: Map<string, Array<number>>
  /** Per command, whether it reads every file under a folder it is given (made when first needed). */
  treeReaders?: Map<number, boolean>
  readonly notes: Array<Note>
  readonly errors: Array<string>
  readonly payloads: Array<Payload>
  /** Functions and aliases the text defines (made when the first is). */
  functions: Set<string> | undefined
  aliases: Set<string> | undefined
  readonly seen: Set<string>
  /** The directories a leading `cd` replaced: `cd -`, `popd` and a stack rotation return to them. */
  readonly leftBehind: Array<string>
  /** Commands that create a link (`ln`, `New-Item -ItemType SymbolicLink`, …). */
  readonly links: Array<MutableCommand>
  /** Commands whose input is text from the command line (a here-document or -string, a pipe; made when the first is). */
  stdinText: Set<number> | undefined
  /** What git's search for its repository found (made when the first git command is judged). */
  gitLookups: GitLookups | undefined
}

export const makeEnv = (options: {
  projectRoot: string
  home: () => string
  cwd: string
  /** The current time, in milliseconds (see {@link makeResolver}). */
  now: number
}): Env => ({
  resolver: makeResolver(options.projectRoot, options.now),
  home: options.home,
  cwd: options.cwd,
  commands: [],
  paths: [],
  pathKeys: new Map(),
  notes: [],
  errors: [],
  payloads: [],
  functions: undefined,
  aliases: undefined,
  seen: new Set(),
  leftBehind: [],
  links: [],
  stdinText: undefined,
  gitLookups: undefined
})

export const rootScope = (cwd: string, dialect: Dialect): Scope => ({
  dialect,
  cwds: [cwd],
  unknown: false,
  depth: 0,
  sameShell: true
})

export const note = (env: Env, kind: NoteKind, message: string): void => {
  if (!env.notes.some((n) => n.kind === kind && n.message === message)) env.notes.push({ kind, message })
}

export const commandNote = (command: MutableCommand, kind: NoteKind, message: string): void => {
  if (!command.notes.some((n) => n.kind === kind && n.message === message))
    command.notes.push({ kind, message })
}
