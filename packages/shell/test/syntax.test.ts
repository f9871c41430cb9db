// The plain copy of a tree the walkers read: the runtime reader and the public-cursor
// reader must both agree with web-tree-sitter's own nodes.
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Language, type Node, Parser, type Tree } from "web-tree-sitter"
import { ShellParser } from "../src/index.ts"
import {
  copyTree,
  crossChecked,
  type SyntaxNode,
  sameTree,
  verifiedReader,
  wasmTreeReader
} from "../src/internal/syntax.ts"

const corpus = fs
  .readFileSync(fileURLToPath(new URL("../bench/data/corpus.jsonl", import.meta.url)), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as { command: string; shell?: string })
  .filter((_, index) => index % 10 === 0)
  .map((entry) => [entry.command, entry.shell === "powershell" ? "powershell" : "bash"] as const)

// Error trees, MISSING nodes, zero-width nodes, surrogate pairs and combining marks.
const EDGES = [
  "echo 'é😀' $(x",
  "if then fi",
  "a | | b",
  'echo "${x',
  "cat <<EOF\nhi é\nEOF\n",
  "x=( a b",
  "for ((i=0; i<3; i++)); do :; done",
  "e\u0301cho 😀😀 > 'f😀'",
  ""
]
const CASES: ReadonlyArray<readonly [string, ShellParser.Dialect]> = [
  ...corpus,
  ...EDGES.map((text) => [text, "bash"] as const),
  ...EDGES.map((text) => [text, "powershell"] as const),
  ["Get-Item é😀 -Path (", "powershell"],
  ["& { iex $x } | % { $_.Name", "powershell"]
]

// Every property the walkers read, checked against web-tree-sitter's own Node.
const matchesNode = (copy: SyntaxNode, node: Node, field: string | null): string | undefined => {
  if (copy.type !== node.type) return `type ${copy.type} != ${node.type}`
  if (copy.isNamed !== node.isNamed) return `isNamed of ${node.type}`
  if (copy.isMissing !== node.isMissing) return `isMissing of ${node.type}`
  if (copy.field !== field) return `field ${copy.field} != ${field} (${node.type})`
  if (copy.startIndex !== node.startIndex || copy.endIndex !== node.endIndex)
    return `range of ${node.type}: ${copy.startIndex}-${copy.endIndex} != ${node.startIndex}-${node.endIndex}`
  if (copy.text !== node.text) return `text of ${node.type}`
  if (copy.children.length !== node.childCount) return `children of ${node.type}`
  for (let i = 0; i < node.childCount; i++) {
    const problem = matchesNode(copy.children[i]!, node.child(i)!, node.fieldNameForChild(i))
    if (problem !== undefined) return problem
  }
  return undefined
}

// Built first in this file, so this layer initialises the runtime and can read through it.
layer(ShellParser.layer)("SyntaxNode copies", (it) => {
  it.effect("the live layer reads trees through the runtime's own functions", () =>
    Effect.gen(function* () {
      const parser = yield* ShellParser.Service
      assert.strictEqual(parser.treeReader(), "runtime")
      assert.strictEqual(parser.treeReader("powershell"), "runtime")
    })
  )

  it.effect("both readers copy every node as web-tree-sitter's nodes describe it", () =>
    Effect.gen(function* () {
      const parser = yield* ShellParser.Service
      const problems = yield* parser.withTrees((trees) => {
        const found: Array<string> = []
        for (const [text, dialect] of CASES) {
          const tree = trees.parse(text, dialect)
          const viaCursor = matchesNode(copyTree(tree, text), tree.rootNode, null)
          if (viaCursor !== undefined) found.push(`cursor, ${dialect} ${JSON.stringify(text)}: ${viaCursor}`)
          const viaSyntax = matchesNode(trees.syntax(text, dialect), tree.rootNode, null)
          if (viaSyntax !== undefined) found.push(`runtime, ${dialect} ${JSON.stringify(text)}: ${viaSyntax}`)
        }
        return found
      })
      assert.isAbove(CASES.length, 500)
      assert.deepStrictEqual(problems, [])
    })
  )

  it.effect("a runtime reader that misreads a probe is not used", () =>
    Effect.gen(function* () {
      // Parsers of its own: verifiedReader deletes the trees it parses.
      const files = ShellParser.files()
      const parsers = yield* Effect.promise(async () => ({
        bash: new Parser().setLanguage(await Language.load(fs.readFileSync(files.bash))),
        powershell: new Parser().setLanguage(await Language.load(fs.readFileSync(files.powershell)))
      }))
      const parse = (text: string, dialect: ShellParser.Dialect) => parsers[dialect].parse(text)!
      // A reader that gets one thing wrong: the end of the last node.
      const skewed = (tree: Tree, source: string): SyntaxNode => {
        const root = copyTree(tree, source)
        let last = root
        while (last.children.length > 0) last = last.children[last.children.length - 1]!
        Object.assign(last, { endIndex: last.endIndex + 1 })
        return root
      }
      const honest = (tree: Tree, source: string): SyntaxNode => copyTree(tree, source)
      const throwing = (): SyntaxNode => {
        throw new Error("unexpected transfer buffer")
      }
      for (const dialect of ["bash", "powershell"] as const) {
        assert.strictEqual(verifiedReader(skewed, parse, dialect), copyTree)
        assert.strictEqual(verifiedReader(throwing, parse, dialect), copyTree)
        assert.strictEqual(verifiedReader(undefined, parse, dialect), copyTree)
        assert.strictEqual(verifiedReader(honest, parse, dialect), honest)
      }
      const tree = parse("echo x", "bash")
      assert.isFalse(sameTree(skewed(tree, "echo x"), copyTree(tree, "echo x")))
      // The first tree of a process is copied both ways: the cursor's copy, and whether they agreed.
      for (const [reader, agreed] of [
        [honest, true],
        [skewed, false],
        [throwing, false],
        [undefined, false]
      ] as const) {
        const checked = crossChecked(reader, tree, "echo x")
        assert.strictEqual(checked.agreed, agreed)
        assert.isTrue(sameTree(checked.copy, copyTree(tree, "echo x")))
      }
      tree.delete()
      parsers.bash.delete()
      parsers.powershell.delete()
    })
  )

  it("an object that is not the runtime gives no runtime reader", () => {
    assert.isUndefined(wasmTreeReader({}))
    assert.isUndefined(wasmTreeReader({ _ts_tree_root_node_wasm: () => 0 }))
  })
})
