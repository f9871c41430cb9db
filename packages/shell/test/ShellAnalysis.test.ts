import * as fs from "node:fs"
import * as os from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { afterAll } from "vitest"
import { ShellAnalysis, ShellParser } from "../src/index.ts"
import { continuationsJoined, joinContinuations } from "../src/internal/text.ts"
import { makeProject, removeProject } from "./gate-support.ts"

const project = makeProject()
afterAll(() => removeProject(project))

const analyze = (command: string, dialect: ShellParser.Dialect = "bash", cwd = ".") =>
  ShellAnalysis.analyze(command, {
    cwd: NodePath.resolve(project.root, cwd),
    projectRoot: project.root,
    dialect,
    home: project.home
  })

// Commands with words (bare assignments are commands with assignments and no words).
const argvs = (analysis: ShellAnalysis.Analysis) =>
  analysis.commands.filter((c) => c.argv.length > 0).map((c) => c.argv.join(" "))

describe("joinContinuations", () => {
  it("joins backslash-newline outside single quotes, so a continuation cannot split $(", () => {
    assert.strictEqual(joinContinuations('echo "$\\\n(id)"'), 'echo "$(id)"')
    assert.strictEqual(joinContinuations("ec\\\nho ok"), "echo ok")
    assert.strictEqual(joinContinuations("echo '\\\n'"), "echo '\\\n'")
  })
  it("leaves comments, $'…' strings and quoted here-documents alone, as bash does", () => {
    assert.strictEqual(joinContinuations("echo a # c \\\nrm x"), "echo a # c \\\nrm x")
    assert.strictEqual(joinContinuations("cat <<'E'\na\\\nb\nE\nx\\\ny"), "cat <<'E'\na\\\nb\nE\nxy")
    assert.strictEqual(joinContinuations("cat <<E\na\\\nb\nE"), "cat <<E\nab\nE")
  })
  it("reads a here-string and a shift as no here-document, and `${…}` and arithmetic as bash does", () => {
    assert.strictEqual(joinContinuations("cat <<< E\n# \\\nx"), "cat <<< E\n# \\\nx")
    assert.strictEqual(joinContinuations("echo $((2<<3))\n# \\\nx"), "echo $((2<<3))\n# \\\nx")
    assert.strictEqual(
      joinContinuations('echo "$(echo ${x%)} # \\\nx\n)"'),
      'echo "$(echo ${x%)} # \\\nx\n)"'
    )
    assert.strictEqual(continuationsJoined("a \\\n b").uncertain, undefined)
    // A double quote inside a double-quoted `${…}` opens a string of its own.
    assert.strictEqual(joinContinuations(`echo "\${x:-"'"}"\ncat .e\\\nnv`), `echo "\${x:-"'"}"\ncat .env`)
  })
  it("says where bash may join otherwise, so the text is not modelled", () => {
    assert.isDefined(continuationsJoined(`echo "\${x:-'a'}" \\\n ls`).uncertain)
    assert.isDefined(continuationsJoined('x="$(case y in y) :;; esac # \\\nz\n)"').uncertain)
    assert.isDefined(continuationsJoined("cat <<E $(echo\n# \\\nz\n)\nx\nE").uncertain)
  })
})

layer(ShellParser.layer)("ShellAnalysis.analyze", (it) => {
  it.effect("keeps empty words in a command's text: an empty program name is not the next word", () =>
    Effect.gen(function* () {
      const analysis = yield* analyze(`"" rm -rf x && '' '' git push --force`)
      assert.deepStrictEqual(
        analysis.commands.map((c) => c.text),
        [" rm -rf x", "  git push --force"]
      )
    })
  )

  it.effect("finds every simple command, wherever it is", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<[string, ReadonlyArray<string>]> = [
        ["a && b || c; d & e\nf", ["a", "b", "c", "d", "e", "f"]],
        ["a | b |& c", ["a", "b", "c"]],
        ["(a; b) && { c; }", ["a", "b", "c"]],
        ["echo $(a) `b` <(c) >(d)", ["echo $(a) `b` <(c) >(d)", "a", "b", "c", "d"]],
        ["if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]],
        [
          "for x in 1 2; do a $x; done; while b; do c; done; until d; do e; done",
          ["a $x", "b", "c", "d", "e"]
        ],
        ["case $v in x) a;; *) b;; esac", ["a", "b"]],
        ["f() { a; }; function g { b; }", ["a", "b"]],
        ["x=$(a) y=`b`", ["a", "b"]],
        ["export P=$(a); local q; declare -x r=1", ["export P=$(a)", "a", "local q", "declare -x r=1"]],
        ["cat <<EOF | a\n$(b)\nEOF", ["cat", "b", "a"]],
        ["! a > f", ["a"]],
        ["[[ -f $(a) ]] && (( $(b) ))", ["a", "b"]]
      ]
      for (const [command, expected] of cases) {
        const analysis = yield* analyze(command)
        assert.deepStrictEqual([...argvs(analysis)].sort(), [...expected].sort(), command)
      }
    })
  )

  it.effect("resolves quotes and escapes in argv, keeps assignments and redirections apart", () =>
    Effect.gen(function* () {
      const analysis = yield* analyze(`CI=1  \\git  "commit" -m 'a "b"' $'x\\ty' >log 2>&1`)
      const [command] = analysis.commands
      assert.deepStrictEqual(command?.argv, ["git", "commit", "-m", 'a "b"', "x\ty"])
      assert.deepStrictEqual(command?.assignments, ["CI=1"])
      assert.deepStrictEqual(
        command?.redirects.map((r) => [r.operator, r.target, r.access]),
        [
          [">", "log", "write"],
          [">&", "1", "duplicate"]
        ]
      )
      assert.strictEqual(command?.text, 'CI=1 git commit -m a "b" x\ty > log 2>&1')
      assert.deepStrictEqual(command?.prefix, ["git", "commit"])
    })
  )

  it.effect("follows payloads and wrappers, with the options of each wrapper skipped", () =>
    Effect.gen(function* () {
      const analysis = yield* analyze(
        "sudo -u root -E env -C /tmp A=1 timeout -k 5 10 nice -n 3 bash -c 'eval \"ls -la\"' | xargs -n1 -I{} echo {}"
      )
      const wrapped = analysis.commands.map((c) => [c.argv.join(" "), c.origin, c.via ?? ""])
      assert.deepStrictEqual(wrapped.slice(1, 5), [
        ['env -C /tmp A=1 timeout -k 5 10 nice -n 3 bash -c eval "ls -la"', "wrapped", "sudo"],
        ['timeout -k 5 10 nice -n 3 bash -c eval "ls -la"', "wrapped", "env"],
        ['nice -n 3 bash -c eval "ls -la"', "wrapped", "timeout"],
        ['bash -c eval "ls -la"', "wrapped", "nice"]
      ])
      assert.strictEqual(analysis.commands[2]?.assignments[0], "A=1")
      assert.includeMembers(argvs(analysis), ["eval ls -la", "ls -la", "echo {}"])
      assert.isTrue(analysis.paths.some((p) => p.via === "cd" && p.path === "/tmp"))
    })
  )

  it.effect("decodes PowerShell's -EncodedCommand and follows call operators and script blocks", () =>
    Effect.gen(function* () {
      const encoded = Buffer.from("Remove-Item -Recurse build", "utf16le").toString("base64")
      const analysis = yield* analyze(
        `pwsh -NoProfile -EncodedCommand ${encoded}; & { Get-Date }; iex 'Get-Process'`,
        "powershell"
      )
      assert.includeMembers(argvs(analysis), ["Remove-Item -Recurse build", "Get-Date", "Get-Process"])
      assert.isTrue(
        analysis.commands.some(
          (c) => c.argv[0] === "Remove-Item" && c.notes.some((n) => n.kind === "destructive")
        )
      )
    })
  )

  it.effect("marks paths read or written, inside or outside, after cd and through symlinks", () =>
    Effect.gen(function* () {
      const analysis = yield* analyze(
        "cd src && cp index.ts ../link-out/copy.ts && cat ~/notes > ../build/out"
      )
      const paths = analysis.paths.map((p) => [
        NodePath.relative(NodePath.dirname(project.root), p.path),
        p.access,
        p.inside
      ])
      assert.deepInclude(paths, ["project/src", "read", true])
      assert.deepInclude(paths, ["project/src/index.ts", "read", true])
      assert.deepInclude(paths, ["outside/copy.ts", "write", false])
      assert.deepInclude(paths, ["home/notes", "read", false])
      assert.deepInclude(paths, ["project/build/out", "write", true])
    })
  )

  it.effect("names what it cannot model, and risks, in notes", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<[string, string]> = [
        ["$CMD x", "unmodelled"],
        ["$(which rm) x", "unmodelled"],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
        ["echo ${!x}", "unmodelled"],
        ["source x.sh", "unmodelled"],
        ["echo x\u202e", "unmodelled"],
        ["python3 -c 'print(1)'", "executes"],
        ["git -c color.ui=always log", "executes"],
        ["GIT_SSH_COMMAND=x git fetch", "executes"],
        ["tee out.txt", "writes"],
        ["git push --force-with-lease", "destructive"],
        ["git reset --hard HEAD~1", "destructive"],
        ["git clean -fdx", "destructive"]
      ]
      for (const [command, kind] of cases) {
        const analysis = yield* analyze(command)
        const all = [...analysis.notes, ...analysis.commands.flatMap((c) => c.notes)]
        assert.isTrue(
          all.some((n) => n.kind === kind),
          `${command}: ${JSON.stringify(all)}`
        )
      }
      const plain = yield* analyze("git status && ls -la src 2>/dev/null")
      assert.deepStrictEqual([...plain.notes, ...plain.commands.flatMap((c) => c.notes)], [])
    })
  )
  it.effect("judges paths against the project root as it is now, when it moved between analyses", () =>
    Effect.gen(function* () {
      const base = fs.mkdtempSync(NodePath.join(os.tmpdir(), "gatehouse-root-"))
      try {
        const root = NodePath.join(base, "app")
        const elsewhere = NodePath.join(base, "elsewhere")
        fs.mkdirSync(root)
        fs.mkdirSync(elsewhere)
        const judge = (command: string) =>
          ShellAnalysis.analyze(command, {
            cwd: root,
            projectRoot: root,
            dialect: "bash",
            home: project.home
          })
        const before = yield* judge(`cat notes.txt ${elsewhere}/notes.txt`)
        assert.deepStrictEqual(
          before.paths.map((p) => [p.path, p.inside]),
          [
            [NodePath.join(root, "notes.txt"), true],
            [NodePath.join(elsewhere, "notes.txt"), false]
          ]
        )
        // The root becomes a symlink to another directory: that directory is the project now.
        fs.renameSync(root, NodePath.join(base, "old"))
        fs.symlinkSync(elsewhere, root)
        const after = yield* judge(`cat notes.txt ${elsewhere}/notes.txt ${base}/old/notes.txt`)
        assert.deepStrictEqual(
          after.paths.map((p) => [p.path, p.inside]),
          [
            [NodePath.join(elsewhere, "notes.txt"), true],
            [NodePath.join(base, "old", "notes.txt"), false]
          ]
        )
      } finally {
        fs.rmSync(base, { recursive: true, force: true })
      }
    })
  )
  it.effect("ends on a project root whose path loops through a symlink back under itself", () =>
    Effect.gen(function* () {
      const base = fs.realpathSync(fs.mkdtempSync(NodePath.join(os.tmpdir(), "gatehouse-loop-")))
      try {
        fs.symlinkSync(NodePath.join(base, "a", "b"), NodePath.join(base, "a"))
        const root = NodePath.join(base, "a", "b")
        const analysis = yield* ShellAnalysis.analyze("cat x ../y", {
          cwd: root,
          projectRoot: root,
          dialect: "bash",
          home: project.home
        })
        assert.deepStrictEqual(argvs(analysis), ["cat x ../y"])
        assert.strictEqual(analysis.paths.length, 2)
      } finally {
        fs.rmSync(base, { recursive: true, force: true })
      }
    })
  )
})
