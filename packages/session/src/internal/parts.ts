// How stream parts and tool results become part fields: pure helpers of the processor.

import type * as Response from "effect/ai/Response"
import * as Predicate from "effect/Predicate"
import type * as Message from "../Message.ts"

// A correction (PermissionCorrectedError) is not among them: the turn goes on with it.
const REJECTIONS = new Set(["PermissionRejectedError"])

export const isRejection = (value: unknown): boolean =>
  Predicate.isObject(value) && "_tag" in value && typeof value._tag === "string" && REJECTIONS.has(value._tag)

export const describe = (value: unknown): string => {
  if (typeof value === "string") return value
  if (Predicate.isObject(value)) {
    if ("message" in value && typeof value.message === "string" && value.message.length > 0)
      return value.message
    if ("reason" in value && typeof value.reason === "string") return value.reason
  }
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

export const asInput = (params: unknown): Record<string, unknown> =>
  Predicate.isObject(params) && !Array.isArray(params)
    ? (params as Record<string, unknown>)
    : { value: params }

/** A tool result as the model reads it: `output`, plus a title and metadata for UIs. */
export const completion = (tool: string, result: unknown, encoded: unknown) => {
  if (typeof result === "string") return { output: result, title: tool, metadata: {} }
  if (Predicate.isObject(result) && "output" in result && typeof result.output === "string") {
    const { output, title, ...rest } = result as Record<string, unknown>
    return { output: output as string, title: typeof title === "string" ? title : tool, metadata: rest }
  }
  return { output: describe(encoded ?? result), title: tool, metadata: {} }
}

export const preview = (result: unknown): Record<string, unknown> =>
  Predicate.isObject(result) && "output" in result && typeof result.output === "string"
    ? {
        output: result.output,
        ...("title" in result && typeof result.title === "string" ? { title: result.title } : {})
      }
    : { output: describe(result) }

export const toTokens = (usage: Response.Usage): Message.Tokens => {
  const read = usage.inputTokens.cacheRead ?? 0
  const write = usage.inputTokens.cacheWrite ?? 0
  const inputTotal = usage.inputTokens.total ?? 0
  const output = usage.outputTokens.total ?? 0
  return {
    total: inputTotal + output,
    input: usage.inputTokens.uncached ?? Math.max(0, inputTotal - read - write),
    output,
    reasoning: usage.outputTokens.reasoning ?? 0,
    cache: { read, write }
  }
}

export const tokenCount = (tokens: Message.Tokens) =>
  tokens.total || tokens.input + tokens.output + tokens.cache.read + tokens.cache.write
