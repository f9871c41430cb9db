/**
 * "Always" approvals shared by a group of servers: the same `ApprovalStore.Service` as the
 * file store, kept in Redis (`<prefix>:<projectID>:approvals`, a list in approval order, and a
 * set that makes an append of a rule the group already holds a no-op), so no two servers race
 * on a file. An append that adds a rule announces it on the channel
 * `<prefix>:<projectID>:approvals`; `changes` follows that channel, so a rule approved on one
 * server applies on every other from its next ask.
 *
 * The rules live as long as Redis keeps them: give Redis persistence (AOF or snapshots) where
 * approvals must survive a restart of Redis itself.
 *
 * @since 0.0.0
 */
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as RedisGroup from "./RedisGroup.ts"

// KEYS: list, set, channel. ARGV: rules as JSON. Returns how many were new.
const APPEND = `
local added = 0
for i = 1, #ARGV do
  if redis.call('SADD', KEYS[2], ARGV[i]) == 1 then
    redis.call('RPUSH', KEYS[1], ARGV[i])
    added = added + 1
  end
end
if added > 0 then redis.call('PUBLISH', KEYS[3], added) end
return added
`

const decodeRule = Schema.decodeUnknownOption(Schema.fromJsonString(Permission.Rule))

const encode = (rule: Permission.Rule) =>
  JSON.stringify({ permission: rule.permission, pattern: rule.pattern, action: rule.action })

/**
 * Approvals in the group's Redis.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<ApprovalStore.Service, never, RedisGroup.Service> = Layer.effect(
  ApprovalStore.Service,
  Effect.gen(function* () {
    const group = yield* RedisGroup.Service
    const listKey = (projectID: string) => group.key(projectID, "approvals")

    const read = (projectID: string) =>
      Effect.map(group.send<Array<string>>(["LRANGE", listKey(projectID), "0", "-1"]), (items) =>
        items.flatMap((item) => {
          const rule = decodeRule(item)
          return rule._tag === "Some" ? [rule.value] : []
        })
      )

    const load = (projectID: string) =>
      read(projectID).pipe(
        Effect.catch((error) =>
          Effect.logWarning(`${error.message}; starting with no approvals`).pipe(Effect.as([]))
        )
      )

    const append = (projectID: string, rules: Permission.Ruleset) =>
      group
        .script(
          APPEND,
          [listKey(projectID), group.key(projectID, "approval-set"), listKey(projectID)],
          rules.map(encode)
        )
        .pipe(
          Effect.asVoid,
          Effect.mapError(
            (error) =>
              new ApprovalStore.WriteError({
                path: `${group.url} ${listKey(projectID)}`,
                reason: error.reason
              })
          )
        )

    // The whole list, once subscribed and after every announcement: Permission keeps the
    // rules it does not hold yet, so a repeat costs nothing.
    const changes = (projectID: string): Stream.Stream<Permission.Ruleset> =>
      Stream.callback<Permission.Ruleset>((queue) =>
        Effect.gen(function* () {
          const subscriber = yield* group.dedicated.pipe(Effect.orDie)
          const reload = Effect.flatMap(read(projectID), (rules) => Queue.offer(queue, rules)).pipe(
            Effect.ignore
          )
          const runFork = Effect.runForkWith(yield* Effect.context<never>())
          yield* Effect.tryPromise(() =>
            subscriber.subscribe(listKey(projectID), () => void runFork(reload))
          ).pipe(Effect.orDie)
          // An announcement made while the connection was down is lost (pub/sub keeps
          // nothing): each reconnect, which subscribes again before "ready", reads the list anew.
          subscriber.on("ready", () => void runFork(reload))
          yield* reload
        })
      )

    return ApprovalStore.Service.of({ load, append, changes })
  })
)
