/**
 * Untrusted text (what a model or a tool wrote) made safe to print on a terminal.
 *
 * A terminal obeys what it is sent: `ESC[2K` then `\r` erases a line and returns to its
 * start, so `rm -rf ~ \e[2K\rls -la` shows as `ls -la`, and a right-to-left override
 * (U+202E) reorders what follows. Every character that acts instead of showing is
 * replaced by a visible escape: C0 controls (`\x1b`, `\r`, `\x07`…), DEL (`\x7f`), C1
 * controls (`\x9b`…) and the invisible and bidi format characters (`\u200b`–`\u200f`,
 * `\u202a`–`\u202e`, `\u2066`–`\u2069`, `\u2028`, `\u2029`, `\u061c`, `\ufeff`).
 * A tab is kept (it only moves the cursor forward). Backslashes are kept as they are, so
 * the text a person approves reads as the command that runs (`printf '\x1b'` stays so).
 *
 * @since 0.0.0
 */

// \t (U+0009) and \n (U+000A) are left to the callers' options below.
const UNSAFE =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r" }

const visible = (char: string): string => {
  const named = NAMED[char]
  if (named !== undefined) return named
  const code = char.charCodeAt(0)
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`
}

/**
 * `text` with every control, bidi and invisible character shown as an escape (`\x1b`,
 * `\r`, `\u202e`). Newlines are escaped too (`\n`), unless `newlines` is set: then
 * `\n` and `\r\n` are kept as line breaks (for text streamed to the terminal as it is),
 * while a lone `\r` is still escaped.
 *
 * @example
 * ```ts
 * import * as TerminalText from "./TerminalText.ts"
 *
 * TerminalText.printable("rm -rf ~ \u001b[2K\rls -la") // "rm -rf ~ \\x1b[2K\\rls -la"
 * ```
 *
 * @since 0.0.0
 */
export const printable = (text: string, options?: { readonly newlines?: boolean }): string => {
  const source = options?.newlines === true ? text.replaceAll("\r\n", "\n") : text
  return source.replace(UNSAFE, (char) =>
    char === "\n" && options?.newlines === true ? char : visible(char)
  )
}

/**
 * A multi-line value (a diff, a command's output) as lines safe to print one by one:
 * split at `\n` or `\r\n` first (a final line break adds no empty line), then each line
 * escaped with {@link printable}.
 *
 * @since 0.0.0
 */
export const lines = (text: string): Array<string> =>
  text
    .replace(/\r?\n$/, "")
    .split(/\r?\n/)
    .map((line) => printable(line))
