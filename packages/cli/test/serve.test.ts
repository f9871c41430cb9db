import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const BIN = fileURLToPath(new URL("../dist/gatehouse.js", import.meta.url))

const run = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, [BIN, "serve", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  let err = ""
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString()
  })
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString()
  })
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const printed = (pattern: RegExp, ms = 20_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const deadline = Date.now() + ms
      const check = () => {
        const match = out.match(pattern)
        if (match) return resolve(match)
        if (child.exitCode !== null || Date.now() > deadline) {
          return reject(new Error(`not printed: ${pattern}\nstdout: ${out}\nstderr: ${err}`))
        }
        setTimeout(check, 20)
      }
      check()
    })
  return { child, exit, printed, output: () => ({ out, err }) }
}

describe("gatehouse serve", () => {
  it("prints the URL with the token, serves the API, and stops on SIGINT", async () => {
    const project = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-serve-"))
    const server = run(["--cwd", project, "--port", "0"], {
      GATEHOUSE_SERVER_TOKEN: "serve-test-token",
      XDG_DATA_HOME: NodePath.join(project, ".data")
    })
    const [, url] = await server.printed(/web page\s+(http:\/\/127\.0\.0\.1:\d+)\/\?token=serve-test-token/)
    const auth = { authorization: "Bearer serve-test-token" }
    assert.strictEqual((await fetch(`${url}/session`)).status, 401)
    const created = await fetch(`${url}/session`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ title: "from the test" })
    })
    assert.strictEqual(created.status, 201)
    assert.strictEqual(((await created.json()) as { directory: string }).directory, project)
    const doc = await fetch(`${url}/doc`, { headers: auth })
    assert.strictEqual(((await doc.json()) as { info: { title: string } }).info.title, "Gatehouse")
    // An open event stream must not hold the shutdown.
    const events = await fetch(`${url}/event`, { headers: auth })
    assert.strictEqual(events.status, 200)
    const started = Date.now()
    server.child.kill("SIGINT")
    assert.strictEqual(await server.exit, 0)
    assert.isBelow(Date.now() - started, 5_000)
  }, 30_000)

  it("--max-clients bounds the event stream clients: the next one gets 429 naming the flag", async () => {
    const project = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-serve-clients-"))
    const bad = run(["--cwd", project, "--max-clients", "0"], {})
    assert.strictEqual(await bad.exit, 2)
    assert.match(bad.output().err, /--max-clients: expected a whole number 1-100000, got "0"/)
    const server = run(["--cwd", project, "--max-clients", "2"], {
      GATEHOUSE_SERVER_TOKEN: "clients-test-token",
      XDG_DATA_HOME: NodePath.join(project, ".data")
    })
    const [, url] = await server.printed(/web page\s+(http:\/\/127\.0\.0\.1:\d+)\//)
    const auth = { authorization: "Bearer clients-test-token" }
    const open = [
      await fetch(`${url}/event`, { headers: auth }),
      await fetch(`${url}/event`, { headers: auth })
    ]
    assert.deepStrictEqual(
      open.map((response) => response.status),
      [200, 200]
    )
    const refused = await fetch(`${url}/event`, { headers: auth })
    assert.strictEqual(refused.status, 429)
    assert.include(((await refused.json()) as { detail: string }).detail, "--max-clients")
    server.child.kill("SIGINT")
    assert.strictEqual(await server.exit, 0)
  }, 30_000)

  it("turns get checkpoints: an edit is listed and rewound through the API", async () => {
    const project = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-serve-rewind-"))
    writeFileSync(NodePath.join(project, "greet.txt"), "Hello\n")
    writeFileSync(NodePath.join(project, "gatehouse.json"), JSON.stringify({ permission: { edit: "allow" } }))
    const script = NodePath.join(project, "script.json")
    writeFileSync(
      script,
      JSON.stringify({
        turns: [
          {
            parts: [
              {
                type: "tool-call",
                name: "edit",
                params: { filePath: "greet.txt", oldString: "Hello", newString: "Hi there" }
              },
              { type: "finish", reason: "tool-calls" }
            ]
          },
          { parts: [{ type: "text", text: "Edited." }] }
        ]
      })
    )
    const server = run(["--cwd", project, "--script", script], {
      GATEHOUSE_SERVER_TOKEN: "serve-test-token",
      XDG_DATA_HOME: NodePath.join(project, ".data")
    })
    try {
      const [, url] = await server.printed(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
      const request = async (path: string, body?: unknown) => {
        const response = await fetch(url + path, {
          method: body === undefined ? "GET" : "POST",
          headers: { authorization: "Bearer serve-test-token", "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        return { status: response.status, json: (await response.json().catch(() => undefined)) as any }
      }
      const { json: session } = await request("/session", {})
      assert.strictEqual((await request(`/session/${session.id}/prompt`, { text: "Say hi" })).status, 202)
      let checkpoints: any
      for (let i = 0; i < 500; i++) {
        const view = await request(`/session/${session.id}`)
        checkpoints = (await request(`/session/${session.id}/checkpoint`)).json
        if (view.json.status.type === "idle" && checkpoints[0]?.files.length === 1) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.deepStrictEqual(checkpoints[0].files, ["greet.txt"])
      assert.strictEqual(readFileSync(NodePath.join(project, "greet.txt"), "utf8"), "Hi there\n")
      const rewound = await request(`/session/${session.id}/rewind`, { turn: 1, scope: "code" })
      assert.strictEqual(rewound.status, 200)
      assert.strictEqual(readFileSync(NodePath.join(project, "greet.txt"), "utf8"), "Hello\n")
    } finally {
      server.child.kill("SIGINT")
      await server.exit
    }
  }, 30_000)

  it("refuses a bad port or a broken config with exit 2", async () => {
    const broken = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-serve-config-"))
    writeFileSync(NodePath.join(broken, "gatehouse.json"), JSON.stringify({ mode: "reckless" }))
    for (const args of [
      ["--port", "70000"],
      ["--cwd", broken]
    ]) {
      const server = run(args, {})
      assert.strictEqual(await server.exit, 2, args.join(" "))
      assert.match(server.output().err, /gatehouse serve:/)
      if (args[1] === broken) assert.match(server.output().err, /mode: expected ask \| auto \| yolo/)
    }
  }, 30_000)
})
