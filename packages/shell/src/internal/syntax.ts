// A plain-object copy of a tree-sitter tree, read in one pass with a TreeCursor. Every
// property of a web-tree-sitter `Node` is a call into wasm, and the walkers read types,
// fields and text many times over; on this copy they are plain fields.
import type { Language, Tree } from "web-tree-sitter"

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
  readonly children: Array<SyntaxNode> = []
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

/** Copies the tree; `source` must be the text it was parsed from. */
export const copyTree = (tree: Tree, source: string): SyntaxNode => {
  const language = tree.language
  const types = language.types
  const fields = language.fields
  const named = namedTypes(language)
  const top = tree.rootNode
  const hasError = top.hasError
  const cursor = top.walk()
  let count = 0
  try {
    const make = (parent: SyntaxNode | null, index: number): SyntaxNode => {
      const typeId = cursor.nodeTypeId
      let isNamed = named.get(typeId)
      if (isNamed === undefined) {
        isNamed = cursor.nodeIsNamed
        named.set(typeId, isNamed)
      }
      return new SyntaxNode(
        count++,
        source,
        types[typeId] ?? "ERROR",
        isNamed,
        hasError && cursor.nodeIsMissing,
        parent === null ? null : (fields[cursor.currentFieldId] ?? null),
        cursor.startIndex,
        cursor.endIndex,
        parent,
        index
      )
    }
    const root = make(null, 0)
    let current = root
    for (;;) {
      if (cursor.gotoFirstChild()) {
        const child = make(current, 0)
        current.children.push(child)
        current = child
        continue
      }
      for (;;) {
        const parent = current.parent
        if (parent === null) return root
        if (cursor.gotoNextSibling()) {
          const sibling = make(parent, parent.children.length)
          parent.children.push(sibling)
          current = sibling
          break
        }
        cursor.gotoParent()
        current = parent
      }
    }
  } finally {
    cursor.delete()
  }
}

// Whether a node type is named, learnt once per grammar and type.
const namedByLanguage = new WeakMap<Language, Map<number, boolean>>()
const namedTypes = (language: Language): Map<number, boolean> => {
  let named = namedByLanguage.get(language)
  if (named === undefined) {
    named = new Map()
    namedByLanguage.set(language, named)
  }
  return named
}
