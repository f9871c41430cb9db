// Loads a command built as one CommonJS file with V8's code cache of an earlier run. Node's
// own compile cache is made when a module is compiled, so it holds only the top level: every
// function the command calls is compiled again at each start. A cache taken from a
// `vm.Script` after the command ran holds those functions too (a third of `check`'s start).
//
// A code cache is code: whoever can write it runs as the next `gatehouse`, outside any
// sandbox. So it lives in a folder of this user's alone (`$XDG_CACHE_HOME/gatehouse`, else
// `~/.cache/gatehouse`), made 0700 and trusted only if it is still ours and writable by no one
// else; the sandbox binds Gatehouse's folders read-only (`Sandbox.GATEHOUSE_STATE`). A cache
// V8 rejects (another Node, other flags, a damaged file) is replaced after the run.
import * as NodeFs from "node:fs"
import * as NodeModule from "node:module"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as NodeVm from "node:vm"

/** `$XDG_CACHE_HOME/gatehouse`, else `~/.cache/gatehouse`. */
export const cacheDirectory = (): string => {
  const xdg = process.env.XDG_CACHE_HOME ?? ""
  return NodePath.join(
    NodePath.isAbsolute(xdg) ? xdg : NodePath.join(NodeOs.homedir(), ".cache"),
    "gatehouse"
  )
}

const uid = process.getuid?.()

/** Ours, and writable by no one else (on Windows, where there are no modes, nothing is trusted). */
const isPrivate = (stats: NodeFs.Stats): boolean =>
  uid !== undefined && stats.uid === uid && (stats.mode & 0o022) === 0

/**
 * The private folder for code caches (made when missing), or undefined when there is none to
 * trust: then commands start without one.
 */
export const privateFolder = (directory: string = cacheDirectory()): string | undefined => {
  const folder = NodePath.join(directory, "code")
  try {
    NodeFs.mkdirSync(folder, { recursive: true, mode: 0o700 })
    for (const each of [directory, folder]) if (!isPrivate(NodeFs.lstatSync(each))) return undefined
    return folder
  } catch {
    return undefined
  }
}

let processFolder: { readonly folder: string | undefined } | undefined

/** {@link privateFolder} of the default directory, found once per process (bin.ts asks first). */
export const defaultFolder = (): string | undefined => {
  processFolder ??= { folder: privateFolder() }
  return processFolder.folder
}

/** The cache's bytes, if the file is ours alone (checked on the open file, not the name). */
const readPrivate = (file: string): Buffer | undefined => {
  let fd: number | undefined
  try {
    fd = NodeFs.openSync(file, NodeFs.constants.O_RDONLY | NodeFs.constants.O_NOFOLLOW)
    const stats = NodeFs.fstatSync(fd)
    return stats.isFile() && isPrivate(stats) ? NodeFs.readFileSync(fd) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) NodeFs.closeSync(fd)
  }
}

/** Written beside and renamed over, so a reader sees a whole cache or none. */
const writePrivate = (file: string, data: Buffer): void => {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    NodeFs.writeFileSync(temporary, data, { mode: 0o600 })
    NodeFs.renameSync(temporary, file)
  } catch {
    // A cache is only a head start: a full disk or a read-only home leaves the next start cold.
    NodeFs.rmSync(temporary, { force: true })
  }
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000
const KEPT = 16

/**
 * Each build names its files anew, so caches of older ones pile up: when a cache is written,
 * those not written for a week go, and all but the newest few. (A cache in use is written
 * once; gone, it is made again by the next run that succeeds.)
 */
const sweep = (folder: string, kept: string): void => {
  try {
    const caches = NodeFs.readdirSync(folder)
      .filter((name) => name.endsWith(".cache") && NodePath.join(folder, name) !== kept)
      .map((name) => {
        const path = NodePath.join(folder, name)
        return { path, written: NodeFs.lstatSync(path).mtimeMs }
      })
      .sort((a, b) => b.written - a.written)
    const now = Date.now()
    caches.forEach(({ path, written }, index) => {
      if (index >= KEPT - 1 || now - written > WEEK_MS) NodeFs.rmSync(path, { force: true })
    })
  } catch {
    // Sweeping is tidiness: a cache that cannot be listed or removed is left where it is.
  }
}

export interface Loaded<A> {
  readonly exports: A
  /** What became of the cache: none found (or none trusted), used, or refused by V8. */
  readonly cache: "none" | "accepted" | "rejected"
  /** Writes the code cache when there was none or V8 rejected it (call once the work is done). */
  readonly save: () => void
}

/**
 * Runs the CommonJS file `file` (a bundle whose name carries its content hash) with the code
 * cache kept for it in `folder`, and returns its exports.
 */
export const load = <A>(file: string, folder: string | undefined): Loaded<A> => {
  const source = NodeFs.readFileSync(file, "utf8")
  // One cache per bundle, Node and architecture; V8 checks its own version and flags as well.
  const cacheFile =
    folder === undefined
      ? undefined
      : NodePath.join(folder, `${NodePath.basename(file)}-${process.version}-${process.arch}.cache`)
  const cachedData = cacheFile === undefined ? undefined : readPrivate(cacheFile)
  const script = new NodeVm.Script(
    `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`,
    {
      filename: file,
      lineOffset: -1,
      ...(cachedData === undefined ? {} : { cachedData })
    }
  )
  const module = { exports: {} as A }
  script.runInThisContext()(
    module.exports,
    NodeModule.createRequire(file),
    module,
    file,
    NodePath.dirname(file)
  )
  let saved = false
  return {
    exports: module.exports,
    cache: cachedData === undefined ? "none" : script.cachedDataRejected === true ? "rejected" : "accepted",
    save: () => {
      if (saved || cacheFile === undefined || (cachedData !== undefined && !script.cachedDataRejected)) return
      saved = true
      writePrivate(cacheFile, script.createCachedData())
      sweep(NodePath.dirname(cacheFile), cacheFile)
    }
  }
}

interface Command {
  readonly main: (argv: ReadonlyArray<string>) => Promise<number>
}

/**
 * The command in the bundle file at `url`, run with its code cache. The cache is written after
 * a run that succeeded: a run that stopped at a bad flag has compiled little of the command.
 */
export const command = (url: URL, folder: string | undefined = defaultFolder()): Command => {
  const loaded = load<Command>(NodeUrl.fileURLToPath(url), folder)
  return {
    main: async (argv) => {
      const code = await loaded.exports.main(argv)
      if (code === 0) loaded.save()
      return code
    }
  }
}
