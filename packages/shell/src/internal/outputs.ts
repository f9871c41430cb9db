// Programs that write files their operands or options name, beyond the tables of
// programs.ts: toolchain programs (`cpp in out`, `objcopy in out`, `ld -o`, `ptx -G in
// out`), `node`'s diagnostic files, and the file tools behind a subcommand (`cmake -E`,
// `gio`), whose subcommands that only print are listed and any other is not modelled.
import type { Word } from "./model.ts"
import { staticWord } from "./model.ts"
import { INTERPRETERS, isPython, RUNS_PROJECT_FILES, WRITE_OPTIONS } from "./programs.ts"
import type { Sink } from "./risks.ts"

/** Records what `key` writes, or notes that it is not known. */
export const check = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  namedOutputs(key, words, sink)
  switch (key) {
    case "cmake":
      if (words[1]?.value === "-E") subcommand(sink, "cmake -E", words[2], CMAKE_PRINTS)
      cmakeDefinitions(words, sink)
      return
    case "gio":
      subcommand(sink, "gio", words[1], GIO_READS)
      return
    case "cpp":
      cpp(words, sink)
      return
    case "objcopy":
    case "strip":
      objcopy(key, words, sink)
      return
    case "ld":
    case "ld.bfd":
    case "ld.gold":
    case "ld.lld":
      ld(words, sink)
      return
    case "as":
      assembler(words, sink)
      return
    case "ptx":
      ptx(words, sink)
      return
    case "cc":
    case "gcc":
    case "g++":
    case "c++":
    case "clang":
    case "clang++":
      compiler(key, words, sink)
      return
    case "ctags":
    case "etags":
      // Without -f/-o, the tag file is made where it runs.
      if (!words.some((w) => /^(-f|-o|--output)/.test(w.value)))
        write(sink, key, staticWord(key === "etags" ? "TAGS" : "tags"))
      return
    case "npm":
    case "pnpm":
    case "yarn":
    case "bun":
    case "uv":
    case "poetry":
    case "deno":
    case "mix":
    case "rails":
    case "django-admin":
    case "composer":
      scaffold(key, words, sink)
      return
    case "rename":
    case "prename":
    case "file-rename":
      // perl's rename: new names from an expression (`s/a/.git\/hooks\/x/`).
      sink.note("unmodelled", `${key} renames files to names its expression makes`)
      return
    case "uudecode":
      // Without -o, it writes the file its input names, with the mode it gives.
      if (!words.some((w) => /^(-o|--output-file)/.test(w.value)))
        sink.note("unmodelled", "uudecode writes the file its input names")
      return
    case "unshar":
      sink.note("executes", "unshar runs its input as a shell script")
      sink.note("unmodelled", "unshar runs a shell script that is not analysed")
      return
    case "zcompile":
      // zsh's zcompile writes FILE.zwc (or its first operand, a .zwc file).
      sink.note("unmodelled", "zcompile writes a compiled file named after its operands")
      return
    case "node":
    case "nodejs":
      node(words, sink)
      return
    case "rustc":
      rustc(words, sink)
      return
    default:
      return
  }
}

const write = (sink: Sink, via: string, word: Word | undefined): void => {
  if (word === undefined) return
  if (!word.isStatic || word.glob) {
    sink.note("unmodelled", `${via} writes \`${word.raw}\`, a file only known at run time`)
    return
  }
  sink.note("writes", `${via} writes \`${word.value}\``)
  sink.path(word.value, "write")
}

const glued = (word: Word, value: string): Word => ({ ...word, value, raw: value, path: value })

// `cmake -E` commands that only print or compare (their operands are read as any program's).
const CMAKE_PRINTS: ReadonlySet<string> = new Set([
  "echo",
  "echo_append",
  "capabilities",
  "compare_files",
  "cat",
  "md5sum",
  "sha1sum",
  "sha224sum",
  "sha256sum",
  "sha384sum",
  "sha512sum",
  "environment",
  "true",
  "false",
  "sleep",
  "help"
])
// gio commands that only print (`cat` prints the files it reads).
const GIO_READS: ReadonlySet<string> = new Set(["info", "list", "cat", "tree", "help", "version"])

// The others run programs (`cmake -E env|chdir|time`, `gio open`) or copy, move, remove and
// make files and directories.
const subcommand = (sink: Sink, via: string, word: Word | undefined, prints: ReadonlySet<string>): void => {
  if (word?.isStatic && prints.has(word.value)) return
  sink.note(
    "unmodelled",
    `${via} ${word?.raw ?? ""}: a command that may run programs or write files, not modelled here`
  )
}

// cpp's options whose value is the next word (a `-o`/`-MF` value is the file it writes).
const CPP_VALUED = new Set([
  "-o",
  "-MF",
  "-MT",
  "-MQ",
  "-I",
  "-D",
  "-U",
  "-A",
  "-x",
  "-include",
  "-imacros",
  "-isystem",
  "-iquote",
  "-idirafter",
  "-iprefix",
  "-iwithprefix",
  "-iwithprefixbefore",
  "-isysroot",
  "-imultilib",
  "-Xpreprocessor",
  "--param"
])

/** `cpp [options] IN [OUT]`: OUT, and `-o FILE` (`-oFILE`), `-MF FILE` are written. */
const cpp = (words: ReadonlyArray<Word>, sink: Sink): void => {
  includedFiles(words, sink)
  const operands: Array<Word> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic || !text.startsWith("-") || text === "-") {
      operands.push(word)
      continue
    }
    if (text === "-o" || text === "-MF") write(sink, `cpp ${text}`, words[++i])
    else if (CPP_VALUED.has(text)) i++
    else if (/^-(o|MF)./.test(text)) write(sink, "cpp -o", glued(word, text.replace(/^-(o|MF)/, "")))
  }
  write(sink, "cpp", operands[1])
}

// objcopy's and strip's short options whose value is the next word.
const OBJCOPY_VALUED = /^-[a-zA-Z]*[bBiIjKNsOdFLGRW]$/

/**
 * `objcopy IN [OUT]` writes OUT, or IN in place; `strip FILE…` rewrites each; both write
 * `-o FILE`. The section options naming files (`--add-section .x=FILE`, which puts a file's
 * content in the output, `--dump-section`, which writes one) are not modelled.
 */
const objcopy = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const operands: Array<Word> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic || !text.startsWith("-")) {
      operands.push(word)
      continue
    }
    if (/^--(add|update|dump)-sec/.test(text)) {
      sink.note("unmodelled", `${key} ${text.split("=")[0]}: a section read from or written to a file`)
      if (!text.includes("=")) i++
    } else if (text === "-o") write(sink, `${key} -o`, words[++i])
    else if (/^-o./.test(text)) write(sink, `${key} -o`, glued(word, text.slice(2)))
    else if (OBJCOPY_VALUED.test(text)) i++
    // A long option may take the next word: it is written too, to fail closed.
    else if (text.startsWith("--") && !text.includes("=") && i + 1 < words.length)
      write(sink, key, words[++i])
  }
  if (key === "strip" || operands.length === 1) for (const word of operands) write(sink, key, word)
  else write(sink, key, operands.at(-1))
}

/**
 * `ld -o FILE`: ld reads long options after one dash as well (`-output=FILE`), and `-oFILE`
 * is `-o`; a word starting with `-o` or `--o` is read both ways. `-Map`, `--dependency-file`
 * and `--out-implib` write their files too.
 */
const ld = (words: ReadonlyArray<Word>, sink: Sink): void => {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic || !text.startsWith("-")) continue
    const long = /^--?(o[a-z-]*|Map|dependency-file)(=(.*))?$/s.exec(text)
    if (text === "-o") write(sink, "ld -o", words[++i])
    else if (long !== null) {
      write(sink, `ld ${text.split("=")[0]}`, long[2] === undefined ? words[++i] : glued(word, long[3]!))
      if (/^-o./.test(text)) write(sink, "ld -o", glued(word, text.slice(2)))
    } else if (/^-o./.test(text)) write(sink, "ld -o", glued(word, text.slice(2)))
  }
}

/** `as -o FILE` (`-oFILE`), `--MD FILE` and a listing `-a[cdghlmns]=FILE` are written. */
const assembler = (words: ReadonlyArray<Word>, sink: Sink): void => {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic || !text.startsWith("-")) continue
    const listing = /^-a[a-z]*=(.*)$/s.exec(text)
    if (text === "-o" || text === "--MD") write(sink, `as ${text}`, words[++i])
    else if (listing !== null) write(sink, "as -a", glued(word, listing[1]!))
    else if (text.startsWith("--MD=")) write(sink, "as --MD", glued(word, text.slice(5)))
    else if (/^-o./.test(text)) write(sink, "as -o", glued(word, text.slice(2)))
  }
}

/** `ptx -G IN OUT` (traditional mode) writes OUT; otherwise every operand is an input. */
const ptx = (words: ReadonlyArray<Word>, sink: Sink): void => {
  const operands: Array<Word> = []
  let traditional = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic || !text.startsWith("-") || text === "-") operands.push(word)
    else if (text === "--") operands.push(...words.slice(i + 1))
    else if (text.length >= 4 && "--traditional".startsWith(text.split("=")[0]!)) traditional = true
    else if (/^-[A-Za-z]*G/.test(text) && !text.startsWith("--")) traditional = true
    if (text === "--") break
    if (/^-[A-Za-z]*[FMSWbigow]$/.test(text) && !text.startsWith("--")) i++
  }
  if (traditional) write(sink, "ptx -G", operands[1])
}

// The compiler driver's options that pass words on to the preprocessor, assembler or linker
// (`-Wl,-o,FILE`, `-Xlinker`), or write files beside the output (`-MF`, `-save-temps=`,
// `-dumpdir`, `-aux-info`): what they write is not modelled (`-o` is, in programs.ts).
const COMPILER_PASSES =
  /^(-W[lpa],|-X(linker|preprocessor|assembler)$|-M[FD]|-MMD|-save-temps|-dumpdir|-dumpbase|-aux-info|-fdump-|-fprofile-generate|-fcallgraph-info|-fstack-usage|-specs)/
// `-include FILE`, `-imacros FILE` (or glued, `-includesecrets`): files read into the source.
const includedFiles = (words: ReadonlyArray<Word>, sink: Sink): void => {
  for (let i = 1; i < words.length; i++) {
    const option = /^-(include|imacros)(.*)$/s.exec(words[i]!.value)
    if (option === null) continue
    const file = option[2] === "" ? words[++i] : glued(words[i]!, option[2]!)
    if (file?.isStatic) sink.path(file.value, "read")
  }
}

const compiler = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  includedFiles(words, sink)
  const option = words.find((w) => COMPILER_PASSES.test(w.value))
  if (option !== undefined)
    sink.note("unmodelled", `${key} ${option.raw}: writes files this analysis does not follow`)
  // `-wrapper sh,-c,…` runs every pass through a program; plugins and `-B` folders are code.
  const runs = words.find((w) => /^(-wrapper|-fplugin|-B|--?specs|-fuse-ld=\/|--ld-path)/.test(w.value))
  if (runs !== undefined)
    sink.note("unmodelled", `${key} ${runs.raw}: runs or loads programs this analysis does not see`)
}

// rustc's code-generation options that name programs or code it runs (`-C linker=./x`,
// `-C link-arg=-wrapper`), and its unstable ones.
const rustc = (words: ReadonlyArray<Word>, sink: Sink): void => {
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.value
    const codegen =
      text === "-C" || text === "--codegen" ? words[i + 1]?.value : /^(-C|--codegen=)(.+)$/.exec(text)?.[2]
    if (
      (codegen !== undefined &&
        /^(linker|link-args?|llvm-args|codegen-backend|link-self-contained)/.test(codegen)) ||
      /^-Z/.test(text)
    )
      sink.note(
        "unmodelled",
        `rustc ${text} ${codegen ?? ""}: runs or loads programs this analysis does not see`
      )
  }
}

// node's options whose value is a file or directory it writes diagnostics into.
const NODE_WRITES = new Set([
  "--redirect-warnings",
  "--snapshot-blob",
  "--test-reporter-destination",
  "--localstorage-file",
  "--tls-keylog",
  "--diagnostic-dir",
  "--report-directory",
  "--report-dir",
  "--cpu-prof-dir",
  "--heap-prof-dir",
  "--logfile"
])
// The names of files it writes there (or in the working directory).
const NODE_NAMES = new Set([
  "--cpu-prof-name",
  "--heap-prof-name",
  "--report-filename",
  "--trace-event-file-pattern"
])

// What node names the files its profiling options write in the working directory (a
// stand-in for the process id and time in the real names).
const NODE_DEFAULT_NAMES: ReadonlyMap<string, string> = new Map([
  ["--cpu-prof", "CPU.cpuprofile"],
  ["--heap-prof", "Heap.heapprofile"],
  ["--prof", "isolate-v8.log"]
])

/**
 * `node --redirect-warnings=FILE`, `--cpu-prof-dir=DIR`, …: written. A file's name under
 * such a directory (`--cpu-prof-name`), or with `${pid}` put in, is not modelled.
 */
const node = (words: ReadonlyArray<Word>, sink: Sink): void => {
  const names: Array<Word> = []
  let directory = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.isStatic || !word.value.startsWith("--")) continue
    const eq = word.value.indexOf("=")
    // V8 reads `_` as `-` in its own options (`--logfile`).
    const option = (eq === -1 ? word.value : word.value.slice(0, eq)).replaceAll("_", "-")
    if (!NODE_WRITES.has(option) && !NODE_NAMES.has(option)) continue
    const value = eq === -1 ? words[++i] : glued(word, word.value.slice(eq + 1))
    if (value === undefined) continue
    if (NODE_NAMES.has(option)) names.push(value)
    else {
      directory ||= option.endsWith("-dir") || option.endsWith("-directory")
      write(sink, `node ${option}`, value)
    }
  }
  // Profiles and logs named by node itself land where it runs (`cd .git/hooks && node --cpu-prof x.js`).
  if (!directory && names.length === 0)
    for (const word of words) {
      const made = NODE_DEFAULT_NAMES.get(word.value)
      if (made !== undefined) write(sink, `node ${word.value}`, staticWord(made))
    }
  for (const name of names) {
    if (directory || /\$\{/.test(name.value))
      sink.note(
        "unmodelled",
        `node writes \`${name.raw}\` under a directory or with a name known at run time`
      )
    else write(sink, "node", name)
  }
}

// Words of an option's name that say its value is where the program writes, whatever the
// value looks like (`--outfile`, `--out-dir`, `--outDir`, `--dest`, `--junitxml`) …
const OUTPUT_WORDS: ReadonlySet<string> = new Set([
  "out",
  "output",
  "outdir",
  "outfile",
  "outpath",
  "dest",
  "destination",
  "logfile",
  "pidfile",
  "lockfile",
  "junitxml",
  "junit",
  "basetemp",
  "tmpdir",
  "workdir",
  "savepath"
])
// … and those that do with a noun for a place (`--cache-dir`, `--log-file`,
// `--coverageDirectory`), or a value spelt as a path (`--cache .git`, `--record /tmp/x`).
const PLACE_WORDS: ReadonlySet<string> = new Set([
  "cache",
  "log",
  "report",
  "reports",
  "save",
  "dump",
  "prefix",
  "root",
  "store",
  "tmp",
  "temp",
  "target",
  "export",
  "write",
  "pid",
  "socket",
  "lock",
  "coverage",
  "artifact",
  "artifacts",
  "snapshot",
  "snapshots",
  "trace",
  "record",
  "archive",
  "build",
  "dist",
  "install",
  "state",
  "data",
  "download",
  "downloads",
  "backup",
  "partial",
  "batch"
])
// Whether an option's name holds any of those words (a quick test before `nameWords`).
const MAY_NAME_PLACE =
  /out|dest|log|pid|lock|junit|te?mp|work|save|cache|report|dump|prefix|root|store|target|export|write|socket|coverage|artifact|snapshot|trace|record|archive|build|dist|install|state|data|download|backup|partial|batch/i
const PLACE_NOUNS: ReadonlySet<string> = new Set([
  "dir",
  "directory",
  "folder",
  "file",
  "path",
  "location",
  "to",
  "into"
])
// What `--output` means in many tools: a format, not a file (`kubectl -o json`, `--output=table`).
const FORMATS =
  /^(json|jsonc|jsonl|ndjson|json-lines|yaml|yml|toml|ini|wide|table|text|txt|name|names|tsv|csv|none|human|raw|plain|pretty|short|full|oneline|html|xml|markdown|md|junit|github|gitlab|compact|verbose|quiet|silent|stylish|unix|checkstyle|sarif|summary|tap|dot|spec|list|default|simple|terse|minimal|env|shell|bash|zsh|fish|powershell|code|stdout|stderr|both|all|auto|color|rich|lcov|cobertura|clover|hex|base64|binary|svg|png|pdf|mermaid|graphviz)$/i

// The words of an option's name in lower case: `--outDir`, `--out-dir` and `--out_dir` alike.
const nameWords = (option: string): Array<string> =>
  option
    .replace(/^-+/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
    .split(/[-_.]/)

const spelledAsPath = (value: string): boolean => /^[/~.]/.test(value) || value.includes("/")

// Programs whose `-o` is not an output file, or whose value can look like one (`ssh -o
// ProxyCommand=/x`, `grep -o ./x`).
const O_IS_NOT_OUTPUT: ReadonlySet<string> = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ls",
  "xargs",
  "ssh",
  "scp",
  "sftp",
  "autossh",
  "mount",
  "umount",
  "ps",
  "set",
  "sudo",
  "kubectl"
])

/**
 * Files a program writes where an option's name says so, for any program: `esbuild
 * --outfile=.git/hooks/pre-commit`, `deno compile -o X`, `black --cache-dir .git`, `jest
 * --coverageDirectory X`, `pytest --junitxml=X`. Which options take a value only the program
 * knows: a value given in the next word is judged written too (it is still read, as any
 * operand is). A short `-o` counts where the program's own table does not say what it is and
 * its value is spelt as a path.
 */
const namedOutputs = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  inPlace(key, words, sink)
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (word.isStatic && text.includes("=")) assignedOutputs(key, word, sink)
    // `-Xloggc:FILE`: the JVM's garbage-collection log.
    if (word.isStatic && text.startsWith("-Xloggc:"))
      write(sink, `${key} -Xloggc:`, glued(word, text.slice(8)))
    if (!word.isStatic || text.length < 2 || text.charCodeAt(0) !== 45) continue
    if (text === "--") return
    // Go- and Java-style long options take one dash (`terraform plan -out=x`).
    if (text.charCodeAt(1) !== 45 && !/^-[a-zA-Z][a-zA-Z-]+=/.test(text)) {
      if (text[1] !== "o" || O_IS_NOT_OUTPUT.has(key) || WRITE_OPTIONS.has(key)) continue
      const value = text.length > 2 ? glued(word, text.slice(2)) : words[i + 1]
      if (value?.isStatic === true && spelledAsPath(value.value) && !/[={},]/.test(value.value))
        write(sink, `${key} -o`, value)
      continue
    }
    // `--write`, `--fix`: flags that rewrite the operands (`inPlace`), no value of their own.
    if (IN_PLACE_LONG.test(text)) continue
    const at = text.indexOf("=")
    const option = at === -1 ? text : text.slice(0, at)
    // Most options name no place: one look at the text before splitting it into words.
    if (!MAY_NAME_PLACE.test(option)) continue
    const parts = nameWords(option)
    const output = parts.some((part) => OUTPUT_WORDS.has(part))
    const place =
      output || (parts.some((part) => PLACE_WORDS.has(part)) && parts.some((part) => PLACE_NOUNS.has(part)))
    const loose = !place && parts.some((part) => PLACE_WORDS.has(part))
    if (!place && !loose) continue
    const value = at === -1 ? words[i + 1] : glued(word, text.slice(at + 1))
    if (value === undefined || (at === -1 && value.isStatic && value.value.startsWith("-"))) continue
    if (!value.isStatic) {
      if (place) write(sink, option, value)
      continue
    }
    const v = value.value
    if (v === "" || v === "-" || /^[0-9]+$/.test(v) || /[={}]/.test(v) || (output && FORMATS.test(v)))
      continue
    if (place || spelledAsPath(v)) write(sink, option, value)
  }
}

// Formatters and fixers that rewrite the files they are given with these options (any
// program with `--write`, `--in-place`, `--fix`).
const IN_PLACE_FLAGS: ReadonlyMap<string, RegExp> = new Map([
  ["gofmt", /^-[a-z]*w/],
  ["goimports", /^-[a-z]*w/],
  ["shfmt", /^-[a-z]*w/],
  ["clang-format", /^-i$/],
  ["autopep8", /^(-[a-z]*i|--in-place)$/],
  ["perltidy", /^-b$/]
])
const IN_PLACE_LONG = /^--(write|in-?place|fix)(=.*)?$/
/**
 * `prettier --write FILE`, `gofmt -w FILE`, `clang-format -i FILE`: each file named is
 * written. A folder named (`gofmt -w .`) is written under, which is noted, not judged as a
 * write of every entry (formatters skip what is not theirs, .git included).
 */
const inPlace = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const short = IN_PLACE_FLAGS.get(key)
  // A runner or an interpreter hands such flags on to what it runs (`npm run lint -- --fix`).
  if (RUNS_PROJECT_FILES.has(key) || INTERPRETERS.has(key) || isPython(key)) return
  const end = words.findIndex((w) => w.value === "--")
  const given = end === -1 ? words : words.slice(0, end)
  if (!given.some((w, i) => i > 0 && (IN_PLACE_LONG.test(w.value) || short?.test(w.value) === true))) return
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.isStatic || (word.value.startsWith("-") && i < (end === -1 ? words.length : end))) continue
    if (i === end) continue
    // The value of an option before it (`--config .prettierrc`, `--ext .ts`) is no file to rewrite.
    const before = words[i - 1]?.value ?? ""
    if (
      /^--?[a-zA-Z][\w-]*$/.test(before) &&
      !IN_PLACE_LONG.test(before) &&
      short?.test(before) !== true &&
      VALUED.test(before)
    )
      continue
    const text = word.value
    const kind = sink.kind(text)
    // A subcommand (`ruff check --fix .`) names nothing there; a folder is written under.
    if (kind === undefined && !/[./]/.test(text)) continue
    if (kind === "directory" || text.endsWith("/") || word.glob)
      sink.note("writes", `${key} rewrites files under \`${word.raw}\``)
    else write(sink, key, word)
  }
}
// Options of formatters and linters that take the next word as their value.
const VALUED =
  /^--?(config|c|ext|ignore-path|rule|rulesdir|plugin|parser|cache-location|resolve-plugins-relative-to|format|f|output-file|o|stdin-filename|max-warnings|env|global|ignore-pattern|report-unused-disable-directives-severity|line-length|target-version|select|ignore|extend-select|exclude|include)$/

// Cache variables that name programs or code later builds run (`-DCMAKE_C_COMPILER_LAUNCHER=sh;-c;…`).
const CMAKE_RUNS = /(TOOLCHAIN|INCLUDE$|_COMMAND$|_SCRIPT$|MODULE_PATH|RULE_LAUNCH)/i
// Those whose value is a program (`-DCMAKE_C_COMPILER=clang`): judged as that program.
const CMAKE_PROGRAMS = /(LAUNCHER|COMPILER|LINKER|PROGRAM|EXECUTABLE|EMULATOR)$/i

/** `cmake -D NAME=VALUE` for a variable that names what later builds run; `-C FILE`, `-P FILE`. */
const cmakeDefinitions = (words: ReadonlyArray<Word>, sink: Sink): void => {
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.value
    const definition = text === "-D" ? words[i + 1]?.value : text.startsWith("-D") ? text.slice(2) : undefined
    const name = definition?.split(/[:=]/)[0]
    const value = definition?.slice(definition.indexOf("=") + 1)
    if (name !== undefined && value !== undefined && CMAKE_PROGRAMS.test(name) && /^[\w.+-]+$/.test(value))
      sink.text(value, "bash", `cmake -D ${name}`)
    else if (name !== undefined && (CMAKE_RUNS.test(name) || CMAKE_PROGRAMS.test(name)))
      sink.note("unmodelled", `cmake -D ${name} names a program or code the build runs`)
    if (text === "-C" || text === "-P" || /^-[CP]./.test(text))
      sink.note("unmodelled", `cmake ${text.slice(0, 2)} runs a cmake script`)
  }
}

// Settings given as `NAME=VALUE` inside a word, wherever they sit (`-XX:LogFile=x`,
// `-Xlog:gc:file=x`, `-o cache_dir=x`, `-d error_log=x`, `-X pycache_prefix=x`,
// `--reporter-option output=x`): the value is written when the name says it is where output
// goes (as an option's name would), or is a file name and the value is spelt as a path.
const FILE_NOUNS: ReadonlySet<string> = new Set(["file", "filename", "logfile", "path", "dir", "directory"])
const assignedOutputs = (key: string, word: Word, sink: Sink): void => {
  for (const segment of word.value.split(/[:,;\s]/)) {
    const last = segment.lastIndexOf("=")
    // An option's own `--name=value` is judged by its name above; a setting inside it is here.
    if (last <= 0 || (segment.startsWith("-") && segment.indexOf("=") === last)) continue
    const value = segment.slice(last + 1)
    const name = segment.slice(segment.lastIndexOf("=", last - 1) + 1, last)
    if (value === "" || name === "" || !MAY_NAME_PLACE_OR_FILE.test(name)) continue
    const parts = nameWords(name)
    const output = parts.some((part) => OUTPUT_WORDS.has(part))
    const place = parts.some((part) => PLACE_WORDS.has(part))
    const noun = parts.some((part) => FILE_NOUNS.has(part))
    if (output && FORMATS.test(value)) continue
    if (output || (place && noun) || ((place || noun) && spelledAsPath(value)))
      write(sink, `${key} ${name}=`, glued(word, value))
  }
}
const MAY_NAME_PLACE_OR_FILE = new RegExp(`${MAY_NAME_PLACE.source}|file|path|dir`, "i")

// Scaffolders: the folder a new project is made in (`bun init DIR`, `uv venv DIR`, `poetry new
// DIR`, `django-admin startproject NAME [DIR]`), or the manifest made where it runs (`npm
// init`, in `-w DIR` when given).
const SCAFFOLDS: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["npm", ["init", "innit"]],
  ["pnpm", ["init"]],
  ["yarn", ["init"]],
  ["bun", ["init"]],
  ["uv", ["init", "venv"]],
  ["poetry", ["new", "init"]],
  ["deno", ["init"]],
  ["mix", ["new"]],
  ["rails", ["new"]],
  ["django-admin", ["startproject", "startapp"]],
  ["composer", ["create-project"]]
])
const scaffold = (key: string, words: ReadonlyArray<Word>, sink: Sink): void => {
  const sub = words[1]?.value ?? ""
  if (!SCAFFOLDS.get(key)?.includes(sub)) return
  const workspace = words.findIndex(
    (w) => w.value === "-w" || w.value === "--workspace" || w.value === "--dir"
  )
  const operands = words
    .slice(2)
    .filter((w, i) => !w.value.startsWith("-") && words[i + 1] !== words[workspace])
  if (workspace !== -1 && words[workspace + 1] !== undefined)
    write(sink, `${key} ${sub}`, words[workspace + 1])
  // Glued: `--workspace=DIR`, `-w=DIR`, `--dir=DIR`.
  for (const word of words) {
    const glue = /^(--workspace|-w|--dir)=(.+)$/s.exec(word.value)
    if (glue !== null) write(sink, `${key} ${sub}`, glued(word, glue[2]!))
  }
  // Where a project name comes first and its folder second.
  const folder = key === "django-admin" || key === "composer" ? (operands[1] ?? operands[0]) : operands[0]
  if (folder !== undefined && !(key === "npm" || key === "pnpm" || key === "yarn"))
    write(sink, `${key} ${sub}`, folder)
  else write(sink, `${key} ${sub}`, staticWord(MADE_HERE.get(`${key} ${sub}`) ?? "package.json"))
}
// What a scaffolder makes where it runs when given no folder.
const MADE_HERE: ReadonlyMap<string, string> = new Map([
  ["uv venv", ".venv"],
  ["uv init", "pyproject.toml"],
  ["poetry init", "pyproject.toml"],
  ["deno init", "deno.json"]
])
