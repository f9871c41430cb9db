// A cgroup v2 per command, where this process may make one: everything the command starts
// stays in it whatever it does to its session, group or environment (`env -i setsid …`),
// and `cgroup.kill` ends them all at once. Internal: no other package may import this.
//
// Made as a child of our own cgroup (the one place a process may usually create cgroups:
// root, a container with a writable cgroupfs, a systemd-delegated user service), named
// `gatehouse-<our pid>-<tag>` so that one left by a Gatehouse that died with its watcher
// can be found and removed by the next one.
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"

/** A command's cgroup: its directory in the cgroup2 file system. */
export interface Cgroup {
  readonly path: string
}

const PREFIX = "gatehouse-"

// A path field of /proc/self/mountinfo, where space, tab, newline and backslash are octal escapes.
const unescapeField = (field: string): string =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))

/** The directory of our own cgroup v2, or why there is none to use. */
export const ownDirectory = (): { readonly path: string } | { readonly reason: string } => {
  if (process.platform !== "linux")
    return { reason: `cgroups are a Linux feature (this is ${process.platform})` }
  let own: string | undefined
  let mounts: string
  try {
    own = readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .find((line) => line.startsWith("0::"))
      ?.slice(3)
    mounts = readFileSync("/proc/self/mountinfo", "utf8")
  } catch {
    return { reason: "/proc is not readable" }
  }
  if (own === undefined) return { reason: "this process is in no cgroup v2 hierarchy" }
  for (const line of mounts.split("\n")) {
    const [left, right] = line.split(" - ")
    if (right === undefined || !right.startsWith("cgroup2 ")) continue
    const fields = left!.split(" ")
    const root = unescapeField(fields[3] ?? "")
    const point = unescapeField(fields[4] ?? "")
    const relative = NodePath.posix.relative(root, own)
    if (relative.startsWith("..")) continue
    return { path: NodePath.join(point, relative) }
  }
  return { reason: "no cgroup2 file system is mounted" }
}

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? String(error)

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === "EPERM"
  }
}

/** The pids in the cgroup (exited processes are not listed, zombies included). */
export const members = (cgroup: Cgroup): ReadonlyArray<number> => {
  try {
    return readFileSync(NodePath.join(cgroup.path, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map(Number)
  } catch {
    return []
  }
}

/**
 * SIGKILL to everything in the cgroup: `cgroup.kill` where the kernel has it (5.14+), else
 * freeze it, kill each member and thaw it, so no member can fork between the listing and the kill.
 */
export const killAll = (cgroup: Cgroup): void => {
  try {
    writeFileSync(NodePath.join(cgroup.path, "cgroup.kill"), "1")
    return
  } catch {
    // No cgroup.kill: the freezer below.
  }
  const freeze = NodePath.join(cgroup.path, "cgroup.freeze")
  try {
    writeFileSync(freeze, "1")
  } catch {
    // No freezer either: killed one by one, repeated by the caller until empty.
  }
  for (const pid of members(cgroup)) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // Gone already.
    }
  }
  try {
    writeFileSync(freeze, "0")
  } catch {
    // As above.
  }
}

/** Removes the cgroup; false while a process is still in it. */
export const remove = (cgroup: Cgroup): boolean => {
  try {
    rmdirSync(cgroup.path)
    return true
  } catch (error) {
    return errorCode(error) === "ENOENT"
  }
}

/**
 * The cgroups in `parent` of Gatehouse processes that died with their watcher: whatever is
 * left in them is killed and they are removed (those whose processes are still exiting, on
 * a later call).
 */
export const reapStale = (parent: string): void => {
  let entries: Array<string>
  try {
    entries = readdirSync(parent)
  } catch {
    return
  }
  for (const entry of entries) {
    if (!entry.startsWith(PREFIX)) continue
    const owner = Number(entry.slice(PREFIX.length).split("-")[0])
    if (!Number.isInteger(owner) || owner === process.pid || isAlive(owner)) continue
    const stale = { path: NodePath.join(parent, entry) }
    killAll(stale)
    remove(stale)
  }
}

/** Makes the cgroup of the run tagged `tag` in `parent` (default: our own cgroup), or says why it cannot be made. */
export const create = (tag: string, parent?: string): Cgroup | { readonly reason: string } => {
  const own = parent === undefined ? ownDirectory() : { path: parent }
  if ("reason" in own) return own
  reapStale(own.path)
  const path = NodePath.join(own.path, `${PREFIX}${process.pid}-${tag}`)
  try {
    mkdirSync(path, 0o755)
  } catch (error) {
    return { reason: `no cgroup can be made in ${own.path} (${errorCode(error)})` }
  }
  return { path }
}
