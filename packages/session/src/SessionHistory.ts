/**
 * What the model is sent: a session's stored messages as an `effect/ai` prompt.
 *
 * User text becomes user messages; an assistant message becomes its text, reasoning and
 * tool calls, followed by a tool message holding each call's result (the output of a
 * completed call, the error of a failed one, which is how a model learns that a rule
 * denied its command). History starts at the newest compaction summary: older messages
 * are replaced by the summary's text.
 *
 * @since 0.0.0
 */
import type * as Prompt from "effect/ai/Prompt"
import type * as Message from "./Message.ts"

/**
 * The prompt that tells the model to summarise, used for compaction.
 *
 * @since 0.0.0
 */
export const SUMMARY_REQUEST =
  "Summarize the conversation so far for a continuation: the user's request, what was done " +
  "(files read, commands run and their results), what is left to do, and any constraints the user set. " +
  "Be concise and factual; do not call tools."

const summaryIndex = (messages: ReadonlyArray<Message.WithParts>): number => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = messages[i]!.info
    if (
      info.role === "assistant" &&
      info.summary === true &&
      info.error === undefined &&
      info.time.completed !== undefined
    )
      return i
  }
  return -1
}

const textOf = (message: Message.WithParts) =>
  message.parts
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("")
    .trim()

/**
 * The prompt for `messages` (oldest first), starting at the newest summary.
 *
 * @since 0.0.0
 */
export const toPrompt = (
  messages: ReadonlyArray<Message.WithParts>,
  options: { readonly system?: string | undefined } = {}
): Array<Prompt.MessageEncoded> => {
  const out: Array<Prompt.MessageEncoded> = []
  if (options.system !== undefined) out.push({ role: "system", content: options.system })
  const start = summaryIndex(messages)
  if (start >= 0) {
    out.push({ role: "user", content: `Summary of the conversation so far:\n\n${textOf(messages[start]!)}` })
  }
  for (const message of messages.slice(start + 1)) {
    if (message.info.role === "user") {
      const text = textOf(message)
      if (text.length > 0) out.push({ role: "user", content: [{ type: "text", text }] })
      continue
    }
    const content: Array<Prompt.AssistantMessagePartEncoded> = []
    const results: Array<Prompt.ToolResultPartEncoded> = []
    for (const part of message.parts) {
      if (part.type === "text" && part.text.length > 0) content.push({ type: "text", text: part.text })
      else if (part.type === "reasoning" && part.text.length > 0)
        content.push({ type: "reasoning", text: part.text })
      else if (part.type === "tool" && (part.state.status === "completed" || part.state.status === "error")) {
        content.push({ type: "tool-call", id: part.callID, name: part.tool, params: part.state.input })
        results.push({
          type: "tool-result",
          id: part.callID,
          name: part.tool,
          isFailure: part.state.status === "error",
          result: part.state.status === "completed" ? part.state.output : part.state.error
        })
      }
    }
    if (content.length > 0) out.push({ role: "assistant", content })
    if (results.length > 0) out.push({ role: "tool", content: results })
  }
  return out
}

/**
 * The parts of the turn that started with user message `userID`, oldest first (for
 * doom-loop detection across the turn's model calls).
 *
 * @since 0.0.0
 */
export const turnTrail = (
  messages: ReadonlyArray<Message.WithParts>,
  userID: string
): Array<Message.Part> => {
  const out: Array<Message.Part> = []
  for (const message of messages) {
    if (
      message.info.role === "assistant" &&
      message.info.parentID === userID &&
      message.info.summary !== true
    )
      out.push(...message.parts)
  }
  return out
}
