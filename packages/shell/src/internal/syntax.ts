// A plain-object copy of a tree-sitter tree, read in one pass with a TreeCursor. Every
// property of a web-tree-sitter `Node` is a call into wasm, and the walkers read types,
// fields and text many times over; on this copy they are plain fields.
import type { Language, Tree } from "web-tree-sitter"

const NO_CHILDREN: ReadonlyArray<SyntaxNode> = []

export class SyntaxNode {
  /** Unique within its tree (the order the copy reached it in). */
  readonly id: number
  readonly source: string
  readonly type: string
  readonly isNamed: boolean
  readonly isMissing: boolean
  /** The field of the parent this node fills (`name`, `body`, `redirect`, …). */
  readonly field: string | null
  readonly startIndex: number
  readonly endIndex: number
  readonly parent: SyntaxNode | null
  /** Position among the parent's children. */
  readonly index: number
  /** Set by the copy once the last child is read; every leaf shares one empty list. */
  children: ReadonlyArray<SyntaxNode> = NO_CHILDREN
  private named: Array<SyntaxNode> | undefined

  constructor(
    id: number,
    source: string,
    type: string,
    isNamed: boolean,
    isMissing: boolean,
    field: string | null,
    startIndex: number,
    endIndex: number,
    parent: SyntaxNode | null,
    index: number
  ) {
    this.id = id
    this.source = source
    this.type = type
    this.isNamed = isNamed
    this.isMissing = isMissing
    this.field = field
    this.startIndex = startIndex
    this.endIndex = endIndex
    this.parent = parent
    this.index = index
  }

  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex)
  }

  get namedChildren(): Array<SyntaxNode> {
    if (this.named === undefined) this.named = this.children.filter((child) => child.isNamed)
    return this.named
  }

  get childCount(): number {
    return this.children.length
  }

  get firstChild(): SyntaxNode | null {
    return this.children[0] ?? null
  }

  get nextSibling(): SyntaxNode | null {
    return this.parent?.children[this.index + 1] ?? null
  }

  childForFieldName(field: string): SyntaxNode | null {
    for (const child of this.children) if (child.field === field) return child
    return null
  }

  childrenForFieldName(field: string): Array<SyntaxNode> {
    return this.children.filter((child) => child.field === field)
  }

  descendantsOfType(type: string): Array<SyntaxNode> {
    const found: Array<SyntaxNode> = []
    const visit = (node: SyntaxNode): void => {
      for (const child of node.children) {
        if (child.type === type) found.push(child)
        visit(child)
      }
    }
    visit(this)
    return found
  }
}

/** Copies a tree into {@link SyntaxNode}s; `source` must be the text it was parsed from. */
export type TreeReader = (tree: Tree, source: string) => SyntaxNode

// What a copy reads and how it moves, at the cursor's current node.
interface Cursor {
  readonly typeId: () => number
  readonly isNamed: () => boolean
  readonly isMissing: () => boolean
  readonly fieldId: () => number
  readonly startIndex: () => number
  readonly endIndex: () => number
  readonly gotoFirstChild: () => boolean
  readonly gotoNextSibling: () => boolean
  readonly gotoParent: () => void
}

// `mayMiss`: the tree may hold MISSING nodes (false when it is known to have no error).
const copyWith = (cursor: Cursor, tree: Tree, source: string, mayMiss: boolean): SyntaxNode => {
  const { types, fields, named } = grammarNames(tree.language)
  let count = 0
  const make = (parent: SyntaxNode | null, index: number): SyntaxNode => {
    const typeId = cursor.typeId()
    let isNamed = named[typeId]
    if (isNamed === undefined) {
      isNamed = cursor.isNamed()
      named[typeId] = isNamed
    }
    const field = parent === null ? null : (fields[cursor.fieldId()] ?? null)
    const startIndex = cursor.startIndex()
    const endIndex = cursor.endIndex()
    return new SyntaxNode(
      count++,
      source,
      types[typeId] ?? "ERROR",
      isNamed,
      // A MISSING node is always empty: only empty nodes are asked.
      mayMiss && startIndex === endIndex && cursor.isMissing(),
      field,
      startIndex,
      endIndex,
      parent,
      index
    )
  }
  // The children read so far of every node on the way down, in one stack (`starts`: where
  // each node's begin; `top`: where the stack ends): a node's list is copied out at its exact
  // size once its last child is read, where an array grown by push keeps room for 16. The
  // stack is never shortened (V8 trims an array's storage when its length is set lower).
  const pending: Array<SyntaxNode> = []
  const starts: Array<number> = []
  let top = 0
  const root = make(null, 0)
  let current = root
  for (;;) {
    if (cursor.gotoFirstChild()) {
      starts.push(top)
      const child = make(current, 0)
      pending[top++] = child
      current = child
      continue
    }
    for (;;) {
      const parent = current.parent
      if (parent === null) return root
      const start = starts[starts.length - 1]!
      if (cursor.gotoNextSibling()) {
        const sibling = make(parent, top - start)
        pending[top++] = sibling
        current = sibling
        break
      }
      cursor.gotoParent()
      parent.children = pending.slice(start, top)
      top = start
      starts.pop()
      current = parent
    }
  }
}

/** Copies the tree through web-tree-sitter's public `TreeCursor`. */
export const copyTree: TreeReader = (tree, source) => {
  const top = tree.rootNode
  const hasError = top.hasError
  const cursor = top.walk()
  try {
    return copyWith(
      {
        typeId: () => cursor.nodeTypeId,
        isNamed: () => cursor.nodeIsNamed,
        isMissing: () => cursor.nodeIsMissing,
        fieldId: () => cursor.currentFieldId,
        startIndex: () => cursor.startIndex,
        endIndex: () => cursor.endIndex,
        gotoFirstChild: () => cursor.gotoFirstChild(),
        gotoNextSibling: () => cursor.gotoNextSibling(),
        gotoParent: () => cursor.gotoParent()
      },
      tree,
      source,
      hasError
    )
  } finally {
    cursor.delete()
  }
}

// The runtime's own functions, as the emscripten module that `Parser.init` was given
// exposes them. Each takes the tree's handle and keeps the cursor (or node) it works on in
// the runtime's transfer buffer, where the previous call left it.
const WASM_FUNCTIONS = [
  "_ts_tree_root_node_wasm",
  "_ts_tree_cursor_new_wasm",
  "_ts_tree_cursor_delete_wasm",
  "_ts_tree_cursor_current_node_type_id_wasm",
  "_ts_tree_cursor_current_node_is_named_wasm",
  "_ts_tree_cursor_current_node_is_missing_wasm",
  "_ts_tree_cursor_current_field_id_wasm",
  "_ts_tree_cursor_start_index_wasm",
  "_ts_tree_cursor_end_index_wasm",
  "_ts_tree_cursor_goto_first_child_wasm",
  "_ts_tree_cursor_goto_next_sibling_wasm",
  "_ts_tree_cursor_goto_parent_wasm"
] as const
type WasmModule = Record<(typeof WASM_FUNCTIONS)[number], (tree: number) => number>

/**
 * Copies trees by calling the runtime's functions directly: the same cursor walk as
 * {@link copyTree}, without the public cursor's copying of its state in and out of the
 * transfer buffer around every call (about 2.5x faster). `module` is the object given to
 * `Parser.init`, which emscripten fills with the runtime's exports; `undefined` when it
 * lacks them (web-tree-sitter was initialised elsewhere first). Relies on the binding's
 * calling convention, so callers check it against {@link copyTree} before using it
 * ({@link sameTree}).
 */
export const wasmTreeReader = (module: object): TreeReader | undefined => {
  const m = module as Partial<WasmModule>
  if (!WASM_FUNCTIONS.every((name) => typeof m[name] === "function")) return undefined
  const wasm = m as WasmModule
  // Read off the module once: it has hundreds of properties, each a slow lookup.
  const rootNode = wasm._ts_tree_root_node_wasm
  const newCursor = wasm._ts_tree_cursor_new_wasm
  const deleteCursor = wasm._ts_tree_cursor_delete_wasm
  const typeId = wasm._ts_tree_cursor_current_node_type_id_wasm
  const isNamed = wasm._ts_tree_cursor_current_node_is_named_wasm
  const isMissing = wasm._ts_tree_cursor_current_node_is_missing_wasm
  const fieldId = wasm._ts_tree_cursor_current_field_id_wasm
  const startIndex = wasm._ts_tree_cursor_start_index_wasm
  const endIndex = wasm._ts_tree_cursor_end_index_wasm
  const firstChild = wasm._ts_tree_cursor_goto_first_child_wasm
  const nextSibling = wasm._ts_tree_cursor_goto_next_sibling_wasm
  const parent = wasm._ts_tree_cursor_goto_parent_wasm
  // The tree being copied (copies are synchronous, one at a time).
  let handle = 0
  const cursor: Cursor = {
    typeId: () => typeId(handle),
    isNamed: () => isNamed(handle) === 1,
    isMissing: () => isMissing(handle) === 1,
    fieldId: () => fieldId(handle),
    startIndex: () => startIndex(handle),
    endIndex: () => endIndex(handle),
    gotoFirstChild: () => firstChild(handle) === 1,
    gotoNextSibling: () => nextSibling(handle) === 1,
    gotoParent: () => void parent(handle)
  }
  return (tree, source) => {
    // The tree's handle in the runtime (web-tree-sitter keeps it at index 0).
    handle = (tree as unknown as Record<number, number>)[0]!
    rootNode(handle)
    newCursor(handle)
    try {
      // Whether the tree has an error is not asked (two calls per tree): every empty node is.
      return copyWith(cursor, tree, source, true)
    } finally {
      deleteCursor(handle)
    }
  }
}

// Texts whose trees hold every kind of node the walkers read: fields, anonymous, MISSING and
// ERROR nodes, heredocs, substitutions, non-ASCII text.
const PROBES: ReadonlyArray<readonly [string, "bash" | "powershell"]> = [
  [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    "CI=1 sudo rm -rf 'é😀' \"$(cat <<EOF\nx\nEOF\n)\" > out 2>&1 && for f in *.ts; do echo ${f%x}; done; (cd a || exit",
    "bash"
  ],
  ['if [ -f x ]; then echo `ls`; fi | tee >(wc -l) <<< "$((1 + 2))" )', "bash"],
  ['Get-ChildItem -Path é😀 | ForEach-Object { & $_.FullName -x 1 } ; iex "$(Get-Content x)" (', "powershell"]
]

/**
 * `fast` when it copies the probe texts of `dialect` exactly as {@link copyTree} does, else
 * {@link copyTree}: a runtime whose calling convention changed (it misreads a probe or
 * throws) falls back to the public cursor instead of misreading trees.
 */
export const verifiedReader = (
  fast: TreeReader | undefined,
  parse: (text: string, dialect: "bash" | "powershell") => Tree,
  dialect: "bash" | "powershell"
): TreeReader => {
  if (fast === undefined) return copyTree
  for (const [text, probeDialect] of PROBES) {
    if (probeDialect !== dialect) continue
    const tree = parse(text, dialect)
    try {
      if (!sameTree(fast(tree, text), copyTree(tree, text))) return copyTree
    } catch {
      // A runtime that fails on a probe is not used either.
      return copyTree
    } finally {
      tree.delete()
    }
  }
  return fast
}

/**
 * `tree` copied by `fast` and by {@link copyTree}, and whether the two agree: the check of
 * the first tree a process reads, which for a one-shot command (`gatehouse check`, a hook)
 * is the only one. The cursor's copy is the one returned: it is right either way.
 */
export const crossChecked = (
  fast: TreeReader | undefined,
  tree: Tree,
  source: string
): { readonly copy: SyntaxNode; readonly agreed: boolean } => {
  const copy = copyTree(tree, source)
  if (fast === undefined) return { copy, agreed: false }
  try {
    return { copy, agreed: sameTree(fast(tree, source), copy) }
  } catch {
    return { copy, agreed: false }
  }
}

/** Whether two copies agree on everything the walkers read. */
export const sameTree = (a: SyntaxNode, b: SyntaxNode): boolean =>
  a.type === b.type &&
  a.isNamed === b.isNamed &&
  a.isMissing === b.isMissing &&
  a.field === b.field &&
  a.startIndex === b.startIndex &&
  a.endIndex === b.endIndex &&
  a.children.length === b.children.length &&
  a.children.every((child, index) => sameTree(child, b.children[index]!))

// A grammar's type and field names, as the copy hands them out (by id), and whether each
// type is named (learnt as the copies meet it).
interface GrammarNames {
  readonly types: ReadonlyArray<string | undefined>
  readonly fields: ReadonlyArray<string | null>
  readonly named: Array<boolean | undefined>
}

const namesByLanguage = new WeakMap<Language, GrammarNames>()
const grammarNames = (language: Language): GrammarNames => {
  let names = namesByLanguage.get(language)
  if (names === undefined) {
    names = {
      types: language.types.map((type) => (type === undefined ? undefined : internalized(type))),
      fields: language.fields.map((field) => (field === null ? null : internalized(field))),
      named: []
    }
    namesByLanguage.set(language, names)
  }
  return names
}

// web-tree-sitter builds each name a character at a time, a chain of pieces that every
// comparison walks (`type === "command"`, a switch, a Set lookup), and the walkers compare
// types at every node. A property key is stored as V8's one shared flat copy of its text,
// compared with a literal by reference.
const internalized = (text: string): string => Object.keys({ [text]: 0 })[0]!
