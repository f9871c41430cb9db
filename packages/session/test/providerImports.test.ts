// The runtime redirect for an installed Gatehouse: the provider packages as the registry
// serves them (the workspace's copies with the patches taken back out), beside effect 4.1,
// fail at import without the hook and stream answers from the fake servers with it.
import { spawnSync } from "node:child_process"
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"

const session = NodePath.resolve(import.meta.dirname, "..")
const root = NodePath.resolve(session, "..", "..")
const work = realpathSync(mkdtempSync(NodePath.join(tmpdir(), "gatehouse-provider-imports-")))
const packages = [
  ["ai-anthropic", "4.0.0-beta.106"],
  ["ai-openai", "4.0.0-beta.106"],
  ["ai-openai-compat", "4.0.0-beta.98"]
] as const

const script = `
import { register } from ${JSON.stringify(pathToFileURL(NodePath.join(session, "src/internal/providerImports.ts")).href)}
import { start } from ${JSON.stringify(pathToFileURL(NodePath.join(session, "test/fakeProviders.ts")).href)}
if (process.argv[2] === "hook") register()
const { Effect, Layer, Redacted, Stream } = await import("effect")
const LanguageModel = await import("effect/ai/LanguageModel")
const Fetch = await import("effect/http/FetchHttpClient")
const modules = {
  anthropic: ["@effect/ai-anthropic/AnthropicClient", "@effect/ai-anthropic/AnthropicLanguageModel"],
  openai: ["@effect/ai-openai/OpenAiClient", "@effect/ai-openai/OpenAiLanguageModel"],
  "openai-compatible": ["@effect/ai-openai-compat/OpenAiClient", "@effect/ai-openai-compat/OpenAiLanguageModel"]
}
for (const [provider, [client, model]] of Object.entries(modules)) {
  const Client = await import(client)
  const Model = await import(model)
  const server = await start(provider, [
    { type: "reply", text: "hello from " + provider },
    { type: "reply", text: "ok" }
  ])
  const layer = Model.layer({ model: "m" }).pipe(
    Layer.provide(Client.layer({ apiKey: Redacted.make("k"), apiUrl: server.baseUrl })),
    Layer.provide(Fetch.layer)
  )
  const parts = await Effect.runPromise(
    LanguageModel.streamText({ prompt: "hi" }).pipe(Stream.runCollect, Effect.provide(layer))
  )
  console.log(parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : [])).join(""))
  // A tool's string result, as the next request carries it.
  const history = [
    { role: "user", content: "run it" },
    { role: "assistant", content: [{ type: "tool-call", id: "call_1", name: "bash", params: { command: "echo hi" } }] },
    { role: "tool", content: [{ type: "tool-result", id: "call_1", name: "bash", isFailure: false, result: "hi\\n" }] }
  ]
  await Effect.runPromise(
    LanguageModel.streamText({ prompt: history }).pipe(Stream.runCollect, Effect.provide(layer))
  )
  const body = server.requests[1].body
  const sent =
    provider === "anthropic"
      ? body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((c) => c.type === "tool_result").content
      : provider === "openai"
        ? body.input.find((item) => item.type === "function_call_output").output
        : body.messages.find((m) => m.role === "tool").content
  console.log(JSON.stringify(sent))
  await server.close()
}
`

beforeAll(() => {
  const scope = NodePath.join(work, "node_modules", "@effect")
  mkdirSync(scope, { recursive: true })
  const require = createRequire(NodePath.join(session, "package.json"))
  for (const [name, version] of packages) {
    const installed = NodePath.dirname(require.resolve(`@effect/${name}/package.json`))
    const copy = NodePath.join(scope, name)
    cpSync(installed, copy, { recursive: true, dereference: true })
    // Back to the published files: the patch, reversed.
    const patch = NodePath.join(root, "patches", `@effect__${name}@${version}.patch`)
    const reversed = spawnSync("git", ["apply", "-R", patch], { cwd: copy, encoding: "utf8" })
    assert.strictEqual(reversed.status, 0, reversed.stderr)
  }
  symlinkSync(
    realpathSync(NodePath.join(session, "node_modules", "effect")),
    NodePath.join(work, "node_modules", "effect")
  )
  writeFileSync(NodePath.join(work, "run.mjs"), script)
}, 60_000)

afterAll(() => rmSync(work, { recursive: true, force: true }))

const run = (...args: Array<string>) =>
  spawnSync(process.execPath, ["run.mjs", ...args], { cwd: work, encoding: "utf8", timeout: 60_000 })

describe("provider packages as published, on effect 4.1", () => {
  it("are the unpatched files", () => {
    const client = readFileSync(
      NodePath.join(work, "node_modules/@effect/ai-anthropic/dist/AnthropicClient.js"),
      "utf8"
    )
    assert.include(client, `from "effect/unstable/http/HttpClient"`)
  })

  it("fail at import without the redirect", () => {
    const result = run()
    assert.notStrictEqual(result.status, 0)
    // effect 4.1 has no unstable/ modules left to find.
    assert.match(result.stderr, /ERR_MODULE_NOT_FOUND[\s\S]*effect\/dist\/unstable\//)
  })

  it("load and stream each provider's answer with it", () => {
    const result = run("hook")
    assert.strictEqual(result.status, 0, result.stderr)
    // Each answer, then the tool result as sent: the command's text, not a JSON string of it.
    assert.strictEqual(
      result.stdout,
      ["anthropic", "openai", "openai-compatible"].map((p) => `hello from ${p}\n"hi\\n"\n`).join("")
    )
  })
})
