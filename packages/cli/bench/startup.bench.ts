// Start-up of the `gatehouse` command against `node -e 0`, in the same run, interleaved
// (A B, then B A, each round), with the same warm-up for both. Each process is timed and its
// peak RSS read by the kernel's own accounting (wait4's rusage, through python3, because
// Node cannot read a child's rusage). Goals (installable issue): `check -- ls` <= 4x the
// wall time and <= 2.5x the peak RSS of `node -e 0`, `run -- true` <= 6x and <= 3x,
// `serve` ready (its URL printed) <= 8x.
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { compare, type Goal, reportComparisons, root } from "../../../scripts/bench-kit.ts"

const bin = NodePath.join(root, "packages", "cli", "dist", "gatehouse.js")
const rounds = 15
const warmup = 3

const built = spawnSync(process.execPath, [NodePath.join(root, "scripts", "bundle.ts"), "--if-stale"], {
  stdio: "inherit"
})
if (built.status !== 0) throw new Error("bench: the bundle could not be built")

const project = mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-startup-"))
// The rules in the person's own file: the hook does not read a repository's allow rules.
const configHome = mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-startup-config-"))
mkdirSync(NodePath.join(configHome, "gatehouse"))
writeFileSync(
  NodePath.join(configHome, "gatehouse", "gatehouse.json"),
  JSON.stringify({ permission: { bash: { "*": "ask", ls: "allow", true: "allow" } } })
)
const env = { ...process.env, XDG_CONFIG_HOME: configHome }

const waitRusage = `
import json, os, subprocess, sys, time
start = time.perf_counter()
data = os.environ.get("BENCH_STDIN", "").encode("utf8")
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.PIPE)
child.stdin.write(data)
child.stdin.close()
out = child.stdout.read()
_, status, usage = os.wait4(child.pid, 0)
print(json.dumps({"ms": (time.perf_counter() - start) * 1000, "rssKiB": usage.ru_maxrss, "status": os.waitstatus_to_exitcode(status), "out": out.decode("utf8", "replace")}))
`

interface Sample {
  readonly ms: number
  readonly rssKiB: number
  readonly status: number
  readonly out: string
}

const measure = (argv: ReadonlyArray<string>, stdin = ""): Sample => {
  const result = spawnSync("python3", ["-c", waitRusage, ...argv], {
    cwd: project,
    encoding: "utf8",
    env: { ...env, BENCH_STDIN: stdin }
  })
  if (result.status !== 0)
    throw new Error(`bench: python3 could not time ${argv.join(" ")}: ${result.stderr}`)
  return JSON.parse(result.stdout) as Sample
}

// Time from spawn to the line that carries the URL (serve), or to exit (the baseline).
const timeToReady = (argv: ReadonlyArray<string>, ready: RegExp | undefined): Promise<number> =>
  new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(argv[0]!, argv.slice(1), { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (ready?.test(out)) {
        const ms = performance.now() - start
        child.once("exit", () => resolve(ms))
        child.kill("SIGTERM")
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", (code) => {
      if (ready === undefined && code === 0) resolve(performance.now() - start)
      else if (ready === undefined || !ready.test(out))
        reject(new Error(`bench: ${argv.join(" ")} exited ${code}: ${out}`))
    })
  })

const baseline = [process.execPath, "-e", "0"]
const cases = [
  {
    name: "check -- ls",
    argv: [process.execPath, bin, "check", "--", "ls"],
    expect: /verdict: allow/,
    time: 4,
    rss: 2.5
  },
  {
    name: "run -- true",
    argv: [process.execPath, bin, "run", "--", "true"],
    expect: /^\(no output\)$/m,
    time: 6,
    rss: 3
  },
  {
    // A hook runs before every tool call of the agent: the check's targets apply.
    name: "hook claude-code (ls)",
    argv: [process.execPath, bin, "hook", "claude-code"],
    stdin: JSON.stringify({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      cwd: project
    }),
    expect: /"permissionDecision":"allow"/,
    time: 4,
    rss: 2.5
  }
] as const

// Each side's run is one timed process; the goals read the child's own wall time and peak
// RSS (from wait4), not the harness's clock around python3.
const wall = (text: string, atMost: number): Goal<Sample> => ({
  text,
  judge: "cost",
  atMost,
  metric: (run) => run.result.ms
})
const peakRss = (text: string, atMost: number): Goal<Sample> => ({
  text,
  judge: "cost",
  atMost,
  metric: (run) => run.result.rssKiB
})

const comparisons = []
for (const c of cases) {
  const stdin = "stdin" in c ? c.stdin : ""
  comparisons.push(
    await compare<Sample>({
      case: c.name,
      subject: {
        name: `gatehouse ${c.name}`,
        run: () => {
          const sample = measure(c.argv, stdin)
          if (sample.status !== 0 || !c.expect.test(sample.out))
            throw new Error(`bench: ${c.name} did not do its work (exit ${sample.status}):\n${sample.out}`)
          return sample
        }
      },
      baseline: { name: "node -e 0", run: () => measure(baseline) },
      goals: [
        wall(`<= ${c.time}x the wall time of node -e 0`, c.time),
        peakRss(`<= ${c.rss}x its peak RSS`, c.rss)
      ],
      rounds,
      warmup,
      same: (sample) => sample.status
    })
  )
}

{
  const ready = /http:\/\/127\.0\.0\.1:\d+/
  const serve = [process.execPath, bin, "serve", "--port", "0"]
  comparisons.push(
    await compare<number>({
      case: "serve (URL printed)",
      subject: { name: "gatehouse serve", run: () => timeToReady(serve, ready) },
      baseline: { name: "node -e 0", run: () => timeToReady(baseline, undefined) },
      goals: [
        { text: "<= 8x the wall time of node -e 0", judge: "cost", atMost: 8, metric: (run) => run.result }
      ],
      rounds,
      warmup,
      same: () => true
    })
  )
}

rmSync(project, { recursive: true, force: true })
rmSync(configHome, { recursive: true, force: true })
reportComparisons("cli-startup", comparisons)
