/**
 * The glob dialect of permission rules: `*` is any run of characters (including `/` and
 * newlines), `?` is exactly one character, everything else is literal.
 *
 * - Backslashes count as `/` in both the input and the pattern (Windows paths).
 * - A pattern ending in `" *"` also matches without that suffix: `"ls *"` matches `ls` and
 *   `ls -la`, but not `lsof`.
 * - The whole input must match. Case is ignored only on Windows.
 *
 * The matcher never backtracks: the pattern is cut at its stars and each piece is found
 * once, left to right (leftmost placement is always safe for `*` globs), so a pattern such as
 * `*a*b*a*b*c` costs one pass over the input instead of an exponential regex search.
 *
 * @since 0.0.0
 */

const STAR = 42 // "*"
const QUESTION = 63 // "?"

/**
 * Options of {@link match}.
 *
 * @since 0.0.0
 */
export interface Options {
  /** Ignore case (by default: only on Windows). */
  readonly ignoreCase?: boolean
}

const DEFAULT_IGNORE_CASE = process.platform === "win32"

// The case folding of a non-unicode `i` RegExp (ECMAScript "Canonicalize"), one UTF-16
// unit at a time, so Windows matching agrees with the regex it replaces.
const fold = (code: number): number => {
  if (code < 128) return code >= 97 && code <= 122 ? code - 32 : code
  const upper = String.fromCharCode(code).toUpperCase()
  if (upper.length !== 1) return code
  const folded = upper.charCodeAt(0)
  return folded < 128 ? code : folded
}

const same = (a: number, b: number, ignoreCase: boolean): boolean =>
  a === b || (ignoreCase && fold(a) === fold(b))

/** Does `pattern[from, to)` (no stars) match `input` at `at`? */
const segmentAt = (
  input: string,
  at: number,
  pattern: string,
  from: number,
  to: number,
  ignoreCase: boolean
): boolean => {
  for (let i = from; i < to; i++) {
    const p = pattern.charCodeAt(i)
    if (p !== QUESTION && !same(input.charCodeAt(at + i - from), p, ignoreCase)) return false
  }
  return true
}

/** Leftmost position in `input[start, end)` where `pattern[from, to)` fits, or -1. */
const findSegment = (
  input: string,
  start: number,
  end: number,
  pattern: string,
  piece: Piece,
  ignoreCase: boolean
): number => {
  const { from, to } = piece
  const length = to - from
  if (piece.literal && !ignoreCase) {
    const at = input.indexOf(piece.text, start)
    return at !== -1 && at + length <= end ? at : -1
  }
  for (let at = start; at + length <= end; at++) {
    if (segmentAt(input, at, pattern, from, to, ignoreCase)) return at
  }
  return -1
}

/** A run of `pattern` without stars: `[from, to)`, its `text`, and whether it has no `?`. */
interface Piece {
  readonly from: number
  readonly to: number
  readonly text: string
  readonly literal: boolean
}

const piece = (pattern: string, from: number, to: number): Piece => {
  const text = pattern.slice(from, to)
  return { from, to, text, literal: !text.includes("?") }
}

/** `pattern[0, to)` cut at its stars: what must start the input, end it, and lie between. */
interface Plan {
  readonly length: number
  /** No star: the input is `head`, with nothing else. */
  readonly starless: boolean
  readonly head: Piece
  readonly tail: Piece
  readonly middle: ReadonlyArray<Piece>
}

const plan = (pattern: string, to: number): Plan => {
  const firstStar = pattern.indexOf("*")
  if (firstStar === -1 || firstStar >= to) {
    const head = piece(pattern, 0, to)
    return { length: to, starless: true, head, tail: piece(pattern, to, to), middle: [] }
  }
  const lastStar = pattern.lastIndexOf("*", to - 1)
  const middle: Array<Piece> = []
  let from = firstStar + 1
  while (from <= lastStar) {
    let stop = from
    while (stop < lastStar && pattern.charCodeAt(stop) !== STAR) stop++
    if (stop > from) middle.push(piece(pattern, from, stop))
    from = stop + 1
  }
  return {
    length: to,
    starless: false,
    head: piece(pattern, 0, firstStar),
    tail: piece(pattern, lastStar + 1, to),
    middle
  }
}

const fits = (input: string, at: number, pattern: string, part: Piece, ignoreCase: boolean): boolean =>
  part.literal && !ignoreCase
    ? input.startsWith(part.text, at)
    : segmentAt(input, at, pattern, part.from, part.to, ignoreCase)

/** Does the planned pattern match the whole `input`? */
const matchPlan = (input: string, pattern: string, planned: Plan, ignoreCase: boolean): boolean => {
  const { head, tail } = planned
  if (planned.starless) return input.length === planned.length && fits(input, 0, pattern, head, ignoreCase)
  const headLength = head.to
  const tailLength = tail.to - tail.from
  if (input.length < headLength + tailLength) return false
  if (!fits(input, 0, pattern, head, ignoreCase)) return false
  const end = input.length - tailLength
  if (!fits(input, end, pattern, tail, ignoreCase)) return false
  // Every piece between the first and the last star, placed leftmost in turn.
  let position = headLength
  for (const part of planned.middle) {
    const at = findSegment(input, position, end, pattern, part, ignoreCase)
    if (at === -1) return false
    position = at + (part.to - part.from)
  }
  return true
}

/**
 * A pattern cut once at its stars, to match many inputs; see {@link compile}.
 *
 * @since 0.1.0
 */
export interface Matcher {
  /** The pattern as written. */
  readonly pattern: string
  /** The one (normalised) input the pattern matches, when it is plain text compared exactly. */
  readonly exact: string | undefined
  /** Whether `input` matches the pattern in full (the same answer as {@link match}). */
  readonly matches: (input: string) => boolean
  /** {@link Matcher.matches} for an input already passed through {@link normalize}. */
  readonly matchesNormalized: (input: string) => boolean
  /**
   * The first UTF-16 unit of every non-empty (normalised) input the pattern matches, when
   * that is one fixed unit (the pattern starts with neither `*` nor `?`, and case counts).
   */
  readonly first: number | undefined
}

/**
 * The input as the matcher compares it: backslashes turned into `/`.
 *
 * @since 0.1.0
 */
export const normalize = (input: string): string =>
  input.includes("\\") ? input.replaceAll("\\", "/") : input

/**
 * `pattern` prepared once for many {@link match} calls: the same answers, without cutting the
 * pattern at its stars again for every input.
 *
 * @example
 * ```ts
 * import { Wildcard } from "@gatehousejs/permission"
 * const gitLog = Wildcard.compile("git log *")
 * gitLog.matches("git log --oneline") // true
 * gitLog.matches("git push") // false
 * ```
 * @since 0.1.0
 */
export const compile = (pattern: string, options?: Options): Matcher => {
  const ignoreCase = options?.ignoreCase ?? DEFAULT_IGNORE_CASE
  const text = normalize(pattern)
  const length = text.length
  const whole = plan(text, length)
  // `"ls *"` also matches plain `ls`.
  const bare =
    length >= 2 && text.charCodeAt(length - 1) === STAR && text.charCodeAt(length - 2) === 32
      ? plan(text, length - 2)
      : undefined
  const exact = whole.starless && !ignoreCase && whole.head.literal ? text : undefined
  // The usual shape of a rule (`git status *`, `src/*`): literal text, then only stars. A
  // match is an input that starts with the text (and for the bare form of `"ls *"`, one
  // that is `ls`), said without cutting the input at stars.
  const prefixOnly =
    !whole.starless &&
    !ignoreCase &&
    whole.head.literal &&
    whole.middle.length === 0 &&
    whole.tail.from === whole.tail.to
  const bareText = bare?.starless === true && bare.head.literal ? bare.head.text : undefined
  let matchesNormalized: (input: string) => boolean
  if (exact !== undefined) matchesNormalized = (input) => input === exact
  else if (length === 1 && !whole.starless) matchesNormalized = () => true
  else if (prefixOnly && bare === undefined) matchesNormalized = (input) => input.startsWith(whole.head.text)
  else if (prefixOnly && bareText !== undefined)
    matchesNormalized = (input) => input.startsWith(whole.head.text) || input === bareText
  else if (bare === undefined) matchesNormalized = (input) => matchPlan(input, text, whole, ignoreCase)
  else
    matchesNormalized = (input) =>
      matchPlan(input, text, whole, ignoreCase) || matchPlan(input, text, bare, ignoreCase)
  // What a matching input starts with: the pattern's head, or for the bare form of `"ls *"`
  // (`ls`) the same head less its space; `" *"` bare matches only the empty input.
  const head = length === 0 || ignoreCase ? undefined : text.charCodeAt(0)
  const first = head === STAR || head === QUESTION ? undefined : head
  return {
    pattern,
    exact,
    matches: (input) => matchesNormalized(normalize(input)),
    matchesNormalized,
    first
  }
}

/**
 * Whether `input` matches the glob `pattern` in full.
 *
 * @example
 * ```ts
 * import { Wildcard } from "@gatehousejs/permission"
 * Wildcard.match("ls -la", "ls *") // true
 * Wildcard.match("ls", "ls *") // true
 * Wildcard.match("lsof", "ls *") // false
 * Wildcard.match("src/a/.env", "*.env") // true: `*` crosses `/`
 * ```
 * @since 0.0.0
 */
export const match = (input: string, pattern: string, options?: Options): boolean =>
  compile(pattern, options).matches(input)

/**
 * Whether `pattern` contains anything but literal text (`*`, `?` or a backslash), i.e.
 * whether plain string equality would judge it differently from {@link match}.
 *
 * @since 0.0.0
 */
export const isLiteral = (pattern: string): boolean =>
  !pattern.includes("*") && !pattern.includes("?") && !pattern.includes("\\")

const bySpecificity = <V>(patterns: Readonly<Record<string, V>>): Array<readonly [string, V]> =>
  Object.entries(patterns).sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))

/**
 * The value of the most specific pattern that matches `input`: patterns are tried from
 * the shortest to the longest (ties in string order), and the last match wins.
 *
 * @example
 * ```ts
 * import { Wildcard } from "@gatehousejs/permission"
 * Wildcard.all("git status", { "*": "deny", "git *": "ask", "git status": "allow" }) // "allow"
 * ```
 * @since 0.0.0
 */
export const all = <V>(
  input: string,
  patterns: Readonly<Record<string, V>>,
  options?: Options
): V | undefined => {
  let found: V | undefined
  for (const [pattern, value] of bySpecificity(patterns)) if (match(input, pattern, options)) found = value
  return found
}

/**
 * {@link all} for a command split into `head` and `tail` arguments. A pattern's first
 * word must match `head`; its other words must match arguments in order, skipping any in
 * between (a word `*` matches nothing and is skipped).
 *
 * @example
 * ```ts
 * import { Wildcard } from "@gatehousejs/permission"
 * Wildcard.allStructured({ head: "find", tail: ["src", "-delete"] }, { "find *": "allow", "find * -delete*": "ask" })
 * // "ask"
 * ```
 * @since 0.0.0
 */
export const allStructured = <V>(
  command: { readonly head: string; readonly tail: ReadonlyArray<string> },
  patterns: Readonly<Record<string, V>>,
  options?: Options
): V | undefined => {
  let found: V | undefined
  for (const [pattern, value] of bySpecificity(patterns)) {
    const [head, ...words] = pattern.split(/\s+/)
    if (head === undefined || !match(command.head, head, options)) continue
    let next = 0
    const matched = words.every((word) => {
      if (word === "*") return true
      while (next < command.tail.length) {
        if (match(command.tail[next++]!, word, options)) return true
      }
      return false
    })
    if (matched) found = value
  }
  return found
}
