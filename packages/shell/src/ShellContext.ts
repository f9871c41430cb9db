/**
 * The per-call context of the shell tool: who is calling (session, tool call), the
 * ruleset to judge with, where the call runs (project root, current directory), the
 * approval mode, and the knobs a session or a config sets (shell, timeouts, abort).
 *
 * A session provides it around each tool call:
 *
 * ```ts
 * handler.pipe(Effect.provideService(ShellContext.Service, {
 *   ...ShellContext.defaults(),
 *   sessionID, callID, ruleset, projectRoot: project, directory: project
 * }))
 * ```
 *
 * Direct use needs nothing: `ShellContext.Service` is a `Context.Reference` whose default
 * is {@link defaults}: session `direct`, an empty ruleset (so every permission falls back
 * to "ask": with no approver the call fails closed, it never silently runs), the mode of
 * `Permission.Service`, the project root of the current `Instance` (else the process's
 * working directory).
 *
 * @since 0.0.0
 */
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Sandbox from "./Sandbox.ts"

/**
 * The default timeout of a command, in milliseconds.
 *
 * @since 0.0.0
 */
export const DEFAULT_TIMEOUT = 120_000

/**
 * The default ceiling on a requested timeout, in milliseconds.
 *
 * @since 0.0.0
 */
export const DEFAULT_MAX_TIMEOUT = 600_000

/**
 * What one shell tool call runs with. Optional fields fall back as documented on each.
 *
 * @since 0.0.0
 */
export interface Shape {
  /** The session the call belongs to; asks are grouped (and rejected) per session. */
  readonly sessionID: string
  /** The tool call id put in each ask's `tool`; default: the model's tool call id, else a fresh `tool_…` id. */
  readonly callID?: string | undefined
  /** The assistant message holding the call, shown to UIs with the ask. */
  readonly messageID?: string | undefined
  /** The rules the gate and `Permission.ask` judge with (later rules win). */
  readonly ruleset: Permission.Ruleset
  /** Where each rule of `ruleset` comes from (same indexes), shown in the trace of each ask. */
  readonly sources?: ReadonlyArray<string> | undefined
  /** The project directory; default: the current `Instance`'s directory, else `process.cwd()`. */
  readonly projectRoot?: string | undefined
  /** The directory commands run in and relative `workdir`s resolve from; default: the project root. */
  readonly directory?: string | undefined
  /**
   * The approval mode the gate's verdict and trace are judged in; default: the mode of
   * `Permission.Service`, which settles the asks.
   */
  readonly mode?: Permission.Mode | undefined
  /** The configured `shell` (name or path); default: `$SHELL` if POSIX, else bash, else /bin/sh. */
  readonly shell?: string | undefined
  /** Timeout when the call gives none (ms); default {@link DEFAULT_TIMEOUT}. */
  readonly defaultTimeout?: number | undefined
  /** Ceiling on a requested timeout (ms); default {@link DEFAULT_MAX_TIMEOUT}. */
  readonly maxTimeout?: number | undefined
  /**
   * The kernel sandbox commands run in (`Sandbox.Settings`, merged over `Sandbox.defaults`:
   * mode `auto`, no network); its policy is derived from `ruleset`.
   */
  readonly sandbox?: Partial<Sandbox.Settings> | undefined
  /** Environment of the process; default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv | undefined
  /**
   * Completes when a person asks to stop the command (a UI's stop button, Ctrl-C): the
   * process group is killed and the result says `interrupted`, with the output so far.
   * Interrupting the fiber instead also kills the group, but returns no result.
   */
  readonly abort?: Effect.Effect<void> | undefined
  /**
   * Given, the command's stderr goes here as it arrives and the result's output holds its
   * stdout alone (a person at a terminal: `gatehouse run --stderr`). A model's tool leaves
   * it unset, so it reads both, merged in write order.
   */
  readonly stderr?: ((chunk: Uint8Array) => Effect.Effect<void>) | undefined
}

/**
 * The context used when none is provided.
 *
 * @since 0.0.0
 */
export const defaults = (): Shape => ({ sessionID: "direct", ruleset: [] })

/**
 * The current call's context (a reference: reading it never fails; unset, it is
 * {@link defaults}).
 *
 * @since 0.0.0
 */
export const Service: Context.Reference<Shape> = Context.Reference<Shape>("@gatehousejs/shell/ShellContext", {
  defaultValue: defaults
})
