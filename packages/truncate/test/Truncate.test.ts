import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { makeTruncate, spillFiles } from "./helpers.ts"

const lines = (count: number, prefix = "line") =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`).join("\n")

const utf8 = (text: string) => Buffer.byteLength(text, "utf8")

describe("limits", () => {
  it("has opencode's defaults", () => {
    assert.strictEqual(Truncate.MAX_LINES, 2000)
    assert.strictEqual(Truncate.MAX_BYTES, 51_200)
    assert.strictEqual(Duration.toMillis(Truncate.RETENTION), 7 * 24 * 60 * 60 * 1000)
  })
})

describe("defaultDirectory", () => {
  const withEnv = (env: Record<string, string>) =>
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))

  it.effect("is $XDG_DATA_HOME/gatehouse/tool-output, else ~/.local/share/gatehouse/tool-output", () =>
    Effect.gen(function* () {
      const home = NodePath.join(NodeOs.homedir(), ".local", "share", "gatehouse", "tool-output")
      assert.strictEqual(
        yield* Truncate.defaultDirectory.pipe(withEnv({ XDG_DATA_HOME: "/data" })),
        "/data/gatehouse/tool-output"
      )
      assert.strictEqual(yield* Truncate.defaultDirectory.pipe(withEnv({})), home)
      assert.strictEqual(yield* Truncate.defaultDirectory.pipe(withEnv({ XDG_DATA_HOME: "" })), home)
      assert.strictEqual(yield* Truncate.defaultDirectory.pipe(withEnv({ XDG_DATA_HOME: "rel/dir" })), home)
    })
  )
})

describe("head and tail", () => {
  it("exactly 2000 lines fit, with or without a final newline; 2001 do not", () => {
    const text = lines(2000)
    assert.deepStrictEqual(Truncate.head(text), {
      text,
      lines: 2000,
      bytes: utf8(text),
      removed: 0,
      unit: "lines"
    })
    assert.strictEqual(Truncate.head(`${text}\n`).removed, 0)
    assert.strictEqual(Truncate.head(`${text}\n`).text, `${text}\n`)
    const over = lines(2001)
    const head = Truncate.head(over)
    assert.strictEqual(head.lines, 2000)
    assert.deepStrictEqual([head.removed, head.unit], [1, "lines"])
    assert.strictEqual(head.text, text)
    const tail = Truncate.tail(`${over}\n`)
    assert.deepStrictEqual([tail.lines, tail.removed, tail.unit], [2000, 1, "lines"])
    assert.isTrue(tail.text.startsWith("line1\n") && tail.text.endsWith("line2000"))
  })

  it("exactly 51 200 bytes fit; one more byte is cut on a line", () => {
    const line = `${"x".repeat(99)}\n` // 100 bytes with its newline
    const exact = line.repeat(512)
    assert.strictEqual(utf8(exact), 51_200)
    assert.strictEqual(Truncate.head(exact).removed, 0)
    const over = `${exact}y`
    const head = Truncate.head(over)
    assert.strictEqual(head.unit, "bytes")
    // 512 lines of 99 characters joined by newlines: 51 199 bytes, then the cut.
    assert.strictEqual(head.lines, 512)
    assert.strictEqual(head.bytes, 51_199)
    assert.strictEqual(head.removed, 2)
    assert.strictEqual(Truncate.tail(over).text.endsWith("\ny"), true)
  })

  it("drops a line whose 4-byte character straddles the byte limit", () => {
    // "ab" + newline = 3 bytes; then "c😀" = 5 bytes, crossing the limit of 6.
    const text = "ab\nc😀\nd"
    const head = Truncate.head(text, 10, 6)
    assert.strictEqual(head.text, "ab")
    assert.deepStrictEqual([head.bytes, head.unit, head.removed], [2, "bytes", utf8(text) - 2])
    const tail = Truncate.tail("a\n😀b\ncd", 10, 6)
    assert.strictEqual(tail.text, "cd")
  })

  it("cuts a single line longer than maxBytes on a character boundary, never inside one", () => {
    const text = `${"a".repeat(9)}😀${"b".repeat(10)}` // the emoji occupies bytes 9..12
    for (const maxBytes of [9, 10, 11, 12]) {
      const head = Truncate.head(text, 10, maxBytes)
      assert.strictEqual(head.text, "a".repeat(9), `head ${maxBytes}`)
      assert.deepStrictEqual([head.lines, head.unit, head.removed], [1, "bytes", utf8(text) - 9])
      assert.isFalse(head.text.includes("\uFFFD"))
    }
    assert.strictEqual(Truncate.head(text, 10, 13).text, `${"a".repeat(9)}😀`)
    const reversed = `${"b".repeat(10)}😀${"a".repeat(9)}`
    for (const maxBytes of [9, 10, 11, 12]) {
      assert.strictEqual(Truncate.tail(reversed, 10, maxBytes).text, "a".repeat(9), `tail ${maxBytes}`)
    }
    assert.strictEqual(Truncate.tail(reversed, 10, 13).text, `😀${"a".repeat(9)}`)
  })

  it("keeps CRLF line endings intact and counts CRLF lines once", () => {
    const text = "one\r\ntwo\r\nthree\r\nfour\r\n"
    const head = Truncate.head(text, 2, 1000)
    assert.strictEqual(head.text, "one\r\ntwo\r")
    assert.deepStrictEqual([head.lines, head.removed, head.unit], [2, 2, "lines"])
    assert.isTrue(text.startsWith(head.text))
    const tail = Truncate.tail(text, 2, 1000)
    assert.strictEqual(tail.text, "three\r\nfour\r")
    assert.isTrue(text.includes(tail.text))
  })

  it("counts a last line without a newline", () => {
    assert.deepStrictEqual(Truncate.head("a\nb\nc", 2, 100), {
      text: "a\nb",
      lines: 2,
      bytes: 3,
      removed: 1,
      unit: "lines"
    })
    assert.strictEqual(Truncate.tail("a\nb\nc", 2, 100).text, "b\nc")
    assert.strictEqual(Truncate.head("a\nb\nc", 3, 100).removed, 0)
  })

  it("keeps the first or last lines", () => {
    const text = lines(10)
    assert.strictEqual(Truncate.head(text, 3, 1000).text, "line0\nline1\nline2")
    assert.strictEqual(Truncate.tail(text, 3, 1000).text, "line7\nline8\nline9")
  })
})

describe("output", () => {
  it.effect("returns text within the limits unchanged, without outputPath, writing nothing", () =>
    Effect.gen(function* () {
      const { truncate, directory } = yield* makeTruncate()
      const result = yield* truncate.output("line1\nline2\nline3")
      assert.deepStrictEqual(result, { content: "line1\nline2\nline3", truncated: false })
      assert.isFalse("outputPath" in result)
      assert.deepStrictEqual(spillFiles(directory), [])
    }).pipe(Effect.scoped)
  )

  it.effect("head: kept lines, marker, hint; the file holds the full text with mode 0600", () =>
    Effect.gen(function* () {
      const { truncate, directory } = yield* makeTruncate()
      const text = lines(100)
      const result = yield* truncate.output(text, { maxLines: 10 })
      assert.isTrue(result.truncated)
      if (!result.truncated || result.outputPath === undefined) return assert.fail("expected a spill file")
      const { outputPath } = result
      assert.strictEqual(NodePath.dirname(outputPath), directory)
      assert.match(NodePath.basename(outputPath), /^tool_[0-9a-f]{16}[0-9A-Za-z]{14}$/)
      assert.strictEqual(
        result.content,
        `${lines(10)}\n\n...90 lines truncated...\n\n${Truncate.hint(outputPath)}`
      )
      assert.include(result.content, "The tool call succeeded but the output was truncated")
      assert.include(result.content, "Grep")
      assert.strictEqual(NodeFs.readFileSync(outputPath, "utf8"), text)
      assert.strictEqual(NodeFs.statSync(outputPath).mode & 0o777, 0o600)
    }).pipe(Effect.scoped)
  )

  it.effect("tail: marker and hint first, then the last lines", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate()
      const result = yield* truncate.output(lines(10), { maxLines: 3, direction: "tail" })
      if (!result.truncated || result.outputPath === undefined) return assert.fail("expected a spill file")
      assert.strictEqual(
        result.content,
        `...7 lines truncated...\n\n${Truncate.hint(result.outputPath)}\n\nline7\nline8\nline9`
      )
      assert.notInclude(result.content, "line0")
    }).pipe(Effect.scoped)
  )

  it.effect("both: a fifth of the budget for the head, four fifths for the tail", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate()
      const text = lines(100)
      const result = yield* truncate.output(text, { maxLines: 10, direction: "both" })
      if (!result.truncated || result.outputPath === undefined) return assert.fail("expected a spill file")
      assert.strictEqual(
        result.content,
        `line0\nline1\n\n...90 lines truncated...\n\n${Truncate.hint(result.outputPath)}\n\n` +
          Array.from({ length: 8 }, (_, i) => `line${92 + i}`).join("\n")
      )
      // By bytes: one long line keeps 200 bytes of its start and 800 of its end.
      const long = `${"<".repeat(3000)}${">".repeat(3000)}`
      const byBytes = yield* truncate.output(long, { maxBytes: 1000, direction: "both" })
      if (!byBytes.truncated || byBytes.outputPath === undefined) return assert.fail("expected a spill file")
      assert.strictEqual(
        byBytes.content,
        `${"<".repeat(200)}\n\n...5000 bytes truncated...\n\n${Truncate.hint(byBytes.outputPath)}\n\n${">".repeat(800)}`
      )
    }).pipe(Effect.scoped)
  )

  it.effect("bytes marker for a long single line, and the caller's own hint", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate()
      const result = yield* truncate.output("a".repeat(1000), {
        maxBytes: 100,
        hint: (path) => `Ask the explore agent about ${path}`
      })
      if (!result.truncated || result.outputPath === undefined) return assert.fail("expected a spill file")
      assert.strictEqual(
        result.content,
        `${"a".repeat(100)}\n\n...900 bytes truncated...\n\nAsk the explore agent about ${result.outputPath}`
      )
      const task = yield* truncate.output(lines(50), { maxLines: 5, hint: Truncate.taskHint })
      assert.include(task.content, "Task tool")
      assert.include(task.content, "Grep")
    }).pipe(Effect.scoped)
  )

  it.effect("per-call limits beat the layer's, which beat the defaults", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate({ maxLines: 10, maxBytes: 30 })
      const text = lines(50)
      assert.include((yield* truncate.output(text)).content, "bytes truncated")
      const wide = yield* truncate.output(text, { maxLines: 1000, maxBytes: 1_000_000 })
      assert.deepStrictEqual(wide, { content: text, truncated: false })
      const byLines = yield* truncate.output(lines(50, "l"), { maxBytes: 10_000 })
      assert.include(byLines.content, "...40 lines truncated...")
    }).pipe(Effect.scoped)
  )

  it.effect("write: a new 0600 file with the text, its path returned", () =>
    Effect.gen(function* () {
      const { truncate, directory } = yield* makeTruncate()
      const first = yield* truncate.write("héllo")
      const second = yield* truncate.write("world")
      assert.notStrictEqual(first, second)
      assert.isTrue(first < second, "names sort by creation")
      assert.strictEqual(NodeFs.readFileSync(first, "utf8"), "héllo")
      assert.strictEqual(NodeFs.statSync(first).mode & 0o777, 0o600)
      assert.deepStrictEqual(spillFiles(directory), [NodePath.basename(first), NodePath.basename(second)])
    }).pipe(Effect.scoped)
  )

  it.effect("an existing tool output folder readable by others is made 0700 when the layer starts", () =>
    Effect.gen(function* () {
      const { directory } = yield* makeTruncate()
      NodeFs.mkdirSync(directory, { recursive: true })
      NodeFs.chmodSync(directory, 0o755)
      yield* makeTruncate({ directory })
      assert.strictEqual(NodeFs.statSync(directory).mode & 0o777, 0o700)
    }).pipe(Effect.scoped)
  )

  it.effect("output past maxSpillBytes: the note says the file stopped at its cap", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate({ maxSpillBytes: 1000 })
      const text = Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n")
      const result = yield* truncate.output(text, { maxLines: 3 })
      if (!result.truncated || result.outputPath === undefined) return assert.fail("expected a spill file")
      assert.notInclude(result.content, "Full output saved")
      assert.include(result.content, `Only the first 1000 of ${Buffer.byteLength(text)} bytes were saved`)
      // Under the cap the note is unchanged.
      const small = yield* truncate.output(Array.from({ length: 10 }, (_, i) => `l${i}`).join("\n"), {
        maxLines: 3
      })
      if (!small.truncated || small.outputPath === undefined) return assert.fail("expected a spill file")
      assert.include(small.content, `Full output saved to: ${small.outputPath}`)
    }).pipe(Effect.scoped)
  )

  it.effect("maxSpillBytes caps a written file, which records how much it dropped", () =>
    Effect.gen(function* () {
      const { truncate } = yield* makeTruncate({ maxSpillBytes: 1000 })
      const text = `${"é".repeat(1000)}end` // 2003 bytes; byte 1000 starts an "é"
      const path = yield* truncate.write(text)
      const saved = NodeFs.readFileSync(path, "utf8")
      assert.strictEqual(
        saved,
        `${"é".repeat(500)}\n\n...1003 more bytes not saved: spill files stop at 1000 bytes...\n`
      )
    }).pipe(Effect.scoped)
  )

  it.effect("an unwritable directory never fails output: the preview says nothing was saved", () =>
    Effect.gen(function* () {
      // Root ignores permission bits, so "unwritable" is a directory whose parent is a regular
      // file: mkdir and open fail with ENOTDIR for every user.
      const { root } = yield* makeTruncate()
      const blocker = NodePath.join(root, "not-a-directory")
      NodeFs.writeFileSync(blocker, "")
      const { truncate } = yield* makeTruncate({ directory: NodePath.join(blocker, "tool-output") })
      const logged: Array<unknown> = []
      const capture = Logger.layer([Logger.make((entry) => void logged.push(entry.message))])
      const result = yield* truncate.output(lines(100), { maxLines: 10 }).pipe(Effect.provide(capture))
      assert.deepStrictEqual(
        result,
        {
          content: `${lines(10)}\n\n...90 lines truncated...\n\n${Truncate.unsavedHint}`,
          truncated: true
        },
        "no outputPath"
      )
      assert.include(result.content, "could not be saved")
      assert.isTrue(
        logged.some((message) => String(message).includes("could not be saved")),
        "the failure is logged"
      )
      const failure = yield* Effect.flip(truncate.write("x"))
      assert.strictEqual(failure._tag, "TruncateWriteError")
      assert.include(failure.message, "not-a-directory")
    }).pipe(Effect.scoped)
  )
})
