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
import * as AskMetadata from "@gatehousejs/permission/AskMetadata"
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
  yellow: (s: string) => (on ? `\u001b[33m${s}\u001b[39m` : s),
  red: (s: string) => (on ? `\u001b[31m${s}\u001b[39m` : s),
  green: (s: string) => (on ? `\u001b[32m${s}\u001b[39m` : s),
  /** The subject of the ask: bold on a highlighted background. */
  subject: (s: string) => (on ? `\u001b[1;7m ${s} \u001b[22;27m` : s)
})

type Style = ReturnType<typeof style>

const safe = (text: string) => TerminalText.printable(text)

/** A metadata value as the lines to show, each safe for the terminal. */
const show = (value: unknown): Array<string> => {
  if (typeof value === "string") return TerminalText.lines(value)
  const text = JSON.stringify(value)
  return TerminalText.lines(
    text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 297)}...` : text
  )
}

const showRule = (rule: Permission.Rule) =>
  `${rule.permission} ${rule.literal === true ? "exactly " : ""}"${safe(rule.pattern)}" ${rule.action}`

/** Where a deciding rule comes from, as a person reads it. */
const showSource = (decision: AskMetadata.Decision) =>
  decision.source === "default"
    ? "no rule matched: asks by default"
    : `by ${showRule(decision.rule)} in ${safe(decision.source)}`

/** One line per reason the request asks. */
const reasons = (request: Permission.Request, typed: AskMetadata.Typed): Array<string> => {
  const out: Array<string> = []
  const asking = new Set(request.asking ?? request.patterns)
  if (typed.permission === "bash") {
    for (const note of typed.metadata.notes) {
      const about = note.command === undefined ? "" : `${safe(note.command)}: `
      out.push(
        `${about}${safe(note.kind === "unmodelled" ? "could not be modelled" : note.kind)} — ${safe(note.message)}`
      )
    }
    if (typed.metadata.escalated === true)
      out.push(
        "the analysis could not model this command: it asks whatever the rules say, and no rule lifts that"
      )
  }
  const rules = "rules" in typed.metadata && Array.isArray(typed.metadata.rules) ? typed.metadata.rules : []
  for (const decision of rules as ReadonlyArray<AskMetadata.Decision>) {
    if (!asking.has(decision.pattern) || decision.action !== "ask") continue
    out.push(`${safe(decision.pattern)}: ${showSource(decision)}`)
  }
  return out
}

const hang = (
  label: string,
  lines: ReadonlyArray<string>,
  paint: (line: string) => string
): Array<string> => {
  const [first = "", ...rest] = lines
  const pad = " ".repeat(`  ${label}: `.length)
  return [paint(`  ${label}: ${first}`), ...rest.map((line) => paint(`${pad}${line}`))]
}

const diffLines = (diff: string, s: Style): Array<string> =>
  TerminalText.lines(diff).map((line) =>
    line.startsWith("+") && !line.startsWith("+++")
      ? s.green(`    ${line}`)
      : line.startsWith("-") && !line.startsWith("---")
        ? s.red(`    ${line}`)
        : s.dim(`    ${line}`)
  )

/** The headline and the subject of a request, by its permission. */
const headline = (request: Permission.Request, typed: AskMetadata.Typed, s: Style): Array<string> => {
  const tool = request.tool?.name === undefined ? "" : `${safe(request.tool.name)} `
  switch (typed.permission) {
    case "bash": {
      const m = typed.metadata
      return [
        `${s.yellow("?")} ${s.bold(`${tool || "bash "}wants to run`)}`,
        ...TerminalText.lines(m.command).map((line) => `    ${s.subject(line)}`),
        s.dim(`  in ${safe(m.cwd)}`)
      ]
    }
    case "edit": {
      const m = typed.metadata
      const what = m.path ?? m.files?.join(", ") ?? request.patterns.join(", ")
      return [
        `${s.yellow("?")} ${s.bold(`${tool}wants to ${m.action === undefined ? "change" : safe(m.action)}`)} ${s.subject(safe(what))}`,
        ...(m.command === undefined ? [] : [s.dim(`  by the command ${safe(m.command)}`)]),
        ...(m.diff === undefined ? [] : diffLines(m.diff, s))
      ]
    }
    case "read": {
      const m = typed.metadata
      const what = m.path ?? m.files?.join(", ") ?? request.patterns.join(", ")
      return [
        `${s.yellow("?")} ${s.bold(`${tool}wants to read`)} ${s.subject(safe(what))}`,
        ...(m.command === undefined ? [] : [s.dim(`  by the command ${safe(m.command)}`)])
      ]
    }
    case "external_directory": {
      const m = typed.metadata
      const what = m.path ?? m.directories?.join(", ") ?? request.patterns.join(", ")
      return [
        `${s.yellow("?")} ${s.bold(`${tool}wants to reach outside the project:`)} ${s.subject(safe(what))}`,
        ...(m.command === undefined ? [] : [s.dim(`  by the command ${safe(m.command)}`)])
      ]
    }
    case "doom_loop":
      return [
        `${s.yellow("?")} ${s.bold("The model keeps repeating itself:")} ${s.subject(safe(AskMetadata.describeDoomLoop(typed.metadata)))}`,
        s.dim("  allow it to go on?")
      ]
    case "other": {
      const lines = [
        `${s.yellow("?")} ${s.bold(`Permission required: ${safe(request.permission)}`)}`,
        ...request.patterns.map((pattern) => `    ${s.subject(safe(pattern))}`)
      ]
      for (const [key, value] of Object.entries(typed.metadata)) {
        if (value === undefined || value === null) continue
        lines.push(...hang(safe(key), show(value), s.dim))
      }
      return lines
    }
  }
}

/**
 * What "always" would allow from now on, as a person reads it: globs as they are, exact
 * texts quoted and marked "exactly".
 *
 * @since 0.0.0
 */
export const remembered = (request: Permission.Request): Array<string> => [
  ...request.always.filter((pattern) => pattern.length > 0).map(safe),
  ...(request.alwaysExact ?? []).map((text) => `exactly "${safe(text)}"`)
]

/**
 * The lines that describe a request for a person: what the tool wants to do (the command
 * once, highlighted, and where it runs; the file and its diff), one line per reason it asks
 * (a note of a sub-command, the escalation, the rule that asked and its file), and what
 * "always" would allow. Metadata that does not decode by its permission is shown field by
 * field.
 *
 * @since 0.0.0
 */
export const describe = (request: Permission.Request, color = false): Array<string> => {
  const s = style(color)
  const decoded = Effect.runSync(Effect.result(AskMetadata.decode(request)))
  const typed: AskMetadata.Typed =
    decoded._tag === "Success"
      ? decoded.success
      : { permission: "other", name: request.permission, metadata: request.metadata }
  const lines = headline(request, typed, s)
  const why = reasons(request, typed)
  if (why.length > 0) lines.push("  why it asks:", ...why.map((reason) => `    · ${reason}`))
  const always = remembered(request)
  lines.push(
    s.dim(
      always.length > 0
        ? `  [a]lways would allow ${safe(request.permission)} from now on: ${always.join(" · ")}`
        : "  [a]lways remembers nothing for this request: it is allowed this once"
    )
  )
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
  /**
   * Writes `question` and reads one line through the same reader, in turn with the asks
   * (`gatehouse chat`'s own prompt); `undefined` at the end of input.
   */
  readonly line: (question: string) => Effect.Effect<string | undefined>
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
            `  ${s.bold("[r]")}eject  ${s.bold("[o]")}nce  ${s.bold("[a]")}lways  ${s.dim("or type what to do instead")} > `
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
    const line = (question: string) =>
      Effect.andThen(
        Effect.sync(() => terminal.output.write(question)),
        lines.next
      ).pipe(lock.withPermits(1))
    return { ask, line }
  })
