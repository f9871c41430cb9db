import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as NodeV8 from "node:v8"
import * as NodeVm from "node:vm"
import { assert, describe, it } from "@effect/vitest"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { makeTruncate, random, spillFiles } from "./helpers.ts"

const encoder = new TextEncoder()

const feed = (sink: Truncate.Sink, bytes: Uint8Array, sizes: () => number) =>
  Effect.gen(function* () {
    for (let at = 0; at < bytes.length; ) {
      const size = Math.max(1, sizes())
      yield* sink.append(bytes.subarray(at, at + size))
      at += size
    }
  })

// Lines as Truncate counts them: a final newline ends the last line.
const countLines = (text: string) =>
  text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0)

const withoutPath = (result: Truncate.Result) =>
  result.truncated && result.outputPath !== undefined
    ? result.content.replaceAll(result.outputPath, "<path>")
    : result.content

describe("spill sink", () => {
  it.live("gives output's result for the same bytes on random inputs, multi-byte text included", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate({ maxSpillBytes: 2500 })
      const rng = random(20_260_529)
      const pieces = ["a", "bc", "\n", "\n", "\r\n", "é", "€", "😀", "ü\n", "x".repeat(40), "\n\n"]
      let truncatedCases = 0
      for (let round = 0; round < 300; round++) {
        let text = ""
        const length = rng.pick([0, 5, 50, 400, 3000])
        while (text.length < length) text += rng.pick(pieces)
        const options: Truncate.Options = {
          maxLines: rng.int(0, 40),
          maxBytes: rng.pick([0, 1, 3, 7, rng.int(8, 300), rng.int(300, 2000)]),
          direction: rng.pick(["head", "tail", "both"] as const)
        }
        const bytes = encoder.encode(text)
        const expected = yield* truncate.output(text, options)
        const streamed = yield* Effect.scoped(
          Effect.gen(function* () {
            const sink = yield* truncate.spill(options)
            const big = rng.next() < 0.2
            yield* feed(sink, bytes, () => (big ? rng.int(1, 4000) : rng.int(1, 9)))
            return yield* sink.finish
          })
        )
        const context = `round ${round}: ${JSON.stringify({ text, options })}`
        assert.strictEqual(streamed.truncated, expected.truncated, context)
        assert.strictEqual(withoutPath(streamed), withoutPath(expected), context)
        assert.strictEqual(streamed.totalBytes, bytes.length, context)
        assert.strictEqual(streamed.totalLines, countLines(text), context)
        assert.isFalse(streamed.content.includes("\uFFFD"), context)
        if (expected.truncated && streamed.truncated) {
          truncatedCases++
          assert.isDefined(expected.outputPath, context)
          assert.isDefined(streamed.outputPath, context)
          assert.deepStrictEqual(
            NodeFs.readFileSync(streamed.outputPath!),
            NodeFs.readFileSync(expected.outputPath!),
            context
          )
        } else {
          assert.strictEqual(streamed.content, text, context)
        }
      }
      assert.isAbove(truncatedCases, 150, "most cases exercise truncation")
    }).pipe(Effect.scoped)
  )

  it.live("equals output with limits above its initial buffer size (buffers grow)", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate()
      const rng = random(7)
      for (let round = 0; round < 12; round++) {
        const lines = Array.from(
          { length: rng.int(500, 3000) },
          (_, i) => `${i} ${"é€😀x".repeat(rng.int(0, 12))}`
        )
        const text = lines.join("\n")
        const options: Truncate.Options = {
          maxLines: rng.int(100, 4000),
          maxBytes: rng.int(20_000, 90_000),
          direction: rng.pick(["head", "tail", "both"] as const)
        }
        const expected = yield* truncate.output(text, options)
        const streamed = yield* Effect.scoped(
          Effect.gen(function* () {
            const sink = yield* truncate.spill(options)
            yield* feed(sink, encoder.encode(text), () => rng.pick([1, 100, 5000, 40_000]))
            return yield* sink.finish
          })
        )
        const context = `round ${round}: ${JSON.stringify(options)}`
        assert.strictEqual(streamed.truncated, expected.truncated, context)
        assert.strictEqual(withoutPath(streamed), withoutPath(expected), context)
      }
    }).pipe(Effect.scoped)
  )

  it.effect("creates its file only once the limits are exceeded, then writes everything", () =>
    Effect.gen(function* () {
      const { truncate, directory } = yield* makeTruncate()
      const sink = yield* truncate.spill({ maxLines: 3, maxBytes: 1000 })
      yield* sink.append(encoder.encode("one\ntwo\n"))
      yield* sink.append(encoder.encode("three"))
      assert.deepStrictEqual(spillFiles(directory), [], "3 lines: within the limits")
      yield* sink.append(encoder.encode("\nfour\n"))
      const files = spillFiles(directory)
      assert.strictEqual(files.length, 1)
      assert.strictEqual(NodeFs.statSync(NodePath.join(directory, files[0]!)).mode & 0o777, 0o600)
      yield* sink.append(encoder.encode("five\n"))
      const result = yield* sink.finish
      if (!result.truncated || result.outputPath === undefined) return assert.fail("expected a spill file")
      assert.strictEqual(NodeFs.readFileSync(result.outputPath, "utf8"), "one\ntwo\nthree\nfour\nfive\n")
      assert.strictEqual(
        result.content,
        `one\ntwo\nthree\n\n...2 lines truncated...\n\n${Truncate.hint(result.outputPath)}`
      )
      assert.deepStrictEqual([result.totalBytes, result.totalLines], [24, 5])
      assert.strictEqual(yield* sink.finish, result, "finish is idempotent")
      yield* sink.append(encoder.encode("late\n"))
      assert.strictEqual(NodeFs.readFileSync(result.outputPath, "utf8").includes("late"), false)
    }).pipe(Effect.scoped)
  )

  it.effect("within the limits: the text back, no file", () =>
    Effect.gen(function* () {
      const { truncate, directory } = yield* makeTruncate()
      const sink = yield* truncate.spill()
      yield* sink.append(encoder.encode("hello "))
      yield* sink.append(encoder.encode("world\n"))
      assert.deepStrictEqual(yield* sink.finish, {
        content: "hello world\n",
        truncated: false,
        totalBytes: 12,
        totalLines: 1
      })
      assert.deepStrictEqual(spillFiles(directory), [])
    }).pipe(Effect.scoped)
  )

  it.effect("preview: the current tail in whole characters, at most maxChars", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate()
      const sink = yield* truncate.spill({ maxBytes: 64 })
      assert.strictEqual(yield* sink.preview(10), "")
      const emoji = encoder.encode("😀")
      yield* sink.append(encoder.encode("progress: 1%\nnow 2%"))
      yield* sink.append(emoji.subarray(0, 2))
      assert.strictEqual(yield* sink.preview(100), "progress: 1%\nnow 2%", "half a character is left out")
      yield* sink.append(emoji.subarray(2))
      assert.strictEqual(yield* sink.preview(100), "progress: 1%\nnow 2%😀")
      assert.strictEqual(yield* sink.preview(3), "%😀", "a surrogate pair counts as two")
      assert.strictEqual(yield* sink.preview(2), "😀")
      assert.strictEqual(yield* sink.preview(1), "")
      for (let i = 0; i < 100; i++) yield* sink.append(encoder.encode(`é${i}\n`))
      const preview = yield* sink.preview(1000)
      assert.isTrue(preview.endsWith("é98\né99\n"))
      assert.isAtMost(Buffer.byteLength(preview), 66, "bounded by what the sink keeps")
      assert.isFalse(preview.includes("\uFFFD"))
    }).pipe(Effect.scoped)
  )

  it.effect("maxSpillBytes caps the file; the in-memory tail keeps following the stream", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate({ maxSpillBytes: 1000 })
      const sink = yield* truncate.spill({ maxLines: 5, direction: "tail" })
      const text = Array.from({ length: 1000 }, (_, i) => `row ${i}`).join("\n")
      yield* feed(sink, encoder.encode(text), () => 97)
      const result = yield* sink.finish
      if (!result.truncated || result.outputPath === undefined) return assert.fail("expected a spill file")
      const saved = NodeFs.readFileSync(result.outputPath, "utf8")
      const dropped = Buffer.byteLength(text) - 1000
      assert.strictEqual(
        saved,
        `${text.slice(0, 1000)}\n\n...${dropped} more bytes not saved: spill files stop at 1000 bytes...\n`
      )
      assert.isTrue(result.content.endsWith("row 995\nrow 996\nrow 997\nrow 998\nrow 999"))
      assert.strictEqual(result.totalBytes, Buffer.byteLength(text))
      // The note says the file stopped at its cap, not that it holds the full output.
      assert.notInclude(result.content, "Full output saved")
      assert.include(
        result.content,
        `Only the first 1000 of ${Buffer.byteLength(text)} bytes were saved (spill files stop at 1000 bytes), to: ${result.outputPath}`
      )
    }).pipe(Effect.scoped)
  )

  it.effect("a preview of invalid UTF-8 keeps the byte limit after its replacement characters", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate()
      for (const direction of ["head", "tail"] as const) {
        const sink = yield* truncate.spill({ maxBytes: 100, direction })
        // 0xff is never UTF-8: each byte decodes to U+FFFD, three bytes when encoded again.
        yield* sink.append(new Uint8Array(1000).fill(0xff))
        const result = yield* sink.finish
        assert.isTrue(result.truncated)
        const kept =
          direction === "head" ? result.content.split("\n\n...")[0]! : result.content.split("\n\n").at(-1)!
        assert.isAtMost(Buffer.byteLength(kept, "utf8"), 100, direction)
        assert.isAbove(kept.length, 0, direction)
        assert.match(kept, /^\uFFFD+$/)
      }
    }).pipe(Effect.scoped)
  )

  it.effect("a sink whose scope closes without finish removes its file", () =>
    Effect.gen(function* () {
      const { truncate, directory } = yield* makeTruncate()
      const scope = yield* Scope.make()
      const sink = yield* truncate.spill({ maxLines: 1 }).pipe(Scope.provide(scope))
      yield* sink.append(encoder.encode("a\nb\nc\n"))
      assert.strictEqual(spillFiles(directory).length, 1)
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(spillFiles(directory), [])
    }).pipe(Effect.scoped)
  )

  it.effect("an unwritable directory: the preview comes back without outputPath", () =>
    Effect.gen(function* () {
      const { root } = yield* makeTruncate()
      const blocker = NodePath.join(root, "plain-file")
      NodeFs.writeFileSync(blocker, "")
      const { truncate } = yield* makeTruncate({ directory: NodePath.join(blocker, "tool-output") })
      const sink = yield* truncate.spill({ maxLines: 2 })
      yield* sink.append(encoder.encode("a\nb\nc\nd\n"))
      const result = yield* sink.finish
      assert.deepStrictEqual(result, {
        content: `a\nb\n\n...2 lines truncated...\n\n${Truncate.unsavedHint}`,
        truncated: true,
        totalBytes: 8,
        totalLines: 4
      })
    }).pipe(Effect.scoped)
  )

  it("a disk that fills mid-stream: no error, no partial file, the content says so", () => {
    // RLIMIT_FSIZE makes writes past 128 KiB fail with EFBIG, as a full disk fails with ENOSPC.
    const root = NodeFs.mkdtempSync(NodePath.join(NodeFs.realpathSync("/tmp"), "gatehouse-full-"))
    try {
      const script = NodePath.join(import.meta.dirname, "fixtures", "spill-until-full.ts")
      const run = spawnSync("sh", ["-c", 'ulimit -f 128 && exec "$0" "$@"', process.execPath, script, root], {
        encoding: "utf8"
      })
      assert.strictEqual(run.status, 0, run.stderr)
      const result = JSON.parse(run.stdout.trimEnd().split("\n").at(-1)!) as Truncate.SpillResult
      assert.isTrue(result.truncated)
      assert.isFalse("outputPath" in result)
      assert.include(result.content, "could not be saved")
      assert.isTrue(result.content.endsWith("line 19999"), "the tail still follows the stream")
      assert.strictEqual(result.totalLines, 20_000)
      const log = run.stdout + run.stderr
      assert.include(log, "Truncate: the full tool output could not be saved", "the failure is logged")
      assert.include(log, "EFBIG", "it failed while writing, after the file was created")
      assert.deepStrictEqual(spillFiles(root), [], "the partial file is removed")
    } finally {
      NodeFs.rmSync(root, { recursive: true, force: true })
    }
  })

  // Live clock: the layer's reaper would otherwise warn that test time is not advancing.
  it.live(
    "sink memory stays bounded while 200 MiB pass through",
    () =>
      Effect.gen(function* () {
        NodeV8.setFlagsFromString("--expose-gc")
        const gc = NodeVm.runInNewContext("gc") as () => void
        const { truncate } = yield* makeTruncate()
        const chunk = Buffer.alloc(64 * 1024)
        for (let i = 0; i < chunk.length; i++) chunk[i] = i % 80 === 79 ? 10 : 97 + (i % 26)
        const measure = () => {
          gc()
          const usage = process.memoryUsage()
          return { rss: usage.rss, held: usage.heapUsed + usage.arrayBuffers }
        }
        const before = measure()
        let peakRss = before.rss
        let peakHeld = before.held
        const chunks = (200 * 1024 * 1024) / chunk.length
        const result = yield* Effect.scoped(
          Effect.gen(function* () {
            const sink = yield* truncate.spill({ direction: "both" })
            for (let i = 1; i <= chunks; i++) {
              yield* sink.append(chunk)
              if (i % 400 === 0) {
                const now = measure()
                peakRss = Math.max(peakRss, now.rss)
                peakHeld = Math.max(peakHeld, now.held)
              }
            }
            const result = yield* sink.finish
            const now = measure()
            peakRss = Math.max(peakRss, now.rss)
            peakHeld = Math.max(peakHeld, now.held)
            return result
          })
        )
        assert.strictEqual(result.totalBytes, 200 * 1024 * 1024)
        if (!result.truncated || result.outputPath === undefined) return assert.fail("expected a spill file")
        assert.strictEqual(NodeFs.statSync(result.outputPath).size, 200 * 1024 * 1024)
        NodeFs.rmSync(result.outputPath)
        const mib = (bytes: number) => bytes / 1024 / 1024
        // Without the bound, 200 MiB of chunks would sit in arrayBuffers and RSS.
        assert.isBelow(mib(peakHeld - before.held), 16, "heap + array buffers growth (MiB)")
        assert.isBelow(mib(peakRss - before.rss), 64, "RSS growth (MiB)")
      }).pipe(Effect.scoped),
    20_000
  )
})
