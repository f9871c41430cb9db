// `gatehouse mcp`, the real bundle as a real process on stdio, in a real project.
//
// MCP, https://modelcontextprotocol.io/specification/2025-11-25 — stdio transport: the
// client starts the server and writes JSON-RPC 2.0 messages to its stdin, one per line
// (newline-delimited, no embedded newlines); the server writes only MCP messages to stdout
// and may log on stderr; closing stdin ends the session. Lifecycle: `initialize`
// (`protocolVersion`, `capabilities`, `clientInfo`) answered with the server's
// `capabilities`, then the `notifications/initialized` notification. Tools: `tools/list`,
// `tools/call` (`name`, `arguments`) answered with `content`, `structuredContent` and
// `isError`. Elicitation (client capability `elicitation`, `{}` meaning form mode): the
// server sends `elicitation/create` (`mode` "form", `message`, `requestedSchema`) and the
// client answers `action` accept (with `content`) | decline | cancel.
//
// effect/ai's McpClient advertises no client capabilities (it answers server requests with
// an error), so it drives the calls without elicitation; the elicitation cases use a
// client written here from the spec.
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "effect/ai/McpClient"
import * as McpProtocol from "effect/ai/McpProtocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "effect/process/ChildProcess"
import { afterAll, beforeAll } from "vitest"

const root = NodePath.resolve(import.meta.dirname, "..", "..", "..")
const bin = NodePath.join(root, "packages", "cli", "dist", "gatehouse.js")
const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-mcp-")))
const project = NodePath.join(base, "project")
// Approvals ("always") and spills go under the test's own data directory.
const env = { ...process.env, XDG_DATA_HOME: NodePath.join(base, "data") }

beforeAll(() => {
  // The bundle is built once before the run (scripts/test/bundle.setup.ts).
  NodeFs.mkdirSync(NodePath.join(project, ".git"), { recursive: true })
  NodeFs.writeFileSync(NodePath.join(project, "notes.txt"), "first line\n")
  NodeFs.writeFileSync(
    NodePath.join(project, "gatehouse.json"),
    JSON.stringify({
      permission: {
        bash: { "*": "ask", "echo *": "allow", "seq *": "allow", "rm *": "deny" },
        edit: { "*": "allow", "notes.txt": "deny" }
      },
      tool_output: { max_lines: 5 }
    })
  )
}, 60_000)
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))

const Client = McpClient.layerStdio({
  name: "gatehouse-test",
  version: "1.0.0",
  command: ChildProcess.make(process.execPath, [bin, "mcp", "--cwd", project], { env }),
  protocol: McpProtocol.v2025_11_25
}).pipe(Layer.provide(NodeServices.layer))

const call = (name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const client = yield* McpClient.McpClient
    const tools = yield* client.listTools()
    const tool = tools.find((candidate) => candidate.name === name)
    assert.isDefined(tool, `tools/list has no ${name}`)
    return yield* client.callTool({ tool: tool!, arguments: args })
  })

const text = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((part) => (part as { text?: string }).text ?? "").join("")

describe("gatehouse mcp with effect/ai's McpClient", () => {
  it.effect(
    "lists Gatehouse's tools",
    () =>
      Effect.gen(function* () {
        const client = yield* McpClient.McpClient
        assert.strictEqual(client.serverInfo?.name, "gatehouse")
        const names = (yield* client.listTools()).map((tool) => tool.name).sort()
        assert.deepStrictEqual(names, ["bash", "edit", "list", "read", "write"])
      }).pipe(Effect.provide(Client)),
    { timeout: 60_000 }
  )

  it.effect(
    "an allowed command runs, through the sandbox, and its output comes back",
    () =>
      Effect.gen(function* () {
        const result = yield* call("bash", { command: "echo hello from gatehouse" })
        assert.isFalse(result.isError)
        const structured = result.structuredContent as { output: string; exitCode: number }
        assert.strictEqual(structured.output, "hello from gatehouse\n")
        assert.strictEqual(structured.exitCode, 0)
      }).pipe(Effect.provide(Client)),
    { timeout: 60_000 }
  )

  it.effect(
    "long output is truncated by the config's limits, the whole of it spilled to a file",
    () =>
      Effect.gen(function* () {
        const result = yield* call("bash", { command: "seq 1 100" })
        assert.isFalse(result.isError)
        const structured = result.structuredContent as {
          output: string
          truncated: boolean
          outputPath: string
        }
        assert.isTrue(structured.truncated)
        assert.include(structured.output, "lines truncated")
        assert.isTrue(structured.outputPath.startsWith(NodePath.join(base, "data")), structured.outputPath)
        const whole = Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join("")
        assert.strictEqual(NodeFs.readFileSync(structured.outputPath, "utf8"), whole)
      }).pipe(Effect.provide(Client)),
    { timeout: 60_000 }
  )

  it.effect(
    "a denied command does not run, and the model reads which rule denied it",
    () =>
      Effect.gen(function* () {
        const target = NodePath.join(project, "keep")
        NodeFs.mkdirSync(target, { recursive: true })
        const result = yield* call("bash", { command: `rm -rf ${target}` })
        assert.isTrue(result.isError)
        assert.match(text(result), /Denied by rule bash \\?"rm \*\\?" deny/)
        assert.isTrue(NodeFs.existsSync(target))
      }).pipe(Effect.provide(Client)),
    { timeout: 60_000 }
  )

  it.effect(
    "file tools are gated too: an edit of a denied path is refused, a read works",
    () =>
      Effect.gen(function* () {
        const refused = yield* call("write", { filePath: "notes.txt", content: "overwritten\n" })
        assert.isTrue(refused.isError)
        assert.match(text(refused), /notes\.txt/)
        assert.strictEqual(NodeFs.readFileSync(NodePath.join(project, "notes.txt"), "utf8"), "first line\n")
        const read = yield* call("read", { filePath: "notes.txt" })
        assert.isFalse(read.isError)
        assert.include(text(read), "first line")
      }).pipe(Effect.provide(Client)),
    { timeout: 60_000 }
  )

  it.effect(
    "an ask without elicitation fails closed and names the rule to add",
    () =>
      Effect.gen(function* () {
        const marker = NodePath.join(project, "asked-without-elicitation")
        const result = yield* call("bash", { command: `touch ${marker}` })
        assert.isTrue(result.isError)
        assert.match(text(result), /not interactive/)
        assert.match(text(result), /add to the \\?"permission\\?" block of gatehouse.json: .*touch \*.*allow/)
        assert.isFalse(NodeFs.existsSync(marker))
      }).pipe(Effect.provide(Client)),
    { timeout: 60_000 }
  )
})

// ---------------------------------------------------------------------------------------
// A client that offers elicitation, speaking the stdio framing itself.

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages read by field
type Message = Record<string, any>

const session = (answer: (request: Message) => Message) =>
  new Promise<{
    results: Map<number, Message>
    asked: Array<Message>
    lines: Array<string>
    code: number | null
  }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "mcp", "--cwd", project], {
      env,
      stdio: ["pipe", "pipe", "pipe"]
    })
    const results = new Map<number, Message>()
    const asked: Array<Message> = []
    const lines: Array<string> = []
    let buffer = ""
    const send = (message: Message) => child.stdin.write(`${JSON.stringify(message)}\n`)
    const calls = [
      { command: `touch ${NodePath.join(project, "approved-once")}` },
      { command: `touch ${NodePath.join(project, "declined")}` },
      { command: `touch ${NodePath.join(project, "rejected")}` }
    ]
    let next = 0
    const callNext = () => {
      const args = calls[next]
      if (args === undefined) return void child.stdin.end()
      next++
      send({ jsonrpc: "2.0", id: 10 + next, method: "tools/call", params: { name: "bash", arguments: args } })
    }
    child.stdout.on("data", (chunk) => {
      buffer += chunk
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 1)
        lines.push(line)
        const message = JSON.parse(line) as Message
        if (message.method === "elicitation/create") {
          asked.push(message)
          send({ jsonrpc: "2.0", id: message.id, result: answer(message) })
        } else if (message.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" })
          callNext()
        } else if (typeof message.id === "number" && message.id > 10) {
          results.set(message.id, message)
          callNext()
        }
      }
    })
    child.on("error", reject)
    child.on("close", (code) => resolve({ results, asked, lines, code }))
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: {} },
        clientInfo: { name: "eliciting-test-client", version: "1.0.0" }
      }
    })
  })

describe("gatehouse mcp with a client that offers elicitation", () => {
  it("puts each ask to the person: accepted runs, declined and rejected do not", {
    timeout: 60_000
  }, async () => {
    const { results, asked, lines, code } = await session((request) => {
      const message: string = request.params.message
      if (message.includes("approved-once")) return { action: "accept", content: { answer: "once" } }
      if (message.includes("declined")) return { action: "decline" }
      return { action: "accept", content: { answer: "reject", instead: "leave the project as it is" } }
    })
    assert.strictEqual(code, 0, "closing stdin ends the server")
    // One JSON-RPC message per line, nothing else on stdout.
    for (const line of lines) assert.strictEqual(JSON.parse(line).jsonrpc, "2.0")
    assert.lengthOf(asked, 3)
    const form = asked[0]!.params
    assert.strictEqual(form.mode, "form")
    assert.include(form.message, "touch")
    assert.deepStrictEqual(form.requestedSchema.properties.answer.enum, ["once", "always", "reject"])

    const once = results.get(11)!.result
    assert.isFalse(once.isError, JSON.stringify(once))
    assert.isTrue(NodeFs.existsSync(NodePath.join(project, "approved-once")))

    const declined = results.get(12)!.result
    assert.isTrue(declined.isError)
    assert.match(declined.content[0].text, /rejected/)
    assert.isFalse(NodeFs.existsSync(NodePath.join(project, "declined")))

    const rejected = results.get(13)!.result
    assert.isTrue(rejected.isError)
    assert.include(rejected.content[0].text, "leave the project as it is")
    assert.isFalse(NodeFs.existsSync(NodePath.join(project, "rejected")))
  })
})
