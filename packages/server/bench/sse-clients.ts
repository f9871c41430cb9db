// The client side of sse.bench.ts, in its own process (the server keeps its core):
// opens N SSE clients, and for every `bench.tick` measures publish -> receive latency from
// the publish time the event carries. Reads commands on stdin, answers JSON lines on stdout.
//   argv: <url> <token> <clients>
//   stdin "done <count>": the publisher sent ticks n = 0 .. count-1; report once all arrived
//   (or 10 s later).
import * as Http from "node:http"
import * as Readline from "node:readline"

const [url, token, clientsArg] = process.argv.slice(2)
const clients = Number(clientsArg)
const now = () => performance.timeOrigin + performance.now()

interface Client {
  received: number
  resyncs: number
  ordered: boolean
  /** Envelope id of the last tick. */
  last: number
  /** `n` of the last tick. */
  lastN: number
}

const latencies: Array<number> = []
const state: Array<Client> = []
let connected = 0

const open = (client: Client) => {
  const request = Http.get(`${url}/event`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
    res.setEncoding("utf8")
    let buffer = ""
    res.on("data", (chunk: string) => {
      const at = now()
      buffer += chunk
      let end = buffer.indexOf("\n\n")
      while (end !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        end = buffer.indexOf("\n\n")
        const data = block.slice(block.indexOf("data: ") + 6)
        const event = JSON.parse(data)
        if (event.type === "server.connected") {
          if (++connected === clients) console.log(JSON.stringify({ ready: true }))
        } else if (event.type === "server.resync") {
          client.resyncs++
        } else if (event.type === "bench.tick") {
          if (event.id !== client.last + 1 && client.last !== 0) client.ordered = false
          client.last = event.id
          client.lastN = event.properties.n
          client.received++
          latencies.push(at - event.properties.t)
        }
      }
    })
  })
  request.on("error", (error) => {
    console.error(error)
    process.exit(1)
  })
}

for (let i = 0; i < clients; i++) {
  const client: Client = { received: 0, resyncs: 0, ordered: true, last: 0, lastN: -1 }
  state.push(client)
  open(client)
}

const report = () => {
  latencies.sort((a, b) => a - b)
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0
  console.log(
    JSON.stringify({
      received: state.reduce((sum, c) => sum + c.received, 0),
      resyncs: state.reduce((sum, c) => sum + c.resyncs, 0),
      ordered: state.every((c) => c.ordered),
      p50: at(50),
      p99: at(99),
      max: latencies.at(-1) ?? 0
    })
  )
  process.exit(0)
}

Readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [command, count] = line.split(" ")
  if (command !== "done") return
  const expected = Number(count)
  const deadline = Date.now() + 10_000
  const check = () => {
    if (state.every((c) => c.lastN >= expected - 1) || Date.now() > deadline) report()
    else setTimeout(check, 20)
  }
  check()
})
