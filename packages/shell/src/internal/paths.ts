// Path resolution for the analysis: against every directory the command may run in,
// through symlinks (also for files that do not exist yet: their nearest existing parent is
// resolved), and classified inside or outside the project.
import * as fs from "node:fs"
import * as NodePath from "node:path"
import { checkRoot, type Listed, rememberRoot } from "./knownRoots.ts"

export interface Resolver {
  /** The real absolute path of `absolute`, resolved as the kernel does (see {@link makeResolver}). */
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
  /**
   * Something is there (a file, a directory, a link that leads somewhere), or may be: a
   * path we may not look up or do not follow counts as there.
   */
  readonly exists: boolean
  /** Why the path could not be followed to its end (it is then never inside the project). */
  readonly unresolved?: string
}

// Linux follows at most 40 symbolic links in one lookup.
const MAX_LINKS = 40
const SEPARATORS = process.platform === "win32" ? /[\\/]+/ : "/"

/**
 * Resolves absolute paths the way the kernel does, one component at a time from the file
 * system root: each component is looked up (one lstat) in the real directory reached so
 * far, a symlink is replaced by what its target resolves to (a dangling one too, since
 * writing through it creates its target), and `..` is the parent of the real directory
 * reached so far. Paths are never normalised as text first: `link/../x` is in the parent of
 * where `link` points, not next to `link`.
 */
export const makeResolver = (projectRoot: string, now: number): Resolver =>
  new KernelResolver(projectRoot, now)

class KernelResolver implements Resolver {
  readonly root: string
  private readonly rootPrefix: string
  private readonly now: number
  // Entries of real directories, by path (their parent is real, so the path is unambiguous).
  private readonly entries = new Map<string, Resolved>()
  private readonly unresolved = new Set<string>()
  // The root is resolved on the first path that needs it: a command that names no file
  // makes no system call.
  private rootResolved: Resolved | undefined = undefined
  private resolvingRoot = false
  private realRootPrefix = ""
  // The remembered listing of a plain root: its entries need no lookup of their own.
  private rootListing: ((name: string) => Listed) | undefined = undefined

  constructor(projectRoot: string, now: number) {
    this.root = resolvePath(projectRoot)
    this.rootPrefix = this.root.endsWith(NodePath.sep) ? this.root : this.root + NodePath.sep
    this.now = now
  }

  real(absolute: string): string {
    return this.follow(absolute, 0).real
  }

  resolve(absolute: string): Resolved {
    return this.follow(absolute, 0)
  }

  inside(path: string): boolean {
    return (
      !this.unresolved.has(path) && (path === this.realRoot().real || path.startsWith(this.realRootPrefix))
    )
  }

  relative(path: string): string {
    const relative = path === this.realRoot().real ? "" : path.slice(this.realRootPrefix.length)
    return NodePath.sep === "/" ? relative : relative.split(NodePath.sep).join("/")
  }

  private cannotFollow(real: string, reason: string): Resolved {
    this.unresolved.add(real)
    return { real, directory: false, exists: true, unresolved: reason }
  }

  private entry(directory: string, name: string, depth: number): Resolved {
    const path = child(directory, name)
    const cached = this.entries.get(path)
    if (cached !== undefined) return cached
    let result: Resolved
    const listed =
      this.rootListing !== undefined && directory === this.root ? this.rootListing(name) : undefined
    const stat = listed === undefined ? lstat(path) : undefined
    if (listed === "missing") result = { real: path, directory: false, exists: false }
    else if (stat === undefined) result = { real: path, directory: listed === "directory", exists: true }
    else if (stat === "missing") result = { real: path, directory: false, exists: false }
    // Not ours to look at (no permission): it may well be there for a `sudo`, and may be a
    // directory, so what is below it is looked up too.
    else if (stat === "hidden") result = { real: path, directory: true, exists: true }
    else if (!stat.isSymbolicLink()) result = { real: path, directory: stat.isDirectory(), exists: true }
    else if (depth >= MAX_LINKS)
      result = this.cannotFollow(path, `it goes through more than ${MAX_LINKS} symbolic links`)
    // /proc/self, /proc/<pid>/cwd, /dev/fd/…: what they point to depends on the process that
    // looks, and the command is not this one.
    else if (path.startsWith("/proc/")) result = this.cannotFollow(path, "it goes through a /proc link")
    else {
      let target: string
      try {
        target = fs.readlinkSync(path)
      } catch {
        target = path
      }
      result = NodePath.isAbsolute(target)
        ? this.follow(target, depth + 1)
        : this.walk(directory, target, depth + 1)
    }
    this.entries.set(path, result)
    return result
  }

  // `path` (relative to the real directory `from`, or absolute) one component at a time.
  private walk(from: string, path: string, depth: number): Resolved {
    const top = !NodePath.isAbsolute(path) ? "" : NodePath.sep === "/" ? "/" : NodePath.parse(path).root
    let current: Resolved = { real: top === "" ? from : top, directory: true, exists: true }
    for (const name of path.slice(top.length).split(SEPARATORS)) {
      if (name === "" || name === ".") continue
      if (name === "..")
        current =
          current.unresolved === undefined
            ? { real: NodePath.dirname(current.real), directory: true, exists: true }
            : this.cannotFollow(NodePath.dirname(current.real), current.unresolved)
      else if (current.unresolved !== undefined)
        current = this.cannotFollow(child(current.real, name), current.unresolved)
      // Nothing exists below a missing file or a file that is not a directory.
      else if (!current.directory)
        current = { real: child(current.real, name), directory: false, exists: false }
      else current = this.entry(current.real, name, depth)
    }
    return current
  }

  private realRoot(): Resolved {
    if (this.rootResolved === undefined) {
      const known = checkRoot(this.root, this.now)
      let resolved: Resolved
      if (known !== undefined) {
        resolved = { real: this.root, directory: true, exists: true }
        this.rootListing = known.lookup
      } else {
        this.resolvingRoot = true
        try {
          resolved = this.walk(this.root, this.root, 0)
        } finally {
          this.resolvingRoot = false
        }
        if (resolved.real === this.root && resolved.directory) rememberRoot(this.root)
      }
      this.rootResolved = resolved
      this.realRootPrefix = resolved.real.endsWith(NodePath.sep)
        ? resolved.real
        : resolved.real + NodePath.sep
    }
    return this.rootResolved
  }

  // Under the root as given, the walk starts from the root's real path: the components it
  // shares with the root resolve to just that.
  private follow(absolute: string, depth: number): Resolved {
    // (While the root itself is being resolved, a symlink on its way back under it is
    // walked from the top like any path, so a loop ends at MAX_LINKS.)
    if (this.resolvingRoot) return this.walk(absolute, absolute, depth)
    if (absolute === this.root) return this.realRoot()
    if (absolute.startsWith(this.rootPrefix)) {
      const rest = absolute.slice(this.rootPrefix.length)
      const from = this.realRoot().real
      // One plain component (`README.md`, `src`): an entry of the root, without the walk.
      if (rest !== "" && rest !== "." && rest !== ".." && !rest.includes("/") && !rest.includes(NodePath.sep))
        return this.entry(from, rest, depth)
      return this.walk(from, rest, depth)
    }
    return this.walk(absolute, absolute, depth)
  }
}

// A path the kernel cannot look up for anyone (missing, a loop, too long, a file on the
// way) is `missing`; one we may not look up (EACCES, EPERM, …) is `hidden`.
const MISSING_CODES: ReadonlySet<string> = new Set(["ENOENT", "ENOTDIR", "ELOOP", "ENAMETOOLONG"])
const lstat = (path: string): fs.Stats | "missing" | "hidden" => {
  try {
    return fs.lstatSync(path, { throwIfNoEntry: false }) ?? "missing"
  } catch (error) {
    return MISSING_CODES.has((error as NodeJS.ErrnoException).code ?? "") ? "missing" : "hidden"
  }
}

// An entry of a real directory: `name` is one component, never `.`, `..` or empty.
const child = (directory: string, name: string): string =>
  directory.endsWith(NodePath.sep) ? directory + name : directory + NodePath.sep + name

/** `NodePath.resolve(...paths)`, without its work when the last is absolute and normal already. */
export const resolvePath = (...paths: Array<string>): string => {
  const last = paths[paths.length - 1]!
  return isNormalAbsolute(last) ? last : NodePath.resolve(...paths)
}

const isNormalAbsolute = (path: string): boolean =>
  NodePath.sep === "/" &&
  path.startsWith("/") &&
  !path.includes("//") &&
  !path.includes("/./") &&
  !path.includes("/../") &&
  !path.endsWith("/.") &&
  !path.endsWith("/..") &&
  (path.length === 1 || !path.endsWith("/"))

/** `directory/path` without normalising `..` away (see {@link makeResolver}). */
export const joinAsWritten = (directory: string, path: string): string =>
  path === ""
    ? directory
    : directory.endsWith(NodePath.sep)
      ? directory + path
      : directory + NodePath.sep + path

/** The static part of a glob before its first glob character (`src/*.ts` -> `src/`). */
export const globPrefix = (text: string): string => {
  const at = text.search(/[*?[]/)
  return at === -1 ? text : text.slice(0, at)
}

const MAX_GLOB_MATCHES = 200

/**
 * Expands a glob against the file system the way bash does by default: no dotfiles unless
 * the pattern starts with a dot, and then `.` and `..` too (as dash and older bash match
 * them). Returns `undefined` past {@link MAX_GLOB_MATCHES} matches and `[]` when nothing
 * matches.
 */
export const expandGlob = (pattern: string, cwd: string): Array<string> | undefined => {
  const absolute = NodePath.isAbsolute(pattern)
  const parts = pattern.split("/").filter((part, index) => part !== "" || index === 0)
  let current: Array<string> = [absolute ? "/" : cwd]
  for (const part of absolute ? parts.slice(1) : parts) {
    const next: Array<string> = []
    if (!/[*?[]/.test(part)) {
      for (const dir of current) next.push(joinAsWritten(dir, part))
    } else {
      const regex = globRegex(part)
      for (const dir of current) {
        let entries: Array<string>
        try {
          entries = fs.readdirSync(dir)
        } catch {
          continue
        }
        // `.*` matches `.` and `..` in dash, in bash before 5.2 and with `globskipdots` off.
        if (part.startsWith(".")) entries = [".", "..", ...entries]
        for (const entry of entries) {
          if (entry.startsWith(".") && !part.startsWith(".")) continue
          if (regex.test(entry)) next.push(joinAsWritten(dir, entry))
          if (next.length > MAX_GLOB_MATCHES) return undefined
        }
      }
    }
    current = next
    if (current.length === 0) return []
  }
  // A dangling symlink is a match too: writing through it creates its target.
  return current.filter((path) => lstat(path) !== "missing")
}

// Compiled once per pattern part (a RegExp without the g or y flag keeps no state).
const globRegexes = new Map<string, RegExp>()
const MAX_GLOB_REGEXES = 256

const globRegex = (part: string): RegExp => {
  let regex = globRegexes.get(part)
  if (regex === undefined) {
    if (globRegexes.size >= MAX_GLOB_REGEXES) globRegexes.clear()
    regex = compileGlob(part)
    globRegexes.set(part, regex)
  }
  return regex
}

const compileGlob = (part: string): RegExp => {
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
