#!/usr/bin/env node
// The `gatehouse` command: a thin dispatcher. Each subcommand lives in
// src/commands/<name>.ts and exports `main(argv): Promise<number>` (the exit code); it is
// imported only when asked for, so `check` never loads the server.
import * as NodeModule from "node:module"
import * as NodePath from "node:path"
import * as NodeV8 from "node:v8"
import { defaultFolder } from "./CodeCache.ts"

// Node's code cache on disk for the modules it loads (the commands that start often bring
// their own, see CodeCache), in our private folder: a cache in the shared temp folder could be
// written by anyone, and what it holds runs as this command.
const codeFolder = defaultFolder()
if (codeFolder !== undefined) NodeModule.enableCompileCache?.(NodePath.join(codeFolder, "node"))

type Command = { readonly main: (argv: ReadonlyArray<string>) => Promise<number> }

interface Entry {
  readonly what: string
  readonly oneShot: boolean
  readonly load: () => Promise<Command>
}

const commands: Record<string, Entry> = {
  check: {
    what: "the gate's verdict for a shell command, without running it",
    oneShot: true,
    load: () => import("./commands/check.ts")
  },
  run: {
    what: "one command through the whole pipeline: gate, asks, process, truncation",
    oneShot: true,
    load: () => import("./commands/run.ts")
  },
  demo: {
    what: "a scripted agent session in a temporary workspace",
    oneShot: false,
    load: () => import("./commands/demo.ts")
  },
  chat: {
    what: "talk to a model (anthropic, openai, or a local openai-compatible server), every tool call gated",
    oneShot: false,
    load: () => import("./commands/chat.ts")
  },
  serve: {
    what: "the HTTP API, event stream and web page",
    oneShot: false,
    load: () => import("./commands/serve.ts")
  },
  hook: {
    what: "the gate of Claude Code, Gemini CLI or Codex (their pre-tool-call hook)",
    oneShot: true,
    load: () => import("./commands/hook.ts")
  },
  approvals: {
    what: 'list, revoke or clear the project\'s remembered "always" answers',
    oneShot: true,
    load: () => import("./commands/approvals.ts")
  },
  mcp: {
    what: "Gatehouse's gated tools (bash, read, write, edit, list) as an MCP server on stdio",
    oneShot: false,
    load: () => import("./commands/mcp.ts")
  }
}

const usage = `usage: gatehouse <command> [options]

commands:
${Object.entries(commands)
  .map(([name, { what }]) => `  ${name.padEnd(9)}  ${what}`)
  .join("\n")}

Run gatehouse <command> --help for a command's options.`

const [name, ...rest] = process.argv.slice(2)

if (name === undefined || name === "--help" || name === "-h" || name === "help") {
  console.log(usage)
  process.exit(name === undefined ? 2 : 0)
}
const command = Object.hasOwn(commands, name) ? commands[name] : undefined
if (command === undefined) {
  console.error(`gatehouse: unknown command "${name}"\n\n${usage}`)
  process.exit(2)
}
if (command.oneShot) {
  // Optimising the grammars' wasm with TurboFan costs seconds of CPU, and a process that
  // exits meanwhile waits for it, for parses that take microseconds with the baseline
  // compiler. Long-lived commands (serve, demo) keep the optimising tier.
  NodeV8.setFlagsFromString("--liftoff-only")
}
process.exitCode = await (await command.load()).main(rest)
