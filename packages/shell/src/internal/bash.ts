// Walks a tree-sitter-bash tree: every simple command anywhere, as words with quotes
// resolved, plus whatever the walk could not model. Node types outside the known set are
// reported, never skipped silently.
import type { RawAssignment, RawCommand, RawRedirect, WalkResult, Word } from "./model.ts"
import { emptyWalk } from "./model.ts"
import type { SyntaxNode } from "./syntax.ts"
import type { Segment } from "./text.ts"

interface Context {
  /** The home directory, looked up when first needed. */
  readonly home: () => string
  readonly source: string
  readonly out: WalkResult
  /** Redirections tree-sitter hung on a list or pipeline, by the id of the command bash gives them to. */
  readonly attached: Map<number, Array<RawRedirect>>
}

// Nodes whose children are simply walked.
const CONTAINERS = new Set([
  "program",
  "list",
  "pipeline",
  "compound_statement",
  "subshell",
  "do_group",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement",
  "case_item",
  "negated_command",
  "command_substitution",
  "process_substitution",
  "string",
  "translated_string",
  "concatenation",
  "arithmetic_expansion",
  "array",
  "binary_expression",
  "unary_expression",
  "ternary_expression",
  "postfix_expression",
  "parenthesized_expression",
  "test_command",
  "subscript",
  "heredoc_body",
  "heredoc_redirect",
  "herestring_redirect",
  "file_redirect",
  "brace_expression",
  "command_name"
])

// Leaves (and near-leaves) that carry no command.
const LEAVES = new Set([
  "word",
  "number",
  "raw_string",
  "ansi_c_string",
  "string_content",
  "simple_expansion",
  "variable_name",
  "special_variable_name",
  "file_descriptor",
  "heredoc_start",
  "heredoc_end",
  "heredoc_content",
  "comment",
  "regex",
  "extglob_pattern",
  "test_operator"
])

const RISKY_EXPANSION_OPERATORS = new Set(["@", "!"])

export const walkBash = (root: SyntaxNode, source: string, home: () => string): WalkResult => {
  const ctx: Context = {
    home,
    source,
    out: emptyWalk(),
    attached: new Map()
  }
  visit(root, ctx)
  return ctx.out
}

const visit = (node: SyntaxNode, ctx: Context): void => {
  const type = node.type
  if (node.isMissing) {
    ctx.out.problems.push(`the command is incomplete: tree-sitter expected ${describeMissing(node)}`)
    return
  }
  if (!node.isNamed) return
  switch (type) {
    case "command": {
      const built = buildCommand(node, ctx.attached.get(node.id) ?? [], ctx)
      ctx.out.commands.push(
        ctx.out.commands.length === 0 && isLeading(node) ? { ...built, leading: true } : built
      )
      visitChildren(node, ctx)
      return
    }
    case "redirected_statement": {
      const body = node.childForFieldName("body")
      const redirects = node.childrenForFieldName("redirect").flatMap((r) => redirectsOf(r, ctx))
      for (const child of node.namedChildren) {
        if (child.type === "ERROR") visit(child, ctx)
      }
      for (const r of node.childrenForFieldName("redirect")) visitChildren(r, ctx)
      if (body?.type === "command") {
        ctx.out.commands.push(buildCommand(body, redirects, ctx))
        visitChildren(body, ctx)
        return
      }
      // tree-sitter hangs `a && b > f` and `a | b > f` on the whole list; bash gives the
      // redirection to the last command.
      const last = body ? lastCommand(body) : undefined
      if (last) {
        ctx.attached.set(last.id, [...(ctx.attached.get(last.id) ?? []), ...redirects])
        visit(body!, ctx)
        return
      }
      if (body) visit(body, ctx)
      // A redirection of a group or loop: every command inside writes there. Judged as a
      // command of its own, after the body (so directory changes inside count).
      ctx.out.commands.push({
        source: node
          .childrenForFieldName("redirect")
          .map((r) => r.text)
          .join(" "),
        assignments: [],
        words: [],
        redirects,
        problems: []
      })
      return
    }
    case "declaration_command":
    case "unset_command":
      ctx.out.commands.push(buildDeclaration(node, ctx))
      visitChildren(node, ctx)
      return
    case "variable_assignment":
    case "variable_assignments": {
      // Inside a command or declaration the assignment belongs to it (already recorded).
      const parent = node.parent?.type
      if (parent === "command" || parent === "declaration_command" || parent === "variable_assignments") {
        visitChildren(node, ctx)
        return
      }
      const assignments = type === "variable_assignment" ? [node] : node.namedChildren
      ctx.out.commands.push({
        source: node.text,
        assignments: assignments
          .filter((a) => a.type === "variable_assignment")
          .map((a) => buildAssignment(a, ctx)),
        words: [],
        redirects: [],
        problems: []
      })
      visitChildren(node, ctx)
      return
    }
    case "function_definition": {
      const name = node.childForFieldName("name")
      if (name) ctx.out.functions.add(wordOf(name, ctx).value)
      visitChildren(node, ctx)
      return
    }
    case "expansion":
      checkExpansion(node, ctx)
      visitChildren(node, ctx)
      return
    case "ERROR":
      ctx.out.problems.push(`tree-sitter could not parse \`${clip(node.text)}\``)
      ctx.out.errors.push(node.text)
      visitChildren(node, ctx)
      return
    default:
      if (CONTAINERS.has(type)) {
        visitChildren(node, ctx)
        return
      }
      if (LEAVES.has(type)) {
        if (type === "simple_expansion") checkSimpleExpansion(node, ctx)
        return
      }
      ctx.out.problems.push(`unsupported shell construct ${type}: \`${clip(node.text)}\``)
      visitChildren(node, ctx)
  }
}

// Nothing runs before it and nothing encloses it but lists: \`cd x && …\`, \`cd x; …\`.
const isLeading = (node: SyntaxNode): boolean => {
  let current: SyntaxNode = node
  for (let parent = current.parent; parent !== null; current = parent, parent = parent.parent) {
    if (parent.type === "program" || parent.type === "list") {
      const first = parent.namedChildren.find((c: SyntaxNode) => c.type !== "comment")
      if (first?.id !== current.id) return false
      if (parent.type === "program") return true
    } else if (parent.type !== "redirected_statement") return false
  }
  return false
}

const lastCommand = (node: SyntaxNode): SyntaxNode | undefined => {
  let current: SyntaxNode | null = node
  while (current && (current.type === "list" || current.type === "pipeline")) {
    const children: Array<SyntaxNode> = current.namedChildren.filter((c: SyntaxNode) => c.type !== "comment")
    current = children[children.length - 1] ?? null
  }
  return current?.type === "command" ? current : undefined
}

const visitChildren = (node: SyntaxNode, ctx: Context): void => {
  for (const child of node.children) visit(child, ctx)
}

const describeMissing = (node: SyntaxNode): string => (node.type === "" ? "more input" : `\`${node.type}\``)

export const clip = (text: string, max = 60): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

const checkExpansion = (node: SyntaxNode, ctx: Context): void => {
  for (const child of node.children) {
    const type = child.type
    if (RISKY_EXPANSION_OPERATORS.has(type) && !child.isNamed) {
      ctx.out.problems.push(
        `the expansion \`${clip(node.text)}\` evaluates its value or names another variable`
      )
      return
    }
  }
}

// `$!`, `$$` are harmless; nothing to check for simple expansions today, but keep the hook.
const checkSimpleExpansion = (_node: SyntaxNode, _ctx: Context): void => {}

const buildCommand = (node: SyntaxNode, redirects: Array<RawRedirect>, ctx: Context): RawCommand => {
  const assignments: Array<RawAssignment> = []
  const words: Array<Word> = []
  const problems: Array<string> = []
  const all = [...redirects]
  for (const child of node.children) {
    const type = child.type
    switch (type) {
      case "variable_assignment":
        assignments.push(buildAssignment(child, ctx))
        break
      case "command_name": {
        const inner = child.firstChild
        if (inner) words.push(wordOf(inner, ctx))
        break
      }
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect":
        all.push(...redirectsOf(child, ctx))
        break
      case "ERROR":
        problems.push(`tree-sitter could not parse \`${clip(child.text)}\``)
        ctx.out.errors.push(child.text)
        break
      case "comment":
        break
      default:
        if (type === "$" || child.isNamed) words.push(wordOf(child, ctx))
    }
  }
  return { source: sourceOf(node, redirects), assignments, words, redirects: all, problems }
}

const sourceOf = (node: SyntaxNode, redirects: ReadonlyArray<RawRedirect>): string => {
  const parent = node.parent
  if (redirects.length > 0 && parent?.type === "redirected_statement") return parent.text.trim()
  if (redirects.length > 0) {
    return [
      node.text.trim(),
      ...redirects.map((r) => `${r.descriptor ?? ""}${r.operator}${r.target ? r.target.raw : ""}`)
    ].join(" ")
  }
  return node.text.trim()
}

const buildDeclaration = (node: SyntaxNode, ctx: Context): RawCommand => {
  const assignments: Array<RawAssignment> = []
  const words: Array<Word> = []
  for (const child of node.children) {
    if (!child.isNamed) {
      // The keyword (`export`, `local`, `declare`, `unset`, …).
      if (words.length === 0) words.push(wordOf(child, ctx))
      continue
    }
    if (child.type === "variable_assignment") {
      const assignment = buildAssignment(child, ctx)
      assignments.push(assignment)
      const text = `${assignment.name}=${assignment.value.value}`
      words.push({ ...assignment.value, value: text, raw: child.text, path: undefined })
    } else if (child.type !== "comment") {
      words.push(wordOf(child, ctx))
    }
  }
  return {
    source: node.text.trim(),
    assignments: [],
    words,
    redirects: [],
    problems: [],
    declared: assignments
  }
}

const buildAssignment = (node: SyntaxNode, ctx: Context): RawAssignment => {
  const name = node.childForFieldName("name")
  const value = node.childForFieldName("value")
  const nameText = name?.type === "variable_name" ? name.text : (name?.text ?? "")
  if (name?.type === "subscript") {
    ctx.out.problems.push(`the array assignment \`${clip(node.text)}\` evaluates its index`)
  }
  return {
    name: nameText,
    value: value
      ? wordOf(value, ctx, true)
      : { value: "", raw: "", isStatic: true, path: "", glob: false, segments: [] }
  }
}

// A heredoc operator can carry file redirects of the same command (`cat <<EOF > f`).
const redirectsOf = (node: SyntaxNode, ctx: Context): Array<RawRedirect> => {
  const own = buildRedirect(node, ctx)
  if (node.type !== "heredoc_redirect") return [own]
  const nested = node.namedChildren
    .filter((c) => c.type === "file_redirect")
    .map((c) => buildRedirect(c, ctx))
  return [own, ...nested]
}

const buildRedirect = (node: SyntaxNode, ctx: Context): RawRedirect => {
  const descriptorNode = node.childForFieldName("descriptor")
  const descriptor = descriptorNode?.text
  if (node.type === "heredoc_redirect") {
    // A file redirect can hang off the heredoc operator (`cat <<EOF > f`); the walker
    // records it as a separate redirect of the same command.
    const start = node.namedChildren.find((c) => c.type === "heredoc_start")
    const operator = node.children.find((c) => !c.isNamed)?.type ?? "<<"
    return {
      operator,
      descriptor,
      target: start
        ? { value: start.text, raw: start.text, isStatic: true, path: undefined, glob: false }
        : undefined,
      access: "heredoc"
    }
  }
  if (node.type === "herestring_redirect") {
    const target = node.namedChildren.find((c) => c.type !== "file_descriptor")
    return {
      operator: "<<<",
      descriptor,
      target: target ? wordOf(target, ctx) : undefined,
      access: "herestring"
    }
  }
  let operator = ""
  for (const child of node.children) {
    if (!child.isNamed) {
      operator = child.type
      break
    }
  }
  const destinations = node.childrenForFieldName("destination")
  const destination = destinations[0]
  const target = destination ? wordOf(destination, ctx) : undefined
  if (destinations.length > 1) {
    ctx.out.problems.push(`the redirection \`${clip(node.text)}\` has more than one target`)
  }
  return { operator, descriptor, target, access: redirectAccess(operator, target) }
}

const redirectAccess = (operator: string, target: Word | undefined): RawRedirect["access"] => {
  if (operator === "<&-" || operator === ">&-") return "duplicate"
  if (operator === ">&" || operator === "<&") {
    // `>&2` duplicates a descriptor; `>&file` (a non-number) is bash's `&>file`.
    if (target && /^(\d+|-)$/.test(target.value)) return "duplicate"
    return operator === ">&" ? "write" : "read"
  }
  if (operator === "<") return "read"
  if (operator === "<>") return "write"
  return "write"
}

type Part =
  | { readonly kind: "text"; readonly text: string; readonly quoted: boolean }
  | { readonly kind: "dynamic"; readonly raw: string; readonly pathValue: string | undefined }

/** Resolves a word node: quotes removed where static, `$HOME`/`$PWD`/`~` known for paths. */
export const wordOf = (node: SyntaxNode, ctx: Context, assignment = false): Word => {
  if (node.type === "word") {
    const text = node.text
    if (!text.includes("\\")) return plainWord(text, ctx, assignment)
  }
  const parts: Array<Part> = []
  collect(node, parts, ctx)
  let isStatic = true
  let glob = false
  let pathKnown = true
  let value = ""
  let path = ""
  const segments: Array<Segment> = []
  parts.forEach((part, index) => {
    if (part.kind === "dynamic") {
      isStatic = false
      if (part.pathValue === undefined) pathKnown = false
      else path += part.pathValue
      return
    }
    let text = part.text
    if (!part.quoted) {
      if (hasGlobCharacter(text)) glob = true
      if (index === 0 && text.startsWith("~")) {
        const tilde = expandTilde(text, ctx.home())
        if (tilde === undefined) pathKnown = false
        else text = tilde
      } else if (assignment && text.includes(":~")) {
        text = text.replaceAll(":~/", `:${ctx.home()}/`)
      }
    }
    value += part.text
    path += text
    segments.push({ text: part.text, quoted: part.quoted })
  })
  if (!isStatic) value = node.text
  return {
    value,
    raw: node.text,
    isStatic,
    path: pathKnown ? path : undefined,
    glob,
    ...(isStatic ? { segments } : {})
  }
}

// A word with no quote, escape or expansion: most of them, read without splitting.
const plainWord = (text: string, ctx: Context, assignment: boolean): Word => {
  let path: string | undefined = text
  if (text.startsWith("~")) path = expandTilde(text, ctx.home())
  else if (assignment && text.includes(":~")) path = text.replaceAll(":~/", `:${ctx.home()}/`)
  return {
    value: text,
    raw: text,
    isStatic: true,
    path,
    glob: hasGlobCharacter(text),
    segments: [{ text, quoted: false }]
  }
}

const expandTilde = (text: string, home: string): string | undefined => {
  const match = /^~([^/]*)(.*)$/s.exec(text)
  if (!match) return text
  const user = match[1]!
  if (user === "") return home + match[2]!
  if (user === "+") return `.${match[2]!}`
  return undefined
}

const collect = (node: SyntaxNode, parts: Array<Part>, ctx: Context): void => {
  const type = node.type
  switch (type) {
    case "word":
    case "extglob_pattern":
      pushUnquoted(node.text, parts)
      return
    case "number":
    case "brace_expression":
      parts.push({ kind: "text", text: node.text, quoted: false })
      return
    case "raw_string":
      parts.push({ kind: "text", text: node.text.slice(1, -1), quoted: true })
      return
    case "ansi_c_string": {
      // Bash cuts `$'…'` at a NUL (`$'rm\x00x'` runs rm), and so does every program's argv.
      const decoded = decodeAnsiC(node.text.slice(2, -1))
      const nul = decoded.indexOf("\0")
      if (nul !== -1) {
        ctx.out.problems.push(`\`${clip(node.text)}\` holds a NUL character, which cuts the word short`)
      }
      parts.push({ kind: "text", text: nul === -1 ? decoded : decoded.slice(0, nul), quoted: true })
      return
    }
    case "translated_string": {
      const inner = node.namedChildren[0]
      if (inner) collect(inner, parts, ctx)
      return
    }
    case "string":
      collectString(node, parts, ctx)
      return
    case "concatenation":
      for (const child of node.children) {
        // `$"…"` parses as `$` followed by a string: the `$` is not part of the value.
        if (child.type === "$" && child.nextSibling?.type === "string") continue
        collect(child, parts, ctx)
      }
      return
    case "simple_expansion":
    case "expansion": {
      const known = knownVariable(node, ctx.home())
      parts.push({ kind: "dynamic", raw: node.text, pathValue: known })
      return
    }
    default:
      if (!node.isNamed) {
        parts.push({ kind: "text", text: node.text, quoted: false })
        return
      }
      parts.push({ kind: "dynamic", raw: node.text, pathValue: undefined })
  }
}

const collectString = (node: SyntaxNode, parts: Array<Part>, ctx: Context): void => {
  const start = node.startIndex + 1
  const end = node.endIndex - 1
  const source = ctx.source
  let cursor = start
  const literal = (from: number, to: number) => {
    if (to > from) parts.push({ kind: "text", text: unescapeDouble(source.slice(from, to)), quoted: true })
  }
  for (const child of node.children) {
    const type = child.type
    if (type === "string_content" || !child.isNamed) continue
    literal(cursor, child.startIndex)
    collect(child, parts, ctx)
    cursor = child.endIndex
  }
  literal(cursor, end)
}

const pushUnquoted = (text: string, parts: Array<Part>): void => {
  if (!text.includes("\\")) {
    if (text) parts.push({ kind: "text", text, quoted: false })
    return
  }
  let buffer = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\" && i + 1 < text.length) {
      if (buffer) parts.push({ kind: "text", text: buffer, quoted: false })
      buffer = ""
      parts.push({ kind: "text", text: text[i + 1]!, quoted: true })
      i++
      continue
    }
    buffer += c
  }
  if (buffer) parts.push({ kind: "text", text: buffer, quoted: false })
}

const knownVariable = (node: SyntaxNode, home: string): string | undefined => {
  const names = node.namedChildren
  if (names.length !== 1 || names[0]!.type !== "variable_name") return undefined
  if (node.type === "expansion" && node.childCount !== 3) return undefined
  const name = names[0]!.text
  if (name === "HOME") return home
  if (name === "PWD") return "."
  return undefined
}

const hasGlobCharacter = (text: string): boolean =>
  text.includes("*") || text.includes("?") || text.includes("[")

const unescapeDouble = (text: string): string =>
  !text.includes("\\") ? text : text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c))

const decodeAnsiC = (text: string): string =>
  text.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (_, e: string) => {
      const head = e[0]!
      if (head === "x" || head === "u" || head === "U")
        return String.fromCodePoint(Number.parseInt(e.slice(1), 16))
      if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(e, 8) & 0xff)
      if (head === "c") return String.fromCharCode(e.charCodeAt(1) & 0x1f)
      const map: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        a: "\x07",
        b: "\b",
        e: "\x1b",
        E: "\x1b",
        f: "\f",
        v: "\v"
      }
      return map[head] ?? head
    }
  )
