// `pnpm bench [filter]`: runs every packages/*/bench/*.bench.ts in its own process, one
// after the other (the machines have two cores; parallel benchmarks would measure each other).
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import * as NodePath from "node:path"
import { root } from "./bench-kit.ts"

const filter = process.argv[2]
const files: Array<string> = []
for (const pkg of readdirSync(NodePath.join(root, "packages")).sort()) {
  const dir = NodePath.join(root, "packages", pkg, "bench")
  if (!existsSync(dir)) continue
  for (const file of readdirSync(dir).sort()) {
    if (file.endsWith(".bench.ts")) files.push(NodePath.join(dir, file))
  }
}
const selected = filter ? files.filter((f) => f.includes(filter)) : files
if (selected.length === 0) {
  console.error(`bench: no benchmark matches ${filter ?? "packages/*/bench/*.bench.ts"}`)
  process.exit(1)
}
let failed = 0
for (const file of selected) {
  console.log(`\n# ${NodePath.relative(root, file)}`)
  const result = spawnSync(process.execPath, ["--expose-gc", file], { stdio: "inherit", cwd: root })
  if (result.status !== 0) {
    failed++
    console.error(`bench: ${NodePath.relative(root, file)} failed (exit ${result.status ?? result.signal})`)
  }
}
process.exit(failed === 0 ? 0 : 1)
