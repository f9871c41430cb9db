// A real browser on the real page: headless Debian Chromium driven by playwright-core.
import { mkdirSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { assert, layer } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as EventStream from "@gatehousejs/server/EventStream"
import * as Server from "@gatehousejs/server/Server"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { browser } from "./chromium.ts"
import { stack, tempProject } from "./harness.ts"

const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts/", import.meta.url))
const directory = tempProject()

// What @gatehousejs/redis publishes when an ask's server dies (the server package cannot import it).
const Withdrawn = BusEvent.define(
  "permission.withdrawn",
  Schema.Struct({
    sessionID: Schema.String,
    requestID: Schema.String,
    reason: Schema.String,
    server: Schema.String
  })
)

const script = {
  turns: [
    {
      parts: [
        { type: "text" as const, text: "I will greet you from the shell." },
        { type: "tool-call" as const, name: "bash", params: { command: "echo gatehouse-browser-check" } },
        { type: "finish" as const, reason: "tool-calls" as const, usage: { input: 100, output: 20 } }
      ]
    },
    {
      parts: [
        { type: "text" as const, text: "All done: the shell printed the greeting." },
        { type: "finish" as const, reason: "stop" as const, usage: { input: 150, output: 12 } }
      ]
    }
  ]
}

layer(stack({ directory, script, events: { replayEvents: 5 } }), { excludeTestServices: true })(
  "web page in Chromium",
  (it) => {
    it.effect(
      "send a prompt, answer the ask with Allow once, see the tool output and the final text",
      () =>
        Effect.gen(function* () {
          const server = yield* Server.Service
          const context = yield* browser
          const page = yield* Effect.promise(() => context.newPage())
          const errors: Array<string> = []
          page.on("pageerror", (error) => errors.push(error.message))
          page.on("console", (message) => {
            if (message.type() === "error") errors.push(message.text())
          })

          yield* Effect.promise(async () => {
            await page.goto(server.pageUrl)
            await page.getByRole("status").filter({ hasText: "live" }).waitFor()

            // The prompt box, by keyboard: type and send with Ctrl+Enter.
            const prompt = page.getByLabel("Prompt", { exact: true })
            await prompt.fill("Say hello from the shell, please.")
            await prompt.press("Control+Enter")

            // The ask appears; answer it from the keyboard.
            const ask = page.getByRole("article", { name: /Permission request: bash/ })
            await ask.waitFor()
            assert.include((await ask.textContent()) ?? "", "echo gatehouse-browser-check")
            mkdirSync(ARTIFACTS, { recursive: true })
            await page.screenshot({ path: NodePath.join(ARTIFACTS, "server-web-page-ask.png") })
            const allow = ask.getByRole("button", { name: "Allow once" })
            await allow.focus()
            await page.keyboard.press("Enter")
            await ask.waitFor({ state: "detached" })

            // The tool part completes with its output, then the final text streams in.
            const tool = page.locator('[data-tool-state="completed"]')
            await tool.waitFor()
            assert.include((await tool.textContent()) ?? "", "gatehouse-browser-check")
            await page.getByText("All done: the shell printed the greeting.").waitFor()
            assert.include((await page.locator("#sessions").textContent()) ?? "", "idle")

            await page.screenshot({ path: NodePath.join(ARTIFACTS, "server-web-page.png"), fullPage: true })
          })
          assert.deepStrictEqual(errors, [])
        }),
      60_000
    )

    it.effect(
      "a session created while the page is still loading its lists stays listed",
      () =>
        Effect.gen(function* () {
          const server = yield* Server.Service
          const context = yield* browser
          const page = yield* Effect.promise(() => context.newPage())
          yield* Effect.promise(async () => {
            // The page's first GET /session is answered by the server at once, but its answer
            // (without the session created next) is held back until that session was announced.
            let release: () => void = () => {}
            const held = new Promise<void>((resolve) => (release = resolve))
            await page.route("**/session", async (route) => {
              if (route.request().method() !== "GET") return route.continue()
              const response = await route.fetch()
              await held
              await route.fulfill({ response })
            })
            await page.goto(server.pageUrl)
            await page.getByRole("status").filter({ hasText: "live" }).waitFor()
            await fetch(`${server.url}/session`, {
              method: "POST",
              headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
              body: JSON.stringify({ title: "made while loading" })
            })
            await page.locator("#sessions").getByText("made while loading").waitFor()
            release()
            // The older list arrives now; the session must not vanish with it.
            await page.waitForResponse(
              (response) => response.url().endsWith("/session") && response.request().method() === "GET"
            )
            await page.waitForTimeout(200)
            assert.include((await page.locator("#sessions").textContent()) ?? "", "made while loading")
            await page.close()
          })
        }),
      60_000
    )

    it.effect(
      "reconnects with Last-Event-ID (replay), and refetches state on server.resync",
      () =>
        Effect.gen(function* () {
          const server = yield* Server.Service
          const context = yield* browser
          const page = yield* Effect.promise(() => context.newPage())
          const resumes: Array<string> = []
          let refetches = 0
          page.on("request", (request) => {
            const id = request.headers()["last-event-id"]
            if (request.url().endsWith("/event") && id !== undefined) resumes.push(id)
            if (request.method() === "GET" && new URL(request.url()).pathname === "/session") refetches++
          })
          const create = (title: string) =>
            fetch(`${server.url}/session`, {
              method: "POST",
              headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
              body: JSON.stringify({ title })
            })
          const sessions = page.locator("#sessions")
          const events = yield* EventStream.Service
          // Drops the page's stream and keeps it from reconnecting until `resume`.
          const disconnect = Effect.promise(() => page.route("**/event", (route) => route.abort())).pipe(
            Effect.andThen(events.closeAll),
            Effect.andThen(
              Effect.promise(() => page.getByRole("status").filter({ hasText: "reconnecting" }).waitFor())
            )
          )
          const resume = Effect.promise(() => page.unroute("**/event"))

          yield* Effect.promise(async () => {
            await page.goto(server.pageUrl)
            await page.getByRole("status").filter({ hasText: "live" }).waitFor()
            // An event seen live gives the page an id to resume from.
            await create("seen live")
            await sessions.getByText("seen live").waitFor()
          })
          const loaded = refetches

          // One event while disconnected: the page resumes with Last-Event-ID and gets it
          // replayed, without refetching anything.
          yield* disconnect
          yield* Effect.promise(() => create("made while offline"))
          yield* resume
          yield* Effect.promise(() => sessions.getByText("made while offline").waitFor())
          assert.isAbove(resumes.length, 0)
          // `<run>-<event id>`: the id names this server run, so a restart is detected.
          assert.match(resumes.at(-1)!, /^[0-9a-f]+-\d+$/)
          assert.strictEqual(refetches, loaded)

          // More events than the server keeps (5) while disconnected: the page is told to
          // resync and refetches every session.
          yield* disconnect
          const before = resumes.length
          yield* Effect.promise(async () => {
            for (let i = 1; i <= 8; i++) await create(`burst ${i}`)
          })
          yield* resume
          yield* Effect.promise(async () => {
            for (let i = 1; i <= 8; i++)
              await sessions.getByRole("button", { name: new RegExp(`^burst ${i}\\b`) }).waitFor()
          })
          assert.isAbove(resumes.length, before)
          assert.isAbove(refetches, loaded)
        }),
      60_000
    )

    it.effect(
      "an ask dropped by an interrupted turn (no permission.replied) leaves the page when the session goes idle",
      () =>
        Effect.gen(function* () {
          const server = yield* Server.Service
          const permission = yield* Permission.Service
          const status = yield* SessionStatus.Service
          const context = yield* browser
          const page = yield* Effect.promise(() => context.newPage())
          yield* Effect.promise(async () => {
            await page.goto(server.pageUrl)
            await page.getByRole("status").filter({ hasText: "live" }).waitFor()
          })
          const created = yield* Effect.promise(() =>
            fetch(`${server.url}/session`, {
              method: "POST",
              headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
              body: JSON.stringify({ title: "interrupted" })
            }).then((response) => response.json() as Promise<{ id: string }>)
          )
          const inProject = Instance.provide(server.directory)
          const ask = (id: string, command: string) =>
            permission
              .ask({
                id,
                sessionID: created.id,
                permission: "bash",
                patterns: [command],
                always: [],
                metadata: { command },
                ruleset: []
              })
              .pipe(inProject, Effect.exit, Effect.forkChild({ startImmediately: true }))
          yield* status.set(created.id, { type: "busy" }).pipe(inProject)
          const dropped = yield* ask("per_web_dropped", "echo dropped-ask")
          const kept = yield* ask("per_web_kept", "echo kept-ask")
          const article = (text: string) =>
            page.getByRole("article", { name: /Permission request: bash/ }).filter({ hasText: text })
          yield* Effect.promise(() => article("dropped-ask").waitFor())
          yield* Effect.promise(() => article("kept-ask").waitFor())

          // The turn is interrupted: the ask is gone from the server, with no event saying so.
          yield* Fiber.interrupt(dropped)
          yield* status.set(created.id, { type: "idle" }).pipe(inProject)
          yield* Effect.promise(() => article("dropped-ask").waitFor({ state: "detached", timeout: 10_000 }))
          // An ask still pending stays.
          assert.strictEqual(yield* Effect.promise(() => article("kept-ask").count()), 1)
          yield* permission.reply({ requestID: "per_web_kept", reply: "reject" }).pipe(inProject)
          yield* Fiber.join(kept)

          // A group's permission.withdrawn (its server died) takes the ask off the page at once.
          const withdrawnAsk = yield* ask("per_web_withdrawn", "echo withdrawn-ask")
          yield* Effect.promise(() => article("withdrawn-ask").waitFor())
          const bus = yield* Bus.Service
          yield* bus
            .publish(Withdrawn, {
              sessionID: created.id,
              requestID: "per_web_withdrawn",
              reason: "server-lost",
              server: "gone"
            })
            .pipe(inProject)
          yield* Effect.promise(() =>
            article("withdrawn-ask").waitFor({ state: "detached", timeout: 10_000 })
          )
          yield* permission.reply({ requestID: "per_web_withdrawn", reply: "reject" }).pipe(inProject)
          yield* Fiber.join(withdrawnAsk)
        }),
      60_000
    )
  }
)
