// A compact unified diff for previews (permission asks, tool results): the changed block
// between the common leading and trailing lines, with a little context. Linear time: it
// is a preview, not a minimal diff.

const CONTEXT = 3
const MAX_LINES = 400

const split = (text: string | undefined) => {
  if (text === undefined || text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

export const unified = (path: string, before: string | undefined, after: string | undefined): string => {
  const a = split(before)
  const b = split(after)
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++
  const from = Math.max(0, head - CONTEXT)
  const aEnd = a.length - tail
  const bEnd = b.length - tail
  const after_ = Math.min(tail, CONTEXT)
  const lines = [
    `--- ${before === undefined ? "/dev/null" : `a/${path}`}`,
    `+++ ${after === undefined ? "/dev/null" : `b/${path}`}`,
    `@@ -${from + 1},${aEnd - from + after_} +${from + 1},${bEnd - from + after_} @@`,
    ...a.slice(from, head).map((line) => ` ${line}`),
    ...a.slice(head, aEnd).map((line) => `-${line}`),
    ...b.slice(head, bEnd).map((line) => `+${line}`),
    ...a.slice(aEnd, aEnd + after_).map((line) => ` ${line}`)
  ]
  if (lines.length <= MAX_LINES) return lines.join("\n")
  return [...lines.slice(0, MAX_LINES), `... (${lines.length - MAX_LINES} more lines)`].join("\n")
}
