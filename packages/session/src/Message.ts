/**
 * Messages of a session and the parts they are made of, as `effect/Schema` schemas, and
 * the bus events that carry them to UIs.
 *
 * A user message holds the prompt as a `text` part. An assistant message (one per model
 * call) holds what the model produced: `text`, `reasoning`, `tool` parts (each call of a
 * tool, whose `state` goes `pending -> running -> completed | error`), and `step-start` /
 * `step-finish` bookkeeping (usage and cost of the step).
 *
 * @since 0.0.0
 */
import * as BusEvent from "@gatehousejs/core/BusEvent"
import * as Schema from "effect/Schema"

/**
 * Token counts of a model step.
 *
 * @since 0.0.0
 */
export const Tokens = Schema.Struct({
  total: Schema.optional(Schema.Number),
  input: Schema.Number,
  output: Schema.Number,
  reasoning: Schema.Number,
  cache: Schema.Struct({ read: Schema.Number, write: Schema.Number })
})
/** @since 0.0.0 */
export type Tokens = typeof Tokens.Type

/** Zero tokens. @since 0.0.0 */
export const emptyTokens: Tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }

/**
 * Why a message failed, as UIs and the model loop see it. `name` is one of
 * `MessageAbortedError` (the turn was interrupted), `APIError` (the model provider
 * failed), `DoomLoopError` (a repeated call was refused), `ContextOverflowError` or
 * `UnknownError`.
 *
 * @since 0.0.0
 */
export const MessageError = Schema.Struct({
  name: Schema.String,
  message: Schema.String,
  retryable: Schema.optional(Schema.Boolean),
  status: Schema.optional(Schema.Number)
})
/** @since 0.0.0 */
export type MessageError = typeof MessageError.Type

/**
 * A message the user sent. Its text is in its `text` part.
 *
 * @since 0.0.0
 */
export const User = Schema.Struct({
  id: Schema.String,
  sessionID: Schema.String,
  role: Schema.Literal("user"),
  time: Schema.Struct({ created: Schema.Number })
})
/** @since 0.0.0 */
export type User = typeof User.Type

/**
 * A message the model produced in one model call.
 *
 * `tokens` are the last step's (replaced per step), `cost` accumulates over the steps.
 * `summary` marks a compaction summary: the history sent to the model starts from the
 * newest one.
 *
 * @since 0.0.0
 */
export const Assistant = Schema.Struct({
  id: Schema.String,
  sessionID: Schema.String,
  role: Schema.Literal("assistant"),
  parentID: Schema.String,
  model: Schema.Struct({ provider: Schema.String, id: Schema.String }),
  tokens: Tokens,
  cost: Schema.Number,
  finish: Schema.optional(Schema.String),
  error: Schema.optional(MessageError),
  summary: Schema.optional(Schema.Boolean),
  time: Schema.Struct({ created: Schema.Number, completed: Schema.optional(Schema.Number) })
})
/** @since 0.0.0 */
export type Assistant = typeof Assistant.Type

/**
 * Any message.
 *
 * @since 0.0.0
 */
export const Info = Schema.Union([User, Assistant])
/** @since 0.0.0 */
export type Info = typeof Info.Type

const Metadata = Schema.Record(Schema.String, Schema.Unknown)

const partBase = {
  id: Schema.String,
  sessionID: Schema.String,
  messageID: Schema.String
}

/**
 * Streamed text. `time.end` is set when the text is complete.
 *
 * @since 0.0.0
 */
export const TextPart = Schema.Struct({
  ...partBase,
  type: Schema.Literal("text"),
  text: Schema.String,
  synthetic: Schema.optional(Schema.Boolean),
  time: Schema.optional(Schema.Struct({ start: Schema.Number, end: Schema.optional(Schema.Number) })),
  metadata: Schema.optional(Metadata)
})
/** @since 0.0.0 */
export type TextPart = typeof TextPart.Type

/**
 * The model's reasoning, streamed like text.
 *
 * @since 0.0.0
 */
export const ReasoningPart = Schema.Struct({
  ...partBase,
  type: Schema.Literal("reasoning"),
  text: Schema.String,
  time: Schema.Struct({ start: Schema.Number, end: Schema.optional(Schema.Number) }),
  metadata: Schema.optional(Metadata)
})
/** @since 0.0.0 */
export type ReasoningPart = typeof ReasoningPart.Type

/**
 * The model is still writing the call's input.
 *
 * @since 0.0.0
 */
export const ToolStatePending = Schema.Struct({
  status: Schema.Literal("pending"),
  input: Metadata,
  raw: Schema.String
})

/**
 * The call is executing. `metadata.output` holds the latest progress preview.
 *
 * @since 0.0.0
 */
export const ToolStateRunning = Schema.Struct({
  status: Schema.Literal("running"),
  input: Metadata,
  title: Schema.optional(Schema.String),
  metadata: Schema.optional(Metadata),
  time: Schema.Struct({ start: Schema.Number })
})

/**
 * The call finished; `output` is what the model reads.
 *
 * @since 0.0.0
 */
export const ToolStateCompleted = Schema.Struct({
  status: Schema.Literal("completed"),
  input: Metadata,
  output: Schema.String,
  title: Schema.String,
  metadata: Metadata,
  time: Schema.Struct({ start: Schema.Number, end: Schema.Number })
})

/**
 * The call failed; `error` is what the model reads. `interrupted` marks a call cut short
 * by an aborted turn.
 *
 * @since 0.0.0
 */
export const ToolStateError = Schema.Struct({
  status: Schema.Literal("error"),
  input: Metadata,
  error: Schema.String,
  metadata: Schema.optional(Metadata),
  interrupted: Schema.optional(Schema.Boolean),
  time: Schema.Struct({ start: Schema.Number, end: Schema.Number })
})

/**
 * The state of a tool call.
 *
 * @since 0.0.0
 */
export const ToolState = Schema.Union([
  ToolStatePending,
  ToolStateRunning,
  ToolStateCompleted,
  ToolStateError
])
/** @since 0.0.0 */
export type ToolState = typeof ToolState.Type

/**
 * One call of a tool.
 *
 * @since 0.0.0
 */
export const ToolPart = Schema.Struct({
  ...partBase,
  type: Schema.Literal("tool"),
  callID: Schema.String,
  tool: Schema.String,
  state: ToolState,
  metadata: Schema.optional(Metadata)
})
/** @since 0.0.0 */
export type ToolPart = typeof ToolPart.Type

/**
 * A model step began.
 *
 * @since 0.0.0
 */
export const StepStartPart = Schema.Struct({
  ...partBase,
  type: Schema.Literal("step-start")
})
/** @since 0.0.0 */
export type StepStartPart = typeof StepStartPart.Type

/**
 * A model step finished: why, its tokens and its cost.
 *
 * @since 0.0.0
 */
export const StepFinishPart = Schema.Struct({
  ...partBase,
  type: Schema.Literal("step-finish"),
  reason: Schema.String,
  tokens: Tokens,
  cost: Schema.Number
})
/** @since 0.0.0 */
export type StepFinishPart = typeof StepFinishPart.Type

/**
 * Any part.
 *
 * @since 0.0.0
 */
export const Part = Schema.Union([TextPart, ReasoningPart, ToolPart, StepStartPart, StepFinishPart])
/** @since 0.0.0 */
export type Part = typeof Part.Type

/**
 * A message with its parts, in order.
 *
 * @since 0.0.0
 */
export const WithParts = Schema.Struct({ info: Info, parts: Schema.Array(Part) })
/** @since 0.0.0 */
export type WithParts = typeof WithParts.Type

/**
 * Events about messages.
 *
 * @since 0.0.0
 */
export const Event = {
  /** A message was created or changed (its error, tokens, completion time). */
  Updated: BusEvent.define("message.updated", Schema.Struct({ info: Info })),
  /**
   * A part was created or changed (whole). Streamed text and reasoning are not resent
   * whole on every delta: each delta is a {@link Event.PartDelta}, and the whole part comes
   * again when its stream ends. `delta` is kept for producers that still send it.
   */
  PartUpdated: BusEvent.define(
    "message.part.updated",
    Schema.Struct({ part: Part, delta: Schema.optional(Schema.String) })
  ),
  /**
   * Text was appended to a streaming `text` or `reasoning` part: a UI appends `delta` to
   * the part's `text`. A long answer costs each client its length, not its length squared.
   */
  PartDelta: BusEvent.define(
    "message.part.delta",
    Schema.Struct({
      sessionID: Schema.String,
      messageID: Schema.String,
      partID: Schema.String,
      type: Schema.Literals(["text", "reasoning"]),
      delta: Schema.String
    })
  ),
  /** A message was dropped with its parts (a rewind of the conversation). */
  Removed: BusEvent.define(
    "message.removed",
    Schema.Struct({ sessionID: Schema.String, messageID: Schema.String })
  ),
  /** A part was dropped (the output of a failed model attempt before its retry). */
  PartRemoved: BusEvent.define(
    "message.part.removed",
    Schema.Struct({ sessionID: Schema.String, messageID: Schema.String, partID: Schema.String })
  )
}
