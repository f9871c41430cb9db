// scripts/bundle.ts: a rebuild never leaves a moment without a whole bundle, and `--if-stale`
// does not rebuild what is current (the copies it makes of web/ and demo/ are not sources).
import { spawn, spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = NodePath.resolve(import.meta.dirname, "../..")
const script = NodePath.join(root, "scripts", "bundle.ts")
const dist = NodePath.join(root, "packages", "cli", "dist")
const entry = NodePath.join(dist, "gatehouse.js")

const bundle = (...args: Array<string>) => {
  const ran = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: "utf8" })
  assert.strictEqual(ran.status, 0, ran.stderr)
}

describe("scripts/bundle.ts", () => {
  it("--if-stale leaves a current bundle alone", () => {
    bundle("--if-stale")
    const before = NodeFs.statSync(entry)
    bundle("--if-stale")
    const after = NodeFs.statSync(entry)
    assert.strictEqual(after.ino, before.ino)
    assert.strictEqual(after.mtimeMs, before.mtimeMs)
  })

  it("a rebuild swaps the files in: the entry point and the chunks it names are there throughout", async () => {
    const child = spawn(process.execPath, [script], { cwd: root, stdio: "ignore" })
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
    let done = false
    void exited.then(() => (done = true))
    let looks = 0
    while (!done) {
      const text = NodeFs.readFileSync(entry, "utf8")
      const chunks = [...text.matchAll(/["'`]\.\/([\w.-]+\.js)["'`]/g)].map((match) => match[1]!)
      assert.isNotEmpty(chunks, "gatehouse.js names its lazy chunks")
      for (const chunk of chunks) {
        assert.isTrue(
          NodeFs.existsSync(NodePath.join(dist, chunk)),
          `${chunk} named by gatehouse.js is missing`
        )
      }
      looks++
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    assert.strictEqual(await exited, 0)
    assert.isAbove(looks, 10)
    assert.isFalse(
      NodeFs.readdirSync(NodePath.join(root, "packages", "cli")).some((name) => name.startsWith(".bundle-")),
      "the staging folder is removed"
    )
  }, 60_000)
})

// What `gatehouse` gets of the provider packages once a command uses Model: rolldown, as
// scripts/bundle.ts runs it, takes the workspace's patched copies into the bundle (the
// lazy imports become chunks), so the bundle runs with no node_modules at all.
describe("a bundle using Model", () => {
  it("gatehouse.js's chunks hold the three provider packages, patched", () => {
    bundle("--if-stale")
    const text = NodeFs.readdirSync(dist)
      .filter((file) => file.endsWith(".js"))
      .map((file) => NodeFs.readFileSync(NodePath.join(dist, file), "utf8"))
      .join("\n")
    for (const path of ["/v1/messages", "/responses", "/chat/completions"]) assert.include(text, path)
    assert.notInclude(text, "effect/unstable/")
  })

  it("carries the patched provider packages and streams from each fake provider", async () => {
    const { build } = await import("rolldown")
    const { builtinModules } = await import("node:module")
    const work = NodeFs.realpathSync(
      NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-bundle-model-"))
    )
    try {
      const session = NodePath.join(root, "packages", "session")
      NodeFs.writeFileSync(
        NodePath.join(work, "entry.ts"),
        `import * as Model from ${JSON.stringify(NodePath.join(session, "src", "Model.ts"))}
import { start } from ${JSON.stringify(NodePath.join(session, "test", "fakeProviders.ts"))}
import * as Effect from "${NodePath.join(session, "node_modules", "effect", "dist", "Effect.js")}"
import * as Stream from "${NodePath.join(session, "node_modules", "effect", "dist", "Stream.js")}"
import * as LanguageModel from "${NodePath.join(session, "node_modules", "effect", "dist", "ai", "LanguageModel.js")}"
for (const provider of Model.providers) {
  const server = await start(provider, [{ type: "reply", text: "bundled " + provider }])
  const parts = await Effect.runPromise(
    LanguageModel.streamText({ prompt: "hi" }).pipe(
      Stream.runCollect,
      Effect.provide(Model.layer({ spec: { provider, id: "m" }, baseUrl: server.baseUrl, env: { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" } }))
    )
  )
  console.log(parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : [])).join(""))
  await server.close()
}
`
      )
      await build({
        input: NodePath.join(work, "entry.ts"),
        platform: "node",
        external: [...builtinModules, /^node:/],
        logLevel: "silent",
        output: { dir: NodePath.join(work, "dist"), format: "esm", minify: true }
      })
      const files = NodeFs.readdirSync(NodePath.join(work, "dist"))
      assert.isAbove(files.length, 1, "the provider packages are lazy chunks")
      const text = files
        .map((file) => NodeFs.readFileSync(NodePath.join(work, "dist", file), "utf8"))
        .join("")
      assert.notInclude(text, "effect/unstable/")
      NodeFs.rmSync(NodePath.join(work, "entry.ts"))
      const ran = spawnSync(process.execPath, [NodePath.join(work, "dist", "entry.js")], {
        cwd: work,
        encoding: "utf8",
        timeout: 30_000
      })
      assert.strictEqual(ran.status, 0, ran.stderr)
      assert.strictEqual(ran.stdout, "bundled anthropic\nbundled openai\nbundled openai-compatible\n")
    } finally {
      NodeFs.rmSync(work, { recursive: true, force: true })
    }
  }, 60_000)
})
