// Options whose value is a file the program reads or writes or a program it runs, and
// operands that name a shell variable, for programs whose other arguments are plain data:
// `date -f .env` prints every line of .env in its errors, `sort --compress-program=sh`
// runs sh, `printf -v 'a[$(cmd)]' x` runs cmd (bash evaluates the subscript).
import * as NodePath from "node:path"
import type { Word } from "./model.ts"
import { PLAIN_PROGRAMS } from "./plainPrograms.ts"
import { isGadgetVariable, isPython } from "./programs.ts"
import type { Sink } from "./risks.ts"

type Access = "read" | "write" | "runs" | "clock"

interface Spec {
  /** Long options by full name; an unambiguous prefix of at least `minimum` characters counts (getopt_long). */
  readonly long: ReadonlyArray<readonly [name: string, access: Access, minimum: number]>
  /** Short options that take a value (glued or the next word). */
  readonly short: Readonly<Record<string, Access>>
}

// gpg reads a long option by any unambiguous prefix.
const GPG: Spec = {
  long: [
    ["--output", "write", 4],
    ["--log-file", "write", 7],
    ["--logger-file", "write", 9],
    ["--status-file", "write", 10],
    ["--attribute-file", "write", 13],
    // Its keyrings and trust database are made there (and read: an agent there may run).
    ["--homedir", "write", 5]
  ],
  short: { o: "write" }
}

const SPECS: ReadonlyMap<string, Spec> = new Map<string, Spec>([
  [
    "date",
    {
      long: [
        ["--file", "read", 3],
        ["--set", "clock", 3]
      ],
      short: { f: "read", s: "clock" }
    }
  ],
  ["wc", { long: [["--files0-from", "read", 3]], short: {} }],
  [
    "du",
    {
      long: [
        ["--files0-from", "read", 3],
        ["--exclude-from", "read", 10]
      ],
      short: { X: "read" }
    }
  ],
  [
    "sort",
    {
      long: [
        ["--files0-from", "read", 3],
        ["--random-source", "read", 3],
        ["--compress-program", "runs", 4],
        ["--temporary-directory", "write", 3]
      ],
      short: { T: "write" }
    }
  ],
  [
    "diff",
    {
      long: [
        ["--from-file", "read", 4],
        ["--to-file", "read", 4],
        ["--exclude-from", "read", 10]
      ],
      short: { X: "read" }
    }
  ],
  [
    "file",
    {
      long: [
        ["--files-from", "read", 4],
        ["--magic-file", "read", 3]
      ],
      short: { f: "read", m: "read" }
    }
  ],
  [
    "jq",
    {
      long: [
        ["--from-file", "read", 4],
        ["--library-path", "read", 3]
      ],
      short: { L: "read" }
    }
  ],
  [
    "tree",
    {
      long: [["--fromfile", "read", 10]],
      short: { o: "write" }
    }
  ],
  ["gpg", GPG],
  ["gpg2", GPG],
  // The directory it compiles terminal descriptions into.
  ["tic", { long: [], short: { o: "write" } }],
  ["od", { long: [], short: {} }],
  ["hexdump", { long: [], short: { f: "read" } }]
])

// Long options whose name says they name a file or a program, on programs known safe with
// any arguments: one this table does not know is not understood, so it asks.
const SUSPECT_LONG = /file|from|prog|command|exec|load|include|script|pager|editor|shell|plugin|module|hook/
const BENIGN_LONG: ReadonlySet<string> = new Set([
  "--file-type",
  "--dereference-command-line",
  "--dereference-command-line-symlink-to-dir",
  "--one-file-system",
  "--files-with-matches",
  "--files-without-match",
  "--file-system",
  "--new-file",
  "--unidirectional-new-file",
  "--ignore-file-name-case",
  "--no-ignore-file-name-case",
  "--filelimit",
  "--filesfirst"
])
// Programs whose options are plain flags or data (grep, find, sed, awk and git have a model
// of their own, read elsewhere).
const PLAIN: ReadonlySet<string> = new Set(PLAIN_PROGRAMS)

const opaque = (sink: Sink, message: string): void => {
  sink.note("executes", message)
  sink.note("unmodelled", `${message}: what it runs is not visible here`)
}

const optionFile = (
  sink: Sink,
  name: string,
  option: string,
  access: Access,
  value: Word | string | undefined
) => {
  if (access === "runs") {
    opaque(sink, `${name} ${option} runs the program it names`)
    return
  }
  if (access === "clock") {
    sink.note("destructive", `${name} ${option} sets the system clock`)
    return
  }
  if (value === undefined) return
  const text = typeof value === "string" ? value : value.isStatic ? value.value : undefined
  if (text === undefined) {
    sink.note("unmodelled", `${name} ${option} names a file only known at run time`)
    return
  }
  if (access === "write") sink.note("writes", `${name} ${option} writes under \`${text}\``)
  sink.path(text, access)
}

/** Options of `key` (programs with plain-data arguments) that name files or programs. */
export const check = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  if (NAME_OPERANDS.has(key)) {
    nameOperands(key, words, sink)
    return
  }
  if (key === "enable" && words.some((w) => /^-[a-zA-Z]*f/.test(w.value))) {
    opaque(sink, `${words[0]!.value} -f loads a builtin from a shared object`)
    return
  }
  if (key === "less" || key === "more") {
    pager(words, sink)
    return
  }
  if (key === "psql" || key === "mysql" || key === "mariadb") {
    sqlCommands(key, words, sink)
    return
  }
  if (key === "curl" || key === "wget" || key === "http" || key === "https" || key === "httpie") {
    sends(key, words, sink)
    return
  }
  const spec = SPECS.get(key)
  const plain = PLAIN.has(key)
  if (spec === undefined && !plain) return
  const name = words[0]!.value
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic || !text.startsWith("-") || text === "-") continue
    if (text === "--") break
    if (text.startsWith("--")) {
      const eq = text.indexOf("=")
      const option = eq === -1 ? text : text.slice(0, eq)
      const found = spec?.long.find(
        ([full, , minimum]) => option.length >= minimum && full.startsWith(option)
      )
      if (found !== undefined) {
        const value = eq === -1 ? words[++i] : text.slice(eq + 1)
        optionFile(sink, name, found[0], found[1], value)
        continue
      }
      if (plain && SUSPECT_LONG.test(option) && !BENIGN_LONG.has(option))
        sink.note(
          "unmodelled",
          `${name} ${option}: an option that may name a file it reads or a program it runs, not modelled here`
        )
      continue
    }
    if (spec === undefined) continue
    // A cluster of short options: the first that takes a value takes the rest of the word.
    for (let j = 1; j < text.length; j++) {
      const access = spec.short[text[j]!]
      if (access === undefined) continue
      const rest = text.slice(j + 1)
      optionFile(sink, name, `-${text[j]}`, access, rest !== "" ? rest : words[++i])
      break
    }
  }
}

// Builtins that assign to the variable an operand names: bash evaluates a subscript in the
// name as arithmetic (running the substitutions it holds), and a name such as PATH or
// BASH_ENV changes what later commands run.
const NAME_OPERANDS: ReadonlySet<string> = new Set([
  "printf",
  "test",
  "[",
  "read",
  "mapfile",
  "readarray",
  "unset",
  "getopts",
  "wait",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly"
])
// Their options that take a value, and which of them is a variable's name.
const NAME_OPTIONS: Readonly<Record<string, { readonly values: string; readonly name: string }>> = {
  printf: { values: "v", name: "v" },
  test: { values: "vR", name: "vR" },
  "[": { values: "vR", name: "vR" },
  read: { values: "adinNptu", name: "a" },
  mapfile: { values: "dnOsuCc", name: "" },
  readarray: { values: "dnOsuCc", name: "" },
  unset: { values: "", name: "" },
  getopts: { values: "", name: "" },
  wait: { values: "p", name: "p" },
  declare: { values: "", name: "" },
  typeset: { values: "", name: "" },
  local: { values: "", name: "" },
  export: { values: "", name: "" },
  readonly: { values: "", name: "" }
}
const SPECIAL_NAMES: ReadonlySet<string> = new Set([
  "PATH",
  "IFS",
  "BASH_ENV",
  "ENV",
  "PS4",
  "PS1",
  "PROMPT_COMMAND",
  "CDPATH",
  "GLOBIGNORE",
  "SHELLOPTS",
  "BASHOPTS",
  "HOME",
  "BASH_XTRACEFD",
  "HISTFILE",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "BASH_LOADABLES_PATH",
  "FUNCNEST",
  "TMPDIR"
])

const staticName = (word: Word, value: string): Word => ({ ...word, value, raw: value, isStatic: true })

const checkName = (sink: Sink, command: string, word: Word | undefined, unknown = false): void => {
  if (unknown || (word !== undefined && !word.isStatic)) {
    sink.note("unmodelled", `${command} assigns to a variable whose name is only known at run time`)
    return
  }
  if (word === undefined) return
  const text = word.value
  const bracket = text.indexOf("[")
  const base = bracket === -1 ? text : text.slice(0, bracket)
  if (bracket !== -1 && !/^\[(\d+|@|\*)\]$/.test(text.slice(bracket)))
    sink.note(
      "unmodelled",
      `${command} assigns to \`${text}\`: bash evaluates its subscript as arithmetic, running what it holds`
    )
  if (SPECIAL_NAMES.has(base) || isGadgetVariable(base))
    sink.note("unmodelled", `${command} sets ${base}, which changes what later commands run or read`)
}

const DECLARATIONS: ReadonlySet<string> = new Set(["declare", "typeset", "local", "export", "readonly"])

const nameOperands = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const name = words[0]!.value
  if (DECLARATIONS.has(key)) {
    // `NAME=value` or `NAME` (the walker hands plain names over as words that are not static).
    // With -n the value is a name too: every use of the reference evaluates it.
    let reference = false
    for (let i = 1; i < words.length; i++) {
      const w = words[i]!
      const text = w.isStatic ? w.value : w.raw
      if (text.startsWith("-") || text.startsWith("+")) {
        if (/^-[a-zA-Z]*n/.test(text)) reference = true
        continue
      }
      const eq = text.indexOf("=")
      const target = eq === -1 ? text : text.slice(0, eq)
      if (reference) {
        const value = eq === -1 ? undefined : text.slice(eq + 1).replace(/^(['"])(.*)\1$/, "$2")
        if (value === undefined || !/^[A-Za-z_][A-Za-z0-9_]*(\[\d+\])?$/.test(value))
          sink.note(
            "unmodelled",
            `${name} -n ${target}: a reference whose target is not a plain name known here`
          )
        else checkName(sink, name, staticName(w, value))
      }
      if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(target)) checkName(sink, name, staticName(w, target))
      else if (target.includes("[")) checkName(sink, name, staticName(w, target))
      else if (/[$`]/.test(target)) checkName(sink, name, undefined, true)
    }
    return
  }
  const options = NAME_OPTIONS[key]!
  const operands: Array<Word> = []
  let i = 1
  for (; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (key === "test" || key === "[") {
      // `test -v NAME` / `[ -R NAME ]` anywhere in the expression.
      if (text === "-v" || text === "-R") checkName(sink, name, words[i + 1])
      continue
    }
    if (!word.isStatic) {
      if (operands.length === 0 && key !== "printf")
        sink.note("unmodelled", `${name} has an option or name only known at run time`)
      operands.push(word)
      continue
    }
    if (text === "--") {
      i++
      break
    }
    if (!text.startsWith("-") || text === "-" || operands.length > 0) break
    for (let j = 1; j < text.length; j++) {
      const letter = text[j]!
      if (!options.values.includes(letter)) continue
      const rest = text.slice(j + 1)
      const value = rest !== "" ? { ...word, value: rest, raw: rest } : words[++i]
      if (options.name.includes(letter)) checkName(sink, name, value)
      if ((key === "mapfile" || key === "readarray") && letter === "C") {
        if (value === undefined || !value.isStatic)
          sink.note("unmodelled", `${name} -C runs a callback only known at run time`)
        else {
          sink.note("executes", `${name} -C runs \`${value.value}\` for every few lines read`)
          sink.text(`${value.value} 0 x`, "bash", `${name} -C`)
        }
      }
      break
    }
  }
  if (key === "test" || key === "[" || key === "printf") return
  const rest = [...operands, ...words.slice(i)]
  switch (key) {
    case "read":
    case "unset":
      for (const w of rest) checkName(sink, name, w)
      return
    case "mapfile":
    case "readarray":
    case "getopts":
      checkName(sink, name, key === "getopts" ? rest[1] : rest[0])
      return
    default:
      return
  }
}

// What network clients send or load from files: curl's `-d @file`, `-F f=@file`/`f=<file`,
// `-H @file`, `--data-urlencode n@file`, file:// URLs; wget's --post-file, --input-file,
// --config and -e (a wgetrc command that may set any of them); httpie's `f=@file`,
// `f:=@file`, `f@file` and `@file` items. The file is a read, judged by the read rules.
const CURL_AT: ReadonlyArray<string> = [
  "--data",
  "--data-binary",
  "--data-ascii",
  "--json",
  "--header",
  "--proxy-header",
  "--write-out"
]
// curl's short options that take a value.
const CURL_VALUED = "AbcCdDeEFHKmoPQrTtuUwxXyYz"
const CURL_NAMED_AT: ReadonlyArray<string> = ["--data-urlencode", "--variable", "--url-query"]
const WGET_READS: ReadonlyArray<readonly [string, number]> = [
  ["--post-file", 6],
  ["--body-file", 4],
  ["--input-file", 3],
  ["--config", 4],
  ["--certificate", 4],
  ["--private-key", 4],
  ["--ca-certificate", 4]
]

// curl -K/--config: a file of options can name what it uploads, writes and runs.
const curlConfig = (sink: Sink, name: string, file: string): void => {
  sink.note(
    "unmodelled",
    `${name} -K reads its options from \`${file}\`: what it sends or writes is not visible`
  )
  readFile(sink, name, "-K", file)
}

const readFile = (sink: Sink, _name: string, _how: string, file: string): void => {
  if (file === "-" || file === "") return
  sink.path(file, "read")
}

const fileUrl = (sink: Sink, name: string, url: string): void => {
  if (!/^file:/i.test(url)) return
  const path = url.replace(/^file:(\/\/(localhost)?)?/i, "")
  if (/[%{}[\]]/.test(path) || !path.startsWith("/"))
    sink.note("unmodelled", `${name} reads the file URL \`${url}\`, whose path is not plain here`)
  else readFile(sink, name, "file://", path)
}

const sends = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const name = words[0]!.value
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.isStatic) {
      if (/^file:|@|</i.test(word.raw))
        sink.note("unmodelled", `${name}: an argument only known at run time may name a file it sends`)
      continue
    }
    const text = word.value
    if (key === "curl") {
      const eq = text.startsWith("--") ? text.indexOf("=") : -1
      const option = eq === -1 ? text : text.slice(0, eq)
      const value = (): string | undefined => (eq !== -1 ? text.slice(eq + 1) : words[++i]?.value)
      if (/^-[a-zA-Z]/.test(text)) {
        // A cluster of short options: the first that takes a value takes the rest of the word.
        for (let j = 1; j < text.length; j++) {
          const letter = text[j]!
          if (!CURL_VALUED.includes(letter)) continue
          const v = j + 1 < text.length ? text.slice(j + 1) : words[++i]?.value
          if (v === undefined) break
          if (letter === "K") curlConfig(sink, name, v)
          else if (letter === "F") form(sink, name, v)
          else if ((letter === "d" || letter === "H" || letter === "w") && v.startsWith("@"))
            readFile(sink, name, `-${letter}`, v.slice(1))
          break
        }
        continue
      }
      if (option.startsWith("--")) {
        const full = (list: ReadonlyArray<string>) =>
          list.find((o) => option.length >= 5 && o.startsWith(option))
        if (option === "--form" || (option.length >= 5 && "--form".startsWith(option) && option !== "--fo")) {
          const v = value()
          if (v !== undefined) form(sink, name, v)
          continue
        }
        const at = full(CURL_AT)
        if (at !== undefined) {
          const v = value()
          if (v?.startsWith("@")) readFile(sink, name, at, v.slice(1))
          continue
        }
        const named = full(CURL_NAMED_AT)
        if (named !== undefined) {
          const v = value()
          const a = v?.indexOf("@") ?? -1
          if (v !== undefined && a !== -1 && !v.slice(0, a).includes("="))
            readFile(sink, name, named, v.slice(a + 1))
          continue
        }
        if (option === "--config") {
          const v = value()
          if (v !== undefined) curlConfig(sink, name, v)
          continue
        }
        if (option === "--engine") {
          opaque(sink, `${name} --engine loads a crypto engine library`)
          continue
        }
        if (option === "--url") {
          const v = value()
          if (v !== undefined) fileUrl(sink, name, v)
          continue
        }
        continue
      }
      if (!text.startsWith("-")) fileUrl(sink, name, text)
      continue
    }
    if (key === "wget") {
      if (text === "-e" || text.startsWith("--execute") || /^-e./.test(text)) {
        sink.note("unmodelled", `${name} ${text}: a wgetrc command may make it send, load or write any file`)
        if (text === "-e" || text === "--execute") i++
        continue
      }
      if (text === "-i" || /^-i./.test(text)) {
        const v = text === "-i" ? words[++i]?.value : text.slice(2)
        if (v !== undefined) readFile(sink, name, "-i", v)
        continue
      }
      if (text.startsWith("--")) {
        const eq = text.indexOf("=")
        const option = eq === -1 ? text : text.slice(0, eq)
        if (option.length >= 7 && "--use-askpass".startsWith(option)) {
          // wget runs the program it names to ask for a password.
          const v = eq !== -1 ? text.slice(eq + 1) : words[++i]?.value
          opaque(sink, `${name} --use-askpass runs the program it names`)
          if (v) sink.text(v, "bash", `${name} --use-askpass`)
          continue
        }
        const found = WGET_READS.find(
          ([full, minimum]) => option.length >= minimum && full.startsWith(option)
        )
        if (found === undefined) continue
        const v = eq !== -1 ? text.slice(eq + 1) : words[++i]?.value
        if (v !== undefined) readFile(sink, name, found[0], v)
      }
      continue
    }
    // httpie: request items after the method and URL.
    if (text.startsWith("-")) continue
    const item = /^[^=:@]*(=@|:=@|@)(.+)$/.exec(text)
    if (item !== null && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) readFile(sink, name, `${item[1]}`, item[2]!)
  }
}

// curl -F: `name=@file;type=…`, `name=<file` (the file's content), several files by commas.
const form = (sink: Sink, name: string, value: string): void => {
  const eq = value.indexOf("=")
  if (eq === -1) return
  const content = value.slice(eq + 1)
  if (!content.startsWith("@") && !content.startsWith("<")) return
  for (const part of content.split(",")) {
    const file = part
      .replace(/^[@<]/, "")
      .split(";")[0]!
      .replace(/^"(.*)"$/, "$1")
    readFile(sink, name, "-F", file)
  }
}

// Programs that read their program from their input when no program is given: fed text from
// the command line (`python3 <<< 'code'`, `echo code | node`), they run code the gate
// cannot see, like `python3 -c code`. Their options that take a value, so it is not
// mistaken for the script.
const RUNS_INPUT: ReadonlyMap<string, string> = new Map([
  ["node", "-r --require --import --loader --experimental-loader --input-type -C --conditions"],
  ["nodejs", "-r --require --import"],
  ["bun", ""],
  ["perl", "-I -M -m -x"],
  ["ruby", "-I -r -C -E -F"],
  ["php", "-c -d -z"],
  ["lua", "-l"],
  ["luajit", "-l -j"],
  ["tclsh", ""],
  ["wish", ""],
  ["expect", ""],
  ["r", ""],
  ["rscript", ""],
  ["osascript", "-l"],
  ["groovy", ""],
  ["scala", ""],
  ["jshell", ""],
  ["irb", ""],
  ["ghci", ""],
  ["julia", ""],
  ["powershell", ""],
  ["pwsh", ""]
])
// Programs whose input is commands whatever their operands: editors' `!cmd`, SQL shells'
// `.shell`/`\!`, m4's syscmd, dc's `!`.
const COMMANDS_FROM_INPUT: ReadonlySet<string> = new Set([
  "ed",
  "red",
  "ex",
  "sqlite3",
  "psql",
  "mysql",
  "mariadb",
  "m4",
  "dc",
  "gdb",
  "ftp",
  "sftp",
  "telnet"
])
/**
 * A path that names an open descriptor (`/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`,
 * `/proc/<pid>/fd/N`): read as a script, it is code the gate cannot see, whatever feeds it.
 */
export const isDescriptorPath = (path: string): boolean =>
  path.startsWith("/") &&
  /^\/(dev\/(stdin|fd\/\d+)|proc\/(self|thread-self|\d+)\/(fd\/\d+|task\/\d+\/fd\/\d+))$/.test(
    NodePath.posix.normalize(path)
  )

// `-` reads the input; a descriptor path may be any descriptor.
const readsInput = (value: string | undefined, fed: boolean): boolean =>
  value !== undefined && ((fed && value === "-") || isDescriptorPath(value))

const PROGRAM_FILES: ReadonlySet<string> = new Set([
  "make",
  "gmake",
  "bmake",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "busybox-awk",
  "sed",
  "gsed",
  "vim",
  "vi",
  "nvim",
  "view",
  "ex",
  "gdb",
  "dc",
  "psql"
])

// vim, vi and nvim in ex mode (-e, -E, -es, a cluster such as -Nes) read ex commands from
// their input, `!cmd` included, as ex does.
const VIMS: ReadonlySet<string> = new Set([
  "vim",
  "vi",
  "nvim",
  "view",
  "vimdiff",
  "gvim",
  "rvim",
  "vim.basic",
  "vim.tiny"
])
const exMode = (words: ReadonlyArray<Word>): boolean => {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!
    if (w.value === "--") return false
    if (!w.isStatic && w.raw.startsWith("-")) return true
    if (/^-[A-Za-z]*[eE]/.test(w.value)) return true
  }
  return false
}

/**
 * Does `key` run as a program text it reads from its input or from a descriptor? `fed`: its
 * input is text from the command line (a pipe, a here-document or here-string); otherwise
 * only a script named by a descriptor path (`python3 /dev/fd/3`) counts.
 */
// Python modules that run code from their arguments or input (`-m timeit -s CODE`, the
// debugger's commands, a REPL).
const CODE_MODULES: ReadonlySet<string> = new Set([
  "pdb",
  "code",
  "asyncio",
  "timeit",
  "idlelib",
  "ipdb",
  "pudb",
  "IPython"
])
// Compilers and assemblers that read their source from the input for `-` (cpp and as also
// with no source named): what it includes (`#include ".env"`, `.incbin`) is not followed.
// Their options whose value is the next word (it names no source).
const SOURCE_VALUED = /^(-o|-I|-D|-U|-x|-MF|-MT|-MQ|-include|-imacros|-isystem|--defsym)$/
const SOURCE_FROM_INPUT: ReadonlySet<string> = new Set([
  "cpp",
  "cc",
  "gcc",
  "g++",
  "c++",
  "clang",
  "clang++",
  "as",
  "rustc",
  "tcc"
])

export const programFromInput = (key: string, words: ReadonlyArray<Word>, sink: Sink, fed: boolean): void => {
  const name = words[0]!.value
  if (isPython(key)) {
    const at = words.findIndex((w) => w.value === "-m")
    const module = at === -1 ? undefined : words[at + 1]?.value
    if (module !== undefined && CODE_MODULES.has(module))
      opaque(sink, `${name} -m ${module} runs code from its arguments or its input`)
    // `-i` reads code from the input once the script ends.
    else if (fed && words.some((w, i) => (at === -1 || i < at) && /^-[a-zA-Z]*i[a-zA-Z]*$/.test(w.value)))
      opaque(sink, `${name} -i reads code from its input after the script`)
  }
  // perl's debugger reads its commands from the input (and PERL5DB).
  if (key === "perl" && words.some((w) => /^-[a-zA-Z]*d/.test(w.value)))
    opaque(sink, `${name} -d runs the debugger, which takes commands from its input`)
  if (fed && SOURCE_FROM_INPUT.has(key)) {
    const operands = words
      .slice(1)
      .filter((w, i) => (!w.value.startsWith("-") || w.value === "-") && !SOURCE_VALUED.test(words[i]!.value))
    if (words.some((w) => w.value === "-") || ((key === "cpp" || key === "as") && operands.length === 0))
      opaque(sink, `${name} reads source from its input, whose included files are not followed`)
  }
  const runs = () =>
    opaque(
      sink,
      fed
        ? `${name} reads a program from its input (a pipe or here-document), which is not analysed`
        : `${name} reads a program from a descriptor, which is not analysed`
    )
  if (fed && (COMMANDS_FROM_INPUT.has(key) || (VIMS.has(key) && exMode(words)))) {
    runs()
    return
  }
  const python = isPython(key)
  const valued = python ? ["-W", "-X", "-Q"] : RUNS_INPUT.get(key)?.split(" ")
  if (valued === undefined) {
    // A program file read from the input: `make -f -`, `vim -s /dev/stdin`, `awk -f -`; from
    // a descriptor, for the programs whose -f/-s/-x file is code.
    if (!fed && !PROGRAM_FILES.has(key)) return
    for (let i = 1; i < words.length; i++) {
      const w = words[i]!.value
      const glued = /^(-f|--file=|--makefile=|-s|-x|--command=)(.+)$/.exec(w)
      const value =
        glued?.[2] ?? (/^(-f|--file|--makefile|-s|-x|--command)$/.test(w) ? words[i + 1]?.value : undefined)
      if (readsInput(value, fed)) {
        runs()
        return
      }
    }
    return
  }
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!
    if (!w.isStatic) return
    const text = w.value
    if (text === "--") {
      if ((fed && words[i + 1] === undefined) || readsInput(words[i + 1]?.value, fed)) runs()
      return
    }
    if (readsInput(text, fed)) {
      runs()
      return
    }
    if (text.startsWith("-")) {
      if (valued.includes(text)) i++
      continue
    }
    // A script operand: the input is its data.
    return
  }
  if (fed) runs()
}

// psql -c/--command and mysql -e/--execute: a backslash meta-command runs a shell (`\\! cmd`,
// `\\o |cmd`, `\\copy … program 'cmd'`, mysql's `system cmd`), as on their input.
const sqlCommands = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const name = words[0]!.value
  const psql = key === "psql"
  const short = psql ? "c" : "e"
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!
    const text = w.value
    if (text === "--") break
    if (!w.isStatic) {
      if (w.raw.startsWith("-")) sink.note("unmodelled", `${name}: an option only known at run time`)
      continue
    }
    let value: Word | string | undefined
    const long = /^--([a-z-]+)(?:=(.*))?$/s.exec(text)
    if (long !== null) {
      const full = psql ? "command" : "execute"
      if (long[1]!.length < 2 || !full.startsWith(long[1]!)) continue
      value = long[2] ?? words[++i]
    } else {
      const cluster = new RegExp(`^-[A-Za-z]*${short}(.*)$`, "s").exec(text)
      if (cluster === null) continue
      value = cluster[1] !== "" ? cluster[1] : words[++i]
    }
    if (value === undefined) continue
    const script = typeof value === "string" ? value : value.isStatic ? value.value : undefined
    if (script === undefined) {
      opaque(sink, `${name} runs commands only known at run time`)
      continue
    }
    if (script.includes("\\") || (!psql && /(^|;)\s*system\b/i.test(script)))
      opaque(sink, `${name} runs a meta-command, which can run shell commands`)
  }
}

// less and more: `+cmd` runs a pager command at start (`+!cmd` a shell command, `+s`/`+o`
// save to a file); -o/-O/--log-file copy the input to a file; -k/--lesskey-file and
// --lesskey-src load key bindings whose #env section can set LESSOPEN.
const pager = (words: ReadonlyArray<Word>, sink: Sink): void => {
  const name = words[0]!.value
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!
    const text = w.value
    if (!w.isStatic) {
      if (w.raw.startsWith("+") || w.raw.startsWith("-"))
        sink.note("unmodelled", `${name}: an option only known at run time`)
      continue
    }
    if (text.startsWith("+")) {
      // A line number, a search or `G`/`F` only.
      if (!/^\+([0-9]*|[GgF]|\/[^!|]*|[0-9]*[GgpP%])$/.test(text))
        sink.note("unmodelled", `${name} ${text} runs a pager command at start`)
      continue
    }
    if (text === "--") break
    const log = /^(?:-[oO]|--log-file=|--LOG-FILE=)(.*)$/.exec(text)
    if (log !== null || text === "--log-file" || text === "--LOG-FILE") {
      const file = log?.[1] ? log[1] : words[++i]?.value
      if (file !== undefined) {
        sink.note("writes", `${name} copies its input to \`${file}\``)
        sink.path(file, "write")
      }
      continue
    }
    if (/^(-k|--lesskey-file|--lesskey-src|--lesskey-content)/.test(text))
      sink.note("unmodelled", `${name} ${text} loads key bindings that can set what it runs`)
  }
}
