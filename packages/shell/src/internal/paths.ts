// Path resolution for the analysis: against every directory the command may run in,
// through symlinks (also for files that do not exist yet: their nearest existing parent is
// resolved), and classified inside or outside the project.
import * as fs from "node:fs"
import * as NodePath from "node:path"
import { type CompiledGlob, compileGlob } from "./glob.ts"
import { checkRoot, type Listed, rememberRoot } from "./knownRoots.ts"

export interface Resolver {
  /** The real absolute path of `absolute`, resolved as the kernel does (see {@link makeResolver}). */
  readonly real: (absolute: string) => string
  /** `real` and whether it is an existing directory, in one look-up. */
  readonly resolve: (absolute: string) => Resolved
  /**
   * `resolve(joinAsWritten(directory, relative))` for a path as written relative to an
   * absolute directory, without building and looking up the joined path. `names`:
   * `relative.split("/")`, split once for a path resolved from many directories.
   */
  readonly resolveIn: (directory: string, relative: string, names?: ReadonlyArray<string>) => Resolved
  /**
   * The names in a directory, `undefined` when it cannot be listed; listed once per
   * resolver (a glob in every directory a command may run in lists the same ones again).
   */
  readonly list: (directory: string) => ReadonlyArray<string> | undefined
  /** `parent`: the {@link Resolved.parent} of `real`, if known (the answer is the same). */
  readonly inside: (real: string, parent?: string) => boolean
  /** `parent`, `name`: those of {@link Resolved} for `real`, if known (the answer is the same). */
  readonly relative: (real: string, parent?: string, name?: string) => string
  /** `relative(real, parent, name)` when `inside(real, parent)`, else `undefined`, in one look-up. */
  readonly relativeIfInside: (real: string, parent?: string, name?: string) => string | undefined
  /**
   * What `fs.existsSync(absolute)` answers (something is there once every link is followed):
   * from the look-ups already made when they tell, else asked.
   */
  readonly exists: (absolute: string) => boolean
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
  /**
   * The real directory this is an entry of, when `real` is that directory and one name
   * (reached through no link): `dirname(real)` without the work.
   */
  readonly parent?: string
  /** With `parent`: the name in it. */
  readonly name?: string
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
  // Entries of real directories, by directory and name (the directory is real, so the path
  // is unambiguous). Two levels: the directory strings come from this cache, their hashes
  // are computed once, and no joined path is built and hashed for a look-up.
  private readonly entries = new Map<string, Names>()
  // These four are made when first needed: few texts need them, and every analysis makes a resolver.
  private unresolved: Set<string> | undefined = undefined
  // Paths we may not look up (no permission): only the kernel can say what is there.
  private hidden: Set<string> | undefined = undefined
  private listings: Map<string, ReadonlyArray<string> | null> | undefined = undefined
  // What is below paths that are missing or not directories, by path and name.
  private below: Map<string, Names> | undefined = undefined
  // Where `resolveIn` starts from each directory (`null`: it joins and follows instead).
  private readonly starts = new Map<string, Resolved | null>()
  // What the project-relative paths of each parent directory's entries start with (`src/`;
  // `""` in the root), `null` outside the project.
  private readonly under = new Map<string, string | null>()
  // What each absolute path followed from the top (depth 0) led to, as written.
  private readonly followed = new Map<string, Resolved>()
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

  resolveIn(directory: string, relative: string, names?: ReadonlyArray<string>): Resolved {
    // A walk is a fold over the components: from where `directory` leads, the components of
    // `relative` (as `follow` walks `directory/relative`). Not from a directory above the
    // root, whose paths may lead under it (those walk from the root's real path).
    let current = this.starts.get(directory)
    if (current === undefined) {
      current =
        NodePath.sep !== "/" ||
        (directory !== this.root &&
          !directory.startsWith(this.rootPrefix) &&
          this.rootPrefix.startsWith(directory))
          ? null
          : directory === this.root
            ? { real: this.realRoot().real, directory: true, exists: true }
            : this.follow(directory, 0)
      this.starts.set(directory, current)
    }
    if (current === null || relative === "" || relative.charCodeAt(0) === 47)
      return this.follow(joinAsWritten(directory, relative), 0)
    if (names !== undefined) {
      const last = names.length - 1
      for (let i = 0; i < last; i++) current = this.step(current, names[i]!, 0)
      return this.step(current, names[last]!, 0, false)
    }
    let start = relative.indexOf("/")
    // One name (`README.md`): a single step, without slicing it out.
    if (start === -1) return this.step(current, relative, 0, false)
    start = 0
    for (;;) {
      const end = relative.indexOf("/", start)
      if (end === -1) return this.step(current, relative.slice(start), 0, false)
      current = this.step(current, relative.slice(start, end), 0)
      start = end + 1
    }
  }

  exists(absolute: string): boolean {
    // Only a path walked as written, one plain entry after another, is answered from the
    // walk. The kernel is asked about the rest: a path with `..`, or through a symbolic link
    // (its target may step over a file or a missing name with `/`, `.` or `..`, which the
    // walk passes and the kernel refuses), one not followed to its end, one we may not look up.
    if (!isNormalAbsolute(absolute)) return fs.existsSync(absolute)
    const found = this.follow(absolute, 0)
    if (found.real !== absolute || found.unresolved !== undefined || this.hidden?.has(found.real) === true)
      return fs.existsSync(absolute)
    return found.exists
  }

  list(directory: string): ReadonlyArray<string> | undefined {
    this.listings ??= new Map()
    let names = this.listings.get(directory)
    if (names === undefined) {
      // What the walk found missing, or found to be a file, cannot be listed: it is not
      // asked again (a failed listing throws, which costs more than the lookup).
      const found = this.follow(directory, 0)
      names =
        !found.exists || (!found.directory && found.unresolved === undefined)
          ? null
          : (listDirectory(directory) ?? null)
      this.listings.set(directory, names)
    }
    return names ?? undefined
  }

  inside(path: string, parent?: string): boolean {
    if (this.unresolved?.has(path) === true) return false
    const root = this.realRoot().real
    if (parent === undefined) return path === root || path.startsWith(this.realRootPrefix)
    // `parent/name` is under the root when `parent` is the root or under it, or is the root.
    return this.entriesUnder(parent) !== null || path === root
  }

  relative(path: string, parent?: string, name?: string): string {
    if (parent !== undefined && name !== undefined && NodePath.sep === "/") {
      // `parent/name` from the relative path of `parent`, without slicing the new path.
      const above = this.entriesUnder(parent)
      if (above !== null) return above + name
    }
    const relative = path === this.realRoot().real ? "" : path.slice(this.realRootPrefix.length)
    return NodePath.sep === "/" ? relative : relative.split(NodePath.sep).join("/")
  }

  relativeIfInside(path: string, parent?: string, name?: string): string | undefined {
    if (parent === undefined || name === undefined || NodePath.sep !== "/")
      return this.inside(path, parent) ? this.relative(path, parent, name) : undefined
    if (this.unresolved?.has(path) === true) return undefined
    const above = this.entriesUnder(parent)
    if (above !== null) return above + name
    return path === this.realRoot().real ? "" : undefined
  }

  // What the project-relative paths of a real directory's entries start with (`""` in the
  // root), `null` outside it; remembered per directory.
  private entriesUnder(directory: string): string | null {
    let prefix = this.under.get(directory)
    if (prefix === undefined) {
      const root = this.realRoot().real
      prefix =
        directory === root
          ? ""
          : directory.startsWith(this.realRootPrefix)
            ? `${directory.slice(this.realRootPrefix.length)}/`
            : null
      this.under.set(directory, prefix)
    }
    return prefix
  }

  private cannotFollow(real: string, reason: string): Resolved {
    this.unresolved ??= new Set()
    this.unresolved.add(real)
    return { real, directory: false, exists: true, unresolved: reason }
  }

  private entry(directory: string, name: string, depth: number): Resolved {
    let entries = this.entries.get(directory)
    if (entries === undefined) {
      entries = names(directory)
      this.entries.set(directory, entries)
    }
    const cached = entries.resolved?.get(name)
    if (cached !== undefined) return cached
    const path = entries.prefix + name
    let result: Resolved
    const listed =
      this.rootListing !== undefined && directory === this.root ? this.rootListing(name) : undefined
    const stat = listed === undefined ? lstat(path) : undefined
    if (listed === "missing")
      result = { real: path, directory: false, exists: false, parent: directory, name }
    else if (stat === undefined)
      result = { real: path, directory: listed === "directory", exists: true, parent: directory, name }
    else if (stat === "missing")
      result = { real: path, directory: false, exists: false, parent: directory, name }
    // Not ours to look at (no permission): it may well be there for a `sudo`, and may be a
    // directory, so what is below it is looked up too.
    else if (stat === "hidden") {
      this.hidden ??= new Set()
      this.hidden.add(path)
      result = { real: path, directory: true, exists: true, parent: directory, name }
    } else if (!stat.isSymbolicLink())
      result = { real: path, directory: stat.isDirectory(), exists: true, parent: directory, name }
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
    keep(entries, name, result)
    return result
  }

  // `path` (relative to the real directory `from`, or absolute) one component at a time.
  private walk(from: string, path: string, depth: number): Resolved {
    const top = !NodePath.isAbsolute(path) ? "" : NodePath.sep === "/" ? "/" : NodePath.parse(path).root
    let current: Resolved = { real: top === "" ? from : top, directory: true, exists: true }
    for (const name of path.slice(top.length).split(SEPARATORS)) current = this.step(current, name, depth)
    return current
  }

  // One component of a walk, from where the components before it led. (`remember`: keep
  // what is below a missing path for later walks; not for the last component of a word,
  // which is rarely walked again.)
  private step(current: Resolved, name: string, depth: number, remember = true): Resolved {
    if (name === "" || name === ".") return current
    if (name === "..")
      return current.unresolved === undefined
        ? { real: NodePath.dirname(current.real), directory: true, exists: true }
        : this.cannotFollow(NodePath.dirname(current.real), current.unresolved)
    if (current.unresolved !== undefined)
      return this.cannotFollow(child(current.real, name), current.unresolved)
    // Nothing exists below a missing file or a file that is not a directory.
    if (!current.directory) {
      // Remembered too: every word in a directory that does not exist walks below it.
      this.below ??= new Map()
      let below = this.below.get(current.real)
      if (below === undefined) {
        below = names(current.real)
        this.below.set(current.real, below)
      }
      const known = below.resolved?.get(name)
      if (known !== undefined) return known
      const missing = {
        real: below.prefix + name,
        directory: false,
        exists: false,
        parent: current.real,
        name
      }
      if (remember) keep(below, name, missing)
      return missing
    }
    return this.entry(current.real, name, depth)
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
    if (depth === 0) {
      const known = this.followed.get(absolute)
      if (known !== undefined) return known
    }
    let resolved: Resolved
    if (absolute.startsWith(this.rootPrefix)) {
      // `root//x` is `root/x`: the kernel skips empty components, so what follows the root
      // is below it, never a walk from the top (`root//.env` was read as `/.env`).
      let start = this.rootPrefix.length
      while (start < absolute.length && (absolute[start] === "/" || absolute[start] === NodePath.sep)) start++
      const rest = absolute.slice(start)
      const from = this.realRoot().real
      const last = NodePath.sep === "/" && depth === 0 ? rest.lastIndexOf("/") : -1
      // One plain component (`README.md`, `src`): an entry of the root, without the walk.
      if (rest !== "" && rest !== "." && rest !== ".." && !rest.includes("/") && !rest.includes(NodePath.sep))
        resolved = this.entry(from, rest, depth)
      // A walk is a fold over the components: where the path's parent (as written) leads
      // is remembered, so every word in one directory walks only its last component.
      else if (last > 0)
        resolved = this.step(this.follow(absolute.slice(0, start + last), 0), rest.slice(last + 1), 0)
      else resolved = this.walk(from, rest, depth)
    } else {
      const last = NodePath.sep === "/" && depth === 0 ? absolute.lastIndexOf("/") : -1
      resolved =
        last > 0
          ? this.step(this.follow(absolute.slice(0, last), 0), absolute.slice(last + 1), 0)
          : this.walk(absolute, absolute, depth)
    }
    if (depth === 0) this.followed.set(absolute, resolved)
    return resolved
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

// What is known of the names in one directory (made with the first), and what their paths
// start with (the directory and a separator, built once for all of them).
interface Names {
  readonly prefix: string
  resolved: Map<string, Resolved> | undefined
}
const names = (directory: string): Names => ({ prefix: child(directory, ""), resolved: undefined })
const keep = (names: Names, name: string, resolved: Resolved): void => {
  if (names.resolved === undefined) names.resolved = new Map()
  names.resolved.set(name, resolved)
}

/** `NodePath.resolve(...paths)`, without its work when the last is absolute and normal already. */
export const resolvePath = (...paths: Array<string>): string => {
  const last = paths[paths.length - 1]!
  return isNormalAbsolute(last) ? last : NodePath.resolve(...paths)
}

/**
 * `NodePath.resolve(directory, path)`, without its work when `directory/path` is absolute
 * and normal already (the same string, then).
 */
export const resolveFrom = (directory: string, path: string): string => {
  if (isNormalAbsolute(path)) return path
  if (!NodePath.isAbsolute(path)) {
    const joined = joinAsWritten(directory, path)
    if (isNormalAbsolute(joined)) return joined
  }
  return NodePath.resolve(directory, path)
}

/** An absolute POSIX path with nothing to normalise: no `.`, `..`, doubled or trailing slash. */
export const isNormalAbsolute = (path: string): boolean =>
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
 * them). Returns `[]` when nothing matches, and why not when the glob is not modelled (a
 * form {@link compileGlob} does not know, or past {@link MAX_GLOB_MATCHES} matches).
 */
export const expandGlob = (
  pattern: string,
  cwd: string,
  /** PowerShell's wildcards: they match a leading dot too (`*.env` matches `.env`). */
  powershell = false,
  /** The names in a directory, `undefined` when it cannot be listed (a resolver's `list`). */
  list: (directory: string) => ReadonlyArray<string> | undefined = listDirectory
): Array<string> | { readonly unmodelled: string } => {
  const absolute = NodePath.isAbsolute(pattern)
  const parts = pattern.split("/").filter((part, index) => part !== "" || index === 0)
  let current: Array<string> = [absolute ? "/" : cwd]
  const components = absolute ? parts.slice(1) : parts
  for (const [index, part] of components.entries()) {
    const next: Array<string> = []
    if (part === "***" && index < components.length - 1)
      // zsh's `***/`: any depth of folders, through symbolic links (which may loop).
      return { unmodelled: "zsh reads `***/` as any depth of folders, through links" }
    if (part === "**" && index < components.length - 1) {
      // zsh (the shell when $SHELL is zsh) reads `**/` as any depth of folders, this one
      // too, not through links; bash as `*/`. Both are taken.
      const below = foldersBelow(current, list)
      if (below === undefined) return { unmodelled: "it matches too many folders to judge" }
      next.push(...current, ...below)
    } else if (!/[*?[]/.test(part)) {
      for (const dir of current) next.push(joinAsWritten(dir, part))
    } else {
      const regex = globRegex(part, powershell)
      if (!(regex instanceof RegExp)) return regex
      for (const dir of current) {
        let entries = list(dir)
        if (entries === undefined) continue
        // `.*` matches `.` and `..` in dash, in bash before 5.2 and with `globskipdots` off.
        if (part.startsWith(".")) entries = [".", "..", ...entries]
        for (const entry of entries) {
          if (entry.startsWith(".") && !part.startsWith(".") && !powershell) continue
          if (regex.test(entry)) next.push(joinAsWritten(dir, entry))
          if (next.length > MAX_GLOB_MATCHES) return { unmodelled: "it matches too many files to judge" }
        }
      }
    }
    current = next
    if (current.length === 0) return []
  }
  // A dangling symlink is a match too: writing through it creates its target.
  return current.filter((path) => lstat(path) !== "missing")
}

// The folders below `roots` that `*/` (a link to a folder too) or zsh's `**/` (any depth,
// not through a link) match: none hidden. `undefined` past MAX_GLOB_MATCHES.
const foldersBelow = (
  roots: ReadonlyArray<string>,
  list: (directory: string) => ReadonlyArray<string> | undefined
): Array<string> | undefined => {
  const found: Array<string> = []
  const pending = roots.map((path) => ({ path, depth: 0 }))
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    for (const entry of list(folder.path) ?? []) {
      if (entry.startsWith(".")) continue
      const path = joinAsWritten(folder.path, entry)
      const stat = lstat(path)
      const link = typeof stat === "object" && stat.isSymbolicLink()
      if (
        link
          ? folder.depth > 0 || list(path) === undefined
          : !(typeof stat === "object" && stat.isDirectory())
      )
        continue
      found.push(path)
      if (!link) pending.push({ path, depth: folder.depth + 1 })
      if (found.length > MAX_GLOB_MATCHES) return undefined
    }
  }
  return found
}

const listDirectory = (directory: string): Array<string> | undefined => {
  try {
    return fs.readdirSync(directory)
  } catch {
    return undefined
  }
}

// Compiled once per pattern part (a RegExp without the g or y flag keeps no state).
const globRegexes = new Map<string, CompiledGlob>()
const MAX_GLOB_REGEXES = 256

const globRegex = (part: string, powershell: boolean): CompiledGlob => {
  const key = powershell ? `ps:${part}` : part
  let regex = globRegexes.get(key)
  if (regex === undefined) {
    if (globRegexes.size >= MAX_GLOB_REGEXES) globRegexes.clear()
    regex = compileGlob(part, powershell ? "powershell" : "bash")
    globRegexes.set(key, regex)
  }
  return regex
}
