// A git repository that a sandboxed command created at the project's top (`git init`,
// `git clone . x && mv`): kept, minus whatever would make git run a program later, when a
// person runs git outside the sandbox. Git runs programs from its hooks and from many
// configuration keys (core.fsmonitor, core.hooksPath, aliases, filters, diff drivers,
// credential helpers, `include.path` to another file…), so the configuration is checked
// against the keys `git init`, `git clone` and `git config user.*` write, not against a list
// of the dangerous ones. Internal: only Sandbox uses it.
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
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
      // A submodule's repository names its working tree.
      "worktree",
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

/**
 * Takes out of the git directory at `gitDir` (named `label` in the report) what would run a
 * program: hooks other than git's own samples, a configuration with any key outside the
 * harmless ones (the harmless ones are kept; the file as written is moved to `config.planted`),
 * attribute files, a `commondir` that points the repository elsewhere, and the same in the
 * repositories of its submodules and worktrees. A `.git` that is not a directory (a
 * `gitdir:` file or a link, which lead to a repository elsewhere) is removed whole.
 */
export const disarm = (gitDir: string, label: string): Disarmed => {
  const removed: Array<string> = []
  const failed: Array<string> = []
  const remove = (path: string, name: string) => {
    try {
      rmSync(path, { recursive: true, force: true })
      removed.push(name)
    } catch {
      failed.push(name)
    }
  }
  const visit = (dir: string, name: string, depth: number) => {
    const hooks = NodePath.join(dir, "hooks")
    const hooksKind = kind(hooks)
    if (hooksKind === "directory") {
      for (const hook of readdirSync(hooks)) {
        const path = NodePath.join(hooks, hook)
        if (!(hook.endsWith(".sample") && kind(path) === "file")) remove(path, `${name}/hooks/${hook}`)
      }
    } else if (hooksKind !== undefined) remove(hooks, `${name}/hooks`)
    for (const file of ["info/attributes", "commondir", "config.worktree"]) {
      if (kind(NodePath.join(dir, file)) !== undefined) remove(NodePath.join(dir, file), `${name}/${file}`)
    }
    const config = NodePath.join(dir, "config")
    const configKind = kind(config)
    if (configKind === "file") {
      const entries = parseConfig(readFileSync(config, "utf8"))
      const planted = entries?.filter((e) => !harmless(e)).map(nameOf)
      if (planted === undefined || planted.length > 0) {
        const what =
          planted === undefined
            ? `${name}/config, which could not be read`
            : `${name}/config settings ${planted.join(", ")}`
        try {
          renameSync(config, NodePath.join(dir, "config.planted"))
          writeFileSync(config, entries === undefined ? FRESH : render(entries.filter(harmless)), {
            mode: 0o644
          })
          removed.push(`${what} (as written in ${name}/config.planted)`)
        } catch {
          failed.push(`${name}/config`)
        }
      }
    } else if (configKind !== undefined) remove(config, `${name}/config`)
    if (depth >= 4) return
    for (const nested of ["modules", "worktrees"]) {
      const parent = NodePath.join(dir, nested)
      if (kind(parent) !== "directory") continue
      for (const child of readdirSync(parent)) {
        const path = NodePath.join(parent, child)
        if (kind(path) === "directory") visit(path, `${name}/${nested}/${child}`, depth + 1)
      }
    }
  }
  const top = kind(gitDir)
  if (top === "directory") visit(gitDir, label, 0)
  else if (top !== undefined) remove(gitDir, label)
  return { removed, failed }
}
