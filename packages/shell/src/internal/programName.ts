// How a program named on a command line is looked up in the gate's tables: by its name
// without the directory, in lower case, without Windows' `.exe`.

/** A name without its directory (after the last `/` or `\`). */
export const baseName = (name: string): string =>
  name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1)

/** A program's key in the gate's tables (`/usr/bin/Git.exe` -> `git`). */
export const programKey = (name: string): string => {
  const key = baseName(name).toLowerCase()
  return key.endsWith(".exe") ? key.slice(0, -4) : key
}
