// `gatehouse hook <agent>`, the real bundle in a real project, payloads written from each
// agent's published hook documentation:
//
// - Claude Code, https://docs.anthropic.com/en/docs/claude-code/hooks — PreToolUse input on
//   stdin: `session_id`, `cwd`, `hook_event_name`, `tool_name` (`Bash`, `Read`, `Write`,
//   `Edit`, …), `tool_input` (`command`; `file_path`). Output on stdout:
//   `hookSpecificOutput.hookEventName` "PreToolUse", `permissionDecision` allow | deny | ask,
//   `permissionDecisionReason`. Exit 0 with JSON; exit 2 blocks with stderr as the reason.
// - Gemini CLI, https://geminicli.com/docs/hooks/reference — BeforeTool input: `session_id`,
//   `cwd`, `hook_event_name`, `tool_name` (`run_shell_command`, `read_file`, `write_file`,
//   `replace`, …), `tool_input`. Output: `decision` allow | deny ("block"), `reason`,
//   `systemMessage`. Exit 0: stdout is JSON; exit 2: blocked, stderr is the reason.
// - Codex, https://developers.openai.com/codex/hooks — PreToolUse with Claude Code's wire
//   format (`tool_name` `Bash`, `apply_patch`, `mcp__server__tool`); a hook can deny through
//   `hookSpecificOutput.permissionDecision` "deny" or exit 2 with stderr; an allow without
//   `updatedInput` leaves Codex's own approval policy in charge.
import { spawn, spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"

const root = NodePath.resolve(import.meta.dirname, "..", "..", "..")
const bin = NodePath.join(root, "packages", "cli", "dist", "gatehouse.js")
const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-hook-")))
const project = NodePath.join(base, "project")

beforeAll(() => {
  const built = spawnSync(process.execPath, [NodePath.join(root, "scripts", "bundle.ts"), "--if-stale"], {
    encoding: "utf8"
  })
  if (built.status !== 0) throw new Error(`the bundle could not be built: ${built.stderr}`)
  NodeFs.mkdirSync(NodePath.join(project, ".git"), { recursive: true })
  NodeFs.writeFileSync(
    NodePath.join(project, "gatehouse.json"),
    JSON.stringify({
      permission: {
        bash: { "*": "ask", "ls *": "allow", "git status": "allow", "rm *": "deny" },
        edit: { "*": "allow", ".git/*": "deny" },
        WebFetch: "deny"
      }
    })
  )
}, 60_000)
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))

const hook = (args: ReadonlyArray<string>, stdin: string, cwd = project) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "hook", ...args], { cwd, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(stdin)
  })

type Expected = "allow" | "deny" | "ask"

const agents = {
  "claude-code": {
    shell: (command: string) => ({ tool_name: "Bash", tool_input: { command, description: "run it" } }),
    write: (file: string) => ({ tool_name: "Write", tool_input: { file_path: file, content: "x" } }),
    unknown: { tool_name: "WebFetch", tool_input: { url: "https://example.com", prompt: "read it" } },
    // What the agent sees: the decision in hookSpecificOutput, exit 0.
    read: (out: { code: number | null; stdout: string }): Expected => {
      assert.strictEqual(out.code, 0)
      const parsed = JSON.parse(out.stdout)
      assert.strictEqual(parsed.hookSpecificOutput.hookEventName, "PreToolUse")
      return parsed.hookSpecificOutput.permissionDecision
    },
    malformed: "ask" as Expected
  },
  "gemini-cli": {
    shell: (command: string) => ({ tool_name: "run_shell_command", tool_input: { command } }),
    write: (file: string) => ({ tool_name: "write_file", tool_input: { file_path: file, content: "x" } }),
    unknown: { tool_name: "web_fetch", tool_input: { prompt: "https://example.com" } },
    read: (out: { code: number | null; stdout: string }): Expected => {
      if (out.code === 2) return "deny"
      assert.strictEqual(out.code, 0)
      const parsed = JSON.parse(out.stdout)
      // No decision: Gemini CLI's own confirmation decides (what "ask" means there).
      return parsed.decision === undefined ? "ask" : parsed.decision
    },
    malformed: "deny" as Expected
  },
  codex: {
    shell: (command: string) => ({ tool_name: "Bash", tool_input: { command } }),
    write: (file: string) => ({
      tool_name: "apply_patch",
      tool_input: { command: `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch\n` }
    }),
    unknown: { tool_name: "mcp__web__fetch", tool_input: { url: "https://example.com" } },
    read: (out: { code: number | null; stdout: string }): Expected => {
      if (out.code === 2) return "deny"
      assert.strictEqual(out.code, 0)
      // Nothing printed: Codex's own policy applies (the nearest it has to allow).
      if (out.stdout.trim() === "") return "allow"
      return JSON.parse(out.stdout).hookSpecificOutput.permissionDecision
    },
    malformed: "deny" as Expected
  }
} as const

const payload = (agent: keyof typeof agents, call: object, cwd = project) =>
  JSON.stringify({
    session_id: "s1",
    transcript_path: "/tmp/t.jsonl",
    cwd,
    hook_event_name: agent === "gemini-cli" ? "BeforeTool" : "PreToolUse",
    ...call
  })

for (const [agent, shape] of Object.entries(agents) as Array<
  [keyof typeof agents, (typeof agents)[keyof typeof agents]]
>) {
  describe(`gatehouse hook ${agent}`, () => {
    it("allows, denies and asks as the project's rules say, with a reason the model reads", {
      timeout: 60_000
    }, async () => {
      // Codex cannot ask from a hook: an ask blocks there, with the reason.
      const asked: Expected = agent === "codex" ? "deny" : "ask"
      const cases: Array<[object, Expected, RegExp | undefined]> = [
        [shape.shell("ls -la src"), "allow", undefined],
        [shape.shell("git status"), "allow", undefined],
        [shape.shell("rm -rf build"), "deny", /rm \*/],
        [shape.shell("npm publish"), asked, /asked by bash \\?"\*\\?"/],
        // A command the gate cannot model asks even where a rule would allow it.
        [shape.shell('ls $(printf "%s" "$X")'), asked, /not fully understood/],
        [shape.write(NodePath.join(project, ".git", "hooks", "pre-commit")), "deny", /\.git\/\*/],
        [shape.write(NodePath.join(project, "src", "app.ts")), "allow", undefined]
      ]
      for (const [call, expected, reason] of cases) {
        const out = await hook([agent], payload(agent, call))
        assert.strictEqual(shape.read(out), expected, `${JSON.stringify(call)}\n${out.stdout}${out.stderr}`)
        if (reason !== undefined) assert.match(out.stdout + out.stderr, reason)
      }
    })

    it("an unknown tool is judged by its own name", { timeout: 60_000 }, async () => {
      const out = await hook([agent], payload(agent, shape.unknown))
      // Claude Code's WebFetch is denied by name; the other names fall to the agent defaults.
      const expected: Expected = agent === "claude-code" ? "deny" : agent === "codex" ? "allow" : "allow"
      assert.strictEqual(shape.read(out), expected, out.stdout)
    })

    it("a malformed or unknown payload never allows: the fail-closed form, and a message on stderr", {
      timeout: 60_000
    }, async () => {
      for (const stdin of [
        "not json",
        "[]",
        JSON.stringify({ tool_name: "Bash", cwd: project }),
        JSON.stringify({ tool_input: {} })
      ]) {
        const out = await hook([agent], stdin)
        assert.strictEqual(shape.read(out), shape.malformed, stdin)
        assert.include(out.stderr, `gatehouse hook ${agent}:`)
      }
    })
  })
}

describe("gatehouse hook install / uninstall", () => {
  it("merges into an existing settings file, once; uninstall removes only its own entry", {
    timeout: 60_000
  }, async () => {
    const dir = NodePath.join(base, "install")
    NodeFs.mkdirSync(NodePath.join(dir, ".claude"), { recursive: true })
    const file = NodePath.join(dir, ".claude", "settings.json")
    const existing = {
      permissions: { allow: ["Bash(npm test)"] },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./lint-commands.sh" }] }],
        PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "prettier --write" }] }]
      }
    }
    NodeFs.writeFileSync(file, `${JSON.stringify(existing, null, 2)}\n`)
    for (let i = 0; i < 2; i++) {
      const out = await hook(["install", "claude-code", "--project", "--cwd", dir], "")
      assert.strictEqual(out.code, 0, out.stderr)
    }
    const installed = JSON.parse(NodeFs.readFileSync(file, "utf8"))
    assert.deepStrictEqual(installed.permissions, existing.permissions)
    assert.deepStrictEqual(installed.hooks.PostToolUse, existing.hooks.PostToolUse)
    assert.lengthOf(installed.hooks.PreToolUse, 2, "the other hook stays, ours is added once")
    assert.deepStrictEqual(installed.hooks.PreToolUse[0], existing.hooks.PreToolUse[0])
    assert.match(installed.hooks.PreToolUse[1].hooks[0].command, /gatehouse\.js' hook claude-code$/)
    const out = await hook(["uninstall", "claude-code", "--project", "--cwd", dir], "")
    assert.strictEqual(out.code, 0, out.stderr)
    assert.strictEqual(NodeFs.readFileSync(file, "utf8"), `${JSON.stringify(existing, null, 2)}\n`)
  })

  it("the installed command is the hook: run as the agent runs it, it answers", {
    timeout: 60_000
  }, async () => {
    const dir = NodePath.join(base, "gemini")
    NodeFs.mkdirSync(dir, { recursive: true })
    assert.strictEqual((await hook(["install", "gemini-cli", "--cwd", dir], "")).code, 0)
    const settings = JSON.parse(NodeFs.readFileSync(NodePath.join(dir, ".gemini", "settings.json"), "utf8"))
    const command: string = settings.hooks.BeforeTool[0].hooks[0].command
    const ran = spawnSync("/bin/sh", ["-c", command], {
      input: payload("gemini-cli", agents["gemini-cli"].shell("rm -rf build")),
      encoding: "utf8",
      cwd: project
    })
    assert.strictEqual(ran.status, 0, ran.stderr)
    assert.strictEqual(JSON.parse(ran.stdout).decision, "deny")
  })

  it("a settings file it cannot parse is refused and left untouched", { timeout: 60_000 }, async () => {
    const dir = NodePath.join(base, "commented")
    NodeFs.mkdirSync(NodePath.join(dir, ".gemini"), { recursive: true })
    const file = NodePath.join(dir, ".gemini", "settings.json")
    const text = '{\n  // my theme\n  "theme": "dark"\n}\n'
    NodeFs.writeFileSync(file, text)
    const out = await hook(["install", "gemini-cli", "--cwd", dir], "")
    assert.strictEqual(out.code, 2)
    assert.include(out.stderr, "left untouched")
    assert.strictEqual(NodeFs.readFileSync(file, "utf8"), text)
  })
})
