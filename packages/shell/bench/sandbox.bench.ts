// The sandbox's cost per command: the same command run by /bin/sh directly and under the
// bubblewrap arguments the bash tool uses (policy from a strict ruleset), alternated in one
// run (A B, then B A), the same warm-up for both, outputs checked equal. Goal (sandbox
// issue): for a command that does real work (the project's scripted check: `gatehouse
// check` of a command), the sandbox adds at most 10 %; `true` shows the fixed cost.
import { spawnSync } from "node:child_process"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import { type Comparison, compare, reportComparisons, root } from "../../../scripts/bench-kit.ts"
import * as Sandbox from "../src/Sandbox.ts"

const available = Sandbox.detect()
if (available.kind !== "bwrap") {
  console.error(
    `bench: no bubblewrap here (${"reason" in available ? available.reason : available.kind}); nothing to measure`
  )
  process.exit(1)
}
const built = spawnSync(process.execPath, [NodePath.join(root, "scripts", "bundle.ts"), "--if-stale"], {
  stdio: "inherit"
})
if (built.status !== 0) throw new Error("bench: the bundle could not be built")

const ruleset = Permission.fromConfig({ "*": "allow", edit: { ".git/*": "deny" }, read: { "*.env": "deny" } })
const policy = Sandbox.policy({
  settings: Sandbox.defaults,
  ruleset,
  projectRoot: root,
  tmp: Sandbox.projectTmp(root)
})
const wrapper = Sandbox.bwrapArgs(policy, root)
const bin = NodePath.join(root, "packages", "cli", "dist", "gatehouse.js")
const cases = [
  { name: "true", command: "true", goal: undefined },
  {
    name: "gatehouse check (real work)",
    command: `${process.execPath} ${bin} check -- 'git status && ls -la'`,
    goal: 1.1
  }
] as const
const rounds = 15
const warmup = 3

const time = (argv: ReadonlyArray<string>): { ms: number; out: string } => {
  const start = performance.now()
  const result = spawnSync(argv[0]!, argv.slice(1), { cwd: root, encoding: "utf8" })
  const ms = performance.now() - start
  if (result.status !== 0)
    throw new Error(`bench: ${argv.join(" ")} exited ${result.status}: ${result.stderr}`)
  return { ms, out: result.stdout }
}

const comparisons: Array<Comparison<{ ms: number; out: string }>> = []
for (const c of cases) {
  const direct = ["/bin/sh", "-c", c.command]
  const sandboxed = [available.path, ...wrapper, "/bin/sh", "-c", c.command]
  comparisons.push(
    await compare({
      case: c.name,
      subject: { name: "under bubblewrap", run: () => time(sandboxed) },
      baseline: { name: "/bin/sh directly", run: () => time(direct) },
      rounds,
      warmup,
      same: (result) => result.out,
      // `true` shows the fixed cost: its times are in the rows, with no goal.
      goals:
        c.goal === undefined
          ? []
          : [
              {
                text: `the sandbox adds at most ${Math.round((c.goal - 1) * 100)} %`,
                judge: "cost",
                atMost: c.goal
              }
            ]
    })
  )
}
reportComparisons("sandbox-overhead", comparisons)
