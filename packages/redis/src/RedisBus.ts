/**
 * The bus of a group of servers: the same `Bus.Service` as the in-process bus, whose events
 * go through one Redis stream per instance, `<prefix>:<projectID>:events`.
 *
 * `publish` never waits: the event is serialised and queued, and one writer per instance
 * appends what is queued in one atomic script per batch, which numbers the events from a
 * counter of the group (so ids are the group's, in the stream's order) and trims the stream to
 * about `maxLength` entries (`MAXLEN ~`, the replay window). One reader per instance follows
 * the stream (XREAD BLOCK) and hands every event, whichever server wrote it, to the local
 * subscribers, so every server sees one order. A server joining the group first reads the
 * window, so its event stream can resume ids issued before it started.
 *
 * Faults: while Redis is unreachable, events wait in the queue (at most `outboxLimit`; past that
 * new ones are dropped and the ids skip as many, so subscribers see the gap) and go out when
 * it is back; a batch carries a token, so a batch retried after a lost reply is appended once.
 * A counter that Redis lost (it restarted without persistence) starts again above the clock
 * (`Date.now() × 100`), never below an id issued before: the jump tells every subscriber that
 * events were lost there (the server turns it into `server.resync`), and ids are never reused.
 *
 * The script also keeps the group's index of pending asks: `permission.asked` adds the request
 * (with the server that waits for it) to `<prefix>:<projectID>:asks`, `permission.replied` and
 * `permission.withdrawn` remove it, in the same step as the event (see `RedisPermission`);
 * `session.created` records which server holds the session (`<prefix>:<projectID>:sessions`).
 *
 * @since 0.0.0
 */
import { randomBytes } from "node:crypto"
import * as Bus from "@gatehousejs/core/Bus"
import type * as BusEvent from "@gatehousejs/core/BusEvent"
import type * as Instance from "@gatehousejs/core/Instance"
import * as InstanceState from "@gatehousejs/core/InstanceState"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import * as Keys from "./internal/keys.ts"
import * as RedisGroup from "./RedisGroup.ts"

/**
 * Options of {@link layerWith}.
 *
 * @since 0.0.0
 */
export interface Options {
  /** Entries the stream keeps, about (`MAXLEN ~`); default 10 000. */
  readonly maxLength?: number
  /** How far behind a local subscriber may fall (as `Bus.layerWith`); default `Bus.DEFAULT_CAPACITY`. */
  readonly capacity?: number
  /** Most events queued while Redis is unreachable; default 100 000. */
  readonly outboxLimit?: number
}

// Ids pass through Lua as doubles (exact below 2^53): %.0f keeps them out of exponent notation.
// KEYS: stream, counter, asks index, batch token, settled-ask prefix (a string, not a key of
// its own: standalone Redis only), session owners. ARGV: floor, maxlen, server, skipped, then
// per event: type, properties JSON, index op ("a" add ask, "r" remove ask, "s" session created
// here, "" none), request or session id.
const APPEND = `
if redis.call('SET', KEYS[4], '1', 'NX', 'PX', 600000) == false then return 0 end
local count = (#ARGV - 4) / 4
local step = count + tonumber(ARGV[4])
local last = redis.call('INCRBY', KEYS[2], step)
if last == step then
  last = math.max(tonumber(ARGV[1]), 0) + step
  redis.call('SET', KEYS[2], string.format('%.0f', last))
end
local first = last - count + 1
for i = 0, count - 1 do
  local at = 5 + i * 4
  local id = '0-' .. string.format('%.0f', first + i)
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], id, 't', ARGV[at], 'p', ARGV[at + 1])
  local op = ARGV[at + 2]
  if op == 'a' then
    if redis.call('EXISTS', KEYS[5] .. ARGV[at + 3]) == 0 then
      redis.call('HSET', KEYS[3], ARGV[at + 3], ARGV[3] .. '\\n' .. ARGV[at + 1])
    end
  elseif op == 's' then
    redis.call('HSET', KEYS[6], ARGV[at + 3], ARGV[3])
  elseif op == 'r' then
    redis.call('HDEL', KEYS[3], ARGV[at + 3])
    redis.call('SET', KEYS[5] .. ARGV[at + 3], '1', 'PX', 600000)
  end
end
return string.format('%.0f', first)
`

interface Pending {
  readonly type: string
  readonly data: string
  readonly op: "a" | "r" | "s" | ""
  readonly ref: string
}

interface State {
  readonly pubsub: PubSub.PubSub<BusEvent.Envelope>
  readonly outbox: Array<Pending>
  skipped: number
  wakeWriter: (() => void) | undefined
  lastSeen: number
}

const MAX_BATCH = 512

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "null"
  } catch {
    return "null"
  }
}

/** How an event touches the index of pending asks. */
const indexOp = (type: string, properties: unknown): Pick<Pending, "op" | "ref"> => {
  const props = properties as {
    readonly id?: unknown
    readonly requestID?: unknown
    readonly info?: { readonly id?: unknown }
  } | null
  if (type === Keys.ASKED && typeof props?.id === "string") return { op: "a", ref: props.id }
  if ((type === Keys.REPLIED || type === Keys.WITHDRAWN) && typeof props?.requestID === "string")
    return { op: "r", ref: props.requestID }
  if (type === Keys.SESSION_CREATED && typeof props?.info?.id === "string")
    return { op: "s", ref: props.info.id }
  return { op: "", ref: "" }
}

type Entry = [id: string, fields: Array<string>]
type XReadReply = Array<[key: string, entries: Array<Entry>]> | null

const envelopeOf = (entry: Entry): BusEvent.Envelope | undefined => {
  const [id, fields] = entry
  const seq = Number(id.slice(id.indexOf("-") + 1))
  let type: string | undefined
  let data: string | undefined
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "t") type = fields[i + 1]
    else if (fields[i] === "p") data = fields[i + 1]
  }
  if (type === undefined || !Number.isSafeInteger(seq)) return undefined
  let properties: unknown = null
  try {
    properties = data === undefined ? null : JSON.parse(data)
  } catch {
    properties = null
  }
  return { id: seq, type, properties }
}

const isDisposal = (envelope: BusEvent.Envelope) => envelope.type === Bus.Event.InstanceDisposed.type

/**
 * The group's bus, with explicit bounds.
 *
 * @since 0.0.0
 */
export const layerWith = (
  options: Options = {}
): Layer.Layer<Bus.Service, never, RedisGroup.Service | Instance.Registry> =>
  Layer.effect(
    Bus.Service,
    Effect.gen(function* () {
      const group = yield* RedisGroup.Service
      const maxLength = String(Math.max(1, options.maxLength ?? 10_000))
      const capacity = Math.max(1, options.capacity ?? Bus.DEFAULT_CAPACITY)
      const outboxLimit = Math.max(1, options.outboxLimit ?? 100_000)

      const states = yield* InstanceState.make((instance) =>
        Effect.gen(function* () {
          const pubsub = yield* PubSub.sliding<BusEvent.Envelope>(capacity)
          const state: State = { pubsub, outbox: [], skipped: 0, wakeWriter: undefined, lastSeen: 0 }
          const keys = [
            group.key(instance.projectID, "events"),
            group.key(instance.projectID, "seq"),
            group.key(instance.projectID, "asks"),
            "",
            group.key(instance.projectID, "settled:"),
            group.key(instance.projectID, "sessions")
          ]

          const waitForWork = Effect.callback<void>((resume) => {
            if (state.outbox.length > 0) return resume(Effect.void)
            state.wakeWriter = () => resume(Effect.void)
            return Effect.sync(() => {
              state.wakeWriter = undefined
            })
          })

          // One batch at a time, retried until Redis takes it; its token makes a retry of a
          // batch Redis did apply (the reply was lost) a no-op.
          const writeBatch = Effect.gen(function* () {
            const batch = state.outbox.slice(0, MAX_BATCH)
            const skipped = state.skipped
            const token = group.key(instance.projectID, `batch:${randomBytes(8).toString("hex")}`)
            const args = [String(Date.now() * 100), maxLength, group.serverID, String(skipped)]
            for (const event of batch) args.push(event.type, event.data, event.op, event.ref)
            const batchKeys = keys.slice()
            batchKeys[3] = token
            yield* group.script(APPEND, batchKeys, args).pipe(Effect.retry({ schedule: Keys.retrySchedule }))
            state.outbox.splice(0, batch.length)
            state.skipped -= skipped
          })
          yield* waitForWork.pipe(Effect.andThen(writeBatch), Effect.forever, Effect.forkScoped)

          // Its own connection, taken in the reader's fiber: Redis may be away right now.
          const follow = (reader: RedisGroup.Client) => {
            const read = Effect.tryPromise({
              try: () =>
                reader.sendCommand([
                  "XREAD",
                  "COUNT",
                  "1024",
                  "BLOCK",
                  "2000",
                  "STREAMS",
                  keys[0]!,
                  `0-${state.lastSeen}`
                ]) as Promise<XReadReply>,
              catch: (cause) => cause
            })
            return read.pipe(
              Effect.flatMap((reply) => {
                const entries = reply?.[0]?.[1] ?? []
                const envelopes: Array<BusEvent.Envelope> = []
                for (const entry of entries) {
                  const envelope = envelopeOf(entry)
                  if (envelope === undefined || envelope.id <= state.lastSeen) continue
                  state.lastSeen = envelope.id
                  envelopes.push(envelope)
                }
                return envelopes.length === 0 ? Effect.void : PubSub.publishAll(pubsub, envelopes)
              }),
              Effect.catch(() => Effect.sleep("200 millis"))
            )
          }
          yield* group.dedicated.pipe(
            Effect.retry({ schedule: Keys.retrySchedule }),
            Effect.flatMap((reader) => Effect.forever(follow(reader))),
            Effect.forkScoped
          )

          yield* Effect.addFinalizer(() =>
            // What is still queued gets a moment to go out, then subscribers are told.
            Effect.suspend(function waitFlushed(): Effect.Effect<void> {
              return state.outbox.length === 0 || !group.ready()
                ? Effect.void
                : Effect.sleep("10 millis").pipe(Effect.andThen(waitFlushed))
            }).pipe(
              Effect.timeout("1 second"),
              Effect.ignore,
              Effect.andThen(
                PubSub.end(pubsub, {
                  id: state.lastSeen + 1,
                  type: Bus.Event.InstanceDisposed.type,
                  properties: { directory: instance.directory }
                })
              )
            )
          )
          return state
        })
      )

      const enqueue = (state: State, type: string, properties: unknown) => {
        if (state.outbox.length >= outboxLimit) {
          // Counted, so the ids skip it and every subscriber is told of the gap.
          state.skipped++
          return
        }
        state.outbox.push({ type, data: json(properties), ...indexOp(type, properties) })
        const wake = state.wakeWriter
        if (wake !== undefined) {
          state.wakeWriter = undefined
          wake()
        }
      }

      const publish = <D extends BusEvent.Definition>(definition: D, properties: D["properties"]["Type"]) =>
        Effect.map(InstanceState.get(states), (state) => enqueue(state, definition.type, properties))

      const subscribeAll = Effect.fnUntraced(function* () {
        const state = yield* InstanceState.get(states)
        const subscription = yield* PubSub.subscribe(state.pubsub)
        return Stream.fromSubscription(subscription).pipe(Stream.takeUntil(isDisposal))
      })

      const subscribe = <D extends BusEvent.Definition>(definition: D) =>
        Effect.map(subscribeAll(), (stream) =>
          stream.pipe(
            Stream.takeWhile((envelope) => !isDisposal(envelope)),
            Stream.filter((envelope): envelope is BusEvent.EnvelopeOf<D> => envelope.type === definition.type)
          )
        )

      return Bus.Service.of({ publish, subscribe, subscribeAll })
    })
  )

/**
 * The group's bus with the default bounds.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Bus.Service, never, RedisGroup.Service | Instance.Registry> = layerWith()
