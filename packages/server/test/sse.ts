// A minimal SSE reader for tests: feed it bytes, take whole frames out.
export interface SseFrame {
  /** The event id (the SSE id without its run prefix). */
  readonly id: string | undefined
  /** The SSE id as sent (`<run>-<event id>`), what `Last-Event-ID` carries back. */
  readonly rawId: string | undefined
  readonly run: string | undefined
  readonly type: string
  readonly envelopeId: number | undefined
  readonly properties: any
}

export class SseParser {
  private text = ""
  private readonly decoder = new TextDecoder()
  readonly frames: Array<SseFrame> = []
  /** Frames parsed so far (also when they are not kept). */
  count = 0

  private readonly options: { keep?: boolean; onFrame?: (frame: SseFrame) => void }

  constructor(options: { keep?: boolean; onFrame?: (frame: SseFrame) => void } = {}) {
    this.options = options
  }

  push(bytes: Uint8Array): void {
    this.text += this.decoder.decode(bytes, { stream: true })
    let end = this.text.indexOf("\n\n")
    while (end !== -1) {
      const block = this.text.slice(0, end)
      this.text = this.text.slice(end + 2)
      let id: string | undefined
      let data = ""
      for (const line of block.split("\n")) {
        if (line.startsWith("id: ")) id = line.slice(4)
        else if (line.startsWith("data: ")) data += line.slice(6)
      }
      if (data !== "") {
        const json = JSON.parse(data)
        // `id:` is `<run>-<event id>`: `id` is the event id, `rawId` what a client sends back.
        const dash = id?.lastIndexOf("-") ?? -1
        const frame: SseFrame = {
          id: id === undefined || dash === -1 ? id : id.slice(dash + 1),
          rawId: id,
          run: id === undefined || dash === -1 ? undefined : id.slice(0, dash),
          type: json.type,
          envelopeId: json.id,
          properties: json.properties
        }
        this.count++
        this.options.onFrame?.(frame)
        if (this.options.keep !== false) this.frames.push(frame)
      }
      end = this.text.indexOf("\n\n")
    }
  }
}
