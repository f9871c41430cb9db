import { execFileSync } from "node:child_process"
import * as NodeFsSync from "node:fs"
import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as FileChanges from "@gatehousejs/session/FileChanges"
import * as FileTools from "@gatehousejs/session/FileTools"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { replier } from "./helpers.ts"

const project = Effect.acquireRelease(
  Effect.promise(async () => {
    const base = await NodeFs.realpath(
      await NodeFs.mkdtemp(NodePath.join(NodeOs.tmpdir(), "gatehouse-filetools-"))
    )
    const root = NodePath.join(base, "project")
    await NodeFs.mkdir(NodePath.join(root, "src"), { recursive: true })
    await NodeFs.mkdir(NodePath.join(root, ".git"), { recursive: true })
    await NodeFs.mkdir(NodePath.join(base, "outside"), { recursive: true })
    await NodeFs.writeFile(NodePath.join(root, "src", "a.ts"), "one\ntwo\nthree\n")
    await NodeFs.writeFile(NodePath.join(root, "src", "dup.ts"), "x = 1\nx = 1\n")
    await NodeFs.writeFile(NodePath.join(root, ".git", "config"), "[core]\n")
    await NodeFs.writeFile(NodePath.join(root, ".env"), "SECRET=1\n")
    await NodeFs.writeFile(NodePath.join(root, "notes.txt"), "hello\n")
    await NodeFs.writeFile(NodePath.join(root, "big.txt"), `${"x".repeat(80)}\n`.repeat(3000))
    await NodeFs.writeFile(NodePath.join(base, "outside.txt"), "outside\n")
    await NodeFs.symlink(NodePath.join(base, "outside.txt"), NodePath.join(root, "link.txt"))
    await NodeFs.symlink(NodePath.join(base, "outside"), NodePath.join(root, "out"))
    await NodeFs.symlink(NodePath.join(base, "outside", "planted.txt"), NodePath.join(root, "dangling.txt"))
    return { base, root }
  }),
  ({ base }) => Effect.promise(() => NodeFs.rm(base, { recursive: true, force: true }))
)

const RULES: Permission.Ruleset = [
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "external_directory", pattern: "*", action: "ask" },
  { permission: "read", pattern: "*.env", action: "deny" },
  { permission: "edit", pattern: "*", action: "ask" },
  { permission: "edit", pattern: "src/*", action: "allow" },
  { permission: "edit", pattern: ".git/*", action: "deny" },
  { permission: "edit", pattern: "*.env", action: "deny" }
]

type Name = "read" | "write" | "edit"

/** Runs one call of `name` the way the session loop does, and returns its final result. */
const call = (
  root: string,
  name: Name,
  params: Record<string, unknown>,
  recorder: FileChanges.Interface = FileChanges.none,
  ruleset: Permission.Ruleset = RULES
) =>
  Effect.gen(function* () {
    const toolkit = yield* FileTools.toolkit
    const results = yield* Stream.unwrap(toolkit.handle(name, params as never, "call_1")).pipe(
      Stream.runCollect
    )
    return results[results.length - 1]!
  }).pipe(
    Effect.provideService(ShellContext.Service, {
      ...ShellContext.defaults(),
      sessionID: "ses_f",
      callID: "call_1",
      ruleset,
      projectRoot: root,
      directory: root
    }),
    Effect.provideService(FileChanges.Service, recorder),
    Instance.provide(root)
  )

const withTools = <A, E, R>(effect: (root: string, base: string) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const { base, root } = yield* project
    return yield* effect(root, base).pipe(
      Effect.provide(
        FileTools.handlers.pipe(
          Layer.provideMerge(Truncate.layerWith({ directory: NodePath.join(base, "spill") })),
          Layer.provideMerge(Permission.layerMemory)
        )
      ),
      Instance.provide(root)
    )
  }).pipe(Effect.scoped)

const recording = () => {
  const declared: Array<FileChanges.Change> = []
  const recorder: FileChanges.Interface = {
    declare: (changes) => Effect.sync(() => void declared.push(...changes))
  }
  return { declared, recorder }
}

const text = (path: string) => Effect.promise(() => NodeFs.readFile(path, "utf8"))
const exists = (path: string) =>
  Effect.promise(() =>
    NodeFs.lstat(path).then(
      () => true,
      () => false
    )
  )
const failure = (result: { readonly result: unknown }) => result.result as FileTools.Failure
const changed = (result: { readonly result: unknown }) => result.result as FileTools.ChangeResult

describe("FileTools", () => {
  it.effect("read: numbered lines, asking read with the project-relative path", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const asked = yield* replier("once")
        const result = yield* call(root, "read", { filePath: "src/a.ts", offset: 2 })
        assert.isFalse(result.isFailure)
        const value = result.result as FileTools.ReadResult
        assert.strictEqual(value.output, "2| two\n3| three")
        assert.strictEqual(value.title, "src/a.ts")
        assert.strictEqual(asked.length, 0) // allowed by the rules: nothing pending
      }).pipe(Effect.scoped)
    )
  )

  it.effect("a denied read fails with the rule, returned to the model as a result", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const result = yield* call(root, "read", { filePath: ".env" })
        assert.isTrue(result.isFailure)
        assert.strictEqual(failure(result)._tag, "PermissionDeniedError")
        assert.include(failure(result).message, "*.env")
      })
    )
  )

  it.effect(
    "read through a symlink that leaves the project asks external_directory for the real directory",
    () =>
      withTools((root, base) =>
        Effect.gen(function* () {
          const asked = yield* replier("once")
          const result = yield* call(root, "read", { filePath: "link.txt" })
          assert.isFalse(result.isFailure)
          assert.strictEqual((result.result as FileTools.ReadResult).output, "1| outside")
          assert.deepStrictEqual(
            asked.map((r) => [r.permission, r.patterns]),
            [["external_directory", [`${base}/*`]]]
          )
          assert.strictEqual(asked[0]!.tool?.callID, "call_1")
        }).pipe(Effect.scoped)
      )
  )

  it.effect(
    "the spill file a truncation points at is readable even under external_directory deny; writing there is not",
    () =>
      withTools((root, base) =>
        Effect.gen(function* () {
          const asked = yield* replier("once")
          const strict = Permission.merge(RULES, Permission.fromConfig({ external_directory: "deny" }))
          const cut = (yield* call(root, "read", { filePath: "big.txt", limit: 5000 }))
            .result as FileTools.ReadResult
          assert.isTrue(cut.outputPath!.startsWith(NodePath.join(base, "spill")))
          const whole = yield* call(
            root,
            "read",
            { filePath: cut.outputPath!, limit: 2 },
            FileChanges.none,
            strict
          )
          assert.isFalse(whole.isFailure, JSON.stringify(whole.result))
          assert.match((whole.result as FileTools.ReadResult).output.split("\n")[0]!, /^1\| +1\| x{80}$/)
          const planted = yield* call(
            root,
            "write",
            { filePath: NodePath.join(base, "spill", "planted"), content: "x" },
            FileChanges.none,
            strict
          )
          assert.strictEqual(failure(planted)._tag, "PermissionDeniedError")
          // Outside the spill directory, the same read is refused.
          const other = yield* call(
            root,
            "read",
            { filePath: NodePath.join(base, "outside.txt") },
            FileChanges.none,
            strict
          )
          assert.strictEqual(failure(other)._tag, "PermissionDeniedError")
          assert.deepStrictEqual(asked, [])
        }).pipe(Effect.scoped)
      )
  )

  it.effect("large reads go through Truncate and are spilled to a file", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const result = yield* call(root, "read", { filePath: "big.txt", limit: 5000 })
        const value = result.result as FileTools.ReadResult
        assert.isTrue(value.truncated)
        assert.isDefined(value.outputPath)
        const full = yield* text(value.outputPath!)
        assert.strictEqual(full.split("\n").length, 3000)
      })
    )
  )

  it.effect("write creates a file (and its directories) under an allowed edit rule, declaring a create", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const asked = yield* replier("once")
        const { declared, recorder } = recording()
        const result = yield* call(root, "write", { filePath: "src/new/b.ts", content: "b\n" }, recorder)
        assert.isFalse(result.isFailure)
        assert.strictEqual(changed(result).action, "create")
        assert.strictEqual(yield* text(NodePath.join(root, "src/new/b.ts")), "b\n")
        assert.strictEqual(asked.length, 0)
        assert.deepStrictEqual(declared, [
          {
            path: NodePath.join(root, "src/new/b.ts"),
            relative: "src/new/b.ts",
            action: "create",
            after: "b\n"
          }
        ])
      }).pipe(Effect.scoped)
    )
  )

  it.effect(
    "write asks edit with the project-relative path, the diff in the ask, and declares a modify",
    () =>
      withTools((root) =>
        Effect.gen(function* () {
          const asked = yield* replier("once")
          const { declared, recorder } = recording()
          const result = yield* call(root, "write", { filePath: "notes.txt", content: "bye\n" }, recorder)
          assert.isFalse(result.isFailure)
          assert.deepStrictEqual(
            asked.map((r) => [r.permission, r.patterns]),
            [["edit", ["notes.txt"]]]
          )
          assert.include(String(asked[0]!.metadata.diff), "-hello\n+bye")
          assert.deepStrictEqual(declared, [
            {
              path: NodePath.join(root, "notes.txt"),
              relative: "notes.txt",
              action: "modify",
              before: "hello\n",
              after: "bye\n"
            }
          ])
          assert.strictEqual(yield* text(NodePath.join(root, "notes.txt")), "bye\n")
        }).pipe(Effect.scoped)
      )
  )

  it.effect("a write that configures later calls asks a person even where every edit is allowed", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const asked = yield* replier("reject")
        const allowAll: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]
        for (const filePath of [
          ".git/hooks/pre-commit",
          "gatehouse.json",
          ".claude/settings.json",
          ".npmrc"
        ]) {
          const result = yield* call(root, "write", { filePath, content: "x\n" }, FileChanges.none, allowAll)
          assert.isTrue(result.isFailure, filePath)
          assert.isFalse(yield* exists(NodePath.join(root, filePath)), filePath)
        }
        assert.deepStrictEqual(
          asked.map((request) => request.patterns[0]),
          [".git/hooks/pre-commit", "gatehouse.json", ".claude/settings.json", ".npmrc"]
        )
        // An ordinary file is the rules' to judge: allowed, no ask.
        const plain = yield* call(
          root,
          "write",
          { filePath: "src/c.ts", content: "c\n" },
          FileChanges.none,
          allowAll
        )
        assert.isFalse(plain.isFailure)
        assert.lengthOf(asked, 4)
      }).pipe(Effect.scoped)
    )
  )

  it.effect('"edit": { ".git/*": "deny" } refuses both tools, and nothing changes', () =>
    withTools((root) =>
      Effect.gen(function* () {
        const { declared, recorder } = recording()
        const written = yield* call(root, "write", { filePath: ".git/config", content: "evil" }, recorder)
        const edited = yield* call(
          root,
          "edit",
          { filePath: ".git/config", oldString: "[core]", newString: "[evil]" },
          recorder
        )
        for (const result of [written, edited]) {
          assert.isTrue(result.isFailure)
          assert.strictEqual(failure(result)._tag, "PermissionDeniedError")
          assert.include(failure(result).message, ".git/*")
        }
        assert.strictEqual(yield* text(NodePath.join(root, ".git/config")), "[core]\n")
        assert.strictEqual(declared.length, 0)
      })
    )
  )

  it.effect(
    "edit replaces a unique string; a missing or non-unique one is refused with a message saying which",
    () =>
      withTools((root) =>
        Effect.gen(function* () {
          const { declared, recorder } = recording()
          const ok = yield* call(
            root,
            "edit",
            { filePath: "src/a.ts", oldString: "two", newString: "TWO" },
            recorder
          )
          assert.isFalse(ok.isFailure)
          assert.include(changed(ok).diff, "-two\n+TWO")
          assert.strictEqual(yield* text(NodePath.join(root, "src/a.ts")), "one\nTWO\nthree\n")

          const missing = yield* call(root, "edit", {
            filePath: "src/a.ts",
            oldString: "four",
            newString: "4"
          })
          assert.isTrue(missing.isFailure)
          assert.include(failure(missing).message, "oldString was not found in src/a.ts")

          const twice = yield* call(root, "edit", {
            filePath: "src/dup.ts",
            oldString: "x = 1",
            newString: "x = 2"
          })
          assert.isTrue(twice.isFailure)
          assert.include(failure(twice).message, "oldString occurs 2 times in src/dup.ts")
          assert.include(failure(twice).message, "replaceAll")
          assert.strictEqual(yield* text(NodePath.join(root, "src/dup.ts")), "x = 1\nx = 1\n")

          const all = yield* call(root, "edit", {
            filePath: "src/dup.ts",
            oldString: "x = 1",
            newString: "x = 2",
            replaceAll: true
          })
          assert.isFalse(all.isFailure)
          assert.strictEqual(yield* text(NodePath.join(root, "src/dup.ts")), "x = 2\nx = 2\n")
          assert.strictEqual(declared.length, 1) // the refused edits declared nothing
        })
      )
  )

  it.effect(
    "a write through a symlinked directory that leaves the project asks external_directory; rejected, nothing is written",
    () =>
      withTools((root, base) =>
        Effect.gen(function* () {
          const asked = yield* replier("reject")
          const result = yield* call(root, "write", { filePath: "out/escape.txt", content: "x" })
          assert.isTrue(result.isFailure)
          assert.strictEqual(failure(result)._tag, "PermissionRejectedError")
          assert.deepStrictEqual(
            asked.map((r) => [r.permission, r.patterns]),
            [["external_directory", [`${base}/outside/*`]]]
          )
          assert.isFalse(yield* exists(NodePath.join(base, "outside", "escape.txt")))
        }).pipe(Effect.scoped)
      )
  )

  it.effect("a dangling symlink is judged where it would create its target", () =>
    withTools((root, base) =>
      Effect.gen(function* () {
        const asked = yield* replier("reject")
        const result = yield* call(root, "edit", {
          filePath: "dangling.txt",
          oldString: "",
          newString: "planted"
        })
        assert.isTrue(result.isFailure)
        assert.deepStrictEqual(
          asked.map((r) => [r.permission, r.patterns]),
          [["external_directory", [`${base}/outside/*`]]]
        )
        assert.isFalse(yield* exists(NodePath.join(base, "outside", "planted.txt")))
      }).pipe(Effect.scoped)
    )
  )

  it.effect(
    "an edit of a file the model may not read is judged before it is matched (no oracle on its content)",
    () =>
      withTools((root) =>
        Effect.gen(function* () {
          const result = yield* call(root, "edit", { filePath: ".env", oldString: "GUESS", newString: "x" })
          assert.isTrue(result.isFailure)
          assert.strictEqual(failure(result)._tag, "PermissionDeniedError")
        })
      )
  )

  it.effect("a file changed after the preview is not overwritten; a failed declaration changes nothing", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const path = NodePath.join(root, "src/a.ts")
        const meddler: FileChanges.Interface = {
          declare: () => Effect.promise(() => NodeFs.writeFile(path, "someone else\n"))
        }
        const raced = yield* call(
          root,
          "edit",
          { filePath: "src/a.ts", oldString: "two", newString: "2" },
          meddler
        )
        assert.isTrue(raced.isFailure)
        assert.include(failure(raced).message, "changed since it was read")
        assert.strictEqual(yield* text(path), "someone else\n")

        const refusing: FileChanges.Interface = {
          declare: (changes) =>
            Effect.fail(new FileChanges.RecordError({ path: changes[0]!.relative, reason: "disk full" }))
        }
        const refused = yield* call(root, "write", { filePath: "src/a.ts", content: "new\n" }, refusing)
        assert.isTrue(refused.isFailure)
        assert.strictEqual(failure(refused)._tag, "FileChangeRecordError")
        assert.strictEqual(yield* text(path), "someone else\n")
      })
    )
  )

  it.effect("read: CRLF line ends, a last line without one, multi-byte text and the count of the rest", () =>
    withTools((root) =>
      Effect.gen(function* () {
        yield* Effect.promise(() => NodeFs.writeFile(NodePath.join(root, "crlf.txt"), "a\r\nbé\r\n\r\nd ✓"))
        const all = yield* call(root, "read", { filePath: "crlf.txt" })
        assert.strictEqual((all.result as FileTools.ReadResult).output, "1| a\n2| bé\n3| \n4| d ✓")
        const part = yield* call(root, "read", { filePath: "crlf.txt", offset: 2, limit: 1 })
        assert.strictEqual(
          (part.result as FileTools.ReadResult).output,
          "2| bé\n(2 more lines: read again with offset 3)"
        )
      })
    )
  )

  it.effect("write and edit say 1 line, not 1 lines", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const one = yield* call(root, "write", { filePath: "src/one.txt", content: "hello\n" })
        assert.strictEqual(changed(one).output, "Created src/one.txt: 1 line.")
        const two = yield* call(root, "write", { filePath: "src/two.txt", content: "a\nb\n" })
        assert.strictEqual(changed(two).output, "Created src/two.txt: 2 lines.")
        const made = yield* call(root, "edit", { filePath: "src/three.txt", oldString: "", newString: "x" })
        assert.strictEqual(changed(made).output, "Created src/three.txt: 1 line.")
      })
    )
  )

  it.effect("read refuses a FIFO (without blocking on it), a device and a directory, saying what it is", () =>
    withTools((root) =>
      Effect.gen(function* () {
        yield* replier("once")
        execFileSync("mkfifo", [NodePath.join(root, "pipe")])
        const cases = [
          ["pipe", "cannot read pipe: it is a FIFO (named pipe), not a regular file"],
          ["/dev/zero", "cannot read /dev/zero: it is a character device, not a regular file"],
          ["src", "cannot read src: it is a directory, not a regular file"]
        ] as const
        for (const [filePath, message] of cases) {
          const result = yield* call(root, "read", { filePath }).pipe(Effect.timeout("5 seconds"))
          assert.isTrue(result.isFailure, filePath)
          assert.strictEqual(failure(result).message, message)
        }
        // write and edit refuse them too, before any ask about the change.
        const edited = yield* call(root, "edit", { filePath: "pipe", oldString: "a", newString: "b" }).pipe(
          Effect.timeout("5 seconds")
        )
        assert.strictEqual(
          failure(edited).message,
          "cannot change pipe: it is a FIFO (named pipe), not a regular file"
        )
        const written = yield* call(root, "write", { filePath: "pipe", content: "x" }).pipe(
          Effect.timeout("5 seconds")
        )
        assert.include(failure(written).message, "it is a FIFO (named pipe)")
      }).pipe(Effect.scoped)
    )
  )

  it.effect(
    "read of a file over 50 MiB reads only what the output needs, and says when the cap cut it",
    () =>
      withTools((root) =>
        Effect.gen(function* () {
          // 540 000 numbered lines of 100 bytes: 54 MB, so line 524 289 starts at the 50 MiB cap.
          const lines = 540_000
          const data = Buffer.alloc(lines * 100, "x")
          for (let i = 0; i < lines; i++) {
            data.write(String(i + 1).padStart(10, "0"), i * 100, "latin1")
            data[i * 100 + 10] = 0x20
            data[i * 100 + 99] = 0x0a
          }
          const path = NodePath.join(root, "huge.log")
          yield* Effect.promise(() => NodeFs.writeFile(path, data))
          assert.isAbove(data.length, FileTools.MAX_READ_BYTES)
          const line = (n: number) => `${String(n).padStart(10, "0")} ${"x".repeat(88)}`

          // The first lines: the rest is not counted through the whole file.
          const head = yield* call(root, "read", { filePath: "huge.log", limit: 2 })
          assert.strictEqual(
            (head.result as FileTools.ReadResult).output,
            `1| ${line(1)}\n2| ${line(2)}\n(more lines follow, not counted: the file is larger than the 50 MiB read looks at in one call; read again with offset 3)`
          )

          // Asked for more than the cap holds: what fits, and a notice the model sees.
          const most = yield* call(root, "read", { filePath: "huge.log", offset: 524_000, limit: 1_000_000 })
          const value = most.result as FileTools.ReadResult
          assert.isFalse(most.isFailure)
          assert.isTrue(value.output.startsWith(`524000| ${line(524_000)}\n`))
          assert.include(value.output, `524288| ${line(524_288)}\n\n(read stopped after 50 MiB of huge.log`)
          assert.notInclude(value.output, "524289|")
          assert.include(value.output, "read again with offset 524289)")

          // A line past the cap is refused with what to do instead.
          const far = yield* call(root, "read", { filePath: "huge.log", offset: 530_000, limit: 10 })
          assert.isTrue(far.isFailure)
          assert.include(failure(far).message, "line 530000: that line does not end within the first 50 MiB")
          assert.include(failure(far).message, "sed -n '530000,530009p'")
        })
      ),
    30_000
  )

  it.effect("write and edit refuse a file over 10 MiB, naming the limit", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const path = NodePath.join(root, "src/large.txt")
        yield* Effect.promise(() => NodeFs.writeFile(path, "a\n".repeat(5.5 * 1024 * 1024)))
        const { declared, recorder } = recording()
        const edited = yield* call(
          root,
          "edit",
          { filePath: "src/large.txt", oldString: "a", newString: "b", replaceAll: true },
          recorder
        )
        assert.isTrue(edited.isFailure)
        assert.strictEqual(
          failure(edited).message,
          "cannot change src/large.txt: it is larger than the 10 MiB write and edit handle; change it with bash instead"
        )
        const written = yield* call(
          root,
          "write",
          { filePath: "src/large.txt", content: "small\n" },
          recorder
        )
        assert.include(failure(written).message, "larger than the 10 MiB")
        assert.strictEqual(declared.length, 0)
        assert.strictEqual((yield* Effect.promise(() => NodeFs.stat(path))).size, 11 * 1024 * 1024)
      })
    )
  )

  it.effect(
    "edit replaces the file in one step: a reader holding it sees the old text, the new one is whole, mode kept",
    () =>
      withTools((root) =>
        Effect.gen(function* () {
          const path = NodePath.join(root, "src/a.ts")
          yield* Effect.promise(() => NodeFs.chmod(path, 0o640))
          const reader = NodeFsSync.openSync(path, "r")
          const big = "y".repeat(4 * 1024 * 1024)
          const result = yield* call(root, "edit", { filePath: "src/a.ts", oldString: "two", newString: big })
          assert.isFalse(result.isFailure)
          // The descriptor opened before still reads the old file: it was never rewritten in place.
          const old = Buffer.alloc(64)
          const n = NodeFsSync.readSync(reader, old, 0, 64, 0)
          NodeFsSync.closeSync(reader)
          assert.strictEqual(old.subarray(0, n).toString(), "one\ntwo\nthree\n")
          assert.strictEqual(yield* text(path), `one\n${big}\nthree\n`)
          assert.strictEqual((yield* Effect.promise(() => NodeFs.stat(path))).mode & 0o777, 0o640)
          // No temporary file is left beside it.
          assert.deepStrictEqual(
            (yield* Effect.promise(() => NodeFs.readdir(NodePath.join(root, "src")))).sort(),
            ["a.ts", "dup.ts"]
          )
        })
      )
  )

  it.effect("a file with other hard links is changed in place, so every link sees the change", () =>
    withTools((root, base) =>
      Effect.gen(function* () {
        const path = NodePath.join(root, "src/a.ts")
        const other = NodePath.join(base, "hardlink.ts")
        yield* Effect.promise(() => NodeFs.link(path, other))
        const result = yield* call(root, "write", { filePath: "src/a.ts", content: "short\n" })
        assert.isFalse(result.isFailure)
        assert.strictEqual(yield* text(path), "short\n")
        assert.strictEqual(yield* text(other), "short\n")
      })
    )
  )
})
