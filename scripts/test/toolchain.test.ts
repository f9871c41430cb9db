// scripts/toolchain.sh sourced from bash and from zsh (macOS's default shell) finds the
// repository's own .toolchain from any working directory, with a PATH that has no Node 22.
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = NodePath.resolve(import.meta.dirname, "../..")
const script = NodePath.join(root, "scripts/toolchain.sh")
// Where the script installs Node when the machine has none new enough (as on CI).
const installed = NodePath.join(root, ".toolchain/bin/node")

const sourced = (shell: string, how: string) =>
  spawnSync(shell, ["-c", `${how} && command -v node && node --version`], {
    cwd: "/",
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", HOME: process.env.HOME ?? "/" }
  })

describe("scripts/toolchain.sh", () => {
  for (const shell of ["bash", "zsh"]) {
    const absent = spawnSync(shell, ["-c", "true"]).error !== undefined || !NodeFs.existsSync(installed)
    // Three shells each start the toolchain's node and pnpm: seconds on a busy machine.
    it.skipIf(absent)(`puts the toolchain on PATH when sourced from ${shell}`, { timeout: 60_000 }, () => {
      for (const how of [
        `source ${script}`,
        `. ${script}`,
        `cd ${root}/packages && source ../scripts/toolchain.sh`
      ]) {
        const result = sourced(shell, how)
        assert.strictEqual(result.status, 0, `${shell}: ${how}: ${result.stderr}`)
        const [path, version] = result.stdout.trim().split("\n")
        assert.strictEqual(NodeFs.realpathSync(path!), NodeFs.realpathSync(installed), how)
        assert.match(version!, /^v2[2-9]\./)
      }
    })
  }
})
