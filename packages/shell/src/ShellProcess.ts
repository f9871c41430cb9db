/**
 * How a command becomes a process: which shell runs it, and one run of `<shell> -c
 * <command>` in its own process group, with stdout and stderr merged into one stream of
 * bytes, a timeout, an optional abort, and a guarantee that nothing of the group is left
 * running when the run returns. Every process a command starts is held, whatever it does
 * to its session, group or environment (`env -i setsid …`): in a sandbox by its PID
 * namespace; outside one by a cgroup v2 of its own where this process may make one (the
 * wrapper shell is moved into it before it runs anything; at the end what is left in it is
 * killed at once with `cgroup.kill`), else by a PID namespace of its own (bubblewrap with
 * `/` bound as it is), else by nothing more than its process group and the run's tag:
 * every process carries `GATEHOUSE_RUN_ID=<tag>` in its environment, and on Linux the ones
 * that left the group are found by it in /proc (a process that also clears its environment
 * escapes then; `Outcome.containment` says which held the command, and why none did). The
 * outcome counts what had to be killed after the command ended. Outside a sandbox one
 * watcher per Gatehouse process (`/bin/sh`, in a session of its own, `internal/watcher.ts`)
 * waits on a pipe only Gatehouse holds: if Gatehouse dies, kill -9 included, it kills the
 * cgroup, the group and the tagged processes of every run still in flight; a PID namespace
 * dies with its parent through bubblewrap instead.
 *
 * Built on `node:child_process` behind an Effect API rather than effect's
 * `ChildProcessSpawner`, whose handle (effect 4.1.0) cannot do four things this module
 * needs: it reports a death by signal only inside an error message; after a bounded drain
 * it gives no way to close a pipe that an escaped process (`setsid`, a daemon) keeps open,
 * so the open pipe keeps the Node process alive; it counts zombies as live group members,
 * so where PID 1 does not reap orphans (containers) every cleanup waits its full bound;
 * and its merged stream interleaves two pipes, so stdout and stderr lose their order.
 *
 * @since 0.0.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { accessSync, constants, existsSync, statSync } from "node:fs"
import * as NodePath from "node:path"
import type { Readable } from "node:stream"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Cgroup from "./internal/cgroup.ts"
import {
  groupAlive,
  liveMembers,
  pidTaken,
  RUN_TAG,
  signalEach,
  signalGroup,
  taggedProcesses
} from "./internal/processGroup.ts"
import * as Watcher from "./internal/watcher.ts"
import * as ShellParser from "./ShellParser.ts"

// ---------------------------------------------------------------------------------------
// Shell choice
// ---------------------------------------------------------------------------------------

/**
 * Shells whose syntax the gate judges as bash (`-c` runs a command string).
 *
 * @since 0.0.0
 */
export const POSIX_SHELLS: ReadonlyArray<string> = ["bash", "zsh", "sh", "dash", "ksh"]

/**
 * Shells judged with the PowerShell grammar, run with `-NoLogo -NoProfile -NonInteractive
 * -Command`.
 *
 * @since 0.0.0
 */
export const POWERSHELLS: ReadonlyArray<string> = ["pwsh", "powershell"]

/**
 * Interactive shells whose syntax the gate cannot judge; configuring one is an error.
 *
 * @since 0.0.0
 */
export const REFUSED_SHELLS: ReadonlyArray<string> = ["fish", "nu"]

/**
 * A resolved shell: `name` is the lower-cased base name (`bash`), `path` the executable,
 * `dialect` the grammar the gate judges its commands with.
 *
 * @since 0.0.0
 */
export interface Shell {
  readonly name: string
  readonly path: string
  readonly dialect: "bash" | "powershell"
}

/**
 * The configured shell is one Gatehouse will not run commands with.
 *
 * @since 0.0.0
 */
export class UnsupportedShellError extends Schema.TaggedError<UnsupportedShellError>()(
  "ShellUnsupportedError",
  { shell: Schema.String }
) {
  override get message(): string {
    const name = shellName(this.shell)
    const why = REFUSED_SHELLS.includes(name)
      ? `${name} is an interactive shell whose syntax the permission gate cannot judge`
      : `${name} is not a shell the permission gate knows how to judge`
    return `${why}. Set "shell" to one of ${[...POSIX_SHELLS, ...POWERSHELLS].join(", ")} (or remove it to use bash).`
  }
}

/**
 * The configured shell could not be found (not on PATH, or not an executable file).
 *
 * @since 0.0.0
 */
export class ShellNotFoundError extends Schema.TaggedError<ShellNotFoundError>()("ShellNotFoundError", {
  shell: Schema.String
}) {
  override get message(): string {
    return `The configured shell "${this.shell}" was not found or is not executable. Install it, give its full path, or remove "shell" to use bash.`
  }
}

/**
 * The lower-cased base name of a shell, without a Windows `.exe`.
 *
 * @since 0.0.0
 */
export const shellName = (shell: string): string =>
  NodePath.basename(shell.replaceAll("\\", "/"))
    .toLowerCase()
    .replace(/\.exe$/, "")

const isExecutableFile = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

// The environment a command runs with: the given one without what would move its `cd`s
// away from where the gate judged them. An inherited OLDPWD sends `cd -` anywhere (the gate
// follows it only after a `cd` of the text), and CDPATH sends `cd src` to another `src`.
const commandEnvironment = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  if (env.OLDPWD === undefined && env.CDPATH === undefined) return env
  const { OLDPWD: _oldpwd, CDPATH: _cdpath, ...rest } = env
  return rest
}

const resolveExecutable = (shell: string, env: NodeJS.ProcessEnv): string | undefined => {
  if (shell.includes("/")) return isExecutableFile(shell) ? NodePath.resolve(shell) : undefined
  for (const dir of (env.PATH ?? "").split(NodePath.delimiter)) {
    if (dir === "") continue
    const candidate = NodePath.join(dir, shell)
    if (isExecutableFile(candidate)) return candidate
  }
  return undefined
}

/**
 * Chooses the shell that runs commands: the configured `shell` (a name on PATH or a path;
 * fish, nu and unknown shells fail with {@link UnsupportedShellError}, a missing one with
 * {@link ShellNotFoundError}); else `$SHELL` when it is bash, zsh, sh, dash or ksh; else
 * bash from PATH; else `/bin/sh`.
 *
 * @example
 * ```ts
 * import { ShellProcess } from "@gatehousejs/shell"
 * import { Effect } from "effect"
 * const shell = Effect.runSync(ShellProcess.selectShell({ configured: "bash" }))
 * shell.dialect // "bash"
 * ```
 * @since 0.0.0
 */
export const selectShell = (
  options: { readonly configured?: string | undefined; readonly env?: NodeJS.ProcessEnv | undefined } = {}
): Effect.Effect<Shell, UnsupportedShellError | ShellNotFoundError> =>
  Effect.suspend((): Effect.Effect<Shell, UnsupportedShellError | ShellNotFoundError> => {
    const env = options.env ?? process.env
    const configured = options.configured?.trim()
    if (configured !== undefined && configured !== "") {
      const name = shellName(configured)
      if (!POSIX_SHELLS.includes(name) && !POWERSHELLS.includes(name)) {
        return Effect.fail(new UnsupportedShellError({ shell: configured }))
      }
      const path = resolveExecutable(configured, env)
      if (path === undefined) return Effect.fail(new ShellNotFoundError({ shell: configured }))
      return Effect.succeed({ name, path, dialect: ShellParser.dialectOf(name) })
    }
    const fromEnv = env.SHELL
    if (fromEnv !== undefined && POSIX_SHELLS.includes(shellName(fromEnv))) {
      const path = resolveExecutable(fromEnv, env)
      if (path !== undefined) return Effect.succeed({ name: shellName(fromEnv), path, dialect: "bash" })
    }
    const bash = resolveExecutable("bash", env)
    if (bash !== undefined) return Effect.succeed({ name: "bash", path: bash, dialect: "bash" })
    return Effect.succeed({ name: "sh", path: "/bin/sh", dialect: "bash" })
  })

/**
 * The argv that runs `command` with `shell`: `<shell> -c <command>`, or for PowerShell
 * `<shell> -NoLogo -NoProfile -NonInteractive -Command <command>`.
 *
 * @since 0.0.0
 */
export const commandArgv = (shell: Shell, command: string): ReadonlyArray<string> =>
  shell.dialect === "powershell"
    ? [shell.path, "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", command]
    : [shell.path, "-c", command]

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

/**
 * The process could not be started (the working directory is missing or not a directory,
 * or the platform cannot spawn it).
 *
 * @since 0.0.0
 */
export class SpawnError extends Schema.TaggedError<SpawnError>()("ShellSpawnError", {
  cwd: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Could not start the command in ${this.cwd}: ${this.reason}`
  }
}

/**
 * What `run` needs. Durations accept anything `Duration.Input` does (a number is
 * milliseconds).
 *
 * @since 0.0.0
 */
export interface RunOptions {
  readonly shell: Shell
  readonly command: string
  /** Working directory; must exist. */
  readonly cwd: string
  /** Environment of the process; default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv | undefined
  readonly timeout: Duration.Input
  /** Receives the merged output in arrival order; the next chunk waits for it (backpressure). */
  readonly onOutput: (chunk: Uint8Array) => Effect.Effect<void>
  /**
   * Given, stderr is a pipe of its own whose chunks come here (with the same backpressure),
   * and `onOutput` gets stdout alone; the order between the two is then lost. Without it,
   * stderr is merged into `onOutput` in write order.
   */
  readonly onStderr?: ((chunk: Uint8Array) => Effect.Effect<void>) | undefined
  /** Stops the run when it completes: the group is killed and the outcome says `interrupted`. */
  readonly abort?: Effect.Effect<void> | undefined
  /** Between SIGTERM and SIGKILL of the group; default {@link KILL_AFTER}. */
  readonly killAfter?: Duration.Input | undefined
  /** After the shell exits, how long the pipe may stay silent before reading stops; default {@link DRAIN_QUIET}. */
  readonly drainQuiet?: Duration.Input | undefined
  /** After the shell exits, the most time spent reading what is left; default {@link DRAIN_MAX}. */
  readonly drainMax?: Duration.Input | undefined
  /**
   * A program the shell runs under, with its arguments before the shell's argv (the
   * sandbox: `bwrap … --`). It leads the process group; when it exits, what it started
   * inside goes with it.
   */
  readonly wrapper?: { readonly file: string; readonly args: ReadonlyArray<string> } | undefined
  /**
   * Without a `wrapper`, where no cgroup can be made: a bubblewrap to hold the command in a
   * PID namespace of its own (asked only then; undefined when there is none that works).
   */
  readonly pidNamespace?: (() => string | undefined) | undefined
  /** Where the command's cgroup is made; default: in this process's own cgroup ({@link CgroupParent}). */
  readonly cgroupParent?: string | undefined
}

/**
 * The cgroup v2 directory commands' cgroups are made in, as the bash tool reads it;
 * `undefined` (the default) is this process's own cgroup. Tests point it at a directory
 * where none can be made, to run the fallbacks.
 *
 * @since 0.1.0
 */
export const CgroupParent: Context.Reference<string | undefined> = Context.Reference<string | undefined>(
  "@gatehousejs/shell/ShellProcess/CgroupParent",
  { defaultValue: () => undefined }
)

/**
 * What holds every process a command starts, so that none outlives it: the sandbox's PID
 * namespace; outside it a cgroup v2 of its own (killed whole, whatever its processes did to
 * their session, group or environment); else a PID namespace of its own (bubblewrap with
 * `/` bound as it is: the command dies with its namespace); else `none`, and only the
 * process group and the run's tag in the environment find what it left.
 *
 * @since 0.1.0
 */
export type Containment =
  | { readonly kind: "sandbox" | "cgroup" | "pid-namespace" }
  | { readonly kind: "none"; readonly reason: string }

/**
 * How a run ended. `exitCode` is null when the shell died by `signal`. `complete` is false
 * when reading stopped before the end of the output because a process outside the group
 * still held the pipe.
 *
 * @since 0.0.0
 */
export interface Outcome {
  readonly pid: number
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  readonly interrupted: boolean
  readonly complete: boolean
  readonly bytes: number
  /**
   * Processes the command started that were still running when it ended (the shell
   * exited, timed out or was aborted) and had to be killed: those left in its group, and
   * those that had left it (`setsid`, `set -m`, `setpgid`), found by the run's tag in
   * their environment (Linux). 0 when nothing was left.
   */
  readonly killed: number
  /** Of {@link killed}, how many had left the command's process group. */
  readonly escaped: number
  /** What held the command's processes. */
  readonly containment: Containment
}

/**
 * Grace between SIGTERM and SIGKILL of the group.
 *
 * @since 0.0.0
 */
export const KILL_AFTER: Duration.Duration = Duration.seconds(3)
/**
 * After the shell exits: stop reading once the pipe has been silent this long.
 *
 * @since 0.0.0
 */
export const DRAIN_QUIET: Duration.Duration = Duration.millis(200)
/**
 * After the shell exits: stop reading after this long, silent or not.
 *
 * @since 0.0.0
 */
export const DRAIN_MAX: Duration.Duration = Duration.seconds(2)

const POLL_MS = 20
// After SIGKILL nothing can resist; this only bounds a wait on processes stuck in the kernel.
const AFTER_SIGKILL_MS = 1000

// Reading the pipe. The listener must be attached in the same tick as the spawn: Node
// resumes (and discards) an unread stdio stream when the child exits, so a reader that
// starts one tick late loses the output of a quick command. Chunks queue up to
// PIPE_BUFFER bytes while the consumer is busy (the pipe is paused beyond that), and the
// consumer takes them all at once, as they came (never copied into one): reading overlaps
// the consumer's writes, and a fast producer costs one wake-up per ~megabyte.
const PIPE_BUFFER = 1024 * 1024

interface Pipe {
  readonly stream: Readable
  /** What has arrived, `null` at the end of the stream, `undefined` when nothing has yet. */
  readonly read: () => ReadonlyArray<Buffer> | null | undefined
  /** Completes when `read` may have something new. */
  readonly wait: Effect.Effect<void>
}

const openPipe = (stream: Readable): Pipe => {
  let queue: Array<Buffer> = []
  let queued = 0
  let ended = false
  let waker: (() => void) | undefined
  const wake = () => {
    const resume = waker
    waker = undefined
    resume?.()
  }
  const end = () => {
    ended = true
    wake()
  }
  stream.on("data", (chunk: Buffer) => {
    queue.push(chunk)
    queued += chunk.length
    if (queued >= PIPE_BUFFER) stream.pause()
    wake()
  })
  stream.on("end", end)
  stream.on("close", end)
  stream.on("error", end)
  return {
    stream,
    read: () => {
      if (queued === 0) return ended ? null : undefined
      const out = queue
      queue = []
      queued = 0
      if (!ended && stream.isPaused()) stream.resume()
      return out
    },
    wait: Effect.callback<void>((resume) => {
      if (queued > 0 || ended) {
        resume(Effect.void)
        return
      }
      waker = () => resume(Effect.void)
      return Effect.sync(() => {
        waker = undefined
      })
    })
  }
}

/** One pipe being read, and what the drain needs to know of it. */
interface Reader {
  readonly pipe: Pipe
  readonly eof: Deferred.Deferred<void>
  waiting: boolean
  idleSince: number
  fiber: Fiber.Fiber<void> | undefined
}

const reader = (pipe: Pipe): Reader => ({
  pipe,
  eof: Deferred.makeUnsafe<void>(),
  waiting: false,
  idleSince: 0,
  fiber: undefined
})

interface Proc {
  readonly child: ChildProcess
  /** Outside a sandbox: takes the run out of the care of the watcher (`internal/watcher.ts`). */
  readonly unwatch: (() => void) | undefined
  readonly pid: number
  /** The value of `GATEHOUSE_RUN_ID` in the environment of everything this run starts. */
  readonly tag: string
  readonly containment: Containment
  /** With a cgroup: whether the command runs in it (the kernel may refuse the move). */
  readonly entered: Deferred.Deferred<boolean>
  /** The same, read synchronously: false until the wrapper said it moved in. */
  readonly inCgroup: () => boolean
  /** The command's own cgroup, when it has one. */
  readonly cgroup: Cgroup.Cgroup | undefined
  /** What had to be killed once the command ended (see `Outcome.killed`). */
  killed: number
  escaped: number
  /** stdout (with stderr merged in, unless `onStderr` was given). */
  readonly stdout: Reader
  /** stderr, with `onStderr`. */
  readonly stderr: Reader | undefined
  readonly exited: Deferred.Deferred<readonly [number | null, NodeJS.Signals | null]>
  bytes: number
}

const leaderExited = (proc: Proc): boolean => proc.child.exitCode !== null || proc.child.signalCode !== null

// The group is the run's while its leader runs, and after it only while nobody holds the
// leader's pid again (a reused pid leads a stranger's group: signalling it would stop the
// wrong program). Checked in the same synchronous step as each signal, so the leader cannot
// be reaped in between.
const groupIsOurs = (proc: Proc): boolean => !leaderExited(proc) || !pidTaken(proc.pid)

// A PID namespace's processes die with it, but not at once: they are waited for like any.
const alive = (proc: Proc): boolean => !leaderExited(proc) || (groupIsOurs(proc) && groupAlive(proc.pid))

const signalOurGroup = (proc: Proc, signal: NodeJS.Signals): void => {
  if (groupIsOurs(proc)) signalGroup(proc.pid, signal)
}

const checkDirectory = (cwd: string): Effect.Effect<void, SpawnError> =>
  Effect.suspend(() => {
    try {
      if (statSync(cwd).isDirectory()) return Effect.void
      return Effect.fail(new SpawnError({ cwd, reason: "the working directory is not a directory" }))
    } catch {
      return Effect.fail(new SpawnError({ cwd, reason: "the working directory does not exist" }))
    }
  })

// stdout and stderr share one pipe so their order is the order of the writes: a tiny
// `/bin/sh` wrapper points fd 2 at fd 1 and `exec`s the shell, which keeps the pid (the
// group leader) and runs the command verbatim.
// With `onStderr` the `2>&1` is left out (`merged` false): fd 2 is then a pipe of its own.
const mergeWrapper = (merged: boolean) => `exec "$@"${merged ? " 2>&1" : ""}`

// The same, after the wrapper moved itself into the cgroup ($1), so nothing of the command
// runs (or forks) outside it; whether the kernel let it is said on fd 3, closed before the
// command runs. The move is made here rather than by Gatehouse writing the pid: it costs a
// kernel synchronisation of a few milliseconds that would otherwise block the event loop.
const cgroupWrapper = (merged: boolean) =>
  `if echo 0 > "$1/cgroup.procs" 2>/dev/null; then echo in >&3; fi; exec 3>&-; shift; ${mergeWrapper(merged)}`

// A PID namespace and nothing else: the whole file system bound as it is, a /proc of the
// namespace (so pids agree with what the command sees), and death with Gatehouse.
const PID_NAMESPACE_ARGS = [
  "--dev-bind",
  "/",
  "/",
  "--proc",
  "/proc",
  "--unshare-pid",
  "--die-with-parent",
  "--"
]

// Before a sandbox starts, every descriptor above 2 that this process inherited without
// close-on-exec is closed: an open file or directory of the host would be a way out of it.
// bash can name any descriptor; a plain sh only 3 to 9.
const sandboxLauncher = (merged: boolean) =>
  existsSync("/bin/bash")
    ? [
        "/bin/bash",
        "-c",
        `for f in /proc/self/fd/*; do n=\${f##*/}; if [ "$n" -gt 2 ] 2>/dev/null; then eval "exec $n>&-" 2>/dev/null; fi; done; ${mergeWrapper(merged)}`,
        "bash"
      ]
    : [
        "/bin/sh",
        "-c",
        `for n in 3 4 5 6 7 8 9; do eval "exec $n>&-" 2>/dev/null; done; ${mergeWrapper(merged)}`,
        "sh"
      ]

const start = (options: RunOptions): Effect.Effect<Proc, SpawnError> =>
  Effect.callback<Proc, SpawnError>((resume) => {
    if (process.platform === "win32") {
      resume(Effect.fail(new SpawnError({ cwd: options.cwd, reason: "Windows is not supported yet" })))
      return
    }
    const argv = commandArgv(options.shell, options.command)
    const tag = randomBytes(8).toString("hex")
    // Outside a sandbox: a cgroup of its own, else a PID namespace of its own, else none.
    let containment: Containment = { kind: "sandbox" }
    let cgroup: Cgroup.Cgroup | undefined
    let pidNamespace: string | undefined
    if (options.wrapper === undefined) {
      const made = Cgroup.create(tag, options.cgroupParent)
      if ("path" in made) {
        cgroup = made
        containment = { kind: "cgroup" }
      } else {
        pidNamespace = options.pidNamespace?.()
        containment =
          pidNamespace === undefined
            ? {
                kind: "none",
                reason: `${made.reason}, and no bubblewrap that can make a PID namespace`
              }
            : { kind: "pid-namespace" }
      }
    }
    let child: ChildProcess
    const merged = options.onStderr === undefined
    try {
      // Sandboxed, the merge happens outside, so the sandbox's own errors reach the output too.
      const [file, ...args] =
        options.wrapper !== undefined
          ? [...sandboxLauncher(merged), options.wrapper.file, ...options.wrapper.args, ...argv]
          : cgroup !== undefined
            ? ["/bin/sh", "-c", cgroupWrapper(merged), "sh", cgroup.path, ...argv]
            : pidNamespace !== undefined
              ? ["/bin/sh", "-c", mergeWrapper(merged), "sh", pidNamespace, ...PID_NAMESPACE_ARGS, ...argv]
              : ["/bin/sh", "-c", mergeWrapper(merged), "sh", ...argv]
      const stderr = merged ? "ignore" : "pipe"
      child = spawn(file!, args, {
        cwd: options.cwd,
        // The tag follows every process the command starts, whatever group it moves to.
        env: { ...commandEnvironment(options.env ?? process.env), [RUN_TAG]: tag },
        detached: true,
        stdio: cgroup === undefined ? ["ignore", "pipe", stderr] : ["ignore", "pipe", stderr, "pipe"]
      })
    } catch (error) {
      if (cgroup !== undefined) Cgroup.remove(cgroup)
      resume(Effect.fail(new SpawnError({ cwd: options.cwd, reason: String(error) })))
      return
    }
    const entered = Deferred.makeUnsafe<boolean>()
    let inCgroup = false
    const status = cgroup === undefined ? undefined : (child.stdio[3] as Readable | null | undefined)
    if (status == null) Deferred.doneUnsafe(entered, Effect.succeed(cgroup !== undefined))
    else {
      let said = ""
      status.on("data", (chunk: Buffer) => {
        said += chunk.toString("latin1")
      })
      status.on("error", () => {})
      status.once("close", () => {
        inCgroup = said.startsWith("in")
        Deferred.doneUnsafe(entered, Effect.succeed(inCgroup))
      })
    }
    const exited = Deferred.makeUnsafe<readonly [number | null, NodeJS.Signals | null]>()
    child.once("exit", (code, signal) => Deferred.doneUnsafe(exited, Effect.succeed([code, signal] as const)))
    child.once("error", (error) => {
      if (cgroup !== undefined) Cgroup.remove(cgroup)
      resume(Effect.fail(new SpawnError({ cwd: options.cwd, reason: error.message })))
    })
    const stdout = reader(openPipe(child.stdout!))
    const stderr = merged ? undefined : reader(openPipe(child.stderr!))
    child.once("spawn", () => {
      // A later error (a failed kill) must not become an uncaught exception.
      child.on("error", () => {})
      resume(
        Effect.succeed({
          child,
          // A PID namespace of its own dies with us already (--die-with-parent).
          unwatch:
            containment.kind === "cgroup" || containment.kind === "none"
              ? Watcher.watch(tag, child.pid!, cgroup?.path)
              : undefined,
          pid: child.pid!,
          tag,
          containment,
          entered,
          inCgroup: () => inCgroup,
          cgroup,
          killed: 0,
          escaped: 0,
          stdout,
          stderr,
          exited,
          bytes: 0
        })
      )
    })
  })

const readLoop = Effect.fnUntraced(function* (proc: Proc, from: Reader, onOutput: RunOptions["onOutput"]) {
  while (true) {
    const chunks = from.pipe.read()
    if (chunks === null) break
    if (chunks === undefined) {
      from.idleSince = yield* Clock.currentTimeMillis
      from.waiting = true
      yield* from.pipe.wait
      from.waiting = false
      continue
    }
    for (const chunk of chunks) {
      proc.bytes += chunk.length
      yield* onOutput(chunk)
    }
  }
  yield* Deferred.succeed(from.eof, undefined)
})

const readers = (proc: Proc): ReadonlyArray<Reader> =>
  proc.stderr === undefined ? [proc.stdout] : [proc.stdout, proc.stderr]

/** Whether every pipe has reached its end. */
const allEnded = (proc: Proc) =>
  Effect.map(
    Effect.forEach(readers(proc), (from) => Deferred.isDone(from.eof)),
    (done) => done.every(Boolean)
  )

/** Waits until the group is gone; true if it went within `ms`. */
const waitGone = Effect.fnUntraced(function* (proc: Proc, ms: number) {
  const deadline = (yield* Clock.currentTimeMillis) + ms
  while (alive(proc)) {
    if ((yield* Clock.currentTimeMillis) >= deadline) return false
    yield* Effect.sleep(POLL_MS)
  }
  return true
})

// The processes of the run outside its group's leader. A cgroup the command entered holds
// them all, and so does a PID namespace, which the kernel ends with its first process; with
// neither, they are found by the run's tag (a search of every process in /proc, the slow part
// of a short command).
const outsiders = (proc: Proc): ReadonlyArray<number> => {
  const found = new Set<number>()
  if (proc.cgroup !== undefined) for (const pid of Cgroup.members(proc.cgroup)) found.add(pid)
  const held = proc.containment.kind === "cgroup" ? proc.inCgroup() : proc.containment.kind !== "none"
  if (!held) for (const pid of taggedProcesses(proc.tag)) found.add(pid)
  found.delete(proc.pid)
  return [...found]
}

/** Waits until none of the run's tagged or cgroup processes is left; true if they went within `ms`. */
const waitOutsidersGone = Effect.fnUntraced(function* (proc: Proc, ms: number) {
  const deadline = (yield* Clock.currentTimeMillis) + ms
  while (outsiders(proc).length > 0) {
    if ((yield* Clock.currentTimeMillis) >= deadline) return false
    yield* Effect.sleep(POLL_MS)
  }
  return true
})

/**
 * SIGTERM to the group, SIGKILL after `killAfter`, and wait until no live member is left;
 * then the same for the processes that left the group but carry the run's tag or are in
 * its cgroup (there SIGKILL goes to the whole cgroup at once).
 */
const terminate = Effect.fnUntraced(function* (proc: Proc, killAfter: number) {
  // The shell itself is the command, not something it left behind.
  // A group that no longer exists has no members to look for (the common end of a command).
  const members = new Set(
    groupIsOurs(proc) && signalGroup(proc.pid, 0)
      ? liveMembers(proc.pid).filter((pid) => pid !== proc.pid)
      : []
  )
  const escaped = new Set<number>()
  const scan = () => {
    const found = outsiders(proc)
    for (const pid of found) if (!members.has(pid)) escaped.add(pid)
    return found
  }
  scan()
  if (alive(proc)) {
    signalOurGroup(proc, "SIGTERM")
    if (!(yield* waitGone(proc, killAfter))) {
      signalOurGroup(proc, "SIGKILL")
      yield* waitGone(proc, AFTER_SIGKILL_MS)
    }
  }
  // Scanned again after the group went: one that left it while we looked is found now.
  const left = scan()
  if (left.length > 0) {
    signalEach(left, "SIGTERM")
    if (!(yield* waitOutsidersGone(proc, killAfter))) {
      if (proc.cgroup !== undefined) Cgroup.killAll(proc.cgroup)
      signalEach(scan(), "SIGKILL")
      yield* waitOutsidersGone(proc, AFTER_SIGKILL_MS)
    }
  }
  proc.killed += members.size + escaped.size
  proc.escaped += escaped.size
})

/** Removes the run's cgroup once the last of its processes has gone (they may take a moment to exit). */
const removeCgroup = Effect.fnUntraced(function* (proc: Proc) {
  if (proc.cgroup === undefined) return
  for (let tries = 0; !Cgroup.remove(proc.cgroup); tries++) {
    if (tries === AFTER_SIGKILL_MS / POLL_MS) return
    if (tries === 0) Cgroup.killAll(proc.cgroup)
    yield* Effect.sleep(POLL_MS)
  }
  // Stale ones emptied when this run started can go now.
  Cgroup.reapStale(NodePath.dirname(proc.cgroup.path))
})

/**
 * Reads what is left after the shell is gone: until the end of the stream, or until the
 * pipe has been silent for `quiet` while the reader waited, or for `max` in all.
 */
const drain = Effect.fnUntraced(function* (proc: Proc, quiet: number, max: number) {
  const start = yield* Clock.currentTimeMillis
  const deadline = start + max
  while (!(yield* allEnded(proc))) {
    const now = yield* Clock.currentTimeMillis
    // Silent means every pipe still open is waiting, and has been for `quiet`.
    const open: Array<Reader> = []
    for (const from of readers(proc)) if (!(yield* Deferred.isDone(from.eof))) open.push(from)
    const silent = open.every((from) => from.waiting && now - Math.max(from.idleSince, start) >= quiet)
    if (now >= deadline || silent) return
    yield* Effect.raceFirst(
      Effect.raceAll(open.map((from) => Deferred.await(from.eof))),
      Effect.sleep(POLL_MS)
    )
  }
})

/**
 * Stops reading: closes our end of the pipe (so a holder cannot keep us alive). `finish`
 * lets the reader hand what already arrived to `onOutput` and end; otherwise (the run is
 * being interrupted) the reader is interrupted.
 */
const stopReading = Effect.fnUntraced(function* (proc: Proc, finish: boolean) {
  for (const from of readers(proc)) {
    from.pipe.stream.destroy()
    if (from.fiber === undefined) continue
    if (finish) yield* Fiber.join(from.fiber)
    else yield* Fiber.interrupt(from.fiber)
  }
})

type Ending = "exit" | "timeout" | "abort"

const supervise = Effect.fnUntraced(function* (proc: Proc, options: RunOptions) {
  const killAfter = Duration.toMillis(options.killAfter ?? KILL_AFTER)
  const quiet = Duration.toMillis(options.drainQuiet ?? DRAIN_QUIET)
  const max = Duration.toMillis(options.drainMax ?? DRAIN_MAX)
  proc.stdout.fiber = yield* Effect.forkChild(readLoop(proc, proc.stdout, options.onOutput))
  if (proc.stderr !== undefined && options.onStderr !== undefined)
    proc.stderr.fiber = yield* Effect.forkChild(readLoop(proc, proc.stderr, options.onStderr))
  const ending: Ending = yield* Effect.raceAll<Effect.Effect<Ending>>([
    Effect.as(Deferred.await(proc.exited), "exit"),
    Effect.as(Effect.sleep(options.timeout), "timeout"),
    options.abort === undefined ? Effect.never : Effect.as(options.abort, "abort")
  ])
  if (ending === "exit") {
    // Output still in the pipe is read before anything else happens; a background
    // process holding the pipe gets a bounded grace, then the group is stopped.
    yield* drain(proc, quiet, max)
  }
  yield* terminate(proc, killAfter)
  yield* drain(proc, quiet, max)
  const complete = yield* allEnded(proc)
  yield* stopReading(proc, true)
  const [exitCode, signal] = leaderExited(proc)
    ? yield* Deferred.await(proc.exited)
    : ([null, proc.child.signalCode] as const)
  return {
    pid: proc.pid,
    exitCode,
    signal,
    timedOut: ending === "timeout",
    interrupted: ending === "abort",
    complete,
    bytes: proc.bytes,
    killed: proc.killed,
    escaped: proc.escaped,
    containment:
      proc.cgroup !== undefined && !(yield* Deferred.await(proc.entered))
        ? { kind: "none", reason: `the command could not be moved into its cgroup ${proc.cgroup.path}` }
        : proc.containment
  } satisfies Outcome
})

/**
 * Runs `command` with `shell` in `cwd`: its own process group (a new session, so no
 * controlling terminal), stdin from /dev/null, stdout and stderr merged in write order and
 * passed to `onOutput` (stderr to `onStderr` instead, when given). Ends on the first of: the shell exits (what is left in the pipe is
 * read, then any process left in the group is stopped), the timeout, or `abort`. The group
 * gets SIGTERM, then SIGKILL after `killAfter`; when the effect returns, fails or is
 * interrupted, no live process of the group remains.
 *
 * @example
 * ```ts
 * import { ShellProcess } from "@gatehousejs/shell"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const shell = yield* ShellProcess.selectShell()
 *   const chunks: Array<Uint8Array> = []
 *   const outcome = yield* ShellProcess.run({
 *     shell,
 *     command: "echo out; echo err >&2; exit 3",
 *     cwd: process.cwd(),
 *     timeout: "10 seconds",
 *     onOutput: (chunk) => Effect.sync(() => chunks.push(chunk))
 *   })
 *   return [outcome.exitCode, Buffer.concat(chunks).toString()] // [3, "out\nerr\n"]
 * })
 * ```
 * @since 0.0.0
 */
export const run: (options: RunOptions) => Effect.Effect<Outcome, SpawnError> = Effect.fn("ShellProcess.run")(
  function* (options: RunOptions) {
    yield* checkDirectory(options.cwd)
    const killAfter = Duration.toMillis(options.killAfter ?? KILL_AFTER)
    return yield* Effect.acquireUseRelease(
      start(options),
      (proc) => supervise(proc, options),
      (proc) =>
        Effect.gen(function* () {
          yield* terminate(proc, killAfter)
          yield* stopReading(proc, false)
          yield* removeCgroup(proc)
          // Everything is stopped: the watcher must not act on the run (its pid may be reused).
          proc.unwatch?.()
        })
    )
  }
)
