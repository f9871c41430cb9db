import { type ChildProcess, spawn } from "node:child_process"
import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as FileChanges from "@gatehousejs/session/FileChanges"
import * as FileTools from "@gatehousejs/session/FileTools"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { stateBefore } from "../src/internal/fileState.ts"
import { restoreAll } from "../src/internal/restore.ts"

// A process inside the project swaps sub/ for a symlink to a directory outside, and back,
// as fast as it can, while rewinds restore and delete sub/f.txt.
const RACER = `
const fs = require("node:fs")
const [root, outside] = process.argv.slice(1)
const sub = root + "/sub"
const aside = root + "/sub.aside"
process.stdout.write("ready\\n")
for (;;) {
  // sub/ is a real directory (the project's, or one a restore just made) ...
  try { if (fs.lstatSync(sub).isSymbolicLink()) fs.unlinkSync(sub) } catch {}
  try { fs.mkdirSync(sub) } catch {}
  try { fs.rmSync(aside, { recursive: true, force: true }) } catch {}
  // ... then, for as long, a symlink to the directory outside.
  try { fs.renameSync(sub, aside) } catch {}
  try { fs.symlinkSync(outside, sub) } catch {}
  try { fs.lstatSync(sub); fs.lstatSync(sub) } catch {}
  try { fs.unlinkSync(sub) } catch {}
  try { fs.renameSync(aside, sub) } catch {}
}
`

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

const fixture = async () => {
  const base = await NodeFs.realpath(await NodeFs.mkdtemp(NodePath.join(NodeOs.tmpdir(), "gatehouse-race-")))
  cleanup.push(() => NodeFs.rm(base, { recursive: true, force: true }))
  const root = NodePath.join(base, "project")
  const outside = NodePath.join(base, "outside")
  await NodeFs.mkdir(NodePath.join(root, "sub"), { recursive: true })
  await NodeFs.mkdir(outside)
  return { root, outside }
}

const startRacer = async (root: string, outside: string) => {
  const child: ChildProcess = spawn(process.execPath, ["-e", RACER, root, outside], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGKILL")
      })
  )
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve())
    child.once("error", reject)
  })
}

const RULES: Permission.Ruleset = [
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "external_directory", pattern: "*", action: "deny" }
]

/** One call of a file tool the way the session loop makes it, with everything inside the project allowed. */
const call = (
  root: string,
  spill: string,
  tool: "read" | "write",
  params: { readonly filePath: string; readonly content?: string },
  changes: FileChanges.Interface = FileChanges.none
) =>
  Effect.gen(function* () {
    const toolkit = yield* FileTools.toolkit
    const last = <A>(results: ReadonlyArray<A>) => results[results.length - 1]!
    if (tool === "read")
      return last(
        yield* Stream.unwrap(toolkit.handle("read", { filePath: params.filePath }, "call_1")).pipe(
          Stream.runCollect
        )
      )
    const content = params.content ?? ""
    const results = yield* Stream.unwrap(
      toolkit.handle("write", { filePath: params.filePath, content }, "call_1")
    ).pipe(Stream.runCollect)
    return last(results)
  }).pipe(
    Effect.provideService(ShellContext.Service, {
      ...ShellContext.defaults(),
      sessionID: "ses_race",
      callID: "call_1",
      ruleset: RULES,
      projectRoot: root,
      directory: root
    }),
    Effect.provideService(FileChanges.Service, changes),
    Effect.provide(
      FileTools.handlers.pipe(
        Layer.provideMerge(Truncate.layerWith({ directory: spill })),
        Layer.provideMerge(Permission.layerMemory)
      )
    ),
    Instance.provide(root),
    Effect.scoped
  )

describe("writes under a symlink race", () => {
  it("never writes or deletes outside the project while a parent directory is swapped for a symlink", async () => {
    const { root, outside } = await fixture()
    const victim = NodePath.join(outside, "f.txt")
    await NodeFs.writeFile(victim, "victim")
    await startRacer(root, outside)
    const path = NodePath.join(root, "sub", "f.txt")
    const ATTEMPTS = 400
    const counts = { restored: 0, deleted: 0, unchanged: 0, refused: 0, writtenOutside: 0, deletedOutside: 0 }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const content = attempt % 2 === 0 ? `restored ${attempt}` : null
      const outcome = await restoreAll(root, [{ path, relative: "sub/f.txt", content, mode: 0o644 }])
      for (const file of outcome.files) counts[file.action]++
      counts.refused += outcome.skipped.length
      const now = await NodeFs.readFile(victim, "utf8").catch(() => undefined)
      if (now === undefined) counts.deletedOutside++
      else if (now !== "victim") counts.writtenOutside++
      if (now !== "victim") await NodeFs.writeFile(victim, "victim")
    }
    console.log(`restore race: ${ATTEMPTS} attempts`, counts)
    assert.strictEqual(counts.writtenOutside, 0)
    assert.strictEqual(counts.deletedOutside, 0)
    // The race really ran: some attempts met the symlink (refused) and others went through.
    assert.isAbove(counts.restored + counts.deleted, 0)
    assert.strictEqual(counts.restored + counts.deleted + counts.unchanged + counts.refused, ATTEMPTS)
  })

  it("the write tool never creates a file outside the project while a parent directory is swapped for a symlink", async () => {
    const { root, outside } = await fixture()
    const planted = NodePath.join(outside, "f.txt")
    await startRacer(root, outside)
    const ATTEMPTS = 300
    const counts = { written: 0, refused: 0, writtenOutside: 0 }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // Each call creates the file: what an earlier one made is removed (from the real directory).
      for (const dir of ["sub", "sub.aside"]) {
        const real = NodePath.join(root, dir)
        if ((await NodeFs.lstat(real).catch(() => undefined))?.isDirectory() === true)
          await NodeFs.rm(NodePath.join(real, "f.txt"), { force: true }).catch(() => undefined)
      }
      const result = await Effect.runPromise(
        call(root, NodePath.join(outside, "..", "spill"), "write", {
          filePath: "sub/f.txt",
          content: `attempt ${attempt}`
        })
      )
      if (result.isFailure) counts.refused++
      else counts.written++
      if (
        await NodeFs.rm(planted).then(
          () => true,
          () => false
        )
      )
        counts.writtenOutside++
    }
    console.log(`write race: ${ATTEMPTS} attempts`, counts)
    assert.strictEqual(counts.writtenOutside, 0)
    assert.isAbove(counts.written, 0)
    assert.strictEqual(counts.written + counts.refused, ATTEMPTS)
  })

  it("restores the permission bits but never setuid, setgid or sticky", async () => {
    const { root } = await fixture()
    const path = NodePath.join(root, "sub", "tool")
    const outcome = await restoreAll(root, [
      { path, relative: "sub/tool", content: "#!/bin/sh\n", mode: 0o106755 }
    ])
    assert.deepStrictEqual(outcome.files, [{ path: "sub/tool", action: "restored" }])
    assert.strictEqual((await NodeFs.stat(path)).mode & 0o7777, 0o755)
    // An existing file with the bits set is rewritten without them, even with the same text.
    await NodeFs.chmod(path, 0o6755)
    const again = await restoreAll(root, [
      { path, relative: "sub/tool", content: "#!/bin/sh\n", mode: 0o6755 }
    ])
    assert.deepStrictEqual(again.files, [{ path: "sub/tool", action: "restored" }])
    assert.strictEqual((await NodeFs.stat(path)).mode & 0o7777, 0o755)
  })
})

describe("reads under a symlink race", () => {
  // sub/f.txt inside says "inside"; the racer keeps swapping sub/ for a symlink to a
  // directory whose f.txt holds a secret.
  const readFixture = async () => {
    const { root, outside } = await fixture()
    await NodeFs.writeFile(NodePath.join(root, "sub", "f.txt"), "inside\n")
    await NodeFs.writeFile(NodePath.join(outside, "f.txt"), "SECRET\n")
    await startRacer(root, outside)
    return { root, outside, spill: NodePath.join(outside, "..", "spill") }
  }

  it("the read tool never returns a file from outside the project while a parent directory is swapped for a symlink", async () => {
    const { root, spill } = await readFixture()
    const ATTEMPTS = 400
    const counts = { read: 0, refused: 0, readOutside: 0 }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const result = await Effect.runPromise(call(root, spill, "read", { filePath: "sub/f.txt" }))
      const text = JSON.stringify(result.result)
      if (text.includes("SECRET")) counts.readOutside++
      else if (result.isFailure) counts.refused++
      else if (text.includes("inside")) counts.read++
    }
    console.log(`read race: ${ATTEMPTS} attempts`, counts)
    assert.strictEqual(counts.readOutside, 0)
    assert.isAbove(counts.read, 0)
    assert.strictEqual(counts.read + counts.refused, ATTEMPTS)
  })

  it("write never takes a file from outside the project for the text it replaces (what a checkpoint keeps)", async () => {
    const { root, spill } = await readFixture()
    const declared: Array<FileChanges.Change> = []
    const recorder: FileChanges.Interface = {
      declare: (changes) => Effect.sync(() => void declared.push(...changes))
    }
    const ATTEMPTS = 300
    const counts = { written: 0, refused: 0 }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const result = await Effect.runPromise(
        call(root, spill, "write", { filePath: "sub/f.txt", content: "inside\n" }, recorder)
      )
      if (result.isFailure) counts.refused++
      else counts.written++
    }
    const outside = declared.filter((change) => change.before?.includes("SECRET") === true).length
    console.log(`write preview race: ${ATTEMPTS} attempts`, { ...counts, declared: declared.length, outside })
    assert.strictEqual(outside, 0)
    assert.isAbove(counts.written, 0)
  })

  it("a checkpoint never records a file from outside the project for a change declared without its text", async () => {
    const { root } = await readFixture()
    const path = NodePath.join(root, "sub", "f.txt")
    const ATTEMPTS = 1000
    const counts = { recorded: 0, absent: 0, refused: 0, recordedOutside: 0 }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const state = await stateBefore({ path, relative: "sub/f.txt", action: "modify" }, root).catch(
        () => undefined
      )
      if (state === undefined) counts.refused++
      else if (state.content?.includes("SECRET") === true) counts.recordedOutside++
      else if (state.content === null) counts.absent++
      else counts.recorded++
    }
    console.log(`checkpoint record race: ${ATTEMPTS} attempts`, counts)
    assert.strictEqual(counts.recordedOutside, 0)
    assert.isAbove(counts.recorded, 0)
  })
})
