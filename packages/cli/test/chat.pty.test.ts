// `gatehouse chat` in a pseudo-terminal (util-linux `script`), against a fake Anthropic
// server: a prompt, an ask answered by a keypress, Ctrl-C interrupting a turn, a second
// Ctrl-C ending the chat, and --continue picking the session up again.
import { type ChildProcess, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
// The session package's fake providers, speaking each provider's streaming protocol.
import * as FakeProviders from "../../session/test/fakeProviders.ts"
import { blocks } from "./anthropicBlocks.ts"

const bin = NodePath.resolve(import.meta.dirname, "../dist/gatehouse.js")

/** `gatehouse chat ARGS` on a terminal: what it shows, and keys typed into it. */
const terminal = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const line = [process.execPath, bin, "chat", ...args]
    .map((w) => `'${w.replaceAll("'", `'\\''`)}'`)
    .join(" ")
  const { ANTHROPIC_API_KEY: _, ...rest } = process.env
  // script runs the line with $SHELL -c: exec, so no shell stays between the terminal and
  // gatehouse (dash would itself die of a Ctrl-C and script would report that 130).
  const child: ChildProcess = spawn("script", ["-qec", `exec ${line}`, "/dev/null"], {
    env: { ...rest, NO_COLOR: "1", ...env },
    stdio: ["pipe", "pipe", "inherit"]
  })
  let screen = ""
  let seen = 0
  child.stdout!.on("data", (chunk) => (screen += chunk))
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  /** Waits for `pattern` in what was shown since the last match, then moves past it. */
  const shows = async (pattern: RegExp, ms = 20_000) => {
    const deadline = Date.now() + ms
    while (true) {
      const match = pattern.exec(screen.slice(seen))
      if (match !== null) {
        seen += match.index + match[0].length
        return match
      }
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`not shown: ${pattern}\n--- screen ---\n${screen}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
  return {
    shows,
    type: (keys: string) => child.stdin!.write(keys),
    exit,
    screen: () => screen,
    kill: () => child.kill("SIGKILL")
  }
}

/** Whether process `pid` runs (a zombie nobody reaped counts as gone). */
const alive = (pid: number) => {
  try {
    const stat = NodeFs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
  } catch {
    return false
  }
}

const until = async (what: string, check: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe("gatehouse chat, in a terminal", () => {
  it("a prompt, an ask answered with o, Ctrl-C interrupts a turn, a second exits, --continue resumes", {
    timeout: 120_000
  }, async () => {
    const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-chat-pty-"))
    const directory = NodePath.join(root, "project")
    NodeFs.mkdirSync(directory)
    // Scripts of the project: the gate does not know what they do, so each asks.
    NodeFs.writeFileSync(NodePath.join(directory, "tool.sh"), "echo pty-$((6*7))\n")
    NodeFs.writeFileSync(NodePath.join(directory, "never.sh"), "touch never-ran\n")
    const env = { ANTHROPIC_API_KEY: "sk-ant-pty-test", XDG_DATA_HOME: NodePath.join(root, "data") }
    const server = await FakeProviders.start("anthropic", [
      { type: "reply", calls: [{ id: "toolu_pty", name: "bash", input: { command: "sh tool.sh" } }] },
      { type: "reply", text: "It printed pty-42." },
      { type: "stall" },
      { type: "reply", calls: [{ id: "toolu_never", name: "bash", input: { command: "sh never.sh" } }] },
      { type: "reply", text: "Hi." }
    ])
    const later = await FakeProviders.start("anthropic", [{ type: "reply", text: "Welcome back." }])
    const args = ["--model", "anthropic/claude-test", "--cwd", directory, "--sandbox", "off"]
    const first = terminal([...args, "--base-url", server.baseUrl], env)
    try {
      await first.shows(/you> $/m)
      first.type("Run it, please.\r")
      await first.shows(/bash wants to run\s+sh tool\.sh[\s\S]*\[r\]eject.*> $/m)
      first.type("o\r")
      await first.shows(/✓ bash[\s\S]*│ pty-42[\s\S]*It printed pty-42\.[\s\S]*you> $/m)
      const result = blocks(server.requests[1]!).find((block) => block.type === "tool_result")
      assert.strictEqual(result?.tool_use_id, "toolu_pty")
      assert.include(JSON.stringify(result?.content), "pty-42")

      // A turn the model never finishes: Ctrl-C interrupts it, and the chat goes on.
      first.type("Take your time.\r")
      await until("the third request", () => server.requests.length === 3)
      first.type("\u0003")
      await first.shows(/interrupting the turn[\s\S]*you> $/m)
      // Ctrl-C while an ask waits: the ask goes, and the next line is a prompt again, not an answer.
      first.type("One more command.\r")
      await first.shows(/bash wants to run\s+sh never\.sh[\s\S]*\[r\]eject.*> $/m)
      first.type("\u0003")
      await first.shows(/interrupting the turn[\s\S]*you> $/m)
      first.type("Hello?\r")
      await first.shows(/Hi\.[\s\S]*you> $/m)
      assert.strictEqual(blocks(server.requests[4]!).at(-1)?.text, "Hello?")
      assert.isFalse(NodeFs.existsSync(NodePath.join(directory, "never-ran")))
      // At the prompt, a second Ctrl-C ends the chat.
      first.type("\u0003")
      const stored = await first.shows(/session (ses_\w+) is stored/)
      assert.strictEqual(await first.exit, 130, first.screen())

      // --continue: the same session, its conversation sent with the next prompt.
      const second = terminal([...args, "--base-url", later.baseUrl, "--continue"], env)
      try {
        await second.shows(new RegExp(`resuming session ${stored[1]}`))
        await second.shows(/you> $/m)
        second.type("Are you there?\r")
        await second.shows(/Welcome back\.[\s\S]*you> $/m)
        second.type("\u0004")
        assert.strictEqual(await second.exit, 0, second.screen())
        const texts = blocks(later.requests[0]!)
          .filter((block) => block.type === "text")
          .map((block) => block.text)
        assert.deepStrictEqual(texts.slice(0, 2), ["Run it, please.", "It printed pty-42."])
        assert.includeMembers(texts, ["Take your time.", "One more command.", "Hello?", "Hi."])
        assert.strictEqual(texts.at(-1), "Are you there?")
      } finally {
        second.kill()
      }
    } finally {
      first.kill()
      await server.close()
      await later.close()
      NodeFs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("Ctrl-C while an approved command runs: its processes are stopped, the chat goes on, Ctrl-D exits 0", {
    timeout: 120_000
  }, async () => {
    const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-chat-pty-"))
    const directory = NodePath.join(root, "project")
    NodeFs.mkdirSync(directory)
    const pids = NodePath.join(root, "pids")
    // Unsandboxed, so the pids it reports are this machine's.
    NodeFs.writeFileSync(
      NodePath.join(directory, "slow.sh"),
      `sleep 300 & echo $! > ${pids}.tmp && mv ${pids}.tmp ${pids}; wait\n`
    )
    const server = await FakeProviders.start("anthropic", [
      { type: "reply", calls: [{ id: "toolu_slow", name: "bash", input: { command: "sh slow.sh" } }] },
      { type: "reply", text: "After the interruption." }
    ])
    const session = terminal(
      [
        "--model",
        "anthropic/claude-test",
        "--base-url",
        server.baseUrl,
        "--cwd",
        directory,
        "--sandbox",
        "off"
      ],
      { ANTHROPIC_API_KEY: "sk-ant-pty-test", XDG_DATA_HOME: NodePath.join(root, "data") }
    )
    try {
      await session.shows(/you> $/m)
      session.type("Run the slow one.\r")
      await session.shows(/bash wants to run\s+sh slow\.sh[\s\S]*\[r\]eject.*> $/m)
      session.type("o\r")
      await until("the command to start", () => NodeFs.existsSync(pids))
      const sleep = Number(NodeFs.readFileSync(pids, "utf8").trim())
      assert.isTrue(alive(sleep))
      session.type("\u0003")
      await session.shows(/interrupting the turn[\s\S]*✗ bash interrupted[\s\S]*you> $/m)
      await until("the command's sleep to die", () => !alive(sleep), 5_000)
      // The interrupted call went back to the model as such with the next prompt.
      session.type("Go on.\r")
      await session.shows(/After the interruption\.[\s\S]*you> $/m)
      session.type("\u0004")
      assert.strictEqual(await session.exit, 0, session.screen())
      const result = blocks(server.requests[1]!).find(
        (block) => block.type === "tool_result" && block.tool_use_id === "toolu_slow"
      )
      assert.strictEqual(result?.is_error, true, JSON.stringify(result))
    } finally {
      session.kill()
      await server.close()
      NodeFs.rmSync(root, { recursive: true, force: true })
    }
  })
})
