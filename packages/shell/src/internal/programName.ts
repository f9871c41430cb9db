// How a program named on a command line is looked up in the gate's tables: by its name
// without the directory, in lower case, without Windows' `.exe`.

/** A name without its directory (after the last `/` or `\`). */
export const baseName = (name: string): string =>
  name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1)

/** A program's key in the gate's tables (`/usr/bin/Git.exe` -> `git`, `vim.basic` -> `vim`). */
export const programKey = (name: string): string => {
  const base = baseName(name).toLowerCase()
  const key = base.endsWith(".exe") ? base.slice(0, -4) : base
  return aliasOf(key)
}

/** The program the tables know `key` (a lower-case base name) as (`vim.basic` -> `vim`). */
export const aliasOf = (key: string): string => ALIASES.get(key) ?? (key.startsWith("vim.") ? "vim" : key)

// Other names of programs the tables know, which run them with the same options.
const ALIASES: ReadonlyMap<string, string> = new Map([
  ["vimdiff", "vim"],
  ["gvimdiff", "vim"],
  ["rvim", "vim"],
  ["evim", "vim"],
  ["rview", "vim"],
  ["gview", "vim"],
  ["nvim-qt", "nvim"],
  ["rust-gdb", "gdb"],
  ["gdb-multiarch", "gdb"],
  ["rust-lldb", "lldb"],
  ["toybox", "busybox"]
])
