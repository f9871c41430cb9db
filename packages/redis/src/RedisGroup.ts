/**
 * Membership of a group of Gatehouse servers that share one Redis: the connection, this
 * server's id, its heartbeat, and the names of the keys the group keeps.
 *
 * Each server announces itself with a key `gatehouse:server:<id>` that expires after `ttl`
 * and is renewed every `interval`, so the others can tell within `ttl` that it died (its
 * pending asks are then withdrawn, see `RedisPermission`). The layer fails with
 * {@link UnavailableError} when Redis cannot be reached at start: a server asked to join a
 * group never runs alone by mistake. Once running, a lost connection is retried with backoff
 * (node-redis' reconnect strategy, as `@effect/platform-node`'s `NodeRedis` sets it up) and
 * `ready` says whether commands can go through now.
 *
 * @since 0.0.0
 */
import { randomBytes } from "node:crypto"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/**
 * The node-redis client of the group (the one `NodeRedis` wraps).
 *
 * @since 0.0.0
 */
export type Client = NodeRedis.NodeRedis["Service"]["client"]

/**
 * Redis could not be reached when the server started.
 *
 * @since 0.0.0
 */
export class UnavailableError extends Schema.TaggedError<UnavailableError>()("RedisUnavailableError", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot reach Redis at ${this.url} (${this.reason}): a server asked to join a group (--redis) does not start without it`
  }
}

/**
 * A command failed because Redis is not reachable right now (or answered with an error).
 *
 * @since 0.0.0
 */
export class CommandError extends Schema.TaggedError<CommandError>()("RedisCommandError", {
  command: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Redis ${this.command} failed: ${this.reason}`
  }
}

/**
 * Options of {@link layer}.
 *
 * @since 0.0.0
 */
export interface Options {
  /** `redis://host:port` (a `redis://` or `rediss://` URL as node-redis takes it). */
  readonly url: string
  /** Prefix of every key (default `gatehouse`): two groups on one Redis use two prefixes. */
  readonly prefix?: string | undefined
  /** How often this server renews its heartbeat (default 1 s). */
  readonly heartbeatInterval?: Duration.Input | undefined
  /** How long a heartbeat lasts: a server silent that long is dead to the group (default 3 s). */
  readonly heartbeatTtl?: Duration.Input | undefined
}

/**
 * @since 0.0.0
 */
export interface Interface {
  readonly url: string
  /** This server's id in the group (random per start). */
  readonly serverID: string
  /** The shared connection; commands on it wait while it reconnects. */
  readonly client: Client
  /** Whether the connection is up now (a caller with a local fallback checks this first). */
  readonly ready: () => boolean
  /** A connection of its own for blocking reads (XREAD BLOCK, BLPOP), closed with the scope. */
  readonly dedicated: Effect.Effect<Client, CommandError, Scope.Scope>
  /** Sends one command on the shared connection. */
  readonly send: <A = unknown>(args: ReadonlyArray<string>) => Effect.Effect<A, CommandError>
  /** Runs a Lua script (atomic in Redis) with its keys and arguments. */
  readonly script: <A = unknown>(
    source: string,
    keys: ReadonlyArray<string>,
    args: ReadonlyArray<string>
  ) => Effect.Effect<A, CommandError>
  /** The key `<prefix>:<projectID>:<name>` of a project's shared state. */
  readonly key: (projectID: string, name: string) => string
  /** The heartbeat key of a server. */
  readonly serverKey: (serverID: string) => string
  /** Whether these servers' heartbeats are current (this server's always is). */
  readonly alive: (serverIDs: Iterable<string>) => Effect.Effect<ReadonlySet<string>, CommandError>
  readonly heartbeatInterval: Duration.Duration
  readonly heartbeatTtl: Duration.Duration
  /** Tells the group where this server listens (its heartbeat carries the URL). */
  readonly announce: (url: string) => Effect.Effect<void>
  /** Where a live server of the group listens (`undefined`: dead, or not listening yet). */
  readonly addressOf: (serverID: string) => Effect.Effect<string | undefined, CommandError>
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/redis/RedisGroup") {}

const reasonOf = (cause: unknown): string => {
  if (cause instanceof AggregateError && cause.errors.length > 0) return reasonOf(cause.errors[0])
  if (cause instanceof Error) return cause.message || cause.name
  return String(cause)
}

// The reconnect strategy of a dedicated connection: back off to 2 s, never give up.
const reconnect = (retries: number) => Math.min(2 ** retries * 50, 2000) + Math.floor(Math.random() * 100)

/**
 * Joins the group at `options.url`; fails with {@link UnavailableError} when Redis is not
 * reachable. Closing the layer removes this server's heartbeat, so the others withdraw its
 * asks at their next sweep instead of waiting for it to expire.
 *
 * @since 0.0.0
 */
export const layer = (options: Options): Layer.Layer<Service, UnavailableError> =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const prefix = options.prefix ?? "gatehouse"
      const heartbeatInterval = Duration.fromInputUnsafe(options.heartbeatInterval ?? "1 second")
      const heartbeatTtl = Duration.fromInputUnsafe(options.heartbeatTtl ?? "3 seconds")
      const serverID = randomBytes(6).toString("hex")
      const redis = yield* Layer.build(
        // RESP2: replies of `send` are plain arrays (RESP3 turns some into objects).
        NodeRedis.layer({ url: options.url, RESP: 2, socket: { connectTimeout: 3000 } })
      ).pipe(
        Effect.map((context) => Context.get(context, NodeRedis.NodeRedis)),
        Effect.mapError((error) => new UnavailableError({ url: options.url, reason: reasonOf(error.cause) }))
      )
      const client = redis.client

      const send = <A = unknown>(args: ReadonlyArray<string>): Effect.Effect<A, CommandError> =>
        Effect.tryPromise({
          try: () => client.sendCommand([...args]) as Promise<A>,
          catch: (cause) => new CommandError({ command: args[0] ?? "?", reason: reasonOf(cause) })
        })

      const script = <A = unknown>(
        source: string,
        keys: ReadonlyArray<string>,
        args: ReadonlyArray<string>
      ) => send<A>(["EVAL", source, String(keys.length), ...keys, ...args])

      const serverKey = (id: string) => `${prefix}:server:${id}`
      // The heartbeat's value is this server's URL once it listens (see `announce`).
      let address = ""
      const beat = Effect.suspend(() =>
        send(["SET", serverKey(serverID), address, "PX", String(Duration.toMillis(heartbeatTtl))])
      )
      yield* beat.pipe(
        Effect.mapError((error) => new UnavailableError({ url: options.url, reason: error.reason }))
      )
      yield* Effect.addFinalizer(() =>
        client.isReady
          ? send(["DEL", serverKey(serverID)]).pipe(Effect.timeout("1 second"), Effect.ignore)
          : Effect.void
      )
      // At once when Redis is back: a restarted Redis has lost every heartbeat, and the other
      // servers withdraw the asks of a server they find without one (see RedisPermission).
      const onReady = () => void Effect.runFork(beat.pipe(Effect.ignore))
      client.on("ready", onReady)
      yield* Effect.addFinalizer(() => Effect.sync(() => client.off("ready", onReady)))
      yield* Effect.sleep(heartbeatInterval).pipe(
        Effect.andThen(client.isReady ? beat.pipe(Effect.ignore) : Effect.void),
        Effect.forever,
        Effect.forkScoped
      )

      const dedicated = Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const connection = client.duplicate({
              socket: { connectTimeout: 3000, reconnectStrategy: reconnect }
            })
            // node-redis throws an `error` event nobody listens to; the reader retries instead.
            connection.on("error", () => {})
            await connection.connect()
            return connection
          },
          catch: (cause) => new CommandError({ command: "CONNECT", reason: reasonOf(cause) })
        }),
        (connection) => Effect.sync(() => (connection.isOpen ? connection.destroy() : undefined))
      )

      const alive = (ids: Iterable<string>) =>
        Effect.gen(function* () {
          const others = [...new Set(ids)].filter((id) => id !== serverID)
          const live = new Set<string>([serverID])
          if (others.length === 0) return live
          const beats = yield* send<Array<string | null>>(["MGET", ...others.map(serverKey)])
          others.forEach((id, index) => {
            if (beats[index] !== null) live.add(id)
          })
          return live
        })

      const announce = (url: string) =>
        Effect.suspend(() => {
          address = url
          return beat.pipe(Effect.ignore)
        })

      const addressOf = (id: string) =>
        Effect.map(send<string | null>(["GET", serverKey(id)]), (value) => (value ? value : undefined))

      return Service.of({
        url: options.url,
        announce,
        addressOf,
        serverID,
        client: client as Client,
        ready: () => client.isReady,
        dedicated: dedicated as Effect.Effect<Client, CommandError, Scope.Scope>,
        send,
        script,
        key: (projectID, name) => `${prefix}:${projectID}:${name}`,
        serverKey,
        alive,
        heartbeatInterval,
        heartbeatTtl
      })
    })
  )
