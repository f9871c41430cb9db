/**
 * Everything a server of a group stands on, over one Redis: the group's membership, bus,
 * approvals and permission service, and the instance registry they hang on. `gatehouse serve
 * --redis URL` puts this where the single-process layers would be; the rest of the server
 * (sessions, tools, the event stream) is unchanged.
 *
 * @since 0.0.0
 */
import { createHash } from "node:crypto"
import type * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import type * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as RedisApprovalStore from "./RedisApprovalStore.ts"
import * as RedisBus from "./RedisBus.ts"
import * as RedisGroup from "./RedisGroup.ts"
import * as RedisPermission from "./RedisPermission.ts"

/**
 * Options of {@link layer}.
 *
 * @since 0.0.0
 */
export interface Options extends RedisGroup.Options {
  readonly permission?: Permission.Options | undefined
  readonly bus?: RedisBus.Options | undefined
}

/**
 * The services of a group member. Fails with `RedisGroup.UnavailableError` when Redis cannot
 * be reached at start.
 *
 * @since 0.0.0
 */
export const layer = (
  options: Options
): Layer.Layer<
  Bus.Service | ApprovalStore.Service | Permission.Service | Instance.Registry | RedisGroup.Service,
  RedisGroup.UnavailableError
> =>
  RedisPermission.layerWith(options.permission).pipe(
    Layer.provideMerge(Layer.mergeAll(RedisBus.layerWith(options.bus), RedisApprovalStore.layer)),
    Layer.provideMerge(RedisGroup.layer(options)),
    Layer.provideMerge(Instance.layer)
  )

/**
 * The SSE id prefix every server of the group gives `directory`'s event stream
 * (`EventStream.Options.run`): the same on each, so a client resumes on any of them.
 *
 * @since 0.0.0
 */
export const run = (directory: string, prefix = "gatehouse"): string =>
  `g${createHash("sha256")
    .update(`${prefix}\n${Instance.info(directory).projectID}`)
    .digest("hex")
    .slice(0, 15)}`

/**
 * Where a session of `directory` is held, when another live server of the group holds it: its
 * URL (for the server's `SessionOwner`); `undefined` when this server holds it, nobody does,
 * or its server is gone.
 *
 * @since 0.0.0
 */
export const locateSession = (directory: string) =>
  Effect.map(
    RedisGroup.Service,
    (group) => (sessionID: string) =>
      Effect.gen(function* () {
        const key = group.key(Instance.info(directory).projectID, "sessions")
        const server = yield* group.send<string | null>(["HGET", key, sessionID])
        if (server === null || server === group.serverID) return undefined
        return yield* group.addressOf(server)
      }).pipe(Effect.orElseSucceed(() => undefined))
  )

/**
 * Tells the group where this server listens.
 *
 * @since 0.0.0
 */
export const announce = (url: string) => Effect.flatMap(RedisGroup.Service, (group) => group.announce(url))
