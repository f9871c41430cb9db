/**
 * The built-in rules: what Gatehouse decides when no configuration says otherwise. Every
 * `gatehouse` command and the session loop start from {@link ruleset}, and a user's rules
 * follow it, so a user's rule always wins (`"rm *": "allow"` allows `rm -rf build`).
 *
 * The shape is an allow-list. A shell command is allowed only when the shell gate vouches
 * that it is harmless (it models the whole text, finds no risk flag, and every program is a
 * known read or file operation: `ls`, `cat`, `grep`, `git status`, `git diff`, `mkdir`; see
 * `@gatehousejs/shell` `ShellGate`); anything else asks: destructive operations (`rm -rf`,
 * `git push --force`, `git reset --hard`, `dd`, `chmod -R`), privilege wrappers (`sudo`,
 * `doas`, `su`, `pkexec`, `run0`), fetch-and-run (`curl … | sh`, `sh -c "$(curl …)"`,
 * `bash <(curl …)`), builds and tests (`npm test`, `make`: they run what the project's files
 * say, and the model can edit those), programs the gate does not know, and text it cannot
 * model. Other tools and edits in the project are allowed, but not of `.git/` (git's
 * configuration and hooks decide what `git status` runs); a path outside the project and a
 * repeated call (`doom_loop`) ask; `.env` files ask to be read (`.env.example` does not), as
 * in opencode's agent defaults, and so do keys and credentials ({@link HOME_CREDENTIALS}:
 * `.ssh/`, `.aws/`, `.git-credentials`, `.config/gh/`, `.kube/`, shell histories …) wherever
 * they are.
 *
 * @example
 * ```ts
 * import { Defaults, Permission } from "@gatehousejs/permission"
 * const ruleset = Permission.merge(Defaults.ruleset, Permission.fromConfig({ bash: { "rm *": "allow" } }))
 * ```
 *
 * @since 0.1.0
 */
import type { Rule, Ruleset } from "./Ruleset.ts"

/**
 * Where keys, tokens and passwords live under a home directory (paths relative to it): a
 * read of any of them asks wherever it is, and the sandbox hides them (`Sandbox.HOME_SECRETS`).
 * Not `.gitconfig`: a token there (`url.…insteadOf`) is rare, and hidden it would break
 * every git command in the sandbox (name, aliases, `safe.directory`, credential helper).
 * Not `.config/gatehouse`: it holds rules, no keys (they come only from the environment).
 *
 * @since 0.1.0
 */
export const HOME_CREDENTIALS: ReadonlyArray<string> = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gh",
  ".config/hub",
  ".config/op",
  ".config/rclone",
  ".config/gcloud",
  ".netrc",
  ".docker/config.json",
  ".kube",
  ".npmrc",
  ".yarnrc.yml",
  ".git-credentials",
  ".config/git/credentials",
  ".azure",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".terraform.d",
  ".vault-token",
  ".pgpass",
  ".my.cnf",
  ".m2/settings.xml",
  ".gradle/gradle.properties",
  ".password-store",
  ".local/share/keyrings",
  "Library/Keychains",
  ".claude/.credentials.json",
  ".codex/auth.json",
  ".gemini/oauth_creds.json",
  ".config/glab-cli",
  ".config/containers/auth.json",
  ".config/doctl",
  ".config/sops",
  ".gem/credentials",
  ".composer/auth.json",
  ".config/composer/auth.json",
  ".terraformrc",
  ".boto",
  ".s3cfg",
  ".oci",
  ".fly",
  ".subversion/auth",
  ".cache/huggingface/token",
  // What was typed into shells and REPLs: passwords and tokens pasted on a command line.
  ".bash_history",
  ".zsh_history",
  ".sh_history",
  ".local/share/fish/fish_history",
  ".local/share/powershell/PSReadLine",
  "AppData/Roaming/Microsoft/Windows/PowerShell/PSReadLine",
  ".python_history",
  ".node_repl_history",
  ".irb_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".rediscli_history",
  ".lesshst"
]

/**
 * One built-in rule and what it is for, in words a person reads in a trace.
 *
 * @since 0.1.0
 */
export interface Entry {
  readonly rule: Rule
  readonly name: string
}

/**
 * The built-in rules with their names, in order (later rules win).
 *
 * @since 0.1.0
 */
export const entries: ReadonlyArray<Entry> = [
  {
    rule: { permission: "*", pattern: "*", action: "allow" },
    name: "edits inside the project and other tools are allowed"
  },
  { rule: { permission: "bash", pattern: "*", action: "ask" }, name: "a command asks unless it is harmless" },
  {
    rule: { permission: "bash", pattern: "*", action: "allow", when: "harmless" },
    name: "a harmless command is allowed (a known read or file operation, with no risk flag)"
  },
  {
    rule: { permission: "edit", pattern: ".git/*", action: "ask" },
    name: "editing git's own files asks (they configure what git runs)"
  },
  { rule: { permission: "doom_loop", pattern: "*", action: "ask" }, name: "a call repeated 3 times asks" },
  {
    rule: { permission: "external_directory", pattern: "*", action: "ask" },
    name: "a path outside the project asks"
  },
  { rule: { permission: "read", pattern: "*", action: "allow" }, name: "reading a file is allowed" },
  { rule: { permission: "read", pattern: "*.env", action: "ask" }, name: "reading a .env file asks" },
  { rule: { permission: "read", pattern: "*.env.*", action: "ask" }, name: "reading a .env file asks" },
  {
    rule: { permission: "read", pattern: "*.env.example", action: "allow" },
    name: "reading .env.example is allowed"
  },
  // Wherever the project is (a hook called from the home folder makes the home the project):
  // the file or folder itself, and what is inside it.
  ...HOME_CREDENTIALS.flatMap((place) =>
    [`*${place}`, `*${place}/*`].map((pattern) => ({
      rule: { permission: "read", pattern, action: "ask" as const },
      name: `reading keys and credentials asks (${place})`
    }))
  )
]

/**
 * The built-in rules, to put before a user's (`Permission.merge(Defaults.ruleset, user)`).
 *
 * @since 0.1.0
 */
export const ruleset: Ruleset = entries.map((entry) => entry.rule)

/**
 * Where each rule of {@link ruleset} comes from (same indexes), as traces name it:
 * `default: <name>`.
 *
 * @since 0.1.0
 */
export const sources: ReadonlyArray<string> = entries.map((entry) => `default: ${entry.name}`)

/**
 * Whether `source` names a built-in rule (one of {@link sources}), or `default`, which a
 * trace writes when no rule matched at all.
 *
 * @since 0.1.0
 */
export const isSource = (source: string): boolean => source === "default" || sources.includes(source)
