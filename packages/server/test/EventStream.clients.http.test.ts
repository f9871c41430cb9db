import { assert, layer } from "@effect/vitest"
import * as EventStream from "@gatehousejs/server/EventStream"
import * as Server from "@gatehousejs/server/Server"
import * as Effect from "effect/Effect"
import { raw, SseClient, stack, tempProject, until } from "./harness.ts"

const TOKEN = "test-token"
const directory = tempProject()

layer(stack({ directory, token: TOKEN, events: { maxClients: 2 } }), { excludeTestServices: true })(
  "EventStream client cap",
  (it) => {
    it.effect("past maxClients GET /event is 429 with a problem body; a freed slot is taken again", () =>
      Effect.gen(function* () {
        const server = yield* Server.Service
        const events = yield* EventStream.Service
        const first = yield* Effect.promise(() => SseClient.open(server.url, TOKEN))
        const second = yield* Effect.promise(() => SseClient.open(server.url, TOKEN))
        yield* until("two clients", events.stats, (stats) => stats.clients === 2)
        const refused = yield* Effect.promise(() =>
          raw(`${server.url}/event`, { headers: { authorization: `Bearer ${TOKEN}` } })
        )
        assert.strictEqual(refused.status, 429)
        assert.strictEqual(refused.headers["content-type"], "application/problem+json")
        const body = JSON.parse(refused.body)
        assert.strictEqual(body.status, 429)
        assert.include(body.detail, "2 event stream clients")
        first.close()
        yield* until("one client", events.stats, (stats) => stats.clients === 1)
        const third = yield* Effect.promise(() => SseClient.open(server.url, TOKEN))
        const frames = yield* Effect.promise(() => third.until((parser) => parser.count >= 1))
        assert.strictEqual(frames[0]!.type, "server.connected")
        second.close()
        third.close()
      })
    )
  }
)
