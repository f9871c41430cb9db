// bash's `set -o NAME`/`set -x` and zsh's `setopt`/`unsetopt` (the shell when $SHELL is
// zsh): an allow-list of the options that change nothing this analysis models (what later
// commands touch, run, or how their words expand). Any other one, set or unset, or one only
// known at run time, is not followed: `setopt globdots; cat *` reads .env, `set -o
// nocaseglob; cat .EN*` too, `set -a` exports every later assignment.
import type { Word } from "./model.ts"

// Long names, lower-cased without underscores (zsh's spelling), either way round.
const HARMLESS: ReadonlySet<string> = new Set([
  "errexit",
  "errreturn",
  "errtrace",
  "functrace",
  "nounset",
  "unset",
  "pipefail",
  "xtrace",
  "verbose",
  "noclobber",
  "clobber",
  "notify",
  "hashall",
  "hashcmds",
  "monitor",
  "ignoreeof",
  "emacs",
  "vi",
  "noexec",
  "exec",
  "nolog",
  "onecmd",
  "privileged",
  "printexitvalue",
  "localoptions",
  "localtraps",
  "warncreateglobal",
  "warnnestedvar",
  "checkjobs",
  "hup",
  "beep",
  "histignoredups",
  "histignorespace",
  "sharehistory",
  "appendhistory",
  "incappendhistory",
  "extendedhistory"
])

// One-letter options harmless either way in bash and in zsh (whose letters differ: its -T is
// CDABLE_VARS, -4 GLOB_DOTS): -e -u -x -v -C -E -h -m -b -n -t -p; bash's -B (brace expansion,
// on by default) only turned on, its -H (history expansion) only turned off.
const HARMLESS_LETTERS = /^[euxvCEhmbntpBH]$/

// zsh reads `NO_NAME` as NAME turned off, and ignores case and underscores.
const normalise = (name: string): string => name.toLowerCase().replaceAll("_", "")
const harmless = (name: string): boolean => {
  const key = normalise(name)
  return HARMLESS.has(key) || (key.startsWith("no") && HARMLESS.has(key.slice(2)))
}

const KEYWORD = "turns on keyword mode: assignments after a program name set its environment"

/** Why a `set` leaves later commands not modelled (`[]`: it does not). */
export const setProblems = (words: ReadonlyArray<Word>): ReadonlyArray<string> => {
  const problems: Array<string> = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (!word.isStatic) {
      problems.push(`set \`${word.raw}\`: options only known at run time`)
      break
    }
    const text = word.value
    // `set --`, `set -`, `set a b`: the positional parameters follow.
    if (!/^[-+][a-zA-Z0-9]+$/.test(text)) break
    const on = text.startsWith("-")
    let named = false
    for (const letter of text.slice(1)) {
      if (letter === "o") named = true
      else if (letter === "k") problems.push(KEYWORD)
      else if (!HARMLESS_LETTERS.test(letter) || (letter === "B" && !on) || (letter === "H" && on))
        problems.push(`set ${text[0]}${letter} changes how later commands are read or expand`)
    }
    if (!named) continue
    // `set -o` alone lists the options.
    const name = words[i + 1]
    if (name === undefined) break
    i++
    if (!name.isStatic) problems.push(`set ${text[0]}o \`${name.raw}\`: an option only known at run time`)
    else if (normalise(name.value) === "keyword") problems.push(KEYWORD)
    else if (!harmless(name.value))
      problems.push(`set ${text[0]}o ${name.value} changes how later commands are read or expand`)
  }
  return problems
}

/** Why a zsh `setopt`/`unsetopt` leaves later commands not modelled (`[]`: it does not). */
export const setoptProblems = (words: ReadonlyArray<Word>): ReadonlyArray<string> => {
  const program = words[0]!.value
  const problems: Array<string> = []
  for (const word of words.slice(1)) {
    if (!word.isStatic) problems.push(`${program} \`${word.raw}\`: an option only known at run time`)
    else if (!harmless(word.value))
      problems.push(`${program} ${word.value} changes how later commands are read or expand`)
  }
  return problems
}
