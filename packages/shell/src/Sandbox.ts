/**
 * The second line of defence: what the gate lets through runs inside a kernel sandbox
 * whose policy comes from the same permission rules. Static analysis of a shell command is
 * never complete (`npm test` runs whatever `package.json` says); the sandbox holds whatever
 * the analysis missed.
 *
 * One policy, two enforcers: {@link policy} turns the settings and the ruleset into what
 * may be written, what is hidden and whether the network is reachable; {@link bwrapArgs}
 * (Linux, bubblewrap) and {@link seatbeltProfile} (macOS, `sandbox-exec`) enforce it.
 *
 * @since 0.1.0
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Wildcard from "@gatehousejs/permission/Wildcard"
import * as Schema from "effect/Schema"
import * as HostProxy from "./internal/hostProxy.ts"

/**
 * `auto` (default): enforce where the platform's sandbox works, else run unsandboxed and say
 * so; `enforce`: no sandbox, nothing runs ({@link UnavailableError}); `off`: never sandbox.
 *
 * @since 0.1.0
 */
export const Mode = Schema.Literals(["auto", "enforce", "off"])

/**
 * @since 0.1.0
 */
export type Mode = typeof Mode.Type

/**
 * `none` (default): the command gets a network namespace of its own, with no route out and
 * no way to the host's loopback; `allow`: the host's network; `{ allow: [hosts] }`: no
 * network of its own either, only a proxy that lets HTTP(S) through to those hosts
 * (`github.com`, or `*.example.com` for subdomains) and refuses the rest.
 *
 * @since 0.1.0
 */
export const Network = Schema.Union([
  Schema.Literals(["none", "allow"]),
  Schema.Struct({ allow: Schema.Array(Schema.String) })
])

/**
 * @since 0.1.0
 */
export type Network = typeof Network.Type

/**
 * The `sandbox` block of `gatehouse.json` (`"sandbox": "auto"` is short for `{ mode: "auto" }`).
 *
 * @since 0.1.0
 */
export interface Settings {
  readonly mode: Mode
  readonly network: Network
  /** More writable paths (absolute, or `~/…`). */
  readonly allowWrite: ReadonlyArray<string>
  /** More hidden paths (absolute, or `~/…`). */
  readonly denyRead: ReadonlyArray<string>
  /** Paths taken off the default list of home secrets ({@link HOME_SECRETS}). */
  readonly allowRead: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 */
export const defaults: Settings = {
  mode: "auto",
  network: "none",
  allowWrite: [],
  denyRead: [],
  allowRead: []
}

/**
 * What is hidden in the home directory by default: credentials, keys and browser profiles.
 *
 * @since 0.1.0
 */
export const HOME_SECRETS: ReadonlyArray<string> = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gh",
  ".netrc",
  ".docker/config.json",
  ".kube",
  ".npmrc",
  ".git-credentials",
  ".config/gcloud",
  ".azure",
  ".config/google-chrome",
  ".config/chromium",
  ".mozilla",
  "Library/Application Support/Google/Chrome",
  "Library/Application Support/Firefox",
  "Library/Keychains"
]

// Sockets that reach host services (D-Bus, the desktop session, agents), hidden unless the
// settings make them readable again.
const HOST_SOCKETS: ReadonlyArray<string> = ["/run/user", "/run/dbus", "/var/run/dbus"]

/**
 * A path the sandbox hides: an empty file (`file`) or an empty directory (`directory`) over it.
 *
 * @since 0.1.0
 */
export interface Masked {
  readonly path: string
  readonly kind: "file" | "directory"
}

/**
 * What one command may do. Paths are absolute and resolved through symlinks (the kernel
 * binds what a link points to, so a policy names the real place).
 *
 * @since 0.1.0
 */
export interface Policy {
  /** Where the command may write: the project, a private /tmp (always), `allow_write`. */
  readonly writable: ReadonlyArray<string>
  /**
   * The host directory mounted as the command's /tmp ({@link projectTmp}): private to the
   * project's commands and kept between them; `undefined`: an empty /tmp per command.
   */
  readonly tmp?: string | undefined
  /** Inside the writable places, what `edit` rules deny: bound read-only. */
  readonly readOnly: ReadonlyArray<string>
  /** What `read` rules deny and the home's secrets. */
  readonly masked: ReadonlyArray<Masked>
  readonly network: "none" | "allow"
  /** With `network: "none"`: the hosts the proxy lets through (`sandbox.network.allow`). */
  readonly allowHosts?: ReadonlyArray<string> | undefined
  /** Why the policy is stricter or looser than the settings asked, for the trace. */
  readonly notes: ReadonlyArray<string>
}

/**
 * The platform has no usable sandbox and the mode is `enforce`: nothing runs.
 *
 * @since 0.1.0
 */
export class UnavailableError extends Schema.TaggedError<UnavailableError>()("SandboxUnavailableError", {
  message: Schema.String
}) {}

// How far the project is walked for paths that edit/read rules deny: the walk runs per
// command, so it is bounded; a rule that names a deeper file still holds at the gate.
const WALK_ENTRIES = 4000
const WALK_DEPTH = 6

const expandHome = (path: string, home: string): string =>
  path === "~" ? home : path.startsWith("~/") ? NodePath.join(home, path.slice(2)) : path

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

const kindOf = (path: string): Masked["kind"] | undefined => {
  try {
    return lstatSync(path).isDirectory() ? "directory" : "file"
  } catch {
    return undefined
  }
}

const denies = (permission: string, relative: string, ruleset: Permission.Ruleset): boolean =>
  Permission.evaluate(permission, relative, ruleset).action === "deny"

// A probe child name: a rule such as `.git/*` denies everything under `.git` though not
// `.git` itself, and the sandbox can only protect the directory as a whole.
const PROBE = "\u0001gatehouse-probe"

// Whether any deny rule could apply to `permission`: without one, nothing is walked.
const mayDeny = (ruleset: Permission.Ruleset, permission: string): boolean =>
  ruleset.some((rule) => rule.action === "deny" && Wildcard.match(permission, rule.permission))

/** Entries of the project whose writes (`edit`) or reads (`read`) the rules deny. */
const deniedInProject = (
  root: string,
  ruleset: Permission.Ruleset
): { readOnly: Array<string>; masked: Array<Masked>; truncated: boolean } => {
  const readOnly: Array<string> = []
  const masked: Array<Masked> = []
  const wanted = { edit: mayDeny(ruleset, "edit"), read: mayDeny(ruleset, "read") }
  let budget = WALK_ENTRIES
  let truncated = false
  if (!wanted.edit && !wanted.read) return { readOnly, masked, truncated }
  const visit = (dir: string, relative: string, depth: number): void => {
    let entries: Array<import("node:fs").Dirent>
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (budget-- <= 0) {
        truncated = true
        return
      }
      const rel = relative === "" ? entry.name : `${relative}/${entry.name}`
      const path = NodePath.join(dir, entry.name)
      const isDirectory = entry.isDirectory()
      const whole = (permission: string) =>
        denies(permission, rel, ruleset) || (isDirectory && denies(permission, `${rel}/${PROBE}`, ruleset))
      if (whole("read")) {
        masked.push({ path, kind: isDirectory ? "directory" : "file" })
        continue
      }
      if (whole("edit")) {
        readOnly.push(path)
        continue
      }
      if (isDirectory && depth < WALK_DEPTH) visit(path, rel, depth + 1)
    }
  }
  visit(root, "", 1)
  return { readOnly, masked, truncated }
}

/**
 * The policy for commands of the project at `projectRoot` under `ruleset` (later rules
 * win, as at the gate). Paths that do not exist are left out: there is nothing to bind.
 *
 * @since 0.1.0
 */
export const policy = (input: {
  readonly settings: Settings
  readonly ruleset: Permission.Ruleset
  readonly projectRoot: string
  readonly home?: string | undefined
  /** The host directory to mount as /tmp (see {@link projectTmp}); default: an empty one per command. */
  readonly tmp?: string | undefined
}): Policy => {
  const home = input.home ?? NodeOs.homedir()
  const root = real(input.projectRoot) ?? NodePath.resolve(input.projectRoot)
  const notes: Array<string> = []
  const writable = [root]
  for (const extra of input.settings.allowWrite) {
    const path = real(expandHome(extra, home))
    if (path !== undefined && !writable.includes(path)) writable.push(path)
  }
  const inProject = deniedInProject(root, input.ruleset)
  if (inProject.truncated) {
    notes.push(
      `the project has more than ${WALK_ENTRIES} entries: only the first were checked against edit and read rules`
    )
  }
  const masked: Array<Masked> = [...inProject.masked]
  const allowRead = new Set(input.settings.allowRead.map((path) => expandHome(path, home)))
  const hide = (path: string) => {
    if (allowRead.has(path)) return
    const resolved = real(path)
    const kind = resolved === undefined ? undefined : kindOf(resolved)
    if (resolved === undefined || kind === undefined) return
    if (masked.some((entry) => entry.path === resolved)) return
    masked.push({ path: resolved, kind })
  }
  for (const secret of HOME_SECRETS) hide(NodePath.join(home, secret))
  for (const socket of HOST_SOCKETS) hide(socket)
  for (const extra of input.settings.denyRead) hide(expandHome(extra, home))
  // Absolute paths that read rules deny by name (no wildcard) are hidden too.
  for (const rule of input.ruleset) {
    if (rule.permission !== "read" || rule.action !== "deny" || /[*?]/.test(rule.pattern)) continue
    const path = expandHome(rule.pattern, home)
    if (NodePath.isAbsolute(path) && denies("read", path, input.ruleset)) hide(path)
  }
  const network = input.settings.network === "allow" ? "allow" : "none"
  const allowHosts = typeof input.settings.network === "object" ? input.settings.network.allow : undefined
  if (allowHosts !== undefined && process.platform === "darwin") {
    notes.push("the host allow-list needs the Linux proxy bridge: on macOS the command gets no network")
  }
  return {
    writable,
    ...(input.tmp === undefined ? {} : { tmp: input.tmp }),
    readOnly: inProject.readOnly,
    masked,
    network,
    ...(allowHosts === undefined ? {} : { allowHosts }),
    notes
  }
}

/**
 * The /tmp of a project's sandboxed commands: `<system temp>/gatehouse-<uid>/tmp-<hash of
 * the project path>`, created 0700. Private from the host's /tmp and from other projects,
 * kept between commands (a file one command writes to /tmp is there for the next; tools'
 * caches stay warm). `undefined` when the folder cannot be trusted (not a directory of
 * ours, a symlink, open to others): the sandbox then gets an empty /tmp per command.
 *
 * @since 0.1.0
 */
export const projectTmp = (projectRoot: string): string | undefined => {
  const uid = process.getuid?.() ?? -1
  const parent = NodePath.join(NodeOs.tmpdir(), `gatehouse-${uid}`)
  const dir = NodePath.join(
    parent,
    `tmp-${createHash("sha256").update(NodePath.resolve(projectRoot)).digest("hex").slice(0, 16)}`
  )
  const ours = (path: string) => {
    const stat = lstatSync(path)
    return stat.isDirectory() && !stat.isSymbolicLink() && stat.uid === uid && (stat.mode & 0o077) === 0
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    return ours(parent) && ours(dir) ? dir : undefined
  } catch {
    return undefined
  }
}

/**
 * The bubblewrap arguments that run a command under `policy` in `cwd`: the whole file system
 * read-only, a private /tmp, the writable places bound back writable, denied paths inside
 * them read-only again, masks last; new PID, IPC, UTS and (unless allowed) network
 * namespaces; the sandbox dies with its parent. The command follows `--`.
 *
 * @since 0.1.0
 */
export const bwrapArgs = (
  policy: Policy,
  cwd: string,
  proxy?: { readonly directory: string; readonly node: string } | undefined
): Array<string> => {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
  if (policy.tmp === undefined) args.push("--tmpfs", "/tmp")
  else args.push("--bind", policy.tmp, "/tmp")
  for (const path of policy.writable) args.push("--bind", path, path)
  for (const path of policy.readOnly) args.push("--ro-bind", path, path)
  for (const entry of policy.masked) {
    if (entry.kind === "directory") args.push("--tmpfs", entry.path, "--remount-ro", entry.path)
    else args.push("--ro-bind", "/dev/null", entry.path)
  }
  args.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(policy.network === "none" ? ["--unshare-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--unsetenv",
    "SSH_AUTH_SOCK",
    "--unsetenv",
    "DBUS_SESSION_BUS_ADDRESS",
    "--chdir",
    cwd
  )
  if (proxy === undefined) {
    args.push("--")
    return args
  }
  args.push(
    "--bind",
    proxy.directory,
    HostProxy.SANDBOX_DIR,
    ...HostProxy.proxyEnv(),
    "--",
    ...HostProxy.bridgeArgv(proxy.node)
  )
  return args
}

const quote = (path: string): string => JSON.stringify(path)

/**
 * The Seatbelt profile (`sandbox-exec -p PROFILE -- command`) for `policy` on macOS: writes
 * only to the writable places (and the system's temporary folders), never to the read-only
 * ones, no reads of the masked ones, no network unless allowed. Generated from the same
 * policy as {@link bwrapArgs}; untested on a real Mac (see the README).
 *
 * @since 0.1.0
 */
export const seatbeltProfile = (policy: Policy): string => {
  const lines = [
    "(version 1)",
    "(allow default)",
    '(deny file-write* (require-not (require-any (literal "/dev/null") (literal "/dev/tty") (subpath "/dev/fd")',
    '  (subpath "/private/tmp") (subpath "/private/var/folders")',
    ...policy.writable.map((path) => `  (subpath ${quote(path)})`),
    ")))"
  ]
  for (const path of policy.readOnly) lines.push(`(deny file-write* (subpath ${quote(path)}))`)
  for (const entry of policy.masked) {
    const filter =
      entry.kind === "directory" ? `(subpath ${quote(entry.path)})` : `(literal ${quote(entry.path)})`
    lines.push(`(deny file-read* file-write* ${filter})`)
  }
  if (policy.network === "none")
    lines.push("(deny network*)", '(allow network* (remote unix-socket (path-literal "/dev/null")))')
  return `${lines.join("\n")}\n`
}

/**
 * The sandbox this platform offers: `bwrap` where bubblewrap is installed and can create
 * the namespaces it needs (checked by running it once), `seatbelt` on macOS, else
 * `undefined` with the reason.
 *
 * @since 0.1.0
 */
export const detect = ():
  | { readonly kind: "bwrap" | "seatbelt"; readonly path: string }
  | { readonly kind: undefined; readonly reason: string } => {
  if (process.platform === "darwin") {
    return existsSync("/usr/bin/sandbox-exec")
      ? { kind: "seatbelt", path: "/usr/bin/sandbox-exec" }
      : { kind: undefined, reason: "/usr/bin/sandbox-exec is missing" }
  }
  if (process.platform !== "linux")
    return { kind: undefined, reason: `no sandbox is built for ${process.platform}` }
  const path = findOnPath("bwrap")
  if (path === undefined) {
    return {
      kind: undefined,
      reason: "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    }
  }
  const proof = probeRecord(path)
  if (proof !== undefined && existsSync(proof)) return { kind: "bwrap", path }
  try {
    execFileSync(
      path,
      [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-pid",
        "--unshare-net",
        "--",
        "/bin/true"
      ],
      { stdio: "ignore", timeout: 10_000 }
    )
    if (proof !== undefined) {
      try {
        writeFileSync(proof, "", { mode: 0o600, flag: "wx" })
      } catch {
        // Another process wrote it first, or the folder went away: the next start probes again.
      }
    }
    return { kind: "bwrap", path }
  } catch (error) {
    return {
      kind: undefined,
      reason: `bubblewrap (${path}) cannot create its namespaces here (${error instanceof Error ? error.message : String(error)}); unprivileged user namespaces may be disabled`
    }
  }
}

// Where a successful probe of this bubblewrap is remembered until the next boot (or a new
// bwrap binary): one spawn less at every start of a one-shot command. Only in our own
// 0700 folder; anywhere else the probe runs every time.
const probeRecord = (path: string): string | undefined => {
  try {
    const uid = process.getuid?.() ?? -1
    const folder = NodePath.join(NodeOs.tmpdir(), `gatehouse-${uid}`)
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const stat = lstatSync(folder)
    if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) return undefined
    const binary = lstatSync(realpathSync(path))
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
    const key = createHash("sha256").update(`${path}\0${binary.ino}\0${binary.mtimeMs}\0${binary.size}\0${boot}`).digest("hex")
    return NodePath.join(folder, `bwrap-ok-${key.slice(0, 16)}`)
  } catch {
    return undefined
  }
}

/**
 * The policy of a command that runs outside the sandbox: nothing is bound or hidden.
 *
 * @since 0.1.0
 */
export const unconfined: Policy = { writable: [], readOnly: [], masked: [], network: "allow", notes: [] }

/**
 * The sandbox program this platform would use, found without running it (what
 * `gatehouse check` reports; {@link detect} also proves that it works).
 *
 * @since 0.1.0
 */
export const installed = (): string | undefined =>
  process.platform === "darwin"
    ? existsSync("/usr/bin/sandbox-exec")
      ? "/usr/bin/sandbox-exec"
      : undefined
    : process.platform === "linux"
      ? findOnPath("bwrap")
      : undefined

/**
 * The policy in a few lines for a person: the mode and enforcer, then writable, read-only
 * and masked paths (the home shown as `~`), the network and the notes.
 *
 * @since 0.1.0
 */
export const describe = (
  settings: Settings,
  policy: Policy,
  enforcer: string | undefined,
  home: string = NodeOs.homedir()
): Array<string> => {
  const show = (path: string) =>
    path === home ? "~" : path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path
  const list = (paths: ReadonlyArray<string>) => (paths.length === 0 ? "(none)" : paths.map(show).join(", "))
  const how =
    settings.mode === "off"
      ? "off: commands run unsandboxed"
      : enforcer === undefined
        ? settings.mode === "enforce"
          ? "enforce, but no sandbox is installed here: nothing would run"
          : "auto, but no sandbox is installed here: commands run unsandboxed"
        : `${settings.mode} · ${enforcer}`
  return [
    `sandbox: ${how}`,
    `  writable: ${list([...policy.writable, policy.tmp === undefined ? "/tmp (private, empty)" : "/tmp (private to the project)"])}`,
    `  read-only: ${list(policy.readOnly)}`,
    `  masked: ${list(policy.masked.map((entry) => entry.path))}`,
    `  network: ${
      policy.network === "allow"
        ? "allowed"
        : policy.allowHosts === undefined
          ? "none (own network namespace)"
          : `only ${policy.allowHosts.join(", ")} (HTTP and HTTPS through a proxy)`
    }`,
    ...policy.notes.map((note) => `  note: ${note}`)
  ]
}

const findOnPath = (name: string): string | undefined => {
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(NodePath.delimiter)) {
    if (dir === "") continue
    const candidate = NodePath.join(dir, name)
    if (existsSync(candidate)) return candidate
  }
  return undefined
}

/**
 * How a command will run: under which sandbox (or none, and why), with which policy.
 *
 * @since 0.1.0
 */
export type Plan =
  | {
      readonly sandboxed: true
      readonly kind: "bwrap" | "seatbelt"
      readonly path: string
      readonly policy: Policy
    }
  | { readonly sandboxed: false; readonly reason: string; readonly policy: Policy }

/**
 * The wrapper's program and arguments that go before the command's own argv.
 *
 * @since 0.1.0
 */
export const wrapper = (
  plan: Plan,
  cwd: string,
  proxyDirectory?: string | undefined
): { readonly file: string; readonly args: ReadonlyArray<string> } | undefined => {
  if (!plan.sandboxed) return undefined
  if (plan.kind === "bwrap") {
    const proxy = proxyDirectory === undefined ? undefined : { directory: proxyDirectory, node: process.execPath }
    return { file: plan.path, args: bwrapArgs(plan.policy, cwd, proxy) }
  }
  return { file: plan.path, args: ["-p", seatbeltProfile(plan.policy), "--"] }
}

/**
 * Starts the allow-list proxy of one command (see {@link Policy.allowHosts}); its
 * `directory` goes to {@link wrapper}, its `refused` hosts into the result.
 *
 * @since 0.1.0
 */
export const startProxy = (allow: ReadonlyArray<string>): Promise<HostProxy.Proxy> => HostProxy.start(allow)

/**
 * Words in a failed command's output that say the sandbox refused something, and what.
 *
 * @since 0.1.0
 */
export const refusal = (output: string, policy: Policy): string | undefined => {
  if (/Read-only file system/i.test(output))
    return "a write outside the writable places (read-only file system)"
  if (
    policy.network === "none" &&
    /(Network is unreachable|Could not resolve host|Temporary failure in name resolution|getaddrinfo E(AI_AGAIN|NOTFOUND)|Name or service not known)/i.test(
      output
    )
  ) {
    return "a network connection (the sandbox has no network)"
  }
  return undefined
}
