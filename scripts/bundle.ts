// Builds the `gatehouse` command into packages/cli/dist: gatehouse.js, the entry point that
// `npx @gatehousejs/cli` and `pnpm gatehouse` both run, one CommonJS file per command whose
// start is measured, and ES chunks for the others. Everything is bundled (effect included:
// the command is a program, not a library) except the grammars and, in the ES chunks,
// web-tree-sitter, whose .wasm files are found next to their own packages at run time. The files
// that modules read beside themselves (the web page, the demo script) are copied to where
// the bundle's `import.meta.url` finds them.
//
//   node scripts/bundle.ts             build
//   node scripts/bundle.ts --if-stale  build only when a source is newer than the bundle
//
// The new files are built beside the old ones and renamed over them, the entry point last, so a
// `gatehouse` started during a rebuild (a test, a second terminal) finds a whole bundle.
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs"
import { builtinModules, createRequire } from "node:module"
import * as NodePath from "node:path"
import { type BuildOptions, build, type OutputOptions } from "rolldown"

const root = NodePath.resolve(import.meta.dirname, "..")
const cli = NodePath.join(root, "packages", "cli")
const output = NodePath.join(cli, "dist", "gatehouse.js")
const external = ["web-tree-sitter", "tree-sitter-bash", "tree-sitter-powershell"]
// The commands whose start is measured (a hook runs before every tool call of an agent): each
// is built on its own as one CommonJS file, which `CodeCache` runs with V8's code cache.
const cached = ["check", "run", "hook", "serve"]
// In those files web-tree-sitter is bundled from its CommonJS build (its ES build imports
// `module` dynamically, which a `vm.Script` cannot do); its .wasm is still found beside it.
const webTreeSitterCjs = createRequire(NodePath.join(root, "packages", "shell", "package.json")).resolve(
  "web-tree-sitter"
)

const newestSource = (): number => {
  let newest = statSync(import.meta.filename).mtimeMs
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = NodePath.join(dir, entry.name)
      if (entry.isDirectory()) visit(path)
      else newest = Math.max(newest, statSync(path).mtimeMs)
    }
  }
  for (const pkg of readdirSync(NodePath.join(root, "packages"))) {
    for (const part of ["src", "demo", "web", "package.json"]) {
      // The cli package's web/ and demo/ are this script's copies, younger than the bundle.
      if (pkg === "cli" && part !== "src" && part !== "package.json") continue
      const path = NodePath.join(root, "packages", pkg, part)
      if (!existsSync(path)) continue
      if (statSync(path).isDirectory()) visit(path)
      else newest = Math.max(newest, statSync(path).mtimeMs)
    }
  }
  return newest
}

if (process.argv.includes("--if-stale") && existsSync(output) && statSync(output).mtimeMs >= newestSource()) {
  process.exit(0)
}

const dist = NodePath.dirname(output)
const staging = NodePath.join(cli, `.bundle-${process.pid}`)
rmSync(staging, { recursive: true, force: true })
try {
  const builtins = [...builtinModules, /^node:/]
  const options: BuildOptions = {
    platform: "node",
    external: [...external, ...builtins],
    logLevel: "warn",
    onLog: (level, log, handle) => {
      // web-tree-sitter's generated code evaluates its own strings; effect reads an optional
      // `import.meta.env`, which is empty in a CommonJS file as it is on Node.
      if (log.code === "EVAL" && log.id?.includes("web-tree-sitter")) return
      if (log.code === "EMPTY_IMPORT_META" && log.id?.includes("effect/dist/ConfigProvider")) return
      handle(level, log)
    }
  }
  const chunked: OutputOptions = {
    dir: NodePath.join(staging, "dist"),
    chunkFileNames: "[name]-[hash].js",
    format: "esm",
    minify: true
  }
  // Tree-shaken for that command alone, what it evaluates at start is a quarter smaller than
  // its share of the chunks common to all commands, and in one file instead of eight. Its
  // lazy imports (run's host proxy) are chunks of its own, loaded by `require`.
  const alone: Record<string, string> = {}
  for (const command of cached) {
    const built = await build({
      ...options,
      external: [...external.filter((each) => each !== "web-tree-sitter"), ...builtins],
      input: NodePath.join(cli, "src", "commands", `${command}.ts`),
      plugins: [
        {
          name: "web-tree-sitter-cjs",
          resolveId: (source: string) => (source === "web-tree-sitter" ? webTreeSitterCjs : undefined)
        }
      ],
      transform: { define: { "import.meta.url": "__gatehouseModuleUrl" } },
      output: {
        ...chunked,
        format: "cjs",
        entryFileNames: `${command}-[hash].cjs`,
        chunkFileNames: "[name]-[hash].cjs",
        // serve's chunks that it requires at start would be compiled at every start: in its
        // one file they are cached with the rest (its lazy Redis client is wrapped, not run).
        // Alternated 12 rounds: ready in 271 ms, against 314 ms with the chunks.
        codeSplitting: command !== "serve",
        banner: 'const __gatehouseModuleUrl = require("node:url").pathToFileURL(__filename).href;'
      }
    })
    alone[command] = built.output[0].fileName
  }
  const codeCache = NodePath.join(cli, "src", "CodeCache.ts")
  await build({
    ...options,
    input: NodePath.join(cli, "src", "bin.ts"),
    plugins: [
      {
        name: "cached-commands",
        resolveId: (source: string, importer: string | undefined) => {
          const command = /^\.\/commands\/([\w-]+)\.ts$/.exec(source)?.[1]
          if (importer?.endsWith(NodePath.join("src", "bin.ts")) && command !== undefined && alone[command])
            return `\0cached-command:${command}`
          return undefined
        },
        load: (id: string) => {
          const command = /^\0cached-command:(.+)$/.exec(id)?.[1]
          if (command === undefined) return undefined
          return [
            `import { command } from ${JSON.stringify(codeCache)}`,
            `export const { main } = command(new URL(${JSON.stringify(`./${alone[command]}`)}, import.meta.url))`
          ].join("\n")
        }
      }
    ],
    output: { ...chunked, entryFileNames: NodePath.basename(output) }
  })
  // The bundle sits in dist/ as the modules sat in src/: `../web` and `../demo` are beside dist.
  for (const [pkg, folder] of [
    ["server", "web"],
    ["session", "demo"]
  ] as const) {
    cpSync(NodePath.join(root, "packages", pkg, folder), NodePath.join(staging, folder), { recursive: true })
    rmSync(NodePath.join(cli, folder), { recursive: true, force: true })
    renameSync(NodePath.join(staging, folder), NodePath.join(cli, folder))
  }
  mkdirSync(dist, { recursive: true })
  const built = readdirSync(NodePath.join(staging, "dist"))
  const entry = NodePath.basename(output)
  for (const name of [...built.filter((name) => name !== entry), entry]) {
    renameSync(NodePath.join(staging, "dist", name), NodePath.join(dist, name))
  }
  // Chunks of an earlier build: their names carry another hash, so nothing new loads them.
  for (const name of readdirSync(dist))
    if (!built.includes(name)) rmSync(NodePath.join(dist, name), { force: true })
} finally {
  rmSync(staging, { recursive: true, force: true })
}
