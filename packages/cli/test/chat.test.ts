// `gatehouse chat --prompt` as a process against a fake Anthropic Messages server on
// 127.0.0.1: a whole turn (the model asks for a command, --yes approves, the command runs,
// its result reaches the server, the model answers), --continue, and the errors a person
// gets before any request (a missing key, an unknown provider, no base URL).
import { type ChildProcess, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
// The session package's fake providers, speaking each provider's streaming protocol.
import * as FakeProviders from "../../session/test/fakeProviders.ts"
import { blocks } from "./anthropicBlocks.ts"

const bin = NodePath.resolve(import.meta.dirname, "../dist/gatehouse.js")
const KEY = "sk-ant-chat-test-4f1c9e"

const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

const project = () => {
  const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-chat-"))
  const directory = NodePath.join(root, "project")
  NodeFs.mkdirSync(directory)
  cleanup.push(() => NodeFs.rmSync(root, { recursive: true, force: true }))
  return { directory, data: NodePath.join(root, "data") }
}

const fake = async (
  steps: ReadonlyArray<FakeProviders.Step>,
  provider: FakeProviders.Provider = "anthropic"
) => {
  const server = await FakeProviders.start(provider, steps)
  cleanup.push(server.close)
  return server
}

const chat = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  started?: (child: ChildProcess) => void
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const { ANTHROPIC_API_KEY: _, OPENAI_API_KEY: __, GATEHOUSE_API_KEY: ___, ...rest } = process.env
    const child = spawn(process.execPath, [bin, "chat", ...args], {
      env: { ...rest, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    started?.(child)
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** The flags for the fake Anthropic `server`, in `directory`, then `rest`. */
const claude = (server: FakeProviders.FakeProvider, directory: string, ...rest: ReadonlyArray<string>) => [
  "--model",
  "anthropic/claude-test",
  "--base-url",
  server.baseUrl,
  "--cwd",
  directory,
  ...rest
]

/** Every file under `dir`, as text. */
const contents = (dir: string): string =>
  NodeFs.existsSync(dir)
    ? (NodeFs.readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<NodeFs.Dirent>)
        .filter((entry) => entry.isFile())
        .map((entry) => NodeFs.readFileSync(NodePath.join(entry.parentPath, entry.name), "utf8"))
        .join("\n")
    : ""

describe("gatehouse chat --prompt", () => {
  it("a whole turn: the model asks for a command, --yes approves, the result goes back, the answer is on stdout", {
    timeout: 60_000
  }, async () => {
    const { directory, data } = project()
    // A script of the project: the gate does not know what it does, so it asks.
    NodeFs.writeFileSync(NodePath.join(directory, "tool.sh"), "echo chat-$((6*7)) > out.txt && cat out.txt\n")
    const server = await fake([
      {
        type: "reply",
        calls: [{ id: "toolu_01", name: "bash", input: { command: "sh tool.sh" } }]
      },
      { type: "reply", text: "The command printed chat-42." }
    ])
    const env = { ANTHROPIC_API_KEY: KEY, XDG_DATA_HOME: data }
    const args = claude(server, directory, "--yes")
    const run = await chat([...args, "--prompt", "Run the command, please."], env)
    assert.strictEqual(run.code, 0, run.stderr)
    // stdout holds the answer alone; the tool call and the ask went to stderr.
    assert.strictEqual(run.stdout, "The command printed chat-42.\n")
    assert.include(run.stderr, "bash wants to run")
    assert.include(run.stderr, "allowed once (--yes)")
    assert.include(run.stderr, "✓ bash")
    assert.include(run.stderr, "│ chat-42")
    assert.notInclude(run.stderr + run.stdout, "<command_status>")
    assert.strictEqual(NodeFs.readFileSync(NodePath.join(directory, "out.txt"), "utf8"), "chat-42\n")

    assert.strictEqual(server.requests.length, 2)
    const [first, second] = server.requests
    assert.strictEqual(first!.path, "/v1/messages")
    assert.strictEqual(first!.headers["x-api-key"], KEY)
    assert.strictEqual(first!.body.model, "claude-test")
    assert.includeMembers(
      (first!.body.tools ?? []).map((tool: { name: string }) => tool.name),
      ["bash", "read", "write", "edit", "list"]
    )
    // The command's result reached the model as Anthropic's tool_result for its call.
    const result = blocks(second!).find((block) => block.type === "tool_result")
    assert.strictEqual(result?.tool_use_id, "toolu_01")
    assert.strictEqual(result?.is_error, false)
    assert.include(JSON.stringify(result?.content), "chat-42")

    // The session is stored: --continue sends the whole conversation with the next prompt.
    const again = await fake([{ type: "reply", text: "Still here." }])
    const resumed = await chat(claude(again, directory, "--continue", "--prompt", "And now?"), env)
    assert.strictEqual(resumed.code, 0, resumed.stderr)
    assert.strictEqual(resumed.stdout, "Still here.\n")
    assert.include(resumed.stderr, "resuming session")
    // The earlier conversation is shown again, on stderr, before the new turn.
    assert.match(
      resumed.stderr,
      /── earlier in this session ──\nyou> Run the command, please\.\n[\s\S]*✓ bash [\s\S]*The command printed chat-42\.\n── now ──/
    )
    const history = blocks(again.requests[0]!)
    assert.deepStrictEqual(
      history.filter((block) => block.type === "text").map((block) => block.text),
      ["Run the command, please.", "The command printed chat-42.", "And now?"]
    )
    assert.isDefined(
      history.find((block) => block.type === "tool_result" && block.tool_use_id === "toolu_01")
    )
    // --session ID resumes that session by the id the chat printed; an unknown id is an error.
    const id = /session (ses_\w+) is stored/.exec(run.stderr)?.[1]
    assert.isDefined(id, run.stderr)
    const named = await fake([{ type: "reply", text: "By name." }])
    const byId = await chat(claude(named, directory, "--session", id!, "--prompt", "Still?"), env)
    assert.strictEqual(byId.code, 0, byId.stderr)
    assert.include(byId.stderr, `resuming session ${id}`)
    assert.strictEqual(
      blocks(named.requests[0]!).filter((block) => block.type === "text")[0]?.text,
      "Run the command, please."
    )
    const unknown = await chat(claude(named, directory, "--session", "ses_nope", "--prompt", "x"), env)
    assert.strictEqual(unknown.code, 2)
    assert.include(unknown.stderr, "no session ses_nope in this project")
    const both = await chat(claude(named, directory, "--session", id!, "--continue", "--prompt", "x"), env)
    assert.strictEqual(both.code, 2)
    assert.include(both.stderr, "--continue and --session: choose one")
    // The key was sent, never stored.
    assert.notInclude(contents(data), KEY)
  })

  it("without a terminal or --yes an ask fails closed: the command does not run, exit 1 with the reason", {
    timeout: 60_000
  }, async () => {
    const { directory, data } = project()
    NodeFs.writeFileSync(NodePath.join(directory, "tool.sh"), "touch ran.txt\n")
    const server = await fake([
      { type: "reply", calls: [{ id: "toolu_02", name: "bash", input: { command: "sh tool.sh" } }] },
      { type: "reply", text: "It was refused." }
    ])
    const run = await chat(claude(server, directory, "--prompt", "Touch it."), {
      ANTHROPIC_API_KEY: KEY,
      XDG_DATA_HOME: data
    })
    assert.isFalse(NodeFs.existsSync(NodePath.join(directory, "ran.txt")))
    assert.strictEqual(run.code, 1, run.stderr)
    assert.include(run.stderr, "✗ bash")
    assert.include(run.stderr, "needs approval, but this run is not interactive")
    assert.include(run.stderr, "sh tool.sh")
    assert.include(run.stderr, "pass --yes")
    // A refusal stops the turn: the model is not called again.
    assert.strictEqual(server.requests.length, 1)

    // --mode yolo approves the ask itself: the command runs without a person.
    const yolo = await fake([
      { type: "reply", calls: [{ id: "toolu_03", name: "bash", input: { command: "sh tool.sh" } }] },
      { type: "reply", text: "Touched." }
    ])
    const approved = await chat(claude(yolo, directory, "--mode", "yolo", "--prompt", "Touch it."), {
      ANTHROPIC_API_KEY: KEY,
      XDG_DATA_HOME: data
    })
    assert.strictEqual(approved.code, 0, approved.stderr)
    assert.isTrue(NodeFs.existsSync(NodePath.join(directory, "ran.txt")))
    assert.strictEqual(approved.stdout, "Touched.\n")
  })

  // A turn whose model never answers, and `signal` sent once the request is in.
  const signalledTurn = async (signal: NodeJS.Signals) => {
    const { directory, data } = project()
    const server = await fake([{ type: "stall" }])
    let child: ChildProcess | undefined
    const running = chat(
      claude(server, directory, "--prompt", "hi"),
      { ANTHROPIC_API_KEY: KEY, XDG_DATA_HOME: data },
      (c) => (child = c)
    )
    const deadline = Date.now() + 20_000
    while (server.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
    assert.strictEqual(server.requests.length, 1)
    child!.kill(signal)
    return running
  }

  it("Ctrl-C during the turn interrupts it: exit 130", { timeout: 60_000 }, async () => {
    const run = await signalledTurn("SIGINT")
    assert.strictEqual(run.code, 130, run.stderr)
    assert.include(run.stderr, "gatehouse chat: interrupted")
  })

  it("SIGTERM during the turn ends the chat with 143, not as a Ctrl-C", { timeout: 60_000 }, async () => {
    const run = await signalledTurn("SIGTERM")
    assert.strictEqual(run.code, 143, run.stderr)
    assert.include(run.stderr, "terminated (SIGTERM)")
  })

  it("a missing key names its variable before any request, and no key is ever printed", {
    timeout: 60_000
  }, async () => {
    const { directory, data } = project()
    const server = await fake([{ type: "reply", text: "never" }])
    const missing = await chat(claude(server, directory, "--prompt", "hi"), {
      XDG_DATA_HOME: data,
      OPENAI_API_KEY: KEY
    })
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "ANTHROPIC_API_KEY")
    assert.notInclude(missing.stderr + missing.stdout, KEY)
    assert.strictEqual(server.requests.length, 0)

    // A provider that refuses the key: the error is shown, the key is not (nor stored).
    const refusing = await fake([{ type: "status", status: 401, message: "invalid x-api-key" }])
    const refused = await chat(claude(refusing, directory, "--prompt", "hi"), {
      XDG_DATA_HOME: data,
      ANTHROPIC_API_KEY: KEY
    })
    assert.strictEqual(refused.code, 1, refused.stderr)
    assert.isAbove(refusing.requests.length, 0)
    assert.notInclude(refused.stderr + refused.stdout, KEY)
    // A model error is not blamed on asks nobody answered.
    assert.notInclude(refused.stderr, "pass --yes")
    assert.notInclude(contents(data), KEY)
  })

  it("an unknown provider, a model nowhere, openai-compatible without a URL: exit 2 before any request", {
    timeout: 60_000
  }, async () => {
    const { directory, data } = project()
    const env = { XDG_DATA_HOME: data }
    const cases: Array<[ReadonlyArray<string>, RegExp]> = [
      [["--model", "gemini/flash"], /--model: .*unknown provider "gemini"/],
      [[], /no model: pass --model/],
      [["--model", "openai-compatible/qwen3"], /needs the server's URL: pass --base-url/]
    ]
    for (const [args, expected] of cases) {
      const run = await chat([...args, "--cwd", directory, "--prompt", "hi"], env)
      assert.strictEqual(run.code, 2, run.stderr)
      assert.match(run.stderr, expected)
    }
    const config = NodePath.join(directory, "gatehouse.json")
    NodeFs.writeFileSync(config, JSON.stringify({ model: "gemini/flash" }))
    const fromFile = await chat(["--cwd", directory, "--prompt", "hi"], env)
    assert.strictEqual(fromFile.code, 2)
    assert.match(fromFile.stderr, /gatehouse\.json: model "gemini\/flash": unknown provider "gemini"/)
    NodeFs.writeFileSync(
      config,
      JSON.stringify({
        model: "openai-compatible/q",
        provider: { ollama: { base_url: "http://127.0.0.1:11434/v1" } }
      })
    )
    const badBlock = await chat(["--cwd", directory, "--prompt", "hi"], env)
    assert.strictEqual(badBlock.code, 2)
    assert.include(badBlock.stderr, 'provider["ollama"]: unknown provider')
  })

  it("a local server through openai-compatible: model and base URL from --config, no key needed", {
    timeout: 60_000
  }, async () => {
    const { directory, data } = project()
    const server = await fake(
      [
        { type: "reply", calls: [{ id: "call_1", name: "bash", input: { command: "echo local-$((6*7))" } }] },
        { type: "reply", text: "The local model saw local-42." }
      ],
      "openai-compatible"
    )
    // A config file of its own (--config), beside the project.
    const config = NodePath.join(NodePath.dirname(directory), "local-model.json")
    NodeFs.writeFileSync(
      config,
      JSON.stringify({
        model: "openai-compatible/qwen3",
        provider: { "openai-compatible": { base_url: server.baseUrl } }
      })
    )
    const run = await chat(["--cwd", directory, "--config", config, "--yes", "--prompt", "hi"], {
      XDG_DATA_HOME: data
    })
    assert.include(run.stderr, `openai-compatible/qwen3 (from ${config})`)
    assert.strictEqual(run.code, 0, run.stderr)
    assert.strictEqual(run.stdout, "The local model saw local-42.\n")
    // A harmless command goes ahead under the built-in defaults: nothing was asked.
    assert.notInclude(run.stderr, "wants to run")
    assert.include(run.stderr, "✓ bash")
    assert.strictEqual(server.requests.length, 2)
    assert.strictEqual(server.requests[0]!.path, "/v1/chat/completions")
    assert.strictEqual(server.requests[0]!.body.model, "qwen3")
    assert.isUndefined(server.requests[0]!.headers.authorization)
    // Chat Completions' tool message for the call, with the command's output.
    const tool = server.requests[1]!.body.messages.find(
      (message: { role: string }) => message.role === "tool"
    )
    assert.strictEqual(tool?.tool_call_id, "call_1")
    assert.include(JSON.stringify(tool?.content), "local-42")
  })
})
