// Compiles one component of a glob (no `/`) to a RegExp that matches the names bash's
// pattern matching does (and zsh's, the shell when $SHELL is zsh: where the two differ, the
// names of both). An allow-list: only the forms whose meaning is certain are compiled;
// anything else is reported as not modelled, never guessed (a wrong guess misses the file
// the shell reaches, e.g. `.e[[:lower:]]v` is .env).

/** The compiled component, or why it is not modelled. */
export type CompiledGlob = RegExp | { readonly unmodelled: string }

// POSIX classes over ASCII (`word` is bash's own: alnum and `_`).
const CLASSES: ReadonlyMap<string, (code: number) => boolean> = new Map([
  ["alpha", (c: number) => isUpper(c) || isLower(c)],
  ["upper", (c: number) => isUpper(c)],
  ["lower", (c: number) => isLower(c)],
  ["digit", (c: number) => isDigit(c)],
  ["alnum", (c: number) => isUpper(c) || isLower(c) || isDigit(c)],
  ["word", (c: number) => isUpper(c) || isLower(c) || isDigit(c) || c === 95],
  ["xdigit", (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)],
  ["space", (c: number) => c === 32 || (c >= 9 && c <= 13)],
  ["blank", (c: number) => c === 32 || c === 9],
  ["punct", (c: number) => c > 32 && c < 127 && !(isUpper(c) || isLower(c) || isDigit(c))],
  ["graph", (c: number) => c > 32 && c < 127],
  ["print", (c: number) => c >= 32 && c < 127],
  ["cntrl", (c: number) => c < 32 || c === 127]
])
const isUpper = (c: number) => c >= 65 && c <= 90
const isLower = (c: number) => c >= 97 && c <= 122
const isDigit = (c: number) => c >= 48 && c <= 57

// `[=c=]` and `[.c.]` are compiled for a letter or digit only (the character itself in the
// C locale; see `bracket` for other locales).
const SINGLE = /^[A-Za-z0-9]$/

/**
 * `powershell`: its wildcards may ignore case even on Linux (a `-Path` wildcard does, a
 * `-Filter` does not), so both cases are taken; its brackets hold characters and ranges
 * only (no negation or classes: `[!e]` is `!` or `e`), so any other form is not modelled.
 */
export const compileGlob = (part: string, dialect: "bash" | "powershell" = "bash"): CompiledGlob => {
  // Quote removal already happened: a backslash left in the text was quoted, and which of
  // the characters around it were is no longer known.
  if (part.includes("\\")) return { unmodelled: "it holds a backslash" }
  let source = "^"
  const chars = Array.from(part)
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === "*") source += ".*"
    else if (c === "?") source += "."
    else if (c === "[") {
      const parsed = bracket(chars, i, dialect)
      if ("unmodelled" in parsed) return parsed
      source += parsed.source
      i = parsed.end
    } else source += literal(c)
  }
  try {
    return new RegExp(`${source}$`, dialect === "powershell" ? "sui" : "su")
  } catch {
    return { unmodelled: "its pattern could not be compiled" }
  }
}

type Bracket = { readonly source: string; readonly end: number } | { readonly unmodelled: string }

/** The bracket expression opening at `chars[start]` (`[`): its RegExp source and the index of its closing `]`. */
const bracket = (chars: ReadonlyArray<string>, start: number, dialect: "bash" | "powershell"): Bracket => {
  let i = start + 1
  const negated = chars[i] === "!" || chars[i] === "^"
  if (negated) i++
  if (dialect === "powershell") {
    const close = chars.indexOf("]", start + 1)
    const body = close === -1 ? [] : chars.slice(start + 1, close)
    if (negated || body.length === 0 || body.some((c) => c === "[" || c === "`"))
      return { unmodelled: "a PowerShell bracket other than characters and ranges" }
  }
  const members = new Set<number>()
  // Classes, equivalence classes and ranges mean other characters in other locales (a
  // UTF-8 `[[:lower:]]` matches é): a name's non-ASCII character may match them.
  let localeBound = false
  for (let first = true; ; first = false) {
    // bash reads the `[` as a plain character, zsh refuses the pattern or reads it otherwise
    // (`[!]` is any character there).
    if (i >= chars.length) return { unmodelled: "a bracket expression never closes" }
    const c = chars[i]!
    if (c === "]" && !first) break
    // `[]-a]`: bash reads a range from `]`, zsh the characters `]`, `-` and `a`.
    if (c === "]" && chars[i + 1] === "-" && chars[i + 2] !== "]")
      return { unmodelled: "a range from `]` (bash and zsh read it differently)" }
    if (c === "[" && (chars[i + 1] === ":" || chars[i + 1] === "=" || chars[i + 1] === ".")) {
      const kind = chars[i + 1]!
      const close = findClose(chars, i + 2, kind)
      if (close === undefined) return { unmodelled: `\`[${kind}\` is not closed` }
      const name = chars.slice(i + 2, close).join("")
      if (kind === ":") {
        const test = CLASSES.get(name)
        if (test === undefined) return { unmodelled: `\`[:${name}:]\` is not a class known here` }
        for (let code = 0; code < 128; code++) if (test(code)) members.add(code)
      } else if (SINGLE.test(name)) {
        members.add(name.charCodeAt(0))
        // Another locale may hold both cases in one equivalence class: both are taken,
        // unless negated (more matched, never fewer).
        if (kind === "=" && !negated) {
          members.add(name.toLowerCase().charCodeAt(0))
          members.add(name.toUpperCase().charCodeAt(0))
        }
      } else return { unmodelled: `\`[${kind}${name}${kind}]\` is not modelled` }
      localeBound = true
      i = close + 2
      if (chars[i] === "-" && chars[i + 1] !== "]") return { unmodelled: "a range starts at a class" }
      continue
    }
    const from = c.codePointAt(0)!
    if (from > 127) return { unmodelled: "it holds a character that is not ASCII" }
    if (chars[i + 1] === "-" && chars[i + 2] !== undefined && chars[i + 2] !== "]") {
      const last = chars[i + 2]!
      if (last === "[") return { unmodelled: "a range ends at `[`" }
      const to = last.codePointAt(0)!
      if (to > 127) return { unmodelled: "it holds a character that is not ASCII" }
      // bash (globasciiranges, the default since 5.0) orders by code point; a reversed
      // range matches nothing.
      for (let code = from; code <= to; code++) members.add(code)
      localeBound = true
      i += 3
      continue
    }
    members.add(from)
    i++
  }
  const set = Array.from(members, (code) => `\\x${code.toString(16).padStart(2, "0")}`).join("")
  // A name's non-ASCII character is taken as a match of every locale-bound expression (and
  // a negated one matches it anyway): more files judged, never fewer.
  const source = negated
    ? `[^${set}]`
    : localeBound
      ? `(?:[${set}]|[^\\x00-\\x7f])`
      : set === ""
        ? "[^\\s\\S]"
        : `[${set}]`
  return { source, end: i }
}

// The `]` of `[:name:]` (or `[=c=]`, `[.c.]`): the index of its `kind` character.
const findClose = (chars: ReadonlyArray<string>, from: number, kind: string): number | undefined => {
  for (let i = from; i + 1 < chars.length; i++) {
    if (chars[i] === kind && chars[i + 1] === "]") return i
    if (chars[i] === "]" || chars[i] === "[") return undefined
  }
  return undefined
}

const literal = (c: string): string =>
  /^[A-Za-z0-9]$/.test(c) ? c : `\\u{${c.codePointAt(0)!.toString(16)}}`
