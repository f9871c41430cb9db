/**
 * A tool result as a person at the terminal reads it: what the model is told only for itself
 * (the `<command_status>` block, the truncation hint that says which tools to read the spill
 * file with, "do not retry it") is taken out of the output, and what a person needs from it
 * (the truncation, where the full output is, a timeout) becomes short notices for stderr.
 *
 * @since 0.0.0
 */

/**
 * The output to print, and the notices to print after it (on stderr).
 *
 * @since 0.0.0
 */
export interface Shown {
  readonly output: string
  readonly notices: ReadonlyArray<string>
}

const STATUS = /\n*<command_status>\n([\s\S]*?)\n<\/command_status>\s*$/
const HINT = /\n*The tool call succeeded but the output was truncated\.[^\n]*(?:\n(?:Use |Do NOT )[^\n]*)?\n*/
const CUT = /\.\.\.(\d+) (lines|bytes) truncated\.\.\./

/**
 * `output` (what the model read) for a person; `outputPath` is where the full output went.
 *
 * @example
 * ```ts
 * import * as HumanOutput from "./HumanOutput.ts"
 * HumanOutput.forPerson("a\n\n<command_status>\nExit code: 3\n</command_status>").output // "a"
 * ```
 * @since 0.0.0
 */
export const forPerson = (output: string, outputPath?: string): Shown => {
  const notices: Array<string> = []
  let text = output
  const status = STATUS.exec(text)
  if (status !== null) {
    text = text.slice(0, status.index)
    // The exit code is the process's own exit status; the rest is news to a person too.
    for (const line of status[1]!.split("\n"))
      if (line.trim() !== "" && !/^Exit code: -?\d+$/.test(line)) notices.push(line)
  }
  const hint = HINT.exec(text)
  if (hint !== null) {
    const unsaved = hint[0].includes("could not be saved")
    text = `${text.slice(0, hint.index)}\n${text.slice(hint.index + hint[0].length)}`
    const cut = CUT.exec(text)
    const what =
      cut === null ? "the output was truncated" : `the output was truncated (${cut[1]} ${cut[2]} left out)`
    notices.push(
      unsaved || outputPath === undefined
        ? `${what}; the full output could not be saved`
        : `${what}; the full output is in ${outputPath}`
    )
  }
  return { output: text, notices }
}

/**
 * A refusal's message without what is said to the model only ("do not retry it").
 *
 * @since 0.0.0
 */
export const refusal = (message: string): string =>
  message
    .replace(/ The user's permission rules forbid this call; do not retry it\./, "")
    .replace(
      /^The user rejected (.*)\. Do not retry it; ask the user how to proceed\.$/,
      "You rejected $1; it did not run."
    )
    .replace(/^The user rejected this tool call with this feedback: /, "You rejected it, saying: ")
