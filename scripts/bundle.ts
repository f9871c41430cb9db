// Builds the `gatehouse` command into one file, packages/cli/dist/gatehouse.js, the entry
// point that `npx @gatehousejs/cli` and `pnpm gatehouse` both run. Everything is bundled
// (effect included: the command is a program, not a library) except web-tree-sitter and the
// grammars, whose .wasm files are found next to their own packages at run time. The files
// that modules read beside themselves (the web page, the demo script) are copied to where
// the bundle's `import.meta.url` finds them.
//
//   node scripts/bundle.ts             build
//   node scripts/bundle.ts --if-stale  build only when a source is newer than the bundle
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import * as NodePath from "node:path"
import { build } from "rolldown"

const root = NodePath.resolve(import.meta.dirname, "..")
const cli = NodePath.join(root, "packages", "cli")
const output = NodePath.join(cli, "dist", "gatehouse.js")
const external = ["web-tree-sitter", "tree-sitter-bash", "tree-sitter-powershell"]

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

rmSync(NodePath.join(cli, "dist"), { recursive: true, force: true })
await build({
  input: NodePath.join(cli, "src", "bin.ts"),
  platform: "node",
  external: [...external, ...builtinModules, /^node:/],
  logLevel: "warn",
  output: {
    dir: NodePath.dirname(output),
    entryFileNames: "gatehouse.js",
    chunkFileNames: "[name]-[hash].js",
    format: "esm",
    minify: true
  }
})
// The bundle sits in dist/ as the modules sat in src/: `../web` and `../demo` are beside dist.
for (const [pkg, folder] of [
  ["server", "web"],
  ["session", "demo"]
] as const) {
  const target = NodePath.join(cli, folder)
  rmSync(target, { recursive: true, force: true })
  mkdirSync(target, { recursive: true })
  cpSync(NodePath.join(root, "packages", pkg, folder), target, { recursive: true })
}
