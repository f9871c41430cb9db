// Issue 16: the gate fails closed on whatever it does not positively understand, and judges
// the command that will really run. Cases by hole, in bash and PowerShell; the ordinary
// commands of a strict allow-list keep their verdict.
import * as fs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { afterAll } from "vitest"
import { ShellParser } from "../src/index.ts"
import { type JudgeOptions, judge, makeProject, notes, removeProject } from "./gate-support.ts"

const project = makeProject()
afterAll(() => removeProject(project))
fs.writeFileSync(NodePath.join(project.root, "notes.txt"), "hello\n")

/** A strict allow-list of everyday read-only commands; everything else asks. */
const STRICT = {
  bash: {
    "*": "ask",
    "ls *": "allow",
    "cat *": "allow",
    "echo *": "allow",
    "grep *": "allow",
    "git status *": "allow",
    "git log *": "allow",
    "git diff *": "allow",
    "npm test *": "allow",
    "Get-ChildItem *": "allow",
    "Get-Content *": "allow",
    "Write-Output *": "allow"
  }
}
/** Everything allowed, some commands denied. */
const DENY = {
  bash: {
    "*": "allow",
    "rm *": "deny",
    "Remove-Item *": "deny",
    "git push *": "deny",
    "git commit *": "deny",
    "npm publish *": "deny",
    "curl *": "deny"
  },
  edit: { "*": "allow", ".git/*": "deny", ".npmrc": "deny" }
}
/** Everything allowed. */
const OPEN = { bash: { "*": "allow" } }

interface Case extends JudgeOptions {
  readonly command: string
  readonly expect: "allow" | "ask" | "deny"
}

const ps = "powershell" as const

layer(ShellParser.layer)("issue 16", (it) => {
  const cases = (title: string, list: ReadonlyArray<Case>) =>
    describe(title, () => {
      for (const c of list) {
        const label = `${c.dialect ?? "bash"} ${JSON.stringify(c.command).slice(0, 90)} -> ${c.expect}${c.mode ? ` (${c.mode})` : ""}`
        it.effect(label, () =>
          Effect.gen(function* () {
            const verdict = yield* judge(project, c.command, c)
            assert.strictEqual(
              verdict.decision,
              c.expect,
              JSON.stringify({ requests: verdict.requests, notes: notes(verdict) }, null, 1)
            )
          })
        )
      }
    })

  cases("ordinary commands keep their verdict under a strict allow-list", [
    { command: "ls -la src", block: STRICT, expect: "allow" },
    { command: "cat notes.txt | grep -n hello", block: STRICT, expect: "allow" },
    { command: "echo hello world", block: STRICT, expect: "allow" },
    { command: 'echo "value: $HOME"', block: STRICT, expect: "allow" },
    { command: "grep -rn TODO src", block: STRICT, expect: "allow" },
    { command: "git status --short", block: STRICT, expect: "allow" },
    { command: "git log --oneline -5 | cat", block: STRICT, expect: "allow" },
    { command: "git diff HEAD~1 -- src", block: STRICT, expect: "allow" },
    { command: "npm test", block: STRICT, expect: "allow" },
    { command: "npm test -- --watch=false", block: STRICT, expect: "allow" },
    { command: "cat <<EOF\nhello $HOME\nEOF", block: STRICT, expect: "allow" },
    { command: "cat <<'EOF'\n$(not run) `nor this`\nEOF", block: STRICT, expect: "allow" },
    { command: "cat <<-EOF\n\thello\nEOF", block: STRICT, expect: "allow" },
    { command: "ls src && git status", block: STRICT, expect: "allow" },
    { command: "echo $((1 + 2))", block: STRICT, expect: "allow" },
    { command: "n=3; echo $((n * 2))", block: STRICT, expect: "allow" },
    { command: "for ((i=0; i<3; i++)); do echo $i; done", block: STRICT, expect: "allow" },
    { command: "Get-ChildItem -Recurse src | Write-Output", dialect: ps, block: STRICT, expect: "allow" },
    { command: "Get-Content notes.txt", dialect: ps, block: STRICT, expect: "allow" },
    { command: "Get-ChildItem `\n  -Recurse src", dialect: ps, block: STRICT, expect: "allow" },
    { command: "Write-Output 'a,b'.Length", dialect: ps, block: STRICT, expect: "allow" },
    { command: "Write-Output ('a,b'.Split(','))", dialect: ps, block: STRICT, expect: "allow" }
  ])

  cases("hole 1: expansion syntax left inside leaves", [
    // A backtick in the default of an expansion is a leaf `word` to the grammar.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    { command: "echo a${x:-`rm -rf y`}b", block: OPEN, expect: "ask" },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    { command: 'echo "${x:-`id`}"', block: STRICT, expect: "ask" },
    // `<<-` bodies are childless leaves, and bash still expands them.
    { command: "cat <<-EOF\n\t$(rm -rf x)\nEOF", block: OPEN, expect: "ask" },
    { command: "cat <<-EOF\n\t`id`\nEOF", block: STRICT, expect: "ask" },
    { command: "cat <<EOF\n`rm -rf x`\nEOF", block: OPEN, expect: "ask" },
    // Old-style arithmetic and odd words.
    { command: "echo $[x]", block: OPEN, expect: "ask" },
    { command: "cat <<\\EOF\n$(id)\nEOF", block: STRICT, expect: "allow" }
  ])

  cases("hole 1: arithmetic evaluates names", [
    { command: "x='a[$(rm -rf y)]'; echo $((x))", block: OPEN, expect: "ask" },
    { command: "echo $((x + 1))", block: OPEN, expect: "ask" },
    { command: "(( y ))", block: OPEN, expect: "ask" },
    { command: "[[ $v -eq 1 ]] && echo ok", block: OPEN, expect: "ask" },
    { command: "echo ${arr[i]}", block: OPEN, expect: "ask" },
    { command: "let z=w+1", block: OPEN, expect: "ask" },
    { command: "declare -i n; n=$1", block: OPEN, expect: "ask" },
    { command: "read x; echo $((x))", block: OPEN, expect: "ask" },
    { command: "x=1; x=$(cat f); echo $((x))", block: OPEN, expect: "ask" },
    { command: "for i in $(seq 3); do echo $((i * 2)); done", block: OPEN, expect: "ask" },
    { command: "i=0; i=$((i + 1)); echo $((i))", block: OPEN, expect: "allow" },
    { command: "[[ -n $v ]] && echo ok", block: OPEN, expect: "allow" }
  ])

  cases("hole 1: $(<file) reads the file", [
    { command: "echo $(<.git/config)", block: { ...OPEN, read: { "*": "allow", ".git/*": "deny" } }, expect: "deny" },
    { command: "echo $(< ../outside/secret.txt)", cwd: ".", block: OPEN, expect: "ask" },
    { command: `x=$(<${"/etc/hostname"})`, block: OPEN, expect: "ask" }
  ])

  cases("hole 1: PowerShell member invocations and continuations", [
    { command: "Write-Output $x.Invoke()", dialect: ps, block: OPEN, expect: "ask" },
    {
      command: "Write-Output $ExecutionContext.InvokeCommand.InvokeScript('Remove-Item x')",
      dialect: ps,
      block: STRICT,
      expect: "ask"
    },
    { command: "echo $ExecutionContext.InvokeCommand.NewScriptBlock('x')", dialect: ps, block: OPEN, expect: "ask" },
    { command: "[ScriptBlock]::Create('Remove-Item x').Invoke()", dialect: ps, block: OPEN, expect: "ask" },
    { command: "(New-Object Net.WebClient).DownloadString('http://x')", dialect: ps, block: OPEN, expect: "ask" },
    { command: "Write-Output ([IO.File]::Delete('x'))", dialect: ps, block: OPEN, expect: "ask" },
    { command: "Write-Output ([math]::Max(1, 2))", dialect: ps, block: STRICT, expect: "allow" },
    { command: "$s = 'x'; $s.GetType().InvokeMember('a', 'InvokeMethod', $null, $s, $null)", dialect: ps, block: OPEN, expect: "ask" },
    { command: "'Remove-Item x' | % { $_.Trim() }", dialect: ps, block: OPEN, expect: "ask" },
    // A backtick continuation joins the lines before they are judged.
    { command: "Get-ChildItem`\n; Remove-Item x", dialect: ps, block: DENY, expect: "deny" },
    { command: "Write-Output a `\n Remove-Item x", dialect: ps, block: DENY, expect: "allow" },
    { command: "Write-Output 'a `\n b'", dialect: ps, block: STRICT, expect: "allow" }
  ])
})
