// Where to cut a text, computed on its UTF-8 bytes. `Truncate.output` (whole text in memory)
// and the spill sink (only the first and last ~maxBytes bytes in memory) both call `plan`
// and `render` on a `Source`, so the two give the same content for the same bytes by
// construction, not by keeping two implementations in step.

/** Which part of a long output survives. */
export type Direction = "head" | "tail" | "both"

/** The unit of the truncation marker. */
export type Unit = "lines" | "bytes"

const NEWLINE = 10

/**
 * A text's bytes as the cutter sees them. `head` holds bytes `[0, head.length)` and `tail`
 * bytes `[tailStart, totalBytes)`. For a text in memory both are the whole text; the sink
 * keeps `maxBytes + 1` bytes of the start and `maxBytes + 2` of the end, which is all the
 * cutter ever reads.
 */
export interface Source {
  readonly head: Uint8Array
  readonly tail: Uint8Array
  readonly tailStart: number
  readonly totalBytes: number
  readonly totalLines: number
}

/** The kept byte ranges `[0, headEnd)` and `[tailStart, tailEnd)`, and what the marker says. */
export interface Plan {
  readonly direction: Direction
  readonly headEnd: number
  readonly tailStart: number
  readonly tailEnd: number
  readonly keptLines: number
  readonly keptBytes: number
  readonly removed: number
  readonly unit: Unit
}

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const isContinuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80

/** Number of `\n` bytes (native memchr; a JS byte loop is ~10x slower). */
export const countNewlines = (bytes: Uint8Array): number => {
  const buffer = asBuffer(bytes)
  let count = 0
  let at = buffer.indexOf(NEWLINE)
  while (at !== -1) {
    count++
    at = buffer.indexOf(NEWLINE, at + 1)
  }
  return count
}

/** Lines as Gatehouse counts them: a final `\n` ends the last line, it does not start one. */
export const lineCount = (newlines: number, totalBytes: number, lastByte: number | undefined): number =>
  totalBytes === 0 ? 0 : lastByte === NEWLINE ? newlines : newlines + 1

/** The largest index `<= at` that starts a character (backs off at most 3 continuation bytes). */
export const boundaryBefore = (bytes: Uint8Array, at: number): number => {
  if (at >= bytes.length) return bytes.length
  let index = at
  while (index > 0 && index > at - 3 && isContinuation(bytes[index])) index--
  return isContinuation(bytes[index]) ? at : index
}

/** The smallest index `>= at` that starts a character (skips at most 3 continuation bytes). */
const boundaryAfter = (bytes: Uint8Array, at: number): number => {
  let index = at
  while (index < bytes.length && index < at + 3 && isContinuation(bytes[index])) index++
  return isContinuation(bytes[index]) ? at : index
}

interface HeadCut {
  readonly end: number
  readonly lines: number
  readonly partial: boolean
  readonly hitBytes: boolean
}

const cutHead = (source: Source, maxLines: number, maxBytes: number): HeadCut => {
  const bytes = asBuffer(source.head)
  const total = source.totalBytes
  const complete = bytes.length >= total
  let position = 0
  let end = 0
  let lines = 0
  while (lines < maxLines && position < total) {
    const newline = bytes.indexOf(NEWLINE, position)
    const lineEnd = newline !== -1 ? newline : complete ? total : Number.POSITIVE_INFINITY
    if (lineEnd > maxBytes) {
      if (lines > 0) return { end, lines, partial: false, hitBytes: true }
      // Not even the first line fits: keep its start, cut on a character boundary.
      const cut = boundaryBefore(bytes, maxBytes)
      return { end: cut, lines: cut > 0 ? 1 : 0, partial: cut > 0, hitBytes: true }
    }
    end = lineEnd
    lines++
    position = lineEnd + 1
  }
  return { end, lines, partial: false, hitBytes: false }
}

interface TailCut {
  readonly start: number
  readonly end: number
  readonly lines: number
  readonly hitBytes: boolean
}

// `floorLines`/`floorByte`: what the head already kept ("both"); the tail never reaches into it.
const cutTail = (
  source: Source,
  maxLines: number,
  maxBytes: number,
  floorLines: number,
  floorByte: number
): TailCut => {
  const bytes = asBuffer(source.tail)
  const base = source.tailStart
  const total = source.totalBytes
  const end = total > 0 && bytes[total - 1 - base] === NEWLINE ? total - 1 : total
  if (end < floorByte) return { start: end, end, lines: 0, hitBytes: false }
  let start = end
  let lines = 0
  let lineEnd = end
  while (lines < maxLines && source.totalLines - lines > floorLines) {
    const newline = lineEnd - base > 0 ? bytes.lastIndexOf(NEWLINE, lineEnd - base - 1) : -1
    const lineStart = newline !== -1 ? base + newline + 1 : base === 0 ? 0 : Number.NEGATIVE_INFINITY
    if (end - lineStart > maxBytes || lineStart < floorByte) {
      if (lines > 0) return { start, end, lines, hitBytes: true }
      // Not even the last line fits: keep its end, cut on a character boundary.
      const from = Math.max(end - maxBytes, floorByte)
      const cut = Math.min(base + boundaryAfter(bytes, from - base), end)
      return { start: cut, end, lines: cut < end ? 1 : 0, hitBytes: true }
    }
    start = lineStart
    lines++
    lineEnd = lineStart - 1
  }
  return { start, end, lines, hitBytes: false }
}

/** `true` when the text fits both limits and comes back unchanged. */
export const fits = (totalLines: number, totalBytes: number, maxLines: number, maxBytes: number): boolean =>
  totalLines <= maxLines && totalBytes <= maxBytes

/** What to keep of a text that does not fit (call only when `fits` is false). */
export const plan = (source: Source, direction: Direction, maxLines: number, maxBytes: number): Plan => {
  const limitLines = Math.max(0, Math.floor(maxLines))
  const limitBytes = Math.max(0, Math.floor(maxBytes))
  let headEnd = 0
  let tailStart = 0
  let tailEnd = 0
  let keptLines = 0
  let hitBytes = false
  if (direction === "head") {
    const head = cutHead(source, limitLines, limitBytes)
    headEnd = head.end
    keptLines = head.lines
    hitBytes = head.hitBytes
  } else if (direction === "tail") {
    const tail = cutTail(source, limitLines, limitBytes, 0, 0)
    tailStart = tail.start
    tailEnd = tail.end
    keptLines = tail.lines
    hitBytes = tail.hitBytes
  } else {
    // Context comes first and errors come last: a fifth of the budget for the head.
    const head = cutHead(source, Math.floor(limitLines / 5), Math.floor(limitBytes / 5))
    const tail = cutTail(
      source,
      limitLines - head.lines,
      limitBytes - head.end,
      head.partial ? head.lines - 1 : head.lines,
      head.end
    )
    headEnd = head.end
    tailStart = tail.start
    tailEnd = tail.end
    keptLines = head.lines + tail.lines
    hitBytes = head.hitBytes || tail.hitBytes
  }
  const keptBytes = headEnd + (tailEnd - tailStart)
  const unit: Unit = hitBytes ? "bytes" : "lines"
  const removed = unit === "bytes" ? source.totalBytes - keptBytes : source.totalLines - keptLines
  return { direction, headEnd, tailStart, tailEnd, keptLines, keptBytes, removed, unit }
}

const utf8Length = (codePoint: number) =>
  codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4

/**
 * `bytes[start, end)` as text, at most `end - start` bytes once encoded again. Invalid
 * UTF-8 decodes to U+FFFD, three bytes for each bad byte: the text is then cut (at its end
 * for a head, at its start for a tail) so that the preview keeps the byte limit.
 */
const decodeWithin = (bytes: Buffer, start: number, end: number, keep: "start" | "end"): string => {
  const text = bytes.toString("utf8", start, end)
  const budget = end - start
  if (text.length <= budget / 3 || Buffer.byteLength(text, "utf8") <= budget) return text
  const points = Array.from(text)
  let used = 0
  if (keep === "start") {
    let i = 0
    for (; i < points.length; i++) {
      const width = utf8Length(points[i]!.codePointAt(0)!)
      if (used + width > budget) break
      used += width
    }
    return points.slice(0, i).join("")
  }
  let i = points.length
  for (; i > 0; i--) {
    const width = utf8Length(points[i - 1]!.codePointAt(0)!)
    if (used + width > budget) break
    used += width
  }
  return points.slice(i).join("")
}

/** The kept head text of a plan. */
export const headText = (source: Source, plan: Plan): string =>
  decodeWithin(asBuffer(source.head), 0, plan.headEnd, "start")

/** The kept tail text of a plan. */
export const tailText = (source: Source, plan: Plan): string =>
  decodeWithin(
    asBuffer(source.tail),
    plan.tailStart - source.tailStart,
    plan.tailEnd - source.tailStart,
    "end"
  )

/** The model-visible marker, e.g. `...90 lines truncated...`. */
export const marker = (removed: number, unit: Unit): string => `...${removed} ${unit} truncated...`

/** The truncated content: kept text, marker and hint, laid out for the direction. */
export const render = (source: Source, plan: Plan, hint: string): string => {
  const mark = marker(plan.removed, plan.unit)
  switch (plan.direction) {
    case "head":
      return `${headText(source, plan)}\n\n${mark}\n\n${hint}`
    case "tail":
      return `${mark}\n\n${hint}\n\n${tailText(source, plan)}`
    case "both":
      return `${headText(source, plan)}\n\n${mark}\n\n${hint}\n\n${tailText(source, plan)}`
  }
}

/** A whole text in memory as a `Source`. */
export const sourceOf = (bytes: Uint8Array): Source => ({
  head: bytes,
  tail: bytes,
  tailStart: 0,
  totalBytes: bytes.length,
  totalLines: lineCount(countNewlines(bytes), bytes.length, bytes[bytes.length - 1])
})
