// A git repository that a sandboxed command created at the project's top (`git init`,
// `git clone . x && mv`): kept, minus whatever would make git run a program later, when a
// person runs git outside the sandbox. Git runs programs from its hooks and from many
// configuration keys (core.fsmonitor, core.hooksPath, aliases, filters, diff drivers,
// credential helpers, `include.path` to another file…), so the configuration is checked
// against the keys `git init`, `git clone` and `git config user.*` write, not against a list
// of the dangerous ones. Internal: only Sandbox uses it.
import {
  lstatSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import * as NodePath from "node:path"

// section (lower case) -> keys (lower case) that run nothing. `*` sections take any
// subsection name (`remote "origin"`).
const HARMLESS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  [
    "core",
    new Set([
      "repositoryformatversion",
      "filemode",
      "bare",
      "logallrefupdates",
      "ignorecase",
      "precomposeunicode",
      "symlinks",
      "autocrlf",
      "eol"
    ])
  ],
  ["extensions", new Set(["objectformat", "refstorage"])],
  ["remote.*", new Set(["url", "pushurl", "fetch", "tagopt", "prune"])],
  ["branch.*", new Set(["remote", "merge", "rebase"])],
  ["submodule.*", new Set(["url", "active"])],
  ["user", new Set(["name", "email"])],
  ["init", new Set(["defaultbranch"])]
])

// What `git init` writes, for a configuration that could not be read.
const FRESH =
  "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"

interface Entry {
  readonly section: string
  readonly subsection: string | undefined
  readonly key: string
  /** The value as written after `=` (undefined: a bare key, which means true). */
  readonly raw: string | undefined
}

const SECTION = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\](.*)$/
const KEY = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/

/**
 * The entries of a git configuration file, or `undefined` when any line is not one this
 * reader understands (continued lines, stray text): such a file is not trusted.
 */
export const parseConfig = (text: string): ReadonlyArray<Entry> | undefined => {
  const entries: Array<Entry> = []
  let section: string | undefined
  let subsection: string | undefined
  for (const original of text.split("\n")) {
    let line = original.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    const header = SECTION.exec(line)
    if (header !== null) {
      const name = header[1]!.toLowerCase()
      // The old spelling `[remote.origin]` names a subsection too.
      const dot = header[2] === undefined ? name.indexOf(".") : -1
      section = dot === -1 ? name : name.slice(0, dot)
      subsection = dot === -1 ? header[2] : name.slice(dot + 1)
      line = header[3]!.trim()
      if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    }
    const pair = KEY.exec(line)
    if (pair === null || section === undefined) return undefined
    const raw = pair[2]?.trim()
    // A value continued on the next line (a trailing backslash) is not read here.
    if (raw !== undefined && /(^|[^\\])(\\\\)*\\$/.test(raw)) return undefined
    entries.push({ section, subsection, key: pair[1]!.toLowerCase(), raw })
  }
  return entries
}

const harmless = (entry: Entry): boolean =>
  HARMLESS.get(entry.subsection === undefined ? entry.section : `${entry.section}.*`)?.has(entry.key) === true

const nameOf = (entry: Entry): string =>
  entry.subsection === undefined
    ? `${entry.section}.${entry.key}`
    : `${entry.section}.${entry.subsection}.${entry.key}`

const render = (entries: ReadonlyArray<Entry>): string => {
  let out = ""
  let current: string | undefined
  for (const entry of entries) {
    const header =
      entry.subsection === undefined
        ? `[${entry.section}]`
        : `[${entry.section} "${entry.subsection.replace(/["\\]/g, "\\$&")}"]`
    if (header !== current) {
      out += `${header}\n`
      current = header
    }
    out += entry.raw === undefined ? `\t${entry.key}\n` : `\t${entry.key} = ${entry.raw}\n`
  }
  return out
}

const kind = (path: string): "file" | "directory" | "other" | undefined => {
  const found = lstatSync(path, { throwIfNoEntry: false })
  if (found === undefined) return undefined
  return found.isFile() ? "file" : found.isDirectory() ? "directory" : "other"
}

/** What was taken out of the repository, and what could not be. */
export interface Disarmed {
  readonly removed: ReadonlyArray<string>
  readonly failed: ReadonlyArray<string>
}

// What git leaves mid-operation and offers to go on with (`git rebase --continue` runs a
// planted `exec` line): nothing a new repository needs.
const IN_PROGRESS = ["rebase-merge", "rebase-apply", "sequencer"]
// Files that point the repository elsewhere or change how it reads files.
const POINTERS = ["info/attributes", "commondir", "config.worktree"]
// How far below a repository submodules' repositories are followed; deeper ones are removed.
const MAX_DEPTH = 8
// How many entries of the work tree are looked at for repositories inside it.
const MAX_WALK = 20_000

const isWithin = (root: string, path: string): boolean => path === root || path.startsWith(`${root}/`)

// A submodule's repository names its work tree (`core.worktree = ../../../lib`): harmless
// while that is a folder of the project, plain text, not quoted.
const worktreeInside = (dir: string, root: string, raw: string | undefined): boolean => {
  if (raw === undefined || /["\\]/.test(raw)) return false
  try {
    return isWithin(root, realpathSync(NodePath.resolve(dir, raw)))
  } catch {
    return false
  }
}

// A folder below `modules/` that is a repository (a submodule named `libs/x` has its
// repository at `modules/libs/x`, below a plain folder `libs`).
const isRepository = (dir: string): boolean =>
  ["HEAD", "config", "objects", "hooks", "refs"].some((name) => kind(NodePath.join(dir, name)) !== undefined)

/**
 * Takes out of the git directory at `gitDir` (named `label` in the report) what would run a
 * program: hooks other than git's own samples, a configuration with any key outside the
 * harmless ones (the harmless ones are kept; the file as written is moved to `config.planted`),
 * attribute files, a `commondir` that points the repository elsewhere, an operation left in
 * progress, and the same in the repositories of its submodules and worktrees and in any
 * repository inside its work tree (the project folder around `gitDir`). A `.git` that is not
 * a directory (a `gitdir:` file or a link, which lead to a repository elsewhere) is removed
 * whole; one that cannot be read or changed throughout is moved aside whole
 * (`.git.planted-<time>`), where git does not find it.
 */
export const disarm = (gitDir: string, label: string): Disarmed => {
  const top = kind(gitDir)
  if (top === undefined) return { removed: [], failed: [] }
  const removed: Array<string> = []
  const failed: Array<string> = []
  const remove = (path: string, name: string) => {
    rmSync(path, { recursive: true, force: true })
    removed.push(name)
  }
  if (top !== "directory") {
    try {
      remove(gitDir, label)
    } catch {
      failed.push(label)
    }
    return { removed, failed }
  }
  const root = realpathSync(NodePath.dirname(gitDir))
  const visit = (dir: string, name: string, depth: number, isTop: boolean) => {
    const hooks = NodePath.join(dir, "hooks")
    const hooksKind = kind(hooks)
    if (hooksKind === "directory") {
      for (const hook of readdirSync(hooks)) {
        const path = NodePath.join(hooks, hook)
        if (!(hook.endsWith(".sample") && kind(path) === "file")) remove(path, `${name}/hooks/${hook}`)
      }
    } else if (hooksKind !== undefined) remove(hooks, `${name}/hooks`)
    for (const file of [...POINTERS, ...IN_PROGRESS]) {
      if (kind(NodePath.join(dir, file)) !== undefined) remove(NodePath.join(dir, file), `${name}/${file}`)
    }
    const keep = (entry: Entry): boolean =>
      entry.section === "core" && entry.subsection === undefined && entry.key === "worktree"
        ? !isTop && worktreeInside(dir, root, entry.raw)
        : harmless(entry)
    const config = NodePath.join(dir, "config")
    const configKind = kind(config)
    if (configKind === "file") {
      const entries = parseConfig(readFileSync(config, "utf8"))
      const planted = entries?.filter((e) => !keep(e)).map(nameOf)
      if (planted === undefined || planted.length > 0) {
        const what =
          planted === undefined
            ? `${name}/config, which could not be read`
            : `${name}/config settings ${planted.join(", ")}`
        renameSync(config, NodePath.join(dir, "config.planted"))
        writeFileSync(config, entries === undefined ? FRESH : render(entries.filter(keep)), { mode: 0o644 })
        removed.push(`${what} (as written in ${name}/config.planted)`)
      }
    } else if (configKind !== undefined) remove(config, `${name}/config`)
    for (const nested of ["modules", "worktrees"]) {
      const parent = NodePath.join(dir, nested)
      const parentKind = kind(parent)
      if (parentKind === undefined) continue
      if (parentKind !== "directory" || depth >= MAX_DEPTH) {
        remove(parent, `${name}/${nested}`)
        continue
      }
      const below = (folder: string, folderName: string) => {
        for (const child of readdirSync(folder)) {
          const path = NodePath.join(folder, child)
          const childKind = kind(path)
          if (childKind !== "directory") remove(path, `${folderName}/${child}`)
          else if (isRepository(path)) visit(path, `${folderName}/${child}`, depth + 1, false)
          else below(path, `${folderName}/${child}`)
        }
      }
      below(parent, `${name}/${nested}`)
    }
  }
  // Repositories inside the work tree: a `.git` folder is disarmed as the top one is; a
  // `.git` file may only lead to a submodule's repository in the top one's `modules`.
  const modules = `${realpathSync(gitDir)}/modules/`
  const inside = () => {
    let budget = MAX_WALK
    let level = [root]
    while (level.length > 0) {
      const next: Array<string> = []
      for (const folder of level) {
        for (const entry of readdirSync(folder, { withFileTypes: true })) {
          if (budget-- <= 0) {
            failed.push(
              `the folders below the project (more than ${MAX_WALK} entries: not all were checked for repositories)`
            )
            return
          }
          const path = NodePath.join(folder, entry.name)
          const rel = NodePath.relative(root, path)
          if (entry.name === ".git") {
            if (folder === root) continue
            if (entry.isDirectory()) visit(path, rel, 1, false)
            else if (entry.isFile() && !gitdirInside(path, modules)) remove(path, rel)
            else if (!entry.isFile()) remove(path, rel)
            continue
          }
          if (entry.isDirectory()) next.push(path)
        }
      }
      level = next
    }
  }
  try {
    visit(gitDir, label, 0, true)
    inside()
  } catch {
    // Something could not be read or changed: the repository goes aside whole.
    const aside = `${gitDir}.planted-${Date.now()}`
    try {
      renameSync(gitDir, aside)
      return {
        removed: [
          `${label} (it could not be checked throughout: moved whole to ${NodePath.basename(aside)})`
        ],
        failed
      }
    } catch {
      return { removed, failed: [...failed, label] }
    }
  }
  return { removed, failed }
}

const gitdirInside = (file: string, modules: string): boolean => {
  const text = readFileSync(file, "utf8")
  const match = /^gitdir: (.+)\n?$/.exec(text)
  if (match === null) return false
  try {
    return realpathSync(NodePath.resolve(NodePath.dirname(file), match[1]!)).startsWith(modules)
  } catch {
    return false
  }
}
