/**
 * Pending asks shared by a group of servers: the same `Permission.Service` as the
 * single-process one, which it wraps. The turn that asks waits on its own server, in that
 * server's pending map; the group sees the ask through the index that the bus's script keeps
 * beside the stream (`<prefix>:<projectID>:asks`: request id -> waiting server + request).
 *
 * - `list` is the index (asks of live servers) together with this server's own pending asks
 *   (those it raised while Redis was away included).
 * - `reply` claims the ask in one atomic step (remove it from the index, mark it settled):
 *   of concurrent replies on any servers exactly one claims it, the others get `NotFoundError`.
 *   The claimed reply is settled locally or handed to the waiting server's inbox
 *   (`<prefix>:server:<id>:inbox`, read with BLPOP), which settles its Deferred. A reject also
 *   claims and rejects the session's asks waiting on other servers. "always" is remembered by
 *   the waiting server, once, in the group's approvals (`RedisApprovalStore`).
 * - A server whose heartbeat expired (see `RedisGroup`) is dead: at every sweep each server
 *   claims the asks it left and announces `permission.withdrawn` (`reason: "server-lost"`);
 *   one server wins each. An ask whose fiber was interrupted is withdrawn by its own server
 *   (`reason: "interrupted"`).
 * - While Redis is unreachable an ask waits as before and can be answered on its own server;
 *   when Redis is back and has lost the index (a restart), the sweep puts this server's asks
 *   back.
 *
 * @since 0.0.0
 */
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as InstanceState from "@gatehousejs/core/InstanceState"
import type * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Keys from "./internal/keys.ts"
import * as RedisGroup from "./RedisGroup.ts"

/**
 * Why an ask left the group's list without a reply: its server died (`server-lost`), or the
 * turn that waited for it was interrupted (`interrupted`).
 *
 * @since 0.0.0
 */
export const WithdrawReason = Schema.Literals(["server-lost", "interrupted"])

/**
 * Events of the group's permission layer.
 *
 * @since 0.0.0
 */
export const Event = {
  /** A pending ask is gone and will not be answered; nothing waits for it any more. */
  Withdrawn: BusEvent.define(
    Keys.WITHDRAWN,
    Schema.Struct({
      sessionID: Schema.String,
      requestID: Schema.String,
      reason: WithdrawReason,
      /** The server the ask waited on. */
      server: Schema.String
    })
  )
}

/** A reply handed to the server whose turn waits for it. */
const Forwarded = Schema.Struct({
  directory: Schema.String,
  requestID: Schema.String,
  reply: Permission.Reply,
  message: Schema.optionalKey(Schema.String)
})
const decodeForwarded = Schema.decodeUnknownOption(Schema.fromJsonString(Forwarded))
const decodeRequest = Schema.decodeUnknownOption(Schema.fromJsonString(Permission.Request))

// KEYS: asks index, settled-ask prefix. ARGV: request id. The entry ("<server>\n<request>")
// when this call claimed it, 0 when it was settled already, -1 when the group never saw it.
const CLAIM = `
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if entry then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[2] .. ARGV[1], '1', 'PX', 600000)
  return entry
end
if redis.call('EXISTS', KEYS[2] .. ARGV[1]) == 1 then return 0 end
return -1
`

// KEYS: asks index, settled-ask prefix. ARGV: server, then id / request JSON pairs. Puts back
// this server's asks that a restarted Redis lost, unless they were settled meanwhile.
const RESTORE = `
for i = 2, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 and redis.call('EXISTS', KEYS[2] .. ARGV[i]) == 0 then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[1] .. '\\n' .. ARGV[i + 1])
  end
end
return 0
`

interface Indexed {
  readonly server: string
  readonly request: Permission.Request
}

const parseEntry = (entry: string): Indexed | undefined => {
  const cut = entry.indexOf("\n")
  if (cut === -1) return undefined
  const request = decodeRequest(entry.slice(cut + 1))
  return request._tag === "Some" ? { server: entry.slice(0, cut), request: request.value } : undefined
}

/**
 * Wraps the single-process service in context (which keeps the Deferreds) with the group's
 * index, claims and inbox.
 *
 * @since 0.0.0
 */
export const wrap: Layer.Layer<
  Permission.Service,
  never,
  Permission.Service | Bus.Service | RedisGroup.Service | Instance.Registry
> = Layer.effect(
  Permission.Service,
  Effect.gen(function* () {
    const local = yield* Permission.Service
    const bus = yield* Bus.Service
    const group = yield* RedisGroup.Service
    const me = group.serverID
    const asksKey = (info: Instance.Info) => group.key(info.projectID, "asks")
    const settledKey = (info: Instance.Info) => group.key(info.projectID, "settled:")

    const index = (info: Instance.Info) =>
      Effect.map(group.send<Array<string>>(["HGETALL", asksKey(info)]), (flat) => {
        const out: Array<Indexed> = []
        for (let i = 0; i + 1 < flat.length; i += 2) {
          const parsed = parseEntry(flat[i + 1]!)
          if (parsed !== undefined) out.push(parsed)
        }
        return out
      })

    const claim = (info: Instance.Info, requestID: string) =>
      Effect.map(
        group.script<string | number>(CLAIM, [asksKey(info), settledKey(info)], [requestID]),
        (answer): Indexed | "settled" | "unknown" =>
          typeof answer === "string"
            ? (parseEntry(answer) ?? "settled")
            : answer === 0
              ? "settled"
              : "unknown"
      )

    const forward = (server: string, message: typeof Forwarded.Type) =>
      group.send(["RPUSH", `${group.serverKey(server)}:inbox`, JSON.stringify(message)])

    // A command that fails fast while Redis is away, so a local fallback can answer.
    const whenReady = <A>(effect: Effect.Effect<A, RedisGroup.CommandError>) =>
      group.ready()
        ? effect.pipe(Effect.timeout("2 seconds"), Effect.option)
        : Effect.succeed(undefined).pipe(Effect.map(() => ({ _tag: "None" }) as const))

    const withdraw = (info: Instance.Info, entry: Indexed, reason: typeof WithdrawReason.Type) =>
      bus
        .publish(Event.Withdrawn, {
          sessionID: entry.request.sessionID,
          requestID: entry.request.id,
          reason,
          server: entry.server
        })
        .pipe(Effect.provideService(Instance.Current, info))

    // Per instance: sweep the index for asks of dead servers, and put back our own when a
    // restarted Redis lost them.
    const sweeps = yield* InstanceState.make((info) =>
      Effect.gen(function* () {
        // When each server of the index was first seen without a heartbeat. Its asks are
        // withdrawn only when it is still without one a heartbeat interval later: a restarted
        // Redis has lost every heartbeat, and a live server's next one is at most that far off.
        const silentSince = new Map<string, number>()
        const sweep = Effect.gen(function* () {
          if (!group.ready()) return
          const entries = yield* index(info)
          const live = yield* group.alive(entries.map((entry) => entry.server))
          const now = yield* Clock.currentTimeMillis
          for (const server of silentSince.keys()) if (live.has(server)) silentSince.delete(server)
          for (const entry of entries) {
            if (live.has(entry.server)) continue
            const since = silentSince.get(entry.server)
            if (since === undefined) silentSince.set(entry.server, now)
            if (since === undefined || now - since < Duration.toMillis(group.heartbeatInterval)) continue
            const claimed = yield* claim(info, entry.request.id)
            if (typeof claimed === "object") yield* withdraw(info, claimed, "server-lost")
          }
          const mine = yield* local.list().pipe(Effect.provideService(Instance.Current, info))
          const indexed = new Set(entries.map((entry) => entry.request.id))
          const missing = mine.filter((request) => !indexed.has(request.id))
          if (missing.length > 0) {
            yield* group.script(
              RESTORE,
              [asksKey(info), settledKey(info)],
              [me, ...missing.flatMap((request) => [request.id, JSON.stringify(request)])]
            )
          }
        })
        yield* sweep.pipe(
          Effect.ignore,
          Effect.andThen(Effect.sleep(group.heartbeatInterval)),
          Effect.forever,
          Effect.forkScoped
        )
      })
    )
    const current = Effect.flatMap(Instance.Current, (info) => Effect.as(InstanceState.get(sweeps), info))

    // Replies other servers claimed for asks waiting here.
    const receive = (inbox: RedisGroup.Client) =>
      Effect.tryPromise({
        try: () =>
          inbox.sendCommand(["BLPOP", `${group.serverKey(me)}:inbox`, "2"]) as Promise<
            [string, string] | null
          >,
        catch: (cause) => cause
      }).pipe(
        Effect.flatMap((popped) => {
          if (popped === null) return Effect.void
          const message = decodeForwarded(popped[1])
          if (message._tag === "None")
            return Effect.logWarning(`redis: unreadable reply in the inbox: ${popped[1]}`)
          const { directory, ...reply } = message.value
          return local.reply(reply).pipe(
            Effect.catchTag("PermissionNotFoundError", (error) =>
              Effect.logWarning(`redis: a reply claimed elsewhere found nothing waiting: ${error.message}`)
            ),
            Instance.provide(directory)
          )
        }),
        Effect.catch(() => Effect.sleep("200 millis"))
      )
    yield* group.dedicated.pipe(
      Effect.retry({ schedule: Keys.retrySchedule }),
      Effect.flatMap((inbox) => Effect.forever(receive(inbox))),
      Effect.forkScoped
    )

    const ask = (input: Permission.AskInput) =>
      Effect.gen(function* () {
        const info = yield* current
        const id = input.id ?? Identifier.ascending("per")
        return yield* local
          .ask({ ...input, id })
          .pipe(
            Effect.onExit((exit) =>
              Exit.hasInterrupts(exit)
                ? withdraw(
                    info,
                    { server: me, request: { ...input, id } as Permission.Request },
                    "interrupted"
                  )
                : Effect.void
            )
          )
      })

    const list = () =>
      Effect.gen(function* () {
        const info = yield* current
        const mine = yield* local.list()
        const shared = yield* whenReady(
          Effect.flatMap(index(info), (entries) =>
            Effect.map(group.alive(entries.map((entry) => entry.server)), (live) =>
              entries.filter((entry) => live.has(entry.server)).map((entry) => entry.request)
            )
          )
        )
        if (shared._tag === "None") return mine
        const byId = new Map<string, Permission.Request>()
        for (const request of [...shared.value, ...mine]) byId.set(request.id, request)
        return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      })

    const settle = (info: Instance.Info, server: string, input: Permission.ReplyInput) =>
      server === me
        ? local.reply(input)
        : forward(server, { directory: info.directory, ...input }).pipe(Effect.orDie)

    const reply = (input: Permission.ReplyInput) =>
      Effect.gen(function* () {
        const info = yield* current
        const waitingHere = (yield* local.list()).some((request) => request.id === input.requestID)
        const claimed = yield* whenReady(claim(info, input.requestID))
        if (claimed._tag === "None" || claimed.value === "unknown") {
          // Redis is away, or never heard of the ask (raised while it was): only its own
          // server can answer it.
          if (waitingHere) return yield* local.reply(input)
          return yield* new Permission.NotFoundError({ requestID: input.requestID })
        }
        if (claimed.value === "settled")
          return yield* new Permission.NotFoundError({ requestID: input.requestID })
        const { server, request } = claimed.value
        yield* settle(info, server, input)
        if (input.reply !== "reject") return
        // The waiting server rejects the session's other asks it holds; these wait elsewhere.
        const others = yield* whenReady(index(info))
        if (others._tag === "None") return
        for (const entry of others.value) {
          if (entry.request.sessionID !== request.sessionID || entry.server === server) continue
          const taken = yield* claim(info, entry.request.id).pipe(
            Effect.orElseSucceed(() => "settled" as const)
          )
          if (typeof taken === "object") {
            yield* settle(info, taken.server, { requestID: taken.request.id, reply: "reject" }).pipe(
              Effect.catchTag("PermissionNotFoundError", () => Effect.void)
            )
          }
        }
      })

    return Permission.Service.of({
      mode: local.mode,
      ask,
      reply: (input) => Effect.uninterruptible(reply(input)),
      list,
      rejectSession: local.rejectSession
    })
  })
)

/**
 * The group's permission service: `Permission.layerWith(options)` wrapped by {@link wrap}.
 *
 * @since 0.0.0
 */
export const layerWith = (
  options: Permission.Options = {}
): Layer.Layer<
  Permission.Service,
  never,
  Bus.Service | ApprovalStore.Service | RedisGroup.Service | Instance.Registry
> => wrap.pipe(Layer.provide(Permission.layerWith(options)))
