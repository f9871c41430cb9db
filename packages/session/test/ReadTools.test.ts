import * as NodeFs from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as ReadTools from "@gatehousejs/session/ReadTools"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { replier } from "./helpers.ts"

const project = Effect.acquireRelease(
  Effect.promise(async () => {
    const base = await NodeFs.realpath(
      await NodeFs.mkdtemp(NodePath.join(NodeOs.tmpdir(), "gatehouse-readtools-"))
    )
    const root = NodePath.join(base, "project")
    await NodeFs.mkdir(NodePath.join(root, "src"), { recursive: true })
    await NodeFs.writeFile(NodePath.join(root, "src", "a.ts"), "one\ntwo\nthree\n")
    await NodeFs.writeFile(NodePath.join(root, ".env"), "SECRET=1\n")
    await NodeFs.writeFile(NodePath.join(root, "big.txt"), `${"x".repeat(80)}\n`.repeat(3000))
    await NodeFs.writeFile(NodePath.join(base, "outside.txt"), "outside\n")
    await NodeFs.symlink(NodePath.join(base, "outside.txt"), NodePath.join(root, "link.txt"))
    await NodeFs.mkdir(NodePath.join(base, "elsewhere"))
    await NodeFs.writeFile(NodePath.join(base, "elsewhere", "x.txt"), "x\n")
    await NodeFs.symlink(NodePath.join(base, "elsewhere"), NodePath.join(root, "away"))
    return { base, root }
  }),
  ({ base }) => Effect.promise(() => NodeFs.rm(base, { recursive: true, force: true }))
)

const RULES: Permission.Ruleset = [
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "external_directory", pattern: "*", action: "ask" },
  { permission: "read", pattern: "*.env", action: "deny" }
]

/** Runs one call of `name` the way the session loop does, and returns its final result. */
const call = (root: string, name: "list", params: Record<string, unknown>) =>
  Effect.gen(function* () {
    const toolkit = yield* ReadTools.toolkit
    const results = yield* Stream.unwrap(toolkit.handle(name, params as never, "call_1")).pipe(
      Stream.runCollect
    )
    return results[results.length - 1]!
  }).pipe(
    Effect.provideService(ShellContext.Service, {
      ...ShellContext.defaults(),
      sessionID: "ses_r",
      callID: "call_1",
      ruleset: RULES,
      projectRoot: root,
      directory: root
    }),
    Instance.provide(root)
  )

const withTools = <A, E, R>(effect: (root: string, base: string) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const { base, root } = yield* project
    return yield* effect(root, base).pipe(
      Effect.provide(
        ReadTools.handlers.pipe(
          Layer.provideMerge(Truncate.layerWith({ directory: NodePath.join(base, "spill") })),
          Layer.provideMerge(Permission.layerMemory)
        )
      )
    )
  }).pipe(Effect.scoped)

describe("ReadTools", () => {
  it.effect("list: the tree under a directory", () =>
    withTools((root) =>
      Effect.gen(function* () {
        const result = yield* call(root, "list", {})
        const value = result.result as ReadTools.Result
        assert.include(value.output, "  src/\n    a.ts")
        assert.include(value.output, "big.txt")
      })
    )
  )

  it.effect("list of a symlinked directory outside the project asks external_directory for it", () =>
    withTools((root, base) =>
      Effect.gen(function* () {
        const asked = yield* replier("once")
        const result = yield* call(root, "list", { path: "away" })
        assert.isFalse(result.isFailure)
        assert.include((result.result as ReadTools.Result).output, "x.txt")
        assert.deepStrictEqual(
          asked.map((r) => [r.permission, r.patterns]),
          [["external_directory", [`${base}/elsewhere/*`]]]
        )
      }).pipe(Effect.scoped, Instance.provide(root))
    )
  )
})
