// What each command loads at start: the static imports of its chunk in the bundle, followed
// transitively (dynamic `import()` is a later, lazy load and is not followed). `check` must
// not load the model code that `chat` and `serve` need (LanguageModel, the provider packages).
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"

const dist = NodePath.resolve(import.meta.dirname, "../dist")
const read = (name: string) => NodeFs.readFileSync(NodePath.join(dist, name), "utf8")

// `import{a as b}from"./X.js"`, `import*as e from"./X.js"`, `import"./X.js"`, `export{…}from"./X.js"`.
const STATIC = /(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]*?from\s*)?["']\.\/([\w.-]+\.js)["']/g

const closure = (chunk: string): Set<string> => {
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name)) return
    seen.add(name)
    for (const match of read(name).matchAll(STATIC)) visit(match[1]!)
  }
  visit(chunk)
  return seen
}

/** The chunk `gatehouse.js` loads for `command`. */
const chunkOf = (command: string): string => {
  const match = new RegExp(`import\\(["'\`]\\./(${command}-[\\w-]+\\.js)["'\`]\\)`).exec(read("gatehouse.js"))
  assert.isNotNull(match, `gatehouse.js loads a chunk for ${command}`)
  return match![1]!
}

const modelCode = (chunks: Set<string>) =>
  [...chunks].filter((name) => /^(LanguageModel|ModelChoice|Anthropic\w*|OpenAi\w*)-/.test(name))

describe("the bundle's start-up chunks", () => {
  it("check loads no model code; chat does (so the check is not vacuous)", () => {
    assert.deepStrictEqual(modelCode(closure(chunkOf("check"))), [])
    assert.deepStrictEqual(modelCode(closure(chunkOf("run"))), [])
    const chat = modelCode(closure(chunkOf("chat")))
    assert.includeMembers(
      chat.map((name) => name.split("-")[0]),
      ["LanguageModel", "ModelChoice"]
    )
  })
})
