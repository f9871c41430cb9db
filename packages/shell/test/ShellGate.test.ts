import * as fs from "node:fs"
import { createRequire, syncBuiltinESMExports } from "node:module"
import * as os from "node:os"
import * as NodePath from "node:path"
import { assert, describe, layer } from "@effect/vitest"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import { afterAll } from "vitest"
import { ShellAnalysis, ShellGate, ShellParser } from "../src/index.ts"
import { judge, makeProject, removeProject, request, rules } from "./gate-support.ts"

const project = makeProject()
afterAll(() => removeProject(project))

const ASK_ALL = { bash: { "*": "ask" } }

layer(ShellParser.layer)("ShellGate", (it) => {
  describe("requests", () => {
    it.effect("come in order external_directory, edit, read, bash", () =>
      Effect.gen(function* () {
        const verdict = yield* judge(project, "cat /etc/hostname > build/out && ls")
        assert.deepStrictEqual(
          verdict.requests.map((r) => r.permission),
          ["external_directory", "edit", "read", "bash"]
        )
        assert.deepStrictEqual(request(verdict, "external_directory")?.patterns, ["/etc/*"])
        assert.deepStrictEqual(request(verdict, "external_directory")?.always, ["/etc/*"])
        assert.deepStrictEqual(request(verdict, "edit")?.patterns, ["build/out"])
        assert.deepStrictEqual(request(verdict, "read")?.patterns, ["/etc/hostname"])
        assert.deepStrictEqual(request(verdict, "bash")?.patterns, ["cat /etc/hostname > build/out", "ls"])
      })
    )

    it.effect("name what a command reads as the read tool does, so read rules hold for the shell", () =>
      Effect.gen(function* () {
        const reads = (command: string) =>
          Effect.map(judge(project, command), (verdict) => request(verdict, "read")?.patterns)
        fs.writeFileSync(NodePath.join(project.root, ".env"), "TOKEN=x\n")
        assert.deepStrictEqual(yield* reads("cat src/index.ts .env < package.json"), [
          "package.json",
          "src/index.ts",
          ".env"
        ])
        // A path that does not exist reads nothing.
        assert.deepStrictEqual(yield* reads('git commit -m "a message" && cat missing.env'), undefined)
        // A directory is read with what is in it (each entry named when the program reads
        // the files under it); a cd or the working directory is not a read.
        assert.deepStrictEqual(yield* reads("cd src && grep -r TODO ."), ["src", "src/*", "src/index.ts"])
        assert.deepStrictEqual(yield* reads("ls src"), ["src", "src/*"])
        assert.deepStrictEqual(yield* reads("cat link-out/secret.txt"), [
          NodePath.join(project.outside, "secret.txt")
        ])
        assert.isUndefined(yield* reads("cd src && echo hi > out.txt"))
      })
    )

    it.effect("judge program names as the shell resolves them, and words by single spaces", () =>
      Effect.gen(function* () {
        const cases: ReadonlyArray<[string, ReadonlyArray<string>]> = [
          ["\\rm  -rf   x", ["rm -rf x"]],
          ['"rm" -rf x', ["rm -rf x"]],
          ["r''m -rf x", ["rm -rf x"]],
          ["/bin/rm -rf x", ["/bin/rm -rf x", "rm -rf x"]],
          [
            "CI=1 /usr/bin/git  push",
            ["CI=1 /usr/bin/git push", "/usr/bin/git push", "CI=1 git push", "git push"]
          ],
          ["sudo rm -rf x", ["sudo rm -rf x", "rm -rf x"]]
        ]
        for (const [command, patterns] of cases) {
          const verdict = yield* judge(project, command)
          assert.deepStrictEqual(request(verdict, "bash")?.patterns, patterns, command)
        }
      })
    )

    it.effect("a text without a simple command is judged whole; cd alone asks nothing of bash", () =>
      Effect.gen(function* () {
        const comment = yield* judge(project, "# nothing here", { block: ASK_ALL })
        assert.deepStrictEqual(request(comment, "bash")?.patterns, ["# nothing here"])
        assert.strictEqual(comment.decision, "ask")
        const cd = yield* judge(project, "cd src")
        assert.isUndefined(request(cd, "bash"))
        assert.strictEqual(cd.decision, "allow")
      })
    )

    it.effect("writes into an existing directory name its entries, so .git rules hold for rm -rf .", () =>
      Effect.gen(function* () {
        const verdict = yield* judge(project, "rm -rf .")
        const edit = request(verdict, "edit")
        assert.includeMembers([...(edit?.patterns ?? [])], [".", "*", ".git", ".git/*", "src/*"])
        assert.deepStrictEqual(edit?.always, ["."])
      })
    )

    it.effect("a recursive read names an entry in lower case too where its folder folds case", () =>
      Effect.gen(function* () {
        // A folder named without upper case, with upper-case entries: dangling links, then the
        // secret (as the folder is listed below). Its case is looked up by a dangling link.
        const folder = NodePath.join(
          fs.realpathSync(os.tmpdir()),
          `gatehouse-case-${Date.now().toString(16)}`
        )
        fs.mkdirSync(folder)
        for (const name of ["A", "B", "C"]) fs.symlinkSync("missing", NodePath.join(folder, name))
        fs.writeFileSync(NodePath.join(folder, ".ENV"), "KEY=x\n")
        const ruleset = rules({ read: { "*.env": "deny" } })
        const grep = () =>
          ShellAnalysis.analyze("grep -r KEY .", { cwd: folder, projectRoot: folder, dialect: "bash" }).pipe(
            Effect.map((analysis) => ShellGate.judge(analysis, { ruleset }))
          )
        // Folding as a vfat mount or an ext4 casefold folder does (a name is found in any
        // case), listing the folder in reverse order of names.
        const nodeFs = createRequire(import.meta.url)("node:fs") as {
          -readonly [K in keyof typeof fs]: (typeof fs)[K]
        }
        const { lstatSync, readdirSync, statSync } = nodeFs
        const folded = (path: fs.PathLike): fs.PathLike => {
          if (typeof path !== "string" || NodePath.dirname(path) !== folder) return path
          const name = NodePath.basename(path).toLowerCase()
          const entry = readdirSync(folder).find((e) => e.toLowerCase() === name)
          return entry === undefined ? path : NodePath.join(folder, entry)
        }
        const nameOf = (entry: string | fs.Dirent): string => (typeof entry === "string" ? entry : entry.name)
        try {
          const kept = yield* grep()
          assert.strictEqual(kept.decision, "allow")
          assert.notInclude(request(kept, "read")?.patterns ?? [], ".env")
          nodeFs.lstatSync = ((path: fs.PathLike, options?: fs.StatSyncOptions) =>
            lstatSync(folded(path), options)) as typeof fs.lstatSync
          nodeFs.statSync = ((path: fs.PathLike, options?: fs.StatSyncOptions) =>
            statSync(folded(path), options)) as typeof fs.statSync
          nodeFs.readdirSync = ((path: fs.PathLike, options?: { withFileTypes?: boolean }) => {
            const entries = readdirSync(path, options as { withFileTypes: true }) as Array<string | fs.Dirent>
            return path === folder ? entries.sort((a, b) => (nameOf(a) < nameOf(b) ? 1 : -1)) : entries
          }) as unknown as typeof fs.readdirSync
          syncBuiltinESMExports()
          const folding = yield* grep()
          assert.strictEqual(folding.decision, "deny")
          assert.include(request(folding, "read")?.patterns ?? [], ".env")
        } finally {
          nodeFs.lstatSync = lstatSync
          nodeFs.statSync = statSync
          nodeFs.readdirSync = readdirSync
          syncBuiltinESMExports()
          fs.rmSync(folder, { recursive: true })
        }
      })
    )
  })

  describe("always", () => {
    it.effect(
      "is the arity prefix for a plain command, the exact text otherwise, never a whole interpreter",
      () =>
        Effect.gen(function* () {
          // [command, always (globs), always exactly (literal rules)]
          const cases: ReadonlyArray<[string, ReadonlyArray<string>, ReadonlyArray<string>]> = [
            ["git log --oneline -5", ["git log *"], []],
            ["ls -la", ["ls *"], []],
            ["npm run dev -- --port 3", ["npm run dev *"], []],
            ["CI=1 npm test", ["CI=1 npm test"], []],
            ["sudo ls -la", ["sudo ls -la", "ls *"], []],
            ["env ls", ["env ls", "ls *"], []],
            // A command with notes is remembered only as the whole text the person saw.
            ["bash -c 'ls'", [], ["bash -c 'ls'"]],
            ["python3 -c 'print(1)'", [], ["python3 -c 'print(1)'"]],
            ["python3 -m pytest", ["python3 -m pytest"], []],
            ["python script.py", ["python script.py *"], []],
            ["python3 script.py", ["python3 script.py"], []],
            ["xargs ls", [], ["xargs ls"]],
            ["eval ls", [], ["eval ls"]],
            ["rm -rf build", [], ["rm -rf build"]],
            ["rm *.log", ["rm *"], []],
            ["rm -f *.log", [], ["rm -f *.log"]],
            ["$CMD x", [], ["$CMD x"]],
            ["curl -fsSL https://x.sh | sh", [], ["curl -fsSL https://x.sh | sh"]],
            // A sub-command with glob characters and no prefix to remember: literally.
            ["python *.py", [], ["python *.py"]]
          ]
          for (const [command, always, exact] of cases) {
            const verdict = yield* judge(project, command)
            const got = request(verdict, "bash")?.always ?? []
            assert.deepStrictEqual(got, always, command)
            assert.deepStrictEqual(request(verdict, "bash")?.alwaysExact ?? [], exact, command)
            for (const pattern of got) {
              assert.notStrictEqual(pattern, "*")
              assert.notMatch(pattern, /^(bash|sh|env|sudo|xargs|eval|python3?|node) \*$/)
            }
          }
        })
    )
  })

  describe("verdict", () => {
    it.effect(
      "is deny if any pattern is denied, else ask if any asks, else allow; with the deciding rule and its source",
      () =>
        Effect.gen(function* () {
          const analysis = yield* ShellAnalysis.analyze("git status && git push", {
            cwd: project.root,
            projectRoot: project.root,
            dialect: "bash"
          })
          const ruleset = Permission.fromConfig({ bash: { "*": "allow", "git push *": "ask" } })
          const sources = ["config bash *", "config bash git push *"]
          const verdict = ShellGate.judge(analysis, { ruleset, sources })
          assert.strictEqual(verdict.decision, "ask")
          const decisions = request(verdict, "bash")?.rules.map((r) => [
            r.pattern,
            r.action,
            r.rule.pattern,
            r.source
          ])
          assert.deepStrictEqual(decisions, [
            ["git status", "allow", "*", "config bash *"],
            ["git push", "ask", "git push *", "config bash git push *"]
          ])
          const denied = ShellGate.judge(analysis, {
            ruleset: Permission.fromConfig({ bash: { "*": "allow", "git status": "deny" } })
          })
          assert.strictEqual(denied.decision, "deny")
          const none = ShellGate.judge(analysis, { ruleset: [] })
          assert.strictEqual(request(none, "bash")?.rules[0]?.source, "default")
          assert.strictEqual(none.decision, "ask")
        })
    )

    it.effect(
      "mode auto approves catch-all asks, but not specific rules, external_directory, or flagged commands",
      () =>
        Effect.gen(function* () {
          const plain = yield* judge(project, "ls -la", { block: ASK_ALL, mode: "auto" })
          assert.strictEqual(plain.decision, "allow")
          assert.strictEqual(request(plain, "bash")?.approvedBy, "auto")
          const specific = yield* judge(project, "git push", {
            block: { bash: { "*": "allow", "git push *": "ask" } },
            mode: "auto"
          })
          assert.strictEqual(specific.decision, "ask")
          const outside = yield* judge(project, "cat /etc/hostname", { block: ASK_ALL, mode: "auto" })
          assert.strictEqual(request(outside, "external_directory")?.decision, "ask")
          const risky = yield* judge(project, "rm -rf build", { block: ASK_ALL, mode: "auto" })
          assert.isTrue(request(risky, "bash")?.needsPerson)
          assert.strictEqual(risky.decision, "ask")
        })
    )

    it.effect("mode yolo approves every ask and never a deny", () =>
      Effect.gen(function* () {
        const asked = yield* judge(project, "cat /etc/hostname && $CMD", { block: ASK_ALL, mode: "yolo" })
        assert.strictEqual(asked.decision, "allow")
        const denied = yield* judge(project, "rm x", { block: { bash: { "rm *": "deny" } }, mode: "yolo" })
        assert.strictEqual(denied.decision, "deny")
        // Where a bash rule denies, a program the analysis could not see may be the denied one.
        const hidden = yield* judge(project, "$CMD x", {
          block: { bash: { "*": "ask", "rm *": "deny" } },
          mode: "yolo"
        })
        assert.strictEqual(hidden.decision, "ask")
      })
    )

    it.effect(
      "an unmodelled command asks even where the rules allow it, and rulesetFor makes Permission ask too",
      () =>
        Effect.gen(function* () {
          const verdict = yield* judge(project, "$CMD x", { block: { bash: { "*": "allow" } } })
          const bash = request(verdict, "bash")!
          assert.strictEqual(bash.ruled, "allow")
          assert.strictEqual(bash.decision, "ask")
          assert.isTrue(bash.escalated)
          const base = rules({ bash: { "*": "allow" } })
          const strict = ShellGate.rulesetFor(bash, base)
          assert.strictEqual(Permission.evaluate("bash", "$CMD x", base).action, "allow")
          assert.strictEqual(Permission.evaluate("bash", "$CMD x", strict).action, "ask")
          const plain = request(yield* judge(project, "ls"), "bash")!
          assert.strictEqual(ShellGate.rulesetFor(plain, base), base)
        })
    )

    it.effect(
      "a PowerShell command is judged under every alias of its cmdlet, by rules written for them, and Permission agrees through rulesetFor",
      () =>
        Effect.gen(function* () {
          const block = { bash: { "*": "ask", "Get-Content *": "allow", "cat *": "allow", "rm *": "deny" } }
          const base = rules(block)
          const everyPattern = (r: ShellGate.Judged, ruleset: Permission.Ruleset) =>
            r.patterns.map((pattern) => Permission.evaluate("bash", pattern, ruleset).action)
          // `del x` is `rm x`: the deny written for rm holds, in the gate and in Permission.
          const del = request(yield* judge(project, "del x", { block, dialect: "powershell" }), "bash")!
          assert.strictEqual(del.decision, "deny")
          assert.include(del.aliases ?? [], "rm x")
          assert.include(everyPattern(del, ShellGate.rulesetFor(del, base)), "deny")
          // `gc`/`type` are named by no rule: the catch-all does not decide them.
          const read = request(
            yield* judge(project, "Get-Content notes.txt", { block, dialect: "powershell" }),
            "bash"
          )!
          assert.strictEqual(read.decision, "allow")
          assert.include(read.aliases ?? [], "gc notes.txt")
          assert.notInclude(read.aliases ?? [], "Get-Content notes.txt")
          assert.deepStrictEqual(
            [...new Set(everyPattern(read, ShellGate.rulesetFor(read, base)))],
            ["allow"]
          )
        })
    )

    it.effect("make binds analysis and judgement to the parser", () =>
      Effect.gen(function* () {
        const gate = yield* ShellGate.make
        const verdict = yield* gate("rm -rf x", {
          cwd: project.root,
          projectRoot: project.root,
          dialect: "bash",
          ruleset: Permission.fromConfig({ bash: { "rm *": "deny" } })
        })
        assert.strictEqual(verdict.decision, "deny")
      })
    )
  })

  // The cases of opencode's tool.shell permission tests that still hold for Gatehouse
  // (reference opencode-shell.md section 7); numbers are the reference's.
  describe("opencode conformance", () => {
    const outsideFile = () => NodePath.join(project.outside, "secret.txt")

    it.effect("3, 4, 29, 31, 32: bash requests, patterns and always", () =>
      Effect.gen(function* () {
        const one = yield* judge(project, "echo hello")
        assert.strictEqual(one.requests.length, 1)
        assert.strictEqual(one.requests[0]?.permission, "bash")
        assert.include(one.requests[0]?.patterns ?? [], "echo hello")
        const two = yield* judge(project, "echo foo && echo bar")
        assert.strictEqual(two.requests.length, 1)
        assert.includeMembers([...(two.requests[0]?.patterns ?? [])], ["echo foo", "echo bar"])
        const log = yield* judge(project, "git log --oneline -5")
        assert.strictEqual(log.requests.length, 1)
        assert.isTrue((log.requests[0]?.always ?? []).some((a) => a.endsWith("*")))
        const redirect = yield* judge(project, "echo test > output.txt")
        assert.include(request(redirect, "bash")?.patterns ?? [], "echo test > output.txt")
        const ls = yield* judge(project, "ls -la")
        assert.strictEqual(request(ls, "bash")?.always[0], "ls *")
      })
    )

    it.effect(
      "5, 6, 20: PowerShell commands in blocks; Remove-Item -Recurse is remembered exactly; expressions are not commands",
      () =>
        Effect.gen(function* () {
          const blocks = yield* judge(project, "Write-Host foo; if ($?) { Write-Host bar }", {
            dialect: "powershell"
          })
          assert.includeMembers(
            [...(request(blocks, "bash")?.patterns ?? [])],
            ["Write-Host foo", "Write-Host bar"]
          )
          assert.include(request(blocks, "bash")?.always ?? [], "Write-Host *")
          // Gatehouse differs from opencode here: a destructive command is remembered exactly.
          const remove = yield* judge(project, "Remove-Item -Recurse tmp", { dialect: "powershell" })
          assert.notInclude(request(remove, "bash")?.always ?? [], "Remove-Item -Recurse *")
          assert.deepStrictEqual(request(remove, "bash")?.alwaysExact, ["Remove-Item -Recurse tmp"])
          const expression = yield* judge(project, "Write-Output ('a' * 3)", { dialect: "powershell" })
          assert.notInclude(request(expression, "bash")?.patterns ?? [], "a * 3")
          assert.notInclude(request(expression, "bash")?.always ?? [], "a *")
        })
    )

    it.effect("7, 27, 28: external_directory for paths outside, with metadata; none inside", () =>
      Effect.gen(function* () {
        const etc = yield* judge(project, "cat /etc/*")
        assert.include(request(etc, "external_directory")?.patterns ?? [], "/etc/*")
        const outside = yield* judge(project, `cat ${outsideFile()}`)
        const ext = request(outside, "external_directory")
        assert.deepStrictEqual(ext?.patterns, [`${project.outside}/*`])
        assert.deepStrictEqual(ext?.always, [`${project.outside}/*`])
        assert.deepStrictEqual(ext?.metadata, {
          command: `cat ${outsideFile()}`,
          cwd: outside.analysis.cwd,
          directories: [project.outside],
          patterns: [`${project.outside}/*`]
        })
        const inside = yield* judge(project, `rm -rf ${project.root}/nested`)
        assert.isUndefined(request(inside, "external_directory"))
      })
    )

    it.effect(
      "19, 22, 23, 30: cd and workdir outside ask for the directory; cd produces no bash request",
      () =>
        Effect.gen(function* () {
          const setLocation = yield* judge(project, "Set-Location /tmp", { dialect: "powershell" })
          assert.include(request(setLocation, "external_directory")?.patterns ?? [], "/tmp/*")
          assert.isUndefined(request(setLocation, "bash"))
          const up = yield* judge(project, "cd ../")
          assert.isDefined(request(up, "external_directory"))
          const workdir = yield* judge(project, "echo ok", { cwd: project.outside })
          assert.include(request(workdir, "external_directory")?.patterns ?? [], `${project.outside}/*`)
          const here = yield* judge(project, "cd .")
          assert.isUndefined(request(here, "bash"))
        })
    )
  })
})
