// Path resolution for the analysis: against every directory the command may run in,
// through symlinks (also for files that do not exist yet: their nearest existing parent is
// resolved), and classified inside or outside the project.
import * as fs from "node:fs"
import * as NodePath from "node:path"

export interface Resolver {
  /** The real absolute path of `absolute`, following symlinks of every existing part. */
  readonly real: (absolute: string) => string
  /** `real` and whether it is an existing directory, in one look-up. */
  readonly resolve: (absolute: string) => Resolved
  readonly inside: (real: string) => boolean
  readonly relative: (real: string) => string
  /** The project root, absolute, as given (resolved through symlinks only when a path needs it). */
  readonly root: string
}

export interface Resolved {
  readonly real: string
  readonly directory: boolean
}

export const makeResolver = (projectRoot: string): Resolver => {
  const root = NodePath.resolve(projectRoot)
  const cache = new Map<string, Resolved>()
  // One lstat per path component, no exceptions: a component that is not a symlink keeps
  // its name; a symlink is followed (a dangling one too, since writing through it creates
  // its target).
  const lookup = (absolute: string, depth: number): Resolved => {
    const cached = cache.get(absolute)
    if (cached !== undefined) return cached
    if (absolute === root && isKnownPlainRoot(root)) {
      const plain = { real: root, directory: true }
      cache.set(root, plain)
      return plain
    }
    const parent = NodePath.dirname(absolute)
    let result: Resolved
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
    if (absolute === root && result.real === root && result.directory) rememberPlainRoot(root)
    return result
  }
  // The root is resolved on the first path that needs it: a command that names no file
  // makes no system call.
  let rootPrefix: string | undefined
  const realRoot = (): string => lookup(root, 0).real
  const prefix = (): string => {
    if (rootPrefix === undefined) {
      const real = realRoot()
      rootPrefix = real.endsWith(NodePath.sep) ? real : real + NodePath.sep
    }
    return rootPrefix
  }
  return {
    real: (absolute) => lookup(absolute, 0).real,
    resolve: (absolute) => lookup(absolute, 0),
    root,
    inside: (path) => path === realRoot() || path.startsWith(prefix()),
    relative: (path) => {
      const relative = path === realRoot() ? "" : path.slice(prefix().length)
      return NodePath.sep === "/" ? relative : relative.split(NodePath.sep).join("/")
    }
  }
}

// Project roots with no symlink in their path, by device and inode: checking one again is
// a single stat instead of an lstat per component of its path on every analysis.
const plainRoots = new Map<string, { readonly dev: number; readonly ino: number }>()
const MAX_PLAIN_ROOTS = 64

const isKnownPlainRoot = (root: string): boolean => {
  const known = plainRoots.get(root)
  if (known === undefined) return false
  const stat = fs.statSync(root, { throwIfNoEntry: false })
  // Still the same directory, so every path under `root` is in the project. Had a component
  // of `root` become a symlink to that same directory, paths spelt through the new route
  // resolve outside the root and are asked about: stricter, never looser.
  if (stat?.isDirectory() && stat.dev === known.dev && stat.ino === known.ino) return true
  plainRoots.delete(root)
  return false
}

const rememberPlainRoot = (root: string): void => {
  const stat = fs.statSync(root, { throwIfNoEntry: false })
  if (stat === undefined) return
  if (plainRoots.size >= MAX_PLAIN_ROOTS) plainRoots.clear()
  plainRoots.set(root, { dev: stat.dev, ino: stat.ino })
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
