// Walks a tree-sitter-bash tree: every simple command anywhere, as words with quotes
// resolved, plus whatever the walk could not model. Node types outside the known set are
// reported, never skipped silently.

import { BASH_SYNTAX, hiddenBashExpansion } from "./grammar.ts"
import type { RawAssignment, RawCommand, RawRedirect, WalkResult, Word } from "./model.ts"
import { emptyWalk } from "./model.ts"
import type { SyntaxNode } from "./syntax.ts"
import type { Segment } from "./text.ts"

interface Context {
  /** The home directory, looked up when first needed. */
  readonly home: () => string
  readonly source: string
  readonly out: WalkResult
  /** Redirections tree-sitter hung on a list or pipeline, by the id of the command bash gives them to (made when the first is). */
  attached: Map<number, Array<RawRedirect>> | undefined
  readonly root: SyntaxNode
  /** Inside an arithmetic context (nested count): names there are evaluated. */
  arithmetic: number
  /** Inside `[[ … ]]`, where `-eq` and its kin evaluate their operands. */
  doubleBracket: number
  /** Inside the body of a here-document whose delimiter is quoted (nothing expands). */
  literalHeredoc: boolean
  /** Names the text only ever assigns integers, computed when first needed. */
  integers: Set<string> | undefined
  /** Names the text declares associative (`declare -A m`), computed when first needed. */
  associative: Set<string> | undefined
}

// Leaves whose text the shell still expands: scanned for expansion syntax left inside them.
const SCANNED_UNQUOTED: ReadonlySet<string> = new Set(["word", "extglob_pattern", "regex", "number"])
const SCANNED_QUOTED: ReadonlySet<string> = new Set(["string_content", "heredoc_content"])
const ARITHMETIC_TEST = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"])
// Variables the shell itself keeps as integers.
const SHELL_INTEGERS: ReadonlySet<string> = new Set([
  "#",
  "?",
  "$",
  "!",
  "RANDOM",
  "SECONDS",
  "LINENO",
  "BASHPID",
  "PPID",
  "UID",
  "EUID",
  "SRANDOM"
])
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
const ARITHMETIC_NUMBER = /^(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)$/

const RISKY_EXPANSION_OPERATORS = new Set(["@", "!"])
// Nodes that are (part of) a word.
const WORD_PARTS: ReadonlySet<string> = new Set([
  "word",
  "concatenation",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "brace_expression",
  "number"
])

export const walkBash = (root: SyntaxNode, source: string, home: () => string): WalkResult => {
  const ctx: Context = {
    home,
    source,
    out: emptyWalk(),
    attached: undefined,
    root,
    arithmetic: 0,
    doubleBracket: 0,
    literalHeredoc: false,
    integers: undefined,
    associative: undefined
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
  // Leaves are most of a tree: settled before the switch.
  if (BASH_SYNTAX.get(type) === "inert") {
    inertLeaf(node, type, ctx)
    return
  }
  switch (type) {
    case "command": {
      const built = withChangeDirectory(node, buildCommand(node, ctx.attached?.get(node.id) ?? [], ctx))
      ctx.out.commands.push(
        ctx.out.commands.length === 0 && built.redirects.length === 0 && isLeading(node)
          ? { ...built, leading: true }
          : built
      )
      // `builtin declare -i n`, `command typeset -i n`: a declaration all the same.
      if (DECLARING_WRAPPERS.has(built.words[0]?.value ?? "")) wrappedDeclaration(built.words, ctx)
      // `let` evaluates every argument as arithmetic.
      if (built.words[0]?.value === "let") arithmeticChildren(node, ctx)
      else visitChildren(node, ctx)
      return
    }
    case "redirected_statement": {
      const body = node.childForFieldName("body")
      const redirects = node.childrenForFieldName("redirect").flatMap((r) => redirectsOf(r, ctx))
      for (const child of node.namedChildren) {
        if (child.type === "ERROR") visit(child, ctx)
      }
      for (const r of node.childrenForFieldName("redirect")) visit(r, ctx)
      if (body?.type === "command") {
        ctx.out.commands.push(withChangeDirectory(body, buildCommand(body, redirects, ctx)))
        visitChildren(body, ctx)
        return
      }
      // tree-sitter hangs `a && b > f` and `a | b > f` on the whole list; bash gives the
      // redirection to the last command.
      const last = body ? lastCommand(body) : undefined
      if (last) {
        ctx.attached ??= new Map()
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
      declarationProblems(node, ctx)
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
      for (const assignment of assignments) indexedSubscripts(assignment, ctx)
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
    case "for_statement": {
      // `for NAME in WORDS` (and `select`) assigns NAME each word in turn, as `NAME=word`
      // does; with no `in`, the positional parameters.
      const variable = node.childForFieldName("variable")
      if (variable !== null) {
        const values = node.childrenForFieldName("value")
        const words = values.length > 0 ? values.map((v) => wordOf(v, ctx, true)) : [runTimeWord('"$@"')]
        ctx.out.commands.push({
          source: `${variable.text}=${values.map((v) => v.text).join(" ")}`,
          assignments: words.map((value) => ({ name: variable.text, value })),
          words: [],
          redirects: [],
          problems: splitWords(values)
        })
      }
      inLoop(ctx, () => visitChildren(node, ctx))
      return
    }
    case "while_statement":
      inLoop(ctx, () => visitChildren(node, ctx))
      return
    case "function_definition": {
      const name = node.childForFieldName("name")
      if (name) ctx.out.functions.push(wordOf(name, ctx).value)
      visitChildren(node, ctx)
      return
    }
    case "expansion": {
      checkExpansion(node, ctx)
      // `${NAME:=word}` and `${NAME=word}` assign NAME when it is unset (or empty).
      const name = node.namedChildren[0]
      if (name?.type === "variable_name" && node.children.some((c) => c.type === ":=" || c.type === "=")) {
        ctx.out.commands.push({
          source: node.text,
          assignments: [{ name: name.text, value: runTimeWord(node.text) }],
          words: [],
          redirects: [],
          problems: []
        })
      }
      // `${#x}` is a length, an integer whatever `x` holds.
      const length = ctx.arithmetic > 0 && node.children[1]?.type === "#"
      const outer = ctx.arithmetic
      if (length) ctx.arithmetic = 0
      // `${x:OFFSET:LENGTH}`: both are arithmetic (`${PWD:y}` evaluates what y holds).
      const colon = node.children.findIndex((c) => c.type === ":" && !c.isNamed)
      if (colon === -1) visitChildren(node, ctx)
      else
        for (const child of node.children) {
          if (child.index > colon && child.isNamed) arithmetic(child, ctx)
          else visit(child, ctx)
        }
      ctx.arithmetic = outer
      return
    }
    case "ERROR":
      ctx.out.problems.push(`tree-sitter could not parse \`${clip(node.text)}\``)
      ctx.out.errors.push(node.text)
      visitChildren(node, ctx)
      return
    case "heredoc_redirect": {
      // A quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`) makes the body literal.
      const start = node.namedChildren.find((c) => c.type === "heredoc_start")
      const literal = start !== undefined && /['"\\]/.test(start.text)
      const before = ctx.literalHeredoc
      ctx.literalHeredoc = literal
      visitChildren(node, ctx)
      ctx.literalHeredoc = before
      return
    }
    case "heredoc_body":
      if (node.childCount === 0 && !ctx.literalHeredoc) scanLeaf(node, false, ctx)
      visitChildren(node, ctx)
      return
    case "command_substitution":
      if (isFileRead(node)) {
        // `$(<file)` (and `$(< file)`) is bash's cat: a read of the file.
        const redirects = node.namedChildren
          .filter((c) => c.type === "file_redirect")
          .flatMap((r) => redirectsOf(r, ctx))
        ctx.out.commands.push({ source: node.text, assignments: [], words: [], redirects, problems: [] })
      }
      visitChildren(node, ctx)
      return
    case "arithmetic_expansion":
      arithmeticChildren(node, ctx)
      return
    case "compound_statement":
      if (node.firstChild?.type === "((") arithmeticChildren(node, ctx)
      else visitChildren(node, ctx)
      return
    case "c_style_for_statement":
      inLoop(ctx, () => {
        for (const child of node.children) {
          if (child.type === "do_group" || child.type === "compound_statement") visit(child, ctx)
          else arithmetic(child, ctx)
        }
      })
      return
    case "subscript": {
      // An indexed array's subscript is an arithmetic expression.
      const index = node.childForFieldName("index")
      for (const child of node.children) {
        if (index !== null && child.id === index.id) arithmetic(child, ctx)
        else visit(child, ctx)
      }
      return
    }
    case "test_command": {
      const double = node.firstChild?.type === "[["
      if (double) ctx.doubleBracket++
      visitChildren(node, ctx)
      if (double) ctx.doubleBracket--
      return
    }
    case "unary_expression": {
      // `[ -v NAME ]`, `[[ -R NAME ]]`: bash evaluates a subscript in NAME as arithmetic.
      const operator = node.firstChild
      const operand = node.namedChildren[node.namedChildren.length - 1]
      if (
        operator?.type === "test_operator" &&
        (operator.text === "-v" || operator.text === "-R") &&
        operand !== undefined &&
        operand.id !== operator.id
      ) {
        const text =
          operand.type === "raw_string" || operand.type === "string"
            ? operand.text.slice(1, -1)
            : operand.text
        const bracket = text.indexOf("[")
        // A name known only at run time may hold a subscript too (`[[ -v $y ]]`).
        if (/[$`]/.test(text))
          ctx.out.problems.push(
            `\`${clip(node.text)}\` tests a variable named at run time: bash evaluates a subscript in the name as arithmetic`
          )
        else if (bracket !== -1 && !/^\[(\d+|@|\*)\]$/.test(text.slice(bracket)))
          ctx.out.problems.push(
            `\`${clip(node.text)}\` tests the variable \`${clip(text)}\`: bash evaluates its subscript as arithmetic, running what it holds`
          )
      }
      visitChildren(node, ctx)
      return
    }
    case "binary_expression": {
      const operator =
        node.childForFieldName("operator") ?? node.children.find((c) => c.type === "test_operator") ?? null
      if (ctx.doubleBracket > 0 && ctx.arithmetic === 0 && operator && ARITHMETIC_TEST.has(operator.text)) {
        for (const child of node.children) {
          if (child.id === operator.id) continue
          arithmetic(child, ctx)
        }
        return
      }
      visitChildren(node, ctx)
      return
    }
    default: {
      const kind = BASH_SYNTAX.get(type)
      if (kind === "walked") {
        visitChildren(node, ctx)
        return
      }

      ctx.out.problems.push(`the walk does not model the syntax node \`${type}\`: \`${clip(node.text)}\``)
      visitChildren(node, ctx)
    }
  }
}

const inertLeaf = (node: SyntaxNode, type: string, ctx: Context): void => {
  if (ctx.arithmetic > 0) {
    if (type === "variable_name" || type === "word" || type === "special_variable_name")
      arithmeticName(node, ctx)
    else if (type === "simple_expansion") {
      const name = node.namedChildren[0]
      if (name !== undefined) arithmeticName(name, ctx)
    } else if (type === "string_content") arithmeticWords(node, ctx)
    else if (type === "raw_string" || type === "ansi_c_string")
      // Quotes do not quote inside arithmetic: bash expands `'a[$(cmd)]'` and runs cmd.
      ctx.out.problems.push(
        `the arithmetic \`${clip(node.parent?.text ?? node.text)}\` holds the quoted text ${clip(node.text)}, which bash expands and evaluates there (quotes do not quote inside arithmetic)`
      )
  }
  if (SCANNED_UNQUOTED.has(type)) scanLeaf(node, true, ctx)
  else if (SCANNED_QUOTED.has(type)) scanLeaf(node, false, ctx)
}

const scanLeaf = (node: SyntaxNode, unquoted: boolean, ctx: Context): void => {
  const found = hiddenBashExpansion(ctx.source, unquoted, node.startIndex, node.endIndex)
  if (found === undefined) return
  const what = found === "`" ? "a backtick" : `\`${found}\``
  ctx.out.problems.push(
    `the syntax node ${node.type} "${clip(node.text)}" still holds ${what}, which the shell expands but the parser left as text`
  )
}

// `$(<file)`: a substitution holding only input redirections.
const isFileRead = (node: SyntaxNode): boolean => {
  let reads = 0
  for (const child of node.namedChildren) {
    if (child.type === "comment") continue
    if (child.type !== "file_redirect") return false
    reads++
  }
  return reads > 0
}

const INTEGER_NOTE = "declares an integer variable: every value given to it is evaluated as arithmetic"
// The declaration builtins, and the words that run a builtin by name.
const DECLARATIONS: ReadonlySet<string> = new Set(["declare", "typeset", "local", "export", "readonly"])
const DECLARING_WRAPPERS: ReadonlySet<string> = new Set(["builtin", "command"])

// What bash evaluates in a declaration: values given to an integer variable (`-i`, in any
// quoting: `"-i"`, `-\i`), indexed arrays' subscripts in a compound value, and arguments known
// only at run time, which may be either (`declare "$x"` with x='a=([$(id)]=1)' runs id).
const declarationProblems = (node: SyntaxNode, ctx: Context): void => {
  for (const child of node.children) {
    if (!child.isNamed || child.type === "variable_assignment" || child.type === "variable_name") continue
    const word = wordOf(child, ctx)
    if (!word.isStatic) {
      ctx.out.problems.push(
        `\`${clip(node.text)}\` declares what is only known at run time, which bash may evaluate`
      )
      continue
    }
    if (/^-[a-zA-Z]*i/.test(word.value)) ctx.out.problems.push(`\`${clip(node.text)}\` ${INTEGER_NOTE}`)
    if (word.value.includes("=("))
      ctx.out.problems.push(`\`${clip(node.text)}\` gives a compound value in a word, which bash evaluates`)
  }
  // (An associative declaration's keys are text: `indexedSubscripts` knows its names.)
  for (const child of node.namedChildren) indexedSubscripts(child, ctx)
}

// `builtin declare -i n`: the options of the declaration a wrapper runs.
const wrappedDeclaration = (words: ReadonlyArray<Word>, ctx: Context): void => {
  let i = 0
  while (i < words.length && (DECLARING_WRAPPERS.has(words[i]!.value) || /^-[pvV]+$/.test(words[i]!.value)))
    i++
  if (!DECLARATIONS.has(words[i]?.value ?? "")) return
  for (const word of words.slice(i + 1)) {
    if (!word.isStatic)
      ctx.out.problems.push(
        `\`${clip(word.raw)}\` is given to a declaration only at run time, which bash may evaluate`
      )
    else if (/^-[a-zA-Z]*i/.test(word.value) || word.value.includes("=("))
      ctx.out.problems.push(
        `\`${clip(words.map((w) => w.raw).join(" "))}\` ${INTEGER_NOTE}, or a compound value`
      )
  }
}

// In an indexed array's compound value (`a=([KEY]=v)`), each KEY is arithmetic: one that is
// not a number is evaluated (`a=(['a[$(id)]']=1)` runs id). Associative arrays' keys are text.
const indexedSubscripts = (node: SyntaxNode, ctx: Context): void => {
  if (node.type !== "variable_assignment") return
  const value = node.childForFieldName("value")
  if (value?.type !== "array") return
  // An array the text declares associative (`declare -A m; m=([k]=v)`) has text keys.
  ctx.associative ??= associativeNames(ctx.root)
  if (ctx.associative.has(node.childForFieldName("name")?.text ?? "")) return
  for (const element of value.namedChildren) {
    const text = element.text
    if (!text.startsWith("[")) continue
    const close = text.indexOf("]=")
    if (close === -1 || !/^\s*-?\d+\s*$/.test(text.slice(1, close)))
      ctx.out.problems.push(
        `the array element \`${clip(text)}\` has a subscript bash evaluates as arithmetic, running what it holds`
      )
  }
}

// The names declared with -A anywhere in the text (in any quoting of the option).
const associativeNames = (root: SyntaxNode): Set<string> => {
  const names = new Set<string>()
  const stack: Array<SyntaxNode> = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "declaration_command") {
      if (node.namedChildren.some((c) => /^['"]?[-+][a-zA-Z]*A/.test(c.text)))
        for (const child of node.namedChildren) {
          if (child.type === "variable_name") names.add(child.text)
          else if (child.type === "variable_assignment")
            names.add(child.childForFieldName("name")?.text ?? "")
        }
      continue
    }
    for (const child of node.namedChildren) stack.push(child)
  }
  return names
}

const arithmeticChildren = (node: SyntaxNode, ctx: Context): void => {
  ctx.arithmetic++
  try {
    visitChildren(node, ctx)
  } finally {
    ctx.arithmetic--
  }
}

const arithmetic = (node: SyntaxNode, ctx: Context): void => {
  ctx.arithmetic++
  try {
    visit(node, ctx)
  } finally {
    ctx.arithmetic--
  }
}

// A name in an arithmetic context is evaluated: its value is parsed as an expression, and
// subscripts in it run substitutions (`x='a[$(id)]'; echo $((x))`). Only names the text
// assigns nothing but integers are known.
const arithmeticName = (node: SyntaxNode, ctx: Context): void => {
  if (node.type === "word") arithmeticWords(node, ctx)
  else checkInteger(node.text, node, ctx)
}

// A word (or a double-quoted text) in an arithmetic context: every name in it is evaluated.
const arithmeticWords = (node: SyntaxNode, ctx: Context): void => {
  const text = node.text
  if (ARITHMETIC_NUMBER.test(text)) return
  for (const name of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) checkInteger(name, node, ctx)
}

const checkInteger = (name: string, node: SyntaxNode, ctx: Context): void => {
  if (SHELL_INTEGERS.has(name)) return
  ctx.integers ??= integerNames(ctx.root)
  if (ctx.integers.has(name)) return
  ctx.out.problems.push(
    `the arithmetic \`${clip(node.parent?.text ?? node.text)}\` evaluates \`${name}\`, whose value is not an integer known here (arithmetic runs what a value's subscripts hold)`
  )
}

// Names the text assigns only integer literals or arithmetic results, and never hands to a
// command as a word (`read x`, `printf -v x`, `getopts o x` set it too).
const integerNames = (root: SyntaxNode): Set<string> => {
  const ints = new Set<string>()
  const tainted = new Set<string>()
  const integerValue = (value: SyntaxNode | null): boolean =>
    value !== null &&
    (value.type === "number" ||
      value.type === "arithmetic_expansion" ||
      (value.type === "word" && /^-?\d+$/.test(value.text)))
  const stack: Array<SyntaxNode> = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    const type = node.type
    if (type === "variable_assignment") {
      const name = node.childForFieldName("name")
      const value = node.childForFieldName("value")
      const key = name?.type === "subscript" ? name.namedChildren[0]?.text : name?.text
      if (key !== undefined) (integerValue(value) ? ints : tainted).add(key)
    } else if (type === "for_statement") {
      const variable = node.childForFieldName("variable")
      const values = node.childrenForFieldName("value")
      if (variable !== null)
        (values.length > 0 && values.every((v) => integerValue(v)) ? ints : tainted).add(variable.text)
    } else if (type === "word" && IDENTIFIER.test(node.text)) {
      const parent = node.parent?.type
      if (parent === "command" || parent === "declaration_command" || parent === "unset_command")
        tainted.add(node.text)
    }
    for (const child of node.namedChildren) stack.push(child)
  }
  for (const name of tainted) ints.delete(name)
  return ints
}

// Nothing runs before it and nothing encloses it but lists: \`cd x && …\`, \`cd x; …\`; and
// it is not sent to the background (\`cd x & …\` moves a child shell, not the commands after).
// (Nor may a redirection of its own fail first: the caller checks it has none.)
const isLeading = (node: SyntaxNode): boolean => {
  let current: SyntaxNode = node
  for (let parent = current.parent; parent !== null; current = parent, parent = parent.parent) {
    if (parent.type === "program" || parent.type === "list") {
      const first = parent.namedChildren.find((c: SyntaxNode) => c.type !== "comment")
      if (first?.id !== current.id) return false
      if (parent.type === "program") return parent.children[current.index + 1]?.type !== "&"
    } else if (parent.type !== "redirected_statement") return false
  }
  return false
}

// `cd -` (and `pushd -`) go to $OLDPWD, which only a `cd` that succeeded in this shell sets;
// else it is the one inherited from the environment (`cd nothere; cd -`, `(cd x); cd -`).
const withChangeDirectory = (node: SyntaxNode, built: RawCommand): RawCommand => {
  const name = built.words[0]
  if (name === undefined || !name.isStatic || (name.value !== "cd" && name.value !== "pushd")) return built
  return afterChangeDirectory(node) ? { ...built, afterChangeDirectory: true } : built
}

// Whether `node` runs only once a `cd` of this shell has succeeded: it is on the right of
// `&&`s, one of whose left sides succeeds only if such a `cd` did. (In a pipeline it runs in
// a child shell that inherits OLDPWD as the pipeline starts: `cd x && cd - | head`.)
const afterChangeDirectory = (node: SyntaxNode): boolean => {
  let current = node
  while (current.parent?.type === "redirected_statement" || current.parent?.type === "pipeline")
    current = current.parent
  for (let parent = current.parent; parent?.type === "list"; current = parent, parent = parent.parent) {
    const [left, right] = listOperands(parent)
    if (right?.id !== current.id || listOperator(parent) !== "&&") return false
    if (left !== undefined && requiresChangeDirectory(left)) return true
  }
  return false
}

// Whether `node` succeeds only if a plain `cd` of this shell ran and succeeded: a `cd`
// command, or an `&&` list with one on either side (not in a subshell, pipeline or `||`).
const requiresChangeDirectory = (node: SyntaxNode): boolean => {
  if (node.type === "redirected_statement") {
    const body = node.childForFieldName("body")
    return body !== null && requiresChangeDirectory(body)
  }
  if (node.type === "command") {
    const name = node.childForFieldName("name")
    return name !== null && name.text === "cd"
  }
  return (
    node.type === "list" && listOperator(node) === "&&" && listOperands(node).some(requiresChangeDirectory)
  )
}

const listOperands = (list: SyntaxNode): Array<SyntaxNode> =>
  list.namedChildren.filter((child: SyntaxNode) => child.type !== "comment")

const listOperator = (list: SyntaxNode): string | undefined =>
  list.children.find((child) => !child.isNamed && (child.type === "&&" || child.type === "||"))?.type

const lastCommand = (node: SyntaxNode): SyntaxNode | undefined => {
  let current: SyntaxNode | null = node
  while (current && (current.type === "list" || current.type === "pipeline")) {
    const children: Array<SyntaxNode> = current.namedChildren.filter((c: SyntaxNode) => c.type !== "comment")
    current = children[children.length - 1] ?? null
  }
  return current?.type === "command" ? current : undefined
}

// Walks a loop (`for`, `while`, `until`, `for ((…))`): the commands of its body may run again
// after the ones written after them, so they are marked repeated.
const inLoop = (ctx: Context, walk: () => void): void => {
  const before = ctx.out.commands.length
  walk()
  for (let i = before; i < ctx.out.commands.length; i++) ctx.out.commands[i]!.repeated = true
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

const buildCommand = (node: SyntaxNode, redirects: Array<RawRedirect>, ctx: Context): RawCommand => {
  const assignments: Array<RawAssignment> = []
  const words: Array<Word> = []
  const problems: Array<string> = []
  const all = [...redirects]
  let skip = -1
  // The nodes of the last word, while the next one may still be part of it.
  let last: Array<SyntaxNode> = []
  // A `$"…"` word and where it ends, while what follows it may still be part of it.
  let translated: { readonly at: number; end: number } | undefined
  for (const child of node.children) {
    const type = child.type
    const previous = node.children[child.index - 1]
    if (previous !== undefined && previous.endIndex < child.startIndex) {
      // Only blanks and line continuations part words: tree-sitter drops some text between
      // them (`'a'\ b` is one word to bash, two without the `\ ` here).
      const gap = ctx.source.slice(previous.endIndex, child.startIndex)
      if (!BETWEEN_WORDS.test(gap))
        problems.push(
          `tree-sitter dropped \`${clip(gap)}\` between \`${clip(previous.text)}\` and \`${clip(child.text)}\``
        )
    }
    if (translated !== undefined && translated.end === child.startIndex && WORD_PARTS.has(type)) {
      const word = words[translated.at]!
      words[translated.at] = { ...word, value: word.value + child.text, raw: word.raw + child.text }
      translated.end = child.endIndex
      continue
    }
    translated = undefined
    if (previous !== undefined && previous.endIndex === child.startIndex && WORD_PARTS.has(type)) {
      if (last.length > 0 && last[last.length - 1]!.endIndex === child.startIndex) {
        last.push(child)
        words[words.length - 1] = joinedWord(last, ctx)
        continue
      }
      if (previous.type === "variable_assignment")
        problems.push(`tree-sitter split the word \`${clip(previous.text + child.text)}\` in two`)
    }
    last = []
    switch (type) {
      case "variable_assignment":
        assignments.push(buildAssignment(child, ctx))
        break
      case "command_name": {
        const inner = child.firstChild
        if (inner) {
          words.push(wordOf(inner, ctx))
          last = [inner]
        }
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
        if (
          type === "$" &&
          child.nextSibling?.startIndex === child.endIndex &&
          child.nextSibling.text[0] === '"'
        ) {
          // `$"…"` split by the grammar into `$` and a string (or a concatenation that starts
          // with one: `$"".env`): one word, never static.
          const next = child.nextSibling
          words.push({
            value: `$${next.text}`,
            raw: `$${next.text}`,
            isStatic: false,
            path: undefined,
            glob: false
          })
          skip = next.id
          translated = { at: words.length - 1, end: next.endIndex }
          break
        }
        if (child.id === skip) break
        if (type === "$" || child.isNamed) {
          words.push(wordOf(child, ctx))
          last = [child]
        }
    }
  }
  const base = { source: sourceOf(node, redirects), assignments, words, redirects: all, problems }
  return pipedInto(node) ? { ...base, stdinPiped: true } : base
}

// Whether the command reads the output of the one before it in a pipeline (`a | b`).
const pipedInto = (node: SyntaxNode): boolean => {
  let current = node
  if (current.parent?.type === "redirected_statement") current = current.parent
  const pipeline = current.parent
  if (pipeline?.type !== "pipeline") return false
  // A `|` before it (in `a <<EOF | b` the pipeline starts with the `|`, inside the here-document).
  const before = pipeline.children[current.index - 1]?.type
  return before === "|" || before === "|&"
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

const BETWEEN_WORDS = /^(?:[ \t]|\\\r?\n)*$/

// Words tree-sitter split in two, side by side with nothing between them (`.e[\n]v`).
const splitWords = (nodes: ReadonlyArray<SyntaxNode>): Array<string> => {
  const problems: Array<string> = []
  for (let i = 1; i < nodes.length; i++) {
    const [before, after] = [nodes[i - 1]!, nodes[i]!]
    if (before.endIndex === after.startIndex && WORD_PARTS.has(after.type))
      problems.push(`tree-sitter split the word \`${clip(before.text + after.text)}\` in two`)
  }
  return problems
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
    problems: splitWords(node.namedChildren),
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

// zsh (the shell commands may run in) expands a word `=name` to the path of the program
// `name`: a file only known at run time.
const ZSH_EQUALS = /^=[A-Za-z_]/

type Part =
  | { readonly kind: "text"; readonly text: string; readonly quoted: boolean }
  | { readonly kind: "dynamic"; readonly raw: string; readonly pathValue: string | undefined }

/** Resolves a word node: quotes removed where static, `$HOME`/`$PWD`/`~` known for paths. */
export const wordOf = (node: SyntaxNode, ctx: Context, assignment = false): Word => {
  if (node.type === "word") {
    const text = node.text
    if (!text.includes("\\")) return plainWord(text, ctx, assignment)
  }
  return joinedWord([node], ctx, assignment)
}

// One shell word from the nodes that make it up (tree-sitter splits some words in two:
// `.e[\n]v` is `.e[` and `\n]v`, side by side).
const joinedWord = (nodes: ReadonlyArray<SyntaxNode>, ctx: Context, assignment = false): Word => {
  const parts: Array<Part> = []
  for (const node of nodes) collect(node, parts, ctx)
  const raw = ctx.source.slice(nodes[0]!.startIndex, nodes[nodes.length - 1]!.endIndex)
  let isStatic = true
  let glob = false
  let literalWildcards = false
  let pathKnown = true
  let value = ""
  let path = ""
  const segments: Array<Segment> = []
  parts.forEach((part, index) => {
    if (part.kind === "dynamic") {
      isStatic = false
      if (part.pathValue === undefined || !standsAlone(parts, index)) pathKnown = false
      else {
        path += part.pathValue
        if (hasWildcard(part.pathValue)) literalWildcards = true
      }
      return
    }
    let text = part.text
    if (part.quoted && hasWildcard(text)) literalWildcards = true
    if (!part.quoted) {
      if (hasGlobCharacter(text)) glob = true
      if (index === 0 && text.startsWith("~")) {
        const tilde = expandTilde(text, ctx.home())
        if (tilde === undefined) pathKnown = false
        else text = tilde
        if (hasWildcard(ctx.home())) literalWildcards = true
      } else if (index === 0 && !assignment && ZSH_EQUALS.test(text)) {
        pathKnown = false
      } else if (assignment && text.includes(":~")) {
        text = text.replaceAll(":~/", `:${ctx.home()}/`)
      }
    }
    value += part.text
    path += text
    segments.push({ text: part.text, quoted: part.quoted })
  })
  if (!isStatic) value = raw
  return {
    value,
    raw,
    isStatic,
    path: pathKnown ? path : undefined,
    glob,
    ...(glob && literalWildcards ? { literalWildcards } : {}),
    ...(isStatic ? { segments } : {})
  }
}

// A word with no quote, escape or expansion: most of them, read without splitting.
const plainWord = (text: string, ctx: Context, assignment: boolean): Word => {
  let path: string | undefined = text
  if (text.startsWith("~")) path = expandTilde(text, ctx.home())
  else if (!assignment && ZSH_EQUALS.test(text)) path = undefined
  else if (assignment && text.includes(":~")) path = text.replaceAll(":~/", `:${ctx.home()}/`)
  const glob = hasGlobCharacter(text)
  return {
    value: text,
    raw: text,
    isStatic: true,
    path,
    glob,
    ...(glob && text.startsWith("~") && hasWildcard(ctx.home()) ? { literalWildcards: true } : {}),
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
    case "translated_string":
      parts.push({ kind: "dynamic", raw: node.text, pathValue: undefined })
      return
    case "string":
      collectString(node, parts, ctx)
      return
    case "concatenation": {
      // tree-sitter joins words across blanks after a "``" (`cat `` .env` is one
      // concatenation): text between the children is no part of one word.
      if (!isContiguous(node)) {
        parts.push({ kind: "dynamic", raw: node.text, pathValue: undefined })
        return
      }
      let skipped = -1
      for (const child of node.children) {
        // `$"…"` parses as `$` followed by a string: the `$` is not part of the value.
        if (child.type === "$" && child.nextSibling?.type === "string") {
          parts.push({ kind: "dynamic", raw: `$${child.nextSibling.text}`, pathValue: undefined })
          skipped = child.nextSibling.id
          continue
        }
        if (child.id === skipped) continue
        collect(child, parts, ctx)
      }
      return
    }
    case "simple_expansion":
    case "expansion": {
      const known = knownVariable(node, ctx.home())
      parts.push({ kind: "dynamic", raw: node.text, pathValue: known })
      return
    }
    case "``":
      emptySubstitution(node, parts)
      return
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
    if (type === "string_content" || (!child.isNamed && type !== "``")) continue
    literal(cursor, child.startIndex)
    collect(child, parts, ctx)
    cursor = child.endIndex
  }
  literal(cursor, end)
}

// tree-sitter reads a backtick substitution holding only blanks as one anonymous "``"
// token. bash runs nothing and substitutes nothing: `.e``nv` is `.env`. Anything else in
// it is output only known at run time.
const emptySubstitution = (node: SyntaxNode, parts: Array<Part>): void => {
  if (!/^`[ \t\n]*`$/.test(node.text)) parts.push({ kind: "dynamic", raw: node.text, pathValue: undefined })
}

const isContiguous = (node: SyntaxNode): boolean => {
  let end = node.startIndex
  for (const child of node.children) {
    if (child.startIndex !== end) return false
    end = child.endIndex
  }
  return end === node.endIndex
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
  if (name === "PWD") return CURRENT_DIRECTORY
  return undefined
}

// `$PWD` as a path relative to the directory the command runs in.
const CURRENT_DIRECTORY = "."
// zsh (the shell when $SHELL is zsh) reads `:h`, `:t`, `:a`, `:s/…/…/`, `:&`… right after
// `$name` or `${name}` as modifiers (`$PWD:h` is the parent directory), and `[…]` as a
// subscript (`$PWD[1,-3]` cuts it short).
const ZSH_AFTER_NAME = /^(:[A-Za-z&]|\[)/

// Whether the value of the known variable at `parts[index]` is its path there: not when zsh
// would modify it, and `$PWD` (".") only at the start of the word and before a `/` or its
// end (`$PWD-x` is a sibling folder of the project, `x$PWD` another path).
const standsAlone = (parts: ReadonlyArray<Part>, index: number): boolean => {
  const part = parts[index]!
  const next = parts[index + 1]
  const after = next?.kind === "text" ? next.text : undefined
  if (after !== undefined && ZSH_AFTER_NAME.test(after)) return false
  if (part.kind === "dynamic" && part.pathValue === CURRENT_DIRECTORY)
    return index === 0 && (next === undefined || after?.startsWith("/") === true)
  return true
}

const runTimeWord = (raw: string): Word => ({
  value: raw,
  raw,
  isStatic: false,
  path: undefined,
  glob: false
})

const GLOB_CHARACTER = /[*?[]/
const hasGlobCharacter = (text: string): boolean => GLOB_CHARACTER.test(text)

const hasWildcard = (text: string): boolean => /[*?[\]\\]/.test(text)

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
