/**
 * A `LanguageModel` that replays a script instead of calling a provider.
 *
 * A script is JSON: a list of turns, one per model call, each a list of parts the model
 * "says": `text` and `reasoning` (streamed in small deltas), `tool-call` (with its
 * params, streamed as params deltas then the call), `finish` (reason and usage) and
 * `error` (fails the call with an `effect/ai` `AiError` built from an HTTP status and
 * headers, as a provider would, so `retry-after` and friends can be exercised). Call N
 * plays turn N; a call past the last turn fails with a clear error.
 *
 * It is an ordinary `effect/ai` `LanguageModel` layer: any provider layer can replace it
 * without touching the code that uses it.
 *
 * @example
 * ```json
 * { "turns": [
 *   { "parts": [ { "type": "text", "text": "Let me look." },
 *                { "type": "tool-call", "name": "list", "params": { "path": "." } } ] },
 *   { "parts": [ { "type": "text", "text": "Done." },
 *                { "type": "finish", "reason": "stop", "usage": { "input": 900, "output": 40 } } ] }
 * ] }
 * ```
 * @since 0.0.0
 */
import * as NodeFs from "node:fs/promises"
import { fileURLToPath } from "node:url"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Checkpoint from "./Checkpoint.ts"

const Usage = Schema.Struct({
  input: Schema.optional(Schema.Number),
  output: Schema.optional(Schema.Number),
  reasoning: Schema.optional(Schema.Number),
  cacheRead: Schema.optional(Schema.Number),
  cacheWrite: Schema.optional(Schema.Number)
})

/**
 * One thing the model says in a turn.
 *
 * @since 0.0.0
 */
export const ScriptPart = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("text"),
    text: Schema.String,
    /** Characters per delta (default: one word per delta). */
    chunk: Schema.optional(Schema.Number)
  }),
  Schema.Struct({
    type: Schema.Literal("reasoning"),
    text: Schema.String,
    chunk: Schema.optional(Schema.Number)
  }),
  Schema.Struct({
    type: Schema.Literal("tool-call"),
    name: Schema.String,
    params: Schema.optional(Schema.Unknown),
    id: Schema.optional(Schema.String)
  }),
  Schema.Struct({
    type: Schema.Literal("finish"),
    reason: Schema.optional(
      Schema.Literals([
        "stop",
        "length",
        "content-filter",
        "tool-calls",
        "error",
        "pause",
        "other",
        "unknown"
      ])
    ),
    usage: Schema.optional(Usage)
  }),
  Schema.Struct({
    type: Schema.Literal("error"),
    message: Schema.String,
    status: Schema.optional(Schema.Number),
    headers: Schema.optional(Schema.Record(Schema.String, Schema.String))
  })
])
/** @since 0.0.0 */
export type ScriptPart = typeof ScriptPart.Type

/**
 * One model call's answer. `delay` (ms) is waited before each streamed part, for a
 * realistic pace in a terminal.
 *
 * @since 0.0.0
 */
export const Turn = Schema.Struct({ parts: Schema.Array(ScriptPart), delay: Schema.optional(Schema.Number) })
/** @since 0.0.0 */
export type Turn = typeof Turn.Type

/**
 * One step of the user's side of a scripted session: send a prompt, or rewind to the
 * start of a turn (see {@link Checkpoint}). The model ignores these; `gatehouse demo`
 * plays them in order (without them it sends its own single prompt).
 *
 * @since 0.0.0
 */
export const UserStep = Schema.Union([
  Schema.Struct({ prompt: Schema.String }),
  Schema.Struct({ rewind: Schema.Struct({ turn: Schema.Int, scope: Checkpoint.RewindScope }) })
])
/** @since 0.0.0 */
export type UserStep = typeof UserStep.Type

/**
 * A correction the scripted person makes when `command` is asked about without a person at
 * the terminal (`gatehouse demo --yes`): the ask is rejected with `feedback`, and the
 * script's next turn is the model acting on it.
 *
 * @since 0.0.0
 */
export const Correction = Schema.Struct({ command: Schema.String, feedback: Schema.String })
/** @since 0.0.0 */
export type Correction = typeof Correction.Type

/**
 * A whole script: the model's turns, and optionally the user's steps and corrections.
 *
 * @since 0.0.0
 */
export const Script = Schema.Struct({
  turns: Schema.Array(Turn),
  user: Schema.optional(Schema.Array(UserStep)),
  corrections: Schema.optional(Schema.Array(Correction))
})
/** @since 0.0.0 */
export type Script = typeof Script.Type

/**
 * A script file could not be read or does not have the script's shape.
 *
 * @since 0.0.0
 */
export class ScriptError extends Schema.TaggedError<ScriptError>()("ScriptError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `invalid model script ${this.path}: ${this.reason}`
  }
}

/**
 * The path of the script `gatehouse demo` plays by default: the model lists and reads
 * files, runs a command that needs approval, tries one the configuration denies, reads
 * output long enough to be truncated, repeats a call into a doom loop, and answers; then,
 * on a second prompt, edits a file, and the user rewinds that turn.
 *
 * @since 0.0.0
 */
export const demoScriptPath: string = fileURLToPath(new URL("../demo/script.json", import.meta.url))

/**
 * Decodes a script from parsed JSON.
 *
 * @since 0.0.0
 */
export const decode = (json: unknown, path = "<script>"): Effect.Effect<Script, ScriptError> =>
  Schema.decodeUnknownEffect(Script)(json).pipe(
    Effect.mapError((error) => new ScriptError({ path, reason: error.message }))
  )

/**
 * Reads and decodes a script file.
 *
 * @since 0.0.0
 */
export const load = (path: string): Effect.Effect<Script, ScriptError> =>
  Effect.tryPromise({
    try: async () => JSON.parse(await NodeFs.readFile(path, "utf8")) as unknown,
    catch: (cause) =>
      new ScriptError({ path, reason: cause instanceof Error ? cause.message : String(cause) })
  }).pipe(Effect.flatMap((json) => decode(json, path)))

const pieces = (text: string, chunk: number | undefined): Array<string> => {
  if (chunk !== undefined && chunk > 0) {
    const out: Array<string> = []
    for (let i = 0; i < text.length; i += chunk) out.push(text.slice(i, i + chunk))
    return out
  }
  return text.match(/\S+\s*|\s+/g) ?? [text]
}

const usageOf = (usage: typeof Usage.Type | undefined) => ({
  inputTokens: {
    uncached: usage?.input,
    total:
      usage === undefined ? undefined : (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0),
    cacheRead: usage?.cacheRead,
    cacheWrite: usage?.cacheWrite
  },
  outputTokens: { total: usage?.output, text: undefined, reasoning: usage?.reasoning }
})

type Encoded = Response.StreamPartEncoded

/** Expands a turn into encoded stream parts, and the error that ends it, if any. */
const expand = (turn: Turn, index: number): { parts: Array<Encoded>; error?: AiError.AiError } => {
  const parts: Array<Encoded> = []
  let calls = 0
  let finished = false
  for (const [i, part] of turn.parts.entries()) {
    switch (part.type) {
      case "text":
      case "reasoning": {
        const id = `${part.type}_${index}_${i}`
        parts.push({ type: `${part.type}-start`, id })
        for (const delta of pieces(part.text, part.chunk))
          parts.push({ type: `${part.type}-delta`, id, delta })
        parts.push({ type: `${part.type}-end`, id })
        break
      }
      case "tool-call": {
        const id = part.id ?? `call_${index}_${i}`
        const params = part.params ?? {}
        calls++
        parts.push({ type: "tool-params-start", id, name: part.name })
        parts.push({ type: "tool-params-delta", id, delta: JSON.stringify(params) })
        parts.push({ type: "tool-params-end", id })
        parts.push({ type: "tool-call", id, name: part.name, params })
        break
      }
      case "finish":
        finished = true
        parts.push({
          type: "finish",
          reason: part.reason ?? (calls > 0 ? "tool-calls" : "stop"),
          usage: usageOf(part.usage)
        })
        break
      case "error": {
        const headers = part.headers ?? {}
        const reason =
          part.status === undefined
            ? new AiError.UnknownError({ description: part.message })
            : AiError.reasonFromHttpStatus({
                status: part.status,
                description: part.message,
                http: { response: { status: part.status, headers } }
              })
        return { parts, error: AiError.make({ module: "ScriptedModel", method: "streamText", reason }) }
      }
    }
  }
  if (!finished)
    parts.push({ type: "finish", reason: calls > 0 ? "tool-calls" : "stop", usage: usageOf(undefined) })
  return { parts }
}

/**
 * A scripted model, and the prompts it was called with (for tests that check what the
 * model was sent).
 *
 * @since 0.0.0
 */
export interface Scripted {
  readonly model: LanguageModel.LanguageModel
  readonly prompts: () => ReadonlyArray<Prompt.Prompt>
}

/**
 * Makes a model that plays `script`.
 *
 * @since 0.0.0
 */
export const make = (script: Script): Effect.Effect<Scripted> =>
  Effect.gen(function* () {
    const prompts: Array<Prompt.Prompt> = []
    let next = 0
    const take = (prompt: Prompt.Prompt) => {
      prompts.push(prompt)
      const index = next++
      const turn = script.turns[index]
      if (turn === undefined) {
        return {
          parts: [] as Array<Encoded>,
          delay: undefined,
          error: AiError.make({
            module: "ScriptedModel",
            method: "streamText",
            reason: new AiError.InvalidRequestError({
              description: `the script has ${script.turns.length} turns and call ${index + 1} asked for another`
            })
          })
        }
      }
      return { ...expand(turn, index), delay: turn.delay }
    }
    const model = yield* LanguageModel.make({
      streamText: (options) =>
        Stream.suspend(() => {
          const { parts, error, delay } = take(options.prompt)
          let stream: Stream.Stream<Encoded, AiError.AiError> =
            delay !== undefined && delay > 0
              ? Stream.fromIterable(parts, { chunkSize: 1 }).pipe(Stream.tap(() => Effect.sleep(delay)))
              : Stream.fromIterable(parts)
          if (error !== undefined) stream = Stream.concat(stream, Stream.fail(error))
          return stream
        }),
      generateText: (options) =>
        Effect.suspend(() => {
          const { parts, error } = take(options.prompt)
          if (error !== undefined) return Effect.fail(error)
          const out: Array<Response.PartEncoded> = []
          for (const part of parts) {
            if (part.type === "text-delta" || part.type === "reasoning-delta") {
              const kind = part.type === "text-delta" ? "text" : "reasoning"
              const last = out[out.length - 1]
              if (last !== undefined && last.type === kind)
                out[out.length - 1] = { ...last, text: last.text + part.delta }
              else out.push({ type: kind, text: part.delta })
            } else if (part.type === "tool-call" || part.type === "finish") out.push(part)
          }
          return Effect.succeed(out)
        })
    })
    return { model, prompts: () => [...prompts] }
  })

/**
 * A `LanguageModel` layer playing `script`.
 *
 * @since 0.0.0
 */
export const layer = (script: Script): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.map(make(script), (scripted) => scripted.model)
  )

/**
 * A `LanguageModel` layer playing the script in a JSON file.
 *
 * @since 0.0.0
 */
export const layerFile = (path: string): Layer.Layer<LanguageModel.LanguageModel, ScriptError> =>
  Layer.effect(
    LanguageModel.LanguageModel,
    load(path).pipe(
      Effect.flatMap(make),
      Effect.map((scripted) => scripted.model)
    )
  )
