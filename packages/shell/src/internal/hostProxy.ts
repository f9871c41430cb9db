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

/** The port the bridge listens on inside the sandbox (its loopback is its own). */
export const BRIDGE_PORT = 3128

/** Where the proxy's socket folder appears inside the sandbox. */
export const SANDBOX_DIR = "/tmp/.gatehouse-proxy"

const SOCKET = "proxy.sock"

/**
 * Whether `host:port` is one of `allow`: an exact name, or `*.example.com` for its
 * subdomains, on the web's ports (80, 443) unless the entry names one (`example.com:8443`).
 */
export const allowed = (host: string, allow: ReadonlyArray<string>, port = 443): boolean => {
  const name = host.toLowerCase().replace(/\.$/, "")
  return allow.some((entry) => {
    const [rule = "", only] = entry.toLowerCase().split(/:(?=\d+$)/)
    const portOk = only === undefined ? port === 80 || port === 443 : port === Number(only)
    const nameOk = rule.startsWith("*.")
      ? name.endsWith(rule.slice(1)) && name.length > rule.length - 1
      : name === rule
    return portOk && nameOk
  })
}

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

/** `host:port` of a CONNECT target or of an absolute-form HTTP request, from its first line. */
export const target = (line: string): { host: string; port: number; connect: boolean } | undefined => {
  const connect = /^CONNECT\s+(\[[^\]]+\]|[^\s:]+):(\d{1,5})\s+HTTP\/1\.[01]$/i.exec(line)
  if (connect) return { host: connect[1]!.replace(/^\[|\]$/g, ""), port: Number(connect[2]), connect: true }
  const plain = /^[A-Z]+\s+http:\/\/(\[[^\]]+\]|[^\s/:?#]+)(?::(\d{1,5}))?[^\s]*\s+HTTP\/1\.[01]$/i.exec(line)
  if (plain) return { host: plain[1]!.replace(/^\[|\]$/g, ""), port: Number(plain[2] ?? 80), connect: false }
  return undefined
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

// Runs inside the sandbox: loopback port -> the unix socket, byte for byte. It writes a
// file when it listens, so the command starts only once the proxy can be reached.
const BRIDGE = `const n=require("node:net"),f=require("node:fs");const[s,p,r]=process.argv.slice(1);n.createServer(c=>{const u=n.connect(s);c.pipe(u).pipe(c);c.on("error",()=>u.destroy());u.on("error",()=>c.destroy())}).listen(+p,"127.0.0.1",()=>f.writeFileSync(r,""))`

/**
 * The shell prefix that starts the bridge and waits (at most 5 s) until it listens, then
 * runs the command's own argv (`"$@"`).
 */
export const bridgeArgv = (node: string): Array<string> => {
  const socket = `${SANDBOX_DIR}/${SOCKET}`
  const ready = `${SANDBOX_DIR}/ready-$$`
  return [
    "/bin/sh",
    "-c",
    `"$0" -e "$1" ${socket} ${BRIDGE_PORT} ${ready} & i=0; while [ ! -e ${ready} ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; shift; exec "$@"`,
    node,
    BRIDGE
  ]
}

/** The environment that sends HTTP clients through the bridge. */
export const proxyEnv = (): Array<string> => {
  const url = `http://127.0.0.1:${BRIDGE_PORT}`
  const out: Array<string> = []
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"]) {
    out.push("--setenv", name, url)
  }
  out.push("--setenv", "NO_PROXY", "localhost,127.0.0.1", "--setenv", "no_proxy", "localhost,127.0.0.1")
  return out
}
