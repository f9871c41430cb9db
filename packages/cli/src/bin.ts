#!/usr/bin/env node
// The `gatehouse` command. Subcommands land with their issues: check (shell analysis),
// run (shell execution), demo (session), serve (server).
const [command] = process.argv.slice(2)

const usage = `usage: gatehouse <command>

commands (in progress):
  demo    a scripted agent session in a temporary workspace (coming with the session work)
  check   the gate's verdict for a shell command, without running it (coming)
  run     one command through the whole pipeline: gate, asks, process, truncation (coming)
  serve   the HTTP API, event stream and web page (coming)`

if (command === "demo") {
  console.log(`Gatehouse demo: not built yet.

What it will show: a scripted agent session in a fresh temporary workspace, with
streamed text, tool calls going pending -> running -> completed, a command that asks
for your approval, one the configuration denies, output large enough to be truncated
and spilled to a file, and a doom loop caught in the act.

Today the foundation is in place: the event bus, instances and per-instance state.
Run the tests with: pnpm test`)
} else if (command === undefined || command === "--help" || command === "-h") {
  console.log(usage)
} else {
  console.error(`gatehouse: unknown or unfinished command "${command}"\n\n${usage}`)
  process.exit(2)
}
