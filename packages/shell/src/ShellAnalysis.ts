/**
 * Turns a command line into what the gate judges, and explains itself.
 *
 * `analyze(command, { cwd, projectRoot, dialect })` parses the text as the shell will run
 * it (line continuations joined first), finds every simple command anywhere in it (lists,
 * pipes, groups, substitutions, control flow, function bodies), follows what runs other
 * commands (`bash -c`, `eval`, aliases, `xargs`, `find -exec`, wrappers such as `sudo` or
 * `env`, PowerShell's `Invoke-Expression`, call operators, script blocks, `Start-Process`,
 * `pwsh -Command`/`-EncodedCommand`), resolves the files they touch against the working
 * directory they run in (following `cd`) and through symlinks, and flags risk. Whatever it
 * cannot model becomes an `unmodelled` note, which makes the gate stricter, never looser.
 *
 * @since 0.0.0
 */
import * as os from "node:os"
import * as Arity from "@gatehousejs/permission/Arity"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { walkBash } from "./internal/bash.ts"
import * as Interpret from "./internal/interpret.ts"
import { emptyWalk, type WalkResult } from "./internal/model.ts"
import { resolvePath } from "./internal/paths.ts"
import { walkPowerShell } from "./internal/powershell.ts"
import {
  continuationsJoined,
  invisibleCharacter,
  type Joined,
  joinPowerShellContinuations,
  powershellLookalike
} from "./internal/text.ts"
import * as ShellParser from "./ShellParser.ts"

/**
 * What a note says: the analysis could not model something (`unmodelled`, which makes the
 * verdict stricter), or the command runs code, writes files, or destroys data.
 *
 * @since 0.0.0
 */
export type NoteKind = "unmodelled" | "executes" | "writes" | "destructive"

/**
 * @since 0.0.0
 */
export interface Note {
  readonly kind: NoteKind
  readonly message: string
}

/**
 * A redirection of a command, as written (`>`, `2>&1`, `<<<`).
 *
 * @since 0.0.0
 */
export interface Redirect {
  readonly operator: string
  readonly descriptor?: string
  readonly target?: string
  readonly access: "read" | "write" | "duplicate" | "heredoc" | "herestring"
}

/**
 * One simple command: as written in the text, run by a wrapper, or found in a payload.
 *
 * @since 0.0.0
 */
export interface Command {
  readonly index: number
  /** Assignments, argv and redirections joined by single spaces: what patterns are built from. */
  readonly text: string
  /** The source slice it came from. */
  readonly source: string
  /** Words with quotes resolved where static (dynamic words keep their source text). */
  readonly argv: ReadonlyArray<string>
  /** Leading `NAME=value` assignments (and `env NAME=value`). */
  readonly assignments: ReadonlyArray<string>
  readonly redirects: ReadonlyArray<Redirect>
  /** `Arity.prefix(argv)`. */
  readonly prefix: ReadonlyArray<string>
  readonly dialect: ShellParser.Dialect
  /** `command` (in the text), `wrapped` (run by a wrapper such as `sudo`), `payload` (a string or argv run by `bash -c`, `eval`, `xargs`, …). */
  readonly origin: "command" | "wrapped" | "payload"
  /** The command whose wrapper or payload this is. */
  readonly parent?: number
  /** How it was reached: `sudo`, `bash -c`, `eval`, `xargs`, `find -exec`, `Invoke-Expression`, … */
  readonly via?: string
  /** The command this wrapper runs (`sudo rm x` -> the index of `rm x`). */
  readonly wraps?: number
  /** The program name spelt the way the shell resolves it, when that differs from `argv[0]` (base name of a path, cmdlet of an alias). */
  readonly names: ReadonlyArray<string>
  /**
   * The other names of the PowerShell cmdlet it runs (`del`, `erase`, `rm`, … for
   * `Remove-Item`): one command under every name. A deny or ask a rule writes for any of
   * them holds; the catch-all `*` does not decide them (the names above do).
   */
  readonly aliases?: ReadonlyArray<string>
  /** `cd`, `pushd`, `Set-Location`, …: produces no `bash` pattern. */
  readonly changesDirectory: boolean
  /**
   * The argv with the global options of a multi-level program moved out (`git -C src
   * --no-pager push -f` -> `git push -f`), when that differs from `argv`. The gate judges
   * both; `prefix` is read from this form.
   */
  readonly canonical?: ReadonlyArray<string>
  readonly notes: ReadonlyArray<Note>
}

/**
 * A file or directory a command touches.
 *
 * @since 0.0.0
 */
export interface PathAccess {
  /** As written. */
  readonly text: string
  /** Absolute, through symlinks. */
  readonly path: string
  readonly access: "read" | "write"
  readonly via: "argument" | "redirect" | "cd" | "workdir"
  readonly inside: boolean
  /** The directory an `external_directory` pattern names (the path itself for directories). */
  readonly directory: string
  /** Project-relative (with `/`), for paths inside the project. */
  readonly relative?: string
  /** The path is an existing directory. */
  readonly isDirectory: boolean
  /** Something is there now (reading a path that does not exist reads nothing). */
  readonly exists: boolean
  /** A write to a file that configures what later commands run (`.npmrc`, `.git/hooks/*`, `~/.bashrc`, …). */
  readonly configures?: boolean
  readonly command?: number
}

/**
 * @since 0.0.0
 */
export interface Analysis {
  /** The text as given. */
  readonly command: string
  /** The text as judged (line continuations joined). */
  readonly text: string
  readonly dialect: ShellParser.Dialect
  /** The starting directory, absolute. */
  readonly cwd: string
  /** The project root, absolute, as given (paths are compared with its real path). */
  readonly projectRoot: string
  readonly commands: ReadonlyArray<Command>
  readonly paths: ReadonlyArray<PathAccess>
  /** The home directory `~` and `$HOME` expanded to, when one was given or the text needed it. */
  readonly home?: string
  /** Notes about the text as a whole (parse errors, invisible characters, size, …). */
  readonly notes: ReadonlyArray<Note>
  /** Source fragments tree-sitter could not parse; the gate judges them as patterns too. */
  readonly errors: ReadonlyArray<string>
}

/**
 * @since 0.0.0
 */
export interface Options {
  /** The directory the command starts in (the `workdir`). */
  readonly cwd: string
  readonly projectRoot: string
  readonly dialect: ShellParser.Dialect
  /** The home directory `~` and `$HOME` expand to (default: the user's). */
  readonly home?: string
}

/** Over this many characters a text is not judged by its parts alone. */
export const MAX_TEXT = 10_000
/** Over this many simple commands a text is not judged by its parts alone. */
export const MAX_COMMANDS = 50
// Past these, analysis stops; the notes already make the verdict at least "ask".
const MAX_PARSED_TEXT = 1_000_000
const MAX_PAYLOADS = 64

/**
 * Analyses `command` as the shell of `dialect` would run it from `cwd`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ShellAnalysis, ShellParser } from "@gatehousejs/shell"
 *
 * const program = ShellAnalysis.analyze("CI=1 sudo rm -rf build && cat ~/.ssh/id_rsa", {
 *   cwd: "/work/app",
 *   projectRoot: "/work/app",
 *   dialect: "bash"
 * })
 * Effect.runPromise(program.pipe(Effect.provide(ShellParser.layer))).then((a) =>
 *   console.log(a.commands.map((c) => c.text)) // ["CI=1 sudo rm -rf build", "rm -rf build", "cat …/.ssh/id_rsa"]
 * )
 * ```
 * @since 0.0.0
 */
export const analyze = (
  command: string,
  options: Options
): Effect.Effect<Analysis, never, ShellParser.Service> =>
  // The parser and the clock (file times are compared with it), read from the fiber at once.
  Effect.withFiber<Analysis, never, ShellParser.Service>((fiber) =>
    Context.getUnsafe(fiber.context, ShellParser.Service).withTrees((trees) =>
      analyzeWith(trees, command, options, fiber.getRef(Clock.Clock).currentTimeMillisUnsafe())
    )
  )

const analyzeWith = (trees: ShellParser.Trees, command: string, options: Options, now: number): Analysis => {
  // Looked up only when a `~`, `$HOME` or a bare `cd` needs it.
  let homeDirectory = options.home
  const home = (): string => (homeDirectory ??= os.homedir())
  const cwd = resolvePath(options.projectRoot, options.cwd)
  const dialect = options.dialect
  const { text, uncertain } = joinedText(command, dialect)
  const env = Interpret.makeEnv({ projectRoot: options.projectRoot, home, cwd, now })

  textNotes(env, command, text, dialect, uncertain)
  Interpret.workdir(env, cwd)

  if (text.length <= MAX_PARSED_TEXT) {
    const root = trees.syntax(text, dialect)
    Interpret.absorb(env, walk(root, text, dialect, home), Interpret.rootScope(cwd, dialect))
    let processed = 0
    while (env.payloads.length > 0) {
      const payload = env.payloads.shift()!
      if (++processed > MAX_PAYLOADS) {
        Interpret.note(
          env,
          "unmodelled",
          `more than ${MAX_PAYLOADS} nested command strings: not all were analysed`
        )
        break
      }
      const joined = joinedText(payload.text, payload.dialect)
      const payloadText = joined.text
      textNotes(env, payload.text, payloadText, payload.dialect, joined.uncertain, payload.via)
      if (payloadText.length > MAX_PARSED_TEXT) continue
      const tree = trees.syntax(payloadText, payload.dialect)
      Interpret.absorbPayload(env, walk(tree, payloadText, payload.dialect, home), payload)
    }
  } else {
    Interpret.note(env, "unmodelled", `the command is ${text.length} characters long: too long to analyse`)
  }

  const commands = Interpret.finish(env, (argv) => Arity.prefix(argv))
  if (commands.length > MAX_COMMANDS) {
    Interpret.note(
      env,
      "unmodelled",
      `${commands.length} simple commands (over ${MAX_COMMANDS}): too many to judge one by one`
    )
  }
  return {
    command,
    text,
    dialect,
    cwd,
    projectRoot: env.resolver.root,
    commands,
    paths: env.paths,
    notes: env.notes,
    errors: env.errors,
    ...(homeDirectory === undefined ? {} : { home: homeDirectory })
  }
}

const walk = (
  root: ShellParser.SyntaxNode,
  text: string,
  dialect: ShellParser.Dialect,
  home: () => string
): WalkResult => {
  try {
    return dialect === "bash" ? walkBash(root, text, home) : walkPowerShell(root, text, home)
  } catch (error) {
    // Thousands of nested groups or substitutions exhaust the walkers' stack: such a text
    // is not judged by its parts (the note makes it ask).
    if (!(error instanceof RangeError)) throw error
    const result = emptyWalk()
    result.problems.push("the command is nested too deeply to analyse")
    return result
  }
}

// The text with its line continuations joined as the shell joins them.
const joinedText = (command: string, dialect: ShellParser.Dialect): Joined =>
  dialect === "bash"
    ? continuationsJoined(command)
    : { text: joinPowerShellContinuations(command), uncertain: undefined }

const textNotes = (
  env: Interpret.Env,
  original: string,
  text: string,
  dialect: ShellParser.Dialect,
  /** Where bash may join the lines otherwise (`continuationsJoined`). */
  uncertain: string | undefined,
  via?: string
): void => {
  const where = via ? ` (in the command run by ${via})` : ""
  if (uncertain !== undefined)
    Interpret.note(
      env,
      "unmodelled",
      `a line continuation near ${uncertain}${where}: bash may join the lines otherwise`
    )
  const invisible = invisibleCharacter(original)
  if (invisible !== undefined) {
    Interpret.note(
      env,
      "unmodelled",
      `invisible or control character ${invisible}${where}: shells and parsers disagree on it`
    )
  }
  if (dialect === "powershell") {
    const lookalike = powershellLookalike(original)
    if (lookalike !== undefined) {
      Interpret.note(
        env,
        "unmodelled",
        `${lookalike}${where}: PowerShell reads it as a dash or a quote, the parser does not`
      )
    }
  }
  if (text.length > MAX_TEXT) {
    Interpret.note(
      env,
      "unmodelled",
      `the command is ${text.length} characters long${where} (over ${MAX_TEXT})`
    )
  }
}
