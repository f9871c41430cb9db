// A command line's options as getopt and getopt_long read them: short options clustered
// (`-czf`), a short option's value glued to it (`-I'cmd'`, `-cfa.tar`) or the next word, a
// long option by any unambiguous prefix (`--use-comp=cmd`) with its value after `=` or in
// the next word, and tar's old style (`tar cIf CMD a.tar`: the first word, without a dash,
// is a cluster of letters whose values follow in order). Options may come anywhere before
// `--`, as GNU getopt permutes them. What cannot be read with certainty (a letter the
// program is not known to have, an ambiguous prefix, an option only known at run time) is
// reported, and what follows it in that word is not read.
import type { Word } from "./model.ts"

/** How a long option takes its value: `=` required (glued or next word), `?` optional (glued only), `` none. */
export type Takes = "" | "=" | "?"

export interface Spec {
  /** Short options that take no value. */
  readonly flags: string
  /** Short options that take a value. */
  readonly valued: string
  /** Long options by full name (no dashes). */
  readonly long: ReadonlyMap<string, Takes>
  /**
   * The long options are all the program has: one not among them, or a prefix of several,
   * is not understood. Otherwise a prefix of one of them is that one (fail closed: a
   * prefix of several would be refused by the program) and any other is left as written.
   */
  readonly complete: boolean
  /** tar's old style: a first word without a dash is a cluster of options. */
  readonly oldStyle?: boolean
}

export interface Option {
  /** `-I`, or `--use-compress-program` written out in full. */
  readonly name: string
  readonly value: Word | undefined
}

export interface Options {
  readonly options: ReadonlyArray<Option>
  readonly operands: ReadonlyArray<Word>
  /** Spellings that could not be read with certainty. */
  readonly unreadable: ReadonlyArray<string>
}

/** Long options from `name=takes` entries (`"file="`, `"backup?"`, `"verbose"`). */
/** Whether a word is an option (`-x`, `--x`, or one only known at run time written so), not `-`. */
export const isOptionWord = (word: Word): boolean =>
  word.isStatic ? word.value.startsWith("-") && word.value !== "-" : word.raw.startsWith("-")

export const longOptions = (...names: ReadonlyArray<string>): ReadonlyMap<string, Takes> =>
  new Map(names.map((n) => (/[=?]$/.test(n) ? [n.slice(0, -1), n.slice(-1) as Takes] : [n, ""])))

// The rest of a word from `from` on: a value glued to its option.
const tail = (word: Word, from: number): Word => {
  const value = word.value.slice(from)
  return { ...word, value, raw: value, path: word.path === undefined ? undefined : value }
}

/** The options and operands of `words` (the program's name first) read as `spec` says. */
export const read = (words: ReadonlyArray<Word>, spec: Spec): Options => {
  const options: Array<Option> = []
  const operands: Array<Word> = []
  const unreadable: Array<string> = []
  // The word read last.
  let i = 0
  // The letters of a cluster from `from` on. Dashed, a valued letter takes the rest of the
  // word, else the next word, and ends the cluster; old style, each takes the next word.
  const cluster = (word: Word, from: number, oldStyle: boolean) => {
    const text = word.value
    for (let at = from; at < text.length; at++) {
      const letter = text[at]!
      if (spec.valued.includes(letter)) {
        const glued = !oldStyle && at + 1 < text.length
        options.push({ name: `-${letter}`, value: glued ? tail(word, at + 1) : words[++i] })
        if (!oldStyle) return
      } else if (spec.flags.includes(letter)) options.push({ name: `-${letter}`, value: undefined })
      else {
        unreadable.push(`-${text.slice(at)}`)
        return
      }
    }
  }
  const first = words[1]
  if (spec.oldStyle && first !== undefined && !first.value.startsWith("-") && first.value !== "") {
    i = 1
    if (!first.isStatic) unreadable.push(first.raw)
    else cluster(first, 0, true)
  }
  i++
  for (; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!isOptionWord(word)) {
      operands.push(word)
      continue
    }
    if (!word.isStatic || word.glob) {
      unreadable.push(word.raw)
      continue
    }
    if (text === "--") {
      operands.push(...words.slice(i + 1))
      break
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=")
      const written = text.slice(2, eq === -1 ? undefined : eq)
      const matches = [...spec.long.keys()].filter((o) => o.startsWith(written))
      const full = spec.long.has(written) ? written : matches.length === 1 ? matches[0] : undefined
      if (full === undefined) {
        if (spec.complete || matches.length > 1) unreadable.push(text.slice(0, eq === -1 ? undefined : eq))
        options.push({ name: `--${written}`, value: eq === -1 ? undefined : tail(word, eq + 1) })
        continue
      }
      const takes = spec.long.get(full)!
      const value = eq !== -1 ? tail(word, eq + 1) : takes === "=" ? words[++i] : undefined
      options.push({ name: `--${full}`, value })
      continue
    }
    cluster(word, 1, false)
  }
  return { options, operands, unreadable }
}

// Programs' options as their parsers know them.

const TAR_LONG = longOptions(
  ...(
    "absolute-names acls add-file= after-date= anchored append atime-preserve? auto-compress " +
    "backup? block-number blocking-factor= bzip2 catenate check-device check-links " +
    "checkpoint-action= checkpoint? clamp-mtime compare compress concatenate confirmation create " +
    "delay-directory-restore delete dereference diff directory= exclude-backups exclude-caches " +
    "exclude-caches-all exclude-caches-under exclude-from= exclude-ignore-recursive= " +
    "exclude-ignore= exclude-tag-all= exclude-tag-under= exclude-tag= exclude-vcs " +
    "exclude-vcs-ignores exclude= extract file= files-from= force-local format= full-time get " +
    "group-map= group= gunzip gzip hard-dereference help hole-detection= ignore-case " +
    "ignore-command-error ignore-failed-read ignore-zeros incremental index-file= info-script= " +
    "interactive keep-directory-symlink keep-newer-files keep-old-files label= level= list " +
    "listed-incremental= lzip lzma lzop mode= mtime= multi-volume new-volume-script= " +
    "newer-mtime= newer= no-acls no-anchored no-auto-compress no-check-device " +
    "no-delay-directory-restore no-ignore-case no-ignore-command-error no-null no-overwrite-dir " +
    "no-quote-chars= no-recursion no-same-owner no-same-permissions no-seek no-selinux " +
    "no-unquote no-verbatim-files-from no-wildcards no-wildcards-match-slash no-xattrs null " +
    "numeric-owner occurrence? old-archive one-file-system one-top-level? overwrite " +
    "overwrite-dir owner-map= owner= pax-option= portability posix preserve-order " +
    "preserve-permissions quote-chars= quoting-style= read-full-records record-size= recursion " +
    "recursive-unlink remove-files restrict rmt-command= rsh-command= same-order same-owner " +
    "same-permissions seek selinux show-defaults show-omitted-dirs show-snapshot-field-ranges " +
    "show-stored-names show-transformed-names skip-old-files sort= sparse sparse-version= " +
    "starting-file= strip-components= suffix= tape-length= test-label to-command= to-stdout " +
    "totals? touch transform= uncompress ungzip unlink-first unquote update usage " +
    "use-compress-program= utc verbatim-files-from verbose verify version volno-file= warning= " +
    "wildcards wildcards-match-slash xattrs xattrs-exclude= xattrs-include= xform= xz zstd"
  ).split(" ")
)

/** GNU tar (1.34): every option. bsdtar shares the ones that run programs, not the rest. */
const TAR: Spec = {
  flags: "AcdrtuxGnSkUWOmpsBiajJzZhPlRvwMo",
  valued: "gCTXfFLbHVIKN",
  long: TAR_LONG,
  complete: true,
  oldStyle: true
}

export const SPECS: ReadonlyMap<string, Spec> = new Map<string, Spec>([
  ["tar", TAR],
  ["gtar", TAR],
  ["bsdtar", { ...TAR, complete: false }],
  [
    "rsync",
    {
      flags: "vqcarRbuldLkKHpEAXUNOJogDtSnWxyCzFhPimsIV04689",
      valued: "efBTM@",
      long: longOptions("rsh=", "rsync-path="),
      complete: false
    }
  ],
  ["scp", { flags: "346ABCOpqRrsTv", valued: "cDFiJlPoSX", long: new Map(), complete: true }],
  ["sftp", { flags: "246AaCfNpqrv", valued: "BbcDFiJlPRosSX", long: new Map(), complete: true }],
  // man-db: -H and -X take a value only glued (read as valued: the word after is then a
  // value, not a page, which only makes more of the line suspect).
  [
    "man",
    {
      flags: "7aDdfhikKlIiutwWZcV",
      valued: "CLmMSsePrpTERHX",
      long: longOptions("pager=", "html?", "config-file=", "manpath="),
      complete: false
    }
  ],
  [
    "split",
    {
      // `-NUM` is the old spelling of `-l NUM`.
      flags: "dexu0123456789",
      valued: "abClnt",
      long: longOptions(
        ..."additional-suffix= bytes= elide-empty-files filter= hex-suffixes? line-bytes= lines= number= numeric-suffixes? separator= suffix-length= unbuffered verbose help version".split(
          " "
        )
      ),
      complete: true
    }
  ],
  [
    "csplit",
    {
      flags: "kszq",
      valued: "bfn",
      long: longOptions(
        ..."digits= elide-empty-files help keep-files prefix= quiet silent suffix-format= suppress-matched version".split(
          " "
        )
      ),
      complete: true
    }
  ],
  [
    "mktemp",
    {
      flags: "dqtu",
      valued: "p",
      long: longOptions(..."directory dry-run help quiet suffix= tmpdir? version".split(" ")),
      complete: true
    }
  ]
])
