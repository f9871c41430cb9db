// Programs that write files whose names they make from a prefix or a template: `split`
// (PREFIX + aa, ab, …), `csplit` (PREFIX + the -b format of a number), `mktemp` (its
// template's Xs replaced). Each such write is the name as written with the generated part a
// `*`, which the edit rules match as a name of its own (`.git/*` covers `.git/hooks/x*`), and
// each existing file that name can be.
import * as Getopt from "./getopt.ts"
import type { Word } from "./model.ts"

export interface Generated {
  readonly reads: ReadonlyArray<Word>
  readonly writes: ReadonlyArray<Word>
  /** Spellings or names that cannot be read with certainty. */
  readonly unmodelled: ReadonlyArray<string>
}

/** Is `key` a program whose output names are generated? */
export const generates = (key: string): boolean => key === "split" || key === "csplit" || key === "mktemp"

// A name made of the words `parts` (their text as paths) with generated parts written `*`:
// as written (a name of its own), and as a glob for the files that exist by it.
const named = (parts: ReadonlyArray<Word | undefined>, text: string): ReadonlyArray<Word> => {
  const known = parts.every((w) => w === undefined || w.path !== undefined)
  const word = (glob: boolean): Word => ({
    value: text,
    raw: text,
    isStatic: parts.every((w) => w?.isStatic ?? true),
    path: known ? text : undefined,
    glob
  })
  const plain = parts.every((w) => w === undefined || !/[*?[]/.test(w.path ?? w.value))
  return known && plain ? [word(false), word(true)] : [word(false)]
}
const text = (word: Word | undefined, otherwise: string): string => word?.path ?? word?.value ?? otherwise

export const generatedPaths = (key: string, words: ReadonlyArray<Word>): Generated => {
  const { options, operands, unreadable } = Getopt.read(words, Getopt.SPECS.get(key)!)
  const unmodelled = unreadable.map((s) => `${key} \`${s}\`: not an option it is known to read as written`)
  const last = (...names: ReadonlyArray<string>) => options.findLast((o) => names.includes(o.name))
  const has = (...names: ReadonlyArray<string>) => last(...names) !== undefined
  const nothing: Generated = { reads: [], writes: [], unmodelled }
  const input = operands[0] !== undefined && operands[0].value !== "-" ? [operands[0]] : []
  switch (key) {
    case "split": {
      // With --filter, each piece goes to a command (judged as one), not to a file.
      if (has("--filter")) return { ...nothing, reads: input }
      const prefix = operands[1]
      const suffix = last("--additional-suffix")?.value
      return {
        ...nothing,
        reads: input,
        writes: named([prefix, suffix], `${text(prefix, "x")}*${suffix?.value ?? ""}`)
      }
    }
    case "csplit": {
      const prefix = last("-f", "--prefix")?.value
      const format = last("-b", "--suffix-format")?.value
      // The format's conversion (`%02d`, `g%.0d`) is the number; the rest is as written.
      const suffix =
        format === undefined
          ? "*"
          : format.value.replace(/%%|%[-+ #0-9.']*[a-zA-Z]/g, (c) => (c === "%%" ? "%" : "*"))
      return { ...nothing, reads: input, writes: named([prefix, format], `${text(prefix, "xx")}${suffix}`) }
    }
    default: {
      // mktemp [-d] [-p DIR | --tmpdir[=DIR]] [-t] [TEMPLATE]: the last run of Xs is replaced;
      // with no template, tmp.XXXXXXXXXX in $TMPDIR (or /tmp), as before not judged.
      const template = operands[0]
      const directory = last("-p", "--tmpdir")
      const suffix = last("--suffix")?.value
      if (has("-u", "--dry-run") || (template === undefined && directory?.value === undefined)) return nothing
      // In $TMPDIR (the caller's, or one set for it: judged as a write there), as with no
      // template; a template with a `/` (`../x`) may leave it.
      if (has("-t") || (directory !== undefined && directory.value === undefined))
        return text(template, "").includes("/") || suffix?.value.includes("/")
          ? {
              ...nothing,
              unmodelled: [...unmodelled, `${key}: a name under $TMPDIR, only known at run time`]
            }
          : nothing
      const name = text(template, "tmp.XXXXXXXXXX").replace(/X+$/, "*") + (suffix?.value ?? "")
      const under = directory?.value === undefined ? "" : `${text(directory.value, "").replace(/\/+$/, "")}/`
      return { ...nothing, writes: named([template, directory?.value, suffix], under + name) }
    }
  }
}
