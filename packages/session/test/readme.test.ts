// The root README's first example, the agent an Effect developer pastes, run as written:
// extracted from the README, so the README cannot drift from what works.
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterAll, assert, describe, it } from "vitest"

const readme = NodeFs.readFileSync(
  NodePath.resolve(import.meta.dirname, "..", "..", "..", "README.md"),
  "utf8"
)
const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
// Next to the package, so `@gatehousejs/session` and `effect` resolve as in a project that installed them.
const program = NodePath.join(import.meta.dirname, `readme-${process.pid}.tmp.ts`)
const workspace = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-readme-")))
afterAll(() => {
  NodeFs.rmSync(program, { force: true })
  NodeFs.rmSync(workspace, { recursive: true, force: true })
})

describe("the root README's first example", () => {
  it("comes right after the introduction, before the longer one", () => {
    assert.isAtLeast(blocks.length, 1)
    const first = blocks[0]!
    assert.isBelow(first.index!, readme.indexOf("## Use it in your agent"))
    assert.include(first[1]!, "Agent.layer(")
    const lines = first[1]!.split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("//"))
    assert.isAtMost(lines.length, 14, "a short example")
  })

  it("runs as written: ls runs, rm -rf . is refused with nobody to ask, and nothing is deleted", () => {
    NodeFs.writeFileSync(program, blocks[0]![1]!)
    NodeFs.writeFileSync(NodePath.join(workspace, "hello.txt"), "hi\n")
    const ran = spawnSync(process.execPath, [program], {
      cwd: workspace,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, XDG_DATA_HOME: NodePath.join(workspace, ".data"), NO_COLOR: "1" }
    })
    assert.strictEqual(ran.status, 0, `${ran.stdout}\n${ran.stderr}`)
    assert.match(ran.stdout, /status: 'completed',\s+input: \{ command: 'ls' \},\s+output: 'hello\.txt\\n'/)
    assert.match(
      ran.stdout,
      /status: 'error',\s+input: \{ command: 'rm -rf \.' \},\s+error: 'bash "rm -rf \." needs approval/
    )
    assert.strictEqual(NodeFs.readFileSync(NodePath.join(workspace, "hello.txt"), "utf8"), "hi\n")
  }, 90_000)
})
