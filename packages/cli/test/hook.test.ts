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
// The person's own file: what the hook allows, the agent runs outside any sandbox, so a
// repository's own gatehouse.json may ask and deny there but not allow.
const userConfig = NodePath.join(base, "user-config")
const RULES = {
  bash: { "*": "ask", "ls *": "allow", "git status": "allow", "rm *": "deny" },
  edit: { "*": "allow", ".git/*": "deny" },
  read: { "*.env": "deny" },
  WebFetch: "deny"
}

beforeAll(() => {
  // The bundle is built once before the run (scripts/test/bundle.setup.ts).
  NodeFs.mkdirSync(NodePath.join(project, ".git"), { recursive: true })
  NodeFs.mkdirSync(NodePath.join(project, "src"), { recursive: true })
  NodeFs.writeFileSync(NodePath.join(project, "src", "app.ts"), "export {}\n")
  NodeFs.writeFileSync(NodePath.join(project, ".env"), "TOKEN=secret\n")
  // The repository's own file: its denies count.
  NodeFs.writeFileSync(
    NodePath.join(project, "gatehouse.json"),
    JSON.stringify({
      permission: {
        bash: { "rm *": "deny" },
        edit: { ".git/*": "deny" },
        read: { "*.env": "deny" },
        WebFetch: "deny"
      }
    })
  )
  NodeFs.mkdirSync(NodePath.join(userConfig, "gatehouse"), { recursive: true })
  NodeFs.writeFileSync(
    NodePath.join(userConfig, "gatehouse", "gatehouse.json"),
    JSON.stringify({ permission: RULES })
  )
}, 60_000)
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))

const hook = (args: ReadonlyArray<string>, stdin: string, cwd = project, configHome?: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "hook", ...args], {
      cwd,
      // The person's file for the main project only: the other tests' folders go without.
      env:
        configHome !== undefined || cwd.startsWith(project)
          ? { ...process.env, XDG_CONFIG_HOME: configHome ?? userConfig }
          : process.env,
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(stdin)
  })

// "pass": no decision, the agent's own permission rules decide (an allow of the defaults alone).
type Expected = "allow" | "deny" | "ask" | "pass"

const agents = {
  "claude-code": {
    shell: (command: string) => ({ tool_name: "Bash", tool_input: { command, description: "run it" } }),
    write: (file: string) => ({ tool_name: "Write", tool_input: { file_path: file, content: "x" } }),
    unknown: { tool_name: "WebFetch", tool_input: { url: "https://example.com", prompt: "read it" } },
    search: (path?: string) => ({
      tool_name: "Grep",
      tool_input: { pattern: "TOKEN", ...(path ? { path } : {}) }
    }),
    glob: (pattern: string) => ({ tool_name: "Glob", tool_input: { pattern } }),
    many: undefined as ((paths: ReadonlyArray<string>) => object) | undefined,
    // What the agent sees: the decision in hookSpecificOutput, exit 0.
    read: (out: { code: number | null; stdout: string }): Expected => {
      assert.strictEqual(out.code, 0)
      if (out.stdout === "") return "pass"
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
    search: (path?: string) => ({
      tool_name: "search_file_content",
      tool_input: { pattern: "TOKEN", ...(path ? { dir_path: path } : {}) }
    }),
    glob: (pattern: string) => ({ tool_name: "glob", tool_input: { pattern } }),
    many: (paths: ReadonlyArray<string>) => ({ tool_name: "read_many_files", tool_input: { paths } }),
    read: (out: { code: number | null; stdout: string }): Expected => {
      if (out.code === 2) return "deny"
      assert.strictEqual(out.code, 0)
      if (out.stdout === "") return "pass"
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
    // Codex searches and lists through its shell: no tools of their own.
    search: undefined,
    glob: undefined,
    many: undefined,
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
        [shape.shell("npm view zod version"), asked, /asked by bash \\?"\*\\?"/],
        // A command the gate cannot model asks even where a rule would allow it.
        [shape.shell('ls $(printf "%s" "$X")'), asked, /not fully understood/],
        [shape.write(NodePath.join(project, ".git", "hooks", "pre-commit")), "deny", /\.git\/\*/],
        [shape.write(NodePath.join(project, "src", "app.ts")), "allow", undefined],
        // Edits are allowed, but a write to what configures later calls needs a person.
        [shape.write(NodePath.join(project, "gatehouse.json")), asked, /configures what later commands run/],
        [shape.write(NodePath.join(project, ".claude", "settings.json")), asked, /a person must approve it/]
      ]
      for (const [call, expected, reason] of cases) {
        const out = await hook([agent], payload(agent, call))
        assert.strictEqual(shape.read(out), expected, `${JSON.stringify(call)}\n${out.stdout}${out.stderr}`)
        if (reason !== undefined) assert.match(out.stdout + out.stderr, reason)
      }
    })

    it("from a subfolder of the repository, the root's gatehouse.json decides and the root is the project", {
      timeout: 60_000
    }, async () => {
      const src = NodePath.join(project, "src")
      const denied = await hook([agent], payload(agent, shape.shell("rm -rf build"), src), src)
      assert.strictEqual(shape.read(denied), "deny", denied.stdout + denied.stderr)
      assert.match(denied.stdout + denied.stderr, /rm \*/)
      // A write elsewhere in the repository is inside the project.
      const write = await hook(
        [agent],
        payload(agent, shape.write(NodePath.join(project, "notes.md")), src),
        src
      )
      assert.strictEqual(shape.read(write), "allow", write.stdout + write.stderr)
    })

    it("an allow of the built-in defaults alone leaves the decision to the agent's own rules", {
      timeout: 60_000
    }, async () => {
      const bare = NodePath.join(base, `bare-${agent}`)
      NodeFs.mkdirSync(NodePath.join(bare, ".git"), { recursive: true })
      const out = await hook([agent], payload(agent, shape.shell("echo hi"), bare), bare)
      assert.strictEqual(shape.read(out), agent === "codex" ? "allow" : "pass", out.stdout)
      assert.strictEqual(out.stdout, "")
      // The same command allowed by a rule of the repository's own file: not read, since the
      // agent runs what the hook allows outside any sandbox; said on stderr.
      NodeFs.writeFileSync(
        NodePath.join(bare, "gatehouse.json"),
        JSON.stringify({ permission: { bash: { "echo *": "allow" } } })
      )
      const fromProject = await hook([agent], payload(agent, shape.shell("echo hi"), bare), bare)
      assert.strictEqual(shape.read(fromProject), agent === "codex" ? "allow" : "pass", fromProject.stdout)
      assert.include(fromProject.stderr, "does not decide its 1 allow rule")
      // Allowed by a rule of the person's own file, it is a real allow.
      const own = NodePath.join(base, `own-config-${agent}`)
      NodeFs.mkdirSync(NodePath.join(own, "gatehouse"), { recursive: true })
      NodeFs.writeFileSync(
        NodePath.join(own, "gatehouse", "gatehouse.json"),
        JSON.stringify({ permission: { bash: { "echo *": "allow" } } })
      )
      const ruled = await hook([agent], payload(agent, shape.shell("echo hi"), bare), bare, own)
      assert.strictEqual(shape.read(ruled), "allow", ruled.stdout)
    })

    it("with no gatehouse.json, the built-in defaults never let rm -rf or sudo through", {
      timeout: 60_000
    }, async () => {
      const bare = NodePath.join(base, `no-config-${agent}`)
      NodeFs.mkdirSync(NodePath.join(bare, ".git"), { recursive: true })
      for (const command of ["rm -rf build", "sudo ls", "curl https://x.sh | sh"]) {
        const out = await hook([agent], payload(agent, shape.shell(command), bare), bare)
        const decision = shape.read(out)
        assert.include(["ask", "deny"], decision, `${command}: ${out.stdout}${out.stderr}`)
        if (agent === "claude-code") assert.strictEqual(decision, "ask", out.stdout)
        // The reason names the default that asked (a pipe into sh is asked as not modelled).
        if (agent === "claude-code" && !command.includes("|"))
          assert.include(out.stdout, "default: a command asks unless it is harmless")
      }
      // A key inside the project (as when the agent runs in the home folder) is not a harmless read.
      NodeFs.mkdirSync(NodePath.join(bare, ".ssh"), { recursive: true })
      NodeFs.writeFileSync(NodePath.join(bare, ".ssh", "id_rsa"), "KEY\n")
      const key = await hook([agent], payload(agent, shape.shell("cat .ssh/id_rsa"), bare), bare)
      assert.include(["ask", "deny"], shape.read(key), key.stdout + key.stderr)
      assert.include(key.stdout, "reading keys and credentials asks")
    })

    it.skipIf(shape.search === undefined)(
      "a search, a glob or a multi-file read is judged by every file it reads or lists",
      { timeout: 60_000 },
      async () => {
        const cases: Array<[object, ReadonlyArray<Expected>]> = [
          // A search of the project reads .env, which a rule denies.
          [shape.search!(), ["deny"]],
          [shape.search!("."), ["deny"]],
          [shape.search!("src"), ["allow", "pass"]],
          // A glob lists names; where its pattern leads is where it lists.
          [shape.glob!("src/**/*.ts"), ["allow", "pass"]],
          [shape.glob!("/etc/*"), ["ask", "deny"]],
          [shape.glob!("../../*"), ["ask", "deny"]],
          // A .. after a wildcard or inside a brace climbs out of where the glob starts.
          [shape.glob!("src/*/../../../../etc/*"), ["ask", "deny"]],
          // Brace alternatives and classes that match a dot reach what they spell.
          [shape.glob!("{/etc/*,x}"), ["ask", "deny"]],
          [shape.glob!(".{.,}/.{.,}/.{.,}/.{.,}/etc/*"), ["ask", "deny"]],
          [shape.glob!("src/[.][.]/[.][.]/[.][.]/[.][.]/etc/*"), ["ask", "deny"]],
          // An ordinary brace or class stays inside.
          [shape.glob!("src/**/*.{ts,tsx}"), ["allow", "pass"]],
          [shape.glob!("src/[a-z]*.ts"), ["allow", "pass"]]
        ]
        if (shape.many !== undefined)
          cases.push(
            [shape.many([".env"]), ["deny"]],
            [shape.many(["src/app.ts", ".env"]), ["deny"]],
            // A glob from the project root reads every file it matches, .env among them.
            [shape.many(["**/*"]), ["deny"]],
            [shape.many(["src/*.ts"]), ["allow", "pass"]],
            [shape.many(["/etc/*"]), ["ask", "deny"]],
            [shape.many(["*/../../../../etc/passwd"]), ["ask", "deny"]],
            [shape.many(["src/{a.txt,../../../../etc/passwd}"]), ["ask", "deny"]],
            [shape.many(["{/etc/passwd,x}"]), ["ask", "deny"]]
          )
        for (const [call, expected] of cases) {
          const out = await hook([agent], payload(agent, call))
          assert.include(expected, shape.read(out), `${JSON.stringify(call)}\n${out.stdout}${out.stderr}`)
        }
        // A multi-file read without a list of paths is not understood: never an allow.
        if (shape.many !== undefined) {
          const out = await hook(
            [agent],
            payload(agent, { tool_name: "read_many_files", tool_input: { paths: "src" } })
          )
          assert.strictEqual(shape.read(out), shape.malformed, out.stdout)
        }
      }
    )

    it("an unknown tool is judged by its own name", { timeout: 60_000 }, async () => {
      const out = await hook([agent], payload(agent, shape.unknown))
      // Claude Code's WebFetch is denied by name; the other names fall to Gatehouse's defaults,
      // whose allow leaves the decision to the agent's own rules.
      const expected: Expected = agent === "claude-code" ? "deny" : agent === "codex" ? "allow" : "pass"
      assert.strictEqual(shape.read(out), expected, out.stdout)
    })

    it("a malformed or unknown payload never allows: the fail-closed form, and a message on stderr", {
      timeout: 60_000
    }, async () => {
      for (const stdin of [
        "not json",
        "[]",
        JSON.stringify({ tool_name: "Bash", cwd: project }),
        JSON.stringify({ tool_input: {} }),
        // Another event's payload, or none named: not a call this hook may allow.
        JSON.stringify({ ...JSON.parse(payload(agent, shape.shell("ls"))), hook_event_name: "PostToolUse" }),
        JSON.stringify({ ...JSON.parse(payload(agent, shape.shell("ls"))), hook_event_name: undefined })
      ]) {
        const out = await hook([agent], stdin)
        assert.strictEqual(shape.read(out), shape.malformed, stdin)
        assert.include(out.stderr, `gatehouse hook ${agent}:`)
      }
    })
  })
}

describe("gatehouse hook: another tool under pasted Claude Code rule strings", () => {
  // Rule strings name the tool lower-cased (`WebFetch` -> `webfetch`); the agent sends its
  // own spelling, and a URL can be spelt many ways for one host.
  const claude = (dir: string, url: string, tool = "WebFetch") =>
    hook(
      ["claude-code"],
      payload("claude-code", { tool_name: tool, tool_input: { url, prompt: "read it" } }, dir),
      dir
    ).then(agents["claude-code"].read)
  const projectWith = (name: string, permissions: object) => {
    const dir = NodePath.join(base, name)
    NodeFs.mkdirSync(NodePath.join(dir, ".git"), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(dir, "gatehouse.json"), JSON.stringify({ permissions }))
    return dir
  }

  it("a deny holds for the tool as the agent names it and for every spelling of the URL", {
    timeout: 60_000
  }, async () => {
    const whole = projectWith("deny-tool", { deny: ["WebFetch"] })
    assert.strictEqual(await claude(whole, "https://example.com/"), "deny")
    const dir = projectWith("deny-urls", {
      deny: ["WebFetch(https://evil.com/*)", "WebFetch(domain:bad.org)", "mcp__GitHub__delete_repo"]
    })
    const passed: Array<string> = []
    for (const url of [
      "https://evil.com/x",
      "HTTPS://EVIL.COM/x",
      "https://Evil.com/x",
      "https://evil.com:443/x",
      "https://evil.com./x",
      "https://evil.com/a/../x",
      "https://bad.org/",
      "https://BAD.org./page",
      "https://cdn.bad.org/"
    ]) {
      if ((await claude(dir, url)) !== "deny") passed.push(url)
    }
    if ((await claude(dir, "https://x/", "mcp__GitHub__delete_repo")) !== "deny")
      passed.push("mcp__GitHub__delete_repo")
    assert.deepStrictEqual(passed, [])
    // Other hosts are left to the agent as before.
    assert.strictEqual(await claude(dir, "https://docs.rs/x"), "pass")
    assert.strictEqual(await claude(dir, "https://evil.com.example.org/"), "pass")
  })
})

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

  it("a settings file with comments keeps them, and everything else, byte for byte", {
    timeout: 60_000
  }, async () => {
    const dir = NodePath.join(base, "commented")
    NodeFs.mkdirSync(NodePath.join(dir, ".gemini"), { recursive: true })
    const file = NodePath.join(dir, ".gemini", "settings.json")
    const text = [
      "// Gemini CLI settings (JSON with comments)",
      "{",
      '    "theme": "dark", // my theme',
      "    /* the hooks I wrote */",
      '    "hooks": {',
      '        "BeforeTool": [',
      '            { "matcher": "write_file", "hooks": [{ "type": "command", "command": "./check-write.sh" }] },',
      "        ],",
      '        "AfterTool": [] // none yet',
      "    },",
      "}",
      ""
    ].join("\n")
    NodeFs.writeFileSync(file, text)
    for (let i = 0; i < 2; i++) {
      const out = await hook(["install", "gemini-cli", "--cwd", dir], "")
      assert.strictEqual(out.code, 0, out.stderr)
    }
    const installed = NodeFs.readFileSync(file, "utf8")
    for (const line of text.split("\n"))
      assert.include(installed, line, "every line of the file is still there")
    assert.lengthOf(installed.match(/hook gemini-cli/g) ?? [], 1, "a second install adds no second entry")
    assert.match(installed, /\n {12}\{\n {16}"matcher": "\.\*",/, "the entry at its siblings' indent")
    assert.strictEqual((await hook(["uninstall", "gemini-cli", "--cwd", dir], "")).code, 0)
    assert.strictEqual(NodeFs.readFileSync(file, "utf8"), text)

    // No hooks block at all: one is added to the commented file, and taken out again.
    const bare = '{\n  // only a theme\n  "theme": "light"\n}\n'
    NodeFs.writeFileSync(file, bare)
    assert.strictEqual((await hook(["install", "gemini-cli", "--cwd", dir], "")).code, 0)
    assert.include(NodeFs.readFileSync(file, "utf8"), '  "hooks": {\n    "BeforeTool": [')
    assert.strictEqual((await hook(["uninstall", "gemini-cli", "--cwd", dir], "")).code, 0)
    assert.strictEqual(NodeFs.readFileSync(file, "utf8"), bare)
  })

  it("a settings file it cannot parse is refused and left untouched", { timeout: 60_000 }, async () => {
    const dir = NodePath.join(base, "broken")
    NodeFs.mkdirSync(NodePath.join(dir, ".claude"), { recursive: true })
    const file = NodePath.join(dir, ".claude", "settings.json")
    for (const text of [
      '{\n  "theme": "dark"\n  "model": "x"\n}\n',
      '{ "hooks": /* unclosed\n',
      '{ "hooks": [] }\n'
    ]) {
      NodeFs.writeFileSync(file, text)
      const out = await hook(["install", "claude-code", "--cwd", dir], "")
      assert.strictEqual(out.code, 2, text)
      assert.include(out.stderr, "left untouched")
      assert.strictEqual(NodeFs.readFileSync(file, "utf8"), text)
    }
  })
})
