// How an ask meets a person on the web page, in real Chromium: the ask explains itself,
// its session comes into view, keys answer it, and a rejection with words steers the turn.
import { assert, layer } from "@effect/vitest"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Server from "@gatehousejs/server/Server"
import * as Effect from "effect/Effect"
import { browser } from "./chromium.ts"
import { stack, tempProject } from "./harness.ts"

const directory = tempProject()
const PIPE = "echo 'echo piped' | sh"

const call = (command: string) => ({
  parts: [
    { type: "tool-call" as const, name: "bash", params: { command } },
    { type: "finish" as const, reason: "tool-calls" as const, usage: { input: 10, output: 5 } }
  ]
})
const script = {
  turns: [
    call(PIPE),
    call("seq 1 3000"),
    call("rm -rf build"),
    {
      parts: [
        { type: "text" as const, text: "Understood: I leave build alone." },
        { type: "finish" as const, reason: "stop" as const, usage: { input: 10, output: 5 } }
      ]
    }
  ]
}
const ruleset: Permission.Ruleset = [
  { permission: "bash", pattern: "seq *", action: "allow" },
  { permission: "edit", pattern: "*", action: "allow" }
]

layer(stack({ directory, script, ruleset }), { excludeTestServices: true })("asks on the web page", (it) => {
  it.effect(
    "an arriving ask selects its session, explains itself, takes the keys; a correction steers the turn",
    () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        const context = yield* browser
        const page = yield* Effect.promise(() => context.newPage())
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
        const post = (path: string, body: unknown) =>
          fetch(`${server.url}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
            body: JSON.stringify(body)
          })
        yield* Effect.promise(async () => {
          await page.goto(server.pageUrl)
          await page.getByRole("status").filter({ hasText: "live" }).waitFor()
          // The session is made and prompted elsewhere: the page has none selected.
          const session = (await (await post("/session", { title: "elsewhere" })).json()) as { id: string }
          await page.locator("#sessions").getByText("elsewhere").waitFor()
          await page.getByText("No session selected").waitFor()
          await post(`/session/${session.id}/prompt`, { text: "install it" })

          const ask = page.getByRole("article", { name: /Permission request: bash/ })
          await ask.waitFor()
          // Its session is selected, and the call's card says it waits.
          await page.locator('#sessions button[aria-current="true"]').getByText("elsewhere").waitFor()
          await page.locator(".badge", { hasText: "waiting for approval" }).waitFor()
          const text = (await ask.textContent()) ?? ""
          assert.include(text, "bash wants to run")
          assert.include(text, PIPE)
          assert.include(text, `in ${directory}`)
          assert.include(text, "sh: could not be modelled")
          assert.include(text, "no rule lifts that")
          assert.include(text, "no rule matched, so it asks by default")
          // "Always" says exactly what it allows, next to the button; the safe answer is primary and focused.
          const remembers = (await ask.locator(".remembers").textContent()) ?? ""
          assert.strictEqual(remembers, `“Always” allows from now on: exactly “${PIPE}”`)
          assert.strictEqual(
            await ask.getByRole("button", { name: "Always" }).getAttribute("aria-describedby"),
            await ask.locator(".remembers").getAttribute("id")
          )
          const reject = ask.getByRole("button", { name: "Reject" })
          assert.include((await reject.getAttribute("class")) ?? "", "primary")
          assert.strictEqual(
            await page.evaluate("document.activeElement && document.activeElement.id"),
            await reject.getAttribute("id")
          )
          assert.match(await page.title(), /^\(1\) Permission needed/)

          // A key answers: O allows once.
          await page.keyboard.press("o")
          await ask.waitFor({ state: "detached" })
          await page.locator('[data-tool-state="completed"] pre.output', { hasText: /^piped/ }).waitFor()

          // Long output is what the model saw: the truncation line and the full output's path.
          const seq = page.locator('[data-tool-state="completed"]', { hasText: "seq 1 3000" })
          await seq.waitFor()
          const output = (await seq.locator("pre.output").textContent()) ?? ""
          assert.match(output, /truncated/i)
          // The very text the model was given, no further cut.
          const messages = (await (
            await fetch(`${server.url}/session/${session.id}/message`, {
              headers: { authorization: `Bearer ${server.token}` }
            })
          ).json()) as Array<{
            parts: Array<{ type: string; state?: { input?: { command?: string }; output?: string } }>
          }>
          const seen = messages
            .flatMap((m) => m.parts)
            .find((p) => p.type === "tool" && p.state?.input?.command === "seq 1 3000")?.state?.output
          assert.strictEqual(output, seen)
          assert.isBelow(output.split("\n").length, 3000)
          const full = (await seq.locator('[data-field="outputPath"]').textContent()) ?? ""
          assert.include(output, full)
          // Tool inputs are fields, not escaped JSON.
          assert.strictEqual(await seq.locator("dl.input dt").first().textContent(), "command")
          assert.strictEqual(await seq.locator("dl.input dd").first().textContent(), "seq 1 3000")

          // A rejection with words (Enter in the feedback box) fails the call and the turn goes on.
          const destructive = page.getByRole("article", { name: /Permission request: bash/ })
          await destructive.getByText("rm -rf build").first().waitFor()
          assert.include((await destructive.textContent()) ?? "", "destructive")
          await destructive.getByLabel("Feedback").fill("keep build, it is the release")
          await destructive.getByLabel("Feedback").press("Enter")
          await page.getByText("Understood: I leave build alone.").waitFor()
          assert.strictEqual(await page.title(), "Gatehouse")
          const failed = page.locator('[data-tool-state="error"]', { hasText: "rm -rf build" })
          assert.include((await failed.textContent()) ?? "", "keep build, it is the release")
          await page.close()
        })
        assert.deepStrictEqual(errors, [])
      }),
    90_000
  )
})
