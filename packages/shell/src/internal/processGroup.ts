// Process-group bookkeeping for ShellProcess: signalling a group and telling whether any
// live process is left in it. Internal: no other package may import this.
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs"

/** Sends `signal` to every process of group `pgid`; false when the group no longer exists. */
export const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal)
    return true
  } catch (error) {
    // EPERM: the group exists but we may not signal it (only zombies left on some systems).
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

// Field 3 of /proc/<pid>/stat is the state, field 5 the process group. The command name
// (field 2) is in parentheses and may itself contain spaces or parentheses.
// Read into one buffer (a stat line is far shorter): no allocation and no fstat per process.
const statBuffer = Buffer.alloc(4096)
const statOf = (pid: string): { readonly state: string; readonly pgrp: number } | undefined => {
  let text: string
  try {
    const fd = openSync(`/proc/${pid}/stat`, "r")
    try {
      text = statBuffer.toString("latin1", 0, readSync(fd, statBuffer, 0, statBuffer.length, 0))
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ")
  return { state: rest[0] ?? "", pgrp: Number(rest[2]) }
}

// The pid directories of /proc (none where there is no /proc).
const processEntries = (): Array<string> => {
  try {
    return readdirSync("/proc").filter((entry) => {
      const code = entry.charCodeAt(0)
      return code >= 48 && code <= 57
    })
  } catch {
    return []
  }
}

const running = (stat: { readonly state: string } | undefined): boolean =>
  stat !== undefined && stat.state !== "Z" && stat.state !== "X"

/**
 * The pids of the group's members that are still running (zombies excluded), read from
 * /proc on Linux. A zombie whose parent never reaps it (a container whose PID 1 is not an
 * init) is dead for our purpose: it holds no pipe and runs no code.
 */
export const liveMembers = (pgid: number): ReadonlyArray<number> => {
  const out: Array<number> = []
  for (const entry of processEntries()) {
    const stat = statOf(entry)
    if (running(stat) && stat!.pgrp === pgid) out.push(Number(entry))
  }
  return out
}

const hasProc = process.platform === "linux"

/**
 * Whether any live process is left in group `pgid`. Without /proc, a group that can still be
 * signalled counts as alive (zombies included), so waits run to their bound.
 */
export const groupAlive = (pgid: number): boolean => {
  if (!signalGroup(pgid, 0)) return false
  return hasProc ? liveMembers(pgid).length > 0 : true
}

/**
 * Whether a process holds pid `pid` now (a zombie included), read from /proc on Linux;
 * false elsewhere (where it cannot be told). Once a group's leader has been reaped its pid is
 * free, and the kernel hands a pid out again only when no process uses it as a group id: a
 * process holding it then means the group of that id is a stranger's.
 */
export const pidTaken = (pid: number): boolean => {
  if (!hasProc) return false
  let status: string
  try {
    status = readFileSync(`/proc/${pid}/status`, "latin1")
  } catch {
    return false
  }
  // /proc/<tid> also answers for a thread of another process: only a process (Tgid = pid) counts.
  return status.includes(`\nTgid:\t${pid}\n`)
}

/** The environment variable every process of a run inherits, naming the run. */
export const RUN_TAG = "GATEHOUSE_RUN_ID"

/**
 * The live processes (zombies excluded) whose environment names run `tag`, whatever
 * group or session they moved to (`setsid`, `set -m`, `setpgid`): a process inherits its
 * parent's environment, so everything the command started carries it unless it cleared
 * its environment on purpose (`env -i`). Linux only (read from /proc); [] elsewhere.
 */
export const taggedProcesses = (tag: string): ReadonlyArray<number> => {
  if (!hasProc) return []
  const needle = Buffer.from(`\0${RUN_TAG}=${tag}\0`)
  const first = Buffer.from(`${RUN_TAG}=${tag}\0`)
  const out: Array<number> = []
  for (const entry of processEntries()) {
    if (Number(entry) === process.pid) continue
    let environ: Buffer
    try {
      environ = readFileSync(`/proc/${entry}/environ`)
    } catch {
      continue
    }
    if (!(environ.includes(needle) || environ.subarray(0, first.length).equals(first))) continue
    if (running(statOf(entry))) out.push(Number(entry))
  }
  return out
}

/** Sends `signal` to each pid; the ones that are gone already are skipped. */
export const signalEach = (pids: ReadonlyArray<number>, signal: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // Gone already.
    }
  }
}
