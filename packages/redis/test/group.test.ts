// Several real `gatehouse serve` processes joined through a real redis-server.
import { writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { createClient } from "redis"
import { afterAll, afterEach, assert, beforeAll, describe, it } from "vitest"
import {
  api,
  askingTurns,
  events,
  type Frame,
  project,
  type Redis,
  type Serve,
  serve,
  serveExit,
  startRedis,
  until
} from "./processes.ts"

const ofType = (frames: ReadonlyArray<Frame>, type: string) => frames.filter((frame) => frame.type === type)
const busIds = (frames: ReadonlyArray<Frame>) =>
  frames
    .filter((frame) => frame.rawId !== undefined && frame.type !== "server.resync")
    .map((frame) => frame.rawId)

const pendingOn = async (server: Serve) =>
  (await api(server.url, "/permission")).json as Array<{ id: string; always: Array<string> }>

const prompt = async (server: Serve) => {
  const session = (await api(server.url, "/session", {})).json
  assert.strictEqual((await api(server.url, `/session/${session.id}/prompt`, { text: "go" })).status, 202)
  return session.id as string
}

describe("gatehouse serve --redis: start-up", () => {
  it("refuses to start when Redis cannot be reached, saying so", async () => {
    const dir = project([])
    const { code, output } = await serveExit(dir, ["--redis", "redis://127.0.0.1:1"])
    assert.notStrictEqual(code, 0)
    assert.match(output, /cannot reach Redis at redis:\/\/127\.0\.0\.1:1/)
    assert.notMatch(output, /Gatehouse is serving/)
  })
})

describe("gatehouse serve --redis: two servers, one group", () => {
  let redis: Redis
  let a: Serve
  let b: Serve
  let dir: string

  beforeAll(async () => {
    redis = await startRedis()
    dir = project([
      ...askingTurns("echo first"),
      ...askingTurns("printf second"),
      ...askingTurns("echo third"),
      ...askingTurns("pwd")
    ])
    ;[a, b] = await Promise.all([serve(dir, ["--redis", redis.url]), serve(dir, ["--redis", redis.url])])
  }, 60_000)

  // A failure says what each server and Redis held then: the group's state is not in the
  // assertion's message.
  afterEach(async (context) => {
    if (context.task.result?.state !== "fail") return
    const report: Array<string> = []
    for (const [name, server] of [
      ["A", a],
      ["B", b]
    ] as const) {
      report.push(
        `${name} ${server.url} pending: ${JSON.stringify(await pendingOn(server).catch(String)).slice(0, 1500)}`
      )
      // Its newest session: did the turn ask, run, or stop?
      const sessions = ((await api(server.url, "/session").catch(() => undefined))?.json ?? []) as Array<any>
      const newest = sessions.sort((x, y) => x.info.time.created - y.info.time.created).at(-1)
      if (newest !== undefined) {
        const messages = (await api(server.url, `/session/${newest.info.id}/message`)).json
        report.push(
          `${name} newest session ${JSON.stringify(newest).slice(0, 300)}: ${JSON.stringify(messages).slice(-2000)}`
        )
      }
      report.push(`${name} output:\n${server.output().slice(-3000)}`)
    }
    const client = createClient({ url: redis.url })
    try {
      await client.connect()
      for (const key of (await client.keys("*")).filter((key) => !key.includes(":batch:")).sort())
        report.push(
          `redis ${key} (${await client.type(key)})${key.endsWith(":asks") ? `: ${JSON.stringify(await client.hGetAll(key)).slice(0, 1500)}` : ""}`
        )
    } catch (error) {
      report.push(`redis: ${String(error)}`)
    } finally {
      await client.close().catch(() => {})
    }
    console.error(report.join("\n"))
  })

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await redis?.remove()
  })

  it("an ask raised on A is listed and streamed on B, answered there once, and A's turn completes", async () => {
    const onA = await events(a.url)
    const onB = await events(b.url)
    const sessionID = await prompt(a)
    const [asked] = await until(
      "the ask on B",
      () => pendingOn(b),
      (list) => list.length === 1
    )
    await until(
      "permission.asked on B's stream",
      () => ofType(onB.frames, "permission.asked"),
      (f) => f.length === 1
    )
    // Both servers reply at once: exactly one wins, the other gets 404.
    const replies = await Promise.all([
      api(b.url, `/permission/${asked!.id}/reply`, { reply: "once" }),
      api(a.url, `/permission/${asked!.id}/reply`, { reply: "once" })
    ])
    assert.deepStrictEqual(replies.map((reply) => reply.status).sort(), [204, 404])
    await until(
      "the turn on A to finish",
      async () => (await api(a.url, `/session/${sessionID}`)).json.status.type,
      (s) => s === "idle"
    )
    const messages = (await api(a.url, `/session/${sessionID}/message`)).json as Array<any>
    const tool = messages.flatMap((m) => m.parts).find((part: any) => part.type === "tool")
    assert.strictEqual(tool.state.status, "completed")
    assert.include(tool.state.output, "first")
    // One order: both streams carry the same events under the same ids.
    await until(
      "B to catch up with A",
      () => busIds(onB.frames).length,
      (n) => n === busIds(onA.frames).length && n > 0
    )
    assert.deepStrictEqual(busIds(onB.frames), busIds(onA.frames))
    assert.lengthOf(ofType(onB.frames, "permission.replied"), 1)
    assert.deepStrictEqual(await pendingOn(a), [])
    assert.deepStrictEqual(await pendingOn(b), [])

    // Resume on B with an id A issued: exactly the events after it, no resync.
    const ids = busIds(onA.frames)
    const from = ids[Math.floor(ids.length / 2)]!
    const resumed = await events(b.url, from)
    const expected = ids.slice(ids.indexOf(from) + 1)
    await until(
      "the replay on B",
      () => busIds(resumed.frames),
      (got) => got.length >= expected.length
    )
    assert.deepStrictEqual(busIds(resumed.frames).slice(0, expected.length), expected)
    assert.lengthOf(ofType(resumed.frames, "server.resync"), 0)
    await Promise.all([onA.close(), onB.close(), resumed.close()])
  }, 60_000)

  it("while Redis restarts, A's ask is answered on A, and B's stream reports the gap with server.resync", async () => {
    const onB = await events(b.url)
    const sessionID = await prompt(a)
    const [asked] = await until(
      "the ask on B",
      () => pendingOn(b),
      (list) => list.length === 1
    )
    await redis.kill()
    // Without Redis, A still lists its own ask and takes the answer.
    assert.deepStrictEqual(
      (await pendingOn(a)).map((r) => r.id),
      [asked!.id]
    )
    assert.strictEqual((await api(a.url, `/permission/${asked!.id}/reply`, { reply: "once" })).status, 204)
    await until(
      "the turn on A to finish",
      async () => (await api(a.url, `/session/${sessionID}`)).json.status.type,
      (s) => s === "idle"
    )
    await redis.start()
    // The events published meanwhile arrive after a resync (the restarted Redis lost its
    // counter, so the ids jump), none silently missing.
    const frames = await until(
      "B's stream after the restart",
      () => onB.frames,
      (f) =>
        ofType(f, "server.resync").length > 0 &&
        f.some(
          (frame) =>
            frame.type === "session.status" &&
            frame.properties.status.type === "idle" &&
            f.indexOf(frame) > f.findIndex((x) => x.type === "server.resync")
        ),
      30_000
    )
    const resync = frames.findIndex((frame) => frame.type === "server.resync")
    assert.strictEqual(frames[resync]!.properties.reason, "bus-overflow")
    assert.isTrue(
      frames
        .slice(resync)
        .some((frame) => frame.type === "permission.replied" && frame.properties.requestID === asked!.id)
    )
    await onB.close()
  }, 60_000)

  it('"always" on B is remembered once, in Redis, and applies on every server', async () => {
    const sessionID = await prompt(a)
    const [asked] = await until(
      "the ask on B",
      () => pendingOn(b),
      (list) => list.length === 1
    )
    assert.deepStrictEqual(asked!.always, ["echo *"])
    assert.strictEqual((await api(b.url, `/permission/${asked!.id}/reply`, { reply: "always" })).status, 204)
    await until(
      "the turn on A to finish",
      async () => (await api(a.url, `/session/${sessionID}`)).json.status.type,
      (s) => s === "idle"
    )
    const client = createClient({ url: redis.url })
    await client.connect()
    const keys = await client.keys("gatehouse:*:approvals")
    assert.lengthOf(keys, 1)
    assert.deepStrictEqual(
      (await client.lRange(keys[0]!, 0, -1)).map((rule) => JSON.parse(rule)),
      [{ permission: "bash", pattern: "echo *", action: "allow" }]
    )
    await client.close()
    // B's own turn runs `echo first` without asking anyone.
    const onB = await prompt(b)
    const toolOf = async () =>
      ((await api(b.url, `/session/${onB}/message`)).json as Array<any>)
        .flatMap((m) => m.parts)
        .find((part: any) => part.type === "tool")
    const tool = await until(
      "B's bash call to complete",
      toolOf,
      (part) => part?.state.status === "completed"
    )
    assert.include(tool.state.output, "first")
    assert.deepStrictEqual(await pendingOn(b), [])
  }, 60_000)

  it("a server that does not hold a session answers 404 naming the server that does", async () => {
    // This one joins through "redis" in a config file rather than --redis.
    const config = NodePath.join(dir, ".data-elsewhere.json")
    writeFileSync(config, JSON.stringify({ redis: redis.url }))
    const elsewhere = await serve(dir, ["--config", config], NodePath.join(dir, ".data-elsewhere"))
    try {
      const session = (await api(a.url, "/session", {})).json
      const answer = await until(
        "the owner in C's 404",
        () => api(elsewhere.url, `/session/${session.id}`),
        (response) => response.json?.owner !== undefined
      )
      assert.strictEqual(answer.status, 404)
      assert.strictEqual(answer.json.owner, a.url)
      // So does B (its store does not read what A writes), and A answers itself.
      const fromB = await api(b.url, `/session/${session.id}`)
      assert.deepStrictEqual([fromB.status, fromB.json.owner], [404, a.url])
      assert.strictEqual((await api(a.url, `/session/${session.id}`)).status, 200)
    } finally {
      await elsewhere.stop()
    }
  }, 60_000)

  it("when A dies mid-ask, its ask leaves B's list and B's stream says it was withdrawn", async () => {
    const onB = await events(b.url)
    await prompt(a)
    const [asked] = await until(
      "the ask on B",
      () => pendingOn(b),
      (list) => list.length === 1
    )
    await a.stop("SIGKILL")
    await until(
      "the ask to leave B's list",
      () => pendingOn(b),
      (list) => list.length === 0,
      10_000
    )
    const withdrawn = await until(
      "permission.withdrawn on B",
      () => ofType(onB.frames, "permission.withdrawn"),
      (f) => f.length === 1
    )
    assert.deepStrictEqual(
      { requestID: withdrawn[0]!.properties.requestID, reason: withdrawn[0]!.properties.reason },
      { requestID: asked!.id, reason: "server-lost" }
    )
    assert.strictEqual((await api(b.url, `/permission/${asked!.id}/reply`, { reply: "once" })).status, 404)
    await onB.close()
  }, 60_000)
})
