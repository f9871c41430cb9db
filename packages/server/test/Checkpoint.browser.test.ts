// Rewind and fork from the web page, in headless Chromium: the page's controls, the
// server's routes and real files in a temporary project.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { assert, layer } from "@effect/vitest"
import * as Server from "@gatehousejs/server/Server"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import { browser } from "./chromium.ts"
import { stack, tempProject } from "./harness.ts"

const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts/", import.meta.url))
const directory = tempProject()
const greet = NodePath.join(directory, "greet.txt")
const notes = NodePath.join(directory, "notes.txt")
writeFileSync(greet, "Hello\n")

const script = {
  turns: [
    {
      parts: [
        {
          type: "tool-call" as const,
          name: "edit",
          params: { filePath: "greet.txt", oldString: "Hello", newString: "Hi there" }
        },
        { type: "finish" as const, reason: "tool-calls" as const }
      ]
    },
    { parts: [{ type: "text" as const, text: "Edited greet.txt." }] },
    {
      parts: [
        { type: "tool-call" as const, name: "write", params: { filePath: "notes.txt", content: "a note\n" } },
        { type: "finish" as const, reason: "tool-calls" as const }
      ]
    },
    { parts: [{ type: "text" as const, text: "Wrote notes.txt." }] }
  ]
}

const watchErrors = (page: Page, errors: Array<string>) => {
  page.on("pageerror", (error) => errors.push(error.message))
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text())
  })
}

layer(stack({ directory, script, ruleset: [{ permission: "*", pattern: "*", action: "allow" }] }), {
  excludeTestServices: true
})("rewind and fork in Chromium", (it) => {
  it.effect(
    "Fork a past turn into a new session, then Rewind a turn by keyboard: messages go, the file comes back",
    () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        const context = yield* browser
        const errors: Array<string> = []
        const created = yield* Effect.promise(() =>
          fetch(`${server.url}/session`, {
            method: "POST",
            headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
            body: JSON.stringify({ title: "browser rewind" })
          }).then((response) => response.json() as Promise<{ id: string }>)
        )
        // Page A acts; page B only watches, so what it shows comes from the event stream.
        const a = yield* Effect.promise(() => context.newPage())
        const b = yield* Effect.promise(() => context.newPage())
        watchErrors(a, errors)
        watchErrors(b, errors)

        yield* Effect.promise(async () => {
          for (const page of [a, b]) {
            await page.goto(server.pageUrl)
            await page.getByRole("status").filter({ hasText: "live" }).waitFor()
            await page
              .locator(`#sessions [aria-current="true"]`)
              .filter({ hasText: "browser rewind" })
              .waitFor()
          }
          // The page says plainly what checkpoints do not cover.
          assert.include(
            (await a.locator("#checkpoint-note").textContent()) ?? "",
            "Shell commands are not tracked by checkpoints"
          )

          const prompt = a.getByLabel("Prompt", { exact: true })
          await prompt.fill("Say hi instead")
          await prompt.press("Control+Enter")
          await a.getByText("Edited greet.txt.").waitFor()
          // Send is disabled while the turn runs.
          await a.locator("#send:enabled").waitFor()
          await prompt.fill("Write a note")
          await prompt.press("Control+Enter")
          await a.getByText("Wrote notes.txt.").waitFor()
          await b.getByText("Wrote notes.txt.").waitFor()
          assert.strictEqual(readFileSync(greet, "utf8"), "Hi there\n")
          assert.isTrue(existsSync(notes))

          // Each turn shows the files its checkpoint recorded, once the turn is over.
          const turn1 = a.getByRole("article", { name: "Your prompt, turn 1" })
          const turn2 = a.getByRole("article", { name: "Your prompt, turn 2" })
          await turn1.getByText("Files changed: greet.txt").waitFor()
          await turn2.getByText("Files changed: notes.txt").waitFor()
          mkdirSync(ARTIFACTS, { recursive: true })
          await a.screenshot({ path: NodePath.join(ARTIFACTS, "server-web-page-turns.png"), fullPage: true })

          // Fork before turn 2: a new session holding turn 1, selected, with turn 2's prompt to resend.
          await turn2.getByRole("button", { name: "Fork", exact: true }).click()
          const fork = a.getByRole("button", { name: /browser rewind \(fork before turn 2\)/ })
          await fork.waitFor()
          assert.strictEqual(await fork.getAttribute("aria-current"), "true")
          assert.strictEqual(await prompt.inputValue(), "Write a note")
          await a.getByRole("article", { name: "Your prompt, turn 1" }).waitFor()
          assert.strictEqual(await a.getByRole("article", { name: /Your prompt/ }).count(), 1)
          // The other page learns of the fork from session.created.
          await b.getByRole("button", { name: /browser rewind \(fork before turn 2\)/ }).waitFor()
          assert.isTrue(existsSync(notes))

          // Back to the original session; rewind turn 1, code and conversation, by keyboard.
          await prompt.fill("")
          await a.getByRole("button", { name: /^browser rewind\s*idle$/ }).click()
          await turn2.waitFor()
          const scope = turn1.getByLabel("Rewind scope")
          await scope.focus()
          await a.keyboard.press("End") // the last option: conversation only
          await a.keyboard.press("Home") // the first: code and conversation
          assert.strictEqual(await scope.inputValue(), "both")
          await a.keyboard.press("Tab")
          const rewind = turn1.getByRole("button", { name: "Rewind", exact: true })
          assert.isTrue(await rewind.evaluate((node: any) => node === node.ownerDocument.activeElement))
          await a.keyboard.press("Enter")

          await turn1.waitFor({ state: "detached" })
          await a.locator("#log").getByText("No messages yet.").waitFor()
          assert.strictEqual(await prompt.inputValue(), "Say hi instead")
          assert.isTrue(await prompt.evaluate((node: any) => node === node.ownerDocument.activeElement))
          assert.match(
            (await a.locator("#notice").textContent()) ?? "",
            /restored greet\.txt.*deleted notes\.txt/
          )
          // The watching page drops the messages on message.removed.
          await b
            .getByRole("article", { name: /Your prompt/ })
            .first()
            .waitFor({ state: "detached" })
          await b.locator("#log").getByText("No messages yet.").waitFor()
          await a.screenshot({
            path: NodePath.join(ARTIFACTS, "server-web-page-rewound.png"),
            fullPage: true
          })
        })
        assert.strictEqual(readFileSync(greet, "utf8"), "Hello\n")
        assert.isFalse(existsSync(notes))
        const messages = yield* Effect.promise(() =>
          fetch(`${server.url}/session/${created.id}/message`, {
            headers: { authorization: `Bearer ${server.token}` }
          }).then((response) => response.json() as Promise<Array<unknown>>)
        )
        assert.deepStrictEqual(messages, [])
        assert.deepStrictEqual(errors, [])
      }),
    60_000
  )
})
