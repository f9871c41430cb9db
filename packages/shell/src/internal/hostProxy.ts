// The network allow-list of the sandbox: a command without a network of its own reaches
// only this proxy, through a unix socket bound into its /tmp. Outside, the proxy lets
// through CONNECT tunnels and plain HTTP requests to the allowed hosts and refuses the
// rest with 403. Inside, a bridge (the same Node binary, `node -e`) listens on the
// sandbox's own loopback and forwards every connection to the socket; HTTP_PROXY and
// HTTPS_PROXY point at it.
import * as NodeDns from "node:dns"
import { mkdtempSync, rmSync } from "node:fs"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { allowed, SOCKET, target } from "./proxyBridge.ts"

// A name on the allow-list that resolves to the host itself (loopback), to link-local
// addresses (cloud metadata at 169.254.169.254) or to "this network" would open the host's
// own services to the command (DNS rebinding); only an address written as such may.
const inward = (address: string): boolean => {
  const v4 = address.replace(/^::ffff:/i, "")
  if (/^\d+\.\d+\.\d+\.\d+$/.test(v4)) {
    const [a = 0, b = 0] = v4.split(".").map(Number)
    // loopback, "this network", link-local, private ranges, carrier-grade NAT
    return (
      a === 127 ||
      a === 0 ||
      a === 10 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    )
  }
  // IPv6 loopback, unspecified, link-local, unique local
  return /^(::1?|fe[89ab][0-9a-f]:.*|f[cd][0-9a-f]{2}:.*)$/i.test(address)
}

export interface Proxy {
  /** The host folder holding the socket; bound at {@link SANDBOX_DIR}. */
  readonly directory: string
  /** Hosts refused so far, in order, once each. */
  readonly refused: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

const HEAD_LIMIT = 16 * 1024

/** Starts a proxy for one command. */
export const start = (allow: ReadonlyArray<string>): Promise<Proxy> => {
  const directory = mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-proxy-"))
  const refused: Array<string> = []
  const sockets = new Set<NodeNet.Socket>()
  const server = NodeNet.createServer((client) => {
    sockets.add(client)
    client.on("close", () => sockets.delete(client))
    client.on("error", () => client.destroy())
    let head = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf("\r\n")
      if (end === -1) {
        if (head.length > HEAD_LIMIT) client.destroy()
        return
      }
      client.off("data", onData)
      const wanted = target(head.subarray(0, end).toString("latin1"))
      if (wanted === undefined || !allowed(wanted.host, allow, wanted.port)) {
        const host = wanted?.host ?? "(not a proxy request)"
        if (!refused.includes(host)) refused.push(host)
        client.end(
          `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\ngatehouse sandbox: ${host} is not in sandbox.network.allow\n`
        )
        return
      }
      const literal = NodeNet.isIP(wanted.host) !== 0
      const upstream = NodeNet.connect({
        port: wanted.port,
        host: wanted.host,
        lookup: (hostname, options, callback) =>
          NodeDns.lookup(hostname, options, (error, address, family) => {
            if (error === null && !literal) {
              const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address]
              if (addresses.some(inward)) {
                if (!refused.includes(wanted.host)) refused.push(wanted.host)
                callback(new Error(`${wanted.host} resolves to an address of this host`), "", 4)
                return
              }
            }
            ;(callback as (error: NodeJS.ErrnoException | null, address: unknown, family?: number) => void)(
              error,
              address,
              family
            )
          })
      })
      sockets.add(upstream)
      upstream.on("close", () => sockets.delete(upstream))
      upstream.on("error", () => {
        if (wanted.connect && client.writable)
          client.end("HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n")
        else client.destroy()
      })
      upstream.once("connect", () => {
        if (wanted.connect) {
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
          const rest = head.indexOf("\r\n\r\n")
          if (rest !== -1 && rest + 4 < head.length) upstream.write(head.subarray(rest + 4))
        } else upstream.write(head)
        client.pipe(upstream)
        upstream.pipe(client)
      })
      client.on("close", () => upstream.destroy())
    }
    client.on("data", onData)
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(NodePath.join(directory, SOCKET), () =>
      resolve({
        directory,
        refused,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => {
              rmSync(directory, { recursive: true, force: true })
              done()
            })
          })
      })
    )
  })
}
