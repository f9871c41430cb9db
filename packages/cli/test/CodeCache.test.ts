// The command files' code cache: written after a run, used by the next, replaced when V8
// refuses it, and never read from a place someone else could have written.
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as CodeCache from "../src/CodeCache.ts"

const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-code-cache-")))
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))

let files = 0
/** A CommonJS file that uses `require`, `module` and `__filename` as a bundle does. */
const bundle = () => {
  const file = NodePath.join(base, `command-${files++}.cjs`)
  NodeFs.writeFileSync(
    file,
    `const path = require("node:path")
const twice = (n) => n * 2
module.exports.main = async (argv) => (argv.length === 0 ? 0 : twice(argv.length))
module.exports.where = path.basename(__filename)
`
  )
  return file
}

// In a process of its own: V8 reuses what a process compiled already and would not look at
// the cache at all.
const loadInChild = (file: string, folder: string): { readonly cache: string; readonly result: number } => {
  const program = `
import * as CodeCache from ${JSON.stringify(NodePath.join(import.meta.dirname, "../src/CodeCache.ts"))}
const loaded = CodeCache.load(${JSON.stringify(file)}, ${JSON.stringify(folder)})
const result = await loaded.exports.main(["a", "b"])
loaded.save()
console.log(JSON.stringify({ cache: loaded.cache, result }))
`
  const ran = spawnSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8" })
  assert.strictEqual(ran.status, 0, ran.stderr)
  return JSON.parse(ran.stdout)
}

const cacheOf = (folder: string, file: string) =>
  NodeFs.readdirSync(folder).filter(
    (name) => name.startsWith(NodePath.basename(file)) && name.endsWith(".cache")
  )

const withCacheHome = async <A>(directory: string, body: () => Promise<A>): Promise<A> => {
  const before = process.env.XDG_CACHE_HOME
  process.env.XDG_CACHE_HOME = directory
  try {
    return await body()
  } finally {
    if (before === undefined) delete process.env.XDG_CACHE_HOME
    else process.env.XDG_CACHE_HOME = before
  }
}

describe("CodeCache", () => {
  it("the file runs as a CommonJS module: require, module.exports, __filename", async () => {
    const file = bundle()
    const loaded = CodeCache.load<{ main: (argv: Array<string>) => Promise<number>; where: string }>(
      file,
      undefined
    )
    assert.strictEqual(loaded.cache, "none")
    assert.strictEqual(loaded.exports.where, NodePath.basename(file))
    assert.strictEqual(await loaded.exports.main(["a"]), 2)
  })

  it("a run leaves a cache of its own (0600 in a 0700 folder) that the next run uses", () => {
    const folder = CodeCache.privateFolder(NodePath.join(base, "a"))!
    assert.isDefined(folder)
    assert.strictEqual(NodeFs.statSync(folder).mode & 0o777, 0o700)
    const file = bundle()
    assert.deepStrictEqual(loadInChild(file, folder), { cache: "none", result: 4 })
    const [cache] = cacheOf(folder, file)
    assert.isDefined(cache)
    const path = NodePath.join(folder, cache!)
    assert.strictEqual(NodeFs.statSync(path).mode & 0o777, 0o600)
    const before = NodeFs.statSync(path).mtimeMs
    assert.deepStrictEqual(loadInChild(file, folder), { cache: "accepted", result: 4 })
    // A cache that was used is not written again.
    assert.strictEqual(NodeFs.statSync(path).mtimeMs, before)
  })

  it("a damaged cache is refused by V8 and replaced after the run", () => {
    const folder = CodeCache.privateFolder(NodePath.join(base, "b"))!
    const file = bundle()
    loadInChild(file, folder)
    const path = NodePath.join(folder, cacheOf(folder, file)[0]!)
    NodeFs.writeFileSync(path, Buffer.alloc(NodeFs.statSync(path).size, 7), { mode: 0o600 })
    assert.deepStrictEqual(loadInChild(file, folder), { cache: "rejected", result: 4 })
    assert.deepStrictEqual(loadInChild(file, folder), { cache: "accepted", result: 4 })
  })

  it("a cache someone else could have written is not read: open to the group or others, or a link", () => {
    const directory = NodePath.join(base, "c")
    const folder = CodeCache.privateFolder(directory)!
    const file = bundle()
    loadInChild(file, folder)
    const path = NodePath.join(folder, cacheOf(folder, file)[0]!)
    NodeFs.chmodSync(path, 0o666)
    assert.strictEqual(loadInChild(file, folder).cache, "none")
    NodeFs.chmodSync(path, 0o600)
    assert.strictEqual(loadInChild(file, folder).cache, "accepted")
    NodeFs.chmodSync(folder, 0o777)
    assert.isUndefined(CodeCache.privateFolder(directory))
    NodeFs.chmodSync(folder, 0o700)
    NodeFs.chmodSync(directory, 0o770)
    assert.isUndefined(CodeCache.privateFolder(directory))
    NodeFs.chmodSync(directory, 0o700)
    assert.strictEqual(CodeCache.privateFolder(directory), folder)
    const elsewhere = NodePath.join(base, "elsewhere.cache")
    NodeFs.renameSync(path, elsewhere)
    NodeFs.symlinkSync(elsewhere, path)
    assert.strictEqual(loadInChild(file, folder).cache, "none")
  })

  it("a command's cache is written only after a run that succeeded", async () => {
    const folder = CodeCache.privateFolder(NodePath.join(base, "d"))!
    const file = bundle()
    assert.strictEqual(await CodeCache.command(new URL(`file://${file}`), folder).main(["x"]), 2)
    assert.deepStrictEqual(cacheOf(folder, file), [])
    assert.strictEqual(await CodeCache.command(new URL(`file://${file}`), folder).main([]), 0)
    assert.lengthOf(cacheOf(folder, file), 1)
  })

  it("the default folder is under XDG_CACHE_HOME when it is set, else ~/.cache", async () => {
    const directory = NodePath.join(base, "xdg")
    await withCacheHome(directory, async () =>
      assert.strictEqual(CodeCache.cacheDirectory(), NodePath.join(directory, "gatehouse"))
    )
    await withCacheHome("", async () =>
      assert.strictEqual(CodeCache.cacheDirectory(), NodePath.join(NodeOs.homedir(), ".cache", "gatehouse"))
    )
  })

  it("writing a cache sweeps those of older builds: unwritten for a week, and beyond the newest 16", () => {
    const folder = CodeCache.privateFolder(NodePath.join(base, "f"))!
    const day = 24 * 60 * 60
    const now = Date.now() / 1000
    const stale = NodePath.join(folder, "check-old.cjs-v22-x64.cache")
    NodeFs.writeFileSync(stale, "x", { mode: 0o600 })
    NodeFs.utimesSync(stale, now - 8 * day, now - 8 * day)
    const recent = Array.from({ length: 20 }, (_, i) => {
      const path = NodePath.join(folder, `run-${i}.cjs-v22-x64.cache`)
      NodeFs.writeFileSync(path, "x", { mode: 0o600 })
      NodeFs.utimesSync(path, now - i * 60, now - i * 60)
      return path
    })
    const other = NodePath.join(folder, "notes.txt")
    NodeFs.writeFileSync(other, "kept")
    const file = bundle()
    loadInChild(file, folder)
    assert.lengthOf(cacheOf(folder, file), 1)
    assert.isFalse(NodeFs.existsSync(stale))
    // The new cache and the 15 newest of the others.
    assert.deepStrictEqual(
      recent.map((path) => NodeFs.existsSync(path)),
      recent.map((_, i) => i < 15)
    )
    assert.isTrue(NodeFs.existsSync(other))
  })

  it("a cache that cannot be written leaves the run as it was", async () => {
    const folder = CodeCache.privateFolder(NodePath.join(base, "e"))!
    const file = bundle()
    const loaded = CodeCache.load<{ main: (argv: Array<string>) => Promise<number> }>(
      file,
      NodePath.join(folder, "missing")
    )
    assert.strictEqual(await loaded.exports.main([]), 0)
    loaded.save()
    assert.deepStrictEqual(NodeFs.readdirSync(folder), [])
  })
})
