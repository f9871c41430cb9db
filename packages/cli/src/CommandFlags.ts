// What `check` and `run` share in reading their flags: the usage error, the `--mode` value,
// and what `--help` or a bad flag prints.
import type * as Permission from "@gatehousejs/permission/Permission"
import type * as Sandbox from "@gatehousejs/shell/Sandbox"

/** A flag that is unknown, lacks its value or has a bad one. */
export class UsageError {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

/** The value of `--mode`. */
export const mode = (value: string): Permission.Mode | UsageError =>
  value === "ask" || value === "auto" || value === "yolo"
    ? value
    : new UsageError(`--mode must be ask, auto or yolo, got "${value}"`)

/** The value of `--sandbox`. */
export const sandbox = (value: string): Sandbox.Mode | UsageError =>
  value === "auto" || value === "enforce" || value === "off"
    ? value
    : new UsageError(`--sandbox must be auto, enforce or off, got "${value}"`)

/**
 * The parsed flags, or the exit code once `--help` printed the usage (0) or a bad flag its
 * reason and where the usage is (`status`, 2 unless the command says otherwise).
 */
export const settle = <F>(
  command: string,
  usage: string,
  flags: F | "help" | UsageError,
  status = 2
): F | number => {
  if (flags === "help") {
    console.log(usage)
    return 0
  }
  if (flags instanceof UsageError) {
    console.error(`gatehouse ${command}: ${flags.message} (see gatehouse ${command} --help)`)
    return status
  }
  return flags
}
