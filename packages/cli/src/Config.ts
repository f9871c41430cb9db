/**
 * `gatehouse.json`: the project's policy, read by every `gatehouse` command.
 *
 * The configuration is layered as opencode layers its own (see {@link load}): the user's
 * file, the project's `gatehouse.json` files, then `--config FILE`; none is fine (the
 * defaults apply). The project is the working directory's repository root, never the
 * folder of a config file. Keys: `permission` (opencode's format, so a block can be
 * pasted in; key order is precedence), `rules` and `permissions` (rule strings `Tool`,
 * `Tool(glob)`, `Tool=literal` in `allow`/`ask`/`deny` arrays, the latter a pasted Claude Code
 * block; they follow the `permission` block, so they win over it), `mode` (`ask | auto | yolo`), `tool_output`
 * (`max_lines`, `max_bytes`, `retention_days`), `shell` (a name or path), `redis` (the URL of the
 * Redis a group of `gatehouse serve` processes shares), `model` and `provider` (the model of
 * `chat` and `serve`, see ModelConfig). An unknown key or a
 * value of the wrong type fails with {@link ConfigError}, naming the file and the JSON path
 * of the offending value: a broken config never runs with a guessed policy.
 *
 * The ruleset is {@link defaults} (the library's built-in rules) followed by each layer's
 * rules, so the files win, and a later file wins over an earlier one, except that the
 * project's file cannot lift the user's denies nor set what only the user may (see
 * `ProjectLayer`).
 *
 * @since 0.0.0
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Defaults from "@gatehousejs/permission/Defaults"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Ruleset from "@gatehousejs/permission/Ruleset"
import type * as Sandbox from "@gatehousejs/shell/Sandbox"
import type * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { ConfigError, decodeLayer, type Layer, type ToolOutput } from "./ConfigFile.ts"
import * as Jsonc from "./JsoncEdit.ts"
import type * as ModelConfig from "./ModelConfig.ts"
import * as Opencode from "./OpencodeConfig.ts"
import * as ProjectLayer from "./ProjectLayer.ts"

/**
 * The file name looked for in the working directory.
 *
 * @since 0.0.0
 */
export const FILE_NAME = "gatehouse.json"

// One file's error, layer and decoder live in ConfigFile; they are part of this module's API.
export { ConfigError, decodeLayer, type Layer, type ToolOutput }

/**
 * The Truncate settings a `tool_output` block gives (unset fields keep Truncate's defaults).
 *
 * @since 0.0.0
 */
export const truncateOptions = (toolOutput: ToolOutput): Truncate.LayerOptions => ({
  maxLines: toolOutput.maxLines,
  maxBytes: toolOutput.maxBytes,
  retention: toolOutput.retentionDays === undefined ? undefined : `${toolOutput.retentionDays} days`
})

/**
 * A loaded configuration.
 *
 * @since 0.0.0
 */
export interface Info {
  /** The last file read (the one that wins), if any. */
  readonly file: string | undefined
  /** Every file read, the first layer first. */
  readonly files: ReadonlyArray<string>
  /** The project root: the working directory's repository root, else the working directory. */
  readonly directory: string
  /** The files' own rules, in layer order. */
  readonly permission: Permission.Ruleset
  /** {@link defaults} followed by the files' rules: what the gate judges with. */
  readonly ruleset: Permission.Ruleset
  /** Where each rule of `ruleset` comes from (same indexes). */
  readonly sources: ReadonlyArray<string>
  readonly mode: Permission.Mode
  readonly toolOutput: ToolOutput
  readonly shell: string | undefined
  /** The `sandbox` block (`Sandbox.Settings` minus what the file leaves out). */
  readonly sandbox: Partial<Sandbox.Settings>
  /** `redis`: the group `gatehouse serve` joins (`redis://host:port`), if any. */
  readonly redis: string | undefined
  /** `model` and `provider`: the model `chat` and `serve` talk to (see ModelConfig). */
  readonly models: ModelConfig.Settings
  /** The file whose `model` is `models.model`, if any. */
  readonly modelFile: string | undefined
  /** What a command says once on stderr: the keys of an opencode.json that were ignored. */
  readonly notes: ReadonlyArray<string>
}

/**
 * The built-in rules (`Defaults.ruleset` of `@gatehousejs/permission`): harmless commands
 * and other tools allowed; risky commands, paths outside the project, repeated calls and
 * `.env` files ask.
 *
 * @since 0.0.0
 */
export const defaults: Permission.Ruleset = Defaults.ruleset

/**
 * The layers as one configuration: their rules in layer order after {@link defaults} (a
 * later layer's rule wins, as the last matching rule does), a scalar key from the last layer
 * that sets it, `provider` and `tool_output` key by key, the sandbox's path lists joined.
 *
 * @since 0.1.0
 */
export const merge = (layers: ReadonlyArray<Layer>, directory: string): Info => {
  // What follows each layer's rules (only after the project's: see ProjectLayer).
  const reasserted = layers.map((_, index) => ProjectLayer.reasserted(layers, index))
  const permission = layers.flatMap((layer, index) => [
    ...layer.permission,
    ...reasserted[index]!.map((entry) => entry.rule)
  ])
  const last = <A>(pick: (layer: Layer) => A | undefined): A | undefined =>
    layers.reduce<A | undefined>((found, layer) => pick(layer) ?? found, undefined)
  const sandbox: { -readonly [K in keyof Sandbox.Settings]?: Sandbox.Settings[K] } = {}
  for (const layer of layers) {
    const { allowWrite, denyRead, allowRead, ...rest } = layer.sandbox
    Object.assign(sandbox, rest)
    if (allowWrite !== undefined) sandbox.allowWrite = [...(sandbox.allowWrite ?? []), ...allowWrite]
    if (denyRead !== undefined) sandbox.denyRead = [...(sandbox.denyRead ?? []), ...denyRead]
    if (allowRead !== undefined) sandbox.allowRead = [...(sandbox.allowRead ?? []), ...allowRead]
  }
  return {
    file: layers.at(-1)?.file,
    files: layers.map((layer) => layer.file),
    directory,
    permission,
    ruleset: Ruleset.merge(defaults, permission),
    sources: [
      ...Defaults.sources,
      ...layers.flatMap((layer, index) => [
        ...layer.sources,
        ...reasserted[index]!.map((entry) => entry.source)
      ])
    ],
    mode: last((layer) => layer.mode) ?? "ask",
    toolOutput: Object.assign({}, ...layers.map((layer) => layer.toolOutput)),
    shell: last((layer) => layer.shell),
    sandbox,
    redis: last((layer) => layer.redis),
    models: {
      model: last((layer) => layer.models.model),
      baseUrls: Object.assign({}, ...layers.map((layer) => layer.models.baseUrls))
    },
    modelFile: last((layer) => (layer.models.model === undefined ? undefined : layer.file)),
    notes: layers
      .filter((layer) => layer.ignored.length > 0)
      .map(
        (layer) => `${layer.file}: only its permission blocks are read; ignored: ${layer.ignored.join(", ")}`
      )
      .concat(layers.flatMap((layer) => layer.notes ?? []))
  }
}

/**
 * Validates a parsed `gatehouse.json` value as the only layer. `file` and `directory` say
 * where it came from.
 *
 * @since 0.0.0
 */
export const decode = (
  value: unknown,
  options: { readonly file: string | undefined; readonly directory: string; readonly home?: string }
): Effect.Effect<Info, ConfigError> =>
  decodeLayer(value, {
    file: options.file ?? FILE_NAME,
    name: options.file === undefined ? FILE_NAME : NodePath.basename(options.file),
    home: options.home
  }).pipe(
    Effect.map((layer) => ({
      ...merge([layer], options.directory),
      file: options.file,
      files: options.file === undefined ? [] : [options.file]
    }))
  )

// The real form of a path where it exists (a home reached through a link compares as itself).
const realOr = (path: string): string => {
  try {
    return NodeFs.realpathSync(path)
  } catch {
    return path
  }
}

const uid = process.getuid?.()

/** Whether `stat` belongs to this user or root (what git's safe.directory trusts). */
const ownedByUs = (stat: NodeFs.Stats): boolean => uid === undefined || stat.uid === uid || stat.uid === 0

/** A folder anyone may write to and no one may delete others' files in: `/tmp`, `/var/tmp`. */
const sharedFolder = (dir: string): boolean => {
  try {
    const stat = NodeFs.statSync(dir)
    return (stat.mode & 0o1002) === 0o1002
  } catch {
    return false
  }
}

/**
 * The project of a working directory: the outermost folder at or above it that holds a
 * `.git` of this user's or root's (a directory, or the file of a worktree or submodule; a
 * repository made inside another is still the outer one's), else the outermost with a
 * `gatehouse.json` of this user's or root's, else the directory itself. Never the folder of a `--config` file: a shared config folder
 * is not the project. The search stops below the home directory and `/` (a repository of
 * dotfiles at `~` would make the whole home the project for any folder without a `.git` of
 * its own), and at a folder shared by everyone (`/tmp`: anyone could plant a `.git` there
 * and make another user's folders part of it, and its `gatehouse.json` their rules).
 *
 * @since 0.1.0
 */
export const projectRoot = (cwd: string, home: string = userHome()): string => {
  const start = realOr(NodePath.resolve(cwd))
  const stop = realOr(NodePath.resolve(home))
  // The outermost repository wins: a `.git` the model makes in a subfolder (`git init pkg`,
  // a clone) must not make that subfolder a project of its own, with its own gatehouse.json.
  // Without one, the outermost folder with a gatehouse.json of ours (not a dependency's).
  let repository: string | undefined
  let configured: string | undefined
  for (let dir = start; ; ) {
    const git = NodeFs.lstatSync(NodePath.join(dir, ".git"), { throwIfNoEntry: false })
    if (git !== undefined && ownedByUs(git)) repository = dir
    const file = NodeFs.lstatSync(NodePath.join(dir, FILE_NAME), { throwIfNoEntry: false })
    if (file !== undefined && ownedByUs(file)) configured = dir
    const parent = NodePath.dirname(dir)
    if (parent === dir || parent === stop || NodePath.dirname(parent) === parent || sharedFolder(parent))
      return repository ?? configured ?? start
    dir = parent
  }
}

// The home directory: $HOME when it is an absolute path, else the account's.
const userHome = (): string => {
  const home = NodeOs.homedir()
  if (NodePath.isAbsolute(home)) return home
  try {
    return NodeOs.userInfo().homedir
  } catch {
    return "/"
  }
}

/**
 * The user's own file, the first layer: `$XDG_CONFIG_HOME/gatehouse/gatehouse.json`, else
 * `~/.config/gatehouse/gatehouse.json`.
 *
 * @since 0.1.0
 */
export const userFile = (env: NodeJS.ProcessEnv = process.env): string => {
  const xdg = env.XDG_CONFIG_HOME ?? ""
  return NodePath.join(
    NodePath.isAbsolute(xdg) ? xdg : NodePath.join(NodeOs.homedir(), ".config"),
    "gatehouse",
    FILE_NAME
  )
}

// What the trace calls a file: by its path in the project, else from the home directory.
const nameOf = (file: string, root: string, home: string): string => {
  const inside = (base: string) => {
    const relative = NodePath.relative(base, file)
    return relative !== "" &&
      relative !== ".." &&
      !relative.startsWith(`..${NodePath.sep}`) &&
      !NodePath.isAbsolute(relative)
      ? relative
      : undefined
  }
  const inProject = inside(root)
  if (inProject !== undefined) return inProject
  const inHome = inside(home)
  return inHome === undefined ? file : `~/${inHome}`
}

/**
 * Reads the configuration's layers, each later one winning: the user's file
 * ({@link userFile}; `user: false` leaves it out), the project root's `gatehouse.json`
 * ({@link projectRoot}; one in a folder below it is not read: a dependency's folder or one
 * the model writes must not loosen the project's rules), then `config`
 * (`--config`: a `gatehouse.json`-style file, or an `opencode.json`/`.jsonc` whose
 * `permission` blocks are read, `agent.<agent>.permission` too with `agent`). A missing
 * user or project file is skipped; any other file that cannot be read or understood fails
 * with {@link ConfigError} naming it. With no file at all, the defaults apply.
 *
 * @since 0.0.0
 */
export const load = Effect.fnUntraced(function* (options: {
  readonly cwd: string
  readonly config?: string | undefined
  readonly agent?: string | undefined
  readonly user?: string | false | undefined
  /** Only `config`: neither the user's nor the project's file (a checkout not trusted). */
  readonly only?: boolean | undefined
  /** What is allowed runs outside any sandbox (`hook`): the project's allow rules are not read. */
  readonly unsandboxed?: boolean | undefined
  readonly home?: string
}) {
  const cwd = NodePath.resolve(options.cwd)
  const home = options.home ?? userHome()
  const root = projectRoot(cwd, home)
  const explicit = options.config === undefined ? undefined : NodePath.resolve(cwd, options.config)
  if (options.agent !== undefined && (explicit === undefined || !Opencode.isOpencodeFile(explicit))) {
    return yield* new ConfigError({
      file: explicit ?? "",
      path: "",
      message: `--agent ${options.agent}: agents are read from an opencode.json or opencode.jsonc given as --config`
    })
  }
  const only = options.only === true && explicit !== undefined
  const wanted: Array<{ readonly file: string; readonly required: boolean; readonly project?: true }> = [
    ...(options.user === false || only ? [] : [{ file: options.user ?? userFile(), required: false }]),
    ...(only ? [] : [{ file: NodePath.join(root, FILE_NAME), required: false, project: true as const }]),
    ...(explicit === undefined ? [] : [{ file: explicit, required: true }])
  ]
  // A file named twice (`--config gatehouse.json`) is read once, in its later place.
  const files = wanted.filter(
    (entry, index) => !wanted.slice(index + 1).some((later) => later.file === entry.file)
  )
  const layers: Array<Layer> = []
  for (const { file, required, project } of files) {
    const text = yield* readText(file, required)
    if (text === undefined) continue
    // Someone else's file does not make this user's rules (one planted in a shared folder).
    const owner = NodeFs.statSync(file, { throwIfNoEntry: false })
    if (owner !== undefined && !ownedByUs(owner)) {
      return yield* new ConfigError({
        file,
        path: "",
        message: `${file} belongs to another user (uid ${owner.uid}): not read, since another user's file would set your rules (as git refuses such a repository); if you trust it, make it yours (chown), or remove it`
      })
    }
    const name = nameOf(file, root, home)
    const homeOption = options.home === undefined ? {} : { home: options.home }
    if (Opencode.isOpencodeFile(file)) {
      const parsed = Jsonc.parse(text)
      if (parsed instanceof Jsonc.ParseError) {
        return yield* new ConfigError({
          file,
          path: "",
          message: `${file}: not valid JSON with comments (${parsed.message})`
        })
      }
      layers.push(
        yield* Opencode.decode(Jsonc.plain(parsed), { agent: options.agent, ...homeOption }).pipe(
          Effect.mapError(
            (problem) =>
              new ConfigError({
                file,
                path: problem.path,
                message: `${file}: ${problem.path === "" ? "" : `${problem.path}: `}${problem.message}`
              })
          ),
          Effect.map(
            (block): Layer => ({
              file,
              permission: block.rules,
              sources: block.paths.map((path) => `${name} ${path}`),
              mode: undefined,
              toolOutput: {},
              shell: undefined,
              sandbox: {},
              redis: undefined,
              models: { model: undefined, baseUrls: {} },
              ignored: block.ignored
            })
          )
        )
      )
      continue
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (cause) {
      return yield* new ConfigError({
        file,
        path: "",
        message: `${file}: not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`
      })
    }
    const layer = yield* decodeLayer(parsed, { file, name, ...homeOption })
    layers.push(project === true ? ProjectLayer.restrict(layer, { unsandboxed: options.unsandboxed }) : layer)
  }
  return merge(layers, root)
})

// Larger than any configuration a person writes: a file past it is not one.
const MAX_CONFIG_BYTES = 1024 * 1024

// A file's text; `undefined` for an optional file that does not exist (and only then). Only
// a regular file of at most MAX_CONFIG_BYTES is read (a link to a device or a fifo would hang).
const readText = (file: string, required: boolean) =>
  Effect.tryPromise({
    try: async () => {
      const stat = await NodeFs.promises.stat(file)
      if (!stat.isFile()) throw Object.assign(new Error("not a regular file"), { code: "ENOTREG" })
      if (stat.size > MAX_CONFIG_BYTES)
        throw Object.assign(new Error(`larger than ${MAX_CONFIG_BYTES} bytes`), { code: "EFBIG" })
      return NodeFs.promises.readFile(file, "utf8")
    },
    catch: (cause) => cause as NodeJS.ErrnoException
  }).pipe(
    Effect.map((text): string | undefined => text),
    Effect.catch((cause) =>
      !required && (cause.code === "ENOENT" || cause.code === "ENOTDIR")
        ? Effect.succeed(undefined)
        : Effect.fail(
            new ConfigError({
              file,
              path: "",
              message: `cannot read ${file}: ${cause.message ?? String(cause)}`
            })
          )
    )
  )

/**
 * {@link load} for a command's `main`: the configuration, or `undefined` once
 * `gatehouse <command>: <what was wrong>` has been printed to stderr (the command then
 * exits 2).
 *
 * @since 0.0.0
 */
export const loadForCommand = async (
  command: string,
  options: {
    readonly cwd: string
    readonly config?: string | undefined
    readonly agent?: string | undefined
    readonly only?: boolean | undefined
  }
): Promise<Info | undefined> => {
  const loaded = await Effect.runPromiseExit(load(options))
  if (Exit.isSuccess(loaded)) {
    for (const note of loaded.value.notes) console.error(`gatehouse ${command}: ${note}`)
    return loaded.value
  }
  const error = Exit.findErrorOption(loaded)
  console.error(
    `gatehouse ${command}: ${Option.isSome(error) ? error.value.message : "cannot load the configuration"}`
  )
  return undefined
}
