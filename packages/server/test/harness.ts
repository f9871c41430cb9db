// A real server on 127.0.0.1 with the real services: memory stores, the scripted model,
// the default toolset (real shell processes), in a temporary project directory.

import { mkdtempSync } from "node:fs"
import * as Http from "node:http"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import type * as Bus from "@gatehousejs/core/Bus"
import type * as Instance from "@gatehousejs/core/Instance"
import type * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Permission from "@gatehousejs/permission/Permission"
import type * as EventStream from "@gatehousejs/server/EventStream"
import * as Server from "@gatehousejs/server/Server"
import * as Checkpoint from "@gatehousejs/session/Checkpoint"
import * as DefaultTools from "@gatehousejs/session/DefaultTools"
import * as ScriptedModel from "@gatehousejs/session/ScriptedModel"
import * as SessionProcessor from "@gatehousejs/session/SessionProcessor"
import * as SessionPrompt from "@gatehousejs/session/SessionPrompt"
import * as SessionStatus from "@gatehousejs/session/SessionStatus"
import * as SessionStore from "@gatehousejs/session/SessionStore"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SseParser } from "./sse.ts"

export const tempProject = (): string => mkdtempSync(NodePath.join(tmpdir(), "gatehouse-server-"))

export interface StackOptions {
  readonly directory: string
  readonly script?: ScriptedModel.Script
  readonly ruleset?: Permission.Ruleset
  readonly token?: string
  readonly maxBodyBytes?: number
  readonly events?: EventStream.Options
  /** Where sessions are kept (default: in memory). */
  readonly store?: Layer.Layer<SessionStore.Service>
}

type Services =
  | Server.Service
  | EventStream.Service
  | SessionPrompt.Service
  | SessionProcessor.Service
  | Checkpoint.Service
  | SessionStatus.Service
  | SessionStore.Service
  | Permission.Service
  | ApprovalStore.Service
  | Bus.Service
  | Instance.Registry

/** The whole server with everything it needs. */
export const stack = (options: StackOptions): Layer.Layer<Services, unknown> => {
  const Base = Permission.layerMemory
  const Sessions = SessionPrompt.layer({
    toolkit: DefaultTools.toolkit,
    ruleset: options.ruleset ?? []
  }).pipe(
    Layer.provide(DefaultTools.layer),
    Layer.provide(ScriptedModel.layer(options.script ?? { turns: [] })),
    Layer.provideMerge(Layer.mergeAll(SessionProcessor.layer, Checkpoint.layer)),
    Layer.provideMerge(SessionStatus.layer),
    Layer.provideMerge(options.store ?? SessionStore.layerMemory),
    Layer.provide(Truncate.layerWith({ directory: NodePath.join(options.directory, ".spill") })),
    Layer.provide(NodeServices.layer)
  )
  return Server.layer({
    directory: options.directory,
    token: options.token ?? "test-token",
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.events === undefined ? {} : { events: options.events })
  }).pipe(Layer.provideMerge(Sessions), Layer.provideMerge(Base))
}

/**
 * Runs `effect` every 10 ms until `done` holds and returns that value; after `ms` the test
 * fails saying what it waited for and what it saw last, instead of hanging until the
 * test's own timeout.
 */
export const until = <A, E, R>(
  what: string,
  effect: Effect.Effect<A, E, R>,
  done: (value: A) => boolean,
  ms = 10_000
): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    for (;;) {
      const value = yield* effect
      if (done(value)) return value
      if (Date.now() > deadline) {
        const last = JSON.stringify(value)?.slice(0, 500)
        return yield* Effect.die(new Error(`gave up after ${ms} ms waiting for ${what}; last seen: ${last}`))
      }
      yield* Effect.sleep("10 millis")
    }
  })

export interface RawResponse {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** A request through node:http, which (unlike fetch) lets a test set `Host` freely. */
export const raw = (
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const request = Http.request(
      url,
      { method: options.method ?? "GET", headers: options.headers ?? {} },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8")
          })
        )
        res.on("error", reject)
      }
    )
    request.on("error", reject)
    if (options.body !== undefined) request.write(options.body)
    request.end()
  })

/** An SSE client over node:http that parses what it receives. */
export class SseClient {
  readonly parser: SseParser
  request: Http.ClientRequest | undefined
  response: Http.IncomingMessage | undefined
  ended = false
  private readonly watchers = new Set<() => void>()

  constructor(options: ConstructorParameters<typeof SseParser>[0] = {}) {
    this.parser = new SseParser(options)
  }

  static open(
    url: string,
    token: string,
    headers: Record<string, string> = {},
    options: ConstructorParameters<typeof SseParser>[0] = {}
  ): Promise<SseClient> {
    const client = new SseClient(options)
    return new Promise((resolve, reject) => {
      client.request = Http.get(
        `${url}/event`,
        { headers: { authorization: `Bearer ${token}`, ...headers } },
        (res) => {
          client.response = res
          res.on("data", (chunk: Buffer) => {
            client.parser.push(chunk)
            client.notify()
          })
          res.on("end", () => {
            client.ended = true
            client.notify()
          })
          res.on("error", () => {})
          resolve(client)
        }
      )
      client.request.on("error", reject)
    })
  }

  private notify() {
    for (const watcher of [...this.watchers]) watcher()
  }

  /** Resolves once `predicate` holds (checked on every chunk), rejects on end or after `ms`. */
  until(predicate: (parser: SseParser) => boolean, ms = 10_000): Promise<SseParser["frames"]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        done()
        reject(new Error(`timed out after ${this.parser.count} frames`))
      }, ms)
      const done = () => {
        clearTimeout(timer)
        this.watchers.delete(check)
      }
      const check = () => {
        if (predicate(this.parser)) {
          done()
          resolve(this.parser.frames)
        } else if (this.ended) {
          done()
          reject(new Error(`stream ended after ${this.parser.count} frames`))
        }
      }
      this.watchers.add(check)
      check()
    })
  }

  close(): void {
    this.request?.destroy()
  }
}
