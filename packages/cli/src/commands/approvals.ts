// `gatehouse approvals`: the project's remembered "always" answers, listed, revoked one
// pattern at a time, or cleared. They live in one file per project under the data
// directory (`$XDG_DATA_HOME/gatehouse/approvals/<project id>.json`), written under the same
// lock as the running commands' appends.
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import type * as Ruleset from "@gatehousejs/permission/Ruleset"
import * as Effect from "effect/Effect"
import * as CommandFlags from "../CommandFlags.ts"
import * as Config from "../Config.ts"
import { dataDirectory } from "../DataDirectory.ts"

const usage = `usage: gatehouse approvals list [--cwd DIR] [--config FILE] [--json]
       gatehouse approvals revoke PATTERN [--permission NAME] [--cwd DIR] [--config FILE]
       gatehouse approvals clear [--cwd DIR] [--config FILE]

The "always" answers remembered for the project of DIR (default: the current directory):
its repository root (the folder with .git), else DIR. They are kept in $XDG_DATA_HOME/gatehouse/approvals/<project id>.json (default
~/.local/share/gatehouse/approvals). A command already running keeps what it loaded.

  list            every remembered rule, oldest first (--json: an array of rules)
  revoke PATTERN  forget the rules with exactly this pattern (of any permission, or of
                  --permission NAME); exits 1 when none matched
  clear           forget them all`

type Action = "list" | "revoke" | "clear"

interface Flags {
  action: Action
  pattern?: string
  permission?: string
  cwd?: string
  config?: string
  json: boolean
}

const parseFlags = (argv: ReadonlyArray<string>): Flags | "help" | CommandFlags.UsageError => {
  if (argv.includes("--help") || argv.includes("-h")) return "help"
  const [action, ...rest] = argv
  if (action !== "list" && action !== "revoke" && action !== "clear")
    return new CommandFlags.UsageError(
      action === undefined
        ? "give list, revoke or clear"
        : `unknown action "${action}" (list, revoke or clear)`
    )
  const flags: Flags = { action, json: false }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1
    const name = eq === -1 ? arg : arg.slice(0, eq)
    if (name === "--json") {
      flags.json = true
      continue
    }
    if (name === "--cwd" || name === "--config" || name === "--permission") {
      const value = eq !== -1 ? arg.slice(eq + 1) : rest[++i]
      if (value === undefined) return new CommandFlags.UsageError(`${name} needs a value`)
      if (name === "--cwd") flags.cwd = value
      else if (name === "--config") flags.config = value
      else flags.permission = value
      continue
    }
    if (arg === "--") {
      if (flags.pattern !== undefined || i + 2 !== rest.length)
        return new CommandFlags.UsageError("give one PATTERN after --")
      flags.pattern = rest[++i]!
      continue
    }
    if (arg.startsWith("-")) return new CommandFlags.UsageError(`unknown option ${arg}`)
    if (flags.pattern !== undefined)
      return new CommandFlags.UsageError(`one PATTERN only (quote it): "${arg}"`)
    flags.pattern = arg
  }
  if (action === "revoke" && flags.pattern === undefined)
    return new CommandFlags.UsageError("revoke needs a PATTERN")
  if (action !== "revoke" && flags.pattern !== undefined)
    return new CommandFlags.UsageError(`${action} takes no PATTERN`)
  if (action !== "revoke" && flags.permission !== undefined)
    return new CommandFlags.UsageError("--permission goes with revoke")
  if (action !== "list" && flags.json) return new CommandFlags.UsageError("--json goes with list")
  return flags
}

const describe = (rule: Ruleset.Rule): string =>
  `${rule.permission} ${rule.literal === true ? `exactly ${JSON.stringify(rule.pattern)}` : JSON.stringify(rule.pattern)} ${rule.action}`

/**
 * Runs `gatehouse approvals`; resolves to the exit code.
 *
 * @since 0.1.0
 */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const flags = CommandFlags.settle("approvals", usage, parseFlags(argv))
  if (typeof flags === "number") return flags
  const cwd = NodePath.resolve(flags.cwd ?? process.cwd())
  if (!NodeFs.existsSync(cwd) || !NodeFs.statSync(cwd).isDirectory()) {
    console.error(`gatehouse approvals: --cwd ${cwd}: no such directory`)
    return 2
  }
  const config = await Config.loadForCommand("approvals", { cwd, config: flags.config })
  if (config === undefined) return 2
  const directory = NodePath.join(dataDirectory(), "approvals")
  const projectID = Instance.info(config.directory).projectID
  const file = ApprovalStore.file(directory, projectID)

  const keep = (rule: Ruleset.Rule): boolean => {
    if (flags.action === "clear") return false
    if (flags.action === "list") return true
    return !(
      rule.pattern === flags.pattern &&
      (flags.permission === undefined || rule.permission === flags.permission)
    )
  }
  const program =
    flags.action === "list"
      ? ApprovalStore.readRemembered(directory, projectID).pipe(
          Effect.map((rules) => ({ before: rules, after: rules }))
        )
      : ApprovalStore.rewrite(directory, projectID, (rules) => rules.filter(keep))
  const result = await Effect.runPromise(Effect.result(program))
  if (result._tag === "Failure") {
    console.error(`gatehouse approvals: ${result.failure.message}`)
    return 2
  }
  const { before, after } = result.success
  switch (flags.action) {
    case "list":
      if (flags.json) console.log(JSON.stringify(before))
      else if (before.length === 0) console.log(`no remembered approvals for ${config.directory} (${file})`)
      else
        console.log(
          [
            `${before.length} remembered for ${config.directory} (${file}):`,
            ...before.map((r) => `  ${describe(r)}`)
          ].join("\n")
        )
      return 0
    case "revoke": {
      const gone = before.filter((rule) => !after.includes(rule))
      if (gone.length === 0) {
        console.error(
          `gatehouse approvals: no remembered approval has the pattern ${JSON.stringify(flags.pattern)}`
        )
        return 1
      }
      console.log(["revoked:", ...gone.map((r) => `  ${describe(r)}`)].join("\n"))
      return 0
    }
    case "clear":
      console.log(`cleared ${before.length} remembered approval${before.length === 1 ? "" : "s"} (${file})`)
      return 0
  }
}
