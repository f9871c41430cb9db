// Fake model providers on 127.0.0.1, each speaking its provider's real streaming protocol as
// documented (and as the provider packages decode it), for tests that run Model.layer (and
// `gatehouse chat`) against something that behaves like the real API:
//
// - anthropic: POST /v1/messages, Messages SSE (`message_start`, `content_block_start` with
//   `text` / `thinking` / `tool_use` blocks, `text_delta`, `thinking_delta`,
//   `input_json_delta`, `message_delta` with `stop_reason` and usage, `message_stop`);
//   errors as `{ type: "error", error: { type, message } }`.
// - openai: POST /v1/responses, Responses API SSE (`response.created`,
//   `response.output_item.added` / `.done` for `message`, `reasoning` and `function_call`
//   items, `response.output_text.delta`, `response.reasoning_summary_text.delta`,
//   `response.function_call_arguments.delta` / `.done`, `response.completed` with usage);
//   errors as `{ error: { message, type, param, code } }`.
// - openai-compatible: POST /v1/chat/completions, Chat Completions chunks
//   (`choices[0].delta.content`, `.reasoning_content` (llama.cpp, vLLM),
//   `.tool_calls[i].function.arguments` in pieces, `finish_reason`, a usage chunk,
//   `data: [DONE]`).
//
// A server plays one step per request, in order; a request past the last step gets a 500
// saying so. Every request is recorded (path, headers, parsed body).
import * as NodeHttp from "node:http"
import type * as NodeNet from "node:net"
import * as Effect from "effect/Effect"

export type Provider = "anthropic" | "openai" | "openai-compatible"

export interface Call {
  readonly id: string
  readonly name: string
  readonly input: Record<string, unknown>
}

export type Step =
  /** A whole streamed answer: optional reasoning, text, tool calls, then the finish. */
  | {
      readonly type: "reply"
      readonly reasoning?: string
      readonly text?: string
      readonly calls?: ReadonlyArray<Call>
      readonly usage?: { readonly input: number; readonly output: number }
    }
  /** An HTTP error in the provider's error shape. */
  | {
      readonly type: "status"
      readonly status: number
      readonly headers?: Readonly<Record<string, string>>
      readonly message?: string
    }
  /** The provider's own context-window error (HTTP 400). */
  | { readonly type: "overflow" }
  /**
   * Streams an answer (text, tool calls) up to its finish, then destroys the connection.
   * (Chat Completions tool calls only complete at the finish, so there none is seen.)
   */
  | { readonly type: "cut"; readonly text?: string; readonly calls?: ReadonlyArray<Call> }
  /** Streams an answer with a data line that is not the protocol's JSON before its finish. */
  | { readonly type: "malformed" }
  /** Sends the stream's headers and nothing more, holding the connection open. */
  | { readonly type: "stall" }

export interface Request {
  readonly method: string
  readonly path: string
  readonly headers: NodeHttp.IncomingHttpHeaders
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are asserted on field by field
  readonly body: any
}

export interface FakeProvider {
  readonly provider: Provider
  /** What `Model.layer`'s `baseUrl` (and `--base-url`) takes for this provider. */
  readonly baseUrl: string
  readonly requests: Array<Request>
  readonly close: () => Promise<void>
}

const usageOf = (step: { readonly usage?: { readonly input: number; readonly output: number } }) =>
  step.usage ?? { input: 20, output: 10 }

/** Splits a string in three pieces, as a provider streams it. */
const pieces = (text: string): Array<string> => {
  if (text.length < 3) return [text]
  const a = Math.floor(text.length / 3)
  const b = Math.floor((2 * text.length) / 3)
  return [text.slice(0, a), text.slice(a, b), text.slice(b)]
}

// ---------------------------------------------------------------- anthropic

const anthropicEvent = (event: Record<string, unknown>) =>
  `event: ${event.type as string}\ndata: ${JSON.stringify(event)}\n\n`

const anthropicStart = (input: number) =>
  anthropicEvent({
    type: "message_start",
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: "claude-fake",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: null,
        server_tool_use: null,
        service_tier: null,
        inference_geo: null,
        output_tokens: 1
      },
      container: null
    }
  }) + anthropicEvent({ type: "ping" })

const anthropicReply = (step: Extract<Step, { type: "reply" }>): string => {
  const usage = usageOf(step)
  let out = anthropicStart(usage.input)
  let index = 0
  if (step.reasoning !== undefined) {
    out += anthropicEvent({
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" }
    })
    for (const thinking of pieces(step.reasoning))
      out += anthropicEvent({
        type: "content_block_delta",
        index,
        delta: { type: "thinking_delta", thinking }
      })
    out += anthropicEvent({
      type: "content_block_delta",
      index,
      delta: { type: "signature_delta", signature: "c2lnbmF0dXJl" }
    })
    out += anthropicEvent({ type: "content_block_stop", index })
    index++
  }
  if (step.text !== undefined) {
    out += anthropicEvent({
      type: "content_block_start",
      index,
      content_block: { type: "text", text: "", citations: null }
    })
    for (const text of pieces(step.text))
      out += anthropicEvent({ type: "content_block_delta", index, delta: { type: "text_delta", text } })
    out += anthropicEvent({ type: "content_block_stop", index })
    index++
  }
  for (const call of step.calls ?? []) {
    out += anthropicEvent({
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} }
    })
    for (const partial_json of pieces(JSON.stringify(call.input)))
      out += anthropicEvent({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json }
      })
    out += anthropicEvent({ type: "content_block_stop", index })
    index++
  }
  out += anthropicEvent({
    type: "message_delta",
    delta: { stop_reason: (step.calls ?? []).length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
    usage: {
      input_tokens: usage.input,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: usage.output,
      server_tool_use: null
    },
    context_management: null
  })
  return out + anthropicEvent({ type: "message_stop" })
}

const anthropicErrorType = (status: number) =>
  status === 429
    ? "rate_limit_error"
    : status === 529
      ? "overloaded_error"
      : status === 401
        ? "authentication_error"
        : status >= 500
          ? "api_error"
          : "invalid_request_error"

// ---------------------------------------------------------------- openai (Responses)

const openAiReply = (step: Extract<Step, { type: "reply" }>): string => {
  let sequence = 0
  const event = (body: Record<string, unknown>) =>
    `event: ${body.type as string}\ndata: ${JSON.stringify({ ...body, sequence_number: sequence++ })}\n\n`
  const usage = usageOf(step)
  const response = (status: string, output: Array<unknown>, withUsage: boolean) => ({
    id: "resp_fake",
    object: "response",
    created_at: 1_760_000_000,
    model: "gpt-fake",
    status,
    output,
    ...(withUsage
      ? {
          usage: {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: usage.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.input + usage.output
          }
        }
      : {})
  })
  const output: Array<unknown> = []
  let out = event({ type: "response.created", response: response("in_progress", [], false) })
  if (step.reasoning !== undefined) {
    const output_index = output.length
    const id = "rs_fake"
    out += event({
      type: "response.output_item.added",
      output_index,
      item: { type: "reasoning", id, summary: [] }
    })
    out += event({
      type: "response.reasoning_summary_part.added",
      item_id: id,
      output_index,
      summary_index: 0,
      part: { type: "summary_text", text: "" }
    })
    for (const delta of pieces(step.reasoning))
      out += event({
        type: "response.reasoning_summary_text.delta",
        item_id: id,
        output_index,
        summary_index: 0,
        delta
      })
    out += event({
      type: "response.reasoning_summary_part.done",
      item_id: id,
      output_index,
      summary_index: 0,
      part: { type: "summary_text", text: step.reasoning }
    })
    const item = { type: "reasoning", id, summary: [{ type: "summary_text", text: step.reasoning }] }
    out += event({ type: "response.output_item.done", output_index, item })
    output.push(item)
  }
  if (step.text !== undefined) {
    const output_index = output.length
    const id = "msg_fake"
    out += event({
      type: "response.output_item.added",
      output_index,
      item: { type: "message", id, role: "assistant", status: "in_progress", content: [] }
    })
    for (const delta of pieces(step.text))
      out += event({
        type: "response.output_text.delta",
        item_id: id,
        output_index,
        content_index: 0,
        delta,
        logprobs: []
      })
    const item = {
      type: "message",
      id,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: step.text, annotations: [] }]
    }
    out += event({ type: "response.output_item.done", output_index, item })
    output.push(item)
  }
  for (const call of step.calls ?? []) {
    const output_index = output.length
    const id = `fc_${call.id}`
    const args = JSON.stringify(call.input)
    out += event({
      type: "response.output_item.added",
      output_index,
      item: {
        type: "function_call",
        id,
        call_id: call.id,
        name: call.name,
        arguments: "",
        status: "in_progress"
      }
    })
    for (const delta of pieces(args))
      out += event({ type: "response.function_call_arguments.delta", item_id: id, output_index, delta })
    out += event({
      type: "response.function_call_arguments.done",
      item_id: id,
      output_index,
      arguments: args
    })
    const item = {
      type: "function_call",
      id,
      call_id: call.id,
      name: call.name,
      arguments: args,
      status: "completed"
    }
    out += event({ type: "response.output_item.done", output_index, item })
    output.push(item)
  }
  return out + event({ type: "response.completed", response: response("completed", output, true) })
}

const openAiErrorBody = (status: number, message: string, code: string | null) => ({
  error: {
    message,
    type:
      status === 429
        ? "rate_limit_exceeded"
        : status === 401
          ? "invalid_request_error"
          : status >= 500
            ? "server_error"
            : "invalid_request_error",
    param: null,
    code
  }
})

// ---------------------------------------------------------------- openai-compatible (Chat Completions)

const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null, usage?: unknown) =>
  `data: ${JSON.stringify({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_760_000_000,
    model: "local-fake",
    choices: usage === undefined ? [{ index: 0, delta, finish_reason }] : [],
    ...(usage === undefined ? {} : { usage })
  })}\n\n`

const compatReply = (step: Extract<Step, { type: "reply" }>): string => {
  const usage = usageOf(step)
  let out = chunk({ role: "assistant", content: null })
  if (step.reasoning !== undefined)
    for (const reasoning_content of pieces(step.reasoning)) out += chunk({ reasoning_content })
  if (step.text !== undefined) for (const content of pieces(step.text)) out += chunk({ content })
  for (const [index, call] of (step.calls ?? []).entries()) {
    out += chunk({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
    })
    for (const args of pieces(JSON.stringify(call.input)))
      out += chunk({ tool_calls: [{ index, function: { arguments: args } }] })
  }
  out += chunk({}, (step.calls ?? []).length > 0 ? "tool_calls" : "stop")
  out += chunk({}, null, {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output
  })
  return `${out}data: [DONE]\n\n`
}

// ---------------------------------------------------------------- the server

const paths: Record<Provider, string> = {
  anthropic: "/v1/messages",
  openai: "/v1/responses",
  "openai-compatible": "/v1/chat/completions"
}

const replyBody = (provider: Provider, step: Extract<Step, { type: "reply" }>) =>
  provider === "anthropic"
    ? anthropicReply(step)
    : provider === "openai"
      ? openAiReply(step)
      : compatReply(step)

const errorBody = (provider: Provider, status: number, message: string, code: string | null = null) =>
  provider === "anthropic"
    ? { type: "error", error: { type: anthropicErrorType(status), message }, request_id: "req_fake" }
    : openAiErrorBody(status, message, code)

const OVERFLOW_MESSAGE: Record<Provider, string> = {
  anthropic: "prompt is too long: 212345 tokens > 200000 maximum",
  openai: "Your input exceeds the context window of this model. Please adjust your input and try again.",
  // llama.cpp's words, which name neither "context length" nor "context window".
  "openai-compatible": "the request exceeds the available context size, try increasing it"
}

// Where each protocol's finish begins: a cut there leaves a whole answer without its end.
const FINISH: Record<Provider, string> = {
  anthropic: "event: message_delta\n",
  openai: "event: response.completed\n",
  "openai-compatible": '"finish_reason":"'
}

/** A streamed answer in the provider's protocol, up to (not including) its finish. */
const beforeFinish = (provider: Provider, step: Omit<Extract<Step, { type: "reply" }>, "type">): string => {
  const whole = replyBody(provider, { type: "reply", ...step })
  const finish = whole.indexOf(FINISH[provider])
  return whole.slice(0, whole.lastIndexOf("\n\n", finish) + 2)
}

const MALFORMED: Record<Provider, string> = {
  anthropic: `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"oops"\n\n`,
  openai: `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_fake"\n\n`,
  "openai-compatible": `data: {"id":"chatcmpl-fake","choices":[{"index":0,"delta":{"content":"oo\n\n`
}

/** Starts a fake `provider` on 127.0.0.1 (a random port) playing `steps`. */
export const start = (provider: Provider, steps: ReadonlyArray<Step>): Promise<FakeProvider> =>
  new Promise((resolve, reject) => {
    const requests: Array<Request> = []
    const sockets = new Set<NodeNet.Socket>()
    const server = NodeHttp.createServer((req, res) => {
      let raw = ""
      req.setEncoding("utf8")
      req.on("data", (data: string) => (raw += data))
      req.on("end", () => {
        let body: unknown = raw
        try {
          body = JSON.parse(raw)
        } catch {}
        const index = requests.length
        requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body })
        const step = steps[index]
        const sendJson = (status: number, json: unknown, headers: Readonly<Record<string, string>> = {}) => {
          res.writeHead(status, { "content-type": "application/json", ...headers })
          res.end(JSON.stringify(json))
        }
        if (req.method !== "POST" || req.url !== paths[provider])
          return sendJson(
            404,
            errorBody(provider, 404, `fake ${provider}: no route ${req.method} ${req.url}`)
          )
        if (step === undefined)
          return sendJson(500, errorBody(provider, 500, `fake ${provider}: no step for request ${index + 1}`))
        const sse = () =>
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
        switch (step.type) {
          case "reply":
            sse()
            return res.end(replyBody(provider, step))
          case "status":
            return sendJson(
              step.status,
              errorBody(provider, step.status, step.message ?? `fake ${provider}: HTTP ${step.status}`),
              step.headers
            )
          case "overflow":
            return sendJson(
              400,
              errorBody(
                provider,
                400,
                OVERFLOW_MESSAGE[provider],
                provider === "openai-compatible" ? "exceed_context_size_error" : "context_length_exceeded"
              )
            )
          case "cut":
            sse()
            // The bytes reach the client before the connection dies.
            return res.write(beforeFinish(provider, step), () => setTimeout(() => req.socket.destroy(), 20))
          case "malformed":
            sse()
            {
              const start = beforeFinish(provider, { text: "Hello" })
              const whole = replyBody(provider, { type: "reply", text: "Hello" })
              // A whole answer with one bad line before its finish.
              return res.end(start + MALFORMED[provider] + whole.slice(start.length))
            }
          case "stall":
            sse()
            return res.flushHeaders()
        }
      })
    })
    server.on("connection", (socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as NodeNet.AddressInfo).port
      const root = `http://127.0.0.1:${port}`
      resolve({
        provider,
        baseUrl: provider === "anthropic" ? root : `${root}/v1`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })

/** {@link start} in a scope: the server closes with it. */
export const fake = (provider: Provider, steps: ReadonlyArray<Step>) =>
  Effect.acquireRelease(
    Effect.promise(() => start(provider, steps)),
    (server) => Effect.promise(server.close)
  )
