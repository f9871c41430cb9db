// `gatehouse check` end to end: the real binary in a real project directory.
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { afterAll } from "vitest"

const bin = NodePath.resolve(import.meta.dirname, "../src/bin.ts")

const run = (args: ReadonlyArray<string>, options: { cwd: string; stdin?: string }) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "check", ...args], {
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, SHELL: "/bin/bash" }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdin.end(options.stdin ?? "")
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-check-")))
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))

const project = (name: string, config?: unknown): string => {
  const dir = NodePath.join(base, name)
  NodeFs.mkdirSync(NodePath.join(dir, ".git"), { recursive: true })
  if (config !== undefined) NodeFs.writeFileSync(NodePath.join(dir, "gatehouse.json"), JSON.stringify(config))
  return dir
}

const POLICY = {
  permission: {
    bash: { "*": "allow", "git commit *": "deny", "git push *": "ask" },
    edit: { ".git/*": "deny" }
  }
}

describe("gatehouse check", () => {
  const dir = project("policy", POLICY)

  it("prints the verdict and the trace: commands, the rule of each pattern and its source, notes", {
    timeout: 120_000
  }, async () => {
    const { code, stdout, stderr } = await run(["--", "CI=1 git commit -m x && echo ok"], { cwd: dir })
    assert.strictEqual(code, 0, stderr)
    assert.match(stdout, /^verdict: deny/)
    assert.include(stdout, "CI=1 git commit -m x")
    assert.include(stdout, "prefix: git commit")
    assert.include(stdout, 'by bash "git commit *" deny — gatehouse.json permission.bash["git commit *"]')
    assert.include(stdout, 'by bash "*" allow — gatehouse.json permission.bash["*"]')
  })

  it("--json prints decision, requests with rules, commands and notes", { timeout: 120_000 }, async () => {
    const { code, stdout } = await run(["--json", "echo x > .git/config"], { cwd: dir })
    assert.strictEqual(code, 0)
    const result = JSON.parse(stdout)
    assert.strictEqual(result.decision, "deny")
    assert.deepStrictEqual(
      result.requests.map((r: { permission: string; decision: string }) => [r.permission, r.decision]),
      [
        ["edit", "deny"],
        ["bash", "allow"]
      ]
    )
    const edit = result.requests[0]
    assert.deepStrictEqual(edit.patterns, [".git/config"])
    assert.deepStrictEqual(edit.rules[0].rule, { permission: "edit", pattern: ".git/*", action: "deny" })
    assert.strictEqual(edit.rules[0].source, 'gatehouse.json permission.edit[".git/*"]')
    assert.deepStrictEqual(result.commands, [
      { text: "echo x > .git/config", argv: ["echo", "x"], prefix: ["echo"] }
    ])
    assert.isTrue(result.notes.some((n: { kind: string }) => n.kind === "writes"))
  })

  it("applies the defaults with no gatehouse.json: everything allowed, outside directories and .env reads ask", {
    timeout: 120_000
  }, async () => {
    const bare = project("bare")
    const plain = JSON.parse((await run(["--json", "rm -rf build"], { cwd: bare })).stdout)
    assert.strictEqual(plain.decision, "allow")
    const outside = JSON.parse((await run(["--json", "cat /etc/hostname 2>/dev/null"], { cwd: bare })).stdout)
    assert.strictEqual(outside.decision, "ask")
    assert.deepStrictEqual(outside.requests[0].patterns, ["/etc/*"])
  })

  it("--mode, --shell and --cwd change the judgement", { timeout: 120_000 }, async () => {
    const auto = JSON.parse(
      (await run(["--json", "--mode", "auto", "git push origin main"], { cwd: dir })).stdout
    )
    assert.strictEqual(auto.decision, "ask")
    const yolo = JSON.parse(
      (await run(["--json", "--mode=yolo", "git push origin main"], { cwd: dir })).stdout
    )
    assert.strictEqual(yolo.decision, "allow")
    const ps = JSON.parse(
      (await run(["--json", "--shell", "powershell", "ri -Recurse x"], { cwd: dir })).stdout
    )
    assert.deepStrictEqual(ps.commands[0].argv, ["ri", "-Recurse", "x"])
    assert.include(ps.requests.at(-1).patterns, "Remove-Item -Recurse x")
    const elsewhere = JSON.parse(
      (await run(["--json", "--cwd", dir, "git commit -m x"], { cwd: base })).stdout
    )
    assert.strictEqual(elsewhere.decision, "deny")
  })

  it("--jsonl judges one line after another in order, and reports malformed lines in place", {
    timeout: 120_000
  }, async () => {
    const lines = [
      JSON.stringify({ command: "git status" }),
      "{not json",
      JSON.stringify({ command: "git commit -m x" }),
      JSON.stringify({ command: "Remove-Item -Recurse x", shell: "pwsh" }),
      JSON.stringify({ command: "ls", cwd: "/tmp" }),
      JSON.stringify({ nope: 1 })
    ]
    const { code, stdout, stderr } = await run(["--jsonl"], { cwd: dir, stdin: `${lines.join("\n")}\n` })
    assert.strictEqual(code, 2)
    const out = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    assert.deepStrictEqual(
      out.map((r) => r.line),
      [1, 2, 3, 4, 5, 6]
    )
    assert.strictEqual(out[0].decision, "allow")
    assert.strictEqual(out[1].error, "not valid JSON")
    assert.strictEqual(out[2].decision, "deny")
    assert.strictEqual(out[3].commands[0].argv[0], "Remove-Item")
    assert.strictEqual(out[4].decision, "ask")
    assert.match(out[5].error, /unknown key "nope"/)
    assert.include(stderr, "line 2: not valid JSON")
  })

  it("exits 2 with a clear message for a bad flag or a missing command", { timeout: 120_000 }, async () => {
    const bad = await run(["--mode", "sometimes", "ls"], { cwd: dir })
    assert.strictEqual(bad.code, 2)
    assert.include(bad.stderr, '--mode must be ask, auto or yolo, got "sometimes"')
    const shell = await run(["--shell", "fish", "ls"], { cwd: dir })
    assert.strictEqual(shell.code, 2)
    assert.include(shell.stderr, "--shell must be bash or powershell")
    const unknown = await run(["--frobnicate", "ls"], { cwd: dir })
    assert.strictEqual(unknown.code, 2)
    assert.include(unknown.stderr, "unknown option --frobnicate")
    const none = await run([], { cwd: dir })
    assert.strictEqual(none.code, 2)
    assert.include(none.stderr, "no COMMAND given")
  })

  it("exits 2 naming the file and the JSON path of an invalid config value", {
    timeout: 120_000
  }, async () => {
    const cases: ReadonlyArray<[unknown, string]> = [
      [
        { permission: { bash: { "rm *": "nope" } } },
        'permission.bash["rm *"]: expected allow | ask | deny, got "nope"'
      ],
      [{ mode: "sometimes" }, 'mode: expected ask | auto | yolo, got "sometimes"'],
      [{ tool_output: { max_lines: -1 } }, "tool_output.max_lines: expected a positive integer, got -1"],
      [{ tool_output: { colour: 1 } }, "tool_output.colour: unknown key"],
      [{ permisson: {} }, "permisson: unknown key"],
      [{ shell: 3 }, "shell: expected a shell name or path, got 3"]
    ]
    for (const [config, message] of cases) {
      const file = NodePath.join(base, "bad.json")
      NodeFs.writeFileSync(file, JSON.stringify(config))
      const result = await run(["--config", file, "ls"], { cwd: dir })
      assert.strictEqual(result.code, 2, JSON.stringify(config))
      assert.include(result.stderr, `${file}: ${message}`)
    }
    const broken = NodePath.join(base, "broken.json")
    NodeFs.writeFileSync(broken, "{ not json")
    const invalid = await run(["--config", broken, "ls"], { cwd: dir })
    assert.strictEqual(invalid.code, 2)
    assert.include(invalid.stderr, "not valid JSON")
    const missing = await run(["--config", NodePath.join(base, "missing.json"), "ls"], { cwd: dir })
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "cannot read")
  })
})

describe("gatehouse check: the sandbox policy next to the verdict", () => {
  it.live("shows what would be writable, read-only, masked, and the network", () =>
    Effect.promise(async () => {
      const dir = project("sandbox-policy", {
        permission: { edit: { ".git/*": "deny" }, read: { "*.env": "deny" } },
        sandbox: { network: "allow" }
      })
      NodeFs.writeFileSync(NodePath.join(dir, "prod.env"), "SECRET=1\n")
      const text = await run(["--", "ls"], { cwd: dir })
      assert.strictEqual(text.code, 0, text.stderr)
      assert.include(text.stdout, "\nsandbox: auto")
      assert.include(text.stdout, `  writable: ${dir}, /tmp (private to the project)`)
      assert.include(text.stdout, `  read-only: ${NodePath.join(dir, ".git")}`)
      assert.include(text.stdout, NodePath.join(dir, "prod.env"))
      assert.include(text.stdout, "  network: allowed")
      const json = JSON.parse((await run(["--json", "--", "ls"], { cwd: dir })).stdout)
      assert.strictEqual(json.sandbox.mode, "auto")
      assert.deepStrictEqual(json.sandbox.readOnly, [NodePath.join(dir, ".git")])
      assert.include(
        json.sandbox.masked.map((entry: { path: string }) => entry.path),
        NodePath.join(dir, "prod.env")
      )
      const off = await run(["--", "ls"], { cwd: project("sandbox-off", { sandbox: "off" }) })
      assert.include(off.stdout, "sandbox: off: commands run unsandboxed")
    })
  )
})
