// `gatehouse serve --model`: the web page's prompt box talks to that model. The real
// command, a fake Anthropic Messages server on 127.0.0.1 and headless Chromium on the page.
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
// The server package's Chromium (its devDependency playwright-core), as its own page tests use it.
import { browser } from "../../server/test/chromium.ts"
// The session package's fake providers, speaking each provider's streaming protocol.
import * as FakeProviders from "../../session/test/fakeProviders.ts"

const bin = NodePath.resolve(import.meta.dirname, "../dist/gatehouse.js")

const serve = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const { ANTHROPIC_API_KEY: _, ...rest } = process.env
  const child = spawn(process.execPath, [bin, "serve", ...args], {
    env: { ...rest, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  let err = ""
  child.stdout.on("data", (chunk) => (out += chunk))
  child.stderr.on("data", (chunk) => (err += chunk))
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const printed = async (pattern: RegExp, ms = 20_000) => {
    const deadline = Date.now() + ms
    while (true) {
      const match = pattern.exec(out)
      if (match !== null) return match
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`not printed: ${pattern}\nstdout: ${out}\nstderr: ${err}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
  return { child, exit, printed, output: () => ({ out, err }) }
}

const tempRoot = () => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-serve-model-"))

describe("gatehouse serve --model", () => {
  it.effect(
    "the page's prompt reaches the model; its command is asked for, runs, and its result goes back",
    () =>
      Effect.gen(function* () {
        const root = tempRoot()
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
        )
        const fake = yield* Effect.acquireRelease(
          Effect.promise(() =>
            FakeProviders.start("anthropic", [
              {
                type: "reply",
                calls: [{ id: "toolu_web", name: "bash", input: { command: "echo serve-$((6*7))" } }]
              },
              { type: "reply", text: "The shell said serve-42." }
            ])
          ),
          (server) => Effect.promise(server.close)
        )
        const server = yield* Effect.acquireRelease(
          Effect.sync(() =>
            serve(
              [
                "--cwd",
                root,
                "--sandbox",
                "off",
                "--model",
                "anthropic/claude-test",
                "--base-url",
                fake.baseUrl
              ],
              {
                ANTHROPIC_API_KEY: "sk-ant-serve-test",
                GATEHOUSE_SERVER_TOKEN: "serve-model-token",
                XDG_DATA_HOME: NodePath.join(root, ".data")
              }
            )
          ),
          (server) =>
            Effect.promise(async () => {
              server.child.kill("SIGINT")
              await server.exit
            })
        )
        const [, pageUrl] = yield* Effect.promise(() => server.printed(/web page\s+(\S+)/))
        assert.match(server.output().out, /model\s+anthropic\/claude-test \(from --model\)/)
        const context = yield* browser
        yield* Effect.promise(async () => {
          const page = await context.newPage()
          await page.goto(pageUrl!)
          await page.getByRole("status").filter({ hasText: "live" }).waitFor()
          const prompt = page.getByLabel("Prompt", { exact: true })
          await prompt.fill("Run the greeting, please.")
          await prompt.press("Control+Enter")
          const ask = page.getByRole("article", { name: /Permission request: bash/ })
          await ask.waitFor()
          assert.include((await ask.textContent()) ?? "", "echo serve-$((6*7))")
          await ask.getByRole("button", { name: "Allow once" }).click()
          const tool = page.locator('[data-tool-state="completed"]')
          await tool.waitFor()
          assert.include((await tool.textContent()) ?? "", "serve-42")
          await page.getByText("The shell said serve-42.").waitFor()
        })
        assert.strictEqual(fake.requests.length, 2)
        assert.strictEqual(fake.requests[0]!.body.model, "claude-test")
        const last = fake.requests[1]!.body.messages.at(-1)!
        assert.include(JSON.stringify(last.content), '"tool_use_id":"toolu_web"')
        assert.include(JSON.stringify(last.content), "serve-42")
      }).pipe(Effect.scoped),
    90_000
  )

  it("an unknown provider or a missing key: exit 2 before it serves", async () => {
    const root = tempRoot()
    NodeFs.writeFileSync(NodePath.join(root, "s.json"), JSON.stringify({ turns: [] }))
    try {
      for (const [args, expected] of [
        [["--model", "gemini/flash"], /unknown provider "gemini"/],
        [["--model", "anthropic/claude-test"], /ANTHROPIC_API_KEY/],
        [["--model", "openai-compatible/q"], /--base-url/],
        [
          ["--model", "anthropic/x", "--script", NodePath.join(root, "s.json")],
          /--model and --script: choose one/
        ]
      ] as const) {
        const server = serve(["--cwd", root, ...args], { XDG_DATA_HOME: NodePath.join(root, ".data") })
        assert.strictEqual(await server.exit, 2, server.output().err)
        assert.match(server.output().err, expected)
        assert.notMatch(server.output().out, /web page/)
      }
    } finally {
      NodeFs.rmSync(root, { recursive: true, force: true })
    }
  }, 60_000)
})
