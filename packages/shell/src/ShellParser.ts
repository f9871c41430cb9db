/**
 * Tree-sitter parsing of shell commands, in the dialect of the shell that will run them.
 *
 * The layer loads the web-tree-sitter runtime and the bash and PowerShell grammars once,
 * from the installed `web-tree-sitter`, `tree-sitter-bash` and `tree-sitter-powershell`
 * packages (resolved through the module system, so it works wherever they are installed).
 * The PowerShell grammar's file must be readable when the layer is built, but it is read
 * and compiled on the first PowerShell text; a file that is not a grammar then fails that
 * parse as a defect carrying a {@link LoadError}.
 * Every tree is deleted: `parse` acquires it with `Effect.acquireRelease` (deleted when its
 * scope closes), `withTrees` deletes the trees of its synchronous work when that work ends.
 * A tree left undeleted keeps its wasm memory for ever.
 *
 * @since 0.0.0
 */
import { existsSync, readFileSync } from "node:fs"
import { access, constants, readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Language, Parser, type Tree } from "web-tree-sitter"
import {
  copyTree,
  crossChecked,
  type SyntaxNode,
  type TreeReader,
  verifiedReader,
  wasmTreeReader
} from "./internal/syntax.ts"

export type { Node, Tree } from "web-tree-sitter"
export type { SyntaxNode } from "./internal/syntax.ts"

/**
 * The grammar a command is parsed with: `bash` for POSIX shells (bash, zsh, sh, dash, ksh)
 * and `powershell` for pwsh/powershell.
 *
 * @since 0.0.0
 */
export const Dialect = Schema.Literals(["bash", "powershell"])

/**
 * @since 0.0.0
 */
export type Dialect = typeof Dialect.Type

const POWERSHELL_NAMES = new Set(["pwsh", "powershell"])

/**
 * POSIX shells: their syntax is judged with the bash grammar.
 *
 * @since 0.0.0
 */
export const POSIX_SHELLS: ReadonlySet<string> = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "yash",
  "posh",
  "rbash"
])

const shellName = (shell: string): string =>
  (shell.split(/[\\/]/).pop() ?? shell).toLowerCase().replace(/\.exe$/, "")

/**
 * The dialect of a shell, from its name or path (`/bin/zsh` -> `bash`,
 * `C:/tools/PWSH.EXE` -> `powershell`). Any shell that is not PowerShell is parsed with
 * the bash grammar, as opencode does.
 *
 * @example
 * ```ts
 * import { ShellParser } from "@gatehousejs/shell"
 * ShellParser.dialectOf("/usr/bin/pwsh") // "powershell"
 * ShellParser.dialectOf("/bin/dash") // "bash"
 * ```
 * @since 0.0.0
 */
export const dialectOf = (shell: string): Dialect =>
  POWERSHELL_NAMES.has(shellName(shell)) ? "powershell" : "bash"

/**
 * The dialect of a shell whose syntax the gate models (a POSIX shell or PowerShell), or
 * `undefined` for any other name (`fish`, `nu`, `cmd`, a typo).
 *
 * @since 0.0.0
 */
export const knownDialect = (shell: string): Dialect | undefined => {
  const name = shellName(shell)
  return POWERSHELL_NAMES.has(name) ? "powershell" : POSIX_SHELLS.has(name) ? "bash" : undefined
}

/**
 * The runtime or a grammar could not be found or loaded when the layer was built.
 *
 * @since 0.0.0
 */
export class LoadError extends Schema.TaggedError<LoadError>()("ShellParser/LoadError", {
  file: Schema.String,
  message: Schema.String
}) {}

const loadError = (file: string, cause: unknown): LoadError =>
  new LoadError({
    file,
    message: `cannot load the tree-sitter file ${file}: ${cause instanceof Error ? cause.message : String(cause)} (check that web-tree-sitter, tree-sitter-bash and tree-sitter-powershell are installed next to @gatehousejs/shell)`
  })

/**
 * @since 0.0.0
 */
export interface Interface {
  /**
   * Parses `text` with the grammar of `dialect`. The tree lives until the enclosing scope
   * closes, which deletes it (whether the scope succeeds, fails or is interrupted).
   */
  readonly parse: (text: string, dialect: Dialect) => Effect.Effect<Tree, never, Scope.Scope>
  /**
   * Runs `use` with a synchronous parser and deletes every tree it parsed when `use`
   * returns or throws: for synchronous work on several trees, such as an analysis and the
   * command strings nested in it, without an Effect per tree.
   */
  readonly withTrees: <A>(use: (trees: Trees) => A) => Effect.Effect<A>
  /**
   * How {@link Trees.syntax} copies trees: through the runtime's own functions (`runtime`,
   * when this layer initialised web-tree-sitter and the runtime passed the check), or
   * through the public cursor (`cursor`, 2-3x slower, same result). The first copy of
   * each dialect is made both ways and compared; the check with probe texts of that dialect
   * runs on its second copy (or on this call).
   */
  readonly treeReader: (dialect?: Dialect) => "runtime" | "cursor"
}

/**
 * Synchronous parsing for {@link Interface.withTrees}: its trees live until `use` ends.
 *
 * @since 0.0.0
 */
export interface Trees {
  readonly parse: (text: string, dialect: Dialect) => Tree
  /** Parses `text` and returns a plain copy of its tree (see {@link SyntaxNode}); the tree itself is deleted once copied. */
  readonly syntax: (text: string, dialect: Dialect) => SyntaxNode
}

/**
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/shell/ShellParser") {}

/**
 * Where the runtime and grammar files live, resolved from the installed packages.
 *
 * @since 0.0.0
 */
export const files = (): {
  readonly runtime: string
  readonly bash: string
  readonly powershell: string
} => ({
  runtime: resolveFile("web-tree-sitter/web-tree-sitter.wasm"),
  bash: resolveFile("tree-sitter-bash/tree-sitter-bash.wasm"),
  powershell: resolveFile("tree-sitter-powershell/tree-sitter-powershell.wasm")
})

// Node's own lookup, by hand: the first `node_modules/<package>` above this module that holds
// the file. Resolving through Node reads every package.json on the way (6 ms of a 150 ms
// `gatehouse check`), and `import.meta.resolve` is missing in the bundle's CommonJS files.
const resolveFile = (specifier: string): string => {
  let dir = NodePath.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = NodePath.join(dir, "node_modules", specifier)
    if (existsSync(candidate)) return candidate
    const parent = NodePath.dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  try {
    return createRequire(import.meta.url).resolve(specifier)
  } catch {
    return specifier
  }
}

// The lib this project compiles against has no WebAssembly types; Node has the global.
type WasmModule = Parameters<typeof Language.loadSync>[0]
const Wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Module: new (bytes: Uint8Array) => WasmModule
      compile: (bytes: Uint8Array) => Promise<WasmModule>
      instantiate: (module: WasmModule, imports: object) => Promise<unknown>
    }
  }
).WebAssembly
const compileWasm = (bytes: Uint8Array): WasmModule => new Wasm.Module(bytes)
const instantiate = (module: WasmModule, imports: object): Promise<unknown> =>
  Wasm.instantiate(module, imports)
const compileFile = (file: string): Promise<WasmModule> => {
  const compiled = readFile(file).then((bytes) => Wasm.compile(bytes))
  // Awaited by the layer, or not at all when an earlier step fails: never unhandled.
  compiled.catch(() => undefined)
  return compiled
}

/**
 * Builds the service from explicit file locations (the live layer resolves them from the
 * installed packages; tests use this to check a broken installation fails typed).
 *
 * @since 0.0.0
 */
export const layerFrom = (locations: {
  readonly runtime: string
  readonly bash: string
  readonly powershell: string
}): Layer.Layer<Service, LoadError> =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      // Both modules compile at once, off the main thread (WebAssembly.compile), while the
      // runtime's JavaScript starts; each compiled module is instantiated from memory.
      const runtimeModule = compileFile(locations.runtime)
      const bashModule = compileFile(locations.bash)
      const compiledRuntime = yield* Effect.tryPromise({
        try: () => runtimeModule,
        catch: (cause) => loadError(locations.runtime, cause)
      })
      // Emscripten fills this object with the runtime's exports (see wasmTreeReader).
      const runtime = {
        locateFile: (name: string) =>
          name.endsWith(".wasm")
            ? locations.runtime
            : NodePath.join(NodePath.dirname(locations.runtime), name)
      }
      yield* Effect.tryPromise({
        try: () =>
          new Promise<void>((resolve, reject) => {
            // Emscripten only calls back on success: a failed instantiation rejects here.
            const instantiateWasm = (
              imports: object,
              receive: (instance: unknown, module: unknown) => void
            ) => {
              instantiate(compiledRuntime, imports).then(
                (instance) => receive(instance, compiledRuntime),
                reject
              )
              return {}
            }
            Parser.init(Object.assign(runtime, { instantiateWasm })).then(resolve, reject)
          }),
        catch: (cause) => loadError(locations.runtime, cause)
      })
      const compiledBash = yield* Effect.tryPromise({
        try: () => bashModule,
        catch: (cause) => loadError(locations.bash, cause)
      })
      const bashLanguage = yield* Effect.try({
        try: () => Language.loadSync(compiledBash),
        catch: (cause) => loadError(locations.bash, cause)
      })
      // The PowerShell grammar must be readable now (a missing file fails the layer) but is
      // read and compiled on the first PowerShell text: most processes judge only bash, and
      // its 1 MB, its compile and its first parse cost more than a whole `gatehouse check`.
      yield* Effect.tryPromise({
        try: () => access(locations.powershell, constants.R_OK),
        catch: (cause) => loadError(locations.powershell, cause)
      })
      const made: Array<Parser> = []
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          for (const parser of made) parser.delete()
        })
      )
      const makeParser = (language: Language): Parser => {
        const parser = new Parser().setLanguage(language)
        made.push(parser)
        return parser
      }
      const parsers: Partial<Record<Dialect, Parser>> = { bash: makeParser(bashLanguage) }
      const parserFor = (dialect: Dialect): Parser => {
        let parser = parsers[dialect]
        if (parser === undefined) {
          let language: Language
          try {
            language = Language.loadSync(compileWasm(readFileSync(locations.powershell)))
          } catch (cause) {
            // Thrown inside Effect.sync, so a defect carrying the typed error and its file.
            throw loadError(locations.powershell, cause)
          }
          parser = parsers[dialect] = makeParser(language)
        }
        return parser
      }
      const parseNow = (text: string, dialect: Dialect): Tree => {
        const tree = parserFor(dialect).parse(text)
        // web-tree-sitter returns null only when parsing was cancelled, which we never do.
        if (tree === null) throw new Error(`tree-sitter returned no tree for a ${dialect} command`)
        return tree
      }
      const fast = wasmTreeReader(runtime)
      // The runtime reader is trusted once it copies the probe texts right, and the probes
      // are parsed at the second copy of a dialect, not before: parsing them makes V8 compile
      // more of the grammar's lexer than a one-shot process ever runs. The first copy is
      // made both ways and compared instead, so no tree is read by an unchecked reader.
      const settled: Partial<Record<Dialect, TreeReader>> = {}
      const settle = (dialect: Dialect): TreeReader =>
        (settled[dialect] ??= verifiedReader(fast, parseNow, dialect))
      const firstCopied: Partial<Record<Dialect, true>> = {}
      const copy = (tree: Tree, text: string, dialect: Dialect): SyntaxNode => {
        const reader = settled[dialect]
        if (reader !== undefined) return reader(tree, text)
        if (firstCopied[dialect] === true) return settle(dialect)(tree, text)
        firstCopied[dialect] = true
        const first = crossChecked(fast, tree, text)
        if (!first.agreed) settled[dialect] = copyTree
        return first.copy
      }
      const parse = (text: string, dialect: Dialect): Effect.Effect<Tree, never, Scope.Scope> =>
        Effect.acquireRelease(
          Effect.sync(() => parseNow(text, dialect)),
          (tree) => Effect.sync(() => tree.delete())
        )
      // The work is synchronous, so nothing can interrupt it between a parse and the
      // `finally` that deletes the tree: a try/finally is the whole acquire/release.
      const withTrees = <A>(use: (trees: Trees) => A): Effect.Effect<A> =>
        Effect.sync(() => {
          const made: Array<Tree> = []
          const parseKept = (text: string, dialect: Dialect): Tree => {
            const tree = parseNow(text, dialect)
            made.push(tree)
            return tree
          }
          // A copied tree is deleted at once, while its memory is still in the cache.
          const syntax = (text: string, dialect: Dialect): SyntaxNode => {
            const tree = parseNow(text, dialect)
            try {
              return copy(tree, text, dialect)
            } finally {
              tree.delete()
            }
          }
          try {
            return use({ parse: parseKept, syntax })
          } finally {
            for (const tree of made) tree.delete()
          }
        })
      return Service.of({
        parse,
        withTrees,
        treeReader: (dialect = "bash") => (settle(dialect) === fast ? "runtime" : "cursor")
      })
    })
  )

/**
 * The live layer: loads the runtime and both grammars from the installed packages once.
 * Fails with {@link LoadError} when a file is missing or is not a loadable grammar.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Service, LoadError> = Layer.unwrap(Effect.sync(() => layerFrom(files())))
