// What the dialect walkers hand to the interpreter: commands as words, before any meaning.
import type { Segment } from "./text.ts"

/** One word of a command as the shell will see it. */
export interface Word {
  /** The value after quote removal when static; the source text when not. */
  readonly value: string
  readonly raw: string
  readonly isStatic: boolean
  /**
   * The value usable as a path: the static value, or the value with `$HOME`/`$PWD`/`~`
   * substituted; undefined when part of it is only known at run time.
   */
  readonly path: string | undefined
  /** Unquoted glob characters (`*`, `?`, `[`) are present. */
  readonly glob: boolean
  /**
   * With `glob`: some of `*?[]\` in `path` are literal to the shell (quoted, or from a
   * substituted value), which `path` alone no longer tells.
   */
  readonly literalWildcards?: boolean
  /** For static bash words: the quoted/unquoted pieces (brace expansion needs them). */
  readonly segments?: ReadonlyArray<Segment>
  /** PowerShell `-Name` parameter token. */
  readonly parameter?: boolean
  /** PowerShell: a parameter given its value after a colon (`-Force:$false`, `-Path:x`). */
  readonly joined?: boolean
  /** PowerShell: the word is a script block `{ … }` (its commands are walked separately). */
  readonly scriptBlock?: boolean
  /** PowerShell: an array literal `a, b` given as one argument. */
  readonly items?: ReadonlyArray<Word>
}

export type RedirectAccess = "read" | "write" | "duplicate" | "heredoc" | "herestring"

export interface RawRedirect {
  readonly operator: string
  readonly descriptor: string | undefined
  readonly target: Word | undefined
  readonly access: RedirectAccess
}

export interface RawAssignment {
  readonly name: string
  readonly value: Word
}

export interface RawCommand {
  readonly source: string
  readonly assignments: ReadonlyArray<RawAssignment>
  readonly words: ReadonlyArray<Word>
  readonly redirects: ReadonlyArray<RawRedirect>
  /** PowerShell call operator in front of the name (`&` or `.`). */
  readonly callOperator?: "&" | "."
  /** PowerShell: the command takes the output of the one before it (`a | b`). */
  readonly piped?: boolean
  /** bash: the command reads the output of the one before it in a pipeline. */
  readonly stdinPiped?: boolean
  /** PowerShell: the text of the command piped in, when `piped`. */
  readonly pipedFrom?: string
  /** The first command the shell runs, at top level (a `cd` there moves everything after it). */
  readonly leading?: boolean
  /**
   * bash: the command runs only once a `cd` of the same shell has succeeded (it is on the
   * right of `&&`s whose left side runs one), so `cd -` returns to a directory of the text.
   */
  readonly afterChangeDirectory?: boolean
  /** Assignments made by `export`/`declare`/`local`/`readonly` arguments. */
  readonly declared?: ReadonlyArray<RawAssignment>
  /** bash: the command is in a loop's body, so it may run again after the commands written after it. */
  repeated?: boolean
  /** Reasons the walker could not model this command (they become notes). */
  readonly problems: ReadonlyArray<string>
}

export interface WalkResult {
  readonly commands: Array<RawCommand>
  /** Constructs the walker could not model, anywhere in the text. */
  readonly problems: Array<string>
  /** Functions defined in the text: calling one runs its body, not the program of that name. */
  readonly functions: Array<string>
  /** The text of ERROR nodes, judged as patterns of their own. */
  readonly errors: Array<string>
}

export const emptyWalk = (): WalkResult => ({
  commands: [],
  problems: [],
  functions: [],
  errors: []
})

/** A URL (`scheme://…`): no path of this machine. */
export const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i

export const staticWord = (value: string): Word => ({
  value,
  raw: value,
  isStatic: true,
  path: value,
  glob: false,
  segments: [{ text: value, quoted: true }]
})
