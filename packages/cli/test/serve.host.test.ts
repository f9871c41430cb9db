import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const BIN = fileURLToPath(new URL("../dist/gatehouse.js", import.meta.url))

/** Starts `gatehouse serve ARGS`, waits for its banner, stops it; returns what it printed. */
const serve = async (args: ReadonlyArray<string>) => {
  const project = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-serve-host-"))
  const child = spawn(process.execPath, [BIN, "serve", "--cwd", project, "--port", "0", ...args], {
    env: { ...process.env, XDG_DATA_HOME: NodePath.join(project, ".data") },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  let err = ""
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
  const exit = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  const deadline = Date.now() + 20_000
  // The warning comes right after the banner: wait for the banner, then a moment.
  while (!out.includes("Press Ctrl+C to stop.") && child.exitCode === null && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20))
  await new Promise((resolve) => setTimeout(resolve, 100))
  child.kill("SIGINT")
  await exit
  rmSync(project, { recursive: true, force: true })
  return { out, err }
}

describe("gatehouse serve --host", () => {
  it("a host other than loopback prints a warning naming what becomes reachable; loopback prints none", async () => {
    const wide = await serve(["--host", "0.0.0.0"])
    assert.include(wide.out, "Press Ctrl+C to stop.")
    assert.include(wide.err, "warning: --host 0.0.0.0 is not a loopback address")
    assert.include(wide.err, "can be reached from other machines")
    assert.include(wide.err, "permission asks")
    const local = await serve(["--host", "127.0.0.1"])
    assert.include(local.out, "Press Ctrl+C to stop.")
    assert.notInclude(local.err, "warning: --host")
  }, 60_000)
})
