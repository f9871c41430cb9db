// `cleanup` over 100 000 spill files, half of them expired, against
// `find DIR -name 'tool_*' -mmin +N -delete` on an identical copy, alternated in one run (each
// side gets a fresh copy, made and flushed outside the timing); both must leave the same
// files. Goal: at most 2x find's time.
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { compare, reportComparisons } from "../../../scripts/bench-kit.ts"

const FILES = 100_000
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
  const result = spawnSync("cp", ["-al", from, to])
  if (result.status !== 0) throw new Error(`cp failed: ${result.stderr}`)
}

const remaining = (directory: string) => NodeFs.readdirSync(directory).sort()

// A fresh copy of the template for the next run of a side, flushed first, so neither side
// pays for the other's pending metadata writes.
let copies = 0
const freshCopy = (): string => {
  const target = NodePath.join(root, `copy${copies++}`)
  copy(template, target)
  spawnSync("sync")
  return target
}

const side = (name: string, clean: (directory: string) => Promise<void> | void) => {
  let directory = ""
  return {
    name,
    prepare: () => {
      directory = freshCopy()
    },
    run: async () => {
      await clean(directory)
      return directory
    },
    settle: (dir: string) => {
      left.set(dir, remaining(dir))
      NodeFs.rmSync(dir, { recursive: true })
    }
  }
}
const left = new Map<string, Array<string>>()

const cleanup = (directory: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const truncate = yield* Truncate.Service
      const { removed } = yield* truncate.cleanup
      if (removed !== FILES / 2) throw new Error(`cleanup removed ${removed} files, not ${FILES / 2}`)
    }).pipe(Effect.provide(Truncate.layerWith({ directory })))
  )

const findDelete = (directory: string) => {
  const result = spawnSync("find", [directory, "-name", "tool_*", "-mmin", `+${retentionMinutes}`, "-delete"])
  if (result.status !== 0) throw new Error(`find failed: ${result.stderr}`)
}

try {
  const comparison = await compare({
    case: `${FILES} spill files, half expired`,
    subject: side("Truncate cleanup", cleanup),
    baseline: side("find -delete", findDelete),
    rounds: 5,
    warmup: 1,
    // The files each side left (the copies' names differ).
    same: (directory) => left.get(directory),
    goals: [{ text: "cleanup <= 2x find -delete's time", judge: "cost", atMost: 2 }]
  })
  reportComparisons("truncate-cleanup", [comparison], { summary: { files: FILES, expired: FILES / 2 } })
} finally {
  NodeFs.rmSync(root, { recursive: true, force: true })
}
