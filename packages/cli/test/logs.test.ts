// Where gatehouse run's log lines go: never into stdout, which is the command's output.
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

const bin = NodePath.resolve(import.meta.dirname, "../src/bin.ts")
const root = realpathSync(mkdtempSync(NodePath.join(tmpdir(), "gatehouse-logs-")))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe("gatehouse run logs", () => {
  it.live(
    "a spill file that cannot be written is logged on stderr; stdout holds only the command's output",
    () =>
      Effect.gen(function* () {
        const project = NodePath.join(root, "project")
        const data = NodePath.join(root, "data")
        mkdirSync(project, { recursive: true })
        mkdirSync(NodePath.join(data, "gatehouse"), { recursive: true })
        // A file where the tool output directory should be: the spill fails for any user.
        writeFileSync(NodePath.join(data, "gatehouse", "tool-output"), "not a directory")
        writeFileSync(
          NodePath.join(project, "gatehouse.json"),
          JSON.stringify({ permission: { bash: "allow" }, tool_output: { max_lines: 3 } })
        )
        const ran = yield* Effect.promise(
          () =>
            new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
              const child = spawn(process.execPath, [bin, "run", "--", "seq 1 50"], {
                cwd: project,
                env: { ...process.env, XDG_DATA_HOME: data, NO_COLOR: "1" },
                stdio: ["pipe", "pipe", "pipe"]
              })
              let stdout = ""
              let stderr = ""
              child.stdout.on("data", (chunk) => (stdout += chunk))
              child.stderr.on("data", (chunk) => (stderr += chunk))
              child.on("error", reject)
              child.on("close", (code) => resolve({ code, stdout, stderr }))
              child.stdin.end()
            })
        )
        assert.strictEqual(ran.code, 0, ran.stderr)
        assert.include(ran.stderr, "Truncate: the full tool output could not be saved")
        assert.notInclude(ran.stdout, "Truncate:")
        assert.notInclude(ran.stdout, "ERROR")
        // The model's view of it (the note and the kept tail) is all stdout says.
        assert.match(ran.stdout, /\n48\n49\n50\n/)
      }),
    120_000
  )
})
