#!/usr/bin/env node
// The `gatehouse` command: a thin dispatcher. Each subcommand lives in
// src/commands/<name>.ts and exports `main(argv): Promise<number>` (the exit code); it is
// imported only when asked for, so `check` never loads the server.
import * as NodeModule from "node:module"

// V8's code cache on disk (Node's own, in the system's temp folder): a second start skips
// compiling the bundle, most of a cold start.
NodeModule.enableCompileCache?.()

type Command = { readonly main: (argv: ReadonlyArray<string>) => Promise<number> }

const commands: Record<string, { readonly what: string; readonly load: () => Promise<Command> }> = {
  check: {
    what: "the gate's verdict for a shell command, without running it",
    load: () => import("./commands/check.ts")
  },
  run: {
    what: "one command through the whole pipeline: gate, asks, process, truncation",
    load: () => import("./commands/run.ts")
  },
  demo: { what: "a scripted agent session in a temporary workspace", load: () => import("./commands/demo.ts") },
  serve: { what: "the HTTP API, event stream and web page", load: () => import("./commands/serve.ts") }
}

const usage = `usage: gatehouse <command> [options]

commands:
${Object.entries(commands)
  .map(([name, { what }]) => `  ${name.padEnd(6)}  ${what}`)
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
process.exitCode = await (await command.load()).main(rest)
