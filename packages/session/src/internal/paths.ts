// Where a path really is: resolved through every symlink, including those on the way to a
// file that does not exist yet, so a path is judged (and written) where it would land.
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"

const MAX_LINKS = 40

const code = (cause: unknown) => (cause as NodeJS.ErrnoException | undefined)?.code

/**
 * The absolute path `path` designates with every symlink resolved. Unlike `realpath` it
 * also works for a path that does not exist: the deepest existing ancestor is resolved,
 * and a dangling symlink is followed to where it would create its target.
 */
export const resolveReal = async (path: string, depth = 0): Promise<string> => {
  const absolute = NodePath.resolve(path)
  try {
    return await NodeFs.realpath(absolute)
  } catch (cause) {
    if (code(cause) !== "ENOENT" && code(cause) !== "ENOTDIR") throw cause
  }
  const parent = NodePath.dirname(absolute)
  if (parent === absolute) return absolute
  const base = NodePath.basename(absolute)
  const realParent = await resolveReal(parent, depth)
  const candidate = NodePath.join(realParent, base)
  const stat = await NodeFs.lstat(candidate).catch(() => undefined)
  if (stat?.isSymbolicLink() === true) {
    if (depth >= MAX_LINKS) throw new Error(`too many levels of symbolic links at ${candidate}`)
    const target = await NodeFs.readlink(candidate)
    return resolveReal(NodePath.resolve(realParent, target), depth + 1)
  }
  return candidate
}

/** The path of `absolute` relative to `root` with `/` separators, or undefined outside it. */
export const within = (root: string, absolute: string): string | undefined => {
  const relative = NodePath.relative(root, absolute)
  if (relative === "") return "."
  if (relative === ".." || relative.startsWith(`..${NodePath.sep}`) || NodePath.isAbsolute(relative))
    return undefined
  return relative.split(NodePath.sep).join("/")
}

/** The ancestors of `absolute` that do not exist, deepest first (what creating it would make). */
export const missingAncestors = async (absolute: string, root: string): Promise<Array<string>> => {
  const missing: Array<string> = []
  let current = NodePath.dirname(absolute)
  while (within(root, current) !== undefined && current !== root) {
    const exists = await NodeFs.lstat(current).then(
      () => true,
      () => false
    )
    if (exists) break
    missing.push(current)
    current = NodePath.dirname(current)
  }
  return missing
}
