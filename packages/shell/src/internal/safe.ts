// The commands mode `auto` may approve on its own: programs and option constraints whose
// effects the analysis models (read-only inspection, builds and tests of the project,
// version-control reads, writes inside the project that the edit rules judge). Anything
// else needs a person, whatever notes it carries: uploads, listeners, remote execution,
// fetch-and-run, archive extraction, signals, history rewrites, `truncate`, `dd`, `shred`, …
import type { Command } from "../ShellAnalysis.ts"
import { PLAIN_PROGRAMS } from "./plainPrograms.ts"
import { programKey } from "./programName.ts"

// Programs safe with any arguments: their risky options leave notes, which need a person.
const ANY: ReadonlySet<string> = new Set([
  ...PLAIN_PROGRAMS,
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "find",
  "printf",
  "type",
  "true",
  "false",
  "test",
  "[",
  ":",
  "sed",
  "awk",
  "tsc",
  "vitest",
  "jest",
  "pytest",
  "eslint",
  "prettier",
  "biome",
  "env",
  "time",
  "timeout",
  "nice",
  "get-childitem",
  "get-content",
  "get-item",
  "get-location",
  "test-path",
  "resolve-path",
  "select-string",
  "select-object",
  "sort-object",
  "where-object",
  "measure-object",
  "format-table",
  "format-list",
  "out-string",
  "write-output",
  "write-host",
  "get-date",
  "new-item",
  "copy-item",
  "move-item",
  "set-content",
  "add-content"
])

// Multi-level programs: the subcommands that only read, build or test the project.
const SUBCOMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  [
    "git",
    new Set([
      "status",
      "log",
      "diff",
      "show",
      "blame",
      "ls-files",
      "ls-tree",
      "rev-parse",
      "describe",
      "shortlog",
      "grep",
      "cat-file",
      "rev-list",
      "name-rev",
      "whatchanged",
      "show-ref",
      "merge-base",
      "for-each-ref",
      "branch",
      "tag",
      "remote",
      "stash",
      "config",
      "reflog",
      "--version",
      "version",
      "help"
    ])
  ],
  [
    "npm",
    new Set([
      "test",
      "t",
      "tst",
      "run",
      "run-script",
      "ls",
      "list",
      "ll",
      "la",
      "view",
      "info",
      "show",
      "outdated",
      "why",
      "explain",
      "help",
      "--version",
      "-v"
    ])
  ],
  ["pnpm", new Set(["test", "t", "run", "ls", "list", "why", "outdated", "--version", "-v"])],
  ["yarn", new Set(["test", "run", "list", "why", "info", "--version", "-v"])],
  ["bun", new Set(["test", "run", "--version"])],
  [
    "cargo",
    new Set([
      "build",
      "b",
      "test",
      "t",
      "check",
      "c",
      "clippy",
      "fmt",
      "doc",
      "tree",
      "metadata",
      "bench",
      "run",
      "r",
      "--version"
    ])
  ],
  ["go", new Set(["build", "test", "vet", "fmt", "list", "env", "version", "doc"])],
  ["make", new Set(["", "all", "build", "test", "check", "lint", "fmt", "format"])],
  [
    "gh",
    new Set([
      "pr view",
      "pr list",
      "pr status",
      "pr diff",
      "pr checks",
      "issue view",
      "issue list",
      "run list",
      "run view",
      "repo view",
      "status"
    ])
  ]
])

// branch's and tag's options that write (a ref, .git/config) or run the editor, as their
// parse-options reads them: short letters anywhere in a cluster (`-vd`), long names by any
// prefix (`--edit` is --edit-description, `--unset` --unset-upstream).
const GIT_BRANCH_WRITES = {
  short: "dDmMcCfu",
  long: ["delete", "move", "copy", "force", "set-upstream-to", "unset-upstream", "edit-description"]
}
const GIT_TAG_WRITES = {
  short: "dasfmuFe",
  long: [
    "delete",
    "annotate",
    "sign",
    "force",
    "message",
    "file",
    "local-user",
    "edit",
    "create-reflog",
    "trailer",
    "cleanup"
  ]
}
const gitWrites = (a: string, writes: { readonly short: string; readonly long: ReadonlyArray<string> }) => {
  if (a.startsWith("--")) {
    const name = a.slice(2).split("=", 1)[0]!
    return name !== "" && writes.long.some((option) => option.startsWith(name))
  }
  return a.startsWith("-") && [...a.slice(1)].some((c) => writes.short.includes(c))
}

// Constraints of the git subcommands that both read and write.
const gitReads = (sub: string, rest: ReadonlyArray<string>): boolean => {
  switch (sub) {
    case "branch":
      return rest.every((a) => a.startsWith("-") && !gitWrites(a, GIT_BRANCH_WRITES))
    case "tag":
      return (
        rest.every((a) => !gitWrites(a, GIT_TAG_WRITES)) &&
        (rest.some((a) => a === "-l" || a === "--list") || rest.every((a) => a.startsWith("-")))
      )
    case "remote":
      // `remote show NAME` asks the remote for its refs unless told not to (-n).
      return (
        rest.length === 0 ||
        rest.every((a) => a === "-v" || a === "--verbose") ||
        (rest[0] === "show" && rest.includes("-n")) ||
        rest[0] === "get-url"
      )
    case "stash":
      return rest[0] === "list" || rest[0] === "show"
    case "config":
      return rest.some((a) => /^(--get(-all|-regexp)?|--list|-l)$/.test(a) || a === "get" || a === "list")
    case "reflog":
      return rest.length === 0 || rest[0] === "show" || rest.every((a) => a.startsWith("-"))
    default:
      return true
  }
}

// `npm view NAME[@VERSION] [FIELD…]` reads the registry; a URL, a git or tarball spec or a
// path makes npm fetch what it names.
const REGISTRY_NAME = /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*(@[^/:\\]*)?$/i
const npmReads = (rest: ReadonlyArray<string>): boolean => {
  const spec = rest.find((a) => !a.startsWith("-"))
  return spec === undefined || (REGISTRY_NAME.test(spec) && !/\.(tgz|tar(\.gz)?)$/i.test(spec))
}

// go's options as its flag package reads them (`-name`, `-name=value`, `-name value`):
// those that only choose what to build, test or print. Compiler and linker flags, -toolexec,
// -exec, -overlay, -modfile, -pgo, -pkgdir and -C name programs or files it runs or reads.
const GO_FLAGS = new Set(
  "a n race msan asan cover v work x linkshared modcacherw trimpath json buildvcs".split(" ")
)
const GO_VALUED = new Set("p covermode coverpkg buildmode compiler installsuffix mod tags o".split(" "))
const GO_TEST_FLAGS = new Set("benchmem failfast fullpath short c".split(" "))
const GO_TEST_VALUED = new Set(
  "run bench benchtime count cpu list parallel shuffle skip timeout vet fuzz fuzztime fuzzminimizetime".split(
    " "
  )
)
const GO_LIST_FLAGS = new Set("e deps test find compiled export m".split(" "))
const goReads = (sub: string, rest: ReadonlyArray<string>): boolean => {
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!
    if (sub === "test" && a === "-args") return true
    if (!a.startsWith("-") || a.startsWith("--")) {
      // `go list -m mod@version` (and -u, -versions) asks the module proxy and the origin.
      if (sub === "list" && a.includes("@")) return false
      if (a.startsWith("--")) return false
      continue
    }
    const [name = "", value] = a.slice(1).split(/=(.*)/s)
    if (sub === "env") {
      if (name !== "json" && name !== "changed") return false
      continue
    }
    if (sub === "doc" || sub === "version") {
      if (!/^(all|c|cmd|short|src|u|m|v)$/.test(name)) return false
      continue
    }
    const valued =
      GO_VALUED.has(name) || (sub === "test" && GO_TEST_VALUED.has(name)) || (sub === "list" && name === "f")
    if (valued) {
      if (value === undefined) i++
      continue
    }
    if (
      !(
        GO_FLAGS.has(name) ||
        (sub === "test" && GO_TEST_FLAGS.has(name)) ||
        (sub === "list" && GO_LIST_FLAGS.has(name))
      )
    )
      return false
  }
  return true
}

// A program named by a path is the file at that path: known only where the system keeps its
// programs (`./ls`, `src/cat` or `/tmp/git` may be anything the model wrote).
const SYSTEM_PROGRAM = /^(\/usr(\/local)?|\/opt\/homebrew)?\/s?bin\/[^/]+$/
const systemProgram = (name: string): boolean =>
  (!name.includes("/") && !name.includes("\\")) || SYSTEM_PROGRAM.test(name)

/** Whether mode `auto` may approve `command` on its own (given it carries no note). */
export const isKnownSafe = (command: Command): boolean => {
  if (command.changesDirectory) return true
  const argv = command.canonical ?? command.argv
  if (argv.length === 0) return true
  if (!systemProgram(argv[0]!)) return false
  for (let n = -1; n < command.names.length; n++) {
    const key = programKey(n === -1 ? argv[0]! : command.names[n]!)
    if (ANY.has(key)) return true
    const subs = SUBCOMMANDS.get(key)
    if (subs === undefined) continue
    const rest = argv.slice(1)
    if (key === "make")
      return rest.filter((a) => !a.startsWith("-") && !a.includes("=")).every((t) => subs.has(t))
    const sub = key === "gh" ? rest.slice(0, 2).join(" ") : (rest[0] ?? "")
    if (!subs.has(sub) && !(key === "gh" && subs.has(rest[0] ?? ""))) continue
    if (key === "git") return gitReads(sub, rest.slice(1))
    if (key === "npm" && (sub === "view" || sub === "info" || sub === "show")) return npmReads(rest.slice(1))
    if (key === "yarn" && sub === "info") return npmReads(rest.slice(1))
    if (key === "go") return goReads(sub, rest.slice(1))
    return true
  }
  return false
}

// Builds and tests run what the project's own files say (package.json scripts, Makefile
// recipes, build scripts, test files, config modules), and the model can change those files
// without asking: such a command is known safe for mode `auto`, but not understood as
// harmless. `true` for every subcommand of `make` and of the test runners.
const RUNS_PROJECT_CODE: ReadonlyMap<
  string,
  ReadonlySet<string> | true | ((argv: ReadonlyArray<string>) => boolean)
> = new Map<string, ReadonlySet<string> | true | ((argv: ReadonlyArray<string>) => boolean)>([
  ["npm", new Set(["test", "t", "tst", "run", "run-script"])],
  ["pnpm", new Set(["test", "t", "run"])],
  ["yarn", new Set(["test", "run"])],
  ["bun", new Set(["test", "run"])],
  ["cargo", new Set(["build", "b", "test", "t", "check", "c", "clippy", "doc", "bench", "run", "r"])],
  ["go", new Set(["test"])],
  ["make", true],
  ["vitest", true],
  ["jest", true],
  ["pytest", true],
  ["eslint", true],
  ["prettier", true],
  // tsconfig.json's `extends` reads any file (printed in its errors), `outDir` writes anywhere;
  // biome.json's `extends` and plugins too.
  ["tsc", (argv) => tscReadsConfiguration(argv)],
  ["biome", true],
  // Linters, checkers and bundlers read configuration files (some of them code) that say
  // where to write (`ruff.toml`'s cache-dir, `.pylintrc`'s output, webpack.config.js).
  ...(
    [
      "ruff",
      "mypy",
      "pylint",
      "flake8",
      "black",
      "isort",
      "coverage",
      "pyright",
      "stylelint",
      "rubocop",
      "golangci-lint",
      "mocha",
      "ava",
      "webpack",
      "vite",
      "rollup",
      "esbuild",
      "gradle",
      "mvn",
      "rake"
    ] as const
  ).map((name) => [name, true] as const)
])

// tsc ignores tsconfig.json when it is given the files to compile (and no -p/-b), and for
// --version and --help.
const tscReadsConfiguration = (argv: ReadonlyArray<string>): boolean => {
  const args = argv.slice(1)
  if (args.some((a) => /^(-v|--version|-h|--help|-\?)$/.test(a))) return false
  if (args.some((a) => /^(-p|--project|-b|--build)$/.test(a))) return true
  return !args.some((a) => !a.startsWith("-") && /\.[cm]?[jt]sx?$/.test(a))
}

/** Whether `command` runs code the project's files define (a build, a test run, a linter's config). */
export const runsProjectCode = (command: Command): boolean => {
  const argv = command.canonical ?? command.argv
  if (argv.length === 0) return false
  if (!systemProgram(argv[0]!)) return true
  for (let n = -1; n < command.names.length; n++) {
    const runs = RUNS_PROJECT_CODE.get(programKey(n === -1 ? argv[0]! : command.names[n]!))
    if (runs === true || (typeof runs === "function" ? runs(argv) : runs?.has(argv[1] ?? ""))) return true
  }
  return false
}
