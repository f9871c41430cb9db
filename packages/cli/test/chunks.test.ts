// What each command loads at start: the static imports of its chunk in the bundle, followed
// transitively (dynamic `import()` is a later, lazy load and is not followed). The commands
// run with a code cache are one CommonJS file each: every `require` of a chunk is followed,
// lazy or not. `check` must not load the model code that `chat` and `serve` need
// (LanguageModel, the provider packages).
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"

const dist = NodePath.resolve(import.meta.dirname, "../dist")
const read = (name: string) => NodeFs.readFileSync(NodePath.join(dist, name), "utf8")

// `import{a as b}from"./X.js"`, `import*as e from"./X.js"`, `import"./X.js"`, `export{…}from"./X.js"`.
const STATIC = /(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]*?from\s*)?["']\.\/([\w.-]+\.js)["']/g
// `require("./X.cjs")`, with any quotes.
const REQUIRE = /require\(["'`]\.\/([\w.-]+\.cjs)["'`]\)/g

const closure = (chunk: string): Set<string> => {
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name)) return
    seen.add(name)
    const text = read(name)
    for (const match of text.matchAll(name.endsWith(".cjs") ? REQUIRE : STATIC)) visit(match[1]!)
  }
  visit(chunk)
  return seen
}

/** The file `gatehouse.js` loads for `command`: its chunk, or the CommonJS file its cache loader runs. */
const chunkOf = (command: string): string => {
  const match = new RegExp(`import\\(["'\`]\\./([\\w-]*${command}-[\\w-]+\\.js)["'\`]\\)`).exec(
    read("gatehouse.js")
  )
  assert.isNotNull(match, `gatehouse.js loads a chunk for ${command}`)
  const cached = new RegExp(`["'\`]\\./(${command}-[\\w-]+\\.cjs)["'\`]`).exec(read(match![1]!))
  return cached === null ? match![1]! : cached[1]!
}

const modelCode = (chunks: Set<string>) =>
  [...chunks].filter(
    (name) =>
      /^(LanguageModel|ModelChoice|Anthropic\w*|OpenAi\w*)-/.test(name) ||
      read(name).includes("effect/ai/LanguageModel")
  )

describe("the bundle's start-up chunks", () => {
  it("check, run and hook load no model code; chat and serve do (so the check is not vacuous)", () => {
    assert.match(chunkOf("check"), /^check-[\w-]+\.cjs$/)
    for (const command of ["check", "run", "hook"])
      assert.deepStrictEqual(modelCode(closure(chunkOf(command))), [], command)
    assert.isNotEmpty(modelCode(closure(chunkOf("serve"))))
    const chat = modelCode(closure(chunkOf("chat")))
    assert.include(
      chat.map((name) => name.split("-")[0]),
      "LanguageModel"
    )
  })
})
