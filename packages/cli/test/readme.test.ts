// The READMEs' `gatehouse` commands as a person copies them: run through pnpm from the
// repository root, their output must be the command's alone (pnpm's `> gatehouse@ …` banner
// in front of `--json` output breaks every `| jq`), so each is written `pnpm -s`, and each
// documented `--json` command is run and its stdout parsed as JSON.
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "vitest"

const root = NodePath.resolve(import.meta.dirname, "..", "..", "..")
const readmes = ["README.md", "packages/cli/README.md"]

/** Every command line of the ```sh blocks, without its trailing comment. */
const commands = (file: string): Array<string> => {
  const text = NodeFs.readFileSync(NodePath.join(root, file), "utf8")
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) =>
    block[1]!
      .split("\n")
      .map((line) => line.replace(/\s+#\s.*$/, "").trim())
      .filter((line) => line !== "")
  )
}

describe("the READMEs' commands", () => {
  it("run gatehouse and the demo through pnpm -s, so nothing but the command's output is printed", () => {
    const through = readmes.flatMap(commands).filter((line) => /\bpnpm\b.*\b(gatehouse|demo)\b/.test(line))
    assert.isAbove(through.length, 5)
    for (const line of through) assert.match(line, /\bpnpm -s (gatehouse|demo)\b/, line)
    // The prose's inline commands too.
    for (const file of readmes) {
      const text = NodeFs.readFileSync(NodePath.join(root, file), "utf8")
      assert.notMatch(text, /`pnpm (gatehouse|demo)\b/, file)
    }
  })

  it("a documented --json command prints JSON and only JSON", () => {
    const json = readmes.flatMap(commands).filter((line) => line.includes("--json"))
    assert.isAtLeast(json.length, 1)
    for (const line of json) {
      const ran = spawnSync("sh", ["-c", line], { cwd: root, encoding: "utf8", timeout: 60_000 })
      assert.strictEqual(ran.status, 0, `${line}\n${ran.stderr}`)
      assert.doesNotThrow(() => JSON.parse(ran.stdout), `${line} printed: ${ran.stdout.slice(0, 200)}`)
      assert.oneOf(JSON.parse(ran.stdout).decision, ["allow", "ask", "deny"])
    }
  }, 90_000)
})
