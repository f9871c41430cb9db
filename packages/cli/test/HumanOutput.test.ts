import { assert, describe, it } from "@effect/vitest"
import * as HumanOutput from "../src/HumanOutput.ts"

describe("HumanOutput", () => {
  it("takes the model's status block out; a timeout becomes a notice, the exit code stays the process's", () => {
    const shown = HumanOutput.forPerson(
      "out\nerr\n\n<command_status>\nThe command timed out after 300 ms and was stopped.\nExit code: 3\n</command_status>"
    )
    assert.strictEqual(shown.output, "out\nerr")
    assert.deepStrictEqual(shown.notices, ["The command timed out after 300 ms and was stopped."])
  })

  it("takes the truncation hint for the model out and says where the full output is", () => {
    const model =
      "1\n2\n\n...1000 lines truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: /d/tool_1\n" +
      "Use Grep to search the full content or Read with offset/limit to view specific sections.\n\n9\n10\n"
    const shown = HumanOutput.forPerson(model, "/d/tool_1")
    assert.notInclude(shown.output, "Grep")
    assert.notInclude(shown.output, "tool call")
    assert.include(shown.output, "...1000 lines truncated...")
    assert.match(shown.output, /^1\n2\n[\s\S]*\n9\n10\n$/)
    assert.deepStrictEqual(shown.notices, [
      "the output was truncated (1000 lines left out); the full output is in /d/tool_1"
    ])
  })

  it("a refusal keeps what a person needs and drops what is said to the model", () => {
    assert.strictEqual(
      HumanOutput.refusal(
        'Denied by rule bash "rm *" deny (bash "rm -rf x"). The user\'s permission rules forbid this call; do not retry it.\nTo allow it: …'
      ),
      'Denied by rule bash "rm *" deny (bash "rm -rf x").\nTo allow it: …'
    )
    assert.strictEqual(
      HumanOutput.refusal(
        'The user rejected bash "touch marker". Do not retry it; ask the user how to proceed.'
      ),
      'You rejected bash "touch marker"; it did not run.'
    )
  })
})
