// The Redis client (~650 modules) loads only for `serve --redis`: `check` and `run` never
// resolve a module of it, a server asked to join a group does.
import { spawnSync } from "node:child_process"
import { assert, describe, it } from "vitest"
import { project } from "./processes.ts"

const BIN = new URL("../../cli/src/bin.ts", import.meta.url).href

/** Runs `gatehouse <args>` in a process that records every module it resolves. */
const redisModules = (args: ReadonlyArray<string>, cwd: string) => {
  const program = `
import { registerHooks } from "node:module"
const seen = []
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.push(r.url); return r } })
process.on("exit", () => {
  const redis = seen.filter((url) => /node_modules\\/(\\.pnpm\\/)?(@redis|redis)[/+@]/.test(url))
  console.log("RESOLVED " + seen.length + " REDIS " + redis.length)
})
process.argv = [process.argv[0], "gatehouse", ...${JSON.stringify(args)}]
await import(${JSON.stringify(BIN)})
`
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", program], {
    cwd,
    encoding: "utf8",
    timeout: 60_000
  })
  const match = /RESOLVED (\d+) REDIS (\d+)/.exec(result.stdout)
  assert.isNotNull(match, `no count printed:\n${result.stdout}\n${result.stderr}`)
  return { resolved: Number(match![1]), redis: Number(match![2]) }
}

describe("loading the Redis client", () => {
  it("check and run resolve none of it; serve --redis does", () => {
    const dir = project([])
    for (const args of [
      ["check", "--", "ls -la"],
      ["run", "--sandbox", "off", "--", "true"]
    ]) {
      const counts = redisModules(args, dir)
      assert.isAbove(counts.resolved, 10, args.join(" "))
      assert.strictEqual(counts.redis, 0, args.join(" "))
    }
    assert.isAbove(redisModules(["serve", "--redis", "redis://127.0.0.1:1"], dir).redis, 10)
  }, 120_000)
})
