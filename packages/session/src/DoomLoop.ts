/**
 * Detects a model stuck repeating itself.
 *
 * The window is the turn's trail of parts (text, reasoning and tool calls; step markers
 * do not count). It is a loop when the last {@link THRESHOLD} parts are calls of the same
 * tool with the same input, or when the last 2 x {@link THRESHOLD} parts alternate between
 * two different calls (A, B, A, B, A, B). Inputs are compared as canonical JSON, so the
 * order of keys does not matter. Any text or reasoning in between breaks the streak.
 *
 * @since 0.0.0
 */
import type * as Message from "./Message.ts"

/**
 * How many identical calls make a loop.
 *
 * @since 0.0.0
 */
export const THRESHOLD = 3

/**
 * JSON with object keys sorted at every depth.
 *
 * @example
 * ```ts
 * import { DoomLoop } from "@gatehousejs/session"
 * DoomLoop.canonical({ b: 1, a: [{ d: 2, c: 3 }] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 * ```
 * @since 0.0.0
 */
export const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/**
 * A detected loop: the tool of the newest call and the shape of the loop.
 *
 * @since 0.0.0
 */
export interface Detection {
  readonly kind: "repeat" | "cycle"
  readonly tool: string
  /** The tools involved, newest call's first. */
  readonly tools: ReadonlyArray<string>
}

const key = (part: Message.ToolPart) => `${part.tool}\u0000${canonical(part.state.input)}`

const counts = (part: Message.Part): boolean =>
  part.type === "tool" || ((part.type === "text" || part.type === "reasoning") && part.text.trim().length > 0)

/**
 * Whether the newest parts of `trail` (oldest first) form a loop.
 *
 * @since 0.0.0
 */
export const detect = (trail: ReadonlyArray<Message.Part>): Detection | undefined => {
  const window: Array<Message.ToolPart> = []
  for (let i = trail.length - 1; i >= 0 && window.length < THRESHOLD * 2; i--) {
    const part = trail[i]!
    if (!counts(part)) continue
    if (part.type !== "tool" || part.state.status === "pending") break
    window.push(part)
  }
  if (window.length < THRESHOLD) return undefined
  const keys = window.map(key)
  const newest = window[0]!
  if (keys.slice(0, THRESHOLD).every((k) => k === keys[0]))
    return { kind: "repeat", tool: newest.tool, tools: [newest.tool] }
  if (window.length === THRESHOLD * 2 && keys[0] !== keys[1] && keys.every((k, i) => k === keys[i % 2]))
    return { kind: "cycle", tool: newest.tool, tools: [newest.tool, window[1]!.tool] }
  return undefined
}
