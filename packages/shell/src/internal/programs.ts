// What the analysis knows about programs: which change directory, which wrap another
// command (and their options), which are shells or interpreters, which environment
// variables make programs run other programs, and which never take file arguments.
// Names are looked up lower-cased.
import * as ShellParser from "../ShellParser.ts"
import { GREP_PROGRAMS, parseGrepArgv } from "./grep.ts"

/** Commands that change the working directory of the shell. */
export const DIRECTORY_COMMANDS: ReadonlySet<string> = new Set([
  "cd",
  "chdir",
  "pushd",
  "popd",
  "set-location",
  "push-location",
  "pop-location"
])

/** PowerShell aliases (lower-cased) to the cmdlet they run. */
export const POWERSHELL_ALIASES: ReadonlyMap<string, string> = new Map([
  ["rm", "Remove-Item"],
  ["del", "Remove-Item"],
  ["erase", "Remove-Item"],
  ["ri", "Remove-Item"],
  ["rd", "Remove-Item"],
  ["rmdir", "Remove-Item"],
  ["cp", "Copy-Item"],
  ["copy", "Copy-Item"],
  ["cpi", "Copy-Item"],
  ["mv", "Move-Item"],
  ["move", "Move-Item"],
  ["mi", "Move-Item"],
  ["cat", "Get-Content"],
  ["gc", "Get-Content"],
  ["sls", "Select-String"],
  ["type", "Get-Content"],
  ["sc", "Set-Content"],
  ["ac", "Add-Content"],
  ["ni", "New-Item"],
  ["md", "New-Item"],
  ["mkdir", "New-Item"],
  ["ls", "Get-ChildItem"],
  ["dir", "Get-ChildItem"],
  ["gci", "Get-ChildItem"],
  ["cd", "Set-Location"],
  ["sl", "Set-Location"],
  ["chdir", "Set-Location"],
  ["pushd", "Push-Location"],
  ["popd", "Pop-Location"],
  ["iex", "Invoke-Expression"],
  ["icm", "Invoke-Command"],
  ["saps", "Start-Process"],
  ["start", "Start-Process"],
  ["ii", "Invoke-Item"],
  ["echo", "Write-Output"],
  ["write", "Write-Output"],
  ["iwr", "Invoke-WebRequest"],
  ["irm", "Invoke-RestMethod"],
  ["ren", "Rename-Item"],
  ["rni", "Rename-Item"],
  ["clc", "Clear-Content"],
  ["si", "Set-Item"],
  ["sal", "Set-Alias"],
  ["nal", "New-Alias"],
  ["sajb", "Start-Job"],
  ["%", "ForEach-Object"],
  ["foreach", "ForEach-Object"],
  ["?", "Where-Object"],
  ["where", "Where-Object"],
  ["tee", "Tee-Object"],
  ["ipmo", "Import-Module"]
])

/**
 * Per cmdlet (lower-cased), every alias PowerShell has for it: one command whatever name it
 * is written under, so a rule written for any of them is weighed for all.
 */
export const POWERSHELL_ALIASES_OF: ReadonlyMap<string, ReadonlyArray<string>> = (() => {
  const out = new Map<string, Array<string>>()
  for (const [alias, cmdlet] of POWERSHELL_ALIASES) {
    const key = cmdlet.toLowerCase()
    const list = out.get(key)
    if (list === undefined) out.set(key, [alias])
    else list.push(alias)
  }
  return out
})()

/** Canonical spelling of cmdlets the analysis reasons about (keys lower-cased). */
export const POWERSHELL_CMDLETS: ReadonlyMap<string, string> = new Map(
  [
    "Remove-Item",
    "Copy-Item",
    "Move-Item",
    "Get-Content",
    "Set-Content",
    "Add-Content",
    "Clear-Content",
    "New-Item",
    "Get-ChildItem",
    "Set-Location",
    "Push-Location",
    "Pop-Location",
    "Invoke-Expression",
    "Invoke-Command",
    "Start-Process",
    "Invoke-Item",
    "Write-Output",
    "Write-Host",
    "Invoke-WebRequest",
    "Invoke-RestMethod",
    "Rename-Item",
    "Set-Item",
    "Set-Alias",
    "New-Alias",
    "Start-Job",
    "ForEach-Object",
    "Where-Object",
    "Tee-Object",
    "Out-File",
    "Export-Csv",
    "Export-Clixml",
    "Add-Type",
    "Import-Module",
    "Expand-Archive",
    "Compress-Archive",
    "Set-ExecutionPolicy"
  ].map((name) => [name.toLowerCase(), name])
)

/** POSIX shells whose `-c` payload is parsed with the bash grammar. */
export const POSIX_SHELLS = ShellParser.POSIX_SHELLS
/** Shells whose syntax we do not model. */
export const FOREIGN_SHELLS: ReadonlySet<string> = new Set([
  "fish",
  "nu",
  "csh",
  "tcsh",
  "xonsh",
  "elvish",
  "cmd",
  "cmd.exe"
])
export const POWERSHELLS: ReadonlySet<string> = new Set(["pwsh", "powershell", "pwsh.exe", "powershell.exe"])

/** Interpreters and the options that take code on the command line. */
export const INTERPRETERS: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  [
    "node",
    ["-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader", "--experimental-loader"]
  ],
  ["nodejs", ["-e", "--eval", "-p", "--print", "-r", "--require", "--import"]],
  ["bun", ["-e", "--eval", "-p", "--print"]],
  // TypeScript runners read node's code options.
  ["tsx", ["-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader"]],
  ["ts-node", ["-e", "--eval", "-p", "--print", "-r", "--require"]],
  ["deno", ["eval"]],
  ["perl", ["-e", "-E"]],
  ["ruby", ["-e"]],
  ["php", ["-r"]],
  ["lua", ["-e"]],
  ["luajit", ["-e"]],
  ["rscript", ["-e"]],
  ["r", ["-e"]],
  ["osascript", ["-e"]],
  ["expect", ["-c"]],
  ["tclsh", []],
  ["wish", []],
  ["gdb", ["-ex", "--eval-command", "-x", "--command"]],
  [
    "lldb",
    [
      "-o",
      "--one-line",
      "-O",
      "--one-line-before-file",
      "-s",
      "--source",
      "-S",
      "--source-before-file",
      "-k",
      "-K"
    ]
  ],
  ["dc", ["-e", "--expression", "-f", "--file"]],
  ["vim", ["-c", "--cmd", "-S"]],
  ["vi", ["-c", "--cmd", "-S"]],
  ["nvim", ["-c", "--cmd", "-S"]],
  ["ex", ["-c", "--cmd", "-S"]],
  ["emacs", ["--eval", "-l", "--load", "-f", "--funcall"]]
])

/** pip under any of its versioned names (`pip`, `pip3`, `pip3.11`). */
export const isPip = (key: string): boolean => key.startsWith("pip") && /^pip(\d+(\.\d+)*)?$/.test(key)

export const isPython = (key: string): boolean =>
  key.startsWith("py") && /^(python|pypy)(\d+(\.\d+)*)?$/.test(key)

/**
 * Programs an "always allow" must never cover as a whole (`bash *`, `sudo *`, `python *`):
 * shells, wrappers, `eval`/`source`, interpreters.
 */
export const isBroadProgram = (key: string): boolean =>
  POSIX_SHELLS.has(key) ||
  FOREIGN_SHELLS.has(key) ||
  POWERSHELLS.has(key) ||
  WRAPPERS.has(key) ||
  INTERPRETERS.has(key) ||
  isPython(key) ||
  AWKS.has(key) ||
  BROAD.has(key)

const BROAD: ReadonlySet<string> = new Set([
  "eval",
  "source",
  ".",
  "exec",
  "xargs",
  "find",
  "invoke-expression",
  "invoke-command",
  "start-process",
  "start-job",
  "npx",
  "bunx",
  "pnpx",
  "uvx",
  "ssh"
])

export const AWKS: ReadonlySet<string> = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"])

/** How a wrapper's options are laid out, so the wrapped command can be found. */
export interface WrapperSpec {
  /** Options that take a value (`-u root`, `--user=root`). */
  readonly valued: ReadonlyArray<string>
  /** Options without a value. */
  readonly flags: ReadonlyArray<string>
  /** Positional arguments before the command (`timeout 5 cmd`: 1). */
  readonly positional?: number
  /** `NAME=value` words before the command set its environment (`env`). */
  readonly assignments?: boolean
  /** Options whose value is the directory the command runs in. */
  readonly chdir?: ReadonlyArray<string>
  /** Options that mean "no command follows" (`command -v`, `ionice -p`). */
  readonly noCommand?: ReadonlyArray<string>
  /** Options whose value is a shell command line (`su -c`, `flock -c`). */
  readonly script?: ReadonlyArray<string>
  /** Options whose value is a file the wrapper writes (`time -o`). */
  readonly writes?: ReadonlyArray<string>
  /** Accepts `-N` numbers as options (`nice -10`). */
  readonly numeric?: boolean
  /** Options whose value runs code this analysis cannot see (`screen -X`, `screen -c rcfile`). */
  readonly opaque?: ReadonlyArray<string>
  /** Without `-x`, watch runs its words through `sh -c`. */
  readonly joinsWords?: boolean
}

const SETARCH_FLAGS = [
  "-v",
  "--verbose",
  "-3",
  "--3gb",
  "-B",
  "--32bit",
  "-F",
  "--fdpic-funcptrs",
  "-I",
  "--short-inode",
  "-L",
  "--addr-compat-layout",
  "-R",
  "--addr-no-randomize",
  "-S",
  "--whole-seconds",
  "-T",
  "--sticky-timeouts",
  "-X",
  "--read-implies-exec",
  "-Z",
  "--mmap-page-zero",
  "--4gb",
  "--uname-2.6"
]

export const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  [
    "sudo",
    {
      valued: [
        "-u",
        "--user",
        "-g",
        "--group",
        "-h",
        "--host",
        "-p",
        "--prompt",
        "-C",
        "--close-from",
        "-D",
        "--chdir",
        "-r",
        "--role",
        "-t",
        "--type",
        "-U",
        "--other-user",
        "-T",
        "--command-timeout",
        "-R",
        "--chroot"
      ],
      flags: [
        "-A",
        "--askpass",
        "-b",
        "--background",
        "-E",
        "--preserve-env",
        "-H",
        "--set-home",
        "-i",
        "--login",
        "-K",
        "--remove-timestamp",
        "-k",
        "--reset-timestamp",
        "-n",
        "--non-interactive",
        "-P",
        "--preserve-groups",
        "-S",
        "--stdin",
        "-s",
        "--shell",
        "-B",
        "--bell",
        "-N",
        "--no-update"
      ],
      // `sudo NAME=value cmd`: set for the command, as env does.
      assignments: true,
      chdir: ["-D", "--chdir"],
      noCommand: ["-v", "--validate", "-l", "--list", "-V", "--version", "-e", "--edit", "-K"]
    }
  ],
  ["doas", { valued: ["-u", "-C"], flags: ["-n", "-s", "-L"], noCommand: ["-L"] }],
  [
    "env",
    {
      valued: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"],
      flags: [
        "-i",
        "--ignore-environment",
        "-0",
        "--null",
        "-v",
        "--debug",
        "-",
        "--list-signal-handling",
        "--block-signal",
        "--default-signal",
        "--ignore-signal"
      ],
      assignments: true,
      chdir: ["-C", "--chdir"],
      script: ["-S", "--split-string"]
    }
  ],
  ["nohup", { valued: [], flags: [] }],
  ["nice", { valued: ["-n", "--adjustment"], flags: [], numeric: true }],
  [
    "ionice",
    {
      valued: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"],
      flags: ["-t", "--ignore"],
      noCommand: ["-p", "--pid", "-P", "--pgid", "-u", "--uid"]
    }
  ],
  [
    "timeout",
    {
      valued: ["-s", "--signal", "-k", "--kill-after"],
      flags: ["--foreground", "--preserve-status", "-v", "--verbose", "-f"],
      positional: 1
    }
  ],
  [
    "time",
    {
      valued: ["-f", "--format", "-o", "--output"],
      flags: ["-p", "--portability", "-v", "--verbose", "-a", "--append", "-q", "--quiet"],
      writes: ["-o", "--output"]
    }
  ],
  ["stdbuf", { valued: ["-i", "--input", "-o", "--output", "-e", "--error"], flags: [] }],
  ["command", { valued: [], flags: ["-p"], noCommand: ["-v", "-V"] }],
  ["builtin", { valued: [], flags: [] }],
  ["exec", { valued: ["-a"], flags: ["-c", "-l"] }],
  ["noglob", { valued: [], flags: [] }],
  // zsh's other precommand modifiers and its `repeat N command` (the shell when $SHELL is zsh).
  ["nocorrect", { valued: [], flags: [] }],
  ["-", { valued: [], flags: [] }],
  ["repeat", { valued: [], flags: [], positional: 1 }],
  [
    "watch",
    {
      valued: ["-n", "--interval", "-q", "--equexit"],
      flags: [
        "-b",
        "--beep",
        "-c",
        "--color",
        "-C",
        "--no-color",
        "-d",
        "--differences",
        "-e",
        "--errexit",
        "-g",
        "--chgexit",
        "-p",
        "--precise",
        "-t",
        "--no-title",
        "-w",
        "--no-wrap",
        "-x",
        "--exec",
        "-r",
        "--no-rerun"
      ],
      joinsWords: true
    }
  ],
  ["setsid", { valued: [], flags: ["-c", "--ctty", "-f", "--fork", "-w", "--wait"] }],
  [
    "ssh-agent",
    { valued: ["-a", "-E", "-O", "-P", "-t"], flags: ["-c", "-s", "-d", "-D"], noCommand: ["-k"] }
  ],
  // setarch takes its architecture first and its options after it; linux32, linux64 and the
  // architecture names are setarch under another name, with no architecture word.
  ["setarch", { valued: [], flags: SETARCH_FLAGS, positional: 1 }],
  ...["linux32", "linux64", "i386", "x86_64"].map((name): readonly [string, WrapperSpec] => [
    name,
    { valued: [], flags: SETARCH_FLAGS }
  ]),
  // logsave writes its first operand, the log of the command after it.
  ["logsave", { valued: [], flags: ["-a", "-s", "-v"], positional: 1 }],
  ["prlimit", { valued: [], flags: ["--noheadings", "--raw", "--verbose"], noCommand: ["-p", "--pid"] }],
  [
    "setpriv",
    {
      valued: [
        "--reuid",
        "--regid",
        "--ruid",
        "--rgid",
        "--euid",
        "--egid",
        "--groups",
        "--inh-caps",
        "--ambient-caps",
        "--bounding-set",
        "--securebits",
        "--pdeathsig",
        "--selinux-label",
        "--apparmor-profile",
        "--landlock-access",
        "--landlock-rule",
        "--seccomp-filter",
        "--rlimit"
      ],
      flags: ["--clear-groups", "--keep-groups", "--init-groups", "--no-new-privs", "--nnp", "--reset-env"],
      noCommand: ["-d", "--dump"]
    }
  ],
  [
    "chrt",
    {
      valued: ["-T", "-P", "-D"],
      flags: ["-b", "-d", "-f", "-i", "-o", "-r", "-a", "-m", "-R", "-v", "--all-tasks", "--reset-on-fork"],
      positional: 1,
      noCommand: ["-p", "--pid", "-m", "--max"]
    }
  ],
  [
    "taskset",
    {
      valued: [],
      flags: ["-a", "--all-tasks", "-c", "--cpu-list"],
      positional: 1,
      noCommand: ["-p", "--pid"]
    }
  ],
  [
    "flock",
    {
      valued: ["-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"],
      flags: [
        "-s",
        "--shared",
        "-x",
        "-e",
        "--exclusive",
        "-n",
        "--nb",
        "--nonblock",
        "-u",
        "--unlock",
        "-o",
        "--close",
        "-F",
        "--no-fork",
        "--verbose"
      ],
      positional: 1,
      script: ["-c", "--command"]
    }
  ],
  ["unbuffer", { valued: [], flags: ["-p"] }],
  ["busybox", { valued: [], flags: [] }],
  ["caffeinate", { valued: ["-t", "-w"], flags: ["-d", "-i", "-m", "-s", "-u"] }],
  [
    "su",
    {
      valued: [
        "-c",
        "--command",
        "-s",
        "--shell",
        "-g",
        "--group",
        "-G",
        "--supp-group",
        "-w",
        "--whitelist-environment"
      ],
      flags: ["-", "-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-f"],
      script: ["-c", "--command"],
      noCommand: []
    }
  ],
  [
    "runuser",
    {
      valued: ["-u", "--user", "-g", "--group", "-G", "-c", "--command", "-s", "--shell"],
      flags: ["-", "-l", "--login", "-m", "-p"],
      script: ["-c", "--command"]
    }
  ],
  [
    "strace",
    {
      valued: [
        "-o",
        "-e",
        "-p",
        "-s",
        "-u",
        "-E",
        "-a",
        "-b",
        "-I",
        "-O",
        "-P",
        "-S",
        "-X",
        "--output",
        "--trace",
        "--signal"
      ],
      flags: [
        "-f",
        "-ff",
        "-c",
        "-C",
        "-d",
        "-D",
        "-F",
        "-i",
        "-k",
        "-q",
        "-qq",
        "-r",
        "-t",
        "-tt",
        "-ttt",
        "-T",
        "-v",
        "-w",
        "-x",
        "-xx",
        "-y",
        "-yy",
        "-z",
        "-Z",
        "--follow-forks",
        "--summary-only"
      ],
      writes: ["-o", "--output"],
      noCommand: ["-p"]
    }
  ],
  [
    "ltrace",
    {
      valued: ["-o", "-e", "-p", "-s", "-u", "-a", "-n", "-A", "-D", "-F", "-l", "-x", "-L"],
      flags: ["-f", "-c", "-C", "-i", "-r", "-S", "-t", "-tt", "-ttt", "-T", "-w", "-b"],
      writes: ["-o"],
      noCommand: ["-p"]
    }
  ],
  ["pkexec", { valued: ["--user"], flags: ["--keep-cwd", "--disable-internal-agent"] }],
  [
    "run0",
    {
      valued: [
        "-u",
        "--user",
        "-g",
        "--group",
        "--setenv",
        "--unit",
        "--property",
        "-D",
        "--chdir",
        "--description",
        "--slice",
        "--nice",
        "--machine",
        "--background",
        "--pty-late"
      ],
      flags: ["--no-ask-password", "-i", "--via-shell", "--empower"],
      chdir: ["-D", "--chdir"]
    }
  ],
  [
    "systemd-run",
    {
      valued: [
        "-u",
        "--unit",
        "-p",
        "--property",
        "-E",
        "--setenv",
        "--description",
        "--slice",
        "-M",
        "--machine",
        "-H",
        "--host",
        "--working-directory",
        "--uid",
        "--gid",
        "--nice",
        "--on-active",
        "--on-boot",
        "--on-startup",
        "--on-unit-active",
        "--on-unit-inactive",
        "--on-calendar",
        "--timer-property",
        "--path-property",
        "--socket-property",
        "--service-type"
      ],
      flags: [
        "--user",
        "--system",
        "--scope",
        "-t",
        "--pty",
        "-P",
        "--pipe",
        "-S",
        "--shell",
        "-q",
        "--quiet",
        "-G",
        "--collect",
        "--wait",
        "-d",
        "--same-dir",
        "-r",
        "--remain-after-exit",
        "--no-block",
        "--no-ask-password",
        "--send-sighup"
      ],
      chdir: ["--working-directory"]
    }
  ],
  [
    "screen",
    {
      valued: ["-S", "-c", "-e", "-h", "-p", "-T", "-t", "-X", "-Logfile"],
      flags: [
        "-d",
        "-m",
        "-D",
        "-R",
        "-r",
        "-x",
        "-A",
        "-a",
        "-U",
        "-q",
        "-L",
        "-O",
        "-l",
        "-ln",
        "-i",
        "-f",
        "-fn",
        "-fa",
        "-ls",
        "-list",
        "-wipe"
      ],
      noCommand: ["-ls", "-list", "-wipe", "-r", "-R", "-x"],
      opaque: ["-X", "-c"],
      writes: ["-Logfile"]
    }
  ],
  ["eatmydata", { valued: [], flags: [] }],
  ["chronic", { valued: [], flags: ["-e", "-v"] }],
  ["faketime", { valued: ["-m", "-f"], flags: ["--exclude-monotonic", "--disable-shm"], positional: 1 }],
  [
    "rlwrap",
    {
      valued: ["-a", "-f", "-H", "-l", "-p", "-P", "-s", "-S", "-t", "-w"],
      flags: ["-c", "-i", "-r", "-A", "-m", "-n", "-o", "-q", "-R", "-v"]
    }
  ],
  [
    "nsenter",
    {
      valued: ["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-w", "--wd"],
      flags: [
        "-a",
        "--all",
        "-m",
        "--mount",
        "-u",
        "--uts",
        "-i",
        "--ipc",
        "-n",
        "--net",
        "-p",
        "--pid",
        "-U",
        "--user",
        "-C",
        "--cgroup",
        "-T",
        "--time",
        "-F",
        "--no-fork",
        "--preserve-credentials"
      ],
      chdir: ["-w", "--wd"],
      // Another root: every absolute path the command names is under it.
      opaque: ["-r", "--root"]
    }
  ],
  [
    "firejail",
    { valued: [], flags: ["--quiet", "--noprofile", "--private", "--seccomp", "--nonewprivs", "--noroot"] }
  ],
  ["valgrind", { valued: [], flags: ["-q", "--quiet", "-v", "--verbose"] }],
  ["catchsegv", { valued: [], flags: [] }],
  ["cross-env", { valued: [], flags: [], assignments: true }],
  ["cross-env-shell", { valued: [], flags: [], assignments: true, joinsWords: true }],
  ["dotenv", { valued: ["-e", "-c", "-v", "-p"], flags: ["-o", "--debug"] }],
  [
    "env-cmd",
    {
      valued: ["-f", "--file", "-e", "--environments", "-r", "--rc-file"],
      flags: ["--silent", "--fallback", "--no-override", "--verbose", "--expand-envs"]
    }
  ],
  ["chroot", { valued: ["--userspec", "--groups"], flags: ["--skip-chdir"], positional: 1 }],
  [
    "xvfb-run",
    {
      valued: [
        "-n",
        "--server-num",
        "-s",
        "--server-args",
        "-f",
        "--auth-file",
        "-e",
        "--error-file",
        "-p",
        "--xauth-protocol",
        "-w",
        "--wait"
      ],
      flags: ["-a", "--auto-servernum", "-l", "--listen-tcp"]
    }
  ],
  ["dbus-run-session", { valued: ["--config-file", "--dbus-daemon"], flags: [] }],
  // `-s FILE` saves the fake ownerships to FILE on exit.
  [
    "fakeroot",
    { valued: ["-l", "--lib", "--faked", "-s", "-i"], flags: ["-u", "--unknown-is-real"], writes: ["-s"] }
  ],
  ["proxychains", { valued: ["-f"], flags: ["-q"] }],
  ["proxychains4", { valued: ["-f"], flags: ["-q"] }],
  ["torsocks", { valued: ["-u", "-p", "-a", "-P"], flags: ["-i", "-d", "-q"] }],
  [
    "unshare",
    {
      valued: [
        "--map-user",
        "--map-group",
        "--propagation",
        "--setgroups",
        "-S",
        "-G",
        "-R",
        "-w",
        "--root",
        "--wd"
      ],
      flags: [
        "-m",
        "--mount",
        "-u",
        "--uts",
        "-i",
        "--ipc",
        "-n",
        "--net",
        "-p",
        "--pid",
        "-U",
        "--user",
        "-C",
        "--cgroup",
        "-T",
        "--time",
        "-f",
        "--fork",
        "-r",
        "--map-root-user",
        "-c",
        "--map-current-user",
        "--mount-proc",
        "--kill-child"
      ],
      chdir: ["-w", "--wd"],
      opaque: ["-R", "--root"]
    }
  ]
])

/**
 * What setting an environment variable makes programs do: run its value as a command line
 * (`command`), run the program it names (`program`), work in the directory it names
 * (`directory`), take a configuration key and value (`git-config`), or load code or
 * configuration this analysis cannot see (`opaque`).
 */
export type GadgetKind =
  | "command"
  | "program"
  | "directory"
  | "git-config"
  | "git-config-parameters"
  | "counted"
  | "opaque"
  | "less"
  | "file"
  | "flags"

const GADGETS: ReadonlyMap<string, GadgetKind> = new Map<string, GadgetKind>([
  ...(
    [
      "GIT_SSH_COMMAND",
      "GIT_PAGER",
      "GIT_EDITOR",
      "GIT_SEQUENCE_EDITOR",
      "PAGER",
      "MANPAGER",
      "SYSTEMD_PAGER",
      "BAT_PAGER",
      "DELTA_PAGER",
      "EDITOR",
      "VISUAL",
      "PROMPT_COMMAND",
      "SUDO_EDITOR",
      "SYSTEMD_EDITOR",
      "KUBE_EDITOR",
      "GH_EDITOR",
      "GH_PAGER",
      "SVN_EDITOR",
      "HGEDITOR",
      "RSYNC_RSH",
      "SVN_SSH",
      "CVS_RSH"
    ] as const
  ).map((name) => [name, "command"] as const),
  ...(
    [
      "GIT_EXTERNAL_DIFF",
      "GIT_SSH",
      "GIT_ASKPASS",
      "GIT_PROXY_COMMAND",
      "SSH_ASKPASS",
      "SUDO_ASKPASS",
      "BROWSER",
      "RUSTC_WRAPPER",
      "RUSTC",
      "CARGO_BUILD_RUSTC_WRAPPER",
      "CC",
      "CXX",
      "RUSTC_WORKSPACE_WRAPPER",
      "RUSTDOC",
      // zsh runs them for a redirection with no command (`READNULLCMD=sh; < script`).
      "NULLCMD",
      "READNULLCMD"
    ] as const
  ).map((name) => [name, "program"] as const),
  ["GIT_DIR", "directory"],
  ["GIT_WORK_TREE", "directory"],
  ["GIT_COMMON_DIR", "directory"],
  ["GIT_OBJECT_DIRECTORY", "directory"],
  // git writes its index or its trace to the file named.
  ["GIT_INDEX_FILE", "file"],
  // The shell's history file: `history -w`/`-a` (and an interactive shell's exit) write it.
  ["HISTFILE", "file"],
  // Where mktemp, sort, gcc and the like make their files (`TMPDIR=.git/hooks mktemp`).
  ["TMPDIR", "file"],
  ["GIT_CONFIG_COUNT", "counted"],
  // What `git -c` passes to the git commands it runs: `'key'='value' …`.
  ["GIT_CONFIG_PARAMETERS", "git-config-parameters"],
  ["LESS", "less"],
  ...(
    [
      "GIT_EXEC_PATH",
      "GIT_TEMPLATE_DIR",
      "GIT_CONFIG",
      "GIT_CONFIG_GLOBAL",
      "GIT_CONFIG_SYSTEM",
      "LESSOPEN",
      "LESSCLOSE",
      // A lesskey file's #env section sets LESSOPEN for the pager git and man start.
      "LESSKEY",
      "LESSKEYIN",
      "LESSKEY_CONTENT",
      "LESSKEY_SYSTEM",
      "LESSKEYIN_SYSTEM",
      "GIT_ALTERNATE_OBJECT_DIRECTORIES",
      "LD_PRELOAD",
      "LD_LIBRARY_PATH",
      "LD_AUDIT",
      "BASH_ENV",
      "ENV",
      "ZDOTDIR",
      "PS4",
      "SHELLOPTS",
      "BASHOPTS",
      "IFS",
      "PATH",
      "HOME",
      "XDG_CONFIG_HOME",
      "PYTHONSTARTUP",
      "PYTHONPATH",
      "PYTHONHOME",
      "NODE_OPTIONS",
      "NODE_PATH",
      "PERL5OPT",
      "PERL5LIB",
      "PERLLIB",
      "RUBYOPT",
      "RUBYLIB",
      "JAVA_TOOL_OPTIONS",
      "_JAVA_OPTIONS",
      "JDK_JAVA_OPTIONS",
      "TAR_OPTIONS",
      "PSMODULEPATH",
      "MAKEFLAGS",
      "GOFLAGS",
      "RUSTFLAGS",
      "CARGO_HOME",
      // bash's command hash and alias table: `BASH_CMDS=([ls]=./evil); ls` runs ./evil.
      "BASH_CMDS",
      "BASH_ALIASES",
      // `$PWD` is read as the directory a command runs in: one the text sets is not.
      "PWD",
      "PS0",
      "PS1",
      "PS2",
      "BASH_LOADABLES_PATH",
      // glibc loads the gconv modules (shared objects) this folder lists.
      "GCONV_PATH",
      // Makefiles read before the project's, and make's options through the environment.
      "MAKEFILES",
      "GNUMAKEFLAGS",
      "MFLAGS",
      // Configuration files that can make the client send, fetch or write other files.
      "WGETRC",
      "CURL_HOME",
      // OpenSSL's configuration loads engines and providers (shared objects) it names.
      "OPENSSL_CONF",
      "OPENSSL_ENGINES",
      "OPENSSL_MODULES",
      "RIPGREP_CONFIG_PATH",
      "INPUTRC",
      "MANOPT",
      // psql's startup file and programs (`\! cmd` in a psqlrc), mysql's option files.
      "PSQLRC",
      "PSQL_PAGER",
      "PSQL_EDITOR",
      "MYSQL_HOME",
      // Startup commands of editors, and .NET's hooks and profilers (PowerShell loads them).
      "VIMINIT",
      "EXINIT",
      "MYVIMRC",
      "EMACSLOADPATH",
      "DOTNET_STARTUP_HOOKS",
      "DOTNET_ADDITIONAL_DEPS",
      "CORECLR_PROFILER_PATH",
      "CORECLR_ENABLE_PROFILING",
      "COR_PROFILER_PATH",
      // Flags rustdoc and javac take from the environment (`-Clink-arg=-wrapper`, `@.env`).
      "RUSTDOCFLAGS",
      "JDK_JAVAC_OPTIONS",
      // Perl's debugger runs PERL5DB's code; gcc runs programs from these folders.
      "PERL5DB",
      "COMPILER_PATH",
      "GCC_EXEC_PREFIX",
      "TCL_LIBRARY",
      "TCLLIBPATH",
      "PYTHONUSERBASE",
      // Lets git use transports (`file`, `ext`) that fetch or run what the URL names.
      "GIT_ALLOW_PROTOCOL",
      // Makes every pip install a user install: programs on PATH outside the project.
      "PIP_USER"
    ] as const
  ).map((name) => [name, "opaque"] as const),
  // Flags make puts into the commands its rules run (`CFLAGS=';cat .env;' make a.o`).
  ...(["CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "FFLAGS", "ASFLAGS", "ARFLAGS"] as const).map(
    (name) => [name, "flags"] as const
  )
])

const GADGET_PREFIXES: ReadonlyArray<readonly [string, GadgetKind]> = [
  ["GIT_CONFIG_KEY_", "git-config"],
  ["GIT_CONFIG_VALUE_", "counted"],
  ["GIT_TRACE", "file"],
  ["BASH_FUNC_", "opaque"],
  ["NPM_CONFIG_", "opaque"],
  ["PNPM_CONFIG_", "opaque"],
  ["YARN_", "opaque"],
  ["LD_", "opaque"],
  ["DYLD_", "opaque"],
  ["CARGO_", "opaque"],
  // CMake reads launchers, compilers, toolchain files and make programs from the environment.
  ["CMAKE_", "opaque"],
  // git's test knobs run programs (`GIT_TEST_FSMONITOR`, `GIT_TEST_MAINT_SCHEDULER`).
  ["GIT_TEST_", "opaque"]
]
// Cargo settings that change only what it prints or how it builds, not what it runs.
const INERT_CARGO = /^CARGO_(TERM_|INCREMENTAL$|PROFILE_|NET_RETRY$|BUILD_JOBS$)/
// CMake settings that name nothing it runs.
const INERT_CMAKE =
  /^CMAKE_(BUILD_TYPE|BUILD_PARALLEL_LEVEL|GENERATOR|GENERATOR_PLATFORM|GENERATOR_TOOLSET|CONFIG_TYPE|COLOR_DIAGNOSTICS|EXPORT_COMPILE_COMMANDS|NO_VERBOSE|OSX_ARCHITECTURES|INSTALL_MODE)$/
// npm settings that change only what it prints.
const INERT_NPM_CONFIG = /^NPM_CONFIG_(LOGLEVEL|COLOR|PROGRESS|FUND|AUDIT|UPDATE_NOTIFIER|CACHE)$/

/** What setting this variable makes programs do, if it makes them run other code. */
export const gadgetKind = (name: string): GadgetKind | undefined => {
  const upper = name.toUpperCase()
  if (INERT_NPM_CONFIG.test(upper) || INERT_CARGO.test(upper) || INERT_CMAKE.test(upper)) return undefined
  const kind = GADGETS.get(upper)
  if (kind !== undefined) return kind
  for (const [prefix, prefixed] of GADGET_PREFIXES) if (upper.startsWith(prefix)) return prefixed
  return undefined
}

/** Does setting this variable make programs run other code? */
export const isGadgetVariable = (name: string): boolean => gadgetKind(name) !== undefined

// Programs that, named in the arguments of a program this analysis does not know, suggest
// that it runs them: shells, interpreters, wrappers, and programs rules are written against.
const RUNS_OTHERS: ReadonlySet<string> = new Set([
  "rm",
  "rmdir",
  "dd",
  "shred",
  "truncate",
  "curl",
  "wget",
  "chmod",
  "chown",
  "mv",
  "git",
  "npm",
  "pnpm",
  "yarn",
  "npx",
  "kill",
  "pkill",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "ssh",
  "scp",
  "rsync",
  "eval",
  "exec",
  "xargs",
  "find",
  "docker",
  "kubectl"
])

/** Is `key` a program whose name in another program's arguments means it may be run? */
export const runsOthers = (key: string): boolean =>
  RUNS_OTHERS.has(key) ||
  POSIX_SHELLS.has(key) ||
  WRAPPERS.has(key) ||
  INTERPRETERS.has(key) ||
  POWERSHELLS.has(key) ||
  FOREIGN_SHELLS.has(key) ||
  isPython(key) ||
  (key.startsWith("mkfs") && /^mkfs(\.|$)/.test(key))

// Programs whose arguments the analysis reads with meaning (data, paths, patterns or the
// options that run code): the backstop for unknown wrappers leaves them alone.
const MODELLED: ReadonlySet<string> = new Set([
  "cat",
  "ls",
  "head",
  "tail",
  "wc",
  "sort",
  "uniq",
  "cut",
  "tr",
  "diff",
  "cmp",
  "comm",
  "paste",
  "join",
  "column",
  "fold",
  "fmt",
  "nl",
  "rev",
  "tac",
  "od",
  "xxd",
  "hexdump",
  "file",
  "stat",
  "du",
  "df",
  "tree",
  "less",
  "more",
  "jq",
  "yq",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "pwd",
  "printenv",
  "test",
  "[",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "sha512sum",
  "base64",
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "node",
  "deno",
  "cargo",
  "rustc",
  "go",
  "docker",
  "podman",
  "kubectl",
  "gh",
  "make",
  "curl",
  "wget",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "tar",
  "zip",
  "unzip",
  "gzip",
  "gunzip",
  "zcat",
  "bzip2",
  "xz",
  "pip",
  "pip3",
  "pytest",
  "tsc",
  "eslint",
  "prettier",
  "biome",
  "vitest",
  "jest",
  "man",
  "sed",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "fd",
  "fdfind",
  "sqlite3",
  "mkdir",
  "touch",
  "cp",
  "mv",
  "rm",
  "ln",
  "chmod",
  "chown",
  "dd",
  "tee",
  "env",
  "xargs",
  "find",
  "awk",
  "gawk",
  "at",
  "crontab",
  "openssl",
  "ssh-keygen",
  "patch",
  "split",
  "csplit",
  "mktemp",
  "shuf",
  "sdiff",
  "strings",
  "iconv",
  "envsubst",
  "cmake",
  "gcc",
  "cc",
  "clang",
  "g++",
  "javac",
  "java",
  "mvn",
  "gradle",
  "psql",
  "mysql",
  "redis-cli",
  "ps",
  "top",
  "lsof",
  "netstat",
  "ss",
  "ip",
  "ping",
  "dig",
  "nslookup",
  "host",
  "uptime",
  "free",
  "nproc",
  "lscpu",
  "clear",
  "history",
  "getopts",
  "read",
  "mapfile",
  "readarray",
  "cd",
  "pushd",
  "popd",
  // Package installers: their arguments are package names.
  "apt",
  "apt-get",
  "apt-cache",
  "dpkg",
  "brew",
  "dnf",
  "yum",
  "pacman",
  "apk",
  "snap",
  "choco",
  "winget",
  "scoop",
  "port",
  "zypper",
  "gem",
  "conda",
  "mamba",
  "pipx",
  "uv",
  "poetry",
  "rustup",
  "nvm",
  "volta",
  // Information: their arguments are names, not commands.
  "whatis",
  "apropos",
  "info",
  "tldr",
  "help",
  "command",
  "compgen",
  "complete"
])

/** Does the analysis read the arguments of `key` with meaning (see {@link MODELLED})? */
export const isModelled = (key: string, powershell: boolean): boolean =>
  MODELLED.has(key) ||
  NO_PATH_ARGUMENTS.has(key) ||
  PATTERN_FIRST.has(key) ||
  WRITES_ALL.has(key) ||
  WRITES_LAST.has(key) ||
  WRITE_OPTIONS.has(key) ||
  INTERPRETERS.has(key) ||
  isPython(key) ||
  (powershell && (POWERSHELL_CMDLETS.has(key) || key.includes("-")))

// Files that configure what later commands run: writing one is an `edit` that `executes`.
/** File names that configure what later commands run, wherever they are (lower case). */
export const CONFIG_NAMES: ReadonlySet<string> = new Set([
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".kshrc",
  ".cshrc",
  ".tcshrc",
  ".inputrc",
  ".gitconfig",
  ".envrc",
  ".curlrc",
  ".wgetrc",
  ".netrc",
  // Debuggers, REPLs and language runtimes run these at start.
  ".pdbrc",
  ".pythonrc",
  ".rprofile",
  ".irbrc",
  ".pryrc",
  ".gdbinit",
  ".lldbinit",
  ".psqlrc",
  ".exrc",
  "sitecustomize.py",
  "usercustomize.py",
  // An editor opens its terminal, tasks and containers from these.
  ".devcontainer.json",
  // Hook managers and environment managers run the commands these files name.
  ".pre-commit-config.yaml",
  "lefthook.yml",
  ".lefthook.yml",
  "lefthook-local.yml",
  "mise.toml",
  ".mise.toml",
  "mise.local.toml",
  ".mise.local.toml",
  "microsoft.powershell_profile.ps1",
  "profile.ps1",
  // The gate's own rules and the agents' permission settings: a write there grants later calls.
  "gatehouse.json",
  "opencode.json",
  "opencode.jsonc",
  // The MCP servers an agent starts on its own.
  ".mcp.json",
  ".aider.conf.yml",
  ".pre-commit-config.yml",
  // Where `git submodule update` clones from.
  ".gitmodules",
  // CI runs it with the repository's secrets.
  ".gitlab-ci.yml"
])
// Agents' folders: their settings, hooks, commands and subagents.
const AGENT_FOLDERS = "claude|gemini|codex|opencode|cursor|roo|kiro|amazonq|continue|windsurf|zed"
const CONFIG_PATHS = [
  // Anything in a repository's own folder: its configuration and hooks, its submodules'
  // (.git/modules/x/config: `git status` recurses into them and runs their fsmonitor), its
  // worktrees' pointers; and a `.git` file (`gitdir: /elsewhere`), which hands git another
  // repository and its configuration.
  /\/\.git(\/|$)/,
  /\/\.ssh\/(config|authorized_keys2?|rc|environment)$/,
  /\/\.config\/(git\/config|fish\/|nvim\/|powershell\/|systemd\/user\/|autostart\/)/,
  /\/\.husky\//,
  // Agents' settings, hooks, commands and subagents; an editor's tasks and terminal settings.
  new RegExp(String.raw`/\.(${AGENT_FOLDERS})/`),
  /\/\.config\/(gatehouse|opencode|mise)\//,
  // Gatehouse's own remembered approvals and sessions, and its code caches (code it runs).
  /\/\.local\/share\/gatehouse\//,
  /\/\.cache\/gatehouse\//,
  /\/\.vscode\/(settings|tasks|launch|mcp)\.json$/,
  // A dev container's commands run on the host (initializeCommand); an IDE's run configurations.
  /\/\.devcontainer\//,
  /\/\.idea\/(workspace\.xml|runConfigurations\/)/,
  // One of those folders written whole (`cp -r tpl .claude`, `mv x .vscode`, `mkdir -p
  // .github/workflows`): what lands in it is not named, so it is judged as what it may hold.
  new RegExp(
    String.raw`/(\.husky|\.(${AGENT_FOLDERS}|vscode|devcontainer|idea|github|cargo|ssh)|\.config/(gatehouse|opencode|mise|fish|nvim|powershell|git|systemd/user|autostart)|\.local/share/gatehouse|\.cache/gatehouse|\.idea/runConfigurations|\.github/workflows)$`
  ),
  // Cargo's wrappers, runners and aliases; CI runs a workflow with the repository's secrets.
  /\/\.cargo\/config(\.toml)?$/,
  /\/\.github\/workflows\//,
  /^\/etc\/(profile|bash\.bashrc|environment|gitconfig|npmrc|sudoers|cron|profile\.d\/)/
]
// The patterns as one alternation: one scan of the path instead of one per pattern. Only
// while none has flags or a back-reference (the alternation would drop or renumber them).
const CONFIG_PATH = CONFIG_PATHS.every((pattern) => pattern.flags === "" && !/\\[1-9k]/.test(pattern.source))
  ? new RegExp(CONFIG_PATHS.map((pattern) => `(?:${pattern.source})`).join("|"))
  : undefined

/** Does writing `path` (absolute, real) change what later commands run? */
export const configuresExecution = (path: string): boolean => {
  const slash = path.lastIndexOf("/")
  const base = path.slice(slash + 1).toLowerCase()
  if (CONFIG_NAMES.has(base) || base.endsWith(".code-workspace")) return true
  const normal = path.replaceAll("\\", "/")
  // Python runs every .pth file of its site-packages at start.
  if (base.endsWith(".pth") && /\/(site|dist)-packages\//.test(normal)) return true
  // Every pattern names a dot directory or /etc.
  if (!normal.includes("/.") && !normal.startsWith("/etc/")) return false
  return CONFIG_PATH !== undefined
    ? CONFIG_PATH.test(normal)
    : CONFIG_PATHS.some((pattern) => pattern.test(normal))
}

/** Programs whose arguments are never file names (their words are text, ids, numbers). */
export const NO_PATH_ARGUMENTS: ReadonlySet<string> = new Set([
  "echo",
  "printf",
  "true",
  "false",
  ":",
  "sleep",
  "kill",
  "killall",
  "pkill",
  "pgrep",
  "which",
  "type",
  "whereis",
  "yes",
  "seq",
  "expr",
  "export",
  "unset",
  "local",
  "declare",
  "typeset",
  "readonly",
  "alias",
  "unalias",
  "set",
  "shopt",
  "exit",
  "return",
  "break",
  "continue",
  "wait",
  "jobs",
  "bg",
  "fg",
  "hash",
  "date",
  "whoami",
  "id",
  "uname",
  "hostname",
  "write-output",
  "write-host",
  "write-error",
  "write-verbose",
  "write-warning",
  "where-object",
  "foreach-object",
  "select-object",
  "sort-object",
  "format-table",
  "format-list",
  "measure-object",
  "get-date",
  "get-process",
  "stop-process",
  "get-command",
  "get-help"
])

/** Programs whose first operand is a pattern or a script, not a file (unless given by option). */
export const PATTERN_FIRST: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["grep", ["-e", "--regexp", "-f", "--file"]],
  ["egrep", ["-e", "--regexp", "-f", "--file"]],
  ["fgrep", ["-e", "--regexp", "-f", "--file"]],
  ["rg", ["-e", "--regexp", "-f", "--file", "--files", "--type-list"]],
  ["ag", []],
  ["ack", []],
  ["sed", ["-e", "--expression", "-f", "--file"]],
  ["awk", ["-f", "--file"]],
  ["gawk", ["-f", "--file"]],
  ["mawk", ["-f"]],
  ["nawk", ["-f"]],
  ["jq", ["-f", "--from-file", "-n"]],
  ["yq", []],
  ["select-string", []],
  ["fd", []],
  ["fdfind", []]
])

/** Programs that write (create, change or remove) every file operand. */
export const WRITES_ALL: ReadonlySet<string> = new Set([
  // sponge soaks up its input and writes it to its operand; fallocate sizes its file;
  // dos2unix and its kin convert their files in place (and write `-n IN OUT`'s OUT).
  "sponge",
  "fallocate",
  "dos2unix",
  "unix2dos",
  "mac2unix",
  "unix2mac",
  "rm",
  "rmdir",
  "unlink",
  "shred",
  "touch",
  "mkdir",
  "mkfifo",
  "mknod",
  "truncate",
  "chmod",
  "chown",
  "chgrp",
  "chattr",
  "setfacl",
  "mv",
  "tee",
  "remove-item",
  "new-item",
  "set-content",
  "add-content",
  "clear-content",
  "out-file",
  "rename-item",
  "move-item",
  "set-item",
  "clear-item",
  "set-itemproperty",
  "new-itemproperty",
  "remove-itemproperty",
  "clear-itemproperty",
  "rename-itemproperty",
  "export-csv",
  "export-clixml",
  "tee-object"
])

/** Programs that write their last file operand (the destination). */
export const WRITES_LAST: ReadonlySet<string> = new Set([
  "cp",
  "install",
  "ln",
  "link",
  "rsync",
  "scp",
  "copy-item"
])

/**
 * Programs whose second operand is the file they write (`uniq in out`, `xxd in out`), with
 * their options that take the next word as their value.
 */
export const WRITES_SECOND: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["uniq", ["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"]],
  ["xxd", ["-c", "-cols", "-g", "-groupsize", "-l", "-len", "-n", "-name", "-o", "-offset", "-s", "-seek"]]
])

/** Per program, options whose value is a file the program writes. */
export const WRITE_OPTIONS: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  [
    "curl",
    [
      "-o",
      "--output",
      "-c",
      "--cookie-jar",
      "-D",
      "--dump-header",
      "--trace",
      "--trace-ascii",
      "--stderr",
      "--libcurl",
      "--hsts",
      "--etag-save",
      "--alt-svc"
    ]
  ],
  [
    "wget",
    [
      "-O",
      "--output-document",
      "-o",
      "--output-file",
      "-a",
      "--append-output",
      "-P",
      "--directory-prefix",
      "--save-cookies",
      "--hsts-file",
      "--rejected-log"
    ]
  ],
  ["http", ["-o", "--output"]],
  ["https", ["-o", "--output"]],
  ["httpie", ["-o", "--output"]],
  ["sort", ["-o", "--output"]],
  ["git", ["--output", "-o"]],
  ["cp", ["-t", "--target-directory"]],
  ["mv", ["-t", "--target-directory"]],
  ["ln", ["-t", "--target-directory"]],
  ["install", ["-t", "--target-directory"]],
  ["cmake", ["-B"]],
  // cargo builds into (and `cargo clean` deletes) its target directory.
  ["cargo", ["--target-dir"]],
  // pip (any of its names: see argumentPaths) installs, downloads or builds wheels into these.
  ["pip", ["-t", "--target", "-d", "--dest", "-w", "--wheel-dir", "--root", "--prefix", "--src", "--log"]],
  ["gcc", ["-o"]],
  ["cc", ["-o"]],
  ["clang", ["-o"]],
  ["g++", ["-o"]],
  ["go", ["-o"]],
  ["tar", ["-f", "--file"]],
  ["zip", []],
  ["split", []],
  ["iconv", ["-o", "--output"]],
  ["shuf", ["-o", "--output"]],
  ["sdiff", ["-o", "--output"]],
  ["eslint", ["-o", "--output-file"]],
  ["patch", ["-o", "--output"]],
  ["uniq", []],
  ["base64", ["-o", "--output"]],
  ["openssl", ["-out", "-writerand"]],
  // JDK tools' output folders and files; maven's log; ctags' tag file; gpg's home folder.
  ["javac", ["-d", "-h", "-s"]],
  ["javadoc", ["-d"]],
  ["keytool", ["-keystore", "-file"]],
  ["mvn", ["-l", "--log-file"]],
  ["ctags", ["-f", "-o"]],
  ["etags", ["-f", "-o"]],
  ["ssh-keygen", ["-f"]],
  ["sqlite3", []],
  ["time", ["-o", "--output"]],
  [
    "tsc",
    [
      "--outDir",
      "--outFile",
      "--out",
      "--declarationDir",
      "--tsBuildInfoFile",
      "--generateCpuProfile",
      "--generateTrace"
    ]
  ],
  ["strace", ["-o", "--output"]],
  ["script", []],
  ["invoke-webrequest", ["-outfile"]],
  ["invoke-restmethod", ["-outfile"]],
  ["copy-item", ["-destination"]],
  ["move-item", ["-destination"]],
  ["expand-archive", ["-destinationpath"]],
  ["compress-archive", ["-destinationpath"]],
  ["tee-object", ["-filepath", "-literalpath"]],
  ["out-file", ["-filepath", "-literalpath"]],
  ["export-csv", ["-path", "-literalpath"]]
])

/** PowerShell parameters whose value is a path. */
export const POWERSHELL_PATH_PARAMETERS: ReadonlySet<string> = new Set([
  "-path",
  "-literalpath",
  "-filepath",
  "-destination",
  "-destinationpath",
  "-outfile",
  "-outputpath",
  "-infile",
  "-workingdirectory"
])

/** PowerShell cmdlets that bind objects piped to them to their path parameters. */
export const takesPipelinePaths = (cmdlet: string): boolean =>
  /^((get|set|add|clear)-content|[a-z]+-item(property)?|get-childitem|select-string|get-filehash|import-(csv|clixml|module|powershelldatafile)|(expand|compress)-archive|(get|set)-acl|unblock-file|add-type|test-path|resolve-path|convert-path|(set|push)-location|start-process|get-authenticodesignature)$/.test(
    cmdlet
  )

/** PowerShell switches: parameters that take no value. */
export const POWERSHELL_SWITCHES: ReadonlySet<string> = new Set([
  "-recurse",
  "-force",
  "-confirm",
  "-whatif",
  "-verbose",
  "-debug",
  "-nonewline",
  "-passthru",
  "-append",
  "-wait",
  "-nonewwindow",
  "-raw",
  "-file",
  "-directory",
  "-hidden",
  "-usebasicparsing"
])

/** Device files every command may use without touching anything outside the project. */
export const HARMLESS_WRITES: ReadonlySet<string> = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"])
export const HARMLESS_READS: ReadonlySet<string> = new Set([
  "/dev/null",
  "/dev/stdin",
  "/dev/zero",
  "/dev/urandom",
  "/dev/random"
])

/**
 * A read that touches nothing outside the project: those devices, and the command's own
 * open descriptors (`/dev/fd/N`; what a descriptor was opened on is judged where it is
 * opened, `exec 3< file`). Writing to them is judged as any path.
 */
export const isHarmlessRead = (path: string): boolean =>
  HARMLESS_READS.has(path) || (path.startsWith("/dev/fd/") && /^\/dev\/fd\/\d+$/.test(path))

// Programs that read every file under a directory they are given.
const TREE_READERS: ReadonlySet<string> = new Set([
  "rg",
  "ag",
  "ack",
  "tar",
  "zip",
  "jar",
  "rclone",
  "mksquashfs",
  "genisoimage",
  "mkisofs",
  "xorrisofs",
  "7z",
  "7za",
  "7zr",
  "7zz",
  "pax",
  "bsdtar",
  "star",
  "shar",
  "rsync",
  "compress-archive",
  // A directory moved takes every file under it to a name no rule may protect.
  "mv",
  // Two directories compared: the files in them (and with -r under them), printed with -N.
  "diff",
  "colordiff"
])
const RECURSIVE_FLAGS: ReadonlyMap<string, RegExp> = new Map([
  // Long options by any prefix getopt accepts (`--rec`, `--arch`).
  ["cp", /^(-[a-zA-Z]*[rRa][a-zA-Z]*|--rec(u(r(s(i(v(e)?)?)?)?)?)?|--ar(c(h(i(v(e)?)?)?)?)?)$/],
  ["scp", /^-[a-zA-Z]*r[a-zA-Z]*$/],
  ["cscope", /^-[a-zA-Z]*R[a-zA-Z]*$/],
  ["copy-item", /^-r(e(c(u(r(s(e)?)?)?)?)?)?$/i],
  ["select-string", /^-r(e(c(u(r(s(e)?)?)?)?)?)?$/i]
])
// rg and ag skip hidden files (such as .env) unless told otherwise.
const SKIPS_HIDDEN: ReadonlyMap<string, RegExp> = new Map([
  ["rg", /^(--hidden|-\.|-u{2,}|--unrestricted|--no-ignore-dot)$/],
  ["ag", /^(--hidden|-u|--unrestricted|--all-types|-a)$/]
])

/**
 * What the command reads of a directory it names: the contents of every file under it
 * (`grep -r`, `tar`, `cp -r`), of every visible file (`rg` and `ag`, which skip hidden
 * files by default), or only the list of names (`ls`: `undefined`).
 */
export const readsDirectoryContents = (
  key: string,
  argv: ReadonlyArray<string>
): "all" | "visible" | undefined => {
  if (GREP_PROGRAMS.has(key)) return parseGrepArgv(argv).recursive ? "all" : undefined
  if (servesFiles(key, argv) || packsProject(key, argv)) return "all"
  if (key === "git") {
    const sub = gitSubcommand(argv)
    return sub === "grep" || sub === "add" || sub === "stage" || gitPrintsContents(argv) ? "all" : undefined
  }
  // ctags reads only the files of languages it knows, unless told to map others (`--langmap`).
  if (key === "ctags" || key === "etags")
    return argv.some((w) => /^(-[a-zA-Z]*R|--recurse)/.test(w)) &&
      argv.some((w) => /^--(langmap|langdef|map-|regex-)/.test(w))
      ? "all"
      : undefined
  const flags = RECURSIVE_FLAGS.get(key)
  if (flags !== undefined) return argv.slice(1).some((word) => flags.test(word)) ? "all" : undefined
  if (!TREE_READERS.has(key)) return undefined
  const hidden = SKIPS_HIDDEN.get(key)
  if (key === "rg" && rgUnrestricted(argv) >= 2) return "all"
  return hidden !== undefined && !argv.slice(1).some((word) => hidden.test(word)) ? "visible" : "all"
}

/**
 * Where `python -m http.server` (Python 2's `SimpleHTTPServer`) names its module in `argv`,
 * else -1: it serves every file under its directory, hidden ones included, to whoever
 * connects.
 */
export const servedModule = (argv: ReadonlyArray<string>): number =>
  argv.findIndex((word, i) => {
    // Python's short options cluster (`-Im http.server`): `m` takes the rest of the word or
    // the next one; `c`, `W` and `X` take theirs, so no `m` follows them in the word.
    if (!word.startsWith("-") || word.startsWith("--")) return false
    for (let at = 1; at < word.length; at++) {
      const letter = word[at]!
      if (letter === "m") return SERVING_MODULES.has(word.slice(at + 1) || (argv[i + 1] ?? ""))
      if (letter === "c" || letter === "W" || letter === "X") return false
    }
    return false
  })
const SERVING_MODULES: ReadonlySet<string> = new Set(["http.server", "SimpleHTTPServer"])

/**
 * Whether `argv` starts a static file server: it serves every file under a directory, hidden
 * ones included, to whoever connects (`python -m http.server`, `php -S`, busybox `httpd`,
 * the registry's `serve` and `http-server`).
 */
export const servesFiles = (key: string, argv: ReadonlyArray<string>): boolean => {
  if (!mayServeFiles(key)) return false
  if (isPython(key)) return servedModule(argv) !== -1
  if (key === "php") return argv.some((word, i) => i > 0 && /^-[a-zA-Z]*S/.test(word))
  if (key === "caddy") return argv[1] === "file-server"
  return FILE_SERVERS.has(key)
}
/** Whether `argv` packs the project into a package (`npm pack`, `pnpm publish`). */
export const packsProject = (key: string, argv: ReadonlyArray<string>): boolean => {
  if (key !== "npm" && key !== "pnpm" && key !== "yarn" && key !== "bun") return false
  const sub = argv.slice(1).find((word) => !word.startsWith("-"))
  return sub === "pack" || sub === "publish" || (sub === "npm" && argv.includes("publish"))
}

/** Whether `key` names a program {@link servesFiles} may find serving files. */
export const mayServeFiles = (key: string): boolean =>
  FILE_SERVERS.has(key) || key === "php" || key === "caddy" || isPython(key)

// Programs that only serve files: their directory is the one they run in or one they are given.
const FILE_SERVERS: ReadonlySet<string> = new Set([
  "serve",
  "http-server",
  "live-server",
  "static-server",
  "httpd",
  "darkhttpd",
  "miniserve",
  "simple-http-server",
  "webfsd"
])

// git's global options that take the next word as their value.
const GIT_VALUED =
  /^(-C|-c|--git-dir|--work-tree|--namespace|--super-prefix|--config-env|--exec-path|--attr-source)$/
/** git's subcommand: the first word after its global options. */
export const gitSubcommand = (argv: ReadonlyArray<string>): string | undefined => {
  for (let i = 1; i < argv.length; i++) {
    if (GIT_VALUED.test(argv[i]!)) i++
    else if (!argv[i]!.startsWith("-")) return argv[i]
  }
  return undefined
}

// Diff options that print the changed lines; the summaries that replace them. log, show,
// diff, whatchanged, reflog, stash show and format-patch read these by their whole name only
// (git parses them with PARSE_OPT_KEEP_UNKNOWN_OPT, which turns abbreviation off: `git log
// --pat` is an error), and their short options as clusters (`-pp`, `-pU1`: see gitDiffOptions).
const GIT_PATCH =
  /^(--patch.*|--unified.*|--diff-merges.*|--remerge-diff|--cc|--dd|--word-diff.*|--color-words.*|--function-context|--binary|--textconv|--ext-diff|--check)$/
const GIT_SUMMARY =
  /^(--no-patch|--stat.*|--numstat|--shortstat|--dirstat.*|--cumulative|--compact-summary|--summary|--name-only|--name-status|--raw|--quiet)$/
// The pickaxe searches the content of every change (`git log -S SECRET` says whether a text
// is in a file, one guess at a time); `--full-diff` and `--pickaxe-all` print every file of
// the commits a path selected, so that path narrows nothing.
const GIT_PICKAXE = /^(--pickaxe-regex|--find-object.*)$/
const GIT_WHOLE_COMMITS = /^(--full-diff|--pickaxe-all)$/
// A revision written as a hash may name a blob, which show and cat-file print whole.
const GIT_HASH = /^[0-9a-f]{4,64}$/i
// Short options of the diff and revision machinery: those that print the changed lines
// (-p, -u, -U<n>, -W; -c and -m, the merges' diffs; -S and -G, the pickaxe; -L, log's line
// ranges), those whose value is the rest of the cluster or the next word, and those whose
// optional value is the rest of the cluster (`-M50%`).
const GIT_SHORT_PATCH = "puUWcmSGL"
const GIT_SHORT_VALUED = "SGLlIOn"
const GIT_SHORT_OPTIONAL = "UXBMC"
// Long options whose value may be the next word (`--grep x`, `--output f`).
const GIT_LONG_VALUED: ReadonlySet<string> = new Set(
  (
    "stat-width stat-name-width stat-graph-width stat-count ws-error-highlight src-prefix " +
    "dst-prefix line-prefix inter-hunk-context output-indicator-new output-indicator-old " +
    "output-indicator-context diff-algorithm anchored word-diff-regex color-moved-ws " +
    "ignore-matching-lines rotate-to skip-to find-object diff-filter max-depth output max-count " +
    "max-count-oldest skip max-age since since-as-filter after min-age before until date author " +
    "committer grep-reflog grep encoding glob exclude exclude-hidden orderfile"
  )
    .split(" ")
    .map((name) => `--${name}`)
)
// Long options known to take no value: after one, the next word is read as itself.
const GIT_LONG_FLAGS: ReadonlySet<string> = new Set(
  (
    "cached staged merge-base no-index all branches tags remotes oneline graph decorate " +
    "no-decorate abbrev-commit no-abbrev-commit merges no-merges first-parent reverse " +
    "no-renames find-copies-harder full-index no-color color relative ignore-all-space " +
    "ignore-space-change ignore-space-at-eol ignore-cr-at-eol ignore-blank-lines minimal " +
    "patience histogram exit-code no-ext-diff no-textconv follow no-walk topo-order date-order " +
    "author-date-order left-right boundary cherry-pick cherry-mark ignore-missing not " +
    "no-prefix default-prefix regexp-ignore-case extended-regexp fixed-strings perl-regexp " +
    "invert-grep all-match show-signature source use-mailmap mailmap log-size no-patch " +
    "name-only name-status numstat shortstat compact-summary summary raw quiet cumulative " +
    "keep-index include-untracked only-untracked index"
  )
    .split(" ")
    .map((name) => `--${name}`)
)

interface GitDiffOptions {
  /** An option that prints the changed lines (or searches them: the pickaxe, -L). */
  readonly patch: boolean
  /** A summary that replaces the patch, read where it cannot be another option's value. */
  readonly summary: boolean
}

/**
 * The diff options of a log, show or diff line, read as git reads them: a cluster `-abc` is
 * `-a -b -c` until an option that takes a value (`-pU1` is `-p -U1`, `-pS x` searches x), and
 * a value in the next word is not an option. A summary right after a long option this table
 * does not know is not trusted (that option may take it as its value).
 */
const gitDiffOptions = (options: ReadonlyArray<string>): GitDiffOptions => {
  let patch = false
  let summary = false
  for (let i = 0; i < options.length; i++) {
    const a = options[i]!
    if (!a.startsWith("-") || a === "-") continue
    if (a.startsWith("--")) {
      const name = a.split("=", 1)[0]!
      if (GIT_PATCH.test(a) || GIT_PICKAXE.test(a)) patch = true
      else if (GIT_SUMMARY.test(a)) {
        const before = options[i - 1]
        const trusted =
          before === undefined ||
          !before.startsWith("--") ||
          before.includes("=") ||
          GIT_LONG_FLAGS.has(before) ||
          GIT_SUMMARY.test(before) ||
          GIT_PATCH.test(before) ||
          GIT_WHOLE_COMMITS.test(before)
        if (trusted) summary = true
      }
      if (!a.includes("=") && GIT_LONG_VALUED.has(name)) i++
      continue
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!
      if (GIT_SHORT_PATCH.includes(c)) patch = true
      if (c === "s" || c === "X") summary = true
      if (GIT_SHORT_VALUED.includes(c)) {
        if (j === a.length - 1) i++
        break
      }
      if (GIT_SHORT_OPTIONAL.includes(c)) break
    }
  }
  return { patch, summary }
}

/** Whether git prints every file of the commits it shows, whatever path selected them. */
export const gitPrintsWholeCommits = (argv: ReadonlyArray<string>): boolean =>
  argv.some((a) => GIT_WHOLE_COMMITS.test(a))

/**
 * Whether git prints the content of the files of a commit, the index or the work tree:
 * `diff` and `show` unless only a summary is asked for (a blob by its hash, whole), `log -p`
 * (`-pp`, `-up`, `-pU1`: clusters read as git reads them) and the plumbing diffs with a patch
 * option, `stash show`, `cat-file` but for a type, size or existence, `archive`,
 * `format-patch`, `range-diff`, `fast-export`, `merge-tree`.
 */
export const gitPrintsContents = (argv: ReadonlyArray<string>): boolean => {
  const sub = gitSubcommand(argv)
  const rest = argv.slice(argv.indexOf(sub ?? "") + 1)
  const end = rest.indexOf("--")
  const options = end === -1 ? rest : rest.slice(0, end)
  switch (sub) {
    case "diff": {
      const { patch, summary } = gitDiffOptions(options)
      return patch || !summary
    }
    case "show": {
      const { patch, summary } = gitDiffOptions(options)
      return patch || !summary || options.some((a) => GIT_HASH.test(a))
    }
    case "log":
    case "whatchanged":
    // `reflog [show]` takes log's options (`reflog -p`).
    case "reflog":
    // The plumbing diffs print the raw format unless given a patch option.
    case "diff-tree":
    case "diff-index":
    case "diff-files":
      return gitDiffOptions(options).patch
    case "stash": {
      // `stash.showPatch` makes a bare `stash show` print the patch; `stash list` takes log's options.
      const { patch, summary } = gitDiffOptions(options.slice(1))
      return (options[0] === "show" && (patch || !summary)) || (options[0] === "list" && patch)
    }
    case "cat-file":
      return !options.some((a) => /^-[tse]$/.test(a))
    // `status -v` prints the staged changes, as `diff --cached` does; status reads its options
    // as parse-options does (`-sv`, `--verb`).
    case "status":
      return options.some(
        (a) => /^-[a-zA-Z]*v/.test(a.replace(/[uM].*$/s, "")) || /^--v(e(r(b(o(se?)?)?)?)?)?$/.test(a)
      )
    // `range-diff` prints the patches of the commits it compares, `fast-export` every blob of
    // the history, `merge-tree BASE A B` (its old form) the merged content.
    case "archive":
    case "format-patch":
    case "range-diff":
    case "fast-export":
    case "merge-tree":
      return true
    default:
      return false
  }
}

// rg counts -u across words and clusters (`-u -u`, `-uL -u` are -uu: hidden files too), and
// `-.` inside a cluster is --hidden.
const rgUnrestricted = (argv: ReadonlyArray<string>): number => {
  let count = 0
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!
    if (word === "--") break
    if (word === "--unrestricted") count++
    else if (/^-[a-zA-Z.]+$/.test(word)) {
      if (word.includes(".")) return 2
      for (const c of word) if (c === "u") count++
    }
  }
  return count
}

/**
 * Recursive searches that search the working directory when given no path (`grep -r KEY`,
 * `rg KEY`).
 */
export const SEARCHES_WORKING_DIRECTORY: ReadonlySet<string> = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack"
])

// Options grep and rg share: the pattern, context lines, a match count.
const SEARCH_COMMON = [
  "-e",
  "--regexp",
  "-A",
  "-B",
  "-C",
  "-m",
  "--after-context",
  "--before-context",
  "--context",
  "--max-count"
]

/**
 * Options of the search programs that take the next word as their value (so it is not a
 * path operand), and those whose value is a file they read.
 */
export const SEARCH_OPTION_VALUES: ReadonlyMap<
  string,
  { readonly values: ReadonlySet<string>; readonly files: ReadonlySet<string> }
> = new Map([
  [
    "rg",
    {
      values: new Set([
        ...SEARCH_COMMON,
        "-g",
        "--glob",
        "--iglob",
        "-t",
        "--type",
        "-T",
        "--type-not",
        "-r",
        "--replace",
        "-M",
        "--max-columns",
        "-j",
        "--threads",
        "-d",
        "--max-depth",
        "--sort",
        "--sortr",
        "-E",
        "--encoding",
        "--colors",
        "--type-add",
        "--pre-glob",
        "--context-separator",
        "--field-match-separator",
        "--path-separator",
        "--max-filesize"
      ]),
      files: new Set(["-f", "--file", "--ignore-file"])
    }
  ],
  [
    "ag",
    {
      values: new Set(["-A", "-B", "-C", "-m", "-G", "--file-search-regex", "--ignore", "-g", "--depth"]),
      files: new Set(["-p", "--path-to-ignore"])
    }
  ]
])

/** A PowerShell parameter name abbreviated to at least `minimum + 1` characters. */
export const isAbbreviation = (option: string, full: string, minimum: number): boolean =>
  option.length >= minimum + 1 && full.startsWith(option)

/** The programs {@link followsLinks} knows. */
export const LINK_FOLLOWERS: ReadonlySet<string> = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "tar",
  "cp",
  "rsync",
  "find",
  "du",
  "zip",
  "get-childitem",
  "copy-item",
  "select-string"
])

const RECURSIVE = /^(-[a-zA-Z]*[rRa][a-zA-Z]*|--recursive|--archive)$/
// Whether an argument (a word after argv[0]) matches, without copying them out.
const anyArgument = (argv: ReadonlyArray<string>, pattern: RegExp): boolean => {
  for (let i = 1; i < argv.length; i++) if (pattern.test(argv[i]!)) return true
  return false
}
/**
 * Does the command follow symbolic links inside the trees it reads (`grep -R`, `rg -L`,
 * `tar -h`, `cp -rL`, `find -L`, `du -L`, `rsync -L`, `Get-ChildItem -FollowSymlink`)? It
 * then reads what the links point to, wherever that is.
 */
export const followsLinks = (key: string, argv: ReadonlyArray<string>): boolean => {
  const has = (pattern: RegExp) => anyArgument(argv, pattern)
  switch (key) {
    case "grep":
    case "egrep":
    case "fgrep":
      return parseGrepArgv(argv).dereference
    case "rg":
      return has(/^(-[a-zA-Z.]*L[a-zA-Z.]*|--follow)$/)
    case "ag":
      return has(/^(-[a-zA-Z]*f[a-zA-Z]*|--fo(l(l(o(w)?)?)?)?)$/)
    case "tar":
      return has(/^(-[a-zA-Z]*h[a-zA-Z]*|--dereference)$/) || /^[a-zA-Z]*h[a-zA-Z]*$/.test(argv[1] ?? "")
    case "cp":
      return has(/^(-[a-zA-Z]*L[a-zA-Z]*|--dereference)$/) && has(RECURSIVE)
    case "rsync":
      return has(/^(-[a-zA-Z]*L[a-zA-Z]*|--copy-links|--copy-unsafe-links)$/)
    case "find":
      return has(/^(-L|-follow)$/)
    case "du":
      return has(/^(-[a-zA-Z]*L[a-zA-Z]*|--dereference)$/)
    case "zip":
      return !has(/^(-[a-zA-Z]*y[a-zA-Z]*|--symlinks)$/) && has(/^-[a-zA-Z]*r/)
    case "get-childitem":
    case "copy-item":
    case "select-string":
      return has(/^-fo(l(l(o(w(s(y(m(l(i(n(k)?)?)?)?)?)?)?)?)?)?)?$/i)
    default:
      return false
  }
}

// Programs that run what the project's files say, beyond `runsProjectCode`: package
// managers (their scripts and lifecycle hooks, `pnpm build`, `npm install`), build and task
// runners, and interpreters (they import the project's modules).
export const RUNS_PROJECT_FILES: ReadonlySet<string> = new Set([
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "npx",
  "pnpx",
  "bunx",
  "deno",
  "corepack",
  "make",
  "gmake",
  "just",
  "rake",
  "ninja",
  "cmake",
  "gradle",
  "mvn",
  "ant",
  "tox",
  "nox",
  "uv",
  "uvx",
  "poetry",
  "pipenv",
  "hatch",
  "composer",
  "bundle",
  "cargo",
  "go",
  "dotnet",
  "pre-commit",
  "source",
  ".",
  // Tools that load a configuration module or build file of the project.
  "vite",
  "webpack",
  "rollup",
  "rspack",
  "parcel",
  "next",
  "nuxt",
  "astro",
  "tsup",
  "turbo",
  "nx",
  "lerna",
  "gulp",
  "grunt",
  "babel",
  "mocha",
  "ava",
  "karma",
  "playwright",
  "cypress",
  "nodemon",
  "storybook",
  "ng",
  "hardhat",
  "rails",
  "mix",
  "sbt",
  "lein",
  "meson",
  "bazel",
  "scons",
  "swift",
  "flutter",
  "stack",
  "cabal",
  "terraform",
  "ansible-playbook",
  "gradlew",
  "mvnw"
])
