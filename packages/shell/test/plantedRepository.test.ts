// What is taken out of a repository a sandboxed command made: read as git reads its
// configuration, so that no spelling of a key that runs a program passes for a harmless one.
import { spawnSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "vitest"
import { disarm, parseConfig } from "../src/internal/plantedRepository.ts"

const repository = (config: string, hooks: Record<string, string> = {}) => {
  const git = NodePath.join(mkdtempSync(NodePath.join(tmpdir(), "planted-")), ".git")
  mkdirSync(NodePath.join(git, "hooks"), { recursive: true })
  writeFileSync(NodePath.join(git, "config"), config)
  for (const [name, text] of Object.entries(hooks)) writeFileSync(NodePath.join(git, "hooks", name), text)
  return git
}

describe("parseConfig", () => {
  it("reads sections, subsections (both spellings), keys in any case and a key on the header's line", () => {
    const entries = parseConfig(
      '[Core]\n\tBare = false\n[remote "Origin"]\n\turl = x\n[branch.main] remote = origin\n# note\n; note\n[user]\n\tname\n'
    )
    assert.deepStrictEqual(
      entries?.map((e) => [e.section, e.subsection, e.key, e.raw]),
      [
        ["core", undefined, "bare", "false"],
        ["remote", "Origin", "url", "x"],
        ["branch", "main", "remote", "origin"],
        ["user", undefined, "name", undefined]
      ]
    )
  })

  it("refuses what it cannot read: a continued value, text outside a section, a broken header", () => {
    assert.isUndefined(parseConfig("[core]\n\tbare = fal\\\nse\n"))
    assert.isUndefined(parseConfig("bare = false\n"))
    assert.isUndefined(parseConfig('[core "x\n'))
    // An escaped backslash at the end is a value, not a continuation.
    assert.isDefined(parseConfig("[user]\n\tname = a\\\\\n"))
  })
})

describe("disarm", () => {
  it("keeps the harmless settings and the samples; moves the file as written aside", () => {
    const git = repository(
      '[core]\n\trepositoryformatversion = 0\n[core] FSMonitor = "touch x"\n[include]\n\tpath = /tmp/evil\n[remote "origin"]\n\turl = https://example.com/r.git\n\tuploadpack = touch y\n',
      { "pre-commit.sample": "#!/bin/sh\n", "post-checkout": "#!/bin/sh\ntouch z\n" }
    )
    const { removed, failed } = disarm(git, ".git")
    assert.deepStrictEqual(failed, [])
    assert.deepStrictEqual(removed, [
      ".git/hooks/post-checkout",
      ".git/config settings core.fsmonitor, include.path, remote.origin.uploadpack (as written in .git/config.planted)"
    ])
    assert.deepStrictEqual(readdirSync(NodePath.join(git, "hooks")), ["pre-commit.sample"])
    assert.strictEqual(
      readFileSync(NodePath.join(git, "config"), "utf8"),
      '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://example.com/r.git\n'
    )
    assert.include(readFileSync(NodePath.join(git, "config.planted"), "utf8"), "FSMonitor")
  })

  it("writes git init's own configuration in place of one it cannot read", () => {
    const git = repository("[core]\n\teditor = vi\\\n -c '!touch x'\n")
    assert.deepStrictEqual(disarm(git, ".git").removed, [
      ".git/config, which could not be read (as written in .git/config.planted)"
    ])
    assert.include(readFileSync(NodePath.join(git, "config"), "utf8"), "repositoryformatversion = 0")
    assert.notInclude(readFileSync(NodePath.join(git, "config"), "utf8"), "editor")
  })

  it("removes links in place of hooks or config, a commondir, and the same in submodules' repositories", () => {
    const git = repository("[core]\n\tbare = false\n")
    symlinkSync("/tmp/elsewhere-config", NodePath.join(git, "hooks", "pre-push"))
    writeFileSync(NodePath.join(git, "commondir"), "/tmp/elsewhere\n")
    const module = NodePath.join(git, "modules", "lib")
    mkdirSync(NodePath.join(module, "hooks"), { recursive: true })
    symlinkSync("/tmp/evil-config", NodePath.join(module, "config"))
    writeFileSync(NodePath.join(module, "hooks", "pre-commit"), "#!/bin/sh\n")
    const { removed } = disarm(git, ".git")
    assert.sameMembers(
      [...removed],
      [
        ".git/hooks/pre-push",
        ".git/commondir",
        ".git/modules/lib/hooks/pre-commit",
        ".git/modules/lib/config"
      ]
    )
    assert.isFalse(existsSync(NodePath.join(git, "commondir")))
  })

  it("removes a .git that is a gitdir file or a link whole", () => {
    const dir = mkdtempSync(NodePath.join(tmpdir(), "planted-"))
    writeFileSync(NodePath.join(dir, ".git"), "gitdir: /tmp/elsewhere\n")
    assert.deepStrictEqual(disarm(NodePath.join(dir, ".git"), ".git").removed, [".git"])
    symlinkSync("/tmp", NodePath.join(dir, ".git"))
    assert.deepStrictEqual(disarm(NodePath.join(dir, ".git"), ".git").removed, [".git"])
    assert.isTrue(existsSync("/tmp"))
  })

  // Real repositories, and real git afterwards: a marker file says whether it ran anything.
  const git = (cwd: string, ...args: Array<string>) => {
    const done = spawnSync("git", ["-c", "protocol.file.allow=always", ...args], { cwd, encoding: "utf8" })
    assert.strictEqual(done.status, 0, `git ${args.join(" ")}: ${done.stderr}`)
    return done.stdout
  }
  const sandboxMade = () => {
    const base = realpathSync(mkdtempSync(NodePath.join(tmpdir(), "planted-real-")))
    const source = NodePath.join(base, "src")
    mkdirSync(source)
    git(source, "init", "-q")
    git(source, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x")
    const project = NodePath.join(base, "project")
    mkdirSync(project)
    git(project, "init", "-q")
    return { base, source, project, marker: NodePath.join(base, "ran") }
  }
  const status = (project: string, marker: string) => {
    git(project, "status", "--short")
    return existsSync(marker)
  }

  it("follows submodules whose names have folders, and repositories inside the work tree", () => {
    const { source, project, marker } = sandboxMade()
    git(project, "submodule", "-q", "add", source, "libs/x")
    git(project, "config", "-f", ".git/modules/libs/x/config", "core.fsmonitor", `touch ${marker}; false`)
    // A repository made in the work tree and staged, as a submodule is.
    const inner = NodePath.join(project, "sub")
    mkdirSync(inner)
    git(inner, "init", "-q")
    git(inner, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x")
    git(inner, "config", "core.fsmonitor", `touch ${marker}; false`)
    git(project, "add", "sub")
    // A .git file in the work tree that leads out of the project.
    mkdirSync(NodePath.join(project, "other"))
    writeFileSync(NodePath.join(project, "other", ".git"), `gitdir: ${source}/.git\n`)
    // An operation left to continue.
    mkdirSync(NodePath.join(project, ".git", "rebase-merge"))
    writeFileSync(NodePath.join(project, ".git", "rebase-merge", "git-rebase-todo"), `exec touch ${marker}\n`)
    assert.isTrue(status(project, marker), "the setup runs the planted fsmonitor")
    rmSync(marker)
    const { removed, failed } = disarm(NodePath.join(project, ".git"), ".git")
    assert.deepStrictEqual(failed, [])
    assert.includeMembers(
      [...removed],
      [
        ".git/rebase-merge",
        ".git/modules/libs/x/config settings core.fsmonitor (as written in .git/modules/libs/x/config.planted)",
        "sub/.git/config settings core.fsmonitor (as written in sub/.git/config.planted)",
        "other/.git"
      ]
    )
    assert.isFalse(status(project, marker), "git ran what the command planted")
    // The submodule's own work tree setting, inside the project, stays.
    assert.include(readFileSync(NodePath.join(project, ".git/modules/libs/x/config"), "utf8"), "worktree")
  })

  it("takes a work tree elsewhere out of the top repository, and repositories nested too deep", () => {
    const { project } = sandboxMade()
    git(project, "config", "core.worktree", tmpdir())
    let deep = NodePath.join(project, ".git")
    for (let i = 0; i < 10; i++) {
      deep = NodePath.join(deep, "modules", `m${i}`)
      mkdirSync(deep, { recursive: true })
      writeFileSync(NodePath.join(deep, "HEAD"), "ref: refs/heads/main\n")
    }
    const { removed } = disarm(NodePath.join(project, ".git"), ".git")
    assert.include(removed.join("\n"), ".git/config settings core.worktree")
    assert.notInclude(readFileSync(NodePath.join(project, ".git/config"), "utf8"), "worktree")
    assert.include(removed.join("\n"), "/m7/modules")
    assert.isFalse(
      existsSync(
        NodePath.join(
          project,
          ".git/modules/m0/modules/m1/modules/m2/modules/m3/modules/m4/modules/m5/modules/m6/modules/m7/modules"
        )
      )
    )
  })
})
