// What stops a run's processes when Gatehouse dies before the run ends (kill -9 included),
// outside a sandbox: one watcher per Gatehouse process, a `/bin/sh` in a session of its own
// that waits on a pipe only Gatehouse holds. Each run in flight is a file in the watcher's
// folder, written synchronously before the run is supervised (so it is there even if
// Gatehouse is killed the next moment) and removed when the run ends. When the pipe closes,
// the watcher kills what each file names: the run's cgroup, its group and every process with
// its tag; then it removes the folder. One watcher serves every run, so a run spawns nothing
// but its command. Internal: no other package may import this.
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { RUN_TAG } from "./processGroup.ts"

// $1: the folder. A file `run-<tag>` holds "<group id> <cgroup path or nothing>".
const SCRIPT = `read -r _
for f in "$1"/run-*; do
  [ -f "$f" ] || continue
  read -r pgid cg < "$f"
  tag=\${f##*/run-}
  [ -n "$cg" ] && echo 1 > "$cg/cgroup.kill" 2>/dev/null
  kill -KILL -- -"$pgid" 2>/dev/null
  for e in /proc/[0-9]*/environ; do
    if tr "\\0" "\\n" < "$e" 2>/dev/null | grep -qx "${RUN_TAG}=$tag"; then p=\${e#/proc/}; kill -KILL "\${p%/environ}" 2>/dev/null; fi
  done
  [ -n "$cg" ] && for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
done
rm -rf "$1"`

let folder: string | undefined
let watcher: ChildProcess | undefined

const running = (child: ChildProcess | undefined): child is ChildProcess =>
  child !== undefined && child.pid !== undefined && child.exitCode === null && child.signalCode === null

// The watcher, started at the first run; started again (on the same folder, so it covers the
// runs already in it) if it died.
const ensure = (): string => {
  if (folder === undefined || !existsSync(folder)) {
    folder = mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-watch-"))
    watcher = undefined
  }
  if (!running(watcher)) {
    const child = spawn("/bin/sh", ["-c", SCRIPT, "sh", folder], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"]
    })
    child.on("error", () => {})
    child.unref()
    ;(child.stdin as unknown as { unref?: () => void } | null)?.unref?.()
    watcher = child
  }
  return folder
}

/**
 * Puts the run with `tag` (its group `pgid`, its cgroup if any) in the watcher's care;
 * returns what takes it out again, or `undefined` when no watcher could be started.
 */
export const watch = (tag: string, pgid: number, cgroup: string | undefined): (() => void) | undefined => {
  try {
    const file = NodePath.join(ensure(), `run-${tag}`)
    writeFileSync(file, `${pgid} ${cgroup ?? ""}\n`, { mode: 0o600 })
    return () => rmSync(file, { force: true })
  } catch {
    return undefined
  }
}

/** The watcher's pid and folder, for tests. */
export const current = (): { readonly pid: number | undefined; readonly folder: string | undefined } => ({
  pid: running(watcher) ? watcher.pid : undefined,
  folder
})
