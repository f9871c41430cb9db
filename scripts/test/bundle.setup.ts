// Before any test: the `gatehouse` bundle, rebuilt when a source is newer, so the tests
// that run the command start the bundle users run (about a third of the source's start-up).
import { execFileSync } from "node:child_process"
import * as NodePath from "node:path"

export default function setup(): void {
  const root = NodePath.resolve(import.meta.dirname, "../..")
  execFileSync(process.execPath, [NodePath.join(root, "scripts/bundle.ts"), "--if-stale"], {
    cwd: root,
    stdio: "inherit"
  })
}
