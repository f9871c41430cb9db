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
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Sha256 from "@gatehousejs/core/Sha256"
import * as Defaults from "@gatehousejs/permission/Defaults"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as Wildcard from "@gatehousejs/permission/Wildcard"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import type * as HostProxy from "./internal/hostProxy.ts"
import * as PlantedRepository from "./internal/plantedRepository.ts"
import * as Programs from "./internal/programs.ts"
import * as ProxyBridge from "./internal/proxyBridge.ts"

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
 * What is hidden in the home directory by default: credentials (`Defaults.HOME_CREDENTIALS`,
 * whose reads also ask), browser profiles and the agents' own folders.
 *
 * @since 0.1.0
 */
export const HOME_SECRETS: ReadonlyArray<string> = [
  ...Defaults.HOME_CREDENTIALS,
  ".config/google-chrome",
  ".config/chromium",
  ".mozilla",
  "Library/Application Support/Google/Chrome",
  "Library/Application Support/Firefox",
  ".docker/run",
  ".claude",
  ".claude.json",
  ".codex",
  ".config/github-copilot"
]

// Environment variables whose names say they hold a credential: unset for the command.
const SECRET_ENV =
  /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|CREDENTIALS?|_AUTH)($|_)|^(AWS|AZURE|GOOGLE_APPLICATION|GH|GITHUB|GITLAB|NPM|HF|OPENAI|ANTHROPIC)_/i

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
  /**
   * Inside the writable places, what `edit` rules deny and what configures later commands
   * ({@link CONFIGURING}): bound read-only.
   */
  readonly readOnly: ReadonlyArray<string>
  /** What `read` rules deny and the home's secrets. */
  readonly masked: ReadonlyArray<Masked>
  readonly network: "none" | "allow"
  /**
   * Directories between the project and a protected path, bound onto themselves: a
   * mount point cannot be renamed, so the protection cannot be moved aside.
   */
  readonly pinned?: ReadonlyArray<string> | undefined
  /** Environment variables unset for the command (names that say they hold a credential). */
  readonly unsetEnv?: ReadonlyArray<string> | undefined
  /**
   * False when the project had more entries than are checked per command: paths that only
   * a glob rule names may be unprotected (`enforce` then refuses to run).
   */
  readonly complete?: boolean | undefined
  /** With `network: "none"`: the hosts the proxy lets through (`sandbox.network.allow`). */
  readonly allowHosts?: ReadonlyArray<string> | undefined
  /** Why the policy is stricter or looser than the settings asked, for the trace. */
  readonly notes: ReadonlyArray<string>
}

/**
 * Gatehouse's own folders under a home (paths relative to it): its configuration, remembered
 * approvals and code caches (the `gatehouse` command runs what its cache holds). Bound
 * read-only wherever a writable place holds them, also where `XDG_CONFIG_HOME`,
 * `XDG_DATA_HOME` and `XDG_CACHE_HOME` put them.
 *
 * @since 0.1.0
 */
export const GATEHOUSE_STATE: ReadonlyArray<string> = [
  ".config/gatehouse",
  ".local/share/gatehouse",
  ".cache/gatehouse"
]

const XDG_STATE = ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"] as const

/**
 * What, in a writable place, configures the commands that run after this one, outside the
 * sandbox (git's hooks and configuration, package managers' and direnv's files) or the gate
 * and the agents themselves (`gatehouse.json`, agents' settings and MCP servers): bound
 * read-only where it exists, so a command the gate let through cannot plant what runs
 * unsandboxed later. Writing them is an escalated edit, asked of a person, through the file
 * tools (which do not run in the sandbox) or `unsandboxed`.
 *
 * @since 0.1.0
 */
export const CONFIGURING: ReadonlyArray<string> = [
  // git's hooks and configuration (`commondir` and `config.worktree` lead it to another
  // configuration, `modules` holds the submodules' repositories), and the folders of hook
  // tools, agents and editors.
  ".git/hooks",
  ".git/config",
  ".git/info/attributes",
  ".git/commondir",
  ".git/config.worktree",
  ".git/modules",
  ".husky",
  ".opencode",
  ".claude",
  ".gemini",
  ".codex",
  ".cursor",
  ".roo",
  ".kiro",
  ".amazonq",
  ".continue",
  ".windsurf",
  ".zed",
  ".vscode",
  ".idea",
  ".devcontainer",
  ".cargo/config",
  ".cargo/config.toml",
  ".github/workflows",
  // Every file name the gate treats as configuring later commands (one list for both).
  ...Programs.CONFIG_NAMES,
  // Gatehouse's own folders, for a project that is the home itself.
  ...GATEHOUSE_STATE
]

// Folders an editor the person runs beside the agent may create at any moment: reported
// when a command created them, never removed.
const EDITOR_FOLDERS: ReadonlySet<string> = new Set([".vscode", ".cursor", ".idea", ".zed"])

/**
 * What of {@link CONFIGURING} is missing at the top of `projectRoot` before a sandboxed
 * command: a read-only binding needs something to bind, so these are checked after it
 * ({@link removePlanted}).
 *
 * @since 0.1.0
 */
export const missingConfiguring = (projectRoot: string): ReadonlyArray<string> => {
  const repository = lstatExists(NodePath.join(projectRoot, ".git"))
  // A link whose target is missing cannot be bound either: the command could fill it in.
  const missing = CONFIGURING.filter(
    (name) => (repository || !name.startsWith(".git/")) && !existsSync(NodePath.join(projectRoot, name))
  )
  // Without a repository, one the command makes (`git init`) is kept, disarmed (see removePlanted).
  return repository ? missing : [".git", ...missing]
}

const lstatExists = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false }) !== undefined

/**
 * After a sandboxed command: which of `missing` (from {@link missingConfiguring}) it
 * created. Those are removed again (a command the gate let through must not plant what
 * runs unsandboxed later: a `.npmrc`, a `gatehouse.json`, `.claude/settings.json`), except an
 * editor's folders, which are only reported, and a git repository, which is kept without
 * what would make git run a program (hooks, settings beyond those `git init` and `git clone`
 * write; see `internal/plantedRepository.ts`).
 *
 * @since 0.1.0
 */
export const removePlanted = (
  projectRoot: string,
  missing: ReadonlyArray<string>
): {
  readonly removed: ReadonlyArray<string>
  readonly kept: ReadonlyArray<string>
  /** Created and not removable (the command took away the write permission it needs). */
  readonly failed: ReadonlyArray<string>
} => {
  const removed: Array<string> = []
  const kept: Array<string> = []
  const failed: Array<string> = []
  for (const name of missing) {
    const path = NodePath.join(projectRoot, name)
    if (!lstatExists(path)) continue
    if (name === ".git") {
      const disarmed = PlantedRepository.disarm(path, ".git")
      removed.push(...disarmed.removed)
      failed.push(...disarmed.failed)
      continue
    }
    if (EDITOR_FOLDERS.has(name)) {
      kept.push(name)
      continue
    }
    try {
      rmSync(path, { recursive: true, force: true })
      removed.push(name)
    } catch {
      failed.push(name)
    }
  }
  return { removed, kept, failed }
}

/**
 * The platform has no usable sandbox and the mode is `enforce`: nothing runs.
 *
 * @since 0.1.0
 */
export class UnavailableError extends Schema.TaggedError<UnavailableError>()("SandboxUnavailableError", {
  message: Schema.String
}) {}

// How far the project is walked for paths that only glob rules name (`*.env`): the walk
// runs per command, breadth first (shallow entries before deep ones), and is bounded;
// paths that rules name literally (`.git/*` -> `.git`) are protected without it.
const WALK_ENTRIES = 20_000
const WALK_DEPTH = 12

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

const denies = (permission: string, name: string, ruleset: Permission.Ruleset): boolean =>
  Ruleset.evaluate(permission, name, ruleset).action === "deny"

// A probe child name: a rule such as `.git/*` denies everything under `.git` though not
// `.git` itself, and the sandbox can only protect the directory as a whole.
const PROBE = "\u0001gatehouse-probe"

const deniesWhole = (permission: string, name: string, directory: boolean, ruleset: Permission.Ruleset) =>
  denies(permission, name, ruleset) || (directory && denies(permission, `${name}/${PROBE}`, ruleset))

// The deny rules that can apply to `permission` (`edit`, `read`, or a wildcard over them).
const denyRules = (ruleset: Permission.Ruleset, permission: string): Array<Permission.Rule> =>
  ruleset.filter((rule) => rule.action === "deny" && Wildcard.match(permission, rule.permission))

// The part of a pattern before its first wildcard, cut back to a whole path component.
const literalPrefix = (pattern: string): string => {
  const wild = pattern.search(/[*?[]/)
  if (wild === -1) return pattern
  const cut = pattern.lastIndexOf("/", wild)
  return cut <= 0 ? "" : pattern.slice(0, cut)
}

interface Protection {
  readonly readOnly: Array<string>
  readonly masked: Array<Masked>
  complete: boolean
}

/** Paths the rules protect: named ones directly, glob matches by a bounded walk of the project. */
const protectedPaths = (root: string, ruleset: Permission.Ruleset, home: string): Protection => {
  const found: Protection = { readOnly: [], masked: [], complete: true }
  const seen = new Set<string>()
  // `name` is what the rules see (project-relative inside, absolute outside); `path` is where it is.
  const judge = (name: string, path: string): "masked" | "read-only" | "seen" | undefined => {
    const target = real(path)
    const kind = target === undefined ? undefined : kindOf(target)
    if (target === undefined || kind === undefined) return undefined
    if (seen.has(target)) return "seen"
    const directory = kind === "directory"
    // Rules given programmatically may still say `~/…` for the home.
    const names = name.startsWith(`${home}/`) ? [name, `~${name.slice(home.length)}`] : [name]
    const deniesAny = (permission: string) =>
      names.some((each) => deniesWhole(permission, each, directory, ruleset))
    if (deniesAny("read")) {
      seen.add(target)
      found.masked.push({ path: target, kind })
      return "masked"
    }
    if (deniesAny("edit")) {
      seen.add(target)
      found.readOnly.push(target)
      return "read-only"
    }
    return undefined
  }
  const rules = [...denyRules(ruleset, "read"), ...denyRules(ruleset, "edit")]
  let globs = false
  for (const rule of rules) {
    const pattern = expandHome(rule.pattern, home)
    const prefix = literalPrefix(pattern)
    if (prefix !== pattern) globs = true
    if (prefix === "") continue
    // Every component of the literal part, shortest first: `.git/hooks/*` checks `.git` too.
    const parts = prefix.split("/").filter((part) => part !== "")
    for (let i = 1; i <= parts.length; i++) {
      const name = `${NodePath.isAbsolute(prefix) ? "/" : ""}${parts.slice(0, i).join("/")}`
      const path = NodePath.isAbsolute(name) ? name : NodePath.join(root, name)
      if (judge(name, path) !== undefined) break
    }
  }
  if (!globs) return found
  let budget = WALK_ENTRIES
  let level: Array<{ readonly dir: string; readonly rel: string }> = [{ dir: root, rel: "" }]
  for (let depth = 1; depth <= WALK_DEPTH && level.length > 0; depth++) {
    const next: Array<{ readonly dir: string; readonly rel: string }> = []
    for (const { dir, rel } of level) {
      let entries: Array<import("node:fs").Dirent>
      try {
        entries = readdirSync(dir, { withFileTypes: true })
      } catch {
        continue
      }
      for (const entry of entries) {
        if (budget-- <= 0) {
          found.complete = false
          return found
        }
        const name = rel === "" ? entry.name : `${rel}/${entry.name}`
        const path = NodePath.join(dir, entry.name)
        // A link is judged by its name and protects what it points to.
        if (judge(name, path) === undefined && entry.isDirectory()) next.push({ dir: path, rel: name })
      }
    }
    level = next
  }
  if (level.length > 0) found.complete = false
  return found
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
  /** The command's environment: variables whose names say they hold a credential are unset. */
  readonly env?: NodeJS.ProcessEnv | undefined
}): Policy => {
  const home = input.home ?? NodeOs.homedir()
  // Secrets are hidden under every home the command might reach: the one it is given and ours.
  const homes = [
    ...new Set([home, NodeOs.homedir()].filter((path) => NodePath.isAbsolute(path) && path !== "/"))
  ]
  const root = real(input.projectRoot) ?? NodePath.resolve(input.projectRoot)
  const notes: Array<string> = []
  const writable = [root]
  for (const extra of input.settings.allowWrite) {
    const lexical = NodePath.resolve(expandHome(extra, home))
    const path = real(lexical)
    // A link could be pointed anywhere by the commands themselves: only real directories count.
    if (!NodePath.isAbsolute(expandHome(extra, home)) || path === undefined || path !== lexical) {
      notes.push(
        `allow_write ${extra} is not used: it must be an existing absolute path with no symlink in it`
      )
      continue
    }
    if (!writable.includes(path)) writable.push(path)
  }
  const found = protectedPaths(root, input.ruleset, home)
  if (!found.complete) {
    notes.push(
      `the project has more than ${WALK_ENTRIES} entries (or is deeper than ${WALK_DEPTH}): files that only a glob rule names may not be protected by the sandbox`
    )
  }
  const readOnly = [...found.readOnly]
  for (const dir of writable) {
    for (const name of CONFIGURING) {
      const path = real(NodePath.join(dir, name))
      // Only what lies inside the writable place: a link out of it leads somewhere read-only already.
      if (path === undefined || !path.startsWith(`${dir}/`)) continue
      if (!readOnly.some((kept) => path === kept || path.startsWith(`${kept}/`))) readOnly.push(path)
    }
  }
  const state = [
    ...homes.flatMap((dir) => GATEHOUSE_STATE.map((name) => NodePath.join(dir, name))),
    ...XDG_STATE.map((name) => process.env[name] ?? "")
      .filter((dir) => NodePath.isAbsolute(dir))
      .map((dir) => NodePath.join(dir, "gatehouse"))
  ]
  for (const each of state) {
    const path = real(each)
    if (path === undefined || !writable.some((dir) => path === dir || path.startsWith(`${dir}/`))) continue
    if (!readOnly.some((kept) => path === kept || path.startsWith(`${kept}/`))) readOnly.push(path)
  }
  const masked: Array<Masked> = [...found.masked]
  const allowRead = new Set(input.settings.allowRead.map((path) => NodePath.resolve(expandHome(path, home))))
  const hide = (path: string) => {
    if (allowRead.has(path)) return
    const resolved = real(path)
    const kind = resolved === undefined ? undefined : kindOf(resolved)
    if (resolved === undefined || kind === undefined) return
    // One mask for a folder and what is in it (`~/.claude` and `~/.claude/.credentials.json`).
    if (masked.some((entry) => entry.path === resolved || resolved.startsWith(`${entry.path}/`))) return
    if (kind === "directory")
      for (let i = masked.length - 1; i >= 0; i--)
        if (masked[i]!.path.startsWith(`${resolved}/`)) masked.splice(i, 1)
    masked.push({ path: resolved, kind })
  }
  for (const dir of homes) for (const secret of HOME_SECRETS) hide(NodePath.join(dir, secret))
  for (const extra of input.settings.denyRead) hide(NodePath.resolve(expandHome(extra, home)))
  // Directories between the project and what it protects, so the protection cannot be renamed away.
  const pinned = new Set<string>()
  for (const path of [...readOnly, ...masked.map((entry) => entry.path)]) {
    if (!path.startsWith(`${root}/`)) continue
    let parent = NodePath.dirname(path)
    while (parent.startsWith(`${root}/`)) {
      pinned.add(parent)
      parent = NodePath.dirname(parent)
    }
  }
  const unsetEnv = Object.keys(input.env ?? process.env).filter((name) => SECRET_ENV.test(name))
  const network = input.settings.network === "allow" ? "allow" : "none"
  const allowHosts = typeof input.settings.network === "object" ? input.settings.network.allow : undefined
  if (allowHosts !== undefined && process.platform === "darwin") {
    notes.push("the host allow-list needs the Linux proxy bridge: on macOS the command gets no network")
  }
  return {
    writable,
    ...(input.tmp === undefined ? {} : { tmp: input.tmp }),
    readOnly,
    masked,
    network,
    pinned: [...pinned].sort((a, b) => a.length - b.length),
    unsetEnv,
    complete: found.complete,
    ...(allowHosts === undefined ? {} : { allowHosts }),
    notes
  }
}

/**
 * The /tmp of a project's sandboxed commands: `<system temp>/gatehouse-<uid>/tmp-<hash of
 * the project path>`, created 0700. Private from the host's /tmp and from other projects,
 * kept between commands (a file one command writes to /tmp is there for the next; tools'
 * caches stay warm). `undefined` when the folder cannot be trusted (not a directory of
 * ours, a symlink, open to others): the sandbox then gets an empty /tmp per command. Each
 * use marks the folder used (its mtime); the bash tool removes, when its layer is built, the
 * folders of projects unused for {@link PROJECT_TMP_MAX_AGE_MS} ({@link reapProjectTmps}).
 *
 * @since 0.1.0
 */
export const projectTmp = (projectRoot: string): string | undefined => {
  const uid = process.getuid?.() ?? -1
  const parent = projectTmpParent()
  const dir = NodePath.join(parent, `tmp-${Sha256.hex(NodePath.resolve(projectRoot)).slice(0, 16)}`)
  const ours = (path: string) => {
    const stat = lstatSync(path)
    return stat.isDirectory() && !stat.isSymbolicLink() && stat.uid === uid && (stat.mode & 0o077) === 0
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    if (!(ours(parent) && ours(dir))) return undefined
    const now = new Date()
    utimesSync(dir, now, now)
    return dir
  } catch {
    return undefined
  }
}

/**
 * How long a project's sandbox /tmp is kept after its last command: 7 days.
 *
 * @since 0.1.0
 */
export const PROJECT_TMP_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000

/**
 * Where the projects' sandbox /tmp folders are: `<system temp>/gatehouse-<uid>`.
 *
 * @since 0.1.0
 */
export const projectTmpParent = (): string =>
  NodePath.join(NodeOs.tmpdir(), `gatehouse-${process.getuid?.() ?? -1}`)

/**
 * {@link reapProjectTmps} at most once a day: the time of the last reaping is the mtime of
 * `<parent>/.reaped` (one `stat` on the days in between, whatever the number of folders).
 *
 * @since 0.1.0
 */
export const reapProjectTmpsDaily = (parent: string, now: number): ReadonlyArray<string> => {
  const marker = NodePath.join(parent, ".reaped")
  const last = lstatSync(marker, { throwIfNoEntry: false })
  if (last !== undefined && now - last.mtimeMs < 24 * 60 * 60 * 1000) return []
  const removed = reapProjectTmps(parent, now)
  try {
    writeFileSync(marker, "", { mode: 0o600 })
    utimesSync(marker, new Date(now), new Date(now))
  } catch {
    // No folder yet, or not ours to write: the next process tries again.
  }
  return removed
}

/**
 * Removes the project /tmp folders (`tmp-<16 hex>`, directories of ours, never a link) under
 * `parent` whose last use (mtime) is older than `maxAgeMs` before `now`; each failure is
 * skipped. Returns the names removed.
 *
 * @since 0.1.0
 */
export const reapProjectTmps = (
  parent: string,
  now: number,
  maxAgeMs: number = PROJECT_TMP_MAX_AGE_MS
): ReadonlyArray<string> => {
  const uid = process.getuid?.() ?? -1
  const removed: Array<string> = []
  let names: Array<string>
  try {
    names = readdirSync(parent)
  } catch {
    return removed
  }
  for (const name of names) {
    if (!/^tmp-[0-9a-f]{16}$/.test(name)) continue
    const path = NodePath.join(parent, name)
    try {
      const stat = lstatSync(path)
      if (!stat.isDirectory() || stat.uid !== uid || now - stat.mtimeMs < maxAgeMs) continue
      rmSync(path, { recursive: true, force: true })
      removed.push(name)
    } catch {
      // In use, gone already, or not ours to remove: left as it is.
    }
  }
  return removed
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
  // /run holds the host's daemons' sockets (docker, D-Bus, systemd): none of them, but DNS
  // when the network is the host's.
  args.push("--tmpfs", "/run")
  if (policy.network === "allow" && existsSync("/run/systemd/resolve")) {
    args.push("--ro-bind", "/run/systemd/resolve", "/run/systemd/resolve")
  }
  if (existsSync("/var/run") && !lstatSync("/var/run").isSymbolicLink()) args.push("--tmpfs", "/var/run")
  if (policy.tmp === undefined) args.push("--tmpfs", "/tmp")
  else args.push("--bind", policy.tmp, "/tmp")
  for (const path of policy.writable) args.push("--bind", path, path)
  for (const path of policy.pinned ?? []) args.push("--bind", path, path)
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
    // Root outside stays root inside, but without a single capability: no mount, no umount.
    "--cap-drop",
    "ALL",
    "--unsetenv",
    "SSH_AUTH_SOCK",
    "--unsetenv",
    "DBUS_SESSION_BUS_ADDRESS",
    ...(policy.unsetEnv ?? []).flatMap((name) => ["--unsetenv", name]),
    "--chdir",
    cwd
  )
  if (proxy === undefined) {
    args.push("--")
    return args
  }
  args.push(
    // The bridge runs on this very Node binary, which may live where the sandbox has its own /tmp.
    "--ro-bind",
    proxy.node,
    proxy.node,
    "--bind",
    proxy.directory,
    ProxyBridge.SANDBOX_DIR,
    ...ProxyBridge.proxyEnv(),
    "--",
    ...ProxyBridge.bridgeArgv(proxy.node)
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
export const detect = (
  locations: ReadonlyArray<string> = BWRAP_LOCATIONS
):
  | { readonly kind: "bwrap" | "seatbelt"; readonly path: string }
  | { readonly kind: undefined; readonly reason: string } => {
  if (process.platform === "darwin") {
    return existsSync("/usr/bin/sandbox-exec")
      ? { kind: "seatbelt", path: "/usr/bin/sandbox-exec" }
      : { kind: undefined, reason: "/usr/bin/sandbox-exec is missing" }
  }
  if (process.platform !== "linux")
    return { kind: undefined, reason: `no sandbox is built for ${process.platform}` }
  const path = findBwrap(locations)
  if (path === undefined) {
    return {
      kind: undefined,
      reason: `bubblewrap is not installed as root-owned ${locations.join(" or ")} (Debian/Ubuntu: apt-get install bubblewrap)`
    }
  }
  const proof = probeRecord(path)
  if (proof !== undefined && existsSync(proof)) return { kind: "bwrap", path }
  try {
    process
      .getBuiltinModule("node:child_process")
      .execFileSync(
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
    const key = Sha256.hex(`${path}\0${binary.ino}\0${binary.mtimeMs}\0${binary.size}\0${boot}`)
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
      ? findBwrap(BWRAP_LOCATIONS)
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

/**
 * Where bubblewrap is looked for: system locations only, never `PATH` (a project's
 * `node_modules/.bin` on it could offer a "bwrap" that runs the command unconfined).
 *
 * @since 0.1.0
 */
export const BWRAP_LOCATIONS: ReadonlyArray<string> = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"]

// A binary only root can change: owned by root, not writable by group or others, and so is
// every directory above it.
const rootOwned = (path: string): boolean => {
  try {
    let current = realpathSync(path)
    const file = lstatSync(current)
    if (!file.isFile() || file.uid !== 0 || (file.mode & 0o022) !== 0) return false
    while (current !== "/") {
      current = NodePath.dirname(current)
      const dir = lstatSync(current)
      if (dir.uid !== 0 || (dir.mode & 0o022) !== 0) return false
    }
    return true
  } catch {
    return false
  }
}

/**
 * The locations {@link detect} tries, as the bash tool reads them (tests point it elsewhere).
 *
 * @since 0.1.0
 */
export const Locations: Context.Reference<ReadonlyArray<string>> = Context.Reference<ReadonlyArray<string>>(
  "@gatehousejs/shell/Sandbox/Locations",
  { defaultValue: () => BWRAP_LOCATIONS }
)

const findBwrap = (locations: ReadonlyArray<string>): string | undefined =>
  locations.find((candidate) => existsSync(candidate) && rootOwned(candidate))

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
    const proxy =
      proxyDirectory === undefined ? undefined : { directory: proxyDirectory, node: process.execPath }
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
export const startProxy = (allow: ReadonlyArray<string>): Promise<HostProxy.Proxy> =>
  import("./internal/hostProxy.ts").then((proxy) => proxy.start(allow))

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
