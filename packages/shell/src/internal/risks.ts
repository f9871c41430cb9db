// Risk flags of one command, read from its argv after quotes and escapes are resolved:
// flags and embedded languages that run programs, write files or destroy data. Command
// lines embedded in options (git aliases, ssh ProxyCommand, awk system(), …) are handed
// back to be analysed as commands too.
import type { NoteKind } from "../ShellAnalysis.ts"
import type { Dialect } from "../ShellParser.ts"
import * as Getopt from "./getopt.ts"
import { URL_LIKE, type Word } from "./model.ts"
import { AWKS, INTERPRETERS, isPip, isPython } from "./programs.ts"

export interface Sink {
  readonly note: (kind: NoteKind, message: string) => void
  /** A command line found inside an option, to analyse as well. */
  readonly text: (text: string, dialect: Dialect, via: string) => void
  /** A file named inside an argument (sed's `w file`), read or written. */
  readonly path: (text: string, access: "read" | "write") => void
  /** What a path names where the command runs: a folder (in any), else a file, else nothing. */
  readonly kind: (text: string) => "file" | "directory" | undefined
  readonly dialect: Dialect
}

const values = (words: ReadonlyArray<Word>): Array<string> => {
  const out: Array<string> = []
  for (let i = 1; i < words.length; i++) out.push(words[i]!.value)
  return out
}

// Runs a program the gate cannot see (configured elsewhere, or data at run time).
export const opaque = (sink: Sink, message: string): void => {
  sink.note("executes", message)
  sink.note("unmodelled", `${message}: what it runs is not visible here`)
}

// Files written that the text does not name (a patch's own file names): not judged.
const unseenWrites = (sink: Sink, message: string): void => {
  sink.note("writes", message)
  sink.note("unmodelled", `${message}: which files is not visible here`)
}

// The value of `--flag=value`, or of `--flag value` / `-f value`.
const optionValue = (args: ReadonlyArray<string>, index: number): string | undefined => {
  const a = args[index]
  if (a === undefined) return undefined
  const eq = a.indexOf("=")
  if (a.startsWith("--") && eq !== -1) return a.slice(eq + 1)
  return args[index + 1]
}

// Options of tar that run the command line they are given.
const TAR_RUNS: ReadonlySet<string> = new Set([
  "-I",
  "--use-compress-program",
  "--to-command",
  "--rsh-command",
  "--rmt-command",
  "-F",
  "--info-script",
  "--new-volume-script"
])

// mount's options that mount without an operand (`mount -a` mounts what fstab lists).
const MOUNTS =
  /^(-a|--all|-[a-zA-Z]*[BRMLU]|--bind|--rbind|--move|--make-.*|--source.*|--target.*|--label.*|--uuid.*)$/
// Its options that take the next word and mount nothing by themselves (`mount -l -t ext4`).
const MOUNT_VALUED = /^(-[lnrvw]*[tOoTN]|--types|--test-opts|--options|--fstab|--namespace)$/

// The subcommands of systemctl and launchctl that only look; any other may start a service.
const SYSTEMCTL_LOOKS: ReadonlySet<string> = new Set([
  "status",
  "show",
  "cat",
  "help",
  "list-units",
  "list-unit-files",
  "list-sockets",
  "list-timers",
  "list-jobs",
  "list-dependencies",
  "list-machines",
  "list-automounts",
  "list-paths",
  "is-active",
  "is-enabled",
  "is-failed",
  "is-system-running",
  "get-default",
  "show-environment"
])
const LAUNCHCTL_LOOKS: ReadonlySet<string> = new Set([
  "list",
  "print",
  "print-cache",
  "print-disabled",
  "blame",
  "help",
  "version",
  "hostinfo",
  "getenv",
  "managerpid",
  "manageruid",
  "managername",
  "error"
])
// direnv's subcommands that neither trust nor run an .envrc.
const DIRENV_LOOKS: ReadonlySet<string> = new Set([
  "status",
  "help",
  "version",
  "hook",
  "stdlib",
  "deny",
  "block",
  "revoke",
  "prune"
])

// `key`'s options read as its parser reads them; a spelling it cannot read may hide any.
const readOptions = (
  key: string,
  name: string,
  words: ReadonlyArray<Word>,
  sink: Sink
): ReadonlyArray<Getopt.Option> => {
  const read = Getopt.read(words, Getopt.SPECS.get(key)!)
  for (const spelling of read.unreadable)
    sink.note("unmodelled", `${name} \`${spelling}\`: not an option it is known to read as written`)
  return read.options
}

// An option's value that is a command line: judged as bash, or unseen if only known at run time.
const runs = (sink: Sink, via: string, value: Word | undefined): void => {
  sink.note("executes", `${via} runs a program`)
  if (value === undefined) return
  if (value.isStatic) sink.text(value.value, "bash", via)
  else opaque(sink, `${via} runs a command line only known at run time`)
}

export const check = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const args = values(words)
  const name = words[0]!.value
  if (isPython(key)) {
    python(name, args, sink)
    return
  }
  if (isPip(key)) {
    pip(name, args, sink)
    if (args.includes("install") && args.some((a) => a === "--user" || a === "--root" || a === "--prefix"))
      installsPrograms(name, sink)
    return
  }
  globalInstall(key, name, args, sink)
  if (AWKS.has(key)) {
    awk(name, words, sink)
    return
  }
  // `deno task --eval CMD` runs CMD in deno's task shell.
  if (key === "deno" && args[0] === "task" && args.includes("--eval")) {
    const code = args.slice(1).find((a) => !a.startsWith("-"))
    if (code !== undefined) sink.text(code, "bash", `${name} task --eval`)
    else opaque(sink, `${name} task --eval runs a command line`)
  }
  const interpreter = INTERPRETERS.get(key)
  if (interpreter) {
    interpreterCode(name, key, args, interpreter, sink)
    return
  }
  switch (key) {
    case "rm":
      if (args.some((a) => /^-[a-zA-Z]*[rRf]/.test(a) || a === "--recursive" || a === "--force")) {
        sink.note(
          "destructive",
          `${name} ${args.filter((a) => a.startsWith("-")).join(" ")} removes files without asking`
        )
      }
      return
    case "mv":
      // Moved onto the null device, a file is gone (as root, /dev/null itself is replaced).
      if (args.includes("/dev/null")) sink.note("destructive", `${name} onto /dev/null deletes what it moves`)
      return
    case "shred":
    case "wipefs":
      sink.note("destructive", `${name} destroys data`)
      return
    case "remove-item":
      if (
        words.some((w) => w.parameter && (isPrefix(w.value, "-recurse", 2) || isPrefix(w.value, "-force", 3)))
      ) {
        sink.note("destructive", `${name} -Recurse/-Force removes trees without asking`)
      }
      return
    case "tee":
    case "tee-object":
    case "set-content":
    case "add-content":
    case "out-file":
      sink.note("writes", `${name} writes files`)
      return
    case "git":
      git(name, words, sink)
      return
    case "patch":
      if (!args.includes("--dry-run")) unseenWrites(sink, `${name} writes the files its patch names`)
      return
    case "go":
      // `go env -w GOFLAGS=-toolexec=…`, `CC=…`: every later go command runs what it names.
      if (args.includes("env") && args.some((a) => /^--?[wu]$/.test(a)))
        opaque(
          sink,
          `${name} env -w sets the configuration of every later go command, which can name programs to run`
        )
      args.forEach((a, i) => {
        const option = /^--?(toolexec|exec|vettool)(=|$)/.exec(a)?.[1]
        if (option !== undefined) {
          sink.note("executes", `${name} -${option} runs a program`)
          const command = a.includes("=") ? a.slice(a.indexOf("=") + 1) : args[i + 1]
          if (command && !/^\S*\//.test(command)) sink.text(command, "bash", `${name} -${option}`)
          else opaque(sink, `${name} -${option} runs the program ${command ?? ""}`)
        }
      })
      if (args.includes("generate")) opaque(sink, `${name} generate runs the commands its source files name`)
      return
    case "apt":
    case "apt-get":
    case "apt-cache":
      // `-o APT::Update::Pre-Invoke::=CMD` (or a `-c` configuration) runs commands, as root.
      if (args.some((a) => /^(-o|-c|--option|--config-file)/.test(a)))
        opaque(sink, `${name} -o/-c sets configuration that can run commands (Pre-Invoke, Post-Invoke)`)
      return
    case "ansible":
    case "ansible-playbook":
    case "ansible-pull":
    case "ansible-console":
      // Modules read, copy and write any file (`-m copy`, `-m slurp`, lookups), playbooks too.
      opaque(sink, `${name} runs modules that may read, write or run anything`)
      return
    case "terraform":
    case "tofu":
      // `console` evaluates expressions from its input (`file(".env")`).
      if (args[0] === "console") opaque(sink, `${name} console evaluates expressions from its input`)
      return
    case "make":
    case "gmake":
      for (const a of args) {
        // `CC=rm`, `AR=…`: a program its built-in rules run.
        const program =
          /^(CC|CXX|CPP|AR|AS|LD|FC|PC|M4|LEX|YACC|RM|MAKEINFO|TEX|LINT|GET|CO|CTANGLE|CWEAVE|TANGLE|WEAVE|MAKE)=(.*)$/s.exec(
            a
          )
        if (program?.[2]) sink.text(program[2], "bash", `${name} ${program[1]}=`)
        // --eval by any prefix make accepts (`--ev=…`).
        if (/^--ev(a(l)?)?(=|$)/.test(a) || /^-[a-zA-Z]*E/.test(a))
          opaque(sink, `${name} --eval evaluates make code, which can run programs`)
        if (/^(SHELL|\.SHELLFLAGS|MAKESHELL|MAKEFLAGS)=/.test(a))
          opaque(sink, `${name} ${a.split("=")[0]}= changes the shell its recipes run in`)
        // A variable set on the command line is expanded as make code: `x:=$(shell rm …)`
        // runs at once, `x!=rm …` is a shell assignment.
        const assignment = /^[^-=\s][^=\s]*?\s*(::?=|\?=|\+=|!=|=)/.exec(a)
        if (assignment !== null && (assignment[1] === "!=" || /\$[({]|`/.test(a)))
          opaque(sink, `${name} ${a.slice(0, 40)}: a variable whose value make expands as code ($(shell …))`)
        // Its value lands in the commands recipes run (`make CC='cat .env;' a.o`): shell text
        // there is run.
        else if (assignment !== null && /[;&|<>\n]|\$/.test(a.slice(assignment[0].length)))
          opaque(sink, `${name} ${a.slice(0, 40)}: a variable whose value recipes run as shell text`)
      }
      return
    case "cargo":
      for (const a of args) {
        if (a === "--config" || a.startsWith("--config=") || a === "-Z")
          opaque(sink, `${name} ${a.split("=")[0]} sets configuration that can name programs to run`)
      }
      return
    case "sed":
      sed(name, words, sink)
      return
    case "rg":
      args.forEach((a, i) => {
        if (
          a === "--pre" ||
          a.startsWith("--pre=") ||
          a === "--hostname-bin" ||
          a.startsWith("--hostname-bin=")
        ) {
          sink.note("executes", `rg ${a.split("=")[0]} runs a program on every file it searches`)
          const program = optionValue(args, i)
          if (program) sink.text(program, "bash", `rg ${a.split("=")[0]}`)
        }
      })
      if (args.some((a) => a === "-z" || a === "--search-zip" || /^-[a-zA-Z]*z/.test(a))) {
        sink.note("executes", "rg --search-zip runs decompression programs")
      }
      return
    case "ag":
      // getopt_long: `--pag` is --pager, which ag starts through a shell.
      args.forEach((a, i) => {
        if (!/^--pag(e(r)?)?(=|$)/.test(a)) return
        sink.note("executes", "ag --pager runs a program")
        const program = optionValue(args, i)
        if (program) sink.text(program, "bash", "ag --pager")
      })
      return
    case "tar":
    case "gtar":
    case "bsdtar":
      for (const { name: option, value } of readOptions(key, name, words, sink)) {
        if (TAR_RUNS.has(option)) runs(sink, `${name} ${option}`, value)
        // `--checkpoint-action=exec=CMD` runs CMD at each checkpoint; the other actions print.
        const exec = option === "--checkpoint-action" ? /^exec=/.exec(value?.value ?? "") : null
        if (exec && value) runs(sink, `${name} ${option}=exec`, { ...value, value: value.value.slice(5) })
      }
      return
    case "zip":
      // zip reads `-TT` inside a cluster and its value glued or next (its own parser, not getopt).
      words.slice(1).forEach((word, i) => {
        const a = word.value
        const at = /^-[^-]/.test(a) ? a.indexOf("TT") : -1
        const long = /^--unz[a-z-]*/.exec(a)
        if (at === -1 && !(long && "--unzip-command".startsWith(long[0]))) return
        const glued = at !== -1 ? a.slice(at + 2) : a.includes("=") ? a.slice(a.indexOf("=") + 1) : ""
        const value = glued !== "" ? { ...word, value: glued } : words[i + 2]
        runs(sink, `${name} -TT`, value)
      })
      return
    case "split":
      // Each piece is piped to `$SHELL -c FILTER`.
      for (const { name: option, value } of Getopt.read(words, Getopt.SPECS.get(key)!).options)
        if (option === "--filter") runs(sink, `${name} --filter`, value)
      return
    case "sdiff":
      // getopt_long: `--diff-program` by any prefix (it is the only long option starting `--d`).
      words.slice(1).forEach((word, i) => {
        const option = /^(--d[a-z-]*)(=?)/.exec(word.value)
        if (option === null || !"--diff-program".startsWith(option[1]!)) return
        runs(
          sink,
          `${name} --diff-program`,
          option[2] ? { ...word, value: word.value.slice(option[0].length) } : words[i + 2]
        )
      })
      return
    case "rsync":
      for (const { name: option, value } of readOptions(key, name, words, sink)) {
        if (option === "-e" || option === "--rsh") runs(sink, `${name} ${option}`, value)
        if (option === "--rsync-path") sink.note("executes", `${name} --rsync-path runs a program`)
      }
      return
    case "ssh":
    case "scp":
    case "sftp":
      if (key !== "ssh")
        for (const { name: option, value } of readOptions(key, name, words, sink))
          if (option === "-S" || (key === "sftp" && option === "-D")) runs(sink, `${name} ${option}`, value)
      args.forEach((a, i) => {
        const option = a === "-o" ? args[i + 1] : a.startsWith("-o") ? a.slice(2) : undefined
        // An option only known at run time may be a ProxyCommand (args[i] is words[i + 1]).
        if (option !== undefined && words[a === "-o" ? i + 2 : i + 1]?.isStatic === false)
          opaque(sink, `${name} -o sets an option only known at run time, which can run a program`)
        const match = option
          ? /^(ProxyCommand|LocalCommand|KnownHostsCommand|PermitLocalCommand)\s*[= ]\s*(.*)$/is.exec(option)
          : null
        if (match) {
          sink.note("executes", `${name} -o ${match[1]} runs a local program`)
          if (!/^PermitLocalCommand$/i.test(match[1]!)) sink.text(match[2]!, "bash", `${name} -o ${match[1]}`)
        }
        // A configuration file (its ProxyCommand, Match exec … run programs), an included
        // one, and shared libraries loaded as PKCS#11 or security-key providers.
        if (
          /^-[FI]/.test(a) ||
          (option !== undefined && /^(Include|PKCS11Provider|SecurityKeyProvider)\b/i.test(option))
        )
          opaque(
            sink,
            `${name} ${a.startsWith("-o") || a === "-o" ? `-o ${option}` : a} loads configuration or code this analysis cannot see`
          )
        if (/^-E/.test(a)) {
          const file = a.length > 2 ? a.slice(2) : args[i + 1]
          if (file !== undefined) {
            sink.note("writes", `${name} -E appends its log to \`${file}\``)
            sink.path(file, "write")
          }
        }
      })
      return
    case "ssh-keygen":
    case "ssh-add":
      // ssh-keygen -D/-w and ssh-add -s/-S load a PKCS#11 or security-key provider library.
      if (args.some((a) => (key === "ssh-keygen" ? /^-[Dw]/ : /^-[sS]/).test(a)))
        opaque(sink, `${name} loads a PKCS#11 or security-key provider library`)
      return
    case "wget":
      // A wgetrc given on the command line can post or write any file (`post_file`, `output_document`).
      if (args.some((a) => /^--conf(ig?)?(=|$)/.test(a)))
        opaque(sink, `${name} --config reads a configuration that can send or write other files`)
      downloadNames(name, args, sink)
      return
    case "curl":
      downloadNames(name, args, sink)
      return
    case "openssl":
      if (args.some((a) => /^-(engine|provider|provider-path|config)$/.test(a) || a === "engine"))
        opaque(sink, `${name} loads an engine or provider library`)
      return
    case "man":
      for (const { name: option, value } of readOptions(key, name, words, sink)) {
        if (option === "-P" || option === "--pager") runs(sink, `${name} ${option}`, value)
        if (option === "-H" || option === "--html") opaque(sink, `${name} ${option} runs a browser`)
      }
      return
    case "at":
    case "batch":
    case "crontab":
      opaque(sink, `${name} schedules commands to run later`)
      return
    // Programs that run their arguments as shell command lines (`sg group 'cmd'`, `capsh --
    // -c 'cmd'`, `pee 'cmd' …`, `hyperfine 'cmd' …`), or every program in a folder.
    case "sg":
    case "capsh":
    case "pee":
    case "hyperfine":
      opaque(sink, `${name} runs command lines given as its arguments, which are not analysed`)
      return
    // zsh: a module adds builtins (`zf_rm`, `$mapfile[.env]`, `zpty`), an autoloaded function
    // (`zmv`) is a file's code: neither is analysed. With no name, they only list.
    case "zmodload":
    case "autoload":
      if (args.some((a) => !a.startsWith("-") && !a.startsWith("+")))
        opaque(sink, `${name} loads code (a zsh module or function) whose commands are not analysed`)
      return
    case "run-parts":
      opaque(sink, `${name} runs every program in a folder, which are not analysed`)
      return
    case "mount":
      // Listing the mounts (no operand) only looks; a mount makes the paths under its target
      // lead to other files, which no later judgement of a path can see (`mount --bind . d`
      // makes `d/.env` the project's .env under a name no rule guards).
      for (let i = 0; i < args.length; i++) {
        if (MOUNT_VALUED.test(args[i]!)) i++
        else if (!args[i]!.startsWith("-") || MOUNTS.test(args[i]!)) {
          opaque(sink, `${name} attaches a file system: paths under it lead to other files`)
          return
        }
      }
      return
    case "rclone":
      if (args[0] === "mount" || args[0] === "nfsmount")
        opaque(sink, `${name} ${args[0]} attaches a file system: paths under it lead to other files`)
      return
    case "bindfs":
    case "sshfs":
    case "fuse-overlayfs":
    case "squashfuse":
    case "archivemount":
    case "fuse-zip":
    case "mergerfs":
    case "unionfs":
    case "unionfs-fuse":
    case "s3fs":
    case "gocryptfs":
    case "encfs":
      if (!args.some((a) => a === "-h" || a === "--help" || a === "-V" || a === "--version"))
        opaque(sink, `${name} attaches a file system: paths under it lead to other files`)
      return
    case "sort":
    case "du":
      // The files a list names (`--files0-from=-`: from the input) are read unseen.
      if (args.some((a) => a.startsWith("--files0")))
        opaque(sink, `${name} --files0-from reads the files a list names, which are not judged`)
      return
    case "yarn":
      // A plugin is code every later yarn command loads (`.yarnrc.yml` names it).
      if (args[0] === "plugin" && args[1] === "import")
        opaque(sink, `${name} plugin import installs code every later yarn command runs`)
      return
    case "systemctl":
    case "launchctl": {
      // A service started, enabled, loaded or edited runs later, outside any sandbox: only
      // the subcommands that look are modelled.
      const sub = args.find((a) => !a.startsWith("-"))
      if (sub !== undefined && !(key === "systemctl" ? SYSTEMCTL_LOOKS : LAUNCHCTL_LOOKS).has(sub))
        opaque(sink, `${name} ${sub} may start or install a service, which runs outside any sandbox`)
      return
    }
    case "direnv":
    case "mise":
    case "rtx": {
      // Trusting a folder's .envrc (.mise.toml) makes the person's own shell run it on entering
      // the folder, outside any sandbox; `direnv exec` runs it now.
      const sub = key === "direnv" ? args.find((a) => !a.startsWith("-")) : args.find((a) => a === "trust")
      if (sub !== undefined && (key !== "direnv" || !DIRENV_LOOKS.has(sub)))
        opaque(sink, `${name} ${sub} trusts or runs code the shell runs on entering the folder`)
      return
    }
    case "gh":
      // An alias (`!` runs a shell) or an extension is code a later `gh` command runs.
      // So is a configured editor, pager or browser (`gh config set pager "rm …"`).
      if (
        (args[0] === "alias" && (args[1] === "set" || args[1] === "import")) ||
        (/^ext(ension)?s?$/.test(args[0] ?? "") && (args[1] === "install" || args[1] === "upgrade")) ||
        (args[0] === "config" && args[1] === "set")
      )
        opaque(sink, `${name} ${args[0]} ${args[1]} defines code a later gh command runs`)
      return
    case "add-type":
      sink.note("executes", "Add-Type compiles and loads code")
      if (
        words.some((w) => w.parameter && /^-(p|pa|pat|path|l|li|literalpath|lp|pspath)$/i.test(w.value)) ||
        moduleFile(words)
      )
        opaque(sink, "Add-Type loads an assembly from a file, whose code is not analysed")
      return
    case "using":
      // `using module ./x.psm1` runs the module's code; `using assembly` loads a file.
      if (/^(module|assembly)$/i.test(words[1]?.value ?? ""))
        opaque(sink, `using ${words[1]!.value} loads code that is not analysed`)
      return
    case "invoke-item":
      opaque(sink, "Invoke-Item opens files with their default program (a script or shortcut runs)")
      return
    case "foreach-object": {
      // `% Delete` and `-MemberName Delete` call that method on every input object.
      for (let i = 1; i < words.length; i++) {
        const word = words[i]!
        if (word.scriptBlock) continue
        if (word.parameter) {
          const option = word.value.toLowerCase()
          if (isPrefix(option, "-membername", 2)) {
            opaque(sink, `${name} -MemberName calls a method on every input object`)
            return
          }
          if (
            isPrefix(option, "-inputobject", 2) ||
            isPrefix(option, "-throttlelimit", 2) ||
            isPrefix(option, "-argumentlist", 2)
          )
            i++
          continue
        }
        opaque(sink, `${name} ${word.raw} calls the member \`${word.raw}\` on every input object`)
        return
      }
      return
    }
    case "import-module":
      sink.note("executes", "Import-Module loads code")
      // A module named by its file is code from the project (or anywhere), like dot-sourcing.
      if (moduleFile(words)) opaque(sink, "Import-Module runs a module file whose code is not analysed")
      return
    case "set-executionpolicy":
      sink.note("executes", "Set-ExecutionPolicy changes which scripts may run")
      return
    default:
      if (key === "mkfs" || key.startsWith("mkfs.")) sink.note("destructive", `${name} formats a file system`)
      return
  }
}

// A word that names a module or assembly file (a path or a script, manifest or library
// extension) rather than an installed module's name; one only known at run time may be either.
const moduleFile = (words: ReadonlyArray<Word>): boolean =>
  words
    .slice(1)
    .some(
      (w) =>
        !w.parameter &&
        !w.scriptBlock &&
        (!w.isStatic || /[\\/]|\.(psm1|ps1|psd1|dll|cdxml|xaml)$/i.test(w.value))
    )

const isPrefix = (value: string, full: string, minimum: number): boolean => {
  const v = value.toLowerCase()
  return v.length >= minimum && full.startsWith(v)
}

// pip's configuration names where every later install comes from (options may come first or
// between the words: `pip -v config --user set …`).
/**
 * Programs that load the `.env` of the folder they run in unless told another file: the
 * dotenv CLIs (`dotenv list`, `dotenv -- cmd`), Procfile runners, pipenv, and deno's bare
 * `--env-file`. They put its secrets in the environment of what they run (or print them).
 */
export const LOADS_DOTENV: ReadonlySet<string> = new Set([
  "dotenv",
  "dotenv-cli",
  "docker",
  "podman",
  "docker-compose",
  "podman-compose",
  "dotenvx",
  "honcho",
  "foreman",
  "forego",
  "pipenv",
  "deno"
])
export const loadsDotenv = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const args = values(words)
  const named = args.some((a) => /^(-e|-f|--file|--env-file=.+|--dotenv=.+)$/.test(a) || /^-[ef]./.test(a))
  switch (key) {
    case "dotenv":
    case "dotenv-cli":
    case "dotenvx":
    case "honcho":
    case "foreman":
    case "forego":
      if (!named) sink.path(".env", "read")
      return
    case "pipenv":
      if ((args[0] === "run" || args[0] === "shell") && !named) sink.path(".env", "read")
      return
    case "deno":
      if (args.includes("--env-file") || args.includes("--env")) sink.path(".env", "read")
      return
    case "docker":
    case "podman":
    case "docker-compose":
    case "podman-compose": {
      // compose reads the project's .env for its variables; `config` prints them resolved.
      const compose = key.endsWith("compose")
      const at = compose ? 0 : args.indexOf("compose") + 1
      if (
        (compose || at > 0) &&
        /^(config|convert)$/.test(args.slice(at).find((a) => !a.startsWith("-")) ?? "")
      )
        sink.path(".env", "read")
      return
    }
    default:
      if (isPython(key) && args[0] === "-m" && args[1] === "dotenv") sink.path(".env", "read")
      return
  }
}

// Installs of programs into folders on PATH outside the project (`npm i -g`, `cargo
// install`, `go install`, `corepack enable`): every later command may run what they put
// there under a name rules were written for. And installers of git hooks, which then run
// the project's files (`pre-commit install`, `husky`, `git lfs install`).
const installsPrograms = (name: string, sink: Sink): void =>
  sink.note("unmodelled", `${name} installs programs outside the project, which later commands may run`)
// Package managers' options whose value is the next word (not the subcommand).
const MANAGER_VALUED =
  /^(--location|--loglevel|--prefix|--cache|--registry|--userconfig|--globalconfig|--workspace|-w|--tag|--otp|--reporter|--cwd|--dir|-C|--filter|-F|--store-dir)$/
const globalInstall = (key: string, name: string, args: ReadonlyArray<string>, sink: Sink): void => {
  const operands = args.filter((a, i) => !a.startsWith("-") && !MANAGER_VALUED.test(args[i - 1] ?? ""))
  const sub = operands[0]
  const isGlobal = () =>
    args.some(
      (a, i) =>
        a === "--global" ||
        /^-[a-zA-Z]*g[a-zA-Z]*$/.test(a) ||
        /^--global=(true|1)$/.test(a) ||
        a === "--location=global" ||
        (a === "--location" && args[i + 1] === "global")
    )
  switch (key) {
    case "npm":
    case "pnpm":
    case "bun":
      if (
        (isGlobal() &&
          /^(i|in|ins|inst|insta|instal|install|isnt|isnta|isntal|isntall|it|cit|install-test|install-ci-test|add|a|link|ln|update|up|upgrade|udpate)$/.test(
            sub ?? ""
          )) ||
        // `npm link` alone, or with a folder, links the package globally.
        ((sub === "link" || sub === "ln") &&
          operands.every((a, i) => i === 0 || /^[./~]/.test(a) || a.includes("/")))
      )
        installsPrograms(name, sink)
      return
    case "yarn":
      if (sub === "global" || (sub === "add" && isGlobal())) installsPrograms(name, sink)
      return
    // A package file: its maintainer scripts run as root, its programs land on PATH.
    case "dpkg":
      if (args.some((a) => /^(-[a-zA-Z]*[iRrPC]|--(install|unpack|remove|purge|configure))/.test(a)))
        installsPrograms(name, sink)
      return
    // apt from the distribution's archive is left to the rules on apt; a package file the
    // text names (`apt install ./p.deb`) may be one it made.
    case "apt":
    case "apt-get":
    case "aptitude":
      if (
        /^(install|reinstall)$/.test(sub ?? "") &&
        operands.slice(1).some((a) => a.includes("/") || a.endsWith(".deb"))
      )
        installsPrograms(name, sink)
      return
    case "cargo":
    case "go":
    case "gem":
    case "luarocks":
    case "volta":
      if (sub === "install") installsPrograms(name, sink)
      return
    case "pipx":
      if (sub === "install" || sub === "ensurepath" || sub === "inject") installsPrograms(name, sink)
      return
    case "deno":
      if ((sub === "install" && isGlobal()) || (sub === "jupyter" && args.includes("--install")))
        installsPrograms(name, sink)
      return
    case "dotnet":
      if (sub === "tool" && args.includes("install") && isGlobal()) installsPrograms(name, sink)
      return
    case "composer":
      if (sub === "global") installsPrograms(name, sink)
      return
    case "brew":
      if (/^(install|reinstall|upgrade|tap|services|link)$/.test(sub ?? "")) installsPrograms(name, sink)
      return
    case "nix":
      if (sub === "profile" && args.includes("install")) installsPrograms(name, sink)
      return
    case "nix-env":
      if (args.some((a) => a === "-i" || a === "--install" || /^-[a-zA-Z]*i/.test(a)))
        installsPrograms(name, sink)
      return
    case "mise":
    case "rtx":
      if ((sub === "use" && isGlobal()) || sub === "install") installsPrograms(name, sink)
      return
    case "rustup":
      // A toolchain put on PATH (or linked from a folder); components and targets are libraries.
      if (/^(default|toolchain|override)$/.test(sub ?? "")) installsPrograms(name, sink)
      return
    case "mix":
      if (sub === "archive.install" || sub === "escript.install") installsPrograms(name, sink)
      return
    case "uv":
      if (
        (sub === "tool" && args.includes("install")) ||
        (sub === "python" && args.includes("install")) ||
        (sub === "self" && args.includes("update"))
      )
        installsPrograms(name, sink)
      return
    case "corepack":
      if (sub === "enable" || sub === "install") installsPrograms(name, sink)
      return
    case "pre-commit":
    case "lefthook":
    case "overcommit":
      // pre-commit takes a prefix of its subcommand (`instal`); `init-templatedir DIR` makes hooks there.
      if (/^inst/.test(sub ?? "") || args.includes("--install")) hookInstall(name, sink)
      if (sub === "init-templatedir") {
        const dir = args.slice(1).find((a) => !a.startsWith("-"))
        if (dir !== undefined) sink.path(`${dir}/hooks/pre-commit`, "write")
      }
      return
    case "husky":
    case "husky-init":
      // husky sets core.hooksPath to its folder (.git/config) and fills that folder.
      if (sub === undefined || sub === "install" || sub === "init" || key === "husky-init") {
        sink.note("executes", `${name} makes git run the hooks in .husky on later git commands`)
        sink.path(".git/config", "write")
      }
      return
    case "simple-git-hooks":
      hookInstall(name, sink)
      return
    case "git-lfs":
      if (sub === "install" || sub === "update") hookInstall(name, sink)
      return
    default:
      return
  }
}
const hookInstall = (name: string, sink: Sink): void => {
  sink.note("executes", `${name} installs git hooks, which run the project's files on later git commands`)
  sink.path(".git/hooks/pre-commit", "write")
}

const pip = (name: string, args: ReadonlyArray<string>, sink: Sink): void => {
  const at = args.indexOf("config")
  const action =
    at === -1 ? undefined : args.slice(at + 1).find((a) => a === "set" || a === "edit" || a === "unset")
  if (action !== undefined) opaque(sink, `${name} config ${action} changes where later installs come from`)
}
const PYTHON_WRITERS: ReadonlySet<string> = new Set([
  "zipfile",
  "tarfile",
  "venv",
  "virtualenv",
  "cProfile",
  "profile",
  "zipapp",
  "compileall",
  "py_compile",
  "ensurepip",
  "shutil",
  "gzip",
  "trace"
])

const python = (name: string, args: ReadonlyArray<string>, sink: Sink): void => {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === "-m") {
      if (args[i + 1] === "pip") pip(`${name} -m pip`, args.slice(i + 2), sink)
      // `python -m pre_commit install` is pre-commit's.
      if (args[i + 1] === "pre_commit")
        globalInstall("pre-commit", `${name} -m pre_commit`, args.slice(i + 2), sink)
      // Standard modules that write what their operands name (an archive, a venv, a profile).
      if (PYTHON_WRITERS.has(args[i + 1] ?? ""))
        unseenWrites(sink, `${name} -m ${args[i + 1]} writes files its operands name`)
      if (args[i + 1] === "json.tool") {
        // `json.tool [IN [OUT]]` writes OUT.
        const operands = args
          .slice(i + 2)
          .filter((a, k, all) => !a.startsWith("-") && all[k - 1] !== "--indent")
        if (operands[1] !== undefined) sink.path(operands[1], "write")
      }
      return
    }
    if (/^-[a-zA-Z]*c/.test(a) && !a.startsWith("--")) {
      opaque(sink, `${name} -c runs code given on the command line`)
      return
    }
    if (a === "-") {
      sink.note("executes", `${name} - runs code from standard input`)
      return
    }
    if (a === "-W" || a === "-X" || a === "--check-hash-based-pycs") {
      i++
      continue
    }
    if (!a.startsWith("-")) return
  }
  sink.note("executes", `${name} without a script runs code from standard input`)
}

const interpreterCode = (
  name: string,
  key: string,
  args: ReadonlyArray<string>,
  options: ReadonlyArray<string>,
  sink: Sink
): void => {
  for (const a of args) {
    const base = a.includes("=") ? a.slice(0, a.indexOf("=")) : a
    const attached = options.some(
      (o) => o.length === 2 && a.startsWith(o) && a.length > 2 && !a.startsWith("--")
    )
    const clustered = (key === "perl" || key === "ruby") && /^-[a-zA-Z]*[eE]/.test(a)
    if (
      options.includes(base) ||
      attached ||
      clustered ||
      (["vim", "vi", "nvim", "ex"].includes(key) && a.startsWith("+"))
    ) {
      opaque(sink, `${name} ${base} runs code given on the command line (or a file it names)`)
      shellEscapes(key, args, sink)
      return
    }
  }
}

// ex commands that name one file to read, edit, source or write.
const EX_FILE_COMMAND =
  /^:?\s*(r|re|rea|read|e|ed|edi|edit|sp|split|vs|vsplit|tabe|tabedit|new|vne|vnew|vie|view|so|sou|sour|sourc|source|w|wr|wri|writ|write|sav|saveas|wq|x|xit|up|update)!?\s+([^|\s][^|]*)$/s

// The shell commands a debugger's or editor's command runs (`gdb -ex 'shell rm x'`, `-ex
// '!rm x'`, `vim -c '!rm x'`, `+'!rm x'`): judged as well, so a deny on them holds.
const shellEscapes = (key: string, args: ReadonlyArray<string>, sink: Sink): void => {
  const vim = key === "vim" || key === "vi" || key === "nvim" || key === "ex"
  if (key === "lldb") {
    // `platform shell CMD` (and its `shell` alias) runs CMD.
    for (let i = 0; i < args.length; i++) {
      const code = /^(-o|--one-line|-O|--one-line-before-file|-k|-K)$/.test(args[i]!)
        ? args[i + 1]
        : undefined
      const shell = code === undefined ? null : /^\s*(?:platform\s+)?shell\s+(.*)$/s.exec(code)
      if (shell?.[1] !== undefined) sink.text(shell[1], "bash", `lldb ${args[i]}`)
    }
    return
  }
  if (key !== "gdb" && !vim) return
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    const code =
      a.startsWith("+") && vim
        ? a.slice(1)
        : /^(-ex|--eval-command|-c|--cmd)$/.test(a)
          ? args[i + 1]
          : undefined
    if (code === undefined) continue
    const shell = (vim ? /^:?\s*!(.*)$/s : /^\s*(?:shell|pipe\s+[^|]*\||!)\s*(.*)$/s).exec(code)
    if (shell?.[1] !== undefined && shell[1].trim() !== "") sink.text(shell[1], "bash", `${key} ${a}`)
    // The files an ex command reads or writes (`+r .env`, `-c 'w .git/config'`), a deny on them holds.
    const file = vim ? EX_FILE_COMMAND.exec(code) : null
    if (file !== null)
      sink.path(
        file[2]!.trim(),
        /^(w|wr|wri|writ|write|sav|saveas|wq|x|xit|up|update)/.test(file[1]!) ? "write" : "read"
      )
  }
}

// awk's options as gawk, mawk and busybox read them: those known to be flags, the value
// options, and the program given by -e/--source. Any other option may load or write files.
const AWK_FLAGS = /^-[bcCghkLMNnOPrsStV]+$/
const AWK_LONG_FLAGS: ReadonlySet<string> = new Set([
  "--characters-as-bytes",
  "--traditional",
  "--copyright",
  "--gen-pot",
  "--help",
  "--lint",
  "--lint-old",
  "--bignum",
  "--use-lc-numeric",
  "--non-decimal-data",
  "--optimize",
  "--no-optimize",
  "--posix",
  "--re-interval",
  "--sandbox",
  "--version",
  "--csv"
])

const awk = (name: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const args = values(words)
  const programs: Array<string> = []
  // A program (or a part of it) only known at run time is code the gate cannot see, like
  // `sh -c "$x"` (args[i] is words[i + 1]).
  let dynamicProgram = false
  const push = (index: number, text: string) => {
    programs.push(text)
    if (words[index + 1]?.isStatic === false) dynamicProgram = true
  }
  let positional = true
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === "-f" || a === "--file" || a.startsWith("-f") || a.startsWith("--file=")) {
      opaque(sink, `${name} -f runs a program file whose system() and pipes are not checked`)
      return
    }
    if (a === "-v" || a === "-F" || a === "--assign" || a === "--field-separator") {
      i++
      continue
    }
    if (a === "-e" || a === "--source") {
      if (args[i + 1] !== undefined) push(i + 1, args[i + 1]!)
      positional = false
      i++
      continue
    }
    if (a.startsWith("--source=")) {
      push(i, a.slice(9))
      positional = false
      continue
    }
    if (a === "--") {
      if (positional && args[i + 1] !== undefined) push(i + 1, args[i + 1]!)
      break
    }
    if (!a.startsWith("-") || a === "-") {
      if (positional) push(i, a)
      break
    }
    if (
      /^-[vF]./.test(a) ||
      a.startsWith("--assign=") ||
      a.startsWith("--field-separator=") ||
      AWK_FLAGS.test(a) ||
      AWK_LONG_FLAGS.has(a) ||
      a === "-Wversion"
    )
      continue
    // -i/--include, -l/--load, -E/--exec, mawk's -W exec load and run code; -o, -p, -d
    // write files; anything else is not known.
    opaque(sink, `${name} ${a}: an option that may load code or write files, not modelled here`)
    return
  }
  if (programs.length === 0) return
  if (dynamicProgram) {
    opaque(sink, `${name} runs a program only known at run time`)
    return
  }
  const program = programs.join("\n")
  const code = awkCode(program)
  if (code === undefined) {
    opaque(sink, `${name} has a program whose strings or regular expressions are not read here`)
    return
  }
  // A literal string at `index` of the program (the code there is a blanked string).
  const literal = (index: number): string | undefined => {
    const match = /^\s*"/.exec(code.slice(index))
    if (match === null) return undefined
    const start = index + match[0].length
    const text = program.slice(start, code.indexOf('"', start))
    return text.includes("\\") ? undefined : text
  }
  // gawk's `@f()` calls the function a string names, `@load` loads a shared object,
  // `@include` a source file.
  if (code.includes("@"))
    opaque(sink, `${name} @: an indirect call, @load or @include runs code not visible here`)
  // Files assigned to ARGV are read as input (and ENVIRON passes on to what it runs):
  // any use of ARGV, ARGC or gawk's SYMTAB (which assigns variables by name), and an
  // ENVIRON other than a plain read, is not modelled.
  for (const use of code.matchAll(/\b(ARGV|ARGC|SYMTAB|ENVIRON)\b/g)) {
    const before = code.slice(0, use.index)
    const after = code.slice(use.index + use[0].length)
    const subscript = /^\s*\[[^\][]*\]/.exec(after)
    const plainRead =
      use[1] === "ENVIRON" &&
      subscript !== null &&
      !/(\+\+|--|,|\bdelete|\bgetline|\bsplit\s*\()\s*$/.test(before) &&
      !/^\s*(=(?!=)|[-+*/%^]=|\+\+|--)/.test(after.slice(subscript[0].length))
    if (!plainRead)
      sink.note("unmodelled", `${name} uses ${use[1]}, which can change what it reads or passes on`)
  }
  if (/\b(close|fflush)\s*\(\s*[^\s)]/.test(code))
    sink.note("unmodelled", `${name} closes or flushes a file or command its program names`)
  // `getline < "file"` reads that file; a file the program computes may be any.
  for (const read of code.matchAll(/\bgetline\b[^;}<|\n]*<\s*/g)) {
    const target = literal(read.index + read[0].length)
    if (target !== undefined) sink.path(target, "read")
    else sink.note("unmodelled", `${name} reads a file its program computes (getline < …)`)
  }
  const calls = [...code.matchAll(/\bsystem\s*\(/g)]
  // A print statement runs to its `;`, `}` or line end; `>` and `|` inside parentheses are
  // comparisons and logic, outside them a redirection.
  const statements = [...code.matchAll(/\bprintf?\b[^;}\n]*/g)].map((m) => {
    let text = m[0]
    for (let last = ""; last !== text; ) {
      last = text
      text = text.replace(/\([^()]*\)/g, (group) => " ".repeat(group.length))
    }
    return { index: m.index, text }
  })
  const pipes =
    /\|\s*&?\s*getline/.test(code) || /\|&/.test(code) || statements.some((s) => s.text.includes("|"))
  if (calls.length > 0 || pipes) {
    let literals = 0
    for (const call of calls) {
      const open = call.index + call[0].length
      const command = literal(open)
      if (command === undefined || !/^\s*"\s*\)/.test(code.slice(code.indexOf('"', open) + 1))) continue
      sink.text(command, "bash", `${name} system()`)
      literals++
    }
    if (pipes || literals < calls.length)
      opaque(sink, `${name} runs commands its program builds (system() or a pipe)`)
    else sink.note("executes", `${name} runs commands from its program (system())`)
  }
  const writes = statements.filter((s) => s.text.includes(">"))
  if (writes.length > 0) {
    sink.note("writes", `${name} writes files from its program (print >)`)
    // `print > "file"` writes that file, judged as any path; a target the program
    // computes (`print > $1`) may be anywhere.
    for (const statement of writes) {
      const at = statement.index + statement.text.lastIndexOf(">") + 1
      const target = literal(at)
      const whole =
        target !== undefined &&
        /^\s*"\s*$/.test(
          code.slice(code.indexOf('"', code.indexOf('"', at) + 1), statement.index + statement.text.length)
        )
      if (target !== undefined && whole) sink.path(target, "write")
      else sink.note("unmodelled", `${name} writes to a file its program computes (print > …)`)
    }
  }
}

// An awk program with its comments, string literals and regex literals blanked (same length,
// the quotes and slashes kept), so a `;`, `}`, `|` or `>` inside them is not read as code.
// A `/` after an operand (a name, a number, `)`, `]`, a string) is division, elsewhere it
// starts a regex, as in awk's grammar.
// `undefined` when a literal is not closed on its line or a regex holds `"` or a bracketed
// `/` (awks lex those differently): what is code is then not known here.
const awkCode = (program: string): string | undefined => {
  const text = program.replace(/\\\r?\n/g, (m) => " ".repeat(m.length))
  let out = ""
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === "#") {
      const end = text.indexOf("\n", i)
      const stop = end === -1 ? text.length : end
      out += " ".repeat(stop - i)
      i = stop
      continue
    }
    const regex =
      c === "/" &&
      !/[\w$)\]."/]\s*$|(\+\+|--)\s*$/.test(out.replace(/\b(print|printf|return|case|in|do|else)\s*$/, "("))
    if (c !== '"' && !regex) {
      out += c
      i++
      continue
    }
    let j = i + 1
    let bracket = false
    for (; j < text.length; j++) {
      const d = text[j]!
      if (d === "\n") return undefined
      if (d === "\\") {
        j++
        continue
      }
      if (regex) {
        // POSIX brackets: `]` first is literal, `[:alpha:]` is a class inside.
        if (d === '"' || (bracket && d === "/")) return undefined
        if (!bracket && d === "[") {
          bracket = true
          if (text[j + 1] === "^") j++
          if (text[j + 1] === "]") j++
        } else if (bracket && d === "[" && /[:.=]/.test(text[j + 1] ?? "")) {
          const close = text.indexOf(`${text[j + 1]}]`, j + 2)
          if (close === -1 || /[\n"/]/.test(text.slice(j, close))) return undefined
          j = close + 1
        } else if (bracket && d === "]") bracket = false
        else if (!bracket && d === "/") break
      } else if (d === '"') break
    }
    if (j >= text.length) return undefined
    out += c + " ".repeat(j - i - 1) + c
    i = j + 1
  }
  return out
}

const sed = (name: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const args = values(words)
  const scripts: Array<string> = []
  // A script only known at run time may hold `e` or `w` commands (args[i] is words[i + 1]).
  let dynamicScript = false
  const push = (index: number, text: string) => {
    scripts.push(text)
    if (words[index + 1]?.isStatic === false) dynamicScript = true
  }
  let explicit = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === "-e" || a === "--expression") {
      explicit = true
      if (args[i + 1] !== undefined) push(i + 1, args[i + 1]!)
      i++
    } else if (a.startsWith("--expression=")) {
      explicit = true
      push(i, a.slice("--expression=".length))
    } else if (/^-[a-zA-Z]*e./.test(a) && !a.startsWith("--")) {
      explicit = true
      push(i, a.slice(a.indexOf("e") + 1))
    } else if (a === "--file" || a.startsWith("--file=") || /^-[a-zA-Z]*f/.test(a)) {
      // `-f FILE`, `-nf FILE`, `-nfFILE`: a script file.
      explicit = true
      opaque(sink, `${name} -f runs a script file whose e and w commands are not checked`)
      if (a === "--file" || /^-[a-zA-Z]*f$/.test(a)) i++
    } else if (a === "-l" || a === "--line-length") {
      i++
    } else if (!a.startsWith("-") && !explicit) {
      push(i, a)
      explicit = true
    }
  }
  if (dynamicScript) opaque(sink, `${name} runs a script only known at run time`)
  if (args.some((a) => a === "--in-place" || a.startsWith("--in-place=") || /^-[a-zA-Z]*i/.test(a))) {
    sink.note("writes", `${name} -i edits files in place`)
  }
  for (const script of scripts) {
    const risk = sedScript(script)
    if (risk.executes) {
      for (const command of risk.commands) sink.text(command, "bash", `${name} e`)
      if (risk.opaque) opaque(sink, `${name} runs the edited text as a command (s///e or a bare e)`)
      else sink.note("executes", `${name} script runs commands (the e command)`)
    }
    if (risk.writes) sink.note("writes", `${name} script writes files (the w command or s///w)`)
    for (const file of risk.files) sink.path(file.path, file.access)
  }
}

/** Looks for sed's `e` and `w` commands and the `e`/`w` flags of `s`. */
export const sedScript = (
  script: string
): {
  executes: boolean
  opaque: boolean
  writes: boolean
  commands: Array<string>
  files: Array<{ path: string; access: "read" | "write" }>
} => {
  let executes = false
  let opaqueRun = false
  let writes = false
  const commands: Array<string> = []
  const files: Array<{ path: string; access: "read" | "write" }> = []
  let i = 0
  const n = script.length
  const skipAddress = () => {
    while (i < n) {
      const c = script[i]!
      if (/[\s0-9$,!~+]/.test(c)) i++
      else if (c === "/" || c === "\\") {
        const delimiter = c === "\\" ? script[i + 1] : "/"
        i += c === "\\" ? 2 : 1
        while (i < n && script[i] !== delimiter) i += script[i] === "\\" ? 2 : 1
        i++
        while (i < n && /[IM]/.test(script[i]!)) i++
      } else break
    }
  }
  while (i < n) {
    skipAddress()
    const c = script[i]
    if (c === undefined) break
    if (c === ";" || c === "\n" || c === "{" || c === "}") {
      i++
      continue
    }
    if (c === "s" || c === "y") {
      const delimiter = script[i + 1]
      if (delimiter === undefined) break
      i += 2
      let parts = 0
      while (i < n && parts < 2) {
        if (script[i] === "\\") i += 2
        else {
          if (script[i] === delimiter) parts++
          i++
        }
      }
      const flagsEnd = script.slice(i).search(/[;\n}]/)
      const flags = flagsEnd === -1 ? script.slice(i) : script.slice(i, i + flagsEnd)
      if (c === "s") {
        const wAt = flags.indexOf("w")
        const before = wAt === -1 ? flags : flags.slice(0, wAt)
        if (before.includes("e")) {
          executes = true
          opaqueRun = true
        }
        if (wAt !== -1) {
          writes = true
          const file = flags.slice(wAt + 1).trim()
          if (file) files.push({ path: file, access: "write" })
        }
      }
      i += flagsEnd === -1 ? flags.length : flagsEnd
      continue
    }
    const lineEnd = script.slice(i).search(/\n/)
    const rest = lineEnd === -1 ? script.slice(i + 1) : script.slice(i + 1, i + lineEnd)
    if (c === "e") {
      executes = true
      const command = rest.split(";")[0]!.trim()
      // A bare `e` runs the pattern space: data, not visible here.
      if (command) commands.push(command)
      else opaqueRun = true
    }
    if (c === "w" || c === "W") {
      writes = true
      if (rest.trim()) files.push({ path: rest.trim(), access: "write" })
    }
    if ((c === "r" || c === "R") && rest.trim()) files.push({ path: rest.trim(), access: "read" })
    if (/[ewWrRaic:btT]/.test(c)) {
      // These take the rest of the line (labels and branches only up to `;`).
      const end = /[abtT:]/.test(c) ? rest.search(/[;\n]/) : -1
      i += 1 + (end === -1 ? rest.length : end)
      continue
    }
    i++
  }
  return { executes, opaque: opaqueRun, writes, commands, files }
}

// git's ext:: transport: words split on spaces, `% ` is a space inside a word, `%%` a `%`.
// Re-quoted for the bash grammar so the words stay words.
const extCommand = (spec: string): string => {
  const words: Array<string> = [""]
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i]!
    if (c === "%" && i + 1 < spec.length) words[words.length - 1] += spec[++i]!
    else if (c === " ") words.push("")
    else words[words.length - 1] += c
  }
  return words
    .filter((w) => w !== "")
    .map((w) => `'${w.replaceAll("'", "'\\''")}'`)
    .join(" ")
}

// Where wget and curl name what they save: from the URL's path (`wget -x -nH URL/.git/config`
// writes .git/config; `wget URL` and `curl -O URL` its last part), from what the server says
// (`--content-disposition`, `-r`), or from URL globs (`curl URL/{a,b} -o '#1'`). The folders
// and files named in the URL are not followed; a plain download's name is judged.
const WGET_URL_PATHS =
  /^(-[a-zA-Z]*[xrmp][a-zA-Z]*|--force-dir.*|--rec.*|--mirror|--page-req.*|--content-disp.*|--trust-server.*)$/
const downloadNames = (name: string, args: ReadonlyArray<string>, sink: Sink): void => {
  const curl = name === "curl" || name.endsWith("/curl")
  const urls = args.filter((a) => URL_LIKE.test(a))
  if (curl) {
    if (
      args.some((a, i) => /#\d/.test(a) && /^(-o|--output)$/.test(args[i - 1] ?? "")) ||
      args.some((a) => /^-[a-zA-Z]*o.*#\d|^--output=.*#\d/.test(a))
    )
      sink.note(
        "unmodelled",
        `${name} names its output after a URL glob (#1): which files it writes is not followed`
      )
    const remoteName = args.some(
      (a) => a === "--remote-name" || a === "--remote-name-all" || /^-[a-zA-Z]*O/.test(a)
    )
    if (remoteName) for (const url of urls) savedName(name, url, sink)
    return
  }
  if (args.some((a) => WGET_URL_PATHS.test(a)))
    sink.note(
      "unmodelled",
      `${name} names the files it saves after the URL's folders or the server: not followed`
    )
  else if (
    !args.some((a) => /^(-[a-zA-Z]*[OP]|--output-document|--directory-prefix|-i|--input-file)/.test(a))
  )
    for (const url of urls) savedName(name, url, sink)
}
// The last part of a URL's path, as a download saves it (globs and queries aside).
const savedName = (name: string, url: string, sink: Sink): void => {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").replace(/[?#].*$/s, "")
  if (/[{}[\]]/.test(path)) {
    sink.note("unmodelled", `${name} saves files named after the URL glob \`${url}\`: not followed`)
    return
  }
  const last = path.slice(path.lastIndexOf("/") + 1)
  if (last === "" || last === "." || last === "..") return
  sink.note("writes", `${name} saves \`${last}\``)
  sink.path(decodeURIComponentSafe(last), "write")
}
const decodeURIComponentSafe = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

const GIT_EXECUTING_KEYS =
  /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand)|diff\..*\.(command|textconv)|diff\.external|merge\..*\.driver|filter\..*\.(clean|smudge|process)|credential\.helper|pager\..*|sequence\.editor|gpg\.program|gpg\..*\.program|uploadpack\.packobjectshook|include\.path|includeif\..*|remote\..*\.(uploadpack|receivepack|proxy)|sendemail\.(.*\.)?(tocmd|cccmd|headercmd|sendmailcmd|smtpserver)|url\..*|http\.proxy|protocol\..*|alias\..*|submodule\..*\.update|core\.editor|trailer\..*\.(command|cmd)|gpg\.ssh\.defaultkeycommand|man\.viewer|man\..*\.(cmd|path)|(help|web)\.browser|browser\..*\.(cmd|path)|credential\..*\.helper|(merge|diff)tool\..*\.(cmd|path)|guitool\..*\.cmd|interactive\.difffilter|.*\.(cmd|command|helper|program|driver|textconv|hook))$/i
// Keys whose value is a file git reads and puts in what it writes or prints (a commit
// message's template, the names of a mailmap, a cookie file it sends).
const GIT_FILE_KEYS =
  /^(commit\.template|mailmap\.file|blame\.ignorerevsfile|http\.cookiefile|sendemail\.aliasesfile)$/i

// git's own commands (porcelain and plumbing people type); anything else is an alias or a
// `git-<name>` program.
const GIT_COMMANDS: ReadonlySet<string> = new Set(
  (
    "add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore " +
    "check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone " +
    "column commit commit-graph commit-tree config count-objects credential describe diff diff-files " +
    "diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch filter-repo " +
    "fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui " +
    "hash-object help init instaweb interpret-trailers log ls-files ls-remote ls-tree maintenance " +
    "merge merge-base merge-file merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes " +
    "pack-objects pack-refs prune prune-packed pull push range-diff read-tree rebase reflog remote " +
    "repack replace request-pull rerere reset restore rev-list rev-parse revert rm send-email " +
    "shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace " +
    "submodule switch symbolic-ref tag unpack-file unpack-objects update-index update-ref " +
    "update-server-info var verify-commit verify-pack verify-tag version whatchanged web--browse " +
    "worktree write-tree lfs flow"
  ).split(" ")
)

// Options of git's commands that run the program they name, as parse-options reads them: an
// unambiguous prefix counts (`git ls-remote --upload-p=cmd`, `git rebase --exe cmd`).
const RUNS_PROGRAM: ReadonlyArray<string> = ["--upload-pack", "--receive-pack", "--exec", "--extcmd"]
const FILTER_BRANCH_COMMANDS: ReadonlyArray<string> = [
  "--env-filter",
  "--tree-filter",
  "--index-filter",
  "--parent-filter",
  "--msg-filter",
  "--commit-filter",
  "--tag-name-filter"
]
const SEND_EMAIL_COMMANDS: ReadonlyArray<readonly [string, number]> = [
  ["--to-cmd", 7],
  ["--cc-cmd", 7],
  ["--header-cmd", 5],
  ["--sendmail-cmd", 7]
]
const runsProgram = (a: string): boolean => {
  if (!a.startsWith("--")) return false
  const option = a.split("=", 1)[0]!
  return option.length >= 5 && RUNS_PROGRAM.some((full) => full.startsWith(option))
}

const GIT_APPLY_READS: ReadonlySet<string> = new Set(["--check", "--stat", "--numstat", "--summary"])

const git = (name: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const args = values(words)
  let i = 0
  // Global options before the subcommand.
  while (i < args.length && args[i]!.startsWith("-")) {
    const a = args[i]!
    if (a === "-c") {
      // A setting only known at run time may be any, core.pager=… included.
      if (words[i + 2]?.isStatic === false)
        opaque(sink, `${name} -c sets configuration only known at run time, which can run programs`)
      configRisk(name, args[i + 1] ?? "", sink, "-c")
      i += 2
      continue
    }
    if (a.startsWith("--config-env")) {
      opaque(sink, `${name} --config-env sets configuration from the environment, which can run programs`)
      i += a.includes("=") ? 1 : 2
      continue
    }
    if (a === "--exec-path" || a.startsWith("--exec-path=")) {
      opaque(sink, `${name} --exec-path runs git programs from another directory`)
    }
    // A repository named here, not found from where git runs, is one the edit rules never
    // judged: its configuration (core.fsmonitor, core.pager, diff.external) may run programs,
    // as with GIT_DIR. `--bare` makes the working directory itself that repository.
    const repository = /^--(git-dir|work-tree|bare)(?==|$)/.exec(a)
    if (repository?.[1] === "bare")
      // The working directory is the repository: its `config` is a file of the project (or
      // of a folder outside it) that no rule reads as configuring git.
      opaque(
        sink,
        `${name} --bare uses the working directory as a repository, whose configuration can run programs`
      )
    else if (repository)
      sink.note(
        "executes",
        `${name} --${repository[1]} uses a repository whose configuration can run programs`
      )
    if (
      a === "-C" ||
      a === "--git-dir" ||
      a === "--work-tree" ||
      a === "--namespace" ||
      a === "--super-prefix"
    ) {
      i += 2
      continue
    }
    i++
  }
  const sub = args[i]
  const rest = args.slice(i + 1)
  if (sub !== undefined && !GIT_COMMANDS.has(sub) && words[i + 1]?.isStatic !== false) {
    // Not a command of git's own: an alias from a configuration file this analysis does not
    // read, or `git-<name>` somewhere on PATH.
    opaque(
      sink,
      `${name} ${sub} is not a git command: it runs an alias from configuration or a git-${sub} program`
    )
  }
  if (sub === "lfs" && (rest[0] === "install" || rest[0] === "update")) {
    sink.note("executes", `${name} lfs install installs git hooks and writes the global configuration`)
    sink.path(".git/hooks/pre-push", "write")
  }
  // Objects that a later checkout turns into files, links to `.git` or `/` among them
  // (`git fast-import`, `mktree`, `hash-object -w`): what they hold is not followed.
  if (
    sub === "fast-import" ||
    sub === "mktree" ||
    sub === "mktag" ||
    (sub === "hash-object" && rest.some((a) => a === "-w" || /^-[a-z]*w/.test(a)))
  )
    sink.note("unmodelled", `${name} ${sub} writes objects a later checkout turns into files or links`)
  // `git submodule add REPO [PATH]` clones into PATH (the repository's name without it).
  if (sub === "submodule" && rest[0] === "add") {
    const operands = rest.slice(1).filter((a) => !a.startsWith("-"))
    const path =
      operands[1] ??
      operands[0]
        ?.replace(/\/+$/, "")
        .replace(/\.git$/, "")
        .split("/")
        .pop()
    if (path) sink.path(path, "write")
  }
  // `git maintenance start|register` writes the global configuration and schedules git to
  // run later (cron, systemd, launchd): outside what any rule judged.
  if (sub === "maintenance" && rest.some((a) => a === "start" || a === "register"))
    opaque(
      sink,
      `${name} maintenance ${rest[0] ?? ""} schedules git runs and writes the global configuration`
    )
  rest.forEach((a, index) => {
    if (a.startsWith("ext::")) {
      sink.note("executes", `${name} ext:: transport runs a program`)
      sink.text(extCommand(a.slice(5)), "bash", `${name} ext::`)
    }
    if (a === "--ext-diff")
      opaque(sink, `${name} ${sub} --ext-diff runs the configured external diff program`)
    // grep and cat-file take any unambiguous prefix (`--textc`); cat-file's --filters runs the
    // configured smudge filters.
    if (a === "--textconv" || (a.length >= 7 && "--textconv".startsWith(a)))
      opaque(sink, `${name} ${sub} --textconv runs configured conversion programs`)
    if (sub === "cat-file" && a.length >= 4 && "--filters".startsWith(a))
      opaque(sink, `${name} cat-file --filters runs configured filter programs`)
    if (a === "--output" || a.startsWith("--output="))
      sink.note("writes", `${name} ${sub} --output writes a file`)
    if (runsProgram(a) || (sub === "clone" && a === "-u")) {
      sink.note("executes", `${name} ${sub} ${a.split("=")[0]} runs a program`)
      const command = optionValue(rest, index)
      if (command) sink.text(command, "bash", `${name} ${sub} ${a.split("=")[0]}`)
    }
  })
  switch (sub) {
    case "apply":
      // Only --check and the summaries leave the files alone (unless --apply comes too).
      if (rest.includes("--apply") || !rest.some((a) => GIT_APPLY_READS.has(a)))
        unseenWrites(sink, `${name} apply writes the files its patch names`)
      return
    case "am":
      unseenWrites(sink, `${name} am writes the files its patches name, and commits them`)
      return
    case "clone":
      // `-c key=value` is written into the new repository's configuration, which the commands
      // after it (and the checkout) read.
      rest.forEach((a, index) => {
        const value =
          a === "-c" || a === "--config" ? rest[index + 1] : /^--config=/.test(a) ? a.slice(9) : undefined
        if (value === undefined) return
        // args[k] is words[k + 1].
        if (words[i + 2 + index + (a.includes("=") ? 0 : 1)]?.isStatic === false)
          opaque(sink, `${name} clone -c sets configuration only known at run time, which can run programs`)
        configRisk(name, value, sink, "clone -c")
      })
      return
    case "push":
      if (
        rest.some(
          (a) =>
            /^-[a-zA-Z]*f/.test(a) ||
            /^--(force|force-with-lease|force-if-includes|mirror|delete|prune)/.test(a) ||
            /^\+/.test(a) ||
            // `:branch` pushes nothing onto it: the remote branch is deleted.
            /^:./.test(a) ||
            a === "-d"
        )
      ) {
        sink.note("destructive", `${name} push rewrites or deletes remote history`)
      }
      return
    case "reset":
      if (rest.includes("--hard") || rest.includes("--merge") || rest.includes("--keep")) {
        sink.note("destructive", `${name} reset --hard discards changes`)
      }
      return
    case "clean":
      if (rest.some((a) => /^-[a-zA-Z]*f/.test(a) || a === "--force")) {
        sink.note("destructive", `${name} clean -f deletes untracked files`)
      }
      return
    case "branch":
      if (
        rest.some((a) => /^-[a-zA-Z]*D/.test(a)) ||
        (rest.includes("--delete") && rest.includes("--force"))
      ) {
        sink.note("destructive", `${name} branch -D deletes unmerged branches`)
      }
      return
    case "checkout":
    case "switch":
      if (
        rest.some((a) => a === "-f" || a === "--force" || a === "--discard-changes") ||
        (sub === "checkout" && (rest[0] === "--" || rest[0] === "."))
      ) {
        sink.note("destructive", `${name} ${sub} discards local changes`)
      }
      return
    case "restore":
      if (!rest.includes("--staged") || rest.includes("--worktree")) {
        sink.note("destructive", `${name} restore discards local changes`)
      }
      return
    case "stash":
      if (rest[0] === "drop" || rest[0] === "clear")
        sink.note("destructive", `${name} stash ${rest[0]} deletes stashed changes`)
      return
    case "filter-branch":
      // Each filter is a shell command run for every commit (or ref): judged as one.
      rest.forEach((a, index) => {
        const filter = FILTER_BRANCH_COMMANDS.find((option) => a === option || a.startsWith(`${option}=`))
        if (filter === undefined) return
        const command = optionValue(rest, index)
        if (command) sink.text(command, "bash", `${name} filter-branch ${filter}`)
      })
      opaque(sink, `${name} ${sub} runs filter commands`)
      sink.note("destructive", `${name} ${sub} rewrites history`)
      return
    case "filter-repo":
      opaque(sink, `${name} ${sub} runs filter commands`)
      sink.note("destructive", `${name} ${sub} rewrites history`)
      return
    case "send-email":
      // The -cmd options run a shell command line per patch; an --smtp-server that is an
      // absolute path is a sendmail-like program. Getopt::Long takes unambiguous prefixes.
      rest.forEach((a, index) => {
        const option = a.split("=", 1)[0]!
        const cmd = SEND_EMAIL_COMMANDS.find(
          ([full, minimum]) => option.length >= minimum && full.startsWith(option)
        )
        const server = option === "--smtp-server" ? optionValue(rest, index) : undefined
        if (cmd === undefined && !server?.startsWith("/")) return
        const command = optionValue(rest, index)
        sink.note("executes", `${name} send-email ${cmd?.[0] ?? option} runs a program`)
        if (command) sink.text(command, "bash", `${name} send-email ${cmd?.[0] ?? option}`)
      })
      return
    case "rebase":
      rest.forEach((a, index) => {
        if (a === "-x" || a === "--exec" || a.startsWith("--exec=")) {
          sink.note("executes", `${name} rebase --exec runs a command for each commit`)
          const command = optionValue(rest, index)
          if (command) sink.text(command, "bash", `${name} rebase --exec`)
        }
      })
      return
    case "bisect":
      if (rest[0] === "run") {
        sink.note("executes", `${name} bisect run runs a command`)
        if (rest.length > 1) sink.text(rest.slice(1).join(" "), "bash", `${name} bisect run`)
      }
      return
    case "submodule":
      if (rest.includes("foreach")) {
        sink.note("executes", `${name} submodule foreach runs a command in every submodule`)
        const after = rest
          .slice(rest.indexOf("foreach") + 1)
          .filter((a) => a !== "--recursive" && a !== "-q" && a !== "--quiet")
        if (after.length > 0) sink.text(after.join(" "), "bash", `${name} submodule foreach`)
      }
      return
    case "difftool":
      // `-x CMD` (`--extcmd`) is the diff program: run on every changed file.
      rest.forEach((a, index) => {
        if (a !== "-x") return
        const command = rest[index + 1]
        if (command) sink.text(command, "bash", `${name} difftool -x`)
      })
      opaque(sink, `${name} ${sub} runs a configured program`)
      return
    case "checkout-index":
    case "unpack-file":
    case "read-tree":
      // They write files named by the index or an object (checkout-index --prefix/--temp,
      // unpack-file's temporary file), or fill the index a later checkout writes out.
      unseenWrites(sink, `${name} ${sub} writes files whose names and contents come from git objects`)
      return
    case "update-index":
      // An entry made from a blob (a symlink to .env, a hook) is written by the next checkout.
      if (rest.some((a) => a === "--index-info" || (a.length >= 5 && "--cacheinfo".startsWith(a))))
        unseenWrites(
          sink,
          `${name} update-index --cacheinfo/--index-info puts objects in the index a checkout writes`
        )
      return
    case "pack-objects":
      if (!rest.includes("--stdout"))
        unseenWrites(sink, `${name} pack-objects writes BASE-<hash>.pack and .idx`)
      return
    case "fast-import":
      // Marks files named in its input, or under .git/info/fast-import.
      if (rest.some((a) => a === "--allow-unsafe-features" || a === "--relative-marks"))
        unseenWrites(sink, `${name} fast-import reads and writes marks files its input or .git names`)
      return
    case "mergetool":
    case "instaweb":
    case "web--browse":
      opaque(sink, `${name} ${sub} runs a configured program`)
      return
    case "grep":
      // Untracked and unindexed searches read files outside the index, hidden ones included.
      if (rest.some((a) => a === "--untracked" || a === "--no-index" || a === "--no-exclude-standard"))
        sink.note(
          "unmodelled",
          `${name} grep ${rest.find((a) => /^--(untracked|no-index|no-exclude-standard)$/.test(a))}: reads files the read rules cannot see here`
        )
      for (const a of rest) {
        // parse-options takes `--op=` for --open-files-in-pager and -O inside a cluster (-iO…).
        const long = /^(--op[a-z-]*)(?:=(.*))?$/s.exec(a)
        const pager =
          long !== null && "--open-files-in-pager".startsWith(long[1]!)
            ? [a, long[2] ?? ""]
            : /^-[a-zA-Z0-9]*O(.*)$/s.exec(a)
        if (!pager) continue
        if (pager[1]) {
          sink.note("executes", `${name} grep -O runs a pager`)
          sink.text(pager[1], "bash", `${name} grep -O`)
        } else opaque(sink, `${name} grep -O runs the configured pager`)
      }
      return
    case "config": {
      const positional: Array<string> = []
      for (let k = 0; k < rest.length; k++) {
        const a = rest[k]!
        if (/^(-f|--file|--blob|--type|--default|--comment)$/.test(a)) k++
        else if (!a.startsWith("-")) positional.push(a)
      }
      if (positional.length >= 2) configRisk(name, `${positional[0]}=${positional[1]}`, sink, "config")
      return
    }
    default:
      return
  }
}

/** The risk of setting a git configuration `key=value` (its command lines are judged). */
export const gitConfig = (name: string, assignment: string, sink: Sink, how: string): void =>
  configRisk(name, assignment, sink, how)

/**
 * The `key=value` settings of GIT_CONFIG_PARAMETERS as git reads them: entries apart by
 * spaces, each `'key'='value'`, `'key'` or (the older form) `'key=value'`, every part
 * single-quoted, a quote written `'\''`. `undefined` when it is not that form.
 */
export const gitConfigParameters = (text: string): Array<string> | undefined => {
  const settings: Array<string> = []
  let at = 0
  // One single-quoted string, with `\'` and `\!` between quoted parts (sq_dequote).
  const quoted = (): string | undefined => {
    if (text[at] !== "'") return undefined
    let out = ""
    for (;;) {
      const end = text.indexOf("'", at + 1)
      if (end === -1) return undefined
      out += text.slice(at + 1, end)
      at = end + 1
      if (text[at] !== "\\") return out
      if ((text[at + 1] !== "'" && text[at + 1] !== "!") || text[at + 2] !== "'") return undefined
      out += text[at + 1]
      at += 2
    }
  }
  for (;;) {
    while (/\s/.test(text[at] ?? "")) at++
    if (at >= text.length) return settings
    const key = quoted()
    if (key === undefined) return undefined
    if (text[at] === "=") {
      at++
      const value = quoted()
      // A key with `=` (in a subsection) would be split there when judged.
      if (value === undefined || key.includes("=")) return undefined
      settings.push(`${key}=${value}`)
    } else settings.push(key)
    if (at < text.length && !/\s/.test(text[at]!)) return undefined
  }
}

const configRisk = (name: string, assignment: string, sink: Sink, how: string): void => {
  const eq = assignment.indexOf("=")
  const key = eq === -1 ? assignment : assignment.slice(0, eq)
  const value = eq === -1 ? "" : assignment.slice(eq + 1)
  if (GIT_FILE_KEYS.test(key) && value !== "") sink.path(value, "read")
  const executing = GIT_EXECUTING_KEYS.test(key)
  if (how === "-c" || executing) sink.note("executes", `${name} ${how} ${key} can make git run programs`)
  if (!executing) return
  if (/^alias\./i.test(key)) {
    // `!cmd` is a shell command line; any other value is a git command line run under the
    // alias's name (`-c alias.p=push p -f` pushes): both are judged.
    if (value.startsWith("!")) sink.text(value.slice(1), "bash", `the git alias ${key.slice(6)}`)
    else if (value.trim() !== "") sink.text(`git ${value}`, "bash", `the git alias ${key.slice(6)}`)
    return
  }
  if (/^submodule\..*\.update$/i.test(key)) {
    // `!cmd` runs on `git submodule update`; checkout, rebase, merge and none run nothing.
    if (value.startsWith("!")) sink.text(value.slice(1), "bash", `${name} ${key}`)
    return
  }
  if (
    /(pager|editor|sshcommand|command|cmd|textconv|external|fsmonitor|askpass|program|clean|smudge|process|driver|proxy)$/i.test(
      key
    ) &&
    value
  ) {
    sink.text(value, "bash", `${name} ${key}`)
  } else {
    opaque(sink, `${name} ${how} ${key} points git at other code`)
  }
}
