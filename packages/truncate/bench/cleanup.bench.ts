// `cleanup` over 100 000 spill files, half of them expired, against
// `find DIR -name 'tool_*' -mmin +N -delete` on an identical copy. Target: at most 2x find.
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { median, report } from "../../../scripts/bench-kit.ts"

const FILES = 100_000
const RUNS = 3
const retentionMinutes = Duration.toMinutes(Truncate.RETENTION)

const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-bench-cleanup-"))

// Every other file is 8 days old (expired), the rest 1 day old; 100 bytes each. Made once
// with split/touch (node would spend minutes in 200 000 syscall round trips), then copied.
const template = NodePath.join(root, "template")
const shell = (script: string) => {
  const result = spawnSync("sh", ["-c", script], { cwd: template, stdio: ["ignore", "ignore", "pipe"] })
  if (result.status !== 0) throw new Error(`setup failed: ${result.stderr}`)
}
NodeFs.mkdirSync(template)
shell(`head -c ${FILES * 100} /dev/zero | tr '\\0' x | split -b 100 -a 6 -d - tool_`)
shell(`ls | awk 'NR % 2 == 1' | xargs touch -d '8 days ago'`)
shell(`ls | awk 'NR % 2 == 0' | xargs touch -d '1 day ago'`)
if (NodeFs.readdirSync(template).length !== FILES) throw new Error("setup made the wrong number of files")

const copy = (from: string, to: string) => {
  const result = spawnSync("cp", ["-a", from, to])
  if (result.status !== 0) throw new Error(`cp failed: ${result.stderr}`)
}

const time = async (run: () => Promise<void> | void) => {
  const start = performance.now()
  await run()
  return performance.now() - start
}

const remaining = (directory: string) => NodeFs.readdirSync(directory).length

try {
  const ours: Array<number> = []
  const find: Array<number> = []
  let removed = 0
  for (let run = 0; run < RUNS; run++) {
    const a = NodePath.join(root, `a${run}`)
    const b = NodePath.join(root, `b${run}`)
    copy(template, a)
    copy(template, b)
    // Flush the copies first, so neither side pays for the other's pending metadata writes.
    spawnSync("sync")
    const cleanup = () =>
      Effect.runPromise(
        Effect.gen(function* () {
          const truncate = yield* Truncate.Service
          removed = (yield* truncate.cleanup).removed
        }).pipe(Effect.provide(Truncate.layerWith({ directory: a })))
      )
    const findDelete = () => {
      const result = spawnSync("find", [b, "-name", "tool_*", "-mmin", `+${retentionMinutes}`, "-delete"])
      if (result.status !== 0) throw new Error(`find failed: ${result.stderr}`)
    }
    if (run % 2 === 0) {
      ours.push(await time(cleanup))
      find.push(await time(findDelete))
    } else {
      find.push(await time(findDelete))
      ours.push(await time(cleanup))
    }
    if (removed !== FILES / 2 || remaining(a) !== FILES / 2 || remaining(b) !== FILES / 2) {
      throw new Error(`unexpected result: removed ${removed}, left ${remaining(a)} / ${remaining(b)}`)
    }
    NodeFs.rmSync(a, { recursive: true })
    NodeFs.rmSync(b, { recursive: true })
  }
  const oursMs = median(ours)
  const findMs = median(find)
  const ratio = oursMs / findMs
  report(
    "truncate-cleanup",
    [
      { case: "find -delete", "median ms": Math.round(findMs) },
      { case: "Truncate cleanup", "median ms": Math.round(oursMs) }
    ],
    {
      files: FILES,
      expired: FILES / 2,
      runs: RUNS,
      "cleanup / find time": Math.round(ratio * 100) / 100,
      "target: <= 2x find": ratio <= 2 ? "met" : "MISSED"
    }
  )
} finally {
  NodeFs.rmSync(root, { recursive: true, force: true })
}
