// `gatehouse demo` end to end: the real binary, piped (no terminal), with and without --yes.
import { type ChildProcess, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"

const bin = NodePath.resolve(import.meta.dirname, "../dist/gatehouse.js")

const demo = (args: ReadonlyArray<string>, started?: (child: ChildProcess) => void) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "demo", ...args], { stdio: ["pipe", "pipe", "pipe"] })
    started?.(child)
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdin.end()
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const workspaceOf = (stdout: string) => /workspace: (\S+)/.exec(stdout)?.[1]

/** Resolves once `check` holds, polling; rejects with `what` after `ms`. */
const waitFor = async (what: string, check: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Whether process `pid` is gone (a zombie nobody reaped counts as gone). */
const dead = (pid: number) => {
  try {
    const stat = NodeFs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
  } catch {
    try {
      process.kill(pid, 0)
      return false
    } catch {
      return true
    }
  }
}

describe("gatehouse demo", () => {
  it("--yes, piped: the whole scripted session, rendered as it happens", { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await demo(["--yes"])
    assert.strictEqual(stderr, "")
    assert.strictEqual(code, 0)
    const expect = [
      "sandbox: active (bwrap): commands can write only inside the workspace",
      "thinking: The user wants a tour",
      "assistant: I'll start by looking at what is in this project.",
      "▸ list",
      "✓ list",
      "README.md",
      "✓ read",
      "bash wants to run",
      "sh scripts/check.sh",
      "allowed once (--yes)",
      "2 files checked, 0 problems",
      // A correction the model follows: the push is refused with words, and the turn goes on.
      "git push --force origin main",
      "rejected with a correction: Don't push anything; this is only a tour.",
      "Understood: no push",
      // What the gate cannot see (a write inside a script) the sandbox refuses.
      "sh scripts/cache.sh",
      "Read-only file system",
      "the sandbox refused a write outside the writable places",
      '✗ bash Denied by rule bash "rm *" deny',
      "output truncated; the full output was saved to .gatehouse/tool-output/tool_",
      "doom loop",
      "The model keeps repeating itself",
      "build pending",
      "Here is the tour.",
      // The second prompt: an edit behind the edit permission, then a rewind of that turn.
      "you: Make the greeting friendlier.",
      "edit wants to",
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
      "Done: 14 model calls"
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

  it("Ctrl-C mid-command: the command's process group is killed and the workspace removed", {
    timeout: 60_000
  }, async () => {
    const dir = NodeFs.mkdtempSync(NodePath.join(process.env.TMPDIR ?? "/tmp", "gatehouse-demo-test-"))
    const pids = NodePath.join(dir, "pids")
    const script = NodePath.join(dir, "sleep.json")
    NodeFs.writeFileSync(
      script,
      JSON.stringify({
        turns: [
          {
            parts: [
              {
                type: "tool-call",
                name: "bash",
                params: { command: `sleep 300 & echo $$ $! > ${pids}.tmp && mv ${pids}.tmp ${pids}; wait` }
              }
            ]
          },
          { parts: [{ type: "text", text: "never reached" }] }
        ]
      })
    )
    let child: ChildProcess | undefined
    let stdout = ""
    // Unsandboxed: the command reports its pids in a file outside the workspace.
    const ran = demo(["--yes", "--sandbox", "off", "--script", script], (c) => {
      child = c
      c.stdout?.on("data", (chunk) => (stdout += chunk))
    })
    try {
      await waitFor("the command to start", () => NodeFs.existsSync(pids))
      const [shell, sleep] = NodeFs.readFileSync(pids, "utf8").trim().split(" ").map(Number)
      assert.isFalse(dead(sleep!))
      const workspace = workspaceOf(stdout)
      assert.isDefined(workspace)
      assert.isTrue(NodeFs.existsSync(workspace!))
      child!.kill("SIGINT")
      const { code, stderr } = await ran
      assert.strictEqual(code, 130, stderr)
      assert.include(stderr, "interrupted")
      assert.notInclude(stdout, "never reached")
      assert.isFalse(NodeFs.existsSync(workspace!), "the workspace is removed")
      await waitFor("the command's processes to die", () => dead(shell!) && dead(sleep!), 5_000)
    } finally {
      child?.kill("SIGKILL")
      NodeFs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("gatehouse demo, in a terminal", () => {
  it("a person who rejects an ask has answered: the demo stops that turn and exits 0", {
    timeout: 120_000
  }, async () => {
    const line = [process.execPath, bin, "demo", "--sandbox", "off"]
      .map((w) => `'${w.replaceAll("'", `'\\''`)}'`)
      .join(" ")
    const { code, screen } = await new Promise<{ code: number | null; screen: string }>((resolve, reject) => {
      // script runs the line with $SHELL -c: exec, so no shell stays between the terminal and
      // gatehouse (dash would itself die of a Ctrl-C and script would report that 130).
      const child = spawn("script", ["-qec", `exec ${line}`, "/dev/null"], {
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["pipe", "pipe", "inherit"]
      })
      let screen = ""
      let answered = false
      child.stdout.on("data", (chunk) => {
        screen += chunk
        if (!answered && /\[r\].*eject.*> $/s.test(screen)) {
          answered = true
          child.stdin.write("r\r")
        }
      })
      child.on("error", reject)
      child.on("close", (code) => {
        child.stdin.destroy()
        resolve({ code, screen })
      })
    })
    assert.include(screen, "bash wants to run")
    assert.include(screen, "sh scripts/check.sh")
    assert.include(screen, "The turn stopped before the model finished: a permission ask was rejected.")
    assert.strictEqual(code, 0, screen)
  })
})
