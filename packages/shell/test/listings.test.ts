// Directory listings remembered between judgements: a listing is reused only while the
// directory is the same one and its times say that none of its entries changed.
import * as fs from "node:fs"
import * as os from "node:os"
import * as NodePath from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import { listDirectory } from "../src/internal/listings.ts"

const made: Array<string> = []
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const makeDirectory = (): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(NodePath.join(os.tmpdir(), "gatehouse-listings-")))
  made.push(dir)
  return dir
}

// A minute from now: the directory's last change is then long enough ago for its listing to
// be remembered.
const later = (): number => Date.now() + 60_000

const names = (directory: string, now: number): Array<string> =>
  listDirectory(directory, now)
    .map((entry) => `${entry.name}${entry.directory ? "/" : ""}`)
    .sort()

describe("listDirectory", () => {
  it("lists the entries, directories marked, through a symlink to the directory", () => {
    const dir = makeDirectory()
    fs.writeFileSync(NodePath.join(dir, ".env"), "")
    fs.mkdirSync(NodePath.join(dir, "src"))
    fs.symlinkSync(NodePath.join(dir, "src"), NodePath.join(dir, "link"))
    assert.deepStrictEqual(names(dir, later()), [".env", "link", "src/"])
    assert.deepStrictEqual(names(NodePath.join(dir, "link"), later()), [])
  })

  it("lists nothing where there is no directory", () => {
    const dir = makeDirectory()
    fs.writeFileSync(NodePath.join(dir, "file"), "")
    assert.deepStrictEqual(names(NodePath.join(dir, "file"), later()), [])
    assert.deepStrictEqual(names(NodePath.join(dir, "missing"), later()), [])
  })

  it("sees an entry added or removed after a listing was remembered", () => {
    const dir = makeDirectory()
    fs.writeFileSync(NodePath.join(dir, "a"), "")
    assert.deepStrictEqual(names(dir, later()), ["a"])
    fs.writeFileSync(NodePath.join(dir, "b.env"), "")
    assert.deepStrictEqual(names(dir, later()), ["a", "b.env"])
    fs.rmSync(NodePath.join(dir, "a"))
    assert.deepStrictEqual(names(dir, later()), ["b.env"])
  })

  it("sees an entry added with the directory's modification time set back", () => {
    const dir = makeDirectory()
    fs.writeFileSync(NodePath.join(dir, "a"), "")
    const mtime = 1_700_000_000
    fs.utimesSync(dir, mtime, mtime)
    assert.deepStrictEqual(names(dir, later()), ["a"])
    fs.writeFileSync(NodePath.join(dir, "b.env"), "")
    fs.utimesSync(dir, mtime, mtime)
    // The change time cannot be set back: it says the directory changed.
    assert.deepStrictEqual(names(dir, later()), ["a", "b.env"])
  })

  it("sees another directory put in place of the one listed", () => {
    const dir = makeDirectory()
    const listed = NodePath.join(dir, "listed")
    fs.mkdirSync(listed)
    fs.writeFileSync(NodePath.join(listed, "a"), "")
    assert.deepStrictEqual(names(listed, later()), ["a"])
    const other = NodePath.join(dir, "other")
    fs.mkdirSync(other)
    fs.writeFileSync(NodePath.join(other, ".env"), "")
    fs.renameSync(listed, NodePath.join(dir, "old"))
    fs.renameSync(other, listed)
    assert.deepStrictEqual(names(listed, later()), [".env"])
  })

  it("sees the new target of a symlink listed through", () => {
    const dir = makeDirectory()
    fs.mkdirSync(NodePath.join(dir, "one"))
    fs.writeFileSync(NodePath.join(dir, "one", "a"), "")
    fs.mkdirSync(NodePath.join(dir, "two"))
    fs.writeFileSync(NodePath.join(dir, "two", ".env"), "")
    const link = NodePath.join(dir, "link")
    fs.symlinkSync(NodePath.join(dir, "one"), link)
    assert.deepStrictEqual(names(link, later()), ["a"])
    fs.rmSync(link)
    fs.symlinkSync(NodePath.join(dir, "two"), link)
    assert.deepStrictEqual(names(link, later()), [".env"])
  })
})
