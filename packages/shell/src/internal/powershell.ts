// Walks a tree-sitter-powershell tree: every command anywhere (pipelines, chains, script
// blocks, sub-expressions, strings), as words, plus whatever the walk could not model.
import { clip } from "./bash.ts"
import { hiddenPowerShellExpansion, POWERSHELL_SYNTAX } from "./grammar.ts"
import type { RawCommand, RawRedirect, WalkResult, Word } from "./model.ts"
import { emptyWalk } from "./model.ts"
import type { SyntaxNode } from "./syntax.ts"

interface Context {
  /** The home directory, looked up when first needed. */
  readonly home: () => string
  readonly source: string
  readonly out: WalkResult
}

// Members proved inert: string methods called on a string literal, and `[math]` functions.
const STRING_METHODS: ReadonlySet<string> = new Set([
  "toupper",
  "tolower",
  "toupperinvariant",
  "tolowerinvariant",
  "trim",
  "trimstart",
  "trimend",
  "split",
  "replace",
  "substring",
  "contains",
  "startswith",
  "endswith",
  "indexof",
  "lastindexof",
  "padleft",
  "padright",
  "tostring",
  "tochararray",
  "equals",
  "normalize"
])
const MATH_METHODS: ReadonlySet<string> = new Set([
  "abs",
  "max",
  "min",
  "round",
  "floor",
  "ceiling",
  "truncate",
  "pow",
  "sqrt",
  "log",
  "log10",
  "exp",
  "sign"
])

export const walkPowerShell = (root: SyntaxNode, source: string, home: () => string): WalkResult => {
  const ctx: Context = { home, source, out: emptyWalk() }
  visit(root, ctx)
  return ctx.out
}

const visit = (node: SyntaxNode, ctx: Context): void => {
  if (node.isMissing) {
    ctx.out.problems.push(`the command is incomplete: tree-sitter expected \`${node.type}\``)
    return
  }
  if (!node.isNamed) return
  if (POWERSHELL_SYNTAX.get(node.type) === "inert") {
    if ((node.type === "generic_token" || node.type === "command_name") && /[<>]/.test(node.text))
      // `6>.env` (the information stream) and `x>.env` (PowerShell ends a bare word at `>`)
      // are redirections the grammar reads as a word; so is `>.env 'x'` read as a command
      // named `>.env`.
      ctx.out.problems.push(`\`${clip(node.text)}\` holds a redirection the parser read as a word`)
    if (node.type === "generic_token" || node.type === "command_name") {
      const found = hiddenPowerShellExpansion(ctx.source, node.startIndex, node.endIndex)
      if (found !== undefined)
        ctx.out.problems.push(
          `\`${clip(node.text)}\` still holds \`${found}\`, which PowerShell expands but the parser left as text`
        )
    }
    return
  }
  switch (node.type) {
    case "command": {
      const built = buildCommand(node, ctx)
      ctx.out.commands.push(
        ctx.out.commands.length === 0 && isLeading(node) ? { ...built, leading: true } : built
      )
      visitChildren(node, ctx)
      return
    }
    case "ERROR": {
      ctx.out.problems.push(`tree-sitter could not parse \`${clip(node.text)}\``)
      ctx.out.errors.push(node.text)
      const salvaged = salvage(node, ctx)
      if (salvaged) ctx.out.commands.push(salvaged)
      visitChildren(node, ctx)
      return
    }
    case "function_statement": {
      const name = node.namedChildren.find((c) => c.type === "function_name")
      if (name) ctx.out.functions.push(name.text.toLowerCase())
      visitChildren(node, ctx)
      return
    }
    case "invokation_expression":
      // `.Method(…)` / `::Method(…)` runs arbitrary .NET code unless the member is proved inert.
      if (
        !inertInvocation(
          node.namedChildren[0],
          memberOf(node),
          node.children.some((c) => c.type === "::")
        )
      )
        ctx.out.problems.push(`calls a method (\`${clip(node.text)}\`), which can run anything`)
      visitChildren(node, ctx)
      return
    case "argument_list":
      // In argument mode `$x.Method(…)` is a call too: a member access followed by arguments.
      if (node.parent?.type === "command_elements") {
        const target = node.parent.children[node.index - 1]
        const access = target ? memberAccessOf(target) : undefined
        if (
          access === undefined ||
          !inertInvocation(
            access.namedChildren[0],
            memberOf(access),
            access.children.some((c) => c.type === "::")
          )
        ) {
          ctx.out.problems.push(
            `calls a method (\`${clip(`${target?.text ?? ""}${node.text}`)}\`) in an argument, which can run anything`
          )
        }
      }
      visitChildren(node, ctx)
      return
    case "stop_parsing":
      ctx.out.problems.push(
        `\`--%\` passes the rest of the line to the program unparsed: \`${clip(node.text)}\``
      )
      return
    case "assignment_expression":
      assignment(node, ctx)
      visitChildren(node, ctx)
      return
    case "redirections":
      // `'x' > .git/config`, `$null > f`, `(Get-Content a) > b`: an expression's output is
      // redirected as a command's is (about_Redirection). A command of its own with no
      // words, as bash's `> f`: its redirects are judged.
      visitChildren(node, ctx)
      ctx.out.commands.push(expressionRedirects(node, ctx))
      return
    case "variable": {
      if (node.endIndex - node.startIndex >= 17 && /^\$\{?executioncontext\b/i.test(node.text))
        ctx.out.problems.push(`\`${clip(node.text)}\` reaches the engine's own command invoker`)
      const problem = variableProblem(node.text)
      if (problem !== undefined) ctx.out.problems.push(problem)
      visitChildren(node, ctx)
      return
    }
    default: {
      const kind = POWERSHELL_SYNTAX.get(node.type)
      if (kind === "walked") {
        visitChildren(node, ctx)
        return
      }

      ctx.out.problems.push(
        `the walk does not model the syntax node \`${node.type}\`: \`${clip(node.text)}\``
      )
      visitChildren(node, ctx)
    }
  }
}

// Scopes and drives a `$drive:name` variable may name without touching a file: `$env:X`,
// `$global:x`, `$function:f` (reading them is inert; writing one is judged elsewhere).
const VARIABLE_SCOPES: ReadonlySet<string> = new Set([
  "env",
  "global",
  "local",
  "script",
  "private",
  "using",
  "variable",
  "workflow",
  "function",
  "alias"
])

// `${c:\x}`, `$c:x`: the content of a file through its provider drive, read (or written) as
// a variable. `$PSDefaultParameterValues` gives later cmdlets parameters nobody wrote.
const variableProblem = (text: string): string | undefined => {
  const name = /^\$\{?([^}]*)\}?$/s.exec(text)?.[1] ?? ""
  const colon = name.indexOf(":")
  const drive = colon === -1 ? "" : name.slice(0, colon).toLowerCase()
  const bare = colon === -1 || VARIABLE_SCOPES.has(drive) ? name.slice(colon + 1) : undefined
  if (bare === undefined)
    return `\`${clip(text)}\` reads or writes an item of the \`${drive}:\` drive (a file's content) as a variable`
  if (bare.toLowerCase() === "psdefaultparametervalues")
    return `\`${clip(text)}\` sets parameters of later commands that the text does not show`
  return undefined
}

const memberOf = (node: SyntaxNode): string =>
  node.namedChildren.find((c) => c.type === "member_name")?.text.toLowerCase() ?? ""

// `a, $x.M` as a command argument: array_literal_expression > unary_expression > member_access.
const memberAccessOf = (node: SyntaxNode): SyntaxNode | undefined => {
  let current: SyntaxNode | undefined = node
  while (current !== undefined && current.type !== "member_access") {
    const named: Array<SyntaxNode> = current.namedChildren
    if (current.type !== "array_literal_expression" && current.type !== "unary_expression") return undefined
    current = named[named.length - 1]
  }
  return current
}

const inertInvocation = (target: SyntaxNode | undefined, member: string, isStatic: boolean): boolean => {
  if (target === undefined) return false
  if (isStatic)
    return (
      target.type === "type_literal" &&
      /^\[\s*(system\.)?math\s*\]$/i.test(target.text) &&
      MATH_METHODS.has(member)
    )
  const literal =
    target.type === "string_literal" &&
    target.namedChildren.every((c) => c.type === "verbatim_string_characters")
  return literal && STRING_METHODS.has(member)
}

// The first command of the program, enclosed only by statement lists and pipeline chains.
const isLeading = (node: SyntaxNode): boolean => {
  let current: SyntaxNode = node
  for (let parent = current.parent; parent !== null; current = parent, parent = parent.parent) {
    if (parent.type === "program") return true
    if (parent.type !== "statement_list" && parent.type !== "pipeline" && parent.type !== "pipeline_chain")
      return false
    const first = parent.namedChildren.find(
      (c: SyntaxNode) => c.type !== "comment" && c.type !== "empty_statement"
    )
    if (first?.id !== current.id) return false
  }
  return false
}

const visitChildren = (node: SyntaxNode, ctx: Context): void => {
  for (const child of node.children) visit(child, ctx)
}

// `$env:NAME = value` sets the environment of every later command.
const assignment = (node: SyntaxNode, ctx: Context): void => {
  const left = node.namedChildren.find((c) => c.type === "left_assignment_expression")
  const target = left?.descendantsOfType("variable")[0]
  // `${function:Get-ChildItem} = { … }` defines a command under a name rules allow.
  if (target && /^\$\{?(function|alias):/i.test(target.text))
    ctx.out.problems.push(
      `\`${clip(target.text)}\` defines a command: later names may not mean what they say`
    )
  const match = target ? /^\$\{?env:([A-Za-z_][A-Za-z0-9_]*)\}?$/i.exec(target.text) : null
  if (!match) return
  const value = node.childForFieldName("value")
  ctx.out.commands.push({
    source: node.text.trim(),
    assignments: [{ name: match[1]!, value: value ? wordOf(unwrapExpression(value), ctx) : dynamicWord("") }],
    words: [],
    redirects: [],
    problems: []
  })
}

// An expression that is only its one operand (`'x'` parses as a pipeline of a chain of …).
const WRAPPING: ReadonlySet<string> = new Set([
  "pipeline",
  "pipeline_chain",
  "logical_expression",
  "bitwise_expression",
  "comparison_expression",
  "additive_expression",
  "multiplicative_expression",
  "format_expression",
  "range_expression",
  "array_literal_expression",
  "unary_expression"
])
const unwrapExpression = (node: SyntaxNode): SyntaxNode => {
  let current = node
  while (WRAPPING.has(current.type) && current.namedChildren.length === 1) current = current.namedChildren[0]!
  return current
}

const buildCommand = (node: SyntaxNode, ctx: Context): RawCommand => {
  const words: Array<Word> = []
  const redirects: Array<RawRedirect> = []
  const problems: Array<string> = []
  let callOperator: "&" | "." | undefined
  for (const child of node.children) {
    switch (child.type) {
      case "command_invokation_operator":
        callOperator = child.text.trim() === "." ? "." : "&"
        break
      case "command_name":
      case "path_command_name":
        words.push(bareword(child.text, ctx))
        break
      case "command_name_expr": {
        const inner = child.namedChildren[0]
        words.push(inner ? wordOf(inner, ctx) : dynamicWord(child.text))
        break
      }
      case "command_elements":
        for (const element of child.namedChildren) {
          if (element.type === "command_argument_sep" && element.text === ":") {
            const last = words.at(-1)
            if (last?.parameter === true) words[words.length - 1] = { ...last, joined: true }
            continue
          }
          if (element.type === "command_argument_sep" || element.type === "comment") continue
          if (element.type === "redirection") {
            redirects.push(buildRedirect(element, ctx))
            continue
          }
          if (element.type === "stop_parsing") {
            problems.push(`\`--%\` passes the rest of the line to the program unparsed`)
            words.push(dynamicWord(element.text))
            continue
          }
          if (element.type === "ERROR") continue
          const glued =
            element.type === "generic_token" ? /^(?:[1-6*])?>>?([^>&].*)$/s.exec(element.text) : null
          if (glued !== null) {
            // `x >.env`, `x 6>.env`: a redirection the grammar read as a word (noted in
            // visit); its file is written all the same.
            redirects.push({
              operator: element.text.slice(0, element.text.length - glued[1]!.length),
              descriptor: undefined,
              target: bareword(glued[1]!, ctx),
              access: "write"
            })
            continue
          }
          if (element.type === "generic_token" && element.text.includes(",")) {
            // tree-sitter reads `x,.env` as `x` and `,.env`; PowerShell passes the array `x`, `.env`.
            for (const piece of splitArray(element.text)) words.push(bareword(piece, ctx))
            continue
          }
          words.push(wordOf(element, ctx))
        }
        break
      default:
        break
    }
  }
  const piped = node.index > 0 && node.parent?.children[node.index - 1]?.type === "|"
  // The text of the command whose output comes in (Select-String reads files only when
  // that command emits file items).
  const pipedFrom = piped ? node.parent?.children[node.index - 2]?.text.trim() : undefined
  const base = {
    source: node.text.trim(),
    assignments: [],
    words,
    redirects,
    problems,
    ...(piped ? { piped } : {}),
    ...(pipedFrom !== undefined ? { pipedFrom } : {})
  }
  return callOperator ? { ...base, callOperator } : base
}

// The elements of a bare array argument (`a,b`), a backtick-escaped comma kept.
const splitArray = (text: string): Array<string> => {
  const out: Array<string> = []
  let current = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "`" && i + 1 < text.length) {
      current += c + text[i + 1]
      i++
    } else if (c === ",") {
      if (current !== "") out.push(current)
      current = ""
    } else current += c
  }
  if (current !== "") out.push(current)
  return out
}

// Tokens of an ERROR node that starts like a command (`git diff --` in PowerShell): judged
// as the command they spell, on top of the note the ERROR itself produces.
const salvage = (node: SyntaxNode, ctx: Context): RawCommand | undefined => {
  const children = node.children
  const start = children.findIndex((c) => c.type === "command_name")
  if (start === -1) return undefined
  const words: Array<Word> = []
  for (const child of children.slice(start)) {
    if (child.type === "command_argument_sep") continue
    if (child.type === "command_name" || child.type === "generic_token" || child.type === "simple_name") {
      words.push(bareword(child.text, ctx))
    } else if (child.type === "command_parameter" || child.type === "--") {
      words.push({ ...bareword(child.text, ctx), parameter: true })
    } else break
  }
  return {
    source: node.text.trim(),
    assignments: [],
    words,
    redirects: [],
    problems: []
  }
}

// The redirections after an expression (a pipeline element that is not a command).
const expressionRedirects = (node: SyntaxNode, ctx: Context): RawCommand => {
  const redirects: Array<RawRedirect> = []
  const problems: Array<string> = []
  for (const child of node.namedChildren) {
    if (child.type === "redirection") redirects.push(buildRedirect(child, ctx))
    else if (child.type !== "comment")
      problems.push(`the walk does not model \`${clip(child.text)}\` among redirections`)
  }
  const start = node.parent?.namedChildren[0]?.startIndex ?? node.startIndex
  return {
    source: ctx.source.slice(start, node.endIndex).trim(),
    assignments: [],
    words: [],
    redirects,
    problems
  }
}

const buildRedirect = (node: SyntaxNode, ctx: Context): RawRedirect => {
  const merging = node.namedChildren.find((c) => c.type === "merging_redirection_operator")
  if (merging)
    return { operator: merging.text, descriptor: undefined, target: undefined, access: "duplicate" }
  const operator = node.namedChildren.find((c) => c.type === "file_redirection_operator")?.text ?? ">"
  const file = node.namedChildren.find((c) => c.type === "redirected_file_name")
  const element = file?.namedChildren.find((c) => c.type !== "command_argument_sep")
  // PowerShell reads the file name as a bare word (`'x' >.git/config`), which the grammar
  // may take for an expression (`.git` a member): a name of plain characters is that word.
  const text = file?.text.replace(/^\s+/, "") ?? ""
  const plain = element !== undefined && element.type !== "generic_token" && /^[\w./\\:~+-]+$/.test(text)
  const target = plain ? bareword(text, ctx) : element ? wordOf(element, ctx) : undefined
  // The operator carries its stream number (`2>`, `*>`).
  return { operator, descriptor: undefined, target, access: operator.startsWith("<") ? "read" : "write" }
}

const dynamicWord = (raw: string): Word => ({
  value: raw,
  raw,
  isStatic: false,
  path: undefined,
  glob: false
})

const KNOWN_HOME = /^\$(?:\{)?(?:env:)?(home|userprofile)\}?$/i

const variableWord = (text: string, ctx: Context): Word => {
  if (KNOWN_HOME.test(text)) return { ...dynamicWord(text), path: ctx.home() }
  if (/^\$\{?pwd\}?$/i.test(text)) return { ...dynamicWord(text), path: "." }
  return dynamicWord(text)
}

// A bare token: backtick escapes resolved; `$` inside makes it dynamic; `~` is home.
const bareword = (text: string, ctx: Context): Word => {
  if (text.includes("$")) return dynamicWord(text)
  // `` .`env ``: whether a bare word turns `` `e ``, `` `n ``, `` `u{…} `` into control
  // characters as a string does (or keeps the letter) is read differently by PowerShell's
  // documentation and its tokenizer: a path spelt so is not judged by either guess.
  if (/`[0abefnrtvu]/.test(text)) return dynamicWord(text)
  const value = unescapeBacktick(text)
  const glob = /[*?[]/.test(value)
  let path: string | undefined = value
  if (value === "~" || value.startsWith("~/") || value.startsWith("~\\")) path = ctx.home() + value.slice(1)
  return { value, raw: text, isStatic: true, path, glob }
}

const BACKTICK_ESCAPES: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v"
}

const unescapeBacktick = (text: string): string =>
  text.includes("`")
    ? text.replace(/`u\{([0-9a-fA-F]{1,6})\}|`(.)/gs, (_, hex: string | undefined, c: string) => {
        if (hex === undefined) return BACKTICK_ESCAPES[c] ?? c
        const code = Number.parseInt(hex, 16)
        return code <= 0x10ffff ? String.fromCodePoint(code) : ""
      })
    : text

export const wordOf = (node: SyntaxNode, ctx: Context): Word => {
  switch (node.type) {
    case "generic_token":
    case "command_name":
    case "simple_name":
      return bareword(node.text, ctx)
    case "command_parameter":
      return node.text.endsWith(":")
        ? { ...bareword(node.text.slice(0, -1), ctx), parameter: true, joined: true }
        : { ...bareword(node.text, ctx), parameter: true }
    case "array_literal_expression": {
      const items = node.namedChildren.filter((c) => c.type !== "command_argument_sep")
      if (items.length === 1) return wordOf(items[0]!, ctx)
      const words = items.map((item) => wordOf(item, ctx))
      const isStatic = words.every((w) => w.isStatic)
      return {
        value: isStatic ? words.map((w) => w.value).join(",") : node.text,
        raw: node.text,
        isStatic,
        path: undefined,
        glob: false,
        items: words
      }
    }
    case "unary_expression":
    case "string_literal": {
      const only = node.namedChildren
      if (only.length === 1) return wordOf(only[0]!, ctx)
      return dynamicWord(node.text)
    }
    case "expression_with_unary_operator": {
      const match = /^-\s*(\d+(?:\.\d+)?)$/.exec(node.text)
      return match ? literal(`-${match[1]}`) : dynamicWord(node.text)
    }
    case "integer_literal":
    case "real_literal":
      return literal(node.text)
    case "verbatim_string_characters":
    case "verbatim_here_string_characters":
      return literal(verbatim(node.text))
    case "expandable_string_literal":
    case "expandable_here_string_literal":
      return expandable(node, ctx)
    case "variable":
      return variableWord(node.text, ctx)
    case "script_block_expression":
      return { ...dynamicWord(node.text), scriptBlock: true }
    default:
      return dynamicWord(node.text)
  }
}

// A cmdlet expands wildcards in its -Path itself, quoted or not (`Get-Content '.e*'`).
const literal = (value: string): Word => ({
  value,
  raw: value,
  isStatic: true,
  path: value,
  glob: /[*?[]/.test(value)
})

const verbatim = (text: string): string => {
  if (text.startsWith("@'"))
    return text
      .slice(2, -2)
      .replace(/^\r?\n/, "")
      .replace(/\r?\n$/, "")
  return text.slice(1, -1).replaceAll("''", "'")
}

const expandable = (node: SyntaxNode, ctx: Context): Word => {
  const here = node.text.startsWith('@"')
  const open = here ? 2 : 1
  const start = node.startIndex + open
  const end = node.endIndex - open
  let value = ""
  let path: string | undefined = ""
  let isStatic = true
  let cursor = start
  const text = (from: number, to: number) => {
    if (to <= from) return
    const piece = unescapeBacktick(ctx.source.slice(from, to).replaceAll('""', '"'))
    value += piece
    if (path !== undefined) path += piece
  }
  for (const child of node.namedChildren) {
    text(cursor, child.startIndex)
    const inner = child.type === "variable" ? variableWord(child.text, ctx) : dynamicWord(child.text)
    isStatic = false
    path = path !== undefined && inner.path !== undefined ? path + inner.path : undefined
    cursor = child.endIndex
  }
  text(cursor, end)
  if (here) value = value.replace(/^\r?\n/, "").replace(/\r?\n$/, "")
  return {
    value: isStatic ? value : node.text,
    raw: node.text,
    isStatic,
    path: isStatic ? value : path,
    glob: isStatic && /[*?[]/.test(value)
  }
}
