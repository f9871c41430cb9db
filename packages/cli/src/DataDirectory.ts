// Where the commands keep what outlives a run (remembered approvals, sessions).
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

/** `$XDG_DATA_HOME/gatehouse`, else `~/.local/share/gatehouse` (as Truncate's directory). */
export const dataDirectory = (): string => {
  const xdg = process.env.XDG_DATA_HOME ?? ""
  return NodePath.join(
    NodePath.isAbsolute(xdg) ? xdg : NodePath.join(NodeOs.homedir(), ".local", "share"),
    "gatehouse"
  )
}
