// GNU grep's command line read the way grep's getopt_long reads it: clustered short options
// (`-xf FILE`, `-f.env`), long options abbreviated to any unambiguous prefix (`--fil=FILE`,
// `--recur`), values glued or in the next word, options after operands, and the argmatch
// values of `-d` (`-d rec` is `recurse`). Which files it reads follows from that, and an
// option grep does not have (or an ambiguous prefix) is reported instead of guessed at.
import { staticWord, type Word } from "./model.ts"

/** The program names this module reads (egrep and fgrep take grep's options). */
export const GREP_PROGRAMS: ReadonlySet<string> = new Set(["grep", "egrep", "fgrep"])

// grep.c's short_options: a letter followed by `:` takes a value.
const SHORT = "0123456789A:B:C:D:EFGHIPTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz"
const SHORT_VALUED = new Set([...SHORT.matchAll(/([A-Za-z0-9]):/g)].map((m) => m[1]!))
const SHORT_FLAGS = new Set([...SHORT.replace(/[A-Za-z0-9]:/g, "")])

type Arity = "none" | "required" | "optional"
// grep.c's long_options, each with the short option it stands for (or its own name).
const LONG: ReadonlyArray<readonly [string, Arity, string]> = [
  ["basic-regexp", "none", "G"],
  ["extended-regexp", "none", "E"],
  ["fixed-regexp", "none", "F"],
  ["fixed-strings", "none", "F"],
  ["perl-regexp", "none", "P"],
  ["after-context", "required", "A"],
  ["before-context", "required", "B"],
  ["binary-files", "required", "binary-files"],
  ["byte-offset", "none", "b"],
  ["context", "required", "C"],
  ["color", "optional", "color"],
  ["colour", "optional", "color"],
  ["count", "none", "c"],
  ["devices", "required", "D"],
  ["directories", "required", "d"],
  ["dereference-recursive", "none", "R"],
  ["exclude", "required", "exclude"],
  ["exclude-from", "required", "exclude-from"],
  ["exclude-dir", "required", "exclude-dir"],
  ["file", "required", "f"],
  ["files-with-matches", "none", "l"],
  ["files-without-match", "none", "L"],
  ["group-separator", "required", "group-separator"],
  ["help", "none", "help"],
  ["include", "required", "include"],
  ["ignore-case", "none", "i"],
  ["no-ignore-case", "none", "no-ignore-case"],
  ["initial-tab", "none", "T"],
  ["label", "required", "label"],
  ["line-buffered", "none", "line-buffered"],
  ["line-number", "none", "n"],
  ["line-regexp", "none", "x"],
  ["max-count", "required", "m"],
  ["no-filename", "none", "h"],
  ["no-group-separator", "none", "no-group-separator"],
  ["no-messages", "none", "s"],
  ["null", "none", "Z"],
  ["null-data", "none", "z"],
  ["only-matching", "none", "o"],
  ["quiet", "none", "q"],
  ["recursive", "none", "r"],
  ["regexp", "required", "e"],
  ["invert-match", "none", "v"],
  ["silent", "none", "q"],
  ["text", "none", "a"],
  ["binary", "none", "U"],
  ["unix-byte-offsets", "none", "u"],
  ["version", "none", "V"],
  ["with-filename", "none", "H"],
  ["word-regexp", "none", "w"]
]

/** What a grep command line asks grep to do with files. */
export interface GrepLine {
  /** A pattern came from `-e` or `-f`: every operand is a file. */
  readonly patternGiven: boolean
  /** Files read as patterns or exclusions (`-f FILE`, `--exclude-from=FILE`). */
  readonly files: ReadonlyArray<Word>
  /** The operands: the pattern (unless given by option), then the files. */
  readonly operands: ReadonlyArray<Word>
  /** Directories are searched (`-r`, `-R`, `-d recurse`). */
  readonly recursive: boolean
  /** Symbolic links inside them are followed (`-R`, `--dereference-recursive`). */
  readonly dereference: boolean
  /** Options grep does not have, ambiguous prefixes, or options only known at run time. */
  readonly unknown: ReadonlyArray<string>
}

// getopt_long: an exact name wins; else a prefix of exactly one option (or of several that
// mean the same, `--col` for color/colour); else grep refuses the line.
const longOption = (name: string): readonly [string, Arity, string] | undefined => {
  const exact = LONG.find(([full]) => full === name)
  if (exact) return exact
  const candidates = LONG.filter(([full]) => full.startsWith(name))
  if (candidates.length === 0) return undefined
  const first = candidates[0]!
  return candidates.every(([, arity, meaning]) => arity === first[1] && meaning === first[2])
    ? first
    : undefined
}

const valueWord = (of: Word, value: string): Word =>
  of.isStatic ? staticWord(value) : { ...of, value, raw: value, path: undefined }

// A word only known at run time is an option when its value starts with `-` (`"$P"` with
// `P=--file=.env`), unless a static character comes first.
const mayBeOption = (word: Word): boolean => /^["']*[-$`]/.test(word.raw)

/** Reads grep's arguments (`words` without the program name). */
export const parseGrep = (words: ReadonlyArray<Word>): GrepLine => {
  let patternGiven = false
  let recursive = false
  let dereference = false
  const files: Array<Word> = []
  const operands: Array<Word> = []
  const unknown: Array<string> = []
  const apply = (meaning: string, value: Word | undefined, written: string): void => {
    switch (meaning) {
      case "e":
        patternGiven = true
        return
      case "f":
        patternGiven = true
        if (value) files.push(value)
        return
      case "exclude-from":
        if (value) files.push(value)
        return
      case "r":
        recursive = true
        return
      case "R":
        recursive = true
        dereference = true
        return
      case "d":
        // argmatch accepts abbreviations of read, recurse and skip.
        if (value === undefined) return
        if (!value.isStatic) unknown.push(written)
        else if (value.value.length >= 3 && "recurse".startsWith(value.value)) recursive = true
        return
      default:
        return
    }
  }
  let endOfOptions = false
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    const option = word.isStatic ? text.startsWith("-") && text !== "-" : mayBeOption(word)
    if (endOfOptions || !option) {
      operands.push(word)
      continue
    }
    if (!word.isStatic) {
      unknown.push(word.raw)
      continue
    }
    if (text === "--") {
      endOfOptions = true
      continue
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=")
      const name = eq === -1 ? text.slice(2) : text.slice(2, eq)
      const spec = longOption(name)
      if (spec === undefined) {
        unknown.push(text)
        continue
      }
      const [, arity, meaning] = spec
      if (arity === "none") {
        if (eq !== -1) unknown.push(text)
        else apply(meaning, undefined, text)
        continue
      }
      if (eq !== -1) apply(meaning, valueWord(word, text.slice(eq + 1)), text)
      else if (arity === "required") {
        const value = words[++i]
        if (value === undefined) unknown.push(text)
        else apply(meaning, value, text)
      }
      continue
    }
    // A cluster of short options: a letter that takes a value takes the rest of the word,
    // or the next word.
    for (let j = 1; j < text.length; j++) {
      const letter = text[j]!
      if (SHORT_VALUED.has(letter)) {
        const rest = text.slice(j + 1)
        const value = rest !== "" ? valueWord(word, rest) : words[++i]
        if (value === undefined) unknown.push(text)
        else apply(letter, value, text)
        break
      }
      if (!SHORT_FLAGS.has(letter)) {
        unknown.push(text)
        break
      }
      apply(letter, undefined, text)
    }
  }
  return { patternGiven, files, operands, recursive, dereference, unknown }
}

/** {@link parseGrep} of an argv of plain strings (its program name first). */
export const parseGrepArgv = (argv: ReadonlyArray<string>): GrepLine =>
  parseGrep(argv.slice(1).map(staticWord))
