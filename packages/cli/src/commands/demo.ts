// Placeholder until the session work lands: says what the demo will show.
export const main = async (_argv: ReadonlyArray<string>): Promise<number> => {
  console.log(`Gatehouse demo: not built yet.

What it will show: a scripted agent session in a fresh temporary workspace, with
streamed text, tool calls going pending -> running -> completed, a command that asks
for your approval, one the configuration denies, output large enough to be truncated
and spilled to a file, and a doom loop caught in the act.

Today the foundation is in place: the event bus, instances and per-instance state.
Run the tests with: pnpm test`)
  return 0
}
