// The demo's renderer on its own: stale asks, and model text on the terminal.
import { PassThrough } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import * as Bus from "@gatehousejs/core/Bus"
import type * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Message from "@gatehousejs/session/Message"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as AskPrompt from "../src/AskPrompt.ts"
import { type Actions, Rendered, renderer } from "../src/commands/demo.ts"

const DIR = "/tmp/gatehouse-demo-renderer-test"

const request = (id: string): Permission.Request => ({
  id,
  sessionID: "ses_demo",
  permission: "bash",
  patterns: [`echo ${id}`],
  always: ["echo *"],
  metadata: { command: `echo ${id}` }
})

const envelope = (type: string, properties: unknown): BusEvent.Envelope =>
  ({ id: 1, type, properties }) as BusEvent.Envelope

const terminal = () => {
  const output = new PassThrough()
  let shown = ""
  output.on("data", (chunk) => (shown += chunk))
  return { output, shown: () => shown }
}

describe("demo renderer", () => {
  it.effect("an ask that is no longer pending (its turn was interrupted) is neither shown nor answered", () =>
    Effect.gen(function* () {
      const permission = yield* Permission.Service
      // An ask whose fiber is interrupted leaves Permission without a permission.replied.
      const stale = yield* permission
        .ask({ ...request("per_stale"), ruleset: [] })
        .pipe(Effect.forkChild({ startImmediately: true }))
      const live = yield* permission
        .ask({ ...request("per_live"), ruleset: [] })
        .pipe(Effect.exit, Effect.forkChild({ startImmediately: true }))
      yield* Fiber.interrupt(stale)
      assert.deepStrictEqual(
        (yield* permission.list()).map((r) => r.id),
        ["per_live"]
      )

      const input = new PassThrough()
      const screen = terminal()
      const prompt = yield* AskPrompt.make({ input, output: screen.output, color: false })
      const replies: Array<Permission.ReplyInput> = []
      const actions: Actions = {
        reply: (reply) => {
          replies.push(reply)
          return permission.reply(reply).pipe(Effect.ignore)
        },
        pending: (id) => Effect.map(permission.list(), (asks) => asks.some((ask) => ask.id === id)),
        prompt
      }
      const view = renderer({ yes: false }, DIR, screen.output)
      input.write("o\n")
      // The stale ask comes first: had it been prompted, it would take the "o".
      yield* view.handle(envelope("permission.asked", request("per_stale")), actions)
      assert.notInclude(screen.shown(), "echo per_stale")
      yield* view.handle(envelope("permission.asked", request("per_live")), actions)
      assert.include(screen.shown(), "echo per_live")
      assert.deepStrictEqual(replies, [{ requestID: "per_live", reply: "once" }])
      assert.isTrue((yield* Fiber.join(live))._tag === "Success")

      // With --yes, a stale ask is not shown as "allowed once" either.
      const yes = terminal()
      const auto = renderer({ yes: true }, DIR, yes.output)
      yield* auto.handle(envelope("permission.asked", request("per_stale")), {
        ...actions,
        prompt: undefined
      })
      assert.notInclude(yes.shown(), "allowed once")
      assert.strictEqual(replies.length, 1)
    }).pipe(Effect.scoped, Instance.provide(DIR), Effect.provide(Permission.layerMemory))
  )

  it.effect("model text, tool output and errors cannot move the cursor or fake a line", () =>
    Effect.gen(function* () {
      const screen = terminal()
      const view = renderer({ yes: false }, DIR, screen.output)
      const actions: Actions = {
        reply: () => Effect.void,
        pending: () => Effect.succeed(true)
      }
      const part = { id: "prt_1", sessionID: "ses_demo", messageID: "msg_1", type: "text", text: "" }
      yield* view.handle(
        envelope("message.part.updated", {
          part,
          delta: "Sure.\n\u001b[2K\r  → allowed once (--yes)\u202e\n"
        }),
        actions
      )
      yield* view.handle(
        envelope("message.part.updated", {
          part: {
            id: "prt_2",
            sessionID: "ses_demo",
            messageID: "msg_1",
            type: "tool",
            callID: "call_1",
            tool: "bash",
            state: {
              status: "completed",
              input: { command: "printf x" },
              output: "ok\r\n\u001b]0;pwned\u0007\u009b2J done\n",
              title: "printf \u001b[8mhidden",
              metadata: {},
              time: { start: 1, end: 2 }
            }
          }
        }),
        actions
      )
      yield* view.handle(
        envelope("session.error", {
          sessionID: "ses_demo",
          error: { name: "Boom\u001b[1A", message: "x\ry" }
        }),
        actions
      )
      const shown = screen.shown()
      // Colours are off (not a TTY), so no escape character may reach the screen at all.
      assert.notMatch(shown, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/)
      assert.include(shown, "assistant: Sure.\n\\x1b[2K\\r  → allowed once (--yes)\\u202e\n")
      assert.include(shown, "printf \\x1b[8mhidden")
      assert.include(shown, "│ \\x1b]0;pwned\\x07\\x9b2J done")
      assert.include(shown, "! Boom\\x1b[1A: x\\ry")
    }).pipe(Instance.provide(DIR))
  )

  it.effect(
    "caughtUp(step) returns once the renderer has handled everything published before the step's marker",
    () =>
      Effect.gen(function* () {
        const bus = yield* Bus.Service
        const screen = terminal()
        const view = renderer({ yes: false }, DIR, screen.output)
        const actions: Actions = { reply: () => Effect.void, pending: () => Effect.succeed(true) }
        const events = yield* bus.subscribeAll()
        yield* events.pipe(
          Stream.runForEach((event) => view.handle(event, actions)),
          Effect.forkScoped
        )
        const part = {
          id: "prt_1",
          sessionID: "ses_demo",
          messageID: "msg_1",
          type: "text" as const,
          text: ""
        }
        // A burst the renderer cannot have drawn yet when the last publish returns.
        for (let i = 0; i < 3000; i++) yield* bus.publish(Message.Event.PartUpdated, { part, delta: "x" })
        yield* bus.publish(Message.Event.PartUpdated, { part, delta: " the end" })
        const waiting = yield* view.caughtUp(0).pipe(Effect.forkChild({ startImmediately: true }))
        yield* bus.publish(Rendered, { step: 0 })
        yield* Fiber.join(waiting)
        assert.isTrue(screen.shown().endsWith(`assistant: ${"x".repeat(3000)} the end`))
        // A step whose marker was never published is not caught up.
        const never = yield* view.caughtUp(1).pipe(Effect.forkChild({ startImmediately: true }))
        for (let i = 0; i < 100; i++) yield* Effect.yieldNow
        assert.isUndefined(never.pollUnsafe())
      }).pipe(Effect.scoped, Instance.provide(DIR), Effect.provide(Permission.layerMemory))
  )
})
