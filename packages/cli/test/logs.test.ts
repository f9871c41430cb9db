// Where gatehouse run's log lines go: never into stdout, which is the command's output.
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

const bin = NodePath.resolve(import.meta.dirname, "../dist/gatehouse.js")
const root = realpathSync(mkdtempSync(NodePath.join(tmpdir(), "gatehouse-logs-")))
afterAll(() => rmSync(root, { recursive: true, force: true }))

// A real full file system: a 64 KiB tmpfs that bubblewrap mounts over the data directory.
const fullDiskWorks =
  spawnSync("bwrap", ["--dev-bind", "/", "/", "--size", "65536", "--tmpfs", "/mnt", "true"]).status === 0

describe("gatehouse run logs", () => {
  it.live.skipIf(!fullDiskWorks)(
    "on a full disk: the spill fails with ENOSPC on stderr, the model is told the output could not be saved, no partial file is left",
    () =>
      Effect.gen(function* () {
        const project = NodePath.join(root, "full-project")
        const data = NodePath.join(root, "full-data")
        mkdirSync(project, { recursive: true })
        mkdirSync(data, { recursive: true })
        writeFileSync(
          NodePath.join(project, "gatehouse.json"),
          JSON.stringify({ permission: { bash: "allow" }, tool_output: { max_lines: 3 } })
        )
        const script = [
          `"$0" "$1" run -- 'seq 1 200000' > "$2/stdout" 2> "$2/stderr"; echo $? > "$2/code"`,
          // What is left in the data directory, read before the tmpfs goes.
          `find "$3/gatehouse/tool-output" -type f | wc -l > "$2/left"`
        ].join("; ")
        const ran = spawnSync(
          "bwrap",
          ["--dev-bind", "/", "/", "--size", "65536", "--tmpfs", data, "--chdir", project].concat([
            "sh",
            "-c",
            script,
            process.execPath,
            bin,
            root,
            data
          ]),
          { env: { ...process.env, XDG_DATA_HOME: data, NO_COLOR: "1" }, encoding: "utf8" }
        )
        assert.strictEqual(ran.status, 0, ran.stderr)
        const read = (name: string) => readFileSync(NodePath.join(root, name), "utf8")
        assert.strictEqual(read("code").trim(), "0", read("stderr"))
        assert.include(read("stderr"), "ENOSPC")
        assert.include(read("stderr"), "the full output could not be saved")
        const stdout = read("stdout")
        assert.match(stdout, /199997 lines truncated/)
        assert.match(stdout, /\n199999\n200000\n$/)
        // No path to a file that does not hold the output.
        assert.notInclude(stdout, "tool-output")
        assert.strictEqual(read("left").trim(), "0")
      }),
    120_000
  )

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
