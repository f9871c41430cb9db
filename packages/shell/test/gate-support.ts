// Helpers for the analysis and gate tests: a real project in a temp dir (with .git, a
// symlink out of the project, a dangling symlink), rulesets from opencode-style blocks, and
// one call that analyses and judges a command.
import * as fs from "node:fs"
import * as os from "node:os"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import { ShellAnalysis, ShellGate, type ShellParser } from "../src/index.ts"

/** opencode's agent defaults, as `gatehouse check` uses them. */
export const DEFAULTS: Permission.Ruleset = [
  { permission: "*", pattern: "*", action: "allow" },
  { permission: "doom_loop", pattern: "*", action: "ask" },
  { permission: "external_directory", pattern: "*", action: "ask" }
]

/** The defaults followed by `block` (an opencode `permission` block). */
export const rules = (block: Record<string, unknown> = {}): Permission.Ruleset =>
  Permission.merge(DEFAULTS, Permission.fromConfig(block))

export interface Project {
  readonly root: string
  /** A directory outside the project. */
  readonly outside: string
  readonly home: string
}

/**
 * A fresh project: `.git/hooks`, `src/`, `build/`, `link-out -> <outside>` (a symlink to a
 * directory outside), `dangling -> <outside>/created-later` (a symlink to nothing yet).
 */
export const makeProject = (): Project => {
  const base = fs.realpathSync(fs.mkdtempSync(NodePath.join(os.tmpdir(), "gatehouse-gate-")))
  const root = NodePath.join(base, "project")
  const outside = NodePath.join(base, "outside")
  const home = NodePath.join(base, "home")
  for (const dir of [
    root,
    outside,
    home,
    NodePath.join(root, ".git", "hooks"),
    NodePath.join(root, "src"),
    NodePath.join(root, "build")
  ]) {
    fs.mkdirSync(dir, { recursive: true })
  }
  fs.writeFileSync(NodePath.join(root, ".git", "config"), "[core]\n")
  fs.writeFileSync(NodePath.join(root, "src", "index.ts"), "export {}\n")
  fs.writeFileSync(NodePath.join(root, "package.json"), "{}\n")
  fs.writeFileSync(NodePath.join(outside, "secret.txt"), "s3cret\n")
  fs.symlinkSync(outside, NodePath.join(root, "link-out"))
  fs.symlinkSync(NodePath.join(outside, "created-later"), NodePath.join(root, "dangling"))
  return { root, outside, home }
}

export const removeProject = (project: Project): void => {
  fs.rmSync(NodePath.dirname(project.root), { recursive: true, force: true })
}

export interface JudgeOptions {
  readonly dialect?: ShellParser.Dialect
  readonly block?: Record<string, unknown>
  readonly mode?: Permission.Mode
  /** Relative to the project root. */
  readonly cwd?: string
}

/** Analyses `command` in `project` and judges it. */
export const judge = (project: Project, command: string, options: JudgeOptions = {}) =>
  ShellAnalysis.analyze(command, {
    cwd: NodePath.resolve(project.root, options.cwd ?? "."),
    projectRoot: project.root,
    dialect: options.dialect ?? "bash",
    home: project.home
  }).pipe(
    Effect.map((analysis) =>
      ShellGate.judge(analysis, {
        ruleset: rules(options.block),
        ...(options.mode ? { mode: options.mode } : {})
      })
    )
  )

/** The request of `permission`, if any. */
export const request = (verdict: ShellGate.Verdict, permission: string) =>
  verdict.requests.find((r) => r.permission === permission)

/** Every note of the analysis, command-level and text-level, as `kind: message`. */
export const notes = (verdict: ShellGate.Verdict): Array<string> => [
  ...verdict.analysis.notes.map((n) => `${n.kind}: ${n.message}`),
  ...verdict.analysis.commands.flatMap((c) => c.notes.map((n) => `${n.kind}: ${n.message}`))
]
