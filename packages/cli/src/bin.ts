#!/usr/bin/env node
// The `gatehouse` command: a thin dispatcher. Each subcommand lives in
// src/commands/<name>.ts and exports `main(argv): Promise<number>` (the exit code).
import { existsSync } from "node:fs"

const commands = {
  check: "the gate's verdict for a shell command, without running it",
  run: "one command through the whole pipeline: gate, asks, process, truncation",
  demo: "a scripted agent session in a temporary workspace",
  serve: "the HTTP API, event stream and web page"
} as const

const usage = `usage: gatehouse <command> [options]

commands:
${Object.entries(commands)
  .map(([name, what]) => `  ${name.padEnd(6)}  ${what}`)
  .join("\n")}

Run gatehouse <command> --help for a command's options.`

const [name, ...rest] = process.argv.slice(2)

if (name === undefined || name === "--help" || name === "-h" || name === "help") {
  console.log(usage)
  process.exit(name === undefined ? 2 : 0)
}
if (!Object.hasOwn(commands, name)) {
  console.error(`gatehouse: unknown command "${name}"\n\n${usage}`)
  process.exit(2)
}
const module = new URL(`./commands/${name}.ts`, import.meta.url)
if (!existsSync(module)) {
  console.error(`gatehouse: "${name}" is not built yet in this version`)
  process.exit(2)
}
const command = (await import(module.href)) as { main: (argv: ReadonlyArray<string>) => Promise<number> }
process.exitCode = await command.main(rest)
