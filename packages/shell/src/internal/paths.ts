// Path resolution for the analysis: against every directory the command may run in,
// through symlinks (also for files that do not exist yet: their nearest existing parent is
// resolved), and classified inside or outside the project.
import * as fs from "node:fs"
import * as NodePath from "node:path"

export interface Resolver {
  /** The real absolute path of `absolute`, following symlinks of every existing part. */
  readonly real: (absolute: string) => string
  /** `real` and whether it is an existing directory, in one look-up. */
  readonly resolve: (absolute: string) => { readonly real: string; readonly directory: boolean }
  readonly isDirectory: (absolute: string) => boolean
  readonly inside: (real: string) => boolean
  readonly relative: (real: string) => string
  readonly root: string
}

export const makeResolver = (projectRoot: string): Resolver => {
  const cache = new Map<string, { real: string; directory: boolean }>()
  // One lstat per path component, no exceptions: a component that is not a symlink keeps
  // its name; a symlink is followed (a dangling one too, since writing through it creates
  // its target).
  const lookup = (absolute: string, depth: number): { real: string; directory: boolean } => {
    const cached = cache.get(absolute)
    if (cached !== undefined) return cached
    const parent = NodePath.dirname(absolute)
    let result: { real: string; directory: boolean }
    if (parent === absolute) {
      result = { real: absolute, directory: true }
    } else {
      const base = lookup(parent, depth)
      const candidate = NodePath.join(base.real, NodePath.basename(absolute))
      const stat = fs.lstatSync(candidate, { throwIfNoEntry: false })
      if (stat === undefined) result = { real: candidate, directory: false }
      else if (!stat.isSymbolicLink()) result = { real: candidate, directory: stat.isDirectory() }
      else if (depth > 32) result = { real: candidate, directory: false }
      else {
        let target: string
        try {
          target = fs.readlinkSync(candidate)
        } catch {
          target = candidate
        }
        result = lookup(NodePath.resolve(base.real, target), depth + 1)
      }
    }
    cache.set(absolute, result)
    return result
  }
  const root = lookup(NodePath.resolve(projectRoot), 0).real
  const prefix = root.endsWith(NodePath.sep) ? root : root + NodePath.sep
  return {
    real: (absolute) => lookup(absolute, 0).real,
    resolve: (absolute) => lookup(absolute, 0),
    root,
    isDirectory: (absolute) => lookup(absolute, 0).directory,
    inside: (path) => path === root || path.startsWith(prefix),
    relative: (path) => {
      const relative = path === root ? "" : path.slice(prefix.length)
      return NodePath.sep === "/" ? relative : relative.split(NodePath.sep).join("/")
    }
  }
}

/** The static part of a glob before its first glob character (`src/*.ts` -> `src/`). */
export const globPrefix = (text: string): string => {
  const at = text.search(/[*?[]/)
  return at === -1 ? text : text.slice(0, at)
}

const MAX_GLOB_MATCHES = 200

/**
 * Expands a glob against the file system the way bash does by default (no dotfiles unless
 * the pattern starts with a dot). Returns `undefined` past {@link MAX_GLOB_MATCHES}
 * matches and `[]` when nothing matches.
 */
export const expandGlob = (pattern: string, cwd: string): Array<string> | undefined => {
  const absolute = NodePath.isAbsolute(pattern)
  const parts = pattern.split("/").filter((part, index) => part !== "" || index === 0)
  let current: Array<string> = [absolute ? "/" : cwd]
  for (const part of absolute ? parts.slice(1) : parts) {
    const next: Array<string> = []
    if (!/[*?[]/.test(part)) {
      for (const dir of current) next.push(NodePath.join(dir, part))
    } else {
      const regex = globRegex(part)
      for (const dir of current) {
        let entries: Array<string>
        try {
          entries = fs.readdirSync(dir)
        } catch {
          continue
        }
        for (const entry of entries) {
          if (entry.startsWith(".") && !part.startsWith(".")) continue
          if (regex.test(entry)) next.push(NodePath.join(dir, entry))
          if (next.length > MAX_GLOB_MATCHES) return undefined
        }
      }
    }
    current = next
    if (current.length === 0) return []
  }
  return current.filter((path) => fs.existsSync(path))
}

const globRegex = (part: string): RegExp => {
  let source = "^"
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!
    if (c === "*") source += ".*"
    else if (c === "?") source += "."
    else if (c === "[") {
      const end = part.indexOf("]", i + 2)
      if (end === -1) source += "\\["
      else {
        const body = part
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")
        source += `[${body}]`
        i = end
      }
    } else source += c.replace(/[.+^${}()|\\]/g, "\\$&")
  }
  return new RegExp(`${source}$`, "s")
}
