// Archive and compression programs: what they write besides what their operands say. An
// extractor writes into a directory whose entries' names come from the archive (the
// directory as a whole is written, as `tar -x -C dir` does); a decompressor writes each file
// without its suffix, a compressor each file with one, and both replace the file they read.
import * as Getopt from "./getopt.ts"
import type { Word } from "./model.ts"
import { staticWord } from "./model.ts"

export interface ArchiveWrites {
  readonly writes: ReadonlyArray<Word>
  /** Why what it writes is not known exactly. */
  readonly unmodelled: ReadonlyArray<string>
}

const NOTHING: ArchiveWrites = { writes: [], unmodelled: [] }
const HERE = staticWord(".")

/** What `key` writes as an archive or compression program; nothing for other programs. */
export const archiveWrites = (key: string, words: ReadonlyArray<Word>): ArchiveWrites => {
  switch (key) {
    case "unzip":
      return unzip(words)
    case "zip":
      return zip(words)
    case "7z":
    case "7za":
    case "7zr":
    case "7zz":
      return sevenZip(key, words)
    case "cpio":
      return cpio(words)
    case "ar":
    case "jar":
      // `ar x lib.a`, `jar xf app.jar`: the members land here.
      if (/^-?[a-zA-Z]*x/.test(words[1]?.value ?? "") || words.some((w) => w.value === "--extract"))
        return { writes: [HERE], unmodelled: [] }
      return key === "ar" ? arArchive(words) : NOTHING
    case "unrar":
    case "rar":
      return unrar(words)
    case "dpkg-deb":
    case "dpkg":
    case "unsquashfs":
    case "cabextract":
      return unpacked(key, words)
    default: {
      const compressor = COMPRESSORS.get(key)
      return compressor === undefined ? NOTHING : compress(key, compressor, words)
    }
  }
}

// Package and image extractors: the folder they unpack into (`dpkg-deb -x DEB DIR`,
// `unsquashfs -d DIR`, `cabextract -d DIR`), else where they run (unsquashfs: squashfs-root).
const unpacked = (key: string, words: ReadonlyArray<Word>): ArchiveWrites => {
  const at = (options: RegExp) => words.findIndex((w) => options.test(w.value))
  if (key === "dpkg-deb" || key === "dpkg") {
    // `-x|-X|-R|-e DEB DIR` unpack into DIR (-e: the control files, DEBIAN by default), `-b DIR
    // DEB` builds DEB (or one in DIR); the mode may be glued (`--control=DEB`) or clustered.
    const mode = at(/^(-[a-zA-Z]*[xXReb][a-zA-Z]*|--(extract|vextract|raw-extract|control|build)(=.*)?)$/)
    if (mode === -1) return NOTHING
    const glued = /=(.+)$/s.exec(words[mode]!.value)
    const operands = words.slice(mode + 1).filter((w) => w.value !== "--" && !w.value.startsWith("-"))
    if (glued !== null) operands.unshift(staticWord(glued[1]!))
    const into = operands[1]
    if (into !== undefined) return { writes: [into], unmodelled: [] }
    const control = /^(-[a-zA-Z]*e|--control)/.test(words[mode]!.value)
    return { writes: [control ? staticWord("DEBIAN") : HERE], unmodelled: [] }
  }
  const dest = at(/^(-d|--directory|-dest)$/)
  const into = dest === -1 ? undefined : words[dest + 1]
  if (into !== undefined) return { writes: [into], unmodelled: [] }
  return { writes: [key === "unsquashfs" ? staticWord("squashfs-root") : HERE], unmodelled: [] }
}

/**
 * `ar rc LIB.a a.o`: a key that adds, deletes, moves or indexes writes the archive, the
 * word after the key (after a member name with `a`, `b`, `i`, and a count with `N`); one
 * that extracts (after `--plugin p`, too) writes here.
 */
const arArchive = (words: ReadonlyArray<Word>): ArchiveWrites => {
  const at = words.findIndex(
    (w, i) => i > 0 && !/^--(plugin|target|output)/.test(words[i - 1]!.value) && !w.value.startsWith("--")
  )
  const key = words[at]?.value ?? ""
  if (/^-?[a-zA-Z]*x/.test(key)) return { writes: [HERE], unmodelled: [] }
  if (!/^-?[a-zA-Z]*[dmqrs]/.test(key)) return NOTHING
  const skip = (/[abi]/.test(key.replace(/^-/, "")) ? 1 : 0) + (key.includes("N") ? 1 : 0)
  const archive = words[at + 1 + skip]
  if (archive === undefined) return NOTHING
  return archive.isStatic
    ? { writes: [archive], unmodelled: [] }
    : { writes: [], unmodelled: [`ar writes \`${archive.raw}\`, an archive only known at run time`] }
}

const options = (words: ReadonlyArray<Word>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const word of words.slice(1)) {
    if (word.value === "--") break
    if (word.value.startsWith("-")) out.push(word.value)
  }
  return out
}

// tar's options that name files it reads or writes besides its archive (`-f`): lists of
// names and patterns it reads (printed in its errors), snapshot, index and volume files it
// writes, and files whose contents are the list of what it archives.
const TAR_READS: ReadonlySet<string> = new Set([
  "-T",
  "--files-from",
  "-X",
  "--exclude-from",
  "--owner-map",
  "--group-map",
  "--add-file"
])
const TAR_WRITES: ReadonlySet<string> = new Set([
  "-g",
  "--listed-incremental",
  "--index-file",
  "--volno-file"
])

/** The files tar reads and writes, as its options say (`tar cf .git/x src`, `-T.env`). */
export const tarPaths = (
  key: string,
  words: ReadonlyArray<Word>
): ArchiveWrites & {
  /** Read (and written) where it starts and where `-C` moves, as an option's file may be. */
  readonly reads: ReadonlyArray<Word>
  /** The files it archives, where `-C` moved. */
  readonly members: ReadonlyArray<Word>
  readonly removes: boolean
  /** The directory it extracts into (where `-C` moved). */
  readonly here: Word | undefined
  readonly followsLinks: boolean
} => {
  const { options, operands } = Getopt.read(words, Getopt.SPECS.get(key)!)
  const has = (...names: ReadonlyArray<string>) => options.some((o) => names.includes(o.name))
  const valuesOf = (names: ReadonlySet<string>) =>
    options.flatMap((o) =>
      names.has(o.name) && o.value !== undefined && o.value.value !== "-" ? [o.value] : []
    )
  const extracts = has("-x", "--extract", "--get") && !has("-O", "--to-stdout", "--to-command")
  const lists = has("-t", "--list", "-d", "--diff", "--compare")
  const archives = valuesOf(new Set(["-f", "--file"]))
  // Creating, it only writes the archive; appending, updating or deleting, it reads it too.
  const creates = has("-c", "--create")
  const reads = [...valuesOf(TAR_READS), ...(creates ? [] : archives)]
  const writes = [...valuesOf(TAR_WRITES), ...(extracts || lists ? [] : archives)]
  const unmodelled: Array<string> = []
  // The names it archives are then in a file or its input, not on the command line.
  if (!extracts && !lists && has("-T", "--files-from"))
    unmodelled.push(`${key} -T archives the files its list names, which are not visible here`)
  if (has("--exclude-ignore", "--exclude-ignore-recursive"))
    unmodelled.push(`${key} --exclude-ignore reads the file it names in every directory it archives`)
  if (extracts) {
    // Without -P, tar and bsdtar drop a leading `/` and refuse `..` in the names they
    // extract: they stay under `here`, the directory it runs in (`-C` moves it, as a cd).
    if (has("-P", "--absolute-names"))
      unmodelled.push(`${key} -P extracts names as they are: absolute ones and \`..\` anywhere`)
  }
  return {
    reads,
    writes,
    unmodelled,
    // What it archives is read, and deleted once archived with --remove-files.
    members: extracts || lists ? [] : operands,
    removes: has("--remove-files"),
    here: extracts ? HERE : undefined,
    followsLinks: has("-h", "--dereference")
  }
}

// zip's options whose value is the next word, and those followed by a list of names (up
// to the next option).
const ZIP_VALUED: ReadonlySet<string> = new Set(
  "-b -n -t -tt -O -s -sp -lf -Z -P -TT -ds -ll -MM --temp-path --suffixes --output-file --logfile-path --unzip-command --password --split-size --compression-method".split(
    " "
  )
)
const ZIP_LISTS: ReadonlySet<string> = new Set(["-x", "-i", "--exclude", "--include"])

// `zip [-opts] ZIP [names]`: the archive is written (`.zip` added to a name without a dot),
// or read and written to -O's file instead; -m removes the files it adds.
const zip = (words: ReadonlyArray<Word>): ArchiveWrites => {
  const operands: Array<Word> = []
  let output: Word | undefined
  let moves = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    const text = word.value
    if (!word.isStatic || !text.startsWith("-") || text === "-") {
      operands.push(word)
      continue
    }
    if (ZIP_VALUED.has(text)) {
      if (text === "-O" || text === "--output-file") output = words[i + 1]
      i++
    } else if (ZIP_LISTS.has(text)) while (i + 1 < words.length && !words[i + 1]!.value.startsWith("-")) i++
    else if (/^-[a-zA-Z]*m/.test(text) || text === "--move") moves = true
    const glued = /^-O(.+)$/s.exec(text)?.[1]
    if (glued !== undefined) output = { ...word, value: glued, raw: glued, path: word.path && glued }
  }
  const archive = operands[0]
  const unmodelled = words.some((w) => /^-[a-zA-Z]*@$/.test(w.value) || w.value === "--names-stdin")
    ? ["zip -@ adds the files its input names, which are not visible here"]
    : []
  if (archive === undefined || archive.value === "-") return { writes: [], unmodelled }
  const name = archive.path === undefined || /\.[^/]*$/.test(archive.path) ? archive : zipName(archive)
  return { writes: [output ?? name, ...(moves ? operands.slice(1) : [])], unmodelled }
}

const zipName = (word: Word): Word => ({
  ...word,
  value: `${word.value}.zip`,
  raw: `${word.raw}.zip`,
  path: `${word.path}.zip`,
  glob: false
})

// `unzip [-opts] ZIP [names] [-x names] [-d DIR]`: options may come after the archive. It drops
// a leading `/` and `../` unless told `-:`.
const unzip = (words: ReadonlyArray<Word>): ArchiveWrites => {
  const writes: Array<Word> = []
  const unmodelled: Array<string> = []
  let lists = false
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.value
    if (!text.startsWith("-") || text === "-") continue
    const letters = text.slice(1)
    const d = letters.indexOf("d")
    const flags = d === -1 ? letters : letters.slice(0, d)
    // List, test, print to the terminal, comment, zipinfo: nothing is written.
    if (/[lvtpcZz]/.test(flags)) lists = true
    if (flags.includes(":")) unmodelled.push("unzip -: extracts `../` names: anywhere above the directory")
    if (d !== -1) {
      const glued = letters.slice(d + 1)
      const value = glued !== "" ? { ...words[i]!, value: glued, raw: glued, path: glued } : words[++i]
      if (value !== undefined) writes.push(value)
    }
  }
  if (lists) return NOTHING
  return { writes: writes.length > 0 ? writes : [HERE], unmodelled }
}

// `7z x|e ARCHIVE [-oDIR]`: the command is the first word that is not a switch.
const sevenZip = (key: string, words: ReadonlyArray<Word>): ArchiveWrites => {
  const command = words
    .slice(1)
    .find((w) => !w.value.startsWith("-"))
    ?.value.toLowerCase()
  // `7z a|u|d|rn ARCHIVE …` changes the archive, its first operand after the command.
  if (command === "a" || command === "u" || command === "d" || command === "rn") {
    const operands = words.slice(1).filter((w) => !w.value.startsWith("-"))
    return { writes: operands.slice(1, 2), unmodelled: [] }
  }
  if (command !== "x" && command !== "e") return NOTHING
  const writes: Array<Word> = []
  const unmodelled: Array<string> = []
  for (const word of words.slice(1)) {
    if (/^-o./.test(word.value)) {
      const dir = word.value.slice(2)
      writes.push({ ...word, value: dir, raw: dir, path: word.path === undefined ? undefined : dir })
    }
    if (/^-(so|spf)/.test(word.value))
      if (word.value.startsWith("-so")) return NOTHING
      else unmodelled.push(`${key} -spf extracts names as they are: absolute ones and \`..\` anywhere`)
  }
  return { writes: writes.length > 0 ? writes : [HERE], unmodelled }
}

// GNU cpio extracts absolute names and `..` as they are; `-o` and `-p` take the names of the
// files they read (or copy) from their input.
const cpio = (words: ReadonlyArray<Word>): ArchiveWrites => {
  const all = options(words)
  const mode = (letter: string, long: string) =>
    all.some((o) => o === long || (/^-[^-]/.test(o) && o.includes(letter)))
  if (mode("i", "--extract"))
    return { writes: [HERE], unmodelled: ["cpio -i writes the names in the archive, which may be anywhere"] }
  if (mode("o", "--create") || mode("p", "--pass-through"))
    return { writes: [], unmodelled: ["cpio reads the files named in its input, only known at run time"] }
  return NOTHING
}

// `unrar x|e ARCHIVE [files] [DEST/]`: a last operand ending with `/` is where it extracts.
const unrar = (words: ReadonlyArray<Word>): ArchiveWrites => {
  const operands = words.slice(1).filter((w) => !w.value.startsWith("-"))
  const command = operands[0]?.value
  // `rar a|u|d|rn ARCHIVE …` changes the archive, its first operand after the command.
  if (command === "a" || command === "u" || command === "d" || command === "rn")
    return { writes: operands.slice(1, 2), unmodelled: [] }
  if (command !== "x" && command !== "e") return NOTHING
  const last = operands.at(-1)
  return { writes: operands.length > 2 && last!.value.endsWith("/") ? [last!] : [HERE], unmodelled: [] }
}

interface Compressor {
  /** The suffix it adds. */
  readonly suffix: string
  /** It decompresses by default (`gunzip`) rather than when told `-d`. */
  readonly decompresses: boolean
  /** It keeps the file it read (zstd, lz4) unless told `--rm`. */
  readonly keeps?: boolean
}

const COMPRESSORS: ReadonlyMap<string, Compressor> = new Map([
  ["gzip", { suffix: ".gz", decompresses: false }],
  ["gunzip", { suffix: ".gz", decompresses: true }],
  ["pigz", { suffix: ".gz", decompresses: false }],
  ["unpigz", { suffix: ".gz", decompresses: true }],
  ["bzip2", { suffix: ".bz2", decompresses: false }],
  ["bunzip2", { suffix: ".bz2", decompresses: true }],
  ["xz", { suffix: ".xz", decompresses: false }],
  ["unxz", { suffix: ".xz", decompresses: true }],
  ["lzma", { suffix: ".lzma", decompresses: false }],
  ["unlzma", { suffix: ".lzma", decompresses: true }],
  ["zstd", { suffix: ".zst", decompresses: false, keeps: true }],
  ["unzstd", { suffix: ".zst", decompresses: true, keeps: true }],
  ["lz4", { suffix: ".lz4", decompresses: false, keeps: true }],
  ["unlz4", { suffix: ".lz4", decompresses: true, keeps: true }]
])

// Each file operand becomes the file with its suffix added, or (decompressing) taken off; `-c`
// sends the result to the terminal instead. A name stored in the archive (`-N`), a suffix
// given (`-S`), an output file (`-o`) or a recursive walk make other names.
const compress = (key: string, spec: Compressor, words: ReadonlyArray<Word>): ArchiveWrites => {
  const all = options(words)
  const short = (letters: RegExp) => all.some((o) => /^-[^-]/.test(o) && letters.test(o.slice(1)))
  if (short(/[ctl]/) || all.some((o) => /^--(stdout|to-stdout|test|list)$/.test(o))) return NOTHING
  const decompresses =
    spec.decompresses || short(/d/) || all.includes("--decompress") || all.includes("--uncompress")
  const writes: Array<Word> = []
  const unmodelled: Array<string> = []
  if (short(/[NSro]/) || all.some((o) => /^--(name|suffix|recursive|output)/.test(o)))
    unmodelled.push(`${key}: the names it writes (-N, -S, -r, -o) are not followed`)
  const operands = words.slice(1).filter((w) => !w.value.startsWith("-") || w.value === "-")
  // lz4 and zstd without -m take `INPUT [OUTPUT]`.
  if ((key === "lz4" || key === "unlz4") && operands.length === 2 && !short(/m/))
    return { writes: [operands[1]!], unmodelled }
  for (const word of operands) {
    if (word.value === "-") continue
    const keeps = spec.keeps ? !all.includes("--rm") : short(/k/) || all.includes("--keep")
    if (!keeps) writes.push(word)
    const path = word.path
    const name = decompresses ? withoutSuffix(path) : path === undefined ? undefined : path + spec.suffix
    writes.push({ ...word, value: name ?? word.value, raw: name ?? word.raw, path: name })
  }
  return { writes, unmodelled }
}

// `x.tar.gz` -> `x.tar`, `x.tgz` -> `x.tar`: the last suffix off (gzip knows a few more spellings,
// each also a last suffix).
const withoutSuffix = (path: string | undefined): string | undefined => {
  if (path === undefined) return undefined
  const match = /^(.*[^/])(\.[^./]*|[-_]g?z)$/.exec(path)
  if (match === null) return undefined
  return /^\.t(gz|az|bz2?|xz|zst)$/.test(match[2]!) ? `${match[1]}.tar` : match[1]!
}
