/**
 * The terminal prompt for a permission ask, shared by the commands that run tools
 * (`gatehouse run`, `gatehouse demo`).
 *
 * It shows the permission, its patterns and the request's details (the command and the
 * rule it was judged by, the diff of a file edit, when the caller put them in the metadata;
 * a multi-line value's lines hang indented under its key), then reads one line:
 * `o` allow once, `a` allow always, `r` reject, or any other text: reject and tell the
 * model that text instead (a correction). An empty line asks again; end of input rejects.
 * What the model controls (patterns, metadata) is shown through {@link TerminalText}, so
 * escape sequences in it show as text instead of acting on the terminal.
 *
 * A command makes one prompt with {@link make} for its whole life: it reads its input
 * through a single line reader, so answers typed ahead (several lines in one chunk) wait
 * for the asks that follow instead of being lost.
 *
 * @since 0.0.0
 */
import * as NodeReadline from "node:readline"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as TerminalText from "./TerminalText.ts"

/**
 * What the person answered: a reply for `Permission.reply`, with the feedback text of a
 * correction as `message`.
 *
 * @since 0.0.0
 */
export interface Answer {
  readonly reply: Permission.Reply
  readonly message?: string | undefined
}

/**
 * Where the prompt reads and writes.
 *
 * @since 0.0.0
 */
export interface Terminal {
  readonly input: NodeJS.ReadableStream
  readonly output: NodeJS.WritableStream
  /** Colours and bold (default: whether `output` is a TTY). */
  readonly color?: boolean | undefined
}

const style = (on: boolean) => ({
  bold: (s: string) => (on ? `\u001b[1m${s}\u001b[22m` : s),
  dim: (s: string) => (on ? `\u001b[2m${s}\u001b[22m` : s),
  yellow: (s: string) => (on ? `\u001b[33m${s}\u001b[39m` : s)
})

/** A metadata value as the lines to show, each safe for the terminal. */
const show = (value: unknown): Array<string> => {
  if (typeof value === "string") return TerminalText.lines(value)
  const text = JSON.stringify(value)
  return TerminalText.lines(
    text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 297)}...` : text
  )
}

/**
 * The lines that describe a request: what is asked, for which patterns, and its details.
 *
 * @since 0.0.0
 */
export const describe = (request: Permission.Request, color = false): Array<string> => {
  const s = style(color)
  const safe = (text: string) => TerminalText.printable(text)
  const lines = [
    `${s.yellow("?")} ${s.bold(`Permission required: ${safe(request.permission)}`)}`,
    ...request.patterns.map((pattern) => `    ${safe(pattern)}`)
  ]
  for (const [key, value] of Object.entries(request.metadata)) {
    if (value === undefined || value === null) continue
    // A multi-line value (the diff of an edit) keeps its own layout: its continuation
    // lines hang under the first, each styled on its own so a colour never spans lines.
    const [first = "", ...rest] = show(value)
    const label = safe(key)
    const hang = " ".repeat(`    ${label}: `.length)
    lines.push(s.dim(`    ${label}: ${first}`), ...rest.map((line) => s.dim(`${hang}${line}`)))
  }
  const always = request.always.filter((pattern) => pattern.length > 0).map(safe)
  if (always.length > 0) lines.push(s.dim(`    "always" would allow: ${always.join(", ")}`))
  return lines
}

/**
 * Parses one answer line; `undefined` for an empty line.
 *
 * @since 0.0.0
 */
export const parse = (line: string): Answer | undefined => {
  const text = line.trim()
  if (text.length === 0) return undefined
  switch (text.toLowerCase()) {
    case "o":
    case "once":
    case "y":
    case "yes":
      return { reply: "once" }
    case "a":
    case "always":
      return { reply: "always" }
    case "r":
    case "reject":
    case "n":
    case "no":
      return { reply: "reject" }
  }
  return { reply: "reject", message: text }
}

/**
 * A prompt bound to a terminal: shows a request and waits for the answer.
 *
 * @since 0.0.0
 */
export interface Prompt {
  readonly ask: (request: Permission.Request) => Effect.Effect<Answer>
}

/**
 * The lines of `input`, read by one reader for as long as the prompt lives: lines that
 * arrive while no ask waits are queued for the next one. The reader starts at the first
 * read (a command that never asks leaves its input alone) and stops with `close`.
 */
const lineReader = (input: NodeJS.ReadableStream) => {
  const queue: Array<string> = []
  const waiters: Array<(line: string | undefined) => void> = []
  let reader: NodeReadline.Interface | undefined
  let ended = false
  const start = () => {
    if (reader !== undefined || ended) return
    reader = NodeReadline.createInterface({ input, terminal: false })
    reader.on("line", (line) => {
      const waiter = waiters.shift()
      if (waiter === undefined) queue.push(line)
      else waiter(line)
    })
    reader.on("close", () => {
      ended = true
      for (const waiter of waiters.splice(0)) waiter(undefined)
    })
  }
  /** The next line; `undefined` at the end of input. An interrupted read takes no line. */
  const next = Effect.callback<string | undefined>((resume) => {
    start()
    if (queue.length > 0) return resume(Effect.succeed(queue.shift()))
    if (ended) return resume(Effect.succeed(undefined))
    const waiter = (line: string | undefined) => resume(Effect.succeed(line))
    waiters.push(waiter)
    return Effect.sync(() => {
      const at = waiters.indexOf(waiter)
      if (at !== -1) waiters.splice(at, 1)
    })
  })
  const close = Effect.sync(() => {
    ended = true
    reader?.close()
  })
  return { next, close }
}

/**
 * A prompt on `terminal` for the life of the enclosing scope (the command's): one line
 * reader for every ask, created at the first ask and closed with the scope. Asks are
 * answered one at a time, in the order they are made.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as AskPrompt from "./AskPrompt.ts"
 *
 * const program = Effect.gen(function* () {
 *   const prompt = yield* AskPrompt.make({ input: process.stdin, output: process.stderr })
 *   // yield* prompt.ask(request) for each permission.asked
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.0.0
 */
export const make = (terminal: Terminal): Effect.Effect<Prompt, never, Scope.Scope> =>
  Effect.gen(function* () {
    const lines = yield* Effect.acquireRelease(
      Effect.sync(() => lineReader(terminal.input)),
      (reader) => reader.close
    )
    const color = terminal.color ?? Boolean((terminal.output as { isTTY?: boolean }).isTTY)
    const s = style(color)
    // One ask at a time: two asks must not read each other's answers.
    const lock = yield* Semaphore.make(1)
    const ask = (request: Permission.Request) =>
      Effect.gen(function* () {
        terminal.output.write(`${describe(request, color).join("\n")}\n`)
        while (true) {
          terminal.output.write(
            `  ${s.bold("[o]")}nce  ${s.bold("[a]")}lways  ${s.bold("[r]")}eject  ${s.dim("(or type what to do instead)")} > `
          )
          const line = yield* lines.next
          if (line === undefined) {
            terminal.output.write("\n")
            return { reply: "reject" } satisfies Answer
          }
          const answer = parse(line)
          if (answer !== undefined) return answer
        }
      }).pipe(lock.withPermits(1))
    return { ask }
  })
