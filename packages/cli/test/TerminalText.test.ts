import { assert, describe, it } from "@effect/vitest"
import * as TerminalText from "../src/TerminalText.ts"

describe("TerminalText", () => {
  it("shows controls, DEL, C1, bidi and invisible characters as escapes", () => {
    assert.strictEqual(TerminalText.printable("rm -rf ~ \u001b[2K\rls -la"), "rm -rf ~ \\x1b[2K\\rls -la")
    assert.strictEqual(
      TerminalText.printable("a\u0000b\u0007c\u007fd\u0085e\u009bf"),
      "a\\x00b\\x07c\\x7fd\\x85e\\x9bf"
    )
    assert.strictEqual(
      TerminalText.printable("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
      "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"
    )
    assert.strictEqual(
      TerminalText.printable("\u200b\u200c\u200d\u200e\u200f\u2028\u2029\ufeff\u061c"),
      "\\u200b\\u200c\\u200d\\u200e\\u200f\\u2028\\u2029\\ufeff\\u061c"
    )
    // A newline is escaped by default; a tab is kept.
    assert.strictEqual(TerminalText.printable("a\nb\tc"), "a\\nb\tc")
  })

  it("leaves ordinary text alone, backslashes and non-ASCII included", () => {
    for (const text of ["printf '\\x1b[31m'", "héllo wörld ✓ → 日本語 🙂", "path\\to\\file", ""])
      assert.strictEqual(TerminalText.printable(text), text)
  })

  it("newlines: keeps line breaks (CRLF as LF) and still escapes a lone carriage return", () => {
    assert.strictEqual(
      TerminalText.printable("one\r\ntwo\nthree\rfour\u001b[1A", { newlines: true }),
      "one\ntwo\nthree\\rfour\\x1b[1A"
    )
  })

  it("lines: splits first (no empty last line), then escapes each line", () => {
    assert.deepStrictEqual(TerminalText.lines("--- a\r\n+++ a\n-x\u001b[2K\r\n+y\u202e\n"), [
      "--- a",
      "+++ a",
      "-x\\x1b[2K",
      "+y\\u202e"
    ])
    assert.deepStrictEqual(TerminalText.lines("one"), ["one"])
  })
})
