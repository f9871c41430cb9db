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
  from: number,
  to: number,
  literal: boolean,
  ignoreCase: boolean
): number => {
  const length = to - from
  if (literal && !ignoreCase) {
    const at = input.indexOf(pattern.slice(from, to), start)
    return at !== -1 && at + length <= end ? at : -1
  }
  for (let at = start; at + length <= end; at++) {
    if (segmentAt(input, at, pattern, from, to, ignoreCase)) return at
  }
  return -1
}

/** Does `pattern[0, to)`, with `*` and `?`, match the whole `input`? */
const matchRange = (input: string, pattern: string, to: number, ignoreCase: boolean): boolean => {
  const firstStar = pattern.indexOf("*")
  if (firstStar === -1 || firstStar >= to) {
    return input.length === to && segmentAt(input, 0, pattern, 0, to, ignoreCase)
  }
  const lastStar = pattern.lastIndexOf("*", to - 1)
  const headLength = firstStar
  const tailLength = to - lastStar - 1
  if (input.length < headLength + tailLength) return false
  if (!segmentAt(input, 0, pattern, 0, firstStar, ignoreCase)) return false
  const end = input.length - tailLength
  if (!segmentAt(input, end, pattern, lastStar + 1, to, ignoreCase)) return false
  // Every piece between the first and the last star, placed leftmost in turn.
  let position = headLength
  let from = firstStar + 1
  while (from <= lastStar) {
    let stop = from
    let literal = true
    while (stop < lastStar && pattern.charCodeAt(stop) !== STAR) {
      if (pattern.charCodeAt(stop) === QUESTION) literal = false
      stop++
    }
    if (stop > from) {
      const at = findSegment(input, position, end, pattern, from, stop, literal, ignoreCase)
      if (at === -1) return false
      position = at + (stop - from)
    }
    from = stop + 1
  }
  return true
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
export const match = (input: string, pattern: string, options?: Options): boolean => {
  const ignoreCase = options?.ignoreCase ?? DEFAULT_IGNORE_CASE
  if (input.includes("\\")) input = input.replaceAll("\\", "/")
  if (pattern.includes("\\")) pattern = pattern.replaceAll("\\", "/")
  const length = pattern.length
  if (matchRange(input, pattern, length, ignoreCase)) return true
  // `"ls *"` also matches plain `ls`.
  return (
    length >= 2 &&
    pattern.charCodeAt(length - 1) === STAR &&
    pattern.charCodeAt(length - 2) === 32 &&
    matchRange(input, pattern, length - 2, ignoreCase)
  )
}

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
