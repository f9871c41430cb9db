// JSON with comments and trailing commas (the settings files of Claude Code and Gemini CLI
// may have them), read into a tree that remembers where each value sits, and edited as
// text: an element appended or removed, everything else left byte for byte.

export type Node =
  | {
      readonly kind: "object"
      readonly start: number
      readonly end: number
      readonly members: ReadonlyArray<Member>
    }
  | {
      readonly kind: "array"
      readonly start: number
      readonly end: number
      readonly items: ReadonlyArray<Node>
    }
  | { readonly kind: "scalar"; readonly start: number; readonly end: number; readonly value: unknown }

export interface Member {
  readonly key: string
  /** Where the key starts; the member ends where its value does. */
  readonly start: number
  readonly value: Node
}

/** Text that is not JSON with comments, with the line and column where it went wrong. */
export class ParseError {
  readonly message: string
  constructor(text: string, offset: number, what: string) {
    const before = text.slice(0, offset).split("\n")
    this.message = `${what} at line ${before.length}, column ${before.at(-1)!.length + 1}`
  }
}

/** Where the next token starts: past blanks and comments (an unclosed block comment fails). */
const skip = (text: string, from: number): number => {
  let at = from
  for (;;) {
    while (at < text.length && /\s/.test(text[at]!)) at++
    if (text.startsWith("//", at)) {
      const end = text.indexOf("\n", at)
      at = end === -1 ? text.length : end
    } else if (text.startsWith("/*", at)) {
      const end = text.indexOf("*/", at + 2)
      if (end === -1) throw new ParseError(text, at, "unclosed comment")
      at = end + 2
    } else return at
  }
}

/** Reads `text` as one JSON value, with comments and trailing commas allowed. */
export const parse = (text: string): Node | ParseError => {
  // Sticky patterns keep their position between uses: one set per parse.
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
  const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y
  const LITERAL = /true|false|null/y
  const token = (pattern: RegExp, at: number): string | undefined => {
    pattern.lastIndex = at
    return pattern.exec(text)?.[0]
  }
  const value = (from: number): Node => {
    const at = skip(text, from)
    const char = text[at]
    if (char === "{" || char === "[") {
      const close = char === "{" ? "}" : "]"
      const members: Array<Member> = []
      const items: Array<Node> = []
      let next = skip(text, at + 1)
      while (text[next] !== close) {
        if (char === "{") {
          const key = token(STRING, next)
          if (key === undefined) throw new ParseError(text, next, "expected a key in quotes")
          const colon = skip(text, next + key.length)
          if (text[colon] !== ":") throw new ParseError(text, colon, "expected ':'")
          const member = value(colon + 1)
          members.push({ key: JSON.parse(key) as string, start: next, value: member })
          next = skip(text, member.end)
        } else {
          const item = value(next)
          items.push(item)
          next = skip(text, item.end)
        }
        if (text[next] === ",") next = skip(text, next + 1)
        else if (text[next] !== close) throw new ParseError(text, next, `expected ',' or '${close}'`)
      }
      return char === "{"
        ? { kind: "object", start: at, end: next + 1, members }
        : { kind: "array", start: at, end: next + 1, items }
    }
    const scalar = token(STRING, at) ?? token(NUMBER, at) ?? token(LITERAL, at)
    if (scalar === undefined) throw new ParseError(text, at, "expected a value")
    return { kind: "scalar", start: at, end: at + scalar.length, value: JSON.parse(scalar) }
  }
  try {
    const root = value(0)
    const rest = skip(text, root.end)
    return rest === text.length ? root : new ParseError(text, rest, "unexpected text after the value")
  } catch (error) {
    if (error instanceof ParseError) return error
    throw error
  }
}

/** The plain value of a node (what `JSON.parse` would give without the comments). */
export const plain = (node: Node): unknown =>
  node.kind === "scalar"
    ? node.value
    : node.kind === "array"
      ? node.items.map(plain)
      : Object.fromEntries(node.members.map((member) => [member.key, plain(member.value)]))

const elements = (container: Node): ReadonlyArray<{ readonly start: number; readonly end: number }> =>
  container.kind === "object"
    ? container.members.map((member) => ({ start: member.start, end: member.value.end }))
    : container.kind === "array"
      ? container.items
      : []

const lineIndent = (text: string, at: number): string => {
  const start = text.lastIndexOf("\n", at - 1) + 1
  return /^[ \t]*/.exec(text.slice(start))![0]
}

/** The indentation unit of the file: that of its first nested line, else two spaces. */
export const indentUnit = (text: string): string => /\n([ \t]+)\S/.exec(text)?.[1] ?? "  "

/**
 * `text` with `element` (the text of an array item, or `"key": value` for an object)
 * added after the container's last element, on a line of its own at its siblings' indent.
 */
export const append = (text: string, container: Node, element: string): string => {
  const existing = elements(container)
  const last = existing.at(-1)
  const indent =
    last === undefined ? lineIndent(text, container.start) + indentUnit(text) : lineIndent(text, last.start)
  const body = element.replace(/\n/g, `\n${indent}`)
  if (last === undefined) {
    const inner = `\n${indent}${body}\n${lineIndent(text, container.start)}`
    return text.slice(0, container.start + 1) + inner + text.slice(container.end - 1)
  }
  return `${text.slice(0, last.end)},\n${indent}${body}${text.slice(last.end)}`
}

/** `text` without the container's element at `index`, and without the comma that went with it. */
export const remove = (text: string, container: Node, index: number): string => {
  const all = elements(container)
  const target = all[index]!
  const comma = skip(text, target.end)
  if (text[comma] === ",") {
    // Followed by a comma (another element, or a trailing comma): take its whole line(s).
    const lineStart = text.lastIndexOf("\n", target.start - 1) + 1
    const from = /^[ \t]*$/.test(text.slice(lineStart, target.start)) ? lineStart : target.start
    const rest = /^[ \t]*\n?/.exec(text.slice(comma + 1))![0]
    return text.slice(0, from) + text.slice(comma + 1 + rest.length)
  }
  const previous = all[index - 1]
  if (previous === undefined) return text.slice(0, container.start + 1) + text.slice(container.end - 1)
  // The last element: the comma before it goes, and what followed it stays.
  return text.slice(0, previous.end) + text.slice(target.end)
}
