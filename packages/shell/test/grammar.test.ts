// The allow-list of syntax: every named node type of both installed grammars is classified
// (walked, inert or unmodelled), so a grammar upgrade cannot add a node the walk trusts
// without anyone deciding it.
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { BASH_SYNTAX, POWERSHELL_SYNTAX } from "../src/internal/grammar.ts"

const namedTypes = (grammar: string): Array<string> => {
  const file = fileURLToPath(new URL(`../node_modules/${grammar}/src/node-types.json`, import.meta.url))
  const types = JSON.parse(fs.readFileSync(file, "utf8")) as Array<{ type: string; named: boolean }>
  // Supertypes (`_expression`) never appear in a tree.
  return types.filter((t) => t.named && !t.type.startsWith("_")).map((t) => t.type)
}

describe("syntax allow-list", () => {
  for (const [grammar, table] of [
    ["tree-sitter-bash", BASH_SYNTAX],
    ["tree-sitter-powershell", POWERSHELL_SYNTAX]
  ] as const) {
    it(`${grammar}: every named node type is classified`, () => {
      const types = namedTypes(grammar)
      assert.isAbove(types.length, 50)
      const missing = types.filter((type) => !table.has(type))
      assert.deepStrictEqual(missing, [], `unclassified node types of ${grammar}`)
    })
    it(`${grammar}: the table names no type the grammar lacks`, () => {
      const types = new Set(namedTypes(grammar))
      assert.deepStrictEqual(
        [...table.keys()].filter((type) => !types.has(type)),
        []
      )
    })
  }
})
