import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Instance } from "@gatehouse/core"
import { Permission } from "@gatehouse/permission"
import { FileChanges, FileTools } from "@gatehouse/session"
import { ShellContext } from "@gatehouse/shell"
import { Truncate } from "@gatehouse/truncate"
import { Effect, Layer, Stream } from "effect"
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
  recorder: FileChanges.Interface = FileChanges.none
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
      ruleset: RULES,
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
})
