import * as fs from "node:fs"
import * as os from "node:os"
import * as NodePath from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import * as AtomicFile from "@gatehousejs/core/AtomicFile"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = fs.mkdtempSync(NodePath.join(os.tmpdir(), "gatehouse-atomic-"))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

describe("AtomicFile.writeText", () => {
  it("creates the directory, replaces the file and leaves no temporary file", async () => {
    const dir = tempDir()
    const path = NodePath.join(dir, "nested", "state.json")
    await AtomicFile.writeText(path, "first")
    // A reader that opened the old file keeps reading the old content: the file was replaced.
    const reader = fs.openSync(path, "r")
    await AtomicFile.writeText(path, "second")
    assert.strictEqual(fs.readFileSync(reader, "utf8"), "first")
    fs.closeSync(reader)
    assert.strictEqual(fs.readFileSync(path, "utf8"), "second")
    assert.deepStrictEqual(fs.readdirSync(NodePath.dirname(path)), ["state.json"])
  })

  it("fails without leaving a temporary file when the rename cannot happen", async () => {
    const dir = tempDir()
    // A directory where the file should go: the rename fails after the write succeeded.
    const path = NodePath.join(dir, "taken")
    fs.mkdirSync(NodePath.join(path, "inner"), { recursive: true })
    let failed = false
    await AtomicFile.writeText(path, "x").catch(() => {
      failed = true
    })
    assert.isTrue(failed)
    assert.deepStrictEqual(fs.readdirSync(dir), ["taken"])
  })

  it("creates files 0600 and directories 0700 whatever the umask, and flushes when asked", async () => {
    const dir = tempDir()
    const path = NodePath.join(dir, "a", "b", "state.json")
    const umask = process.umask(0)
    try {
      await AtomicFile.writeText(path, "x", { sync: true })
    } finally {
      process.umask(umask)
    }
    assert.strictEqual(fs.statSync(path).mode & 0o777, 0o600)
    assert.strictEqual(fs.statSync(NodePath.join(dir, "a")).mode & 0o777, 0o700)
    assert.strictEqual(fs.statSync(NodePath.join(dir, "a", "b")).mode & 0o777, 0o700)
    assert.strictEqual(fs.readFileSync(path, "utf8"), "x")
  })
})

describe("AtomicFile.tighten", () => {
  it("makes a data tree left by an older version private, leaving symlinks and their targets alone", () => {
    const dir = tempDir()
    const data = NodePath.join(dir, "data")
    fs.mkdirSync(NodePath.join(data, "session"), { recursive: true, mode: 0o755 })
    fs.chmodSync(data, 0o755)
    fs.writeFileSync(NodePath.join(data, "session", "s.json"), "{}", { mode: 0o644 })
    fs.chmodSync(NodePath.join(data, "session", "s.json"), 0o644)
    const target = NodePath.join(dir, "elsewhere.txt")
    fs.writeFileSync(target, "x", { mode: 0o644 })
    fs.chmodSync(target, 0o644)
    fs.symlinkSync(target, NodePath.join(data, "link"))
    return AtomicFile.tighten(data).then(() => {
      assert.strictEqual(fs.statSync(data).mode & 0o777, 0o700)
      assert.strictEqual(fs.statSync(NodePath.join(data, "session")).mode & 0o777, 0o700)
      assert.strictEqual(fs.statSync(NodePath.join(data, "session", "s.json")).mode & 0o777, 0o600)
      assert.strictEqual(fs.statSync(target).mode & 0o777, 0o644)
    })
  })
})
