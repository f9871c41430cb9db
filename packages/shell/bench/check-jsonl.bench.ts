// `gatehouse check --jsonl` over the corpus, twice over (10 400 lines): commands per second,
// with and without the process start-up (measured separately with an empty input).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as NodePath from "node:path"
import { median, report, root } from "../../../scripts/bench-kit.ts"

const RUNS = 3
const bin = NodePath.join(root, "packages", "cli", "src", "bin.ts")
const corpus = fs.readFileSync(NodePath.join(import.meta.dirname, "data", "corpus.jsonl"), "utf8").trimEnd()
const input = `${corpus}\n${corpus}\n`
const lines = input.trimEnd().split("\n").length

// A project of its own, with the policy a user would have.
const project = fs.mkdtempSync(NodePath.join(os.tmpdir(), "gatehouse-bench-check-"))
fs.mkdirSync(NodePath.join(project, "src"))
fs.writeFileSync(
  NodePath.join(project, "gatehouse.json"),
  JSON.stringify({
    permission: { bash: { "*": "ask", "git status *": "allow", "rm *": "deny" }, edit: { ".git/*": "deny" } }
  })
)

const check = (stdin: string) => {
  const start = performance.now()
  const result = spawnSync(process.execPath, [bin, "check", "--jsonl"], {
    cwd: project,
    input: stdin,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, SHELL: "/bin/bash" }
  })
  const ms = performance.now() - start
  if (result.status !== 0) throw new Error(`check --jsonl exited ${result.status}: ${result.stderr}`)
  return { ms, out: result.stdout }
}

const startup = median(Array.from({ length: RUNS }, () => check("").ms))
const runs = Array.from({ length: RUNS }, () => check(input))
const out = runs[0]!.out.trimEnd().split("\n")
if (out.length !== lines) throw new Error(`expected ${lines} result lines, got ${out.length}`)
const total = median(runs.map((r) => r.ms))
fs.rmSync(project, { recursive: true, force: true })

report(
  "shell-check-jsonl",
  [
    {
      case: `check --jsonl, ${lines} lines`,
      "total ms": Math.round(total),
      "start-up ms": Math.round(startup),
      "commands/s (total)": Math.round(lines / (total / 1000)),
      "commands/s (after start-up)": Math.round(lines / ((total - startup) / 1000))
    }
  ],
  { runs: RUNS }
)
