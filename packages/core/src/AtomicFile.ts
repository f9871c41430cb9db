/**
 * Whole-file writes that a crash or a concurrent reader never sees half done.
 *
 * @since 0.0.0
 */
import { randomBytes } from "node:crypto"
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"

/**
 * Writes `text` to `path` through a temporary file in the same directory, renamed over
 * the old file; creates the directory when missing. On failure no temporary file is left.
 *
 * @example
 * ```ts
 * import { AtomicFile } from "@gatehousejs/core"
 * await AtomicFile.writeText("/tmp/gatehouse-example/state.json", "{}\n")
 * ```
 * @since 0.0.0
 */
export const writeText = async (path: string, text: string): Promise<void> => {
  await NodeFs.mkdir(NodePath.dirname(path), { recursive: true })
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`
  try {
    await NodeFs.writeFile(temporary, text, "utf8")
    await NodeFs.rename(temporary, path)
  } catch (cause) {
    await NodeFs.rm(temporary, { force: true })
    throw cause
  }
}
