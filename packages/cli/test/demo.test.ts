// `gatehouse demo` end to end: the real binary, piped (no terminal), with and without --yes.
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"

const bin = NodePath.resolve(import.meta.dirname, "../src/bin.ts")

const demo = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "demo", ...args], { stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdin.end()
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const workspaceOf = (stdout: string) => /workspace: (\S+)/.exec(stdout)?.[1]

describe("gatehouse demo", () => {
  it("--yes, piped: the whole scripted session, rendered as it happens", { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await demo(["--yes"])
    assert.strictEqual(stderr, "")
    assert.strictEqual(code, 0)
    const expect = [
      "thinking: The user wants a tour",
      "assistant: I'll start by looking at what is in this project.",
      "▸ list",
      "✓ list",
      "README.md",
      "✓ read",
      "Permission required: bash",
      "sh scripts/check.sh",
      "allowed once (--yes)",
      "2 files checked, 0 problems",
      '✗ bash Denied by rule bash "rm *" deny',
      "output truncated; the full output was saved to .gatehouse/tool-output/tool_",
      "doom loop",
      "Permission required: doom_loop",
      "build pending",
      "Here is the tour.",
      // The second prompt: an edit behind the edit permission, then a rewind of that turn.
      "you: Make the greeting friendlier.",
      "Permission required: edit",
      "src/greet.ts",
      "allowed once (--yes)",
      "✓ edit src/greet.ts",
      '+export const greet = (name: string): string => "Hi there, " + name + "! Welcome aboard."',
      "rewind to the start of turn 2 (code and conversation)",
      "↺ src/greet.ts restored",
      "your prompt is back to edit and resend",
      "› Make the greeting friendlier.",
      'src/greet.ts: export const greet = (name: string): string => "Hello, " + name + "!"',
      "what a shell command changed is not rewound",
      "Done: 12 model calls"
    ]
    let from = 0
    for (const text of expect) {
      const at = stdout.indexOf(text, from)
      assert.isAtLeast(at, 0, `missing, or out of order: ${text}\n---\n${stdout}`)
      from = at
    }
    // The temporary workspace is gone afterwards.
    const workspace = workspaceOf(stdout)
    assert.isDefined(workspace)
    assert.isFalse(NodeFs.existsSync(workspace!))
  })

  it("piped without --yes: asks fail closed and the demo says so", { timeout: 60_000 }, async () => {
    const { code, stdout } = await demo([])
    assert.strictEqual(code, 1)
    assert.include(stdout, "permission asks fail closed")
    assert.include(stdout, "✓ read")
    assert.match(stdout, /✗ bash .*not interactive/)
    assert.notInclude(stdout, "cat logs/test.log")
    assert.include(stdout, "Asks failed closed because nobody could answer them")
    // The first turn stopped: the demo does not go on to the edit.
    assert.notInclude(stdout, "Make the greeting friendlier")
  })

  it("--script plays another script; a bad one is reported", { timeout: 60_000 }, async () => {
    const dir = NodeFs.mkdtempSync(NodePath.join(process.env.TMPDIR ?? "/tmp", "gatehouse-demo-test-"))
    const good = NodePath.join(dir, "good.json")
    NodeFs.writeFileSync(
      good,
      JSON.stringify({ turns: [{ parts: [{ type: "text", text: "Just saying hello." }] }] })
    )
    const ran = await demo(["--script", good])
    assert.strictEqual(ran.code, 0)
    assert.include(ran.stdout, "assistant: Just saying hello.")
    const bad = NodePath.join(dir, "bad.json")
    NodeFs.writeFileSync(bad, "{ nope")
    const failed = await demo(["--script", bad])
    assert.strictEqual(failed.code, 2)
    assert.include(failed.stderr, bad)
    NodeFs.rmSync(dir, { recursive: true })
  })
})
