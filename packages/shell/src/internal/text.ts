// Text-level preparation of a command before parsing: line continuations, invisible
// characters, PowerShell's encoded commands, and bash brace expansion of static words.

/**
 * Joins backslash-newline continuations the way bash does before it tokenises: everywhere
 * except inside single quotes, `$'…'` strings, comments and quoted here-document bodies.
 * Doing it first means a continuation can never split `$(` or a flag out of sight.
 */
export const joinContinuations = (text: string): string => continuationsJoined(text).text

/** The text joined, and why the join may differ from bash's, if it may. */
export interface Joined {
  readonly text: string
  readonly uncertain: string | undefined
}

// Contexts: "n" normal (top level, `$(…)`, backticks "b"), "d" inside double quotes, "p"
// inside `${…}`, "a" inside arithmetic (`$((…))`, `((…))`, `$[…]`).
interface Context {
  readonly kind: "n" | "d" | "b" | "p" | "a"
  depth: number
  readonly closer: ")" | "`" | "" | "}" | "))" | "]"
  /** For "p": inside double quotes, where bash reads a single quote in it as it likes. */
  readonly quoted?: boolean
}

/**
 * {@link joinContinuations}, saying where bash may read the text otherwise: a `'` inside a
 * double-quoted `${…}`, a `case` inside `$(…)` (its `)` patterns), a here-document whose
 * body would start inside an open `$(…)` or quotes. Such a text is not modelled.
 */
export const continuationsJoined = (text: string): Joined => {
  if (!text.includes("\\\n")) return { text, uncertain: undefined }
  let out = ""
  let i = 0
  const n = text.length
  const stack: Array<Context> = [{ kind: "n", depth: 0, closer: "" }]
  const pending: Array<{ delimiter: string; quoted: boolean; strip: boolean; level: number }> = []
  let wordStart = true
  let uncertain: string | undefined
  const unsure = (why: string) => {
    uncertain ??= why
  }

  const readHeredocBodies = () => {
    for (const doc of pending) {
      while (i < n) {
        let end = text.indexOf("\n", i)
        if (end === -1) end = n
        const line = text.slice(i, end)
        const check = doc.strip ? line.replace(/^\t+/, "") : line
        if (check === doc.delimiter) {
          out += line
          i = end
          if (i < n) {
            out += "\n"
            i++
          }
          break
        }
        if (!doc.quoted && line.endsWith("\\") && countTrailingBackslashes(line) % 2 === 1 && end < n) {
          out += line.slice(0, -1)
          i = end + 1
          continue
        }
        out += line
        i = end
        if (i < n) {
          out += "\n"
          i++
        }
      }
    }
    pending.length = 0
  }

  while (i < n) {
    const c = text[i]!
    const next = text[i + 1]
    const ctx = stack[stack.length - 1]!
    if (c === "\\" && next === "\n") {
      i += 2
      continue
    }
    if (ctx.kind === "d" || ctx.kind === "p" || ctx.kind === "a") {
      if (c === "\\" && next !== undefined) {
        out += c + next
        i += 2
      } else if (c === '"') {
        if (ctx.kind === "d") stack.pop()
        else stack.push({ kind: "d", depth: 0, closer: "" })
        out += c
        i++
      } else if (c === "`") {
        stack.push({ kind: "b", depth: 0, closer: "`" })
        out += c
        i++
      } else if (c === "$" && next === "(" && text[i + 2] === "(") {
        stack.push({ kind: "a", depth: 0, closer: "))" })
        out += "$(("
        i += 3
      } else if (c === "$" && next === "(") {
        stack.push({ kind: "n", depth: 0, closer: ")" })
        out += "$("
        i += 2
        wordStart = true
      } else if (c === "$" && next === "{") {
        stack.push({ kind: "p", depth: 0, closer: "}", quoted: ctx.kind === "d" || ctx.quoted === true })
        out += "${"
        i += 2
      } else if (ctx.kind === "p" && c === "'") {
        if (ctx.quoted === true) {
          // bash reads it as a quote in some operators and as a character in others.
          unsure("a single quote inside a double-quoted `${…}`")
          out += c
          i++
        } else {
          const close = text.indexOf("'", i + 1)
          const stop = close === -1 ? n : close + 1
          out += text.slice(i, stop)
          i = stop
        }
      } else if (ctx.kind === "p" && c === "{") {
        ctx.depth++
        out += c
        i++
      } else if (ctx.kind === "p" && c === "}") {
        if (ctx.depth === 0) stack.pop()
        else ctx.depth--
        out += c
        i++
      } else if (ctx.kind === "a" && c === "(") {
        ctx.depth++
        out += c
        i++
      } else if (ctx.kind === "a" && c === ")") {
        if (ctx.depth > 0) {
          ctx.depth--
          out += c
          i++
        } else if (ctx.closer === "))" && next === ")") {
          stack.pop()
          out += "))"
          i += 2
        } else {
          unsure("a `)` that ends arithmetic unevenly")
          stack.pop()
          out += c
          i++
        }
      } else if (ctx.kind === "a" && c === "]" && ctx.closer === "]") {
        stack.pop()
        out += c
        i++
      } else {
        if (c === "\n" && pending.length > 0)
          unsure("a here-document whose body starts inside quotes or an expansion")
        out += c
        i++
      }
      continue
    }
    // Normal context (top level, $( ), backticks).
    if (c === "\\" && next !== undefined) {
      out += c + next
      i += 2
      wordStart = false
      continue
    }
    if (c === "'") {
      const end = text.indexOf("'", i + 1)
      const stop = end === -1 ? n : end + 1
      out += text.slice(i, stop)
      i = stop
      wordStart = false
      continue
    }
    if (c === "$" && next === "'") {
      let j = i + 2
      while (j < n && text[j] !== "'") j += text[j] === "\\" ? 2 : 1
      const stop = Math.min(n, j + 1)
      out += text.slice(i, stop)
      i = stop
      wordStart = false
      continue
    }
    if (c === "#" && wordStart) {
      let end = text.indexOf("\n", i)
      if (end === -1) end = n
      out += text.slice(i, end)
      i = end
      continue
    }
    if (c === '"') {
      stack.push({ kind: "d", depth: 0, closer: "" })
      out += c
      i++
      wordStart = false
      continue
    }
    if (c === "`") {
      if (ctx.kind === "b") stack.pop()
      else stack.push({ kind: "b", depth: 0, closer: "`" })
      out += c
      i++
      wordStart = false
      continue
    }
    if ((c === "$" && next === "(" && text[i + 2] === "(") || (c === "(" && next === "(" && wordStart)) {
      // Arithmetic: `<<` there is a shift, not a here-document.
      stack.push({ kind: "a", depth: 0, closer: "))" })
      out += c === "$" ? "$((" : "(("
      i += c === "$" ? 3 : 2
      wordStart = false
      continue
    }
    if (c === "$" && next === "[") {
      stack.push({ kind: "a", depth: 0, closer: "]" })
      out += "$["
      i += 2
      wordStart = false
      continue
    }
    if (c === "$" && next === "{") {
      stack.push({ kind: "p", depth: 0, closer: "}", quoted: false })
      out += "${"
      i += 2
      wordStart = false
      continue
    }
    if (c === "$" && next === "(") {
      stack.push({ kind: "n", depth: 0, closer: ")" })
      out += "$("
      i += 2
      wordStart = true
      continue
    }
    // A `case` inside `$(…)`: its patterns' `)` are not the substitution's end.
    if (wordStart && ctx.closer === ")" && text.startsWith("case", i) && !/[\w-]/.test(text[i + 4] ?? " "))
      unsure("a `case` inside `$(…)`")
    if (c === "(" && ctx.closer === ")") ctx.depth++
    if (c === ")" && ctx.closer === ")" && stack.length > 1) {
      if (ctx.depth === 0) stack.pop()
      else ctx.depth--
    }
    if (c === "<" && next === "<" && text[i + 2] === "<") {
      // A here-string.
      out += "<<<"
      i += 3
      wordStart = true
      continue
    }
    if (c === "<" && next === "<") {
      const parsed = readHeredocOperator(text, i)
      if (parsed !== undefined) {
        out += text.slice(i, parsed.end)
        i = parsed.end
        pending.push({ ...parsed.doc, level: stack.length })
        wordStart = false
        continue
      }
    }
    out += c
    i++
    if (c === "\n") {
      wordStart = true
      if (pending.length > 0) {
        // bash reads the bodies once the line that started them ends, outside any `$(…)`.
        if (pending.some((doc) => doc.level !== stack.length))
          unsure("a here-document whose body starts inside `$(…)`")
        readHeredocBodies()
      }
      continue
    }
    wordStart = /[\s;&|()<>]/.test(c)
  }
  return { text: out, uncertain }
}

const countTrailingBackslashes = (line: string): number => {
  let count = 0
  for (let k = line.length - 1; k >= 0 && line[k] === "\\"; k--) count++
  return count
}

const readHeredocOperator = (
  text: string,
  start: number
): { end: number; doc: { delimiter: string; quoted: boolean; strip: boolean } } | undefined => {
  let i = start + 2
  let strip = false
  if (text[i] === "-") {
    strip = true
    i++
  }
  while (text[i] === " " || text[i] === "\t") i++
  let delimiter = ""
  let quoted = false
  while (i < text.length && !/[\s;&|()<>]/.test(text[i]!)) {
    const c = text[i]!
    if (c === "'" || c === '"') {
      quoted = true
      const end = text.indexOf(c, i + 1)
      if (end === -1) return undefined
      delimiter += text.slice(i + 1, end)
      i = end + 1
    } else if (c === "\\") {
      quoted = true
      delimiter += text[i + 1] ?? ""
      i += 2
    } else {
      delimiter += c
      i++
    }
  }
  if (delimiter === "") return undefined
  return { end: i, doc: { delimiter, quoted, strip } }
}

// Control characters other than tab and newline, Unicode whitespace other than the ASCII
// space, zero-width and bidirectional controls, tag characters and variation selectors.
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00a0\u00ad\u061c\u115f\u1160\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufeff\uffa0\ufff9-\ufffb]|\u034f|\u17b4|\u17b5|\u180b|\u180c|\u180d|[\ufe00-\ufe0f]|[\u{e0000}-\u{e007f}]|[\u{e0100}-\u{e01ef}]/u

// PowerShell reads these as `-` and as quotes, tree-sitter does not.
const POWERSHELL_LOOKALIKES = /[\u2013\u2014\u2015\u2018\u2019\u201a\u201b\u201c\u201d\u201e]/u

/** Names the first invisible or control character of `text`, if it has one. */
export const invisibleCharacter = (text: string): string | undefined => {
  if (isPrintableAscii(text)) return undefined
  const match = INVISIBLE.exec(text)
  if (match === null) return undefined
  return describe(match[0])
}

// Tabs, newlines and printable ASCII: most commands, and none of them is invisible.
const isPrintableAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || code > 0x7e) return false
  }
  return true
}

/** Names the first character PowerShell reads as a dash or a quote although it is not one. */
export const powershellLookalike = (text: string): string | undefined => {
  if (isPrintableAscii(text)) return undefined
  const match = POWERSHELL_LOOKALIKES.exec(text)
  return match === null ? undefined : describe(match[0])
}

const describe = (char: string): string => {
  const code = char.codePointAt(0)!
  const names: Record<number, string> = { 0: "NUL", 13: "CR (carriage return)", 160: "NBSP", 8203: "ZWSP" }
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}${names[code] ? ` ${names[code]}` : ""}`
}

/** PowerShell's `-EncodedCommand`: base64 of UTF-16LE text. */
export const decodeEncodedCommand = (value: string): string | undefined => {
  const compact = value.replace(/\s+/g, "")
  if (compact.length === 0 || compact.length % 4 === 1 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact))
    return undefined
  const bytes = Buffer.from(compact, "base64")
  if (bytes.length === 0 || bytes.length % 2 === 1) return undefined
  return bytes.toString("utf16le")
}

/** A piece of a static word: its characters and whether they were quoted or escaped. */
export interface Segment {
  readonly text: string
  readonly quoted: boolean
}

/** The most words one brace expansion may produce before we give up on modelling it. */
export const BRACE_LIMIT = 256

/**
 * Bash brace expansion of a static word (`{a,b}`, `x{1..3}`), honouring quoting: only
 * unquoted braces and commas count. Returns `undefined` when the expansion would exceed
 * {@link BRACE_LIMIT} words.
 */
export const braceExpand = (segments: ReadonlyArray<Segment>): Array<string> | undefined => {
  // Flatten to characters marked quoted/unquoted.
  const chars: Array<{ c: string; q: boolean }> = []
  for (const s of segments) for (const c of s.text) chars.push({ c, q: s.quoted })
  const result = expandChars(chars, 0)
  return result
}

type Char = { c: string; q: boolean }

/**
 * Whether bash may pair the braces of a word otherwise than {@link braceExpand} does: unquoted
 * braces with quoted or escaped braces or commas among them (`{a\,b}'{'a,.env}` is `a,b}{a`
 * and `.env` to bash), or a first pair that expands nothing followed by more braces or commas.
 */
export const ambiguousBraces = (segments: ReadonlyArray<Segment>): boolean => {
  let open = false
  let close = false
  let quoted = false
  for (const s of segments)
    for (const c of s.text) {
      if (c !== "{" && c !== "}" && c !== ",") continue
      if (s.quoted) quoted = true
      else if (c === "{") open = true
      else if (c === "}") close = true
    }
  if (!open || !close) return false
  if (quoted) return true
  const chars: Array<Char> = []
  for (const s of segments) for (const c of s.text) chars.push({ c, q: s.quoted })
  const first = chars.findIndex((x) => x.c === "{" && !x.q)
  let level = 0
  for (let k = first + 1; k < chars.length; k++) {
    const c = chars[k]!.c
    if (c === "{") level++
    else if (c === "," && level === 0) return false
    else if (c === "}" && level-- === 0) {
      const inner = chars
        .slice(first + 1, k)
        .map((x) => x.c)
        .join("")
      if (expandSequence(inner) !== undefined) return false
      return chars.slice(k + 1).some((x) => x.c === "{" || x.c === "}" || x.c === ",")
    }
  }
  return false
}

const expandChars = (chars: ReadonlyArray<Char>, depth: number): Array<string> | undefined => {
  if (depth > 8) return undefined
  // Find the first unquoted "{" that has a matching "}" with a top-level "," or "..".
  for (let open = 0; open < chars.length; open++) {
    const ch = chars[open]!
    if (ch.q || ch.c !== "{") continue
    if (open > 0 && chars[open - 1]!.c === "$" && !chars[open - 1]!.q) continue
    let level = 0
    const commas: Array<number> = []
    let close = -1
    for (let k = open + 1; k < chars.length; k++) {
      const x = chars[k]!
      if (x.q) continue
      if (x.c === "{") level++
      else if (x.c === "}") {
        if (level === 0) {
          close = k
          break
        }
        level--
      } else if (x.c === "," && level === 0) commas.push(k)
    }
    if (close === -1) continue
    const prefix = chars.slice(0, open)
    const suffix = chars.slice(close + 1)
    let alternatives: Array<ReadonlyArray<Char>>
    if (commas.length > 0) {
      alternatives = []
      let from = open + 1
      for (const comma of [...commas, close]) {
        alternatives.push(chars.slice(from, comma))
        from = comma + 1
      }
    } else {
      const inner = chars.slice(open + 1, close)
      if (inner.some((x) => x.q)) continue
      const sequence = expandSequence(inner.map((x) => x.c).join(""))
      if (sequence === undefined) continue
      if (sequence === null) return undefined
      alternatives = sequence.map((s) => [...s].map((c) => ({ c, q: true })))
    }
    const out: Array<string> = []
    for (const alternative of alternatives) {
      const expanded = expandChars([...prefix, ...alternative, ...suffix], depth + 1)
      if (expanded === undefined) return undefined
      out.push(...expanded)
      if (out.length > BRACE_LIMIT) return undefined
    }
    return out
  }
  return [chars.map((x) => x.c).join("")]
}

// `1..5`, `a..e`, `1..10..2`; undefined when it is not a sequence, null when it is too long.
const expandSequence = (inner: string): Array<string> | undefined | null => {
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(inner)
  if (numeric) {
    const from = Number(numeric[1])
    const to = Number(numeric[2])
    const step = Math.abs(Number(numeric[3] ?? 1)) || 1
    const count = Math.floor(Math.abs(to - from) / step) + 1
    if (count > BRACE_LIMIT) return null
    const width =
      /^-?0\d/.test(numeric[1]!) || /^-?0\d/.test(numeric[2]!)
        ? Math.max(numeric[1]!.length, numeric[2]!.length)
        : 0
    const out: Array<string> = []
    for (let k = 0; k < count; k++) {
      const v = from <= to ? from + k * step : from - k * step
      out.push(width > 0 ? String(v).padStart(width, "0") : String(v))
    }
    return out
  }
  const alpha = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?$/.exec(inner)
  if (alpha) {
    const from = alpha[1]!.charCodeAt(0)
    const to = alpha[2]!.charCodeAt(0)
    const step = Math.abs(Number(alpha[3] ?? 1)) || 1
    const out: Array<string> = []
    for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step)
      out.push(String.fromCharCode(v))
    return out
  }
  return undefined
}

/**
 * PowerShell's line continuation, joined as PowerShell joins it: a backtick at the end of a
 * line (outside quotes, here-strings and comments) makes the newline a space, so a
 * separator it hides cannot split what the shell reads as one command (or the reverse).
 */
export const joinPowerShellContinuations = (text: string): string => {
  if (!text.includes("`\n") && !text.includes("`\r\n")) return text
  let out = ""
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]!
    if (c === "`") {
      if (text[i + 1] === "\n") {
        out += " "
        i += 2
        continue
      }
      if (text[i + 1] === "\r" && text[i + 2] === "\n") {
        out += " "
        i += 3
        continue
      }
      out += text.slice(i, i + 2)
      i += 2
      continue
    }
    if (c === "'" || c === "\u2018" || c === "\u2019") {
      // Verbatim string ('' is a quote inside it).
      let j = i + 1
      while (j < n) {
        if (text[j] === "'" && text[j + 1] === "'") j += 2
        else if (text[j] === "'") break
        else j++
      }
      out += text.slice(i, j + 1)
      i = j + 1
      continue
    }
    if (c === '"') {
      let j = i + 1
      while (j < n && text[j] !== '"') j += text[j] === "`" ? 2 : 1
      out += text.slice(i, j + 1)
      i = j + 1
      continue
    }
    if (
      c === "@" &&
      (text[i + 1] === "'" || text[i + 1] === '"') &&
      /^\r?\n/.test(text.slice(i + 2, i + 4))
    ) {
      const close = `\n${text[i + 1]}@`
      const end = text.indexOf(close, i + 2)
      const stop = end === -1 ? n : end + close.length
      out += text.slice(i, stop)
      i = stop
      continue
    }
    if (c === "<" && text[i + 1] === "#") {
      const end = text.indexOf("#>", i + 2)
      const stop = end === -1 ? n : end + 2
      out += text.slice(i, stop)
      i = stop
      continue
    }
    if (c === "#" && (i === 0 || /\s|;|\|/.test(text[i - 1]!))) {
      const end = text.indexOf("\n", i)
      const stop = end === -1 ? n : end
      out += text.slice(i, stop)
      i = stop
      continue
    }
    out += c
    i++
  }
  return out
}
