// Start-up of the `gatehouse` command against `node -e 0`, in the same run, interleaved
// (A B, then B A, each round), with the same warm-up for both. Each process is timed and its
// peak RSS read by the kernel's own accounting (wait4's rusage, through python3, because
// Node cannot read a child's rusage). Goals (installable issue): `check -- ls` <= 4x the
// wall time and <= 2.5x the peak RSS of `node -e 0`, `run -- true` <= 6x and <= 3x,
// `serve` ready (its URL printed) <= 8x.
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { median, type Row, report, root } from "../../../scripts/bench-kit.ts"

const bin = NodePath.join(root, "packages", "cli", "dist", "gatehouse.js")
const rounds = 15
const warmup = 3

const built = spawnSync(process.execPath, [NodePath.join(root, "scripts", "bundle.ts"), "--if-stale"], {
  stdio: "inherit"
})
if (built.status !== 0) throw new Error("bench: the bundle could not be built")

const project = mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-startup-"))
writeFileSync(
  NodePath.join(project, "gatehouse.json"),
  JSON.stringify({ permission: { bash: { "*": "ask", ls: "allow", true: "allow" } } })
)

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
    env: { ...process.env, BENCH_STDIN: stdin }
  })
  if (result.status !== 0)
    throw new Error(`bench: python3 could not time ${argv.join(" ")}: ${result.stderr}`)
  return JSON.parse(result.stdout) as Sample
}

// Time from spawn to the line that carries the URL (serve), or to exit (the baseline).
const timeToReady = (argv: ReadonlyArray<string>, ready: RegExp | undefined): Promise<number> =>
  new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(argv[0]!, argv.slice(1), { cwd: project, stdio: ["ignore", "pipe", "pipe"] })
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
    stdin: JSON.stringify({ tool_name: "Bash", tool_input: { command: "ls" }, cwd: project }),
    expect: /"permissionDecision":"allow"/,
    time: 4,
    rss: 2.5
  }
] as const

const rows: Array<Row> = []
const summary: Record<string, unknown> = {}
const stats = (values: ReadonlyArray<number>) => ({
  min: Math.min(...values),
  median: median(values),
  max: Math.max(...values)
})
const round2 = (value: number) => Math.round(value * 100) / 100

for (const c of cases) {
  const check = (sample: Sample) => {
    if (sample.status !== 0 || !c.expect.test(sample.out)) {
      throw new Error(`bench: ${c.name} did not do its work (exit ${sample.status}):\n${sample.out}`)
    }
  }
  const checkBaseline = (sample: Sample) => {
    if (sample.status !== 0) throw new Error(`bench: node -e 0 exited ${sample.status}`)
  }
  for (let i = 0; i < warmup; i++) {
    check(measure(c.argv, "stdin" in c ? c.stdin : ""))
    checkBaseline(measure(baseline))
  }
  const timeRatios: Array<number> = []
  const rssRatios: Array<number> = []
  const subjectMs: Array<number> = []
  const baselineMs: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const pair =
      i % 2 === 0
        ? { subject: measure(c.argv, "stdin" in c ? c.stdin : ""), base: measure(baseline) }
        : (() => {
            const base = measure(baseline)
            return { subject: measure(c.argv, "stdin" in c ? c.stdin : ""), base }
          })()
    check(pair.subject)
    checkBaseline(pair.base)
    subjectMs.push(pair.subject.ms)
    baselineMs.push(pair.base.ms)
    timeRatios.push(pair.subject.ms / pair.base.ms)
    rssRatios.push(pair.subject.rssKiB / pair.base.rssKiB)
  }
  const time = stats(timeRatios)
  const rss = stats(rssRatios)
  rows.push({
    case: c.name,
    "ms (median)": round2(median(subjectMs)),
    "node -e 0 ms": round2(median(baselineMs)),
    "time ratio": `${round2(time.median)} [${round2(time.min)}–${round2(time.max)}]`,
    "rss ratio": `${round2(rss.median)} [${round2(rss.min)}–${round2(rss.max)}]`,
    goal: `<= ${c.time}x time, <= ${c.rss}x rss`,
    met: time.median <= c.time && rss.median <= c.rss
  })
  summary[c.name] = { time, rss }
}

{
  const ready = /http:\/\/127\.0\.0\.1:\d+/
  const serve = [process.execPath, bin, "serve", "--port", "0"]
  for (let i = 0; i < warmup; i++) {
    await timeToReady(serve, ready)
    await timeToReady(baseline, undefined)
  }
  const ratios: Array<number> = []
  const serveMs: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    let subject: number
    let base: number
    if (i % 2 === 0) {
      subject = await timeToReady(serve, ready)
      base = await timeToReady(baseline, undefined)
    } else {
      base = await timeToReady(baseline, undefined)
      subject = await timeToReady(serve, ready)
    }
    serveMs.push(subject)
    ratios.push(subject / base)
  }
  const time = stats(ratios)
  rows.push({
    case: "serve (URL printed)",
    "ms (median)": round2(median(serveMs)),
    "node -e 0 ms": "",
    "time ratio": `${round2(time.median)} [${round2(time.min)}–${round2(time.max)}]`,
    "rss ratio": "",
    goal: "<= 8x time",
    met: time.median <= 8
  })
  summary.serve = { time }
}

rmSync(project, { recursive: true, force: true })
report("cli-startup", rows, summary)
