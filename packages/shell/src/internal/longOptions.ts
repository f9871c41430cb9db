// Long options as GNU getopt_long reads them: any unambiguous prefix of a program's long
// option is that option (`sed --in-pl` is `--in-place`, `sort --out=f` is `--output=f`).
// The line is read with each option written out in full, so the rest of the analysis
// matches full names only; a long option the program's table lacks, or an ambiguous
// prefix, is not understood. tsc reads its options by their whole name, in any case and
// after one dash or two (`-outDir`, `--OUTDIR`): written as the table spells them.
import type { Word } from "./model.ts"

interface Table {
  readonly options: ReadonlyArray<string>
  /** tsc: whole names only, any case, `-` or `--`. */
  readonly wholeNames?: boolean
  /** Its other long options are all harmless: one not listed is left as written. */
  readonly othersHarmless?: boolean
}

const GNU = (...options: Array<string>): Table => ({ options: [...options, "help", "version"] })

const TABLES: ReadonlyMap<string, Table> = new Map<string, Table>([
  [
    "sed",
    GNU(
      "binary",
      "debug",
      "expression",
      "file",
      "follow-symlinks",
      "in-place",
      "line-length",
      "null-data",
      "zero-terminated",
      "posix",
      "quiet",
      "silent",
      "regexp-extended",
      "sandbox",
      "separate",
      "unbuffered"
    )
  ],
  [
    "sort",
    GNU(
      "ignore-leading-blanks",
      "dictionary-order",
      "ignore-case",
      "general-numeric-sort",
      "ignore-nonprinting",
      "month-sort",
      "human-numeric-sort",
      "numeric-sort",
      "random-sort",
      "random-source",
      "reverse",
      "sort",
      "version-sort",
      "batch-size",
      "check",
      "compress-program",
      "debug",
      "files0-from",
      "key",
      "merge",
      "output",
      "stable",
      "buffer-size",
      "field-separator",
      "temporary-directory",
      "unique",
      "zero-terminated",
      "parallel"
    )
  ],
  [
    "cp",
    GNU(
      "archive",
      "attributes-only",
      "backup",
      "copy-contents",
      "debug",
      "dereference",
      "force",
      "interactive",
      "keep-directory-symlink",
      "link",
      "no-clobber",
      "no-dereference",
      "no-preserve",
      "no-target-directory",
      "one-file-system",
      "parents",
      "path",
      "preserve",
      "recursive",
      "reflink",
      "remove-destination",
      "sparse",
      "strip-trailing-slashes",
      "suffix",
      "symbolic-link",
      "target-directory",
      "update",
      "verbose",
      "context"
    )
  ],
  [
    "mv",
    GNU(
      "backup",
      "context",
      "debug",
      "exchange",
      "force",
      "interactive",
      "no-clobber",
      "no-copy",
      "no-target-directory",
      "strip-trailing-slashes",
      "suffix",
      "target-directory",
      "update",
      "verbose"
    )
  ],
  [
    "install",
    GNU(
      "backup",
      "compare",
      "context",
      "debug",
      "directory",
      "group",
      "mode",
      "no-target-directory",
      "owner",
      "preserve-context",
      "preserve-timestamps",
      "strip",
      "strip-program",
      "suffix",
      "target-directory",
      "verbose"
    )
  ],
  [
    "ln",
    GNU(
      "backup",
      "directory",
      "force",
      "interactive",
      "logical",
      "no-dereference",
      "no-target-directory",
      "physical",
      "relative",
      "suffix",
      "symbolic",
      "target-directory",
      "verbose"
    )
  ],
  [
    "date",
    GNU(
      "date",
      "debug",
      "file",
      "iso-8601",
      "reference",
      "resolution",
      "rfc-email",
      "rfc-822",
      "rfc-2822",
      "rfc-3339",
      "set",
      "uct",
      "universal",
      "utc"
    )
  ],
  [
    "uniq",
    GNU(
      "all-repeated",
      "check-chars",
      "count",
      "group",
      "ignore-case",
      "repeated",
      "skip-chars",
      "skip-fields",
      "unique",
      "zero-terminated"
    )
  ],
  ["wc", GNU("bytes", "chars", "debug", "files0-from", "lines", "max-line-length", "total", "words")],
  [
    "du",
    GNU(
      "all",
      "apparent-size",
      "block-size",
      "bytes",
      "count-links",
      "dereference",
      "dereference-args",
      "exclude",
      "exclude-from",
      "files0-from",
      "human-readable",
      "inodes",
      "max-depth",
      "no-dereference",
      "null",
      "one-file-system",
      "separate-dirs",
      "si",
      "summarize",
      "threshold",
      "time",
      "time-style",
      "total"
    )
  ],
  ["iconv", GNU("from-code", "to-code", "list", "output", "silent", "verbose", "usage")],
  ["shuf", GNU("echo", "head-count", "input-range", "output", "random-source", "repeat", "zero-terminated")],
  [
    "sdiff",
    GNU(
      "diff-program",
      "expand-tabs",
      "ignore-all-space",
      "ignore-blank-lines",
      "ignore-case",
      "ignore-matching-lines",
      "ignore-space-change",
      "ignore-tab-expansion",
      "ignore-trailing-space",
      "left-column",
      "minimal",
      "output",
      "speed-large-files",
      "strip-trailing-cr",
      "suppress-common-lines",
      "tabsize",
      "text",
      "width"
    )
  ],
  [
    "tsc",
    {
      // Only the options that name what it writes; the rest are flags or read files.
      options: [
        "outDir",
        "outFile",
        "out",
        "declarationDir",
        "tsBuildInfoFile",
        "generateCpuProfile",
        "generateTrace"
      ],
      wholeNames: true,
      othersHarmless: true
    }
  ]
])

/** The long options of `key` read from `words` as written: their full names, and what is not understood. */
export const expand = (
  key: string,
  words: ReadonlyArray<Word>
): { readonly words: ReadonlyArray<Word>; readonly unknown: ReadonlyArray<string> } => {
  const table = TABLES.get(key)
  if (table === undefined) return { words, unknown: [] }
  const unknown: Array<string> = []
  // getopt_long stops at `--`: what follows is operands.
  let ended = false
  const out = words.map((word, index) => {
    const text = word.value
    if (index === 0 || !word.isStatic || ended) return word
    if (text === "--") {
      ended = true
      return word
    }
    const match = (table.wholeNames ? /^--?([A-Za-z][^=]*)/ : /^--([^=]+)/).exec(text)
    if (match === null) return word
    const written = match[1]!
    const prefixed = table.options.filter((o) => o.startsWith(written))
    const full = table.wholeNames
      ? table.options.find((o) => o.toLowerCase() === written.toLowerCase())
      : table.options.includes(written)
        ? written
        : prefixed.length === 1
          ? prefixed[0]
          : undefined
    if (full === undefined) {
      if (!table.othersHarmless) unknown.push(match[0])
      return word
    }
    const option = `--${full}`
    if (option === match[0]) return word
    const rename = (value: string) => option + value.slice(match[0].length)
    return {
      ...word,
      value: rename(text),
      raw: rename(text),
      path: word.path?.startsWith(match[0]) ? rename(word.path) : word.path
    }
  })
  return { words: out, unknown }
}
