// What the sandbox side of the host allow-list needs without starting anything: where the
// proxy's socket appears inside, the bridge that listens on the sandbox's own loopback, the
// proxy variables, and how a request's host is matched against the list. The proxy itself
// (node:net, node:dns) is in hostProxy.ts, loaded only when a command needs it.
/** The port the bridge listens on inside the sandbox (its loopback is its own). */
export const BRIDGE_PORT = 3128

/** Where the proxy's socket folder appears inside the sandbox. */
export const SANDBOX_DIR = "/tmp/.gatehouse-proxy"

export const SOCKET = "proxy.sock"

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

/** `host:port` of a CONNECT target or of an absolute-form HTTP request, from its first line. */
export const target = (line: string): { host: string; port: number; connect: boolean } | undefined => {
  const connect = /^CONNECT\s+(\[[^\]]+\]|[^\s:]+):(\d{1,5})\s+HTTP\/1\.[01]$/i.exec(line)
  if (connect) return { host: connect[1]!.replace(/^\[|\]$/g, ""), port: Number(connect[2]), connect: true }
  const plain = /^[A-Z]+\s+http:\/\/(\[[^\]]+\]|[^\s/:?#]+)(?::(\d{1,5}))?[^\s]*\s+HTTP\/1\.[01]$/i.exec(line)
  if (plain) return { host: plain[1]!.replace(/^\[|\]$/g, ""), port: Number(plain[2] ?? 80), connect: false }
  return undefined
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
