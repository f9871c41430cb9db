import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { Tree } from "web-tree-sitter"
import { ShellParser } from "../src/index.ts"

// web-tree-sitter clears a tree's wasm handle when it is deleted.
const deleted = (tree: Tree): boolean => (tree as unknown as Record<number, number>)[0] === 0

describe("ShellParser.dialectOf", () => {
  it("maps POSIX shells to bash and pwsh/powershell to powershell, from names or paths", () => {
    for (const shell of ["bash", "/bin/zsh", "sh", "/usr/bin/dash", "ksh", "fish-unknown"]) {
      assert.strictEqual(ShellParser.dialectOf(shell), "bash", shell)
    }
    for (const shell of ["pwsh", "/usr/local/bin/pwsh", "C:/tools/PWSH.EXE", "powershell.exe"]) {
      assert.strictEqual(ShellParser.dialectOf(shell), "powershell", shell)
    }
  })

  it("knownDialect names only shells whose syntax the gate models", () => {
    assert.strictEqual(ShellParser.knownDialect("/bin/rbash"), "bash")
    assert.strictEqual(ShellParser.knownDialect("C:/tools/PWSH.EXE"), "powershell")
    for (const shell of ["fish", "/usr/bin/nu", "cmd.exe", "bsh"]) {
      assert.isUndefined(ShellParser.knownDialect(shell), shell)
    }
  })
})

describe("ShellParser.layer", () => {
  it("resolves the runtime and both grammars from the installed packages", () => {
    const files = ShellParser.files()
    assert.match(files.runtime, /web-tree-sitter[\\/]web-tree-sitter\.wasm$/)
    assert.match(files.bash, /tree-sitter-bash[\\/]tree-sitter-bash\.wasm$/)
    assert.match(files.powershell, /tree-sitter-powershell[\\/]tree-sitter-powershell\.wasm$/)
    assert.notInclude(files.bash, "packages/shell/src")
  })

  it.effect("fails with a typed LoadError naming the file when a grammar is missing", () =>
    Effect.gen(function* () {
      const files = ShellParser.files()
      const broken = ShellParser.layerFrom({
        ...files,
        powershell: "/nonexistent/tree-sitter-powershell.wasm"
      })
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(broken)))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Exit.findErrorOption(exit) : undefined
      assert.strictEqual(error?._tag, "Some")
      if (error?._tag === "Some") {
        assert.instanceOf(error.value, ShellParser.LoadError)
        assert.strictEqual(error.value.file, "/nonexistent/tree-sitter-powershell.wasm")
        assert.include(error.value.message, "/nonexistent/tree-sitter-powershell.wasm")
      }
    })
  )

  it.effect(
    "compiles the PowerShell grammar on the first PowerShell text: a file that is not a grammar fails that parse with its LoadError",
    () =>
      Effect.gen(function* () {
        const files = ShellParser.files()
        const exit = yield* Effect.exit(
          Effect.scoped(
            Effect.gen(function* () {
              const parser = yield* ShellParser.Service
              const bash = yield* parser.withTrees((trees) => trees.syntax("ls -la", "bash").type)
              assert.strictEqual(bash, "program")
              return yield* parser.withTrees((trees) => trees.syntax("Get-ChildItem", "powershell").type)
            }).pipe(Effect.provide(ShellParser.layerFrom({ ...files, powershell: files.runtime })))
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(defect, ShellParser.LoadError)
        assert.strictEqual((defect as ShellParser.LoadError).file, files.runtime)
      })
  )

  it.effect("fails with a LoadError when a file is not a grammar", () =>
    Effect.gen(function* () {
      const files = ShellParser.files()
      const exit = yield* Effect.exit(
        Effect.scoped(Layer.build(ShellParser.layerFrom({ ...files, bash: files.runtime })))
      )
      assert.isTrue(Exit.isFailure(exit))
    })
  )
})

layer(ShellParser.layer)("ShellParser.Service", (it) => {
  it.effect("parses bash and PowerShell with their own grammars", () =>
    Effect.gen(function* () {
      const parser = yield* ShellParser.Service
      const bash = yield* parser.parse("echo hi | wc -l", "bash")
      assert.strictEqual(bash.rootNode.type, "program")
      assert.strictEqual(bash.rootNode.descendantsOfType("command").length, 2)
      const ps = yield* parser.parse("Get-ChildItem | ForEach-Object { $_ }", "powershell")
      assert.strictEqual(ps.rootNode.descendantsOfType("command").length, 2)
      assert.isFalse(ps.rootNode.hasError)
    }).pipe(Effect.scoped)
  )

  it.effect("deletes every tree when its scope closes", () =>
    Effect.gen(function* () {
      const parser = yield* ShellParser.Service
      const scope = yield* Scope.make()
      const trees = [
        yield* parser.parse("ls", "bash").pipe(Scope.provide(scope)),
        yield* parser.parse("Write-Host x", "powershell").pipe(Scope.provide(scope))
      ]
      assert.isFalse(trees.some(deleted))
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(trees.every(deleted))
    })
  )

  it.effect("deletes the tree when the work in its scope fails", () =>
    Effect.gen(function* () {
      const parser = yield* ShellParser.Service
      let tree: Tree | undefined
      const exit = yield* Effect.exit(
        Effect.scoped(
          Effect.gen(function* () {
            tree = yield* parser.parse("rm -rf x", "bash")
            return yield* Effect.fail("denied")
          })
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.isTrue(tree !== undefined && deleted(tree))
    })
  )

  it.effect("withTrees deletes every tree it parsed when its work returns", () =>
    Effect.gen(function* () {
      const parser = yield* ShellParser.Service
      const made: Array<Tree> = []
      const types = yield* parser.withTrees((trees) => {
        made.push(trees.parse("ls | wc -l", "bash"), trees.parse("Get-Item x", "powershell"))
        assert.isFalse(made.some(deleted))
        return made.map((tree) => tree.rootNode.type)
      })
      assert.deepStrictEqual(types, ["program", "program"])
      assert.isTrue(made.every(deleted))
    })
  )

  it.effect("withTrees deletes the trees when its work throws", () =>
    Effect.gen(function* () {
      const parser = yield* ShellParser.Service
      let tree: Tree | undefined
      const exit = yield* Effect.exit(
        parser.withTrees((trees) => {
          tree = trees.parse("rm -rf x", "bash")
          throw new Error("walker bug")
        })
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.isTrue(tree !== undefined && deleted(tree))
    })
  )
})

describe("ShellParser memory", () => {
  // A real process (so the collector can be forced) runs the loop; the full million is in
  // bench/memory.bench.ts, 200 000 keeps CI on two shared cores lean.
  it("200 000 parses do not grow the process", () => {
    const script = fileURLToPath(new URL("./fixtures/parse-loop.ts", import.meta.url))
    const result = spawnSync(process.execPath, ["--expose-gc", script, "200000", "0"], {
      encoding: "utf8"
    })
    assert.strictEqual(result.status, 0, result.stderr)
    const report = JSON.parse(result.stdout.trim().split("\n").pop()!) as {
      before: { rss: number; external: number; heapUsed: number }
      after: { rss: number; external: number; heapUsed: number }
      checkpoints: Array<number>
    }
    const mib = (bytes: number) => bytes / 1024 / 1024
    // RSS moves in bursts (the allocator returns pages lazily): growth is what persists, the
    // lowest of the last samples; a leak would raise every one of them.
    const settled = Math.min(...report.checkpoints.slice(2), report.after.rss)
    const rss = mib(settled - report.before.rss)
    const wasm = mib(report.after.external - report.before.external)
    const heap = mib(report.after.heapUsed - report.before.heapUsed)
    // RSS is a coarse backstop: with the JS heap and wasm memory flat, it moved by -40 to +94
    // MiB between runs of this very loop (V8's spaces and the allocator keep and return pages
    // in bursts). A tree leaked per parse would be hundreds of MiB, and the exact checks below
    // (wasm memory, the heap) catch far less than that.
    assert.isBelow(rss, 160, `RSS grew by ${rss.toFixed(1)} MiB`)
    // Undeleted trees live in wasm memory (counted as external): it must not move.
    assert.isBelow(wasm, 8, `wasm/external memory grew by ${wasm.toFixed(1)} MiB`)
    assert.isBelow(heap, 16, `the JS heap grew by ${heap.toFixed(1)} MiB`)
  }, 120_000)
})
