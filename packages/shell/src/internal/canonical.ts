// Canonical forms of the multi-level programs people write rules for (`git push *`,
// `npm run *`, `kubectl delete *`): global options moved out, so `git -C src --no-pager
// push -f` is also judged as `git push -f`. The options that change where the program works
// are reported as directory changes, and a subcommand that is not a static word makes the
// command unmodelled (a rule on `git push` cannot be trusted to see `git $sub`).
import type { Word } from "./model.ts"

interface Spec {
  /** Global options that take a value (`-C dir`, `--git-dir=dir`). */
  readonly valued: ReadonlyArray<string>
  /** Global options without a value. */
  readonly flags: ReadonlyArray<string>
  /** Valued options that name the directory the program works in. */
  readonly directories: ReadonlyArray<string>
  /** Global options may also follow the subcommand (npm, kubectl, docker's are before only). */
  readonly anywhere?: boolean
  /** Static words naming what runs (`gh pr merge`: 2). */
  readonly levels: number
  /** An unknown option before the subcommand is an error of the program, or a guess here. */
  readonly strict?: boolean
  /** `cargo +nightly build`: a leading `+toolchain` word. */
  readonly toolchain?: boolean
}

const NPM_VALUED = [
  "--prefix",
  "-C",
  "--workspace",
  "-w",
  "--cache",
  "--registry",
  "--loglevel",
  "--userconfig",
  "--globalconfig",
  "--script-shell",
  "--node-options",
  "--otp",
  "--tag",
  "--access",
  "--location",
  "-L",
  "--include",
  "--omit",
  "--install-strategy"
]
const NPM_FLAGS = [
  "-s",
  "--silent",
  "-q",
  "--quiet",
  "-d",
  "--verbose",
  "-dd",
  "-ddd",
  "-y",
  "--yes",
  "--no",
  "-g",
  "--global",
  "-f",
  "--force",
  "--json",
  "--ignore-scripts",
  "--no-audit",
  "--no-fund",
  "--legacy-peer-deps",
  "--offline",
  "--prefer-offline",
  "--no-progress",
  "--color",
  "--no-color",
  "-ws",
  "--workspaces",
  "--include-workspace-root",
  "--if-present",
  "-D",
  "--save-dev",
  "-E",
  "--save-exact",
  "-P",
  "--save-prod",
  "--no-save",
  "--dry-run",
  "-h",
  "--help",
  "-v",
  "--version"
]

export const SPECS: ReadonlyMap<string, Spec> = new Map<string, Spec>([
  [
    "git",
    {
      valued: [
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--super-prefix",
        "--config-env",
        "--exec-path",
        "--list-cmds",
        "--attr-source"
      ],
      flags: [
        "-p",
        "--paginate",
        "-P",
        "--no-pager",
        "--bare",
        "--no-replace-objects",
        "--no-lazy-fetch",
        "--no-optional-locks",
        "--no-advice",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--html-path",
        "--man-path",
        "--info-path",
        "--version",
        "-v",
        "--help",
        "-h"
      ],
      directories: ["-C", "--git-dir", "--work-tree"],
      levels: 1,
      strict: true
    }
  ],
  [
    "npm",
    { valued: NPM_VALUED, flags: NPM_FLAGS, directories: ["--prefix", "-C"], anywhere: true, levels: 1 }
  ],
  [
    "pnpm",
    {
      valued: [
        "-C",
        "--dir",
        "--filter",
        "-F",
        "--reporter",
        "--loglevel",
        "--workspace-concurrency",
        "--store-dir",
        "--virtual-store-dir",
        "--script-shell",
        "--node-options",
        "--config"
      ],
      flags: [
        "-r",
        "--recursive",
        "-w",
        "--workspace-root",
        "--parallel",
        "--stream",
        "-s",
        "--silent",
        "--aggregate-output",
        "--if-present",
        "--frozen-lockfile",
        "--offline",
        "--prefer-offline",
        "--ignore-scripts",
        "-g",
        "--global",
        "--color",
        "--no-color",
        "-D",
        "--save-dev",
        "-E",
        "--save-exact",
        "-P",
        "--prod",
        "-h",
        "--help",
        "-v",
        "--version"
      ],
      directories: ["-C", "--dir"],
      anywhere: true,
      levels: 1
    }
  ],
  [
    "yarn",
    {
      valued: ["--cwd", "--modules-folder", "--cache-folder", "--registry", "--network-timeout"],
      flags: [
        "-s",
        "--silent",
        "--verbose",
        "--offline",
        "--prefer-offline",
        "--frozen-lockfile",
        "--immutable",
        "--ignore-scripts",
        "--non-interactive",
        "--no-progress",
        "-W",
        "--ignore-workspace-root-check",
        "-D",
        "--dev",
        "-E",
        "--exact",
        "-h",
        "--help",
        "-v",
        "--version"
      ],
      directories: ["--cwd"],
      anywhere: true,
      levels: 1
    }
  ],
  [
    "bun",
    {
      valued: [
        "--cwd",
        "-c",
        "--config",
        "--filter",
        "--env-file",
        "--preload",
        "-r",
        "--require",
        "--import"
      ],
      flags: [
        "--bun",
        "--silent",
        "--smol",
        "--watch",
        "--hot",
        "--no-install",
        "-h",
        "--help",
        "-v",
        "--version"
      ],
      directories: ["--cwd"],
      levels: 1
    }
  ],
  ["go", { valued: ["-C"], flags: [], directories: ["-C"], levels: 1 }],
  [
    "cargo",
    {
      valued: ["-C", "--manifest-path", "--config", "-Z", "--color", "--target-dir"],
      flags: [
        "-q",
        "--quiet",
        "-v",
        "-vv",
        "--verbose",
        "--frozen",
        "--locked",
        "--offline",
        "-h",
        "--help",
        "-V",
        "--version",
        "--list"
      ],
      directories: ["-C"],
      levels: 1,
      toolchain: true
    }
  ],
  [
    "docker",
    {
      valued: [
        "-H",
        "--host",
        "-c",
        "--context",
        "--config",
        "-l",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey"
      ],
      flags: ["-D", "--debug", "--tls", "--tlsverify", "-v", "--version", "--help"],
      directories: [],
      levels: 1,
      strict: true
    }
  ],
  [
    "podman",
    {
      valued: ["--url", "-c", "--connection", "--root", "--runroot", "--log-level", "--storage-driver"],
      flags: ["--remote", "-r", "-v", "--version", "--help"],
      directories: [],
      levels: 1
    }
  ],
  [
    "kubectl",
    {
      valued: [
        "-n",
        "--namespace",
        "--context",
        "--cluster",
        "--user",
        "--kubeconfig",
        "-s",
        "--server",
        "--token",
        "--as",
        "--as-group",
        "--request-timeout",
        "-v",
        "--v",
        "--cache-dir",
        "--certificate-authority",
        "--client-certificate",
        "--client-key"
      ],
      flags: ["-A", "--all-namespaces", "--insecure-skip-tls-verify", "--warnings-as-errors", "-h", "--help"],
      directories: [],
      anywhere: true,
      levels: 1
    }
  ],
  [
    "gh",
    {
      valued: ["-R", "--repo", "--hostname"],
      flags: ["--help", "--version"],
      directories: [],
      anywhere: true,
      levels: 2
    }
  ],
  [
    "make",
    {
      valued: [
        "-C",
        "--directory",
        "-f",
        "--file",
        "--makefile",
        "-I",
        "--include-dir",
        "-o",
        "--old-file",
        "-W",
        "--what-if",
        "-l",
        "--load-average",
        "-O",
        "--output-sync"
      ],
      flags: [
        "-j",
        "-k",
        "--keep-going",
        "-s",
        "--silent",
        "--quiet",
        "-n",
        "--dry-run",
        "--just-print",
        "-B",
        "--always-make",
        "-e",
        "--environment-overrides",
        "-i",
        "--ignore-errors",
        "-q",
        "--question",
        "-r",
        "--no-builtin-rules",
        "-R",
        "-w",
        "--print-directory",
        "--no-print-directory",
        "-t",
        "--touch",
        "-p",
        "--print-data-base",
        "-d",
        "--debug",
        "-v",
        "--version",
        "-h",
        "--help"
      ],
      directories: ["-C", "--directory"],
      anywhere: true,
      levels: 1
    }
  ]
])

export interface Form {
  /** The words with the global options moved out: `[program, subcommand, …rest]`. */
  readonly words: ReadonlyArray<Word>
  /** The options that name where the program works, with their values. */
  readonly directories: ReadonlyArray<{ readonly option: string; readonly value: Word }>
  /** Every global option that was moved out, with its value if it has one. */
  readonly options: ReadonlyArray<{ readonly option: string; readonly value: Word | undefined }>
  /** The first word naming what runs that is not static (`git $sub`, `git "$@"`). */
  readonly dynamic?: Word
  /** Options before the subcommand the spec does not know. */
  readonly unknown: ReadonlyArray<string>
  /** The form differs from the words as written. */
  readonly moved: boolean
}

const literalWord = (text: string): Word => ({
  value: text,
  raw: text,
  isStatic: true,
  path: text,
  glob: false
})

const NONE: ReadonlyArray<never> = []
const unmoved = (words: ReadonlyArray<Word>): Form => ({
  words,
  directories: NONE,
  options: NONE,
  unknown: NONE,
  moved: false
})

// Nothing to move: no option where the spec reads options, every word naming what runs static.
const plain = (key: string, spec: Spec, words: ReadonlyArray<Word>): boolean => {
  let positional = 0
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.isStatic) return false
    const c = word.value.charCodeAt(0)
    if (c === 45 /* - */ || c === 43 /* + */) {
      if (positional === 0 || spec.anywhere) return false
      continue
    }
    if (key === "make" && word.value.includes("=")) return false
    positional++
    if (positional >= spec.levels && !spec.anywhere) return true
  }
  return true
}

/** The canonical form of `words` (argv[0] looked up as `key`), or `undefined` for other programs. */
export const form = (key: string, words: ReadonlyArray<Word>): Form | undefined => {
  const spec = SPECS.get(key)
  if (spec === undefined) return undefined
  if (plain(key, spec, words)) return unmoved(words)
  const kept: Array<Word> = [words[0]!]
  const directories: Array<{ option: string; value: Word }> = []
  const options: Array<{ option: string; value: Word | undefined }> = []
  const unknown: Array<string> = []
  let dynamic: Word | undefined
  let positional = 0
  let moved = false
  let ended = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    const before = positional === 0
    if (!ended && (before || spec.anywhere) && word.isStatic && text.startsWith("-") && text !== "-") {
      if (text === "--") {
        // After `--` nothing is an option (npm passes it on to the script).
        ended = true
        kept.push(word)
        continue
      }
      const eq = text.startsWith("--") ? text.indexOf("=") : -1
      const name = eq === -1 ? text : text.slice(0, eq)
      const attached = !text.startsWith("--") && text.length > 2 ? text.slice(0, 2) : undefined
      if (spec.valued.includes(name)) {
        const value = eq === -1 ? words[i + 1] : literalWord(text.slice(eq + 1))
        if (eq === -1) i++
        options.push({ option: name, value })
        if (value !== undefined && spec.directories.includes(name)) directories.push({ option: name, value })
        moved = true
        continue
      }
      if (attached !== undefined && spec.valued.includes(attached) && !spec.flags.includes(text)) {
        // `-Csrc`, `-j4`-style values glued to a short option.
        const value = literalWord(text.slice(2))
        options.push({ option: attached, value })
        if (spec.directories.includes(attached)) directories.push({ option: attached, value })
        moved = true
        continue
      }
      if (spec.flags.includes(name) || (key === "make" && /^-j\d*$/.test(text))) {
        options.push({ option: name, value: undefined })
        moved = true
        continue
      }
      if (before) {
        if (spec.strict) unknown.push(name)
        options.push({ option: name, value: undefined })
        moved = true
        continue
      }
      kept.push(word)
      continue
    }
    if (!ended && before && !word.isStatic && word.raw.startsWith("-")) {
      unknown.push(word.raw)
      continue
    }
    if (spec.toolchain && before && word.isStatic && text.startsWith("+") && kept.length === 1) {
      options.push({ option: text, value: undefined })
      moved = true
      continue
    }
    if (positional < spec.levels && dynamic === undefined && !word.isStatic && !ended) dynamic = word
    // `make VAR=value target`: an assignment is not what runs.
    if (!(key === "make" && word.isStatic && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text))) positional++
    kept.push(word)
  }
  return {
    words: kept,
    directories,
    options,
    ...(dynamic === undefined ? {} : { dynamic }),
    unknown,
    moved
  }
}
