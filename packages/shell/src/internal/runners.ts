// Programs that run other code through their subcommands and options: package runners
// (`npx`, `npm exec`, `pnpm dlx`, …), terminal multiplexers and job runners (`tmux`,
// `script`, `parallel`, `wsl`), `fd -x`, `sqlite3 .shell`, `vim -c '!…'`, and persistent
// configuration commands (`git config`, `npm config set`). A static payload is judged as a
// command of its own; a payload only known at run time, or a file that will be executed,
// is unmodelled.
import type { NoteKind } from "../ShellAnalysis.ts"
import type { Dialect } from "../ShellParser.ts"
import type { Word } from "./model.ts"
import { staticWord } from "./model.ts"

/** What a handler may do to the command it looks at. */
export interface Ops {
  readonly note: (kind: NoteKind, message: string) => void
  /** Judges `words` as a command this one runs. */
  readonly child: (words: ReadonlyArray<Word>, via: string) => void
  /** Judges `text` as a command line this one runs. */
  readonly text: (text: string, dialect: Dialect, via: string) => void
  /** Judges `words`, joined, as a command line run on another computer (its paths are not ours). */
  readonly remote: (words: ReadonlyArray<Word>, via: string) => void
  readonly touch: (word: Word, access: "read" | "write") => void
  /** The file arguments of `words`, as for any program. */
  readonly paths: (words: ReadonlyArray<Word>) => void
  readonly projectRoot: string
  readonly home: () => string
}

interface Options {
  readonly end: number
  readonly values: Map<string, Array<Word>>
  readonly flags: Set<string>
  readonly unknown: Array<string>
}

// Options up to the first operand (or `--`, which is consumed).
const options = (
  words: ReadonlyArray<Word>,
  start: number,
  valued: ReadonlyArray<string>,
  flags: ReadonlyArray<string>
): Options => {
  const values = new Map<string, Array<Word>>()
  const seen = new Set<string>()
  const unknown: Array<string> = []
  let i = start
  for (; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic) {
      if (word.raw.startsWith("-")) {
        unknown.push(word.raw)
        continue
      }
      break
    }
    if (text === "--") {
      i++
      break
    }
    if (!text.startsWith("-") || text === "-") break
    const eq = text.startsWith("--") ? text.indexOf("=") : -1
    const name = eq === -1 ? text : text.slice(0, eq)
    if (valued.includes(name)) {
      const value = eq === -1 ? words[++i] : staticWord(text.slice(eq + 1))
      if (value !== undefined) values.set(name, [...(values.get(name) ?? []), value])
      continue
    }
    if (flags.includes(name)) {
      seen.add(name)
      continue
    }
    if (!text.startsWith("--") && text.length > 2) {
      // A cluster of short options (`-qc cmd`, `-qccmd`).
      for (let k = 1; k < text.length; k++) {
        const option = `-${text[k]}`
        if (valued.includes(option)) {
          const attached = text.slice(k + 1)
          const value = attached !== "" ? staticWord(attached) : words[++i]
          if (value !== undefined) values.set(option, [...(values.get(option) ?? []), value])
          break
        }
        if (flags.includes(option)) seen.add(option)
        else unknown.push(option)
      }
      continue
    }
    unknown.push(name)
  }
  return { end: i, values, flags: seen, unknown }
}

const first = (o: Options, ...names: ReadonlyArray<string>): Word | undefined => {
  for (const name of names) {
    const value = o.values.get(name)?.[0]
    if (value !== undefined) return value
  }
  return undefined
}

const joined = (words: ReadonlyArray<Word>): string => words.map((w) => w.value).join(" ")

/** The programs {@link special} handles. */
export const SPECIAL: ReadonlySet<string> = new Set([
  "npx",
  "pnpx",
  "bunx",
  "uvx",
  "pipx",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "wsl",
  "wsl.exe",
  "script",
  "tmux",
  "parallel",
  "fd",
  "fdfind",
  "hash",
  "uv",
  "poetry",
  "pdm",
  "rye",
  "conda",
  "mamba",
  "micromamba",
  "fc",
  "r",
  "history",
  "compgen",
  "complete"
])

/** The programs {@link check} looks at. */
export const CHECKED: ReadonlySet<string> = new Set([
  "pip",
  "pip3",
  "uv",
  "ssh",
  "docker",
  "podman",
  "kubectl",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "git",
  "sqlite3",
  "vim",
  "vi",
  "nvim",
  "ex",
  "view",
  "gvim"
])

// A command line given as words, run by a shell: judged as that line.
export const shellLine = (words: ReadonlyArray<Word>, via: string, ops: Ops): void => {
  ops.note("executes", `${via} runs a command line`)
  if (words.length === 0) return
  if (words.some((w) => !w.isStatic))
    ops.note("unmodelled", `${via} runs a command line only known at run time`)
  else ops.text(joined(words), "bash", via)
}

/** Handles the programs that run other code; `true` when nothing else is to be done. */
export const special = (key: string, words: ReadonlyArray<Word>, ops: Ops): boolean => {
  const sub = words[1]?.isStatic ? words[1].value : undefined
  switch (key) {
    case "npx":
    case "pnpx":
    case "bunx":
    case "uvx":
      runPackage(words, 1, key, ops)
      return true
    case "uv":
    case "poetry":
    case "pdm":
    case "rye":
    case "conda":
    case "mamba":
    case "micromamba":
      if (sub !== "run") return false
      environmentRun(words, `${key} run`, ops)
      return true
    case "pipx":
      if (sub !== "run") return false
      runPackage(words, 2, "pipx run", ops)
      return true
    case "npm":
      if (sub === "exec" || sub === "x") {
        runPackage(words, 2, `npm ${sub}`, ops)
        return true
      }
      if (sub === "explore") {
        explore(words, ops)
        return true
      }
      return (
        (sub === "create" || sub === "init" || sub === "innit") && createPackage(words, `npm ${sub}`, ops)
      )
    case "pnpm":
    case "yarn":
      if (key === "yarn" && sub === "workspaces" && words[2]?.value === "foreach") {
        // `yarn workspaces foreach [options] COMMAND…` runs that yarn command in each workspace.
        let i = 3
        while (i < words.length && words[i]!.value.startsWith("-")) {
          i += /^(-j|--jobs|--include|--exclude|--from)$/.test(words[i]!.value) ? 2 : 1
        }
        const rest = words.slice(i)
        if (rest.length > 0) ops.child([words[0]!, ...rest], "yarn workspaces foreach")
        return true
      }
      if (key === "yarn" && sub === "workspace") {
        // `yarn workspace NAME COMMAND…` runs that yarn command in the workspace.
        const rest = words.slice(3)
        if (rest.length > 0) ops.child([words[0]!, ...rest], "yarn workspace")
        return true
      }
      if (sub === "exec" || sub === "dlx") {
        runPackage(words, 2, `${key} ${sub}`, ops)
        return true
      }
      return sub === "create" && createPackage(words, `${key} create`, ops)
    case "bun":
      if (sub === "x") {
        runPackage(words, 2, "bun x", ops)
        return true
      }
      // `bun exec 'CMD'` runs CMD in Bun's shell.
      if (sub === "exec") {
        shellLine(words.slice(2), "bun exec", ops)
        return true
      }
      return sub === "create" && createPackage(words, "bun create", ops)
    case "wsl":
    case "wsl.exe":
      wsl(words, ops)
      return true
    case "script":
      script(words, ops)
      return true
    case "tmux":
      tmux(words, ops)
      return true
    case "parallel":
      parallel(words, ops)
      return true
    case "fd":
    case "fdfind":
      return fd(words, ops)
    case "hash":
      // zsh's `hash name=/bin/rm` (and `hash -d name=dir`, a `~name`) does the same.
      if (words.some((w) => w.value === "-p" || /^-[a-z]*p/.test(w.value) || /^[^-][^=]*=/.test(w.value))) {
        ops.note(
          "unmodelled",
          "hash -p makes a name run another file: later names may not mean what they say"
        )
      }
      return true
    case "fc":
    // zsh's `r` is `fc -e -`.
    case "r":
      // It runs lines of the history, which `history -s` or `history -r FILE` put there, or
      // opens them in the editor `-e` names: commands that are not in the text.
      ops.note("executes", `${key} runs commands from the shell's history`)
      ops.note("unmodelled", `${key} runs commands from the shell's history, which are not in the text`)
      return true
    case "history":
      history(words, ops)
      return true
    case "compgen":
    case "complete":
      completion(key, words, ops)
      return true
    default:
      return false
  }
}

// `history -a/-n/-r/-w [FILE]` appends to, reads or writes the history file (the first
// operand, or $HISTFILE: ~/.bash_history); zsh's `history` is `fc -l`, which takes no file.
const history = (words: ReadonlyArray<Word>, ops: Ops): void => {
  let access: "read" | "write" | undefined
  let file: Word | undefined
  let operands = false
  for (const word of words.slice(1)) {
    if (!word.isStatic) {
      ops.note("unmodelled", `history is given \`${word.raw}\`, only known at run time`)
      return
    }
    if (!operands && word.value === "--") operands = true
    else if (!operands && /^-[a-z]+$/.test(word.value)) {
      if (/[anr]/.test(word.value)) access = access ?? "read"
      if (/[aw]/.test(word.value)) access = "write"
    } else file ??= word
  }
  if (access === undefined) return
  ops.touch(file ?? { ...staticWord("~/.bash_history"), path: `${ops.home()}/.bash_history` }, access)
}

// `compgen`/`complete -C COMMAND` runs a command line, `-F FUNCTION` a function; compgen
// expands its `-W` word list as the shell does, command substitutions included.
const completion = (key: string, words: ReadonlyArray<Word>, ops: Ops): void => {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.isStatic) {
      if (word.raw.startsWith("-"))
        ops.note("unmodelled", `${key} is given \`${word.raw}\`, only known at run time`)
      continue
    }
    if (word.value === "--") return
    if (!/^-[a-zA-Z]+$/.test(word.value)) continue
    // Options that take a value end a cluster (`-oC` is not `-o C`: its value is `C`).
    const match = /^-[a-zA-Z]*?([oAGWFCXPS])(.*)$/.exec(word.value)
    if (match === null) continue
    const option = match[1]!
    const value = match[2] !== "" ? staticWord(match[2]!) : words[++i]
    if (value === undefined) return
    const via = `${key} -${option}`
    if (option === "C") {
      ops.note("executes", `${via} runs a command line`)
      if (!value.isStatic) ops.note("unmodelled", `${via} runs a command line only known at run time`)
      else ops.text(value.value, "bash", via)
    } else if (option === "F") {
      ops.note("executes", `${via} runs a shell function`)
      ops.note(
        "unmodelled",
        `${via} runs the function \`${value.raw}\`, whose commands are not analysed here`
      )
    } else if (option === "W" && (!value.isStatic || /[$`]/.test(value.value)))
      ops.note(
        "unmodelled",
        `${via} expands \`${value.raw}\` as the shell does: what it runs is not analysed`
      )
  }
}

const RUNNER_VALUED = [
  "-p",
  "--package",
  "-c",
  "--call",
  "--shell",
  "--prefix",
  "--from",
  "--spec",
  "--python",
  "--with",
  "-w",
  "--workspace",
  "--filter"
]
const RUNNER_FLAGS = [
  "-y",
  "--yes",
  "--no",
  "--no-install",
  "-q",
  "--quiet",
  "--ignore-existing",
  "--bun",
  "--offline",
  "--prefer-offline",
  "--silent",
  "-s",
  "--shell-mode",
  "--recursive",
  "-r",
  "--parallel",
  "--verbose",
  "--isolated"
]

const runPackage = (words: ReadonlyArray<Word>, start: number, via: string, ops: Ops): void => {
  ops.note("executes", `${via} runs a package's program (fetched from the registry when it is not installed)`)
  const o = options(words, start, RUNNER_VALUED, RUNNER_FLAGS)
  if (o.unknown.length > 0)
    ops.note(
      "unmodelled",
      `${via}: unknown option ${o.unknown.join(", ")}: where the command starts is a guess`
    )
  const call = first(o, "-c", "--call")
  if (call !== undefined) {
    if (!call.isStatic) ops.note("unmodelled", `${via} -c runs a command line only known at run time`)
    else ops.text(call.value, "bash", `${via} -c`)
    return
  }
  const rest = words.slice(o.end)
  if (rest.length === 0) {
    ops.note("unmodelled", `${via} without a command runs what its input or configuration says`)
    return
  }
  if (!rest[0]!.isStatic) {
    ops.note("unmodelled", `${via} runs \`${rest[0]!.raw}\`, a program only known at run time`)
    return
  }
  // `http-server@14` runs the program `http-server`: the version is not part of its name.
  const versioned = /^(@?[^@]+)@[^@/]*$/.exec(rest[0]!.value)
  ops.child(versioned === null ? rest : [staticWord(versioned[1]!), ...rest.slice(1)], via)
}

// `pnpm create vite app` (`yarn create`, `bun create`, `npm create`, `npm init vite`) runs the
// registry's `create-vite`, as `pnpm dlx create-vite app` does; `@scope/x` is `@scope/create-x`.
// Without an initializer (`npm init -y`) it is not handled here.
const createPackage = (words: ReadonlyArray<Word>, via: string, ops: Ops): boolean => {
  const at = words.findIndex((word, i) => i >= 2 && !word.value.startsWith("-"))
  if (at === -1) return false
  ops.note("executes", `${via} runs a package's program (fetched from the registry when it is not installed)`)
  const initializer = words[at]!
  if (!initializer.isStatic) {
    ops.note("unmodelled", `${via} runs \`${initializer.raw}\`, a package only known at run time`)
    return true
  }
  const name = initializer.value
  const scoped = /^(@[^/@]+)(?:\/([^@]+))?(@.*)?$/.exec(name)
  const program = scoped
    ? `${scoped[1]}/create${scoped[2] === undefined ? "" : `-${scoped[2]}`}${scoped[3] ?? ""}`
    : `create-${name}`
  ops.child([staticWord(program), ...words.slice(at + 1)], via)
  return true
}

// `uv run`, `poetry run`, `conda run -n env`…: the command after the options runs in the
// project's environment, judged as a wrapped command (so "always" remembers it exactly, not
// `uv *`, which would pass `uv run python -c …`). Their options differ and some take a
// value: with any option, where the command starts is a guess.
const environmentRun = (words: ReadonlyArray<Word>, via: string, ops: Ops): void => {
  let i = 2
  let optioned = false
  for (; i < words.length; i++) {
    const word = words[i]!
    if (!word.isStatic) {
      ops.note("unmodelled", `${via}: \`${word.raw}\` is only known at run time`)
      return
    }
    if (word.value === "--") {
      i++
      break
    }
    if (!word.value.startsWith("-")) break
    optioned = true
  }
  if (optioned)
    ops.note("unmodelled", `${via}: options before the command: where the command starts is a guess`)
  const rest = words.slice(i)
  // Without a command, `uv run` and `pdm run` list or run what the project's files say.
  if (rest.length === 0) ops.note("unmodelled", `${via} without a command runs what the project's files say`)
  else ops.child(rest, via)
}

const explore = (words: ReadonlyArray<Word>, ops: Ops): void => {
  ops.note("executes", "npm explore runs a command line inside a package")
  const dash = words.findIndex((w) => w.value === "--")
  const rest = dash === -1 ? [] : words.slice(dash + 1)
  if (rest.length === 0) ops.note("unmodelled", "npm explore without a command starts an interactive shell")
  else if (rest.some((w) => !w.isStatic))
    ops.note("unmodelled", "npm explore runs a command line only known at run time")
  else ops.text(joined(rest), "bash", "npm explore")
}

const WSL_MANAGEMENT =
  /^--(list|shutdown|install|status|set-default|set-version|set-default-version|import|export|unregister|mount|unmount|terminate|update|version|help|manage)$|^-(l|t|s)$/
const wsl = (words: ReadonlyArray<Word>, ops: Ops): void => {
  ops.note("executes", "wsl runs a command in a Linux distribution")
  let i = 1
  while (i < words.length) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic) {
      ops.note("unmodelled", `wsl: argument \`${word.raw}\` is only known at run time`)
      return
    }
    if (WSL_MANAGEMENT.test(text)) return
    if (text === "-e" || text === "--exec") {
      const rest = words.slice(i + 1)
      if (rest.length === 0 || !rest[0]!.isStatic)
        ops.note("unmodelled", "wsl --exec runs a program only known at run time")
      else ops.child(rest, "wsl --exec")
      return
    }
    if (text === "--") {
      i++
      break
    }
    if (["-d", "--distribution", "-u", "--user", "--cd", "--shell-type"].includes(text)) {
      i += 2
      continue
    }
    if (text === "--system") {
      i++
      continue
    }
    if (text.startsWith("-")) {
      ops.note("unmodelled", `wsl: unknown option ${text}`)
      i++
      continue
    }
    break
  }
  const rest = words.slice(i)
  if (rest.length === 0) ops.note("unmodelled", "wsl without a command starts an interactive shell")
  else if (rest.some((w) => !w.isStatic))
    ops.note("unmodelled", "wsl runs a command line only known at run time")
  else ops.text(joined(rest), "bash", "wsl")
}

const script = (words: ReadonlyArray<Word>, ops: Ops): void => {
  ops.note("executes", "script runs a shell or a command line")
  const o = options(
    words,
    1,
    [
      "-c",
      "--command",
      "-E",
      "--echo",
      "-T",
      "--log-timing",
      "-I",
      "--log-in",
      "-O",
      "--log-out",
      "-B",
      "--log-io",
      "-m",
      "--logging-format",
      "-t"
    ],
    ["-a", "--append", "-e", "--return", "-f", "--flush", "-q", "--quiet"]
  )
  if (o.unknown.length > 0) ops.note("unmodelled", `script: unknown option ${o.unknown.join(", ")}`)
  const command = first(o, "-c", "--command")
  if (command === undefined) ops.note("unmodelled", "script without -c starts an interactive shell")
  else if (!command.isStatic) ops.note("unmodelled", "script -c runs a command line only known at run time")
  else ops.text(command.value, "bash", "script -c")
  for (const option of ["-T", "--log-timing", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io"])
    for (const file of o.values.get(option) ?? []) ops.touch(file, "write")
  for (const file of words.slice(o.end)) ops.touch(file, "write")
}

// tmux commands that run a shell command (the last words) and those that only inspect.
const TMUX_RUNS = new Set([
  "new-session",
  "new",
  "new-window",
  "neww",
  "split-window",
  "splitw",
  "respawn-pane",
  "respawnp",
  "respawn-window",
  "respawnw",
  "run-shell",
  "run",
  "display-popup",
  "popup",
  "pipe-pane",
  "pipep"
])
const TMUX_INSPECTS = new Set([
  "ls",
  "list-sessions",
  "list-windows",
  "lsw",
  "list-panes",
  "lsp",
  "has-session",
  "has",
  "kill-session",
  "kill-server",
  "kill-window",
  "killw",
  "kill-pane",
  "killp",
  "attach",
  "attach-session",
  "a",
  "detach",
  "detach-client",
  "capture-pane",
  "capturep",
  "-V"
])
const TMUX_VALUED = ["-c", "-e", "-F", "-l", "-n", "-s", "-t", "-x", "-y", "-w", "-T", "-L", "-S", "-f"]

const tmux = (words: ReadonlyArray<Word>, ops: Ops): void => {
  let i = 1
  while (i < words.length && words[i]!.isStatic && words[i]!.value.startsWith("-")) {
    const text = words[i]!.value
    if (text === "-c") {
      ops.note("executes", "tmux -c runs a shell command")
      const value = words[i + 1]
      if (value === undefined || !value.isStatic)
        ops.note("unmodelled", "tmux -c runs a command line only known at run time")
      else ops.text(value.value, "bash", "tmux -c")
      return
    }
    if (text === "-f") ops.note("unmodelled", "tmux -f reads a configuration file, which can run commands")
    i += ["-L", "-S", "-f", "-T"].includes(text) ? 2 : 1
  }
  const sub = words[i]
  if (sub === undefined) {
    ops.note("unmodelled", "tmux without a command starts a shell")
    return
  }
  if (!sub.isStatic) {
    ops.note("unmodelled", `tmux: the command \`${sub.raw}\` is only known at run time`)
    return
  }
  if (TMUX_INSPECTS.has(sub.value)) return
  if (!TMUX_RUNS.has(sub.value)) {
    ops.note("unmodelled", `tmux ${sub.value} is not modelled (it may type into, configure or run a shell)`)
    return
  }
  ops.note("executes", `tmux ${sub.value} runs a shell command`)
  // `-c DIR`: the command runs there, which is not followed.
  if (words.slice(i + 1).some((w) => w.value === "-c" || /^-[a-zA-Z]*c./.test(w.value)))
    ops.note(
      "unmodelled",
      `tmux ${sub.value} -c runs its command in another directory, which is not followed`
    )
  let j = i + 1
  while (
    j < words.length &&
    words[j]!.isStatic &&
    words[j]!.value.startsWith("-") &&
    words[j]!.value !== "--"
  ) {
    const text = words[j]!.value
    j += TMUX_VALUED.includes(text.slice(-2)) && text.length === 2 ? 2 : 1
  }
  if (words[j]?.value === "--") j++
  const rest = words.slice(j)
  if (rest.length === 0) {
    ops.note("unmodelled", `tmux ${sub.value} without a command starts the default shell`)
    return
  }
  if (rest.some((w) => !w.isStatic))
    ops.note("unmodelled", `tmux ${sub.value} runs a command line only known at run time`)
  else ops.text(joined(rest), "bash", `tmux ${sub.value}`)
}

const PARALLEL_VALUED = [
  "-j",
  "--jobs",
  "-n",
  "-N",
  "--max-args",
  "-a",
  "--arg-file",
  "--colsep",
  "-I",
  "--replace",
  "--halt",
  "--results",
  "--joblog",
  "-S",
  "--sshlogin",
  "--delay",
  "--timeout",
  "--retries",
  "--tmpdir",
  "-d",
  "--delimiter",
  "-E",
  "--eof",
  "--block",
  "-L",
  "--max-lines",
  "--memfree",
  "--load"
]
const PARALLEL_FLAGS = [
  "-k",
  "--keep-order",
  "-X",
  "-m",
  "-q",
  "--quote",
  "--dry-run",
  "--pipe",
  "--tag",
  "--bar",
  "--eta",
  "--progress",
  "-0",
  "--null",
  "-u",
  "--ungroup",
  "--line-buffer",
  "--lb",
  "-v",
  "--verbose",
  "--will-cite",
  "--no-notice",
  "-t",
  "--group",
  "-r",
  "--no-run-if-empty",
  "--xargs"
]
const PARALLEL_SOURCES = new Set([":::", "::::", ":::+", "::::+"])

const parallel = (words: ReadonlyArray<Word>, ops: Ops): void => {
  ops.note("executes", "parallel runs a command line for each input")
  const o = options(words, 1, PARALLEL_VALUED, PARALLEL_FLAGS)
  if (o.unknown.length > 0) ops.note("unmodelled", `parallel: unknown option ${o.unknown.join(", ")}`)
  if (o.values.has("-S") || o.values.has("--sshlogin"))
    ops.note("unmodelled", "parallel --sshlogin runs commands on other computers")
  for (const file of [...(o.values.get("-a") ?? []), ...(o.values.get("--arg-file") ?? [])])
    ops.touch(file, "read")
  let end = o.end
  while (end < words.length && !PARALLEL_SOURCES.has(words[end]!.value)) end++
  const template = words.slice(o.end, end)
  for (let i = end; i < words.length; i++) {
    if (words[i]!.value === "::::" || words[i]!.value === "::::+") {
      const file = words[i + 1]
      if (file !== undefined && !PARALLEL_SOURCES.has(file.value)) ops.touch(file, "read")
    }
  }
  if (template.length === 0) {
    ops.note("unmodelled", "parallel without a command runs the command lines of its input")
    return
  }
  if (template.some((w) => !w.isStatic)) {
    ops.note("unmodelled", "parallel runs a command line only known at run time")
    return
  }
  const text = joined(template)
  if (text.includes("{=")) {
    ops.note("executes", "parallel {= … =} runs a perl expression for each input")
    ops.note("unmodelled", "parallel {= … =} runs a perl expression, which is not analysed")
  }
  if (o.values.has("-I") || o.values.has("--replace"))
    ops.note("unmodelled", "parallel -I names its own replacement string")
  // Each input is put in (or, without a replacement string, after) the command line as one
  // quoted word, only known at run time like "$x": `parallel sh -c {}` runs what it reads.
  const replacement = /\{(=.*?=|[0-9]*[+./#%]*)\}/gs
  const placed = template.some((w) => /\{(=.*?=|[0-9]*[+./#%]*)\}/s.test(w.value))
  if (placed && template.some((w) => /[{][^}]*[}]/.test(w.value) && /['"\\]/.test(w.value)))
    ops.note(
      "unmodelled",
      "parallel puts its input inside quotes of the command line, where its own quoting breaks"
    )
  const input = '"$PARALLEL_INPUT"'
  ops.text(placed ? text.replace(replacement, input) : `${text} ${input}`, "bash", "parallel")
}

const FD_EXEC = new Set(["-x", "--exec", "-X", "--exec-batch"])
const fd = (words: ReadonlyArray<Word>, ops: Ops): boolean => {
  const at = words.findIndex((w) => FD_EXEC.has(w.value))
  if (at === -1) return false
  ops.paths(words.slice(0, at))
  let i = at
  while (i < words.length) {
    if (!FD_EXEC.has(words[i]!.value)) {
      i++
      continue
    }
    let end = i + 1
    while (end < words.length && words[end]!.value !== ";" && !FD_EXEC.has(words[end]!.value)) end++
    const given = words
      .slice(i + 1, end)
      .map((w) => (w.isStatic && /\{[/.]*\}/.test(w.value) ? { ...w, isStatic: false, path: undefined } : w))
    // Without a placeholder fd appends each path it finds (`fd -H -x cat` reads .env).
    const inner = given.some((w) => !w.isStatic && /\{[/.]*\}/.test(w.value))
      ? given
      : [...given, { ...staticWord("{}"), isStatic: false, path: undefined }]
    ops.note("executes", `fd ${words[i]!.value} runs \`${joined(inner)}\` for each file`)
    if (inner.length === 0 || !inner[0]!.isStatic)
      ops.note("unmodelled", `fd ${words[i]!.value} runs a program only known at run time`)
    else ops.child(inner, `fd ${words[i]!.value}`)
    i = end + 1
  }
  return true
}

/**
 * Runs-other-code options and persistent configuration of programs that are otherwise
 * judged as usual (`words` as written, `args` in canonical form).
 */
export const check = (key: string, words: ReadonlyArray<Word>, args: ReadonlyArray<Word>, ops: Ops): void => {
  packageSource(key, words, ops)
  switch (key) {
    case "npm":
    case "pnpm":
    case "yarn":
    case "bun":
      packageManager(key, words, args, ops)
      return
    case "git":
      gitConfig(args, ops)
      gitObjectPaths(args, ops)
      gitFileOptions(args, ops)
      gitRepository(args, ops)
      gitWrittenOperands(args, ops)
      return
    case "ssh":
      ssh(words, ops)
      return
    case "docker":
    case "podman":
      if (args[1]?.value === "exec") containerExec(args, ops, `${key} exec`)
      else if (
        args[1]?.value === "run" ||
        args[1]?.value === "create" ||
        (args[1]?.value === "container" && (args[2]?.value === "run" || args[2]?.value === "create"))
      )
        hostPrivileges(key, args, ops)
      return
    case "kubectl":
      if (args[1]?.value === "exec") {
        const dash = args.findIndex((w) => w.value === "--")
        if (dash !== -1 && dash + 1 < args.length) {
          ops.note("executes", "kubectl exec runs a command in a container")
          ops.remote(args.slice(dash + 1), "kubectl exec")
        }
      }
      return
    case "sqlite3":
      sqlite(words, ops)
      return
    case "vim":
    case "vi":
    case "nvim":
    case "ex":
    case "view":
    case "gvim":
      vim(key, words, ops)
      return
    default:
      return
  }
}

const SSH_VALUED = new Set([
  "-b",
  "-c",
  "-D",
  "-E",
  "-e",
  "-F",
  "-I",
  "-i",
  "-J",
  "-L",
  "-l",
  "-m",
  "-O",
  "-o",
  "-p",
  "-Q",
  "-R",
  "-S",
  "-W",
  "-w",
  "-B"
])

// `ssh [options] host command…`: the words after the host are one command line for the
// remote shell.
const ssh = (words: ReadonlyArray<Word>, ops: Ops): void => {
  let i = 1
  let none = false
  while (i < words.length && words[i]!.isStatic && words[i]!.value.startsWith("-")) {
    const text = words[i]!.value
    if (text === "--") {
      i++
      break
    }
    if (/^-[a-zA-Z0-9]*N/.test(text)) none = true
    const last = `-${text[text.length - 1]}`
    i += text.length === 2 && SSH_VALUED.has(text) ? 2 : text.length > 2 && SSH_VALUED.has(last) ? 2 : 1
  }
  const rest = words.slice(i + 1)
  if (none || rest.length === 0) return
  ops.note("executes", `ssh runs \`${rest.map((w) => w.raw).join(" ")}\` on another computer`)
  ops.remote(rest, "ssh")
}

const CONTAINER_VALUED = new Set([
  "-e",
  "--env",
  "--env-file",
  "-u",
  "--user",
  "-w",
  "--workdir",
  "--detach-keys"
])
const containerExec = (args: ReadonlyArray<Word>, ops: Ops, via: string): void => {
  let i = 2
  while (i < args.length && args[i]!.isStatic && args[i]!.value.startsWith("-")) {
    const text = args[i]!.value
    i += CONTAINER_VALUED.has(text) ? 2 : 1
  }
  const rest = args.slice(i + 1)
  if (rest.length === 0) return
  ops.note("executes", `${via} runs a command in a container`)
  ops.remote(rest, via)
}

// Options of `docker run`/`create` that give the container the host's privileges, so what
// it runs is root on this machine (`--privileged`, `--pid=host`, `--cap-add`, a device, a
// security profile turned off, another container's volumes), and bind mounts given by
// `--mount`, whose host path this analysis does not read. Every word is looked at (an
// option's value or the container's own arguments too): a false alarm only asks.
const HOST_NAMESPACE = /^--(pid|net|network|ipc|uts|userns|cgroupns)(=host)?$/
const hostPrivileges = (key: string, args: ReadonlyArray<Word>, ops: Ops): void => {
  for (let i = 2; i < args.length; i++) {
    const word = args[i]!
    if (!word.isStatic) continue
    const text = word.value
    const namespace = HOST_NAMESPACE.exec(text)
    const privileged =
      /^--privileged(=true)?$/.test(text) ||
      /^--(cap-add|device|security-opt|volumes-from|device-cgroup-rule)(=|$)/.test(text) ||
      (namespace !== null && (namespace[2] !== undefined || args[i + 1]?.value === "host"))
    if (privileged) {
      ops.note("executes", `${key} ${text}: the container gets the host's privileges (root on this machine)`)
      return
    }
    if (
      /^--mount(=|$)/.test(text) &&
      /type=bind|type=volume|\bsource=|\bsrc=/.test(text === "--mount" ? (args[i + 1]?.value ?? "") : text)
    ) {
      ops.note("unmodelled", `${key} --mount binds a host path this analysis does not read`)
      return
    }
  }
}

// Options whose value is a program, a file of code, or configuration that names one.
const EXECUTING_OPTIONS = new Set([
  "--script-shell",
  "--node-options",
  "--userconfig",
  "--globalconfig",
  "--shell",
  "--preload",
  "-r",
  "--require",
  "--import",
  "--config",
  "-c",
  "--env-file"
])

// npm reads its options with nopt: an unambiguous prefix of a configuration name is that
// name, behind one, two or more dashes (`--scr=./x`, `-script-shell=./x`, `---node-opt=…`),
// so a prefix of a name that runs code, loads configuration or moves npm elsewhere counts as
// that option. A single letter is a shorthand (`-s`, `-w`), not a prefix.
const NPM_NAMES_THAT_RUN = [
  "script-shell",
  "node-options",
  "userconfig",
  "globalconfig",
  "shell",
  "call",
  "prefix",
  // Programs npm starts for `npm edit`, `npm help`, `npm repo`, git dependencies.
  "editor",
  "git",
  "browser",
  "viewer",
  "init-module",
  "onload-script"
]
const npmAbbreviates = (text: string): boolean => {
  if (!text.startsWith("-")) return false
  const name = text.replace(/^-+/, "").split("=")[0]!.toLowerCase()
  return name.length >= 2 && NPM_NAMES_THAT_RUN.some((full) => full.startsWith(name))
}

// Options that make a package manager fetch packages from another index or registry: it
// installs, and runs the install code of, what that source serves. Not the same approval as
// installing from the usual one (`pip install *` must not pass `pip install -i http://x …`).
const PIP_SOURCE =
  /^(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host|--default-index|--index)(=|$)/
const REGISTRY = /^--(@[^:=]+:)?registry(=|$)/
const packageSource = (key: string, words: ReadonlyArray<Word>, ops: Ops): void => {
  const pip = key === "pip" || key === "pip3" || key === "uv"
  const registry = key === "npm" || key === "pnpm" || key === "yarn" || key === "bun"
  if (!pip && !registry) return
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.value
    if (text === "--") return
    const glued = pip && /^-[if]./.test(text) && !text.startsWith("--")
    if ((pip && (PIP_SOURCE.test(text) || glued)) || (registry && REGISTRY.test(text))) {
      ops.note(
        "executes",
        `${key} ${text.split("=")[0]} installs from another package source (and runs its install code)`
      )
      return
    }
  }
}

const packageManager = (
  key: string,
  words: ReadonlyArray<Word>,
  args: ReadonlyArray<Word>,
  ops: Ops
): void => {
  const sub = args[1]?.value
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.value
    if (text === "--") break
    const name = text.startsWith("--") && text.includes("=") ? text.slice(0, text.indexOf("=")) : text
    // `-c`/`-r` are bun's config and preload; npm and pnpm have no such short options before a script.
    if ((name === "-c" || name === "-r") && key !== "bun") continue
    if (key === "npm" && (name === "--cache" || name === "--logs-dir")) {
      // npm writes its debug log there on every run.
      // nopt reads a path value's leading `~` as the home directory.
      const glued = text.includes("=") ? text.slice(text.indexOf("=") + 1) : undefined
      const value =
        glued === undefined
          ? words[i + 1]
          : { ...staticWord(glued), path: glued.startsWith("~") ? ops.home() + glued.slice(1) : glued }
      if (value !== undefined) ops.touch(value, "write")
      continue
    }
    if (
      !EXECUTING_OPTIONS.has(name) &&
      !/^--config\.(script-shell|node-options|shell-emulator)/.test(name) &&
      !(key === "npm" && npmAbbreviates(text))
    )
      continue
    ops.note("executes", `${key} ${name} makes it run another program or load code`)
    ops.note(
      "unmodelled",
      `${key} ${name} names a program, code or configuration that runs: it is not analysed`
    )
  }
  // `npm config set k v`, `npm set k v`, `pnpm config set`, `yarn config set`: they change
  // what later runs (script-shell, node-options, registries of fetched code).
  const configSub =
    sub === "config" || sub === "c" ? args[2]?.value : sub === "set" || sub === "delete" ? sub : undefined
  if (configSub === undefined || !["set", "delete", "rm", "edit", "unset"].includes(configSub)) return
  ops.note("executes", `${key} config ${configSub} changes the configuration later commands run with`)
  const location = words.find((w) => w.value.startsWith("--location"))?.value
  const project =
    location?.endsWith("project") === true ||
    words.some((w, i) => (w.value === "-L" || w.value === "--location") && words[i + 1]?.value === "project")
  if (
    words.some((w) => w.value === "-g" || w.value === "--global" || (location?.endsWith("global") ?? false))
  )
    ops.note(
      "unmodelled",
      `${key} config ${configSub} --global writes the global configuration, which is not located here`
    )
  const home = ops.home()
  const files =
    key === "yarn"
      ? [".yarnrc.yml", ".yarnrc", `${home}/.yarnrc.yml`, `${home}/.yarnrc`]
      : project
        ? [".npmrc"]
        : [`${home}/.npmrc`]
  for (const file of files) ops.touch({ ...staticWord(file), path: file }, "write")
}

// Subcommands that print the content of `REV:path` objects and `-L range:path` histories.
const GIT_OBJECT_READERS: ReadonlySet<string> = new Set([
  "show",
  "cat-file",
  "diff",
  "log",
  "whatchanged",
  "grep",
  "archive",
  "blame",
  "difftool"
])

/**
 * `git show HEAD:.env`, `git show :.env` (the index), `git log -L1,2:.env`: the file of that
 * name in the repository is read (at the top of the repository, or next to the working
 * directory for `REV:./path`), so read rules hold for it as for `cat .env`.
 */
const gitObjectPaths = (args: ReadonlyArray<Word>, ops: Ops): void => {
  // What `git add` stages, the commands after it print (`git grep --cached`, `git diff --cached`).
  if (args[1]?.value === "add" || args[1]?.value === "stage") gitPathspecGlobs(args, ops)
  if (!GIT_OBJECT_READERS.has(args[1]?.value ?? "")) return
  gitPathspecGlobs(args, ops)
  const read = (path: string): void => readRepositoryPath(path, ops)
  for (let i = 2; i < args.length; i++) {
    const word = args[i]!
    if (!word.isStatic) continue
    const text = word.value
    if (text === "--") break
    if (text === "-L") {
      const range = args[++i]?.value ?? ""
      read(range.slice(range.lastIndexOf(":") + 1))
      continue
    }
    if (text.startsWith("-L")) {
      read(text.slice(text.lastIndexOf(":") + 1))
      continue
    }
    if (text.startsWith("-")) continue
    // `:/path`, a pathspec from the top of the repository when that file exists (else
    // `:/message`, a commit found by its message, reads nothing).
    if (text.startsWith(":/")) read(text.slice(2))
    // `REV:path`, `:path`, `:N:path`.
    const object = /^(?::[0-3]:|[^:]*:)(?!\/)(.+)$/s.exec(text)
    if (object && !text.includes("://")) read(object[1]!)
  }
}

// `path` of `REV:path`: at the top of the repository, or next to the working directory (`./`).
const readRepositoryPath = (path: string, ops: Ops): void => {
  if (path === "" || path.startsWith("/")) return
  const file = /^\.\.?\//.test(path) ? path : `${ops.projectRoot}/${path}`
  ops.touch({ ...staticWord(file), path: file }, "read")
}

// `git init`/`git clone` options that take a value as the next word.
const GIT_INIT_VALUED: ReadonlySet<string> = new Set([
  "--template",
  "--separate-git-dir",
  "--object-format",
  "--ref-format",
  "-b",
  "--initial-branch",
  "-o",
  "--origin",
  "--branch",
  "-u",
  "--upload-pack",
  "--reference",
  "--reference-if-able",
  "--depth",
  "--shallow-since",
  "--shallow-exclude",
  "-j",
  "--jobs",
  "-c",
  "--config",
  "--filter",
  "--bundle-uri",
  "--server-option"
])

/**
 * `git init [DIR]` makes or re-initialises DIR/.git (DIR itself with `--bare`) and copies its
 * template into it, hooks included (`--template=t`, init.templateDir): a write of that `.git`,
 * which the edit rules judge as configuring execution; `--separate-git-dir` puts it elsewhere.
 * `git clone` makes a fresh one from the default template, unless told another, in the
 * directory it writes whole.
 */
const gitRepository = (args: ReadonlyArray<Word>, ops: Ops): void => {
  const sub = args[1]?.value
  if (sub !== "init" && sub !== "clone") return
  const values = new Map<string, Word>()
  let bare = false
  const operands = gitOperands(args, sub, ops, (text, at) => {
    if (text === "--bare" || text === "--mirror") bare = true
    else if (GIT_INIT_VALUED.has(text)) {
      const value = args[at + 1]
      if (value !== undefined) values.set(text, value)
      return 1
    } else if (/^--[^=]+=/.test(text)) {
      const eq = text.indexOf("=")
      const value = text.slice(eq + 1)
      values.set(text.slice(0, eq), { ...args[at]!, value, raw: value, path: value })
    }
    return 0
  })
  const separate = values.get("--separate-git-dir")
  if (separate !== undefined) ops.touch(separate, "write")
  if (sub === "clone") {
    // It makes the directory and fills it (`git clone . .git/x` writes under .git).
    const target = cloneDirectory(operands)
    if (target?.path !== undefined) ops.touch(target, "write")
    else ops.note("unmodelled", "git clone: the directory it fills is only known at run time")
    if (separate === undefined && !values.has("--template")) return
  }
  const directory = sub === "init" ? (operands[0] ?? staticWord(".")) : cloneDirectory(operands)
  if (directory === undefined || directory.path === undefined) {
    ops.note("unmodelled", `git ${sub}: the repository it makes is only known at run time`)
    return
  }
  const path =
    bare && separate === undefined ? directory.path : `${directory.path.replace(/\/+$/, "") || "/"}/.git`
  ops.touch({ ...staticWord(path), glob: directory.glob }, "write")
}

// The operands of `git SUB …` (from args[2] on, all of them after `--`); each option is given to
// `option` with its index, which returns how many words after it are its value. An option only
// known at run time is noted.
const gitOperands = (
  args: ReadonlyArray<Word>,
  sub: string,
  ops: Ops,
  option: (text: string, at: number) => number
): Array<Word> => {
  const operands: Array<Word> = []
  for (let i = 2; i < args.length; i++) {
    const word = args[i]!
    const text = word.value
    if (!word.isStatic && word.raw.startsWith("-")) {
      ops.note("unmodelled", `git ${sub} \`${word.raw}\`: an option only known at run time`)
      continue
    }
    if (text === "--") {
      operands.push(...args.slice(i + 1))
      break
    }
    if (!text.startsWith("-") || text === "-") operands.push(word)
    else i += option(text, i)
  }
  return operands
}

// Options of merge-file and interpret-trailers whose value is the next word.
const GIT_OPERAND_VALUED = /^(-L|--trailer|--where|--if-exists|--if-missing|--diff-algorithm|--marker-size)$/

/**
 * `git merge-file CURRENT BASE OTHER` writes the merge into CURRENT (unless it prints it);
 * `git interpret-trailers --in-place FILE…` rewrites each FILE.
 */
const gitWrittenOperands = (args: ReadonlyArray<Word>, ops: Ops): void => {
  const sub = args[1]?.value
  if (sub !== "merge-file" && sub !== "interpret-trailers") return
  let inPlace = false
  let prints = false
  const operands = gitOperands(args, sub, ops, (text) => {
    if (GIT_OPERAND_VALUED.test(text)) return 1
    if (text.length >= 4 && "--in-place".startsWith(text)) inPlace = true
    else if (
      text === "-p" ||
      (text.length >= 4 && "--stdout".startsWith(text)) ||
      text.startsWith("--object-id")
    )
      prints = true
    return 0
  })
  const written = sub === "merge-file" ? (prints ? [] : operands.slice(0, 1)) : inPlace ? operands : []
  for (const word of written) ops.touch(word, "write")
}

// `git clone URL [DIR]`: DIR, else the URL's last part without `.git` (and `/.git`).
const cloneDirectory = (operands: ReadonlyArray<Word>): Word | undefined => {
  if (operands[1] !== undefined) return operands[1]
  const url = operands[0]
  if (url === undefined || !url.isStatic) return undefined
  const name = /([^/:\\]+?)(?:\/?\.git)?\/*$/.exec(url.value.replace(/\/\.git\/*$/, ""))?.[1]
  return name === undefined ? undefined : staticWord(name)
}

type FileOptions = Readonly<Record<string, "read" | "write" | "blob">>

// git's options whose value is a file it reads or writes, by subcommand (short letters as
// `-X` keys), as its parse-options reads them: `--opt=FILE`, `--opt FILE`, any prefix of the
// long name (`--cont=FILE`), `-XFILE`, `-X FILE`, and after flags clustered before it.
const GIT_PATHSPEC_FILE: FileOptions = { "pathspec-from-file": "read" }
const GIT_DIFF_FILES: FileOptions = { orderfile: "read", "-O": "read", output: "write" }
const GIT_FILE_OPTIONS: ReadonlyMap<string, FileOptions> = new Map<string, FileOptions>([
  ["blame", { contents: "read", "ignore-revs-file": "read", "-S": "read" }],
  ["annotate", { contents: "read", "ignore-revs-file": "read", "-S": "read" }],
  ["config", { file: "read", "-f": "read", blob: "blob" }],
  ["diff", GIT_DIFF_FILES],
  ["show", GIT_DIFF_FILES],
  ["log", GIT_DIFF_FILES],
  ["whatchanged", GIT_DIFF_FILES],
  [
    "format-patch",
    { ...GIT_DIFF_FILES, "signature-file": "read", "output-directory": "write", "-o": "write" }
  ],
  ["grep", { file: "read", "-f": "read" }],
  ["ls-files", { "exclude-from": "read", "-X": "read", "exclude-per-directory": "read" }],
  ["commit", { ...GIT_PATHSPEC_FILE, file: "read", "-F": "read", template: "read", "-t": "read" }],
  ["tag", { file: "read", "-F": "read" }],
  ["merge", { file: "read", "-F": "read" }],
  ["notes", { file: "read", "-F": "read" }],
  ["archive", { "add-file": "read", output: "write", "-o": "write" }],
  ["add", GIT_PATHSPEC_FILE],
  ["reset", GIT_PATHSPEC_FILE],
  ["checkout", GIT_PATHSPEC_FILE],
  ["restore", GIT_PATHSPEC_FILE],
  ["rm", GIT_PATHSPEC_FILE],
  ["stash", GIT_PATHSPEC_FILE],
  ["fast-import", { "export-marks": "write", "import-marks": "read", "import-marks-if-exists": "read" }]
])

/**
 * `git blame --contents=.env`, `git config -f.env -l`: the value of a file option is that
 * file, read (and printed) as `cat` would. A prefix of several names is read as each.
 */
const gitFileOptions = (args: ReadonlyArray<Word>, ops: Ops): void => {
  const options = GIT_FILE_OPTIONS.get(args[1]?.value ?? "")
  if (options === undefined) return
  const use = (access: FileOptions[string], value: Word | undefined): void => {
    if (value === undefined) return
    if (!value.isStatic) {
      ops.note("unmodelled", `git ${args[1]!.value}: a file option's value is only known at run time`)
      return
    }
    if (access === "blob") {
      // `--blob REV:PATH` reads PATH of REV; a blob named by its hash, the read rules cannot see.
      const object = /^[^:]*:(.+)$/s.exec(value.value)
      if (object) readRepositoryPath(object[1]!, ops)
      else ops.note("unmodelled", `git config --blob ${value.value}: which file it reads is not visible here`)
    } else ops.touch(value, access)
  }
  const glued = (word: Word, value: string): Word => ({
    ...word,
    value,
    raw: value,
    path: value.startsWith("~") ? ops.home() + value.slice(1) : value
  })
  for (let i = 2; i < args.length; i++) {
    const word = args[i]!
    const text = word.value
    if (text === "--") return
    const long = /^--([^=]+)(=?)(.*)$/s.exec(text)
    if (long) {
      for (const [name, access] of Object.entries(options)) {
        if (name.startsWith("-") || !name.startsWith(long[1]!)) continue
        use(access, long[2] === "=" ? glued(word, long[3]!) : args[i + 1])
      }
      continue
    }
    if (!/^-[^-]/.test(text)) continue
    // A cluster ends at the first option that takes a value (`-mFix`, `-L1,2`).
    for (let j = 1; j < text.length && !/[mecCLnG]/.test(text[j - 1]!); j++) {
      const access = options[`-${text[j]}`]
      if (access === undefined) continue
      use(access, j + 1 < text.length ? glued(word, text.slice(j + 1)) : args[i + 1])
      break
    }
  }
}

// Options of the reading subcommands whose value is the next word (a pattern, a format, an
// author), not a pathspec.
const GIT_VALUED_OPTIONS =
  /^(-e|-f|-n|-m|-A|-B|-C|-S|-G|-O|--grep|--author|--committer|--format|--pretty|--since|--until|--after|--before|--max-count|--skip|--regexp|--file)$/

/**
 * A pathspec with glob characters or magic (`'*.env'`, `:(glob)**`, `:!src`, `:/.env` at the
 * top of the repository) matches files at any depth, or from elsewhere than the working
 * directory, in the revision shown: which ones, the read rules cannot see from here. After
 * `--` every word starting with `:` is magic; before it, `:path` and `:N:path` name an
 * object of the index and `:/path` a file at the top (read by gitObjectPaths).
 */
const gitPathspecGlobs = (args: ReadonlyArray<Word>, ops: Ops): void => {
  const grep = args[1]?.value === "grep"
  let pattern = grep && !args.some((w) => /^(-e|-f|--regexp|--file)$/.test(w.value))
  let paths = false
  for (let i = 2; i < args.length; i++) {
    const text = args[i]!.value
    if (!paths && text === "--") paths = true
    else if (!paths && GIT_VALUED_OPTIONS.test(text)) i++
    else if (!paths && text.startsWith("-")) continue
    else if (pattern) pattern = false
    else if (/[*?[]/.test(text) || /^:([(!^:]|\/[(!^])/.test(text) || (paths && text.startsWith(":"))) {
      ops.note(
        "unmodelled",
        `git ${args[1]!.value} ${text}: a pathspec pattern reads files the read rules cannot see here`
      )
      return
    }
  }
}

// The reading actions only: `-z`, `--show-origin`, `--name-only` are display options, and
// `git config -z x.y 1` still writes.
const GIT_CONFIG_READS: ReadonlyArray<string> = [
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--get-color",
  "--get-colorbool",
  "--list"
]
const GIT_CONFIG_WRITES: ReadonlyArray<string> = [
  "--unset",
  "--unset-all",
  "--add",
  "--replace-all",
  "--rename-section",
  "--remove-section",
  "--edit"
]

// What a `git config` option asks for. git's parse-options takes a prefix of a long option
// (`--rep` is --replace-all, `--unse` --unset): one that could be a writing option writes.
const configAction = (text: string): "read" | "write" | undefined => {
  if (text === "-e") return "write"
  if (text === "-l") return "read"
  if (!text.startsWith("--") || text === "--" || text.includes("=")) return undefined
  if (GIT_CONFIG_WRITES.some((option) => option.startsWith(text))) return "write"
  if (GIT_CONFIG_READS.some((option) => option.startsWith(text))) return "read"
  return undefined
}

const gitConfig = (args: ReadonlyArray<Word>, ops: Ops): void => {
  if (args[1]?.value !== "config") return
  const rest = args.slice(2)
  const action = rest[0]?.value
  let writes: boolean
  if (action === "get" || action === "list") writes = false
  else if (
    action === "set" ||
    action === "unset" ||
    action === "rename-section" ||
    action === "remove-section" ||
    action === "edit"
  )
    writes = true
  else if (rest.some((w) => configAction(w.value) === "write")) writes = true
  else if (rest.some((w) => configAction(w.value) === "read")) writes = false
  else {
    const valued = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment"])
    let positional = 0
    for (let i = 0; i < rest.length; i++) {
      const text = rest[i]!.value
      if (valued.has(text)) i++
      else if (!text.startsWith("-")) positional++
    }
    writes = positional >= 2
  }
  if (!writes) return
  ops.note(
    "executes",
    "git config changes the configuration git commands run with (pagers, hooks, aliases, …)"
  )
  const file = rest.findIndex((w) => w.value === "-f" || w.value === "--file")
  const inline = rest.find((w) => w.value.startsWith("--file="))
  const home = ops.home()
  if (file !== -1 && rest[file + 1] !== undefined) ops.touch(rest[file + 1]!, "write")
  else if (inline !== undefined) ops.touch(staticWord(inline.value.slice("--file=".length)), "write")
  else if (rest.some((w) => w.value === "--global")) ops.touch(staticWord(`${home}/.gitconfig`), "write")
  else if (rest.some((w) => w.value === "--system")) ops.touch(staticWord("/etc/gitconfig"), "write")
  else {
    ops.touch(staticWord(".git/config"), "write")
    ops.touch(staticWord(`${ops.projectRoot}/.git/config`), "write")
  }
}

const SQLITE_VALUED = [
  "-cmd",
  "-init",
  "-separator",
  "-newline",
  "-nullvalue",
  "-vfs",
  "-maxsize",
  "-mmap",
  "-pagecache",
  "-lookaside",
  "-heap"
]

const sqlite = (words: ReadonlyArray<Word>, ops: Ops): void => {
  const scripts: Array<Word> = []
  let database: Word | undefined
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value.replace(/^--/, "-")
    if (text === "-cmd") {
      if (words[i + 1]) scripts.push(words[i + 1]!)
      i++
      continue
    }
    if (text === "-init") {
      ops.note(
        "unmodelled",
        "sqlite3 -init runs the commands of a file (dot-commands such as .shell run programs)"
      )
      i++
      continue
    }
    if (SQLITE_VALUED.includes(text)) {
      i++
      continue
    }
    if (word.isStatic && text.startsWith("-")) continue
    if (database === undefined) database = word
    else scripts.push(word)
  }
  if (database !== undefined) ops.touch(database, "write")
  if (scripts.length === 0) {
    ops.note("unmodelled", "sqlite3 reads its commands from its input, where .shell and .system run programs")
    return
  }
  for (const script of scripts) {
    if (!script.isStatic) {
      ops.note("unmodelled", "sqlite3 runs SQL or dot-commands only known at run time")
      continue
    }
    for (const line of script.value.split(/\n|;/)) {
      const match = /^\s*\.(shell|system)\s+(.*)$/s.exec(line)
      if (match) {
        ops.note("executes", `sqlite3 .${match[1]} runs a program`)
        ops.text(match[2]!, "bash", `sqlite3 .${match[1]}`)
      } else if (dotCommandTouches(line) || SQL_TOUCHES_FILES.test(line)) {
        ops.note(
          "unmodelled",
          `sqlite3 \`${line.trim().slice(0, 40)}\` can read or write files, run programs or load code`
        )
      }
    }
  }
}

// Whether a line is a dot-command other than those that only print or set how output looks
// (`.backup`, `.save`, `.log`, `.output` write files; `.read`, `.import`, `.restore` read them).
const dotCommandTouches = (line: string): boolean => {
  const name = /^\s*\.(\w+)/.exec(line)?.[1]
  return name !== undefined && !SQLITE_PRINTS.has(name.toLowerCase())
}
const SQLITE_PRINTS: ReadonlySet<string> = new Set([
  "tables",
  "table",
  "schema",
  "fullschema",
  "indexes",
  "indices",
  "databases",
  "dump",
  "headers",
  "header",
  "mode",
  "width",
  "separator",
  "nullvalue",
  "show",
  "help",
  "quit",
  "exit",
  "print",
  "timer",
  "changes",
  "echo",
  "eqp",
  "explain",
  "stats",
  "dbinfo",
  "lint",
  "bail",
  "limit",
  "timeout"
])
// SQL that reaches files: the CLI's readfile/writefile/edit/fsdir/zipfile, extensions, other databases
// (`ATTACH 'x' AS y` opens or creates any file, `VACUUM INTO 'x'` writes one).
const SQL_TOUCHES_FILES =
  /load_extension|\b(readfile|writefile|edit|fts3_tokenizer|fsdir|zipfile|sqlar_uncompress)\s*\(|\battach\b|\bvacuum\b[\s\S]*\binto\b/i

// Ex commands that only move, write or quit: anything else may reach a shell.
const PLAIN_EX =
  /^:?\s*(w|q|wq|x|q!|wq!|qa|qa!|wqa|xa|\d+|\$|set?\s+[\w=.,+-]+|e!?|noh|syntax\s+\w+|filetype\s+\w+)\s*$/

const vim = (key: string, words: ReadonlyArray<Word>, ops: Ops): void => {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    let command: Word | undefined
    if (text === "-c" || text === "--cmd") command = words[++i]
    else if (text.startsWith("+") && text.length > 1) command = { ...word, value: text.slice(1) }
    else if (text === "-S") {
      ops.note("unmodelled", `${key} -S runs a script file`)
      i++
      continue
    } else continue
    if (command === undefined) continue
    if (!command.isStatic) {
      ops.note("unmodelled", `${key} runs an editor command only known at run time`)
      continue
    }
    const shell = /^:?\s*!(.*)$/s.exec(command.value)
    if (shell) {
      ops.note("executes", `${key} runs the shell command \`${shell[1]}\``)
      ops.text(shell[1]!, "bash", `${key} :!`)
    } else if (!PLAIN_EX.test(command.value)) {
      ops.note(
        "unmodelled",
        `${key} runs the editor command \`${command.value.slice(0, 40)}\`, which may run programs`
      )
    }
  }
}
