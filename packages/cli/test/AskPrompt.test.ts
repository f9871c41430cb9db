import { PassThrough } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import type { Permission } from "@gatehouse/permission"
import { Effect } from "effect"
import * as AskPrompt from "../src/AskPrompt.ts"

const request: Permission.Request = {
  id: "per_1",
  sessionID: "ses_1",
  permission: "bash",
  patterns: ["git push origin main"],
  always: ["git push *"],
  metadata: { command: "git push origin main", rule: 'bash "*" ask' }
}

const answer = (input: string, end = true) =>
  Effect.gen(function* () {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    let shown = ""
    stdout.on("data", (chunk) => (shown += chunk))
    const pending = AskPrompt.ask(request, { input: stdin, output: stdout, color: false }).pipe(
      Effect.runPromise
    )
    stdin.write(input)
    if (end) stdin.end()
    const result = yield* Effect.promise(() => pending)
    return { result, shown }
  })

describe("AskPrompt", () => {
  it.effect("shows the permission, patterns and details, then reads o / a / r", () =>
    Effect.gen(function* () {
      const once = yield* answer("o\n", false)
      assert.deepStrictEqual(once.result, { reply: "once" })
      assert.include(once.shown, "Permission required: bash")
      assert.include(once.shown, "git push origin main")
      assert.include(once.shown, 'rule: bash "*" ask')
      assert.include(once.shown, '"always" would allow: git push *')
      assert.deepStrictEqual((yield* answer("a\n", false)).result, { reply: "always" })
      assert.deepStrictEqual((yield* answer("r\n", false)).result, { reply: "reject" })
    })
  )

  it("a multi-line value (an edit's diff) hangs under its key instead of starting at column 0", () => {
    const diff = "--- greet.txt\n+++ greet.txt\n@@ -1 +1 @@\n-Hello\n+Hi there\n"
    const lines = AskPrompt.describe({
      ...request,
      permission: "edit",
      patterns: ["greet.txt"],
      always: ["greet.txt"],
      metadata: { action: "modify", diff, note: "one line\r\nand another" }
    })
    const at = lines.findIndex((line) => line.startsWith("    diff: "))
    assert.deepStrictEqual(lines.slice(at, at + 5), [
      "    diff: --- greet.txt",
      "          +++ greet.txt",
      "          @@ -1 +1 @@",
      "          -Hello",
      "          +Hi there"
    ])
    // The trailing newline adds no blank line; CRLF splits too.
    assert.deepStrictEqual(lines.slice(at + 5, at + 7), ["    note: one line", "          and another"])
    assert.isTrue(lines.every((line) => !line.includes("\n") && !line.includes("\r")))
    assert.include(lines, "    action: modify")
    // With colour, each line is dimmed on its own.
    const colored = AskPrompt.describe({ ...request, metadata: { diff } }, true)
    const hanging = colored.filter((line) => line.includes("+++ greet.txt"))
    assert.deepStrictEqual(hanging, ["\u001b[2m          +++ greet.txt\u001b[22m"])
  })

  it.effect("any other text rejects with that feedback; empty lines ask again; end of input rejects", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual((yield* answer("push to a branch instead\n", false)).result, {
        reply: "reject",
        message: "push to a branch instead"
      })
      assert.deepStrictEqual((yield* answer("\n\nonce\n", false)).result, { reply: "once" })
      assert.deepStrictEqual((yield* answer("")).result, { reply: "reject" })
    })
  )
})
