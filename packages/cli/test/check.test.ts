// `gatehouse check` end to end: the real binary in a real project directory.
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { afterAll } from "vitest"

const bin = NodePath.resolve(import.meta.dirname, "../dist/gatehouse.js")

const run = (
  args: ReadonlyArray<string>,
  options: { cwd: string; stdin?: string; env?: Record<string, string> }
) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "check", ...args], {
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, SHELL: "/bin/bash", ...options.env }
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

  it("with no gatehouse.json the built-in defaults ask for risky commands and allow harmless ones, naming the default", {
    timeout: 120_000
  }, async () => {
    const bare = project("bare")
    NodeFs.writeFileSync(NodePath.join(bare, "README.md"), "# bare\n")
    const commands = [
      "rm -rf .",
      "git push --force",
      "sudo ls",
      "curl x | sh",
      "ls",
      "git status",
      "cat README.md"
    ]
    const { code, stdout, stderr } = await run(["--jsonl", "--no-approvals"], {
      cwd: bare,
      stdin: commands.map((command) => JSON.stringify({ command })).join("\n")
    })
    assert.strictEqual(code, 0, stderr)
    const results = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    assert.deepStrictEqual(
      results.map((result: { decision: string }) => result.decision),
      ["ask", "ask", "ask", "ask", "allow", "allow", "allow"]
    )
    const bashSources = (result: {
      requests: Array<{ permission: string; rules: Array<{ source: string }> }>
    }) => result.requests.find((request) => request.permission === "bash")!.rules.map((rule) => rule.source)
    for (const result of results.slice(0, 4))
      assert.include(bashSources(result), "default: a command asks unless it is harmless")
    for (const result of results.slice(4))
      assert.deepStrictEqual(
        [...new Set(bashSources(result))],
        ["default: a harmless command is allowed (a known read or file operation, with no risk flag)"]
      )
    // The person reads which default decided, by its name.
    const human = await run(["--no-approvals", "--", "rm -rf ."], { cwd: bare })
    assert.match(human.stdout, /^verdict: ask/)
    assert.include(human.stdout, 'by bash "*" ask — default: a command asks unless it is harmless')
    assert.notInclude(human.stdout, "default * *")
    const outside = JSON.parse((await run(["--json", "cat /etc/hostname 2>/dev/null"], { cwd: bare })).stdout)
    assert.strictEqual(outside.decision, "ask")
    assert.deepStrictEqual(outside.requests[0].patterns, ["/etc/*"])
  })

  it("a user's rule is followed as written over the defaults", { timeout: 120_000 }, async () => {
    const own = project("own-rule", { permission: { bash: { "rm *": "allow" } } })
    const { stdout } = await run(["--jsonl", "--no-approvals"], {
      cwd: own,
      stdin: ["rm -rf build", "sudo rm -rf build"].map((command) => JSON.stringify({ command })).join("\n")
    })
    const [removed, elevated] = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    assert.strictEqual(removed.decision, "allow")
    assert.strictEqual(elevated.decision, "ask")
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

describe("gatehouse check: for scripts and people", () => {
  const dir = project("scripts", POLICY)

  it("a usage error prints its reason and where the usage is, not the whole usage", {
    timeout: 120_000
  }, async () => {
    const { code, stderr } = await run(["--mode", "maybe", "ls"], { cwd: dir })
    assert.strictEqual(code, 2)
    assert.strictEqual(
      stderr.trim(),
      'gatehouse check: --mode must be ask, auto or yolo, got "maybe" (see gatehouse check --help)'
    )
  })

  it("a --cwd that is not a directory is an error, not a verdict", { timeout: 120_000 }, async () => {
    const missing = NodePath.join(dir, "no-such-dir")
    const { code, stdout, stderr } = await run(["--cwd", missing, "ls"], { cwd: dir })
    assert.strictEqual(code, 2)
    assert.strictEqual(stdout, "")
    assert.include(stderr, `--cwd ${missing}: no such directory`)
    const file = NodePath.join(dir, "a-file")
    NodeFs.writeFileSync(file, "")
    assert.strictEqual((await run(["--cwd", file, "ls"], { cwd: dir })).code, 2)
  })

  it("--exit-code exits 0, 1, 2 for allow, ask, deny, and 3 for an error", { timeout: 120_000 }, async () => {
    const status = async (args: ReadonlyArray<string>, stdin?: string) =>
      (await run(args, { cwd: dir, ...(stdin === undefined ? {} : { stdin }) })).code
    assert.strictEqual(await status(["--exit-code", "--", "ls"]), 0)
    assert.strictEqual(await status(["--exit-code", "--", "git push origin main"]), 1)
    assert.strictEqual(await status(["--exit-code", "--", "git commit -m x"]), 2)
    // Without the flag every verdict exits 0, as before.
    assert.strictEqual(await status(["--", "git commit -m x"]), 0)
    assert.strictEqual(await status(["--exit-code", "--mode", "maybe", "ls"]), 3)
    assert.strictEqual(await status(["--exit-code", "--cwd", NodePath.join(dir, "nowhere"), "ls"]), 3)
    // --jsonl: the strictest line decides; a malformed line is an error.
    const lines = (...commands: Array<string>) =>
      commands.map((command) => JSON.stringify({ command })).join("\n")
    assert.strictEqual(await status(["--jsonl", "--exit-code"], lines("ls", "git push x")), 1)
    assert.strictEqual(
      await status(["--jsonl", "--exit-code"], lines("git commit -m x", "ls", "git push x")),
      2
    )
    assert.strictEqual(await status(["--jsonl", "--exit-code"], lines("ls", "pwd")), 0)
    assert.strictEqual(await status(["--jsonl", "--exit-code"], `${lines("ls")}\n{ broken`), 3)
    assert.strictEqual(await status(["--jsonl"], lines("git commit -m x")), 0)
  })
})

describe("gatehouse check: the sandbox policy next to the verdict", () => {
  it.live("shows what would be writable, read-only, masked, and the network", () =>
    Effect.promise(async () => {
      const dir = project("sandbox-policy", {
        permission: { edit: { ".git/*": "deny" }, read: { "*.env": "deny" } },
        // A repository's own file may not loosen the sandbox: this is left out, and said.
        sandbox: { network: "allow" }
      })
      NodeFs.writeFileSync(NodePath.join(dir, "prod.env"), "SECRET=1\n")
      const fromProject = await run(["--", "ls"], { cwd: dir })
      assert.include(fromProject.stdout, "  network: none")
      assert.include(fromProject.stderr, "does not decide sandbox.network")
      // The person's own file may.
      const network = NodePath.join(base, "network-allow.json")
      NodeFs.writeFileSync(network, JSON.stringify({ sandbox: { network: "allow" } }))
      const text = await run(["--config", network, "--", "ls"], { cwd: dir })
      assert.strictEqual(text.code, 0, text.stderr)
      assert.include(text.stdout, "\nsandbox: auto")
      assert.include(text.stdout, `  writable: ${dir}, /tmp (private to the project)`)
      assert.include(text.stdout, `  read-only: ${NodePath.join(dir, ".git")}`)
      assert.include(text.stdout, NodePath.join(dir, "prod.env"))
      assert.include(text.stdout, "  network: allowed")
      const json = JSON.parse((await run(["--json", "--config", network, "--", "ls"], { cwd: dir })).stdout)
      assert.strictEqual(json.sandbox.mode, "auto")
      // .git by the rule; the project's own gatehouse.json because it configures the gate.
      assert.deepStrictEqual(json.sandbox.readOnly, [
        NodePath.join(dir, ".git"),
        NodePath.join(dir, "gatehouse.json")
      ])
      assert.include(
        json.sandbox.masked.map((entry: { path: string }) => entry.path),
        NodePath.join(dir, "prod.env")
      )
      const offFile = NodePath.join(base, "sandbox-off.json")
      NodeFs.writeFileSync(offFile, JSON.stringify({ sandbox: "off" }))
      const off = await run(["--config", offFile, "--", "ls"], { cwd: project("sandbox-off", {}) })
      assert.include(off.stdout, "sandbox: off: commands run unsandboxed")
    })
  )
})

describe("gatehouse check: where the project is and where the rules come from", () => {
  it("--only-config judges by --config alone: a checkout's own gatehouse.json is not read", {
    timeout: 120_000
  }, async () => {
    const untrusted = project("untrusted-checkout", { permission: { bash: { "rm *": "allow" } } })
    const strict = NodePath.join(base, "ci-strict.json")
    NodeFs.writeFileSync(strict, JSON.stringify({ permission: { bash: { "git status": "allow" } } }))
    const command = ["--", "rm -rf build"]
    // Layered, the checkout's rule decides.
    const layered = await run(["--exit-code", "--config", strict, ...command], { cwd: untrusted })
    assert.strictEqual(layered.code, 0, layered.stdout)
    const alone = await run(["--exit-code", "--only-config", "--config", strict, ...command], {
      cwd: untrusted
    })
    assert.strictEqual(alone.code, 1, alone.stdout)
    assert.include(alone.stdout, `config: ${strict} · project ${untrusted} · mode ask`)
    const usage = await run(["--only-config", ...command], { cwd: untrusted })
    assert.strictEqual(usage.code, 2)
    assert.include(usage.stderr, "--only-config needs --config FILE")
  })

  it("--config in another folder, --cwd inside a repository: the repository is the project, not the config's folder", {
    timeout: 120_000
  }, async () => {
    const root = NodePath.join(base, "shared")
    const team = NodePath.join(root, "team")
    const repo = project("shared/repo")
    NodeFs.mkdirSync(NodePath.join(repo, "app"), { recursive: true })
    NodeFs.mkdirSync(team, { recursive: true })
    const config = NodePath.join(team, "gatehouse.json")
    NodeFs.writeFileSync(config, JSON.stringify({ permission: { bash: { "*": "allow" } } }))
    const requests = async (command: string) => {
      const result = await run(["--json", "--config", config, "--cwd", "./app", "--", command], { cwd: repo })
      assert.strictEqual(result.code, 0, result.stderr)
      return (
        JSON.parse(result.stdout) as { requests: Array<{ permission: string; patterns: Array<string> }> }
      ).requests
    }
    // A write in app is inside the project: no external_directory ask.
    const inside = await requests("echo x > notes.txt")
    assert.deepStrictEqual(
      inside.map((r) => r.permission),
      ["edit", "bash"]
    )
    assert.deepStrictEqual(inside[0]!.patterns, ["app/notes.txt"])
    // A write in the config's folder is outside it.
    const outside = await requests(`echo x > ${NodePath.join(team, "gatehouse.json")}`)
    assert.include(
      outside.map((r) => r.permission),
      "external_directory"
    )
    const text = await run(["--config", config, "--cwd", "./app", "--", "ls"], { cwd: repo })
    assert.include(text.stdout, `config: ${config} · project ${repo} ·`)
  })

  it("a rule from the user's file is named by that file; a broken user file is an error naming it", {
    timeout: 120_000
  }, async () => {
    const xdg = NodePath.join(base, "xdg")
    const user = NodePath.join(xdg, "gatehouse", "gatehouse.json")
    NodeFs.mkdirSync(NodePath.dirname(user), { recursive: true })
    NodeFs.writeFileSync(user, JSON.stringify({ permission: { bash: { "terraform *": "deny" } } }))
    const dir = project("with-user", { permission: { bash: { "git *": "allow" } } })
    const env = { XDG_CONFIG_HOME: xdg }
    const { code, stdout, stderr } = await run(["--", "terraform apply && git log"], { cwd: dir, env })
    assert.strictEqual(code, 0, stderr)
    assert.match(stdout, /^verdict: deny/)
    assert.include(stdout, `config: ${user} + ${NodePath.join(dir, "gatehouse.json")}`)
    assert.include(stdout, `by bash "terraform *" deny — ${user} permission.bash["terraform *"]`)
    assert.include(stdout, 'by bash "git *" allow — gatehouse.json permission.bash["git *"]')
    NodeFs.writeFileSync(user, "{ broken")
    const broken = await run(["--", "ls"], { cwd: dir, env })
    assert.strictEqual(broken.code, 2)
    assert.strictEqual(broken.stdout, "")
    assert.include(broken.stderr, `gatehouse check: ${user}: not valid JSON`)
  })

  it("an opencode.jsonc as --config: its permission blocks, one line naming the keys it ignores, --agent", {
    timeout: 120_000
  }, async () => {
    const dir = project("opencode")
    const file = NodePath.join(dir, "opencode.jsonc")
    NodeFs.writeFileSync(
      file,
      `{
  // opencode's
  "model": "anthropic/claude-sonnet-4-5",
  "permission": { "bash": { "git push *": "ask", }, },
  "agent": { "build": { "permission": { "bash": { "git push *": "deny" } } } },
}`
    )
    const top = await run(["--config", "opencode.jsonc", "--", "git push origin"], { cwd: dir })
    assert.strictEqual(top.code, 0, top.stderr)
    assert.match(top.stdout, /^verdict: ask/)
    assert.strictEqual(
      top.stderr,
      `gatehouse check: ${file}: only its permission blocks are read; ignored: model, agent\n`
    )
    const agent = await run(["--config", "opencode.jsonc", "--agent", "build", "--", "git push origin"], {
      cwd: dir
    })
    assert.match(agent.stdout, /^verdict: deny/)
    assert.include(agent.stdout, 'opencode.jsonc agent.build.permission.bash["git push *"]')
    const missing = await run(["--config", "opencode.jsonc", "--agent", "plan", "--", "ls"], { cwd: dir })
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "--agent plan: no such agent (its agents: build)")
  })
})
