/**
 * The event stream UIs watch (`GET /event`): every bus event of the instance as a
 * Server-Sent Events frame whose `id:` is the envelope id.
 *
 * One subscription to the bus feeds every client: each event is rendered to bytes once,
 * kept in a bounded replay buffer, and appended to each client's bounded queue. A client
 * that falls too far behind (it stopped reading) has its backlog dropped and receives
 * `server.resync`, so a stalled client costs at most its queue bound. A client resuming
 * with `Last-Event-ID` gets the missed events from the replay buffer, or `server.resync`
 * when they are gone. Loss inside the bus shows as a jump in ids and also becomes
 * `server.resync`: a UI is never left with a silent gap.
 *
 * An SSE `id:` is `<run>-<event id>`: `<run>` is drawn when the layer starts (one per server
 * run), `<event id>` is the envelope's `id`. A `Last-Event-ID` from another run (the server
 * restarted) or without a run gets `server.resync` with reason `unknown-id`, never the new
 * run's events as if they followed it. Servers that share one event stream (a group over
 * Redis, whose ids are the stream's and never repeat) share one `<run>` (`Options.run`), so a
 * client resumes on any of them.
 *
 * @since 0.0.0
 */
import { randomBytes } from "node:crypto"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Instance from "@gatehousejs/core/Instance"
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"

/**
 * Why a client must refetch its state: `replay-gap` (the events after its
 * `Last-Event-ID` left the replay buffer), `unknown-id` (an id this server never issued,
 * e.g. from before a restart), `client-overflow` (it stopped reading and its backlog was
 * dropped), `bus-overflow` (the server itself fell behind the bus and lost events).
 *
 * @since 0.0.0
 */
export const ResyncReason = Schema.Literals(["replay-gap", "unknown-id", "client-overflow", "bus-overflow"])
/**
 * @since 0.0.0
 */
export type ResyncReason = typeof ResyncReason.Type

/**
 * Events the server adds to the stream. They carry no envelope id in their JSON; a
 * `server.resync` frame's SSE `id:` is the last event id the refetched state covers.
 *
 * @since 0.0.0
 */
export const Event = {
  /** First frame of every connection. */
  Connected: BusEvent.define("server.connected", Schema.Struct({})),
  /** Sent to every client at the heartbeat interval (10 s), so proxies and UIs see a live connection. */
  Heartbeat: BusEvent.define("server.heartbeat", Schema.Struct({})),
  /** Events were lost for this client: refetch state (sessions, messages, pending asks). */
  Resync: BusEvent.define("server.resync", Schema.Struct({ reason: ResyncReason })),
  /** Last frame when the instance is disposed; the stream then ends. */
  InstanceDisposed: Bus.Event.InstanceDisposed
}

/**
 * The JSON of one frame's `data:` line: a bus envelope, or a server event without `id`.
 *
 * @since 0.0.0
 */
export const Frame = Schema.Struct({
  id: Schema.optionalKey(Schema.Int),
  type: Schema.String,
  properties: Schema.Unknown
})
/**
 * @since 0.0.0
 */
export type Frame = typeof Frame.Type

/**
 * Bounds of the stream. Defaults: replay 2048 events / 4 MiB, per-client queue
 * 4096 events / 8 MiB, heartbeat 10 s.
 *
 * @since 0.0.0
 */
export interface Options {
  /** Most events kept for `Last-Event-ID` replay. */
  readonly replayEvents?: number
  /** Most bytes kept for replay. */
  readonly replayBytes?: number
  /** Most frames a client may have queued before its backlog is dropped. */
  readonly clientQueueEvents?: number
  /** Most bytes a client may have queued before its backlog is dropped. */
  readonly clientQueueBytes?: number
  /** Interval of `server.heartbeat`. */
  readonly heartbeat?: Duration.Input
  /** Most clients connected at once (default 64); `full` says when a new one must be refused. */
  readonly maxClients?: number
  /**
   * The prefix of every SSE id (default: drawn when the layer starts). Only for buses whose
   * ids are never reused under it, such as servers sharing one stream.
   */
  readonly run?: string
}

/**
 * What the stream holds right now, for tests and diagnostics.
 *
 * @since 0.0.0
 */
export interface Stats {
  readonly clients: number
  /** Bytes queued for all clients together. */
  readonly queuedBytes: number
  readonly replayEvents: number
  readonly replayBytes: number
  /** Id of the newest event seen (0 before the first). */
  readonly lastEventId: number
  /** This run's prefix of every SSE id (`<run>-<event id>`). */
  readonly run: string
}

/**
 * @since 0.0.0
 */
export interface Interface {
  /**
   * The SSE byte stream of one client: `server.connected`, then (when `lastEventId` is
   * given) the events after it or `server.resync`, then live events. The client is
   * registered when the stream is first pulled and removed when it ends or is interrupted.
   */
  readonly connect: (options?: { readonly lastEventId?: string | undefined }) => Stream.Stream<Uint8Array>
  /**
   * Ends every client's stream after what is queued for it (at shutdown, so connections
   * close cleanly; clients reconnect with `Last-Event-ID`).
   */
  readonly closeAll: Effect.Effect<void>
  readonly stats: Effect.Effect<Stats>
  /** Whether `maxClients` are connected: the server answers a new `GET /event` 429 then. */
  readonly full: Effect.Effect<boolean>
  /** The most clients connected at once. */
  readonly maxClients: number
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/server/EventStream") {}

/**
 * Response headers of an SSE stream: no caching or transformation by proxies.
 *
 * @since 0.0.0
 */
export const headers: Readonly<Record<string, string>> = {
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  "x-content-type-options": "nosniff"
}

// ---------------------------------------------------------------------------------------
// Frames
// ---------------------------------------------------------------------------------------

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value)
  } catch {
    return "null"
  }
}

const renderEnvelope = (run: string, envelope: BusEvent.Envelope): Buffer => {
  let data = json(envelope)
  // A property JSON cannot express (a bigint, a cycle) must not take the stream down.
  if (data === "null") data = json({ id: envelope.id, type: envelope.type, properties: null })
  return Buffer.from(`id: ${run}-${envelope.id}\ndata: ${data}\n\n`)
}

const renderServerEvent = (type: string, properties: object, id?: string): Buffer =>
  Buffer.from(`${id === undefined ? "" : `id: ${id}\n`}data: ${json({ type, properties })}\n\n`)

const CONNECTED = renderServerEvent(Event.Connected.type, {})
const HEARTBEAT = renderServerEvent(Event.Heartbeat.type, {})
const resyncFrame = (run: string, reason: ResyncReason, cursor: number) =>
  renderServerEvent(Event.Resync.type, { reason }, `${run}-${cursor}`)

const LAST_EVENT_ID = /^([0-9a-z]{1,32})-(\d{1,15})$/

// ---------------------------------------------------------------------------------------
// Clients and the replay buffer
// ---------------------------------------------------------------------------------------

interface Client {
  frames: Array<Buffer>
  bytes: number
  ended: boolean
  wake: (() => void) | undefined
}

interface Replay {
  ids: Array<number>
  frames: Array<Buffer>
  // Index of the oldest live entry; entries before it are dropped lazily.
  start: number
  bytes: number
}

const replayLength = (replay: Replay) => replay.ids.length - replay.start

const wake = (client: Client) => {
  const resume = client.wake
  if (resume !== undefined) {
    client.wake = undefined
    resume()
  }
}

/**
 * A client's bytes as a stream: each pull takes everything queued as one chunk, so a
 * fast producer costs one socket write per batch, not per event.
 */
const clientStream = (client: Client): Stream.Stream<Uint8Array> => {
  const take = (): Arr.NonEmptyReadonlyArray<Uint8Array> => {
    const chunk = client.frames.length === 1 ? client.frames[0]! : Buffer.concat(client.frames, client.bytes)
    client.frames = []
    client.bytes = 0
    return [chunk]
  }
  const pull: Effect.Effect<Arr.NonEmptyReadonlyArray<Uint8Array>, Cause.Done> = Effect.suspend(() => {
    if (client.frames.length > 0) return Effect.succeed(take())
    if (client.ended) return Cause.done()
    return Effect.callback<void>((resume) => {
      client.wake = () => resume(Effect.void)
      return Effect.sync(() => {
        client.wake = undefined
      })
    }).pipe(Effect.andThen(pull))
  })
  return Stream.fromPull(Effect.succeed(pull))
}

// ---------------------------------------------------------------------------------------
// Layer
// ---------------------------------------------------------------------------------------

/**
 * The event stream of the current instance, with explicit bounds.
 *
 * @since 0.0.0
 */
export const layerWith = (
  options: Options = {}
): Layer.Layer<Service, never, Bus.Service | Instance.Current> =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const instance = yield* Instance.Current
      const layerScope = yield* Effect.scope
      const replayEventsMax = Math.max(0, options.replayEvents ?? 2048)
      const replayBytesMax = Math.max(0, options.replayBytes ?? 4 * 1024 * 1024)
      const queueEventsMax = Math.max(1, options.clientQueueEvents ?? 4096)
      const queueBytesMax = Math.max(1, options.clientQueueBytes ?? 8 * 1024 * 1024)
      const heartbeat = Duration.fromInputUnsafe(options.heartbeat ?? Duration.seconds(10))
      const maxClients = Math.max(1, options.maxClients ?? 64)

      // This run's id prefix: an id from before a restart names no event of this run.
      const run = options.run ?? randomBytes(6).toString("hex")
      const clients = new Set<Client>()
      const replay: Replay = { ids: [], frames: [], start: 0, bytes: 0 }
      let lastEventId = 0
      // Whether this subscription has delivered an event yet (the first may start past 1).
      let seen = false
      // The current bus subscription. After the instance is disposed it is inactive and
      // the next client subscribes again (to the instance's new bus).
      let subscription: { readonly scope: Scope.Closeable; active: boolean } | undefined
      const subscribing = yield* Semaphore.make(1)

      const clearReplay = () => {
        replay.ids = []
        replay.frames = []
        replay.start = 0
        replay.bytes = 0
      }

      const remember = (id: number, frame: Buffer) => {
        if (replayEventsMax === 0 || frame.length > replayBytesMax) return clearReplay()
        replay.ids.push(id)
        replay.frames.push(frame)
        replay.bytes += frame.length
        while (replayLength(replay) > replayEventsMax || replay.bytes > replayBytesMax) {
          replay.bytes -= replay.frames[replay.start]!.length
          replay.start++
        }
        // Compact once the dropped prefix dominates, keeping pushes amortised O(1).
        if (replay.start > 1024 && replay.start * 2 > replay.ids.length) {
          replay.ids = replay.ids.slice(replay.start)
          replay.frames = replay.frames.slice(replay.start)
          replay.start = 0
        }
      }

      // Clients are woken only after a whole batch is queued: waking resumes the reader's
      // fiber in place, and it must never observe (or re-enter) a half-dispatched batch.
      const waking = new Set<Client>()
      const flush = () => {
        const clientsToWake = [...waking]
        waking.clear()
        for (const client of clientsToWake) wake(client)
      }

      const push = (client: Client, frame: Buffer) => {
        if (client.ended) return
        if (client.frames.length + 1 > queueEventsMax || client.bytes + frame.length > queueBytesMax) {
          // The client stopped reading: drop its backlog (this frame included) and tell it
          // to refetch everything up to the newest id.
          const resync = resyncFrame(run, "client-overflow", lastEventId)
          client.frames = [resync]
          client.bytes = resync.length
        } else {
          client.frames.push(frame)
          client.bytes += frame.length
        }
        waking.add(client)
      }

      const broadcast = (frame: Buffer) => {
        for (const client of clients) push(client, frame)
      }

      const endAll = () => {
        for (const client of clients) {
          client.ended = true
          waking.add(client)
        }
        clients.clear()
      }

      // Runs synchronously per batch: no client can register between two events of it.
      const dispatch = (batch: Arr.NonEmptyReadonlyArray<BusEvent.Envelope>) => {
        for (const envelope of batch) {
          if (seen && envelope.id !== lastEventId + 1) {
            // The bus slid past events this subscription never read: no replay can span it.
            clearReplay()
            lastEventId = envelope.id - 1
            broadcast(resyncFrame(run, "bus-overflow", lastEventId))
          }
          seen = true
          const frame = renderEnvelope(run, envelope)
          lastEventId = envelope.id
          remember(envelope.id, frame)
          broadcast(frame)
          if (envelope.type === Event.InstanceDisposed.type) {
            endAll()
            if (subscription !== undefined) subscription.active = false
            // Ids restart with the next bus of this directory.
            seen = false
            lastEventId = 0
            clearReplay()
          }
        }
        flush()
      }

      const ensureSubscribed = Semaphore.withPermits(
        subscribing,
        1
      )(
        Effect.suspend(() => {
          if (subscription?.active) return Effect.void
          const stale = subscription
          return Effect.gen(function* () {
            if (stale !== undefined) yield* Scope.close(stale.scope, Exit.void)
            const scope = yield* Scope.fork(layerScope)
            const events = yield* bus
              .subscribeAll()
              .pipe(Scope.provide(scope), Effect.provideService(Instance.Current, instance))
            yield* Stream.runForEachArray(events, (batch) => Effect.sync(() => dispatch(batch))).pipe(
              Effect.forkIn(scope)
            )
            subscription = { scope, active: true }
          })
        })
      )

      const register = (lastEventIdHeader: string | undefined): Client => {
        const client: Client = { frames: [CONNECTED], bytes: CONNECTED.length, ended: false, wake: undefined }
        if (lastEventIdHeader !== undefined) {
          const parsed = LAST_EVENT_ID.exec(lastEventIdHeader.trim())
          const after = parsed !== null && parsed[1] === run ? Number(parsed[2]) : -1
          const oldest = replayLength(replay) > 0 ? replay.ids[replay.start]! : lastEventId + 1
          if (after < 0 || after > lastEventId) {
            push(client, resyncFrame(run, "unknown-id", lastEventId))
          } else if (after + 1 < oldest) {
            push(client, resyncFrame(run, "replay-gap", lastEventId))
          } else {
            for (let i = replay.start; i < replay.ids.length; i++) {
              if (replay.ids[i]! > after) push(client, replay.frames[i]!)
            }
          }
        }
        clients.add(client)
        // Frames pushed while registering wake nobody: the reader has not pulled yet.
        waking.delete(client)
        return client
      }

      const unregister = (client: Client) =>
        Effect.sync(() => {
          client.ended = true
          client.frames = []
          client.bytes = 0
          clients.delete(client)
        })

      // The first subscription starts with the layer, so events published from now on
      // are in the replay buffer even before anyone connects.
      yield* ensureSubscribed
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          endAll()
          flush()
        })
      )
      yield* Effect.sleep(heartbeat).pipe(
        Effect.andThen(
          Effect.sync(() => {
            broadcast(HEARTBEAT)
            flush()
          })
        ),
        Effect.forever,
        Effect.forkIn(layerScope)
      )

      const connect = (connectOptions?: { readonly lastEventId?: string | undefined }) =>
        Stream.unwrap(
          Effect.acquireRelease(
            ensureSubscribed.pipe(Effect.andThen(Effect.sync(() => register(connectOptions?.lastEventId)))),
            unregister
          ).pipe(Effect.map(clientStream))
        )

      const stats = Effect.sync(
        (): Stats => ({
          clients: clients.size,
          queuedBytes: [...clients].reduce((sum, client) => sum + client.bytes, 0),
          replayEvents: replayLength(replay),
          replayBytes: replay.bytes,
          lastEventId,
          run
        })
      )

      const closeAll = Effect.sync(() => {
        endAll()
        flush()
      })

      const full = Effect.sync(() => clients.size >= maxClients)

      return Service.of({ connect, closeAll, stats, full, maxClients })
    })
  )

/**
 * The event stream with the default bounds.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Service, never, Bus.Service | Instance.Current> = layerWith()
