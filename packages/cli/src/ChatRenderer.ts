/**
 * A `gatehouse chat` session on the terminal, as its bus events arrive: the model's answer
 * on stdout, everything else (its thinking, tool calls and their output, permission asks,
 * retries, errors) on stderr, so `gatehouse chat --prompt … > answer.txt` keeps the answer
 * alone. Tool output is shown as a person reads it (see {@link HumanOutput}): what is said
 * to the model only stays out. Everything the model or a tool wrote goes through
 * {@link TerminalText} first.
 *
 * @since 0.0.0
 */
import type * as BusEvent from "@gatehousejs/core/BusEvent"
import type * as Instance from "@gatehousejs/core/Instance"
import type * as Permission from "@gatehousejs/permission/Permission"
import type * as Message from "@gatehousejs/session/Message"
import type * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as AskPrompt from "./AskPrompt.ts"
import * as HumanOutput from "./HumanOutput.ts"
import * as TerminalText from "./TerminalText.ts"

/**
 * Where the renderer writes.
 *
 * @since 0.0.0
 */
export interface Streams {
  /** The model's answer (stdout). */
  readonly answer: NodeJS.WritableStream
  /** Everything else (stderr). */
  readonly status: NodeJS.WritableStream
  readonly color: boolean
}

/**
 * How asks are answered: `yes` allows each once; else `prompt` asks the person; with
 * neither, asks fail closed on their own (the permission layer is not interactive).
 *
 * @since 0.0.0
 */
export interface Answering {
  readonly yes: boolean
  readonly prompt?: AskPrompt.Prompt | undefined
  readonly reply: (input: Permission.ReplyInput) => Effect.Effect<void, never, Instance.Current>
  /** Whether the ask still waits (an aborted turn drops its asks). */
  readonly pending: (requestID: string) => Effect.Effect<boolean, never, Instance.Current>
}

const paint = (on: boolean) => {
  const wrap = (open: number, close: number) => (s: string) =>
    on ? `\u001b[${open}m${s}\u001b[${close}m` : s
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39) }
}

const safe = (text: string) => TerminalText.printable(text)

const oneLine = (value: unknown, max = 100) => {
  const text = safe(JSON.stringify(value) ?? "")
  return text.length > max ? `${text.slice(0, max - 3)}...` : text
}

const PREVIEW_LINES = 6

/** How many of a resumed session's last messages are shown again. */
export const REPLAYED_MESSAGES = 10

/**
 * A renderer on `streams`. `handle` renders one event (and answers asks); `cancelAsks`
 * drops the ask being shown (the turn was interrupted: its asks were rejected, and the next
 * line typed is the person's next prompt, not an answer); `line` writes a status line.
 *
 * @since 0.0.0
 */
export const make = (streams: Streams, answering: Answering) => {
  const c = paint(streams.color)
  // Both streams usually show on one terminal: a line on one starts where the other ended.
  let atLineStart = true
  let lastOnAnswer = false
  let streaming: string | undefined
  let cancel = Deferred.makeUnsafe<void>()

  const endLine = () => {
    if (atLineStart) return
    ;(lastOnAnswer ? streams.answer : streams.status).write("\n")
    atLineStart = true
  }
  const line = (text: string) => {
    endLine()
    streaming = undefined
    streams.status.write(`${text}\n`)
  }
  const stream = (to: "answer" | "status", text: string) => {
    if (text.length === 0) return
    ;(to === "answer" ? streams.answer : streams.status).write(text)
    lastOnAnswer = to === "answer"
    atLineStart = text.endsWith("\n")
  }

  const onDelta = (partID: string, type: "text" | "reasoning", delta: string) => {
    if (streaming !== partID) {
      endLine()
      streaming = partID
      if (type === "reasoning") stream("status", c.dim("thinking: "))
    }
    const text = TerminalText.printable(delta, { newlines: true })
    if (type === "reasoning") stream("status", c.dim(text))
    else stream("answer", text)
  }

  const onTool = (part: Extract<Message.Part, { type: "tool" }>) => {
    const state = part.state
    if (state.status === "running" && state.metadata?.output === undefined) {
      line(`  ${c.yellow("▸")} ${c.bold(safe(part.tool))} ${c.dim(oneLine(state.input))}`)
    } else if (state.status === "completed") {
      line(`  ${c.green("✓")} ${c.bold(safe(part.tool))} ${c.dim(safe(state.title))}`)
      const outputPath = state.metadata.outputPath
      const shown = HumanOutput.forPerson(
        state.output,
        typeof outputPath === "string" ? outputPath : undefined
      )
      const lines = TerminalText.lines(shown.output.trimEnd())
      for (const text of lines.slice(0, PREVIEW_LINES))
        line(c.dim(`    │ ${text.length > 120 ? `${text.slice(0, 117)}...` : text}`))
      if (lines.length > PREVIEW_LINES) line(c.dim(`    │ ... ${lines.length - PREVIEW_LINES} more lines`))
      for (const notice of shown.notices) line(`    ${c.yellow("↳")} ${safe(notice)}`)
      const refused = state.metadata.sandboxRefusal
      if (typeof refused === "string") line(`    ${c.yellow("⛨")} the sandbox refused ${safe(refused)}`)
    } else if (state.status === "error") {
      const first = TerminalText.lines(HumanOutput.refusal(state.error))[0] ?? ""
      line(`  ${c.red("✗")} ${c.bold(safe(part.tool))} ${state.interrupted ? "interrupted" : first}`)
    }
  }

  const onAsk = (request: Permission.Request) =>
    Effect.gen(function* () {
      if (!answering.yes && answering.prompt === undefined) return
      if (!(yield* answering.pending(request.id))) return
      if (answering.yes) {
        for (const text of AskPrompt.describe(request, streams.color)) line(text)
        line(c.dim("  → allowed once (--yes)"))
        return yield* answering.reply({ requestID: request.id, reply: "once" })
      }
      endLine()
      streaming = undefined
      const cancelled = cancel
      const answer = yield* answering
        .prompt!.ask(request)
        .pipe(Effect.raceFirst(Effect.as(Deferred.await(cancelled), undefined)))
      if (answer === undefined) return
      return yield* answering.reply({
        requestID: request.id,
        reply: answer.reply,
        ...(answer.message === undefined ? {} : { message: answer.message })
      })
    })

  const handle = (event: BusEvent.Envelope): Effect.Effect<void, never, Instance.Current> =>
    Effect.gen(function* () {
      switch (event.type) {
        case "message.part.delta": {
          const { partID, type, delta } = event.properties as typeof Message.Event.PartDelta.properties.Type
          return onDelta(partID, type, delta)
        }
        case "message.part.updated": {
          const { part, delta } = event.properties as { part: Message.Part; delta?: string }
          if ((part.type === "text" || part.type === "reasoning") && delta !== undefined)
            return onDelta(part.id, part.type, delta)
          if (part.type === "tool") onTool(part)
          return
        }
        case "permission.asked":
          return yield* onAsk(event.properties as Permission.Request)
        case "permission.replied": {
          const { reply, reason } = event.properties as { reply: string; reason?: string }
          if (reply === "reject" && reason !== undefined) line(c.red(`  → rejected (${safe(reason)})`))
          return
        }
        case "session.status": {
          const { status } = event.properties as { status: SessionStatus.Info }
          if (status.type === "retry")
            line(c.yellow(`  … the model failed (${safe(status.message)}); retry ${status.attempt} shortly`))
          return
        }
        case "session.error": {
          const { error } = event.properties as { error: Message.MessageError }
          line(c.red(`  ! ${safe(error.name)}: ${safe(error.message)}`))
          return
        }
      }
    })

  // A resumed session's last messages, on stderr (stdout is this run's answer only).
  const replay = (messages: ReadonlyArray<Message.WithParts>) => {
    const shown = messages.slice(-REPLAYED_MESSAGES)
    if (shown.length === 0) return
    const earlier = messages.length - shown.length
    line(c.dim(`── earlier in this session${earlier > 0 ? ` (${earlier} older messages not shown)` : ""} ──`))
    for (const message of shown) {
      for (const part of message.parts) {
        if (part.type === "text" && part.synthetic !== true) {
          const lines = TerminalText.lines(part.text.trimEnd())
          const head = message.info.role === "user" ? "you> " : "     "
          for (const [index, text] of lines.entries()) line(c.dim(`${index === 0 ? head : "     "}${text}`))
        } else if (part.type === "tool") {
          const state = part.state
          const mark = state.status === "completed" ? "✓" : state.status === "error" ? "✗" : "·"
          const title = state.status === "completed" ? state.title : oneLine(state.input)
          line(c.dim(`  ${mark} ${safe(part.tool)} ${safe(title)}`))
        }
      }
    }
    line(c.dim("── now ──"))
  }

  return {
    handle,
    line,
    replay,
    /** Ends the answer's line, if one is open (before the person types). */
    endLine,
    cancelAsks: () => {
      Deferred.doneUnsafe(cancel, Exit.void)
      cancel = Deferred.makeUnsafe<void>()
    }
  }
}
