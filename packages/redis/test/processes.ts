// Real processes for the group's tests: redis-server on a free loopback port (no
// persistence, its folder removed afterwards) and `gatehouse serve` from the cli's source.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { SseParser } from "../../server/test/sse.ts"

const BIN = fileURLToPath(new URL("../../cli/dist/gatehouse.js", import.meta.url))
export const TOKEN = "redis-group-test-token"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const waitFor = (what: string, read: () => string, pattern: RegExp, child: ChildProcess, ms = 20_000) =>
  new Promise<RegExpMatchArray>((resolve, reject) => {
    const deadline = Date.now() + ms
    const check = () => {
      const match = read().match(pattern)
      if (match) return resolve(match)
      if (child.exitCode !== null || Date.now() > deadline)
        return reject(new Error(`${what}: no ${pattern} in:\n${read()}`))
      setTimeout(check, 20)
    }
    check()
  })

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()))

export interface Redis {
  readonly url: string
  readonly port: number
  /** Stops it (SIGKILL: whatever it held is gone, as in a crash). */
  readonly kill: () => Promise<void>
  /** Starts it again on the same port, empty. */
  readonly start: () => Promise<void>
  /** Stops it and removes its folder. */
  readonly remove: () => Promise<void>
}

export const startRedis = async (): Promise<Redis> => {
  const port = await freePort()
  const dir = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-redis-"))
  let child: ChildProcess | undefined
  const start = async () => {
    const args = [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir
    ]
    const started = spawn("/usr/bin/redis-server", args, { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    started.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
    })
    child = started
    await waitFor("redis-server", () => out, /Ready to accept connections/, started)
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    kill: async () => {
      if (child === undefined) return
      const stopping = child
      child = undefined
      stopping.kill("SIGKILL")
      await exited(stopping)
    },
    remove: async () => {
      if (child !== undefined) {
        child.kill("SIGKILL")
        await exited(child)
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

export interface Serve {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  readonly stop: (signal?: NodeJS.Signals) => Promise<void>
}

/** The project folder every server of a test serves: an ask for every bash call, a script. */
export const project = (turns: ReadonlyArray<unknown>): string => {
  const dir = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-group-"))
  writeFileSync(
    NodePath.join(dir, "gatehouse.json"),
    JSON.stringify({ permission: { bash: { "*": "ask" } } })
  )
  writeFileSync(NodePath.join(dir, "script.json"), JSON.stringify({ turns }))
  return dir
}

/** One turn that runs `command` through bash (it asks), then one that answers. */
export const askingTurns = (command: string) => [
  {
    parts: [
      { type: "tool-call", name: "bash", params: { command } },
      { type: "finish", reason: "tool-calls" }
    ]
  },
  { parts: [{ type: "text", text: "Done." }] }
]

export const serve = async (
  dir: string,
  args: ReadonlyArray<string>,
  dataDirectory = NodePath.join(dir, ".data")
): Promise<Serve> => {
  const child = spawn(
    process.execPath,
    [BIN, "serve", "--cwd", dir, "--script", NodePath.join(dir, "script.json"), "--sandbox", "off", ...args],
    {
      env: { ...process.env, GATEHOUSE_SERVER_TOKEN: TOKEN, XDG_DATA_HOME: dataDirectory },
      stdio: ["ignore", "pipe", "pipe"]
    }
  )
  let out = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString()
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    out += chunk.toString()
  })
  const [, url] = await waitFor("gatehouse serve", () => out, /API\s+(http:\/\/127\.0\.0\.1:\d+)/, child)
  return {
    url: url!,
    child,
    output: () => out,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited(child)
    }
  }
}

/** Runs `serve` to its exit and returns its code and what it printed. */
export const serveExit = (dir: string, args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, "serve", "--cwd", dir, ...args], {
      env: { ...process.env, GATEHOUSE_SERVER_TOKEN: TOKEN, XDG_DATA_HOME: NodePath.join(dir, ".data") },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.on("exit", (code) => resolve({ code, output }))
  })

export const api = async (base: string, path: string, body?: unknown) => {
  const response = await fetch(base + path, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, json }
}

export type { SseFrame as Frame } from "../../server/test/sse.ts"

/** An SSE client of `GET /event`: every frame it has read so far. */
export const events = async (base: string, lastEventId?: string) => {
  const controller = new AbortController()
  const response = await fetch(`${base}/event`, {
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
    },
    signal: controller.signal
  })
  const parser = new SseParser()
  const reading = (async () => {
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) parser.push(chunk)
    } catch {
      // aborted or cut: the frames read so far stay
    }
  })()
  return {
    frames: parser.frames,
    close: () => {
      controller.abort()
      return reading
    }
  }
}

/** Polls `read` every 25 ms until `done` holds; fails after `ms` saying what it saw. */
export const until = async <A>(
  what: string,
  read: () => A | Promise<A>,
  done: (a: A) => boolean,
  ms = 15_000
) => {
  const deadline = Date.now() + ms
  let last: A = await read()
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 600)}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
    last = await read()
  }
  return last
}
