/**
 * The terminal prompt for a permission ask, shared by the commands that run tools
 * (`gatehouse run`, `gatehouse demo`).
 *
 * It shows the permission, its patterns and the request's details (the command and the
 * rule it was judged by, the diff of a file edit, when the caller put them in the metadata;
 * a multi-line value's lines hang indented under its key), then reads one line:
 * `o` allow once, `a` allow always, `r` reject, or any other text: reject and tell the
 * model that text instead (a correction). An empty line asks again; end of input rejects.
 *
 * @since 0.0.0
 */
import * as NodeReadline from "node:readline/promises"
import type { Permission } from "@gatehouse/permission"
import { Effect } from "effect"

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

const show = (value: unknown): string => {
  if (typeof value === "string") return value
  const text = JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 297)}...` : text
}

/**
 * The lines that describe a request: what is asked, for which patterns, and its details.
 *
 * @since 0.0.0
 */
export const describe = (request: Permission.Request, color = false): Array<string> => {
  const s = style(color)
  const lines = [
    `${s.yellow("?")} ${s.bold(`Permission required: ${request.permission}`)}`,
    ...request.patterns.map((pattern) => `    ${pattern}`)
  ]
  for (const [key, value] of Object.entries(request.metadata)) {
    if (value === undefined || value === null) continue
    // A multi-line value (the diff of an edit) keeps its own layout: its continuation
    // lines hang under the first, each styled on its own so a colour never spans lines.
    const [first = "", ...rest] = show(value)
      .replace(/\r?\n$/, "")
      .split(/\r?\n/)
    const hang = " ".repeat(`    ${key}: `.length)
    lines.push(s.dim(`    ${key}: ${first}`), ...rest.map((line) => s.dim(`${hang}${line}`)))
  }
  const always = request.always.filter((pattern) => pattern.length > 0)
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
 * Shows `request` and waits for an answer on `terminal`.
 *
 * @since 0.0.0
 */
export const ask = (request: Permission.Request, terminal: Terminal): Effect.Effect<Answer> =>
  Effect.promise(async () => {
    const color = terminal.color ?? Boolean((terminal.output as { isTTY?: boolean }).isTTY)
    const s = style(color)
    terminal.output.write(`${describe(request, color).join("\n")}\n`)
    const readline = NodeReadline.createInterface({ input: terminal.input, terminal: false })
    // The iterator buffers lines, so answers typed ahead are not lost.
    const lines = readline[Symbol.asyncIterator]()
    try {
      while (true) {
        terminal.output.write(
          `  ${s.bold("[o]")}nce  ${s.bold("[a]")}lways  ${s.bold("[r]")}eject  ${s.dim("(or type what to do instead)")} > `
        )
        const next = await lines.next()
        if (next.done === true) {
          terminal.output.write("\n")
          return { reply: "reject" as const }
        }
        const answer = parse(next.value)
        if (answer !== undefined) return answer
      }
    } finally {
      readline.close()
    }
  })
