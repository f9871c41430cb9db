// The group's permission layer in one process: two members (own connections, own pending
// maps) on a real redis-server, driven through Permission.Service as a tool would.
import * as Instance from "@gatehousejs/core/Instance"
import * as Permission from "@gatehousejs/permission/Permission"
import * as RedisStack from "@gatehousejs/redis/RedisStack"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { createClient } from "redis"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { project, type Redis, startRedis, until } from "./processes.ts"

type Member = Context.Context<Permission.Service | Instance.Registry>

let redis: Redis
let scope: Scope.Closeable
let a: Member
let b: Member
let dir: string

const on = <A, E>(member: Member, effect: Effect.Effect<A, E, Permission.Service | Instance.Current>) =>
  Effect.runPromise(effect.pipe(Instance.provide(dir), Effect.provideContext(member)))

const ask = (member: Member, id: string, sessionID: string) =>
  on(
    member,
    Effect.flatMap(Permission.Service, (permission) =>
      permission.ask({
        id,
        sessionID,
        permission: "bash",
        patterns: [`echo ${id}`],
        metadata: {},
        always: [],
        ruleset: []
      })
    ).pipe(Effect.exit)
  )

const list = (member: Member) =>
  on(
    member,
    Effect.flatMap(Permission.Service, (permission) => permission.list())
  ).then((requests) => requests.map((request) => request.id))

const reply = (member: Member, requestID: string, answer: Permission.Reply) =>
  on(
    member,
    Effect.flatMap(Permission.Service, (permission) => permission.reply({ requestID, reply: answer })).pipe(
      Effect.exit
    )
  )

const failureTag = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit)
    ? (exit.cause.reasons[0] as { error?: { _tag?: string; reason?: string } }).error
    : undefined

beforeAll(async () => {
  redis = await startRedis()
  dir = project([])
  scope = Effect.runSync(Scope.make())
  const member = () =>
    Effect.runPromise(Layer.buildWithScope(RedisStack.layer({ url: redis.url }), scope)) as Promise<Member>
  a = await member()
  b = await member()
}, 30_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await redis.remove()
})

describe("RedisPermission across two members", () => {
  it("concurrent replies on both: exactly one settles the ask", async () => {
    const waiting = ask(a, "per_race", "ses_race")
    await until(
      "the ask on B",
      () => list(b),
      (ids) => ids.includes("per_race")
    )
    const exits = await Promise.all([
      reply(b, "per_race", "once"),
      reply(a, "per_race", "once"),
      reply(b, "per_race", "once")
    ])
    assert.deepStrictEqual(exits.map((exit) => Exit.isSuccess(exit)).filter(Boolean).length, 1)
    for (const exit of exits.filter(Exit.isFailure))
      assert.strictEqual(failureTag(exit)?._tag, "PermissionNotFoundError")
    assert.isTrue(Exit.isSuccess(await waiting))
  })

  it("a reject on B cascades to the session's asks waiting on A and on B", async () => {
    const onA = ask(a, "per_cascade_a", "ses_cascade")
    const onB = ask(b, "per_cascade_b", "ses_cascade")
    const other = ask(a, "per_other_session", "ses_other")
    await until(
      "three asks on B",
      () => list(b),
      (ids) => ids.length === 3
    )
    assert.isTrue(Exit.isSuccess(await reply(b, "per_cascade_a", "reject")))
    const [exitA, exitB] = await Promise.all([onA, onB])
    assert.strictEqual(failureTag(exitA)?._tag, "PermissionRejectedError")
    assert.strictEqual(failureTag(exitB)?._tag, "PermissionRejectedError")
    // Another session's ask is untouched.
    assert.deepStrictEqual(
      await until(
        "the cascade to settle",
        () => list(a),
        (ids) => ids.length === 1
      ),
      ["per_other_session"]
    )
    assert.isTrue(Exit.isSuccess(await reply(a, "per_other_session", "once")))
    assert.isTrue(Exit.isSuccess(await other))
  })

  it("after Redis restarts empty, A's waiting ask is listed on B again and B can answer it", async () => {
    const waiting = ask(a, "per_restart", "ses_restart")
    await until(
      "the ask on B",
      () => list(b),
      (ids) => ids.includes("per_restart")
    )
    await redis.kill()
    await redis.start()
    // A puts it back at its next sweep (every second).
    await until(
      "the ask on B after the restart",
      () => list(b),
      (ids) => ids.includes("per_restart"),
      20_000
    )
    assert.isTrue(Exit.isSuccess(await reply(b, "per_restart", "once")))
    assert.isTrue(Exit.isSuccess(await waiting))
  }, 40_000)

  it('an "always" announced while B\'s connection was down applies on B once it is back', async () => {
    // B follows the approvals from its first ask or list on the project.
    assert.deepStrictEqual(await list(b), [])
    const projectID = await on(
      b,
      Effect.map(Instance.Current, (info) => info.projectID)
    )
    const client = createClient({ url: redis.url })
    await client.connect()
    try {
      // The rule lands as the group's append leaves it, but its announcement is lost, as it
      // is when B's subscriber is reconnecting at that moment.
      const rule = JSON.stringify({ permission: "bash", pattern: "echo *", action: "allow" })
      await client.sAdd(`gatehouse:${projectID}:approval-set`, rule)
      await client.rPush(`gatehouse:${projectID}:approvals`, rule)
      // The drop: every subscriber connection is cut and reconnects.
      await client.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"])
      // An ask B's approvals cover ends at once; one they do not yet cover waits (and is
      // given up after a moment, which withdraws it).
      let tries = 0
      const settled = await until(
        "B to apply the rule",
        async () => {
          tries++
          const outcome = await on(
            b,
            Effect.flatMap(Permission.Service, (permission) =>
              permission.ask({
                id: `per_missed_${tries}`,
                sessionID: "ses_missed",
                permission: "bash",
                patterns: ["echo missed"],
                metadata: {},
                always: [],
                ruleset: []
              })
            ).pipe(Effect.timeout("300 millis"), Effect.exit)
          )
          return Exit.isSuccess(outcome)
        },
        (done) => done,
        10_000
      )
      assert.isTrue(settled)
    } finally {
      await client.close()
    }
  }, 30_000)

  it("a server found once without a heartbeat keeps its asks: only one still silent an interval later loses them", async () => {
    const projectID = await on(
      b,
      Effect.map(Instance.Current, (info) => info.projectID)
    )
    // Not an `echo`: the test before this one left an "always" for `echo *`.
    const waiting = on(
      a,
      Effect.flatMap(Permission.Service, (permission) =>
        permission.ask({
          id: "per_silent",
          sessionID: "ses_silent",
          permission: "bash",
          patterns: ["printf silent"],
          metadata: {},
          always: [],
          ruleset: []
        })
      ).pipe(Effect.exit)
    )
    await until(
      "the ask on B",
      () => list(b),
      (ids) => ids.includes("per_silent")
    )
    const client = createClient({ url: redis.url })
    await client.connect()
    try {
      const entry = await client.hGet(`gatehouse:${projectID}:asks`, "per_silent")
      const heartbeat = `gatehouse:server:${entry!.slice(0, entry!.indexOf("\n"))}`
      // As a restarted Redis does: A's heartbeat is gone until A's next one, up to an interval
      // away. Taken right after A renewed it, so B sweeps (every second) before A beats again.
      await until(
        "A's heartbeat renewed",
        () => client.pTTL(heartbeat),
        (ms) => ms > 2_900,
        5_000
      )
      await client.del(heartbeat)
      await new Promise((resolve) => setTimeout(resolve, 2_500))
      assert.include(await list(b), "per_silent")
      assert.isTrue(Exit.isSuccess(await reply(b, "per_silent", "once")))
      assert.isTrue(Exit.isSuccess(await waiting))
    } finally {
      await client.close()
    }
  }, 30_000)
})
