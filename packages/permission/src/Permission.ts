/**
 * Permission rules and the ask/reply protocol between a tool call and a person.
 *
 * Rules are `{ permission, pattern, action }`; both `permission` and `pattern` are
 * {@link Wildcard} globs, and the last matching rule decides (`evaluate`, from the
 * Schema-free `Ruleset` module, re-exported here with `merge` and `disabled`). A tool asks
 * through `Permission.Service`: a configured `deny` fails at once, all-`allow` returns at
 * once, anything else waits for a `reply` (or is settled by the approval mode).
 *
 * @since 0.0.0
 */

import { homedir } from "node:os"
import * as Bus from "@gatehousejs/core/Bus"
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Identifier from "@gatehousejs/core/Identifier"
import * as Instance from "@gatehousejs/core/Instance"
import * as InstanceState from "@gatehousejs/core/InstanceState"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ApprovalStore from "./ApprovalStore.ts"
import { Rule, Ruleset } from "./internal/rule.ts"
import { deniesAny, withApprovals as judge } from "./Ruleset.ts"
import * as Wildcard from "./Wildcard.ts"

// ---------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------

export { Action, Rule, Ruleset } from "./internal/rule.ts"

/**
 * The tool call an ask belongs to, for UIs that show the ask next to the call.
 *
 * @since 0.0.0
 */
export const ToolInfo = Schema.Struct({
  callID: Schema.String,
  messageID: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String)
})
/**
 * @since 0.0.0
 */
export type ToolInfo = typeof ToolInfo.Type

/**
 * A pending question to a person: may `permission` proceed for every one of `patterns`?
 * `always` holds the patterns that become `allow` rules (globs) if the answer is "always",
 * `alwaysExact` the texts that become literal `allow` rules (matched exactly). `asking` are
 * the patterns the rules left to a person (the others are allowed already). `subject` is
 * the whole text the person is shown (a command): an exact approval of it settles every
 * pattern of a later request with the same subject, a configured deny still standing.
 * `metadata` is typed per permission (see `AskMetadata`). This is the payload of
 * `permission.asked` and what `list()` returns.
 *
 * @since 0.0.0
 */
export const Request = Schema.Struct({
  id: Schema.String,
  sessionID: Schema.String,
  permission: Schema.String,
  patterns: Schema.Array(Schema.String),
  metadata: Schema.Record(Schema.String, Schema.Unknown),
  always: Schema.Array(Schema.String),
  alwaysExact: Schema.optionalKey(Schema.Array(Schema.String)),
  asking: Schema.optionalKey(Schema.Array(Schema.String)),
  subject: Schema.optionalKey(Schema.String),
  tool: Schema.optionalKey(ToolInfo)
})
/**
 * @since 0.0.0
 */
export type Request = typeof Request.Type

/**
 * The input of `ask`: a {@link Request} whose `id` may be left out, the `ruleset` to judge
 * it by, `needsPerson` (set by a caller that could not fully understand the call or
 * flags it as risky: mode `auto` then still asks a person), `unmodelled` (the caller
 * could not model the call at all and made it ask whatever the rules say: no rule can
 * approve it, so a refusal suggests none) and `exactApprovals` (the call carries risk,
 * such as an option that runs a program: a remembered glob approval, given for a call
 * without it, does not settle it, only an approval of the very text does; see
 * `Ruleset.withApprovals`).
 *
 * @since 0.0.0
 */
export const AskInput = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  sessionID: Schema.String,
  permission: Schema.String,
  patterns: Schema.Array(Schema.String),
  metadata: Schema.Record(Schema.String, Schema.Unknown),
  always: Schema.Array(Schema.String),
  alwaysExact: Schema.optionalKey(Schema.Array(Schema.String)),
  subject: Schema.optionalKey(Schema.String),
  tool: Schema.optionalKey(ToolInfo),
  ruleset: Ruleset,
  needsPerson: Schema.optionalKey(Schema.Boolean),
  unmodelled: Schema.optionalKey(Schema.Boolean),
  exactApprovals: Schema.optionalKey(Schema.Boolean)
})
/**
 * @since 0.0.0
 */
export type AskInput = typeof AskInput.Type

/**
 * A person's answer: `once` (this call only), `always` (this call, and remember an allow
 * rule for each of the request's `always` patterns and a literal one for each of its
 * `alwaysExact` texts) or `reject`.
 *
 * @since 0.0.0
 */
export const Reply = Schema.Literals(["once", "always", "reject"])
/**
 * @since 0.0.0
 */
export type Reply = typeof Reply.Type

/**
 * The input of `reply`. A `message` with a `reject` tells the model what to do instead.
 *
 * @since 0.0.0
 */
export const ReplyInput = Schema.Struct({
  requestID: Schema.String,
  reply: Reply,
  message: Schema.optionalKey(Schema.String)
})
/**
 * @since 0.0.0
 */
export type ReplyInput = typeof ReplyInput.Type

/**
 * How asks that no rule settles are handled: `ask` a person (default), `auto`-approve
 * those decided by a catch-all rule, or approve every ask (`yolo`) but `bash_unsandboxed`, which
 * always needs a person, and a `bash` call its caller could not model where a `bash` rule
 * denies (`Ruleset.deniesAny`). No mode overrides a deny.
 *
 * @since 0.0.0
 */
export const Mode = Schema.Literals(["ask", "auto", "yolo"])
/**
 * @since 0.0.0
 */
export type Mode = typeof Mode.Type

/**
 * Why a waiting ask was rejected without a "reject" from its own reply: `user` (a person
 * rejected it or another request of its session), `timeout` (`askTimeout` elapsed),
 * `headless` (no one can answer), `session-cancelled` (`rejectSession`), `disposed`
 * (its instance closed).
 *
 * @since 0.0.0
 */
export const RejectReason = Schema.Literals(["user", "timeout", "headless", "session-cancelled", "disposed"])
/**
 * @since 0.0.0
 */
export type RejectReason = typeof RejectReason.Type

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

const showRule = (rule: Rule): string => `${rule.permission} ${JSON.stringify(rule.pattern)} ${rule.action}`

const showAsk = (permission: string | undefined, pattern: string | undefined): string =>
  permission === undefined ? "this tool call" : `${permission} ${JSON.stringify(pattern ?? "*")}`

/**
 * A rule denies the call. `rule` is the deciding rule; `ruleset` lists every supplied rule
 * for the same permission, so the model can see what is allowed instead.
 *
 * @since 0.0.0
 */
export class DeniedError extends Schema.TaggedError<DeniedError>()("PermissionDeniedError", {
  permission: Schema.String,
  pattern: Schema.String,
  rule: Rule,
  ruleset: Ruleset
}) {
  override get message(): string {
    return (
      `Denied by rule ${showRule(this.rule)} (${showAsk(this.permission, this.pattern)}). ` +
      "The user's permission rules forbid this call; do not retry it."
    )
  }
}

/**
 * The ask was rejected: by a person, or because it could not be answered (see
 * {@link RejectReason}). For `headless`, `suggestion` is a rule the user could add to
 * allow such calls.
 *
 * @since 0.0.0
 */
export class RejectedError extends Schema.TaggedError<RejectedError>()("PermissionRejectedError", {
  reason: RejectReason,
  requestID: Schema.optionalKey(Schema.String),
  permission: Schema.optionalKey(Schema.String),
  pattern: Schema.optionalKey(Schema.String),
  suggestion: Schema.optionalKey(Rule),
  /** The call could not be modelled (`AskInput.unmodelled`): no rule can stand in for a person. */
  unmodelled: Schema.optionalKey(Schema.Boolean)
}) {
  override get message(): string {
    const what = showAsk(this.permission, this.pattern)
    switch (this.reason) {
      case "user":
        return `The user rejected ${what}. Do not retry it; ask the user how to proceed.`
      case "timeout":
        return `Nobody answered the permission request for ${what} in time; it did not run.`
      case "headless": {
        if (this.unmodelled === true) {
          return (
            `${what} needs a person's approval: the analysis could not model it, or it changes what later commands run, and no rule lifts that escalation. ` +
            "This run is not interactive, so nobody can give it. Run it interactively, or not at all."
          )
        }
        if (this.suggestion === undefined) {
          return (
            `${what} needs approval, but this run is not interactive, so nobody can give it. ` +
            "No rule is suggested: the narrowest one would allow far more than this call. Run it interactively."
          )
        }
        const rule = this.suggestion
        const block = JSON.stringify({ [rule.permission]: { [rule.pattern]: "allow" } })
        return (
          `${what} needs approval, but this run is not interactive, so nobody can give it. ` +
          `To allow it, add to the "permission" block of gatehouse.json: ${block}`
        )
      }
      case "session-cancelled":
        return `The session was cancelled while ${what} waited for approval; it did not run.`
    }
    return `The project instance closed while ${what} waited for approval; it did not run.`
  }
}

/**
 * The user rejected the call and said what to do instead (`feedback`).
 *
 * @since 0.0.0
 */
export class CorrectedError extends Schema.TaggedError<CorrectedError>()("PermissionCorrectedError", {
  feedback: Schema.String,
  requestID: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    return `The user rejected this tool call with this feedback: ${this.feedback}`
  }
}

/**
 * No pending request has this id (never asked, already answered, or cancelled).
 *
 * @since 0.0.0
 */
export class NotFoundError extends Schema.TaggedError<NotFoundError>()("PermissionNotFoundError", {
  requestID: Schema.String
}) {
  override get message(): string {
    return `No pending permission request ${this.requestID}: it was already answered, cancelled, or never asked.`
  }
}

/**
 * How an `ask` can fail.
 *
 * @since 0.0.0
 */
export type Error = DeniedError | RejectedError | CorrectedError

// ---------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------

// The config decoders live in the PermissionConfig module, which loads no Bus, Stream or
// service code (a one-shot `gatehouse check` reads a config); these names stay here for callers.
export {
  ConfigError,
  type ConfigOptions,
  decodeConfig,
  decodeConfigWithPaths,
  decodeRules,
  decodeRulesWithPaths,
  fromConfig
} from "./PermissionConfig.ts"

// Rule evaluation lives in the Schema-free Ruleset module; these names stay here for callers.
export { disabled, evaluate, merge } from "./Ruleset.ts"

// ---------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------

/**
 * Events of the permission service.
 *
 * - `Asked` (`permission.asked`): a request now waits for a reply; payload = the {@link Request}.
 * - `Replied` (`permission.replied`): a pending request was settled, by a reply, a cascade
 *   from another reply of its session, `rejectSession` (`reason: "session-cancelled"`) or
 *   `askTimeout` (`reason: "timeout"`). An ask whose fiber is interrupted, or whose instance
 *   closes, disappears from `list()` without this event (nobody replied).
 * - `AutoApproved` (`permission.auto_approved`): the approval mode (`auto` or `yolo`) let
 *   an ask through that would otherwise have waited for a person; nothing was pending.
 *
 * @since 0.0.0
 */
export const Event = {
  Asked: BusEvent.define("permission.asked", Request),
  Replied: BusEvent.define(
    "permission.replied",
    Schema.Struct({
      sessionID: Schema.String,
      requestID: Schema.String,
      reply: Reply,
      reason: Schema.optionalKey(RejectReason)
    })
  ),
  AutoApproved: BusEvent.define(
    "permission.auto_approved",
    Schema.Struct({ ...Request.fields, mode: Schema.Literals(["auto", "yolo"]) })
  )
}

// ---------------------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------------------

/**
 * @since 0.0.0
 */
export interface Interface {
  /** The approval mode asks are settled under (set when the layer is built). */
  readonly mode: Mode
  /**
   * Asks whether `input.permission` may proceed for every pattern (an empty list is judged
   * as `*`). Fails at once with {@link DeniedError} on a deny, succeeds at once when all are
   * allowed (by the ruleset, a remembered approval or the mode), else waits for `reply`.
   */
  readonly ask: (input: AskInput) => Effect.Effect<void, Error, Instance.Current>
  /** Settles a pending request; fails with {@link NotFoundError} when none has this id. */
  readonly reply: (input: ReplyInput) => Effect.Effect<void, NotFoundError, Instance.Current>
  /** The instance's pending requests, in ask order. */
  readonly list: () => Effect.Effect<ReadonlyArray<Request>, never, Instance.Current>
  /** Rejects every pending request of the session (reason `session-cancelled`). */
  readonly rejectSession: (sessionID: string) => Effect.Effect<void, never, Instance.Current>
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/permission/Permission") {}

/**
 * Options of {@link layerWith}.
 *
 * @since 0.0.0
 */
export interface Options {
  /** `ask` (default), `auto` or `yolo`; see {@link Mode}. */
  readonly mode?: Mode
  /** `false` when nobody can answer: an ask that would wait fails with reason `headless`. */
  readonly interactive?: boolean
  /** Rejects a pending ask with reason `timeout` once this elapses (default: wait forever). */
  readonly askTimeout?: Duration.Input
}

// Asks that mode `auto` always puts to a person.
const ALWAYS_ASK: ReadonlySet<string> = new Set(["external_directory", "doom_loop"])

// A shell command its caller could not model may run, unseen, a program a `bash` rule
// denies, and the sandbox holds the file rules, not which programs run: yolo never passes a
// deny, so a person decides (or it is refused, headless). (A file the caller could not see
// stays the sandbox's to stop.)
const hidesDeniedCommand = (input: AskInput): boolean =>
  input.unmodelled === true && input.permission === "bash" && deniesAny("bash", input.ruleset)

// Asks that no mode approves, not even `yolo`: running a command outside the sandbox.
const NEVER_AUTO: ReadonlySet<string> = new Set(["bash_unsandboxed"])

interface Pending {
  readonly info: Request
  /** The first pattern the rules left to a person: what a rejection names. */
  readonly asked: string
  readonly ruleset: Ruleset
  /** `AskInput.exactApprovals`: only exact approvals settle it (also by a later "always"). */
  readonly exactApprovals: boolean
  readonly deferred: Deferred.Deferred<void, RejectedError | CorrectedError>
}

interface State {
  readonly projectID: string
  readonly pending: Map<string, Pending>
  readonly approved: Array<Rule>
  closed: boolean
}

/** Adds the allow rules of `rules` that `approved` does not hold yet. */
const sameRule = (a: Rule, b: Rule) =>
  a.permission === b.permission && a.pattern === b.pattern && (a.literal === true) === (b.literal === true)

const learn = (approved: Array<Rule>, rules: Ruleset) => {
  for (const rule of rules) {
    if (rule.action !== "allow") continue
    if (approved.some((known) => sameRule(known, rule))) continue
    approved.push(rule)
  }
}

const patternsOf = (patterns: ReadonlyArray<string>): ReadonlyArray<string> =>
  patterns.length === 0 ? ["*"] : patterns

/**
 * Whether a rule for `pattern` would reach far beyond one call: `*`, or every path under
 * the filesystem root or the home directory (`/*`, `~/*`, `C:/*`).
 */
export const isBroadPattern = (pattern: string, home: string = homedir()): boolean => {
  const base = pattern.replaceAll("\\", "/").replace(/[/*]+$/, "")
  if (base === "" || base === "~" || base === "$HOME" || /^[A-Za-z]:$/.test(base)) return true
  return base === home.replaceAll("\\", "/").replace(/\/+$/, "")
}

/**
 * The rule a user could add to allow this ask: its specific "always" pattern if any;
 * none when that rule would allow far more than the call ({@link isBroadPattern}).
 */
const suggestion = (permission: string, pattern: string, always: ReadonlyArray<string>): Rule | undefined => {
  const candidate = always.find((c) => c !== "*" && Wildcard.match(pattern, c)) ?? pattern
  return isBroadPattern(candidate) ? undefined : { permission, pattern: candidate, action: "allow" }
}

/**
 * The permission service, with its approval mode. Needs the bus (events), the approval
 * store (remembered "always" answers, keyed by the instance's `projectID`) and the
 * instance registry (pending requests live per instance and are rejected, reason
 * `disposed`, when it closes).
 *
 * @since 0.0.0
 */
export const layerWith = (
  options: Options = {}
): Layer.Layer<Service, never, Bus.Service | ApprovalStore.Service | Instance.Registry> =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const bus = yield* Bus.Service
      const store = yield* ApprovalStore.Service
      const mode = options.mode ?? "ask"
      const interactive = options.interactive ?? true
      const askTimeout = options.askTimeout

      const states = yield* InstanceState.make((instance) =>
        Effect.gen(function* () {
          const loaded = yield* store.load(instance.projectID)
          const state: State = {
            projectID: instance.projectID,
            pending: new Map(),
            approved: loaded.filter((rule) => rule.action === "allow"),
            closed: false
          }
          // Approvals given on another server of a group apply here as they arrive.
          if (store.changes !== undefined) {
            yield* store.changes(instance.projectID).pipe(
              Stream.runForEach((rules) => Effect.sync(() => learn(state.approved, rules))),
              Effect.forkScoped
            )
          }
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              state.closed = true
              for (const entry of state.pending.values()) {
                Deferred.doneUnsafe(entry.deferred, Exit.fail(rejected("disposed", entry)))
              }
              state.pending.clear()
            })
          )
          return state
        })
      )

      const rejected = (reason: RejectReason, entry: Pick<Pending, "info" | "asked">) =>
        new RejectedError({
          reason,
          requestID: entry.info.id,
          permission: entry.info.permission,
          pattern: entry.asked
        })

      const replied = (info: Request, reply: Reply, reason?: RejectReason) =>
        bus.publish(Event.Replied, {
          sessionID: info.sessionID,
          requestID: info.id,
          reply,
          ...(reason === undefined ? {} : { reason })
        })

      // Settles an entry only if it is still the pending one under its id.
      const settle = (
        state: State,
        entry: Pending,
        exit: Exit.Exit<void, RejectedError | CorrectedError>
      ) => {
        if (state.pending.get(entry.info.id) !== entry) return false
        state.pending.delete(entry.info.id)
        Deferred.doneUnsafe(entry.deferred, exit)
        return true
      }

      const autoApproves = (input: AskInput, deciding: ReadonlyArray<Rule>): boolean => {
        if (NEVER_AUTO.has(input.permission)) return false
        if (mode === "yolo") return !hidesDeniedCommand(input)
        if (mode !== "auto" || input.needsPerson === true || ALWAYS_ASK.has(input.permission)) return false
        return deciding.every((rule) => rule.pattern === "*")
      }

      const wait = (state: State, entry: Pending) => {
        const answered = Deferred.await(entry.deferred)
        if (askTimeout === undefined) return answered
        return answered.pipe(
          Effect.timeoutOrElse({
            duration: askTimeout,
            orElse: () =>
              Effect.suspend(() =>
                settle(state, entry, Exit.fail(rejected("timeout", entry)))
                  ? replied(entry.info, "reject", "timeout")
                  : Effect.void
              ).pipe(Effect.andThen(answered))
          })
        )
      }

      // ask and reply run per tool call and carry a throughput target (see bench/), so no
      // span per call: a traced Effect.fn roughly halves ask -> reply round trips.
      const ask = Effect.fnUntraced(function* (input: AskInput) {
        const state = yield* InstanceState.get(states)
        const patterns = patternsOf(input.patterns)
        const deciding: Array<Rule> = []
        const asking: Array<string> = []
        for (const pattern of patterns) {
          const rule = judge(
            input.permission,
            pattern,
            input.ruleset,
            state.approved,
            input.subject,
            input.exactApprovals === true
          )
          if (rule.action === "deny") {
            return yield* new DeniedError({
              permission: input.permission,
              pattern,
              rule,
              ruleset: input.ruleset.filter((candidate) =>
                Wildcard.match(input.permission, candidate.permission)
              )
            })
          }
          if (rule.action === "ask") {
            deciding.push(rule)
            asking.push(pattern)
          }
        }
        const firstAsked = asking[0]
        if (firstAsked === undefined) return

        const info: Request = {
          id: input.id ?? Identifier.ascending("per"),
          sessionID: input.sessionID,
          permission: input.permission,
          patterns,
          metadata: input.metadata,
          // A call the caller could not model (or whose effect comes later, such as a write
          // of a git hook or of gatehouse.json) is approved as what the person saw, never as
          // a pattern: "always" remembers its exact texts only.
          always: input.unmodelled === true ? [] : input.always,
          ...(input.alwaysExact === undefined ? {} : { alwaysExact: input.alwaysExact }),
          asking,
          ...(input.subject === undefined ? {} : { subject: input.subject }),
          ...(input.tool === undefined ? {} : { tool: input.tool })
        }
        if (autoApproves(input, deciding)) {
          yield* bus.publish(Event.AutoApproved, { ...info, mode: mode === "yolo" ? "yolo" : "auto" })
          return
        }
        if (!interactive) {
          const suggested =
            input.unmodelled === true ? undefined : suggestion(info.permission, firstAsked, info.always)
          return yield* new RejectedError({
            reason: "headless",
            requestID: info.id,
            permission: info.permission,
            pattern: firstAsked,
            ...(input.unmodelled === true ? { unmodelled: true } : {}),
            ...(suggested === undefined ? {} : { suggestion: suggested })
          })
        }
        return yield* Effect.uninterruptibleMask((restore) =>
          Effect.suspend(() => {
            if (state.closed) return Effect.fail(rejected("disposed", { info, asked: firstAsked }))
            if (state.pending.has(info.id)) {
              return Effect.die(new globalThis.Error(`permission request ${info.id} is already pending`))
            }
            const entry: Pending = {
              info,
              asked: firstAsked,
              ruleset: input.ruleset,
              exactApprovals: input.exactApprovals === true,
              deferred: Deferred.makeUnsafe()
            }
            state.pending.set(info.id, entry)
            return restore(bus.publish(Event.Asked, info).pipe(Effect.andThen(wait(state, entry)))).pipe(
              Effect.ensuring(
                Effect.sync(() => {
                  // A newer request reusing this id must survive this one's cleanup.
                  if (state.pending.get(info.id) === entry) state.pending.delete(info.id)
                })
              )
            )
          })
        )
      })

      const reply = Effect.fnUntraced(function* (input: ReplyInput) {
        const state = yield* InstanceState.get(states)
        const target = state.pending.get(input.requestID)
        if (target === undefined) return yield* new NotFoundError({ requestID: input.requestID })
        const { info } = target
        // Decide and settle everything before the first event, so no interleaving reply
        // or cleanup sees a half-applied answer.
        const events: Array<readonly [Request, Reply]> = [[info, input.reply]]
        let learned: Array<Rule> = []
        const others = [...state.pending.values()].filter(
          (entry) => entry !== target && entry.info.sessionID === info.sessionID
        )
        if (input.reply === "reject") {
          const feedback = input.message?.trim()
          if (feedback) {
            // A correction: this call fails with the person's words and the turn goes on,
            // so the session's other asks stay for the person to answer.
            settle(state, target, Exit.fail(new CorrectedError({ feedback, requestID: info.id })))
          } else {
            settle(state, target, Exit.fail(rejected("user", target)))
            for (const entry of others) {
              if (settle(state, entry, Exit.fail(rejected("user", entry))))
                events.push([entry.info, "reject"])
            }
          }
        } else {
          settle(state, target, Exit.void)
          if (input.reply === "always") {
            learned = [
              ...info.always.map(
                (pattern): Rule => ({ permission: info.permission, pattern, action: "allow" })
              ),
              ...(info.alwaysExact ?? []).map(
                (pattern): Rule => ({ permission: info.permission, pattern, action: "allow", literal: true })
              )
            ].filter(
              (rule, index, all) =>
                all.findIndex((other) => sameRule(other, rule)) === index &&
                !state.approved.some((known) => sameRule(known, rule))
            )
            state.approved.push(...learned)
            for (const entry of others) {
              const allowed = entry.info.patterns.every(
                (pattern) =>
                  judge(
                    entry.info.permission,
                    pattern,
                    entry.ruleset,
                    state.approved,
                    entry.info.subject,
                    entry.exactApprovals
                  ).action === "allow"
              )
              if (allowed && settle(state, entry, Exit.void)) events.push([entry.info, "always"])
            }
          }
        }
        for (const [request, answer] of events) yield* replied(request, answer)
        if (learned.length > 0) {
          yield* store
            .append(state.projectID, learned)
            .pipe(
              Effect.catch((error) =>
                Effect.logError("approval kept for this run only: saving it failed", error.message)
              )
            )
        }
      }, Effect.uninterruptible)

      const list = () =>
        Effect.map(InstanceState.get(states), (state) =>
          Array.from(state.pending.values(), (entry) => entry.info)
        )

      const rejectSession = Effect.fn("Permission.rejectSession")(function* (sessionID: string) {
        const state = yield* InstanceState.get(states)
        const cancelled: Array<Request> = []
        for (const entry of [...state.pending.values()]) {
          if (entry.info.sessionID !== sessionID) continue
          if (settle(state, entry, Exit.fail(rejected("session-cancelled", entry)))) {
            cancelled.push(entry.info)
          }
        }
        for (const info of cancelled) yield* replied(info, "reject", "session-cancelled")
      }, Effect.uninterruptible)

      return Service.of({ mode, ask, reply, list, rejectSession })
    })
  )

/**
 * {@link layerWith} in mode `ask`, interactive, without a timeout.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Service, never, Bus.Service | ApprovalStore.Service | Instance.Registry> =
  layerWith()

/**
 * {@link layerWith} on its own instance registry, bus and in-memory approvals, which it
 * also provides (so a test can dispose instances and watch events). Give an effect this
 * layer and `Instance.provide(directory)` and it runs.
 *
 * @since 0.0.0
 */
export const layerMemoryWith = (
  options: Options = {}
): Layer.Layer<Service | Bus.Service | ApprovalStore.Service | Instance.Registry> =>
  layerWith(options).pipe(
    Layer.provideMerge(Layer.mergeAll(Bus.layer, ApprovalStore.layerMemory)),
    Layer.provideMerge(Instance.layer)
  )

/**
 * {@link layerMemoryWith} with the default options.
 *
 * @since 0.0.0
 */
export const layerMemory: Layer.Layer<Service | Bus.Service | ApprovalStore.Service | Instance.Registry> =
  layerMemoryWith()
