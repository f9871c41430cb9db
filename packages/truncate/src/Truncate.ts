/**
 * Bounded tool output. A tool result that exceeds the line or byte limit is cut to a
 * preview on whole lines (never inside a UTF-8 character) with a marker and a hint; the
 * full output goes to a `tool_<id>` spill file that the model can search or page through.
 * Producers that never hold their whole output (the shell tool) stream it through
 * `spill`, which keeps only about `2 x maxBytes` in memory. The layer runs a reaper that
 * removes spill files by age (mtime) and keeps the folder under a size cap.
 *
 * @since 0.0.0
 */
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as PlatformError from "effect/PlatformError"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Cut from "./internal/cut.ts"
import * as Reaper from "./internal/reaper.ts"
import * as SpillSink from "./internal/sink.ts"
import * as SpillFile from "./internal/spillFile.ts"

/**
 * Default line limit of a tool result.
 *
 * @since 0.0.0
 */
export const MAX_LINES = 2000

/**
 * Default byte limit of a tool result (50 KiB, counted in UTF-8).
 *
 * @since 0.0.0
 */
export const MAX_BYTES = 51_200

/**
 * How long spill files are kept, judged by their modification time.
 *
 * @since 0.0.0
 */
export const RETENTION: Duration.Duration = Duration.days(7)

/**
 * Default cap of one spill file (1 GiB); the file records how many bytes it dropped.
 *
 * @since 0.0.0
 */
export const MAX_SPILL_BYTES = 1024 * 1024 * 1024

/**
 * Default cap of the whole spill directory (2 GiB); the reaper removes the oldest files first.
 *
 * @since 0.0.0
 */
export const MAX_DIRECTORY_BYTES = 2 * 1024 * 1024 * 1024

/**
 * Default time between two reaper passes.
 *
 * @since 0.0.0
 */
export const REAP_INTERVAL: Duration.Duration = Duration.hours(1)

/**
 * Delay between the layer's start and the reaper's first pass.
 *
 * @since 0.0.0
 */
export const FIRST_REAP_DELAY: Duration.Duration = Duration.minutes(1)

/**
 * Which part of a long output is kept: the start, the end, or both around the marker
 * (a fifth of the budget for the start, four fifths for the end, where errors are).
 *
 * @since 0.0.0
 */
export type Direction = Cut.Direction

/**
 * What `head` and `tail` kept of a text.
 *
 * @since 0.0.0
 */
export interface Kept {
  /** The kept text; the text itself, unchanged, when it fits both limits. */
  readonly text: string
  /** Lines kept. A single line longer than the byte limit is cut and counts as one. */
  readonly lines: number
  /** UTF-8 bytes kept. */
  readonly bytes: number
  /** How much was left out, in `unit`; 0 when the text fits. */
  readonly removed: number
  /** The limit that stopped the cut. */
  readonly unit: "lines" | "bytes"
}

const keep = (text: string, direction: "head" | "tail", maxLines: number, maxBytes: number): Kept => {
  const source = Cut.sourceOf(Buffer.from(text, "utf8"))
  if (Cut.fits(source.totalLines, source.totalBytes, maxLines, maxBytes)) {
    return { text, lines: source.totalLines, bytes: source.totalBytes, removed: 0, unit: "lines" }
  }
  const plan = Cut.plan(source, direction, maxLines, maxBytes)
  return {
    text: direction === "head" ? Cut.headText(source, plan) : Cut.tailText(source, plan),
    lines: plan.keptLines,
    bytes: plan.keptBytes,
    removed: plan.removed,
    unit: plan.unit
  }
}

/**
 * The first lines of `text` within `maxLines` lines and `maxBytes` UTF-8 bytes. Lines are
 * kept whole; only when not even the first line fits is it cut, on a character boundary.
 * A final newline ends the last line rather than starting another.
 *
 * @example
 * ```ts
 * import { Truncate } from "@gatehousejs/truncate"
 * Truncate.head("a\nb\nc\n", 2, 100) // { text: "a\nb", lines: 2, bytes: 3, removed: 1, unit: "lines" }
 * ```
 * @since 0.0.0
 */
export const head = (text: string, maxLines: number = MAX_LINES, maxBytes: number = MAX_BYTES): Kept =>
  keep(text, "head", maxLines, maxBytes)

/**
 * The last lines of `text` within `maxLines` lines and `maxBytes` UTF-8 bytes (see `head`).
 *
 * @since 0.0.0
 */
export const tail = (text: string, maxLines: number = MAX_LINES, maxBytes: number = MAX_BYTES): Kept =>
  keep(text, "tail", maxLines, maxBytes)

/**
 * The default hint after a truncated output: where the full output is and how to read it.
 *
 * @since 0.0.0
 */
export const hint = (outputPath: string, saved?: Saved): string =>
  `The tool call succeeded but the output was truncated. ${savedText(outputPath, saved)}\n` +
  "Use Grep to search the full content or Read with offset/limit to view specific sections."

/**
 * What the spill file holds when it is not the whole output: it stopped at its byte cap.
 *
 * @since 0.1.0
 */
export interface Saved {
  /** Bytes of the output kept in the file (the cap). */
  readonly savedBytes: number
  /** Bytes of the whole output. */
  readonly totalBytes: number
}

const savedText = (outputPath: string, saved: Saved | undefined) =>
  saved === undefined
    ? `Full output saved to: ${outputPath}`
    : `Only the first ${saved.savedBytes} of ${saved.totalBytes} bytes were saved (spill files stop at ${saved.savedBytes} bytes), to: ${outputPath}`

/**
 * The hint for agents that may use the Task tool: delegate reading the file.
 *
 * @since 0.0.0
 */
export const taskHint = (outputPath: string, saved?: Saved): string =>
  `The tool call succeeded but the output was truncated. ${savedText(outputPath, saved)}\n` +
  "Use the Task tool to have explore agent process this file with Grep and Read (with offset/limit). " +
  "Do NOT read the full file yourself - delegate to save context."

/**
 * The hint when the spill file could not be written (disk full, directory not writable).
 *
 * @since 0.0.0
 */
export const unsavedHint =
  "The tool call succeeded but the output was truncated. The full output could not be saved " +
  "(writing the spill file failed), so only the part shown here is available."

/**
 * Per-call options of `output` and `spill`. Omitted limits come from the layer.
 *
 * @since 0.0.0
 */
export interface Options {
  readonly maxLines?: number | undefined
  readonly maxBytes?: number | undefined
  /** Default `"head"`. */
  readonly direction?: Direction | undefined
  /**
   * Builds the hint from the spill file's path (and, when the file stopped at its cap,
   * what it holds); default `hint` (see also `taskHint`).
   */
  readonly hint?: ((outputPath: string, saved?: Saved) => string) | undefined
}

/**
 * A bounded tool result. `outputPath` is the spill file with the full output; it is absent
 * when the output fits (nothing is written) and when saving failed (the content says so).
 *
 * @since 0.0.0
 */
export type Result =
  | { readonly content: string; readonly truncated: false }
  | { readonly content: string; readonly truncated: true; readonly outputPath?: string }

/**
 * The result of a spill sink: `output`'s result for the same bytes, plus the totals.
 *
 * @since 0.0.0
 */
export type SpillResult = Result & {
  readonly totalBytes: number
  readonly totalLines: number
}

/**
 * A streaming spill sink (see `Interface.spill`).
 *
 * @since 0.0.0
 */
export interface Sink {
  /**
   * Takes the next bytes of the output. Cheap per chunk: it copies at most `maxBytes + 2`
   * bytes of it and, once the limits are exceeded, writes it to the spill file. The bytes
   * are not kept after the effect completes. Calls must not overlap.
   */
  readonly append: (bytes: Uint8Array) => Effect.Effect<void>
  /**
   * The end of the output so far, for progress updates: at most `maxChars` UTF-16 code
   * units of whole characters, and at most the last `maxBytes` or so bytes seen. Decodes
   * only the bytes it returns.
   */
  readonly preview: (maxChars: number) => Effect.Effect<string>
  /** Completes the spill file and returns the result. Later calls return the same result. */
  readonly finish: Effect.Effect<SpillResult>
}

/**
 * What `cleanup` did.
 *
 * @since 0.0.0
 */
export interface CleanupResult {
  readonly removed: number
  readonly freedBytes: number
}

/**
 * The truncation service: bounded results, spill files, and their cleanup.
 *
 * @since 0.0.0
 */
export interface Interface {
  /**
   * The directory spill files go to. An agent may always read it (the hint points there):
   * the file tools and the shell gate do not count a read in it as outside the project.
   */
  readonly directory: string
  /**
   * Returns `text` unchanged when it is within both limits (nothing is written); otherwise
   * writes it to a new spill file and returns the kept part, the marker and the hint.
   * Never fails: when saving fails the preview still comes back, without `outputPath`.
   */
  readonly output: (text: string, options?: Options) => Effect.Effect<Result>
  /** Writes `text` to a new spill file (mode 0600) and returns its path. */
  readonly write: (text: string) => Effect.Effect<string, WriteError>
  /**
   * A streaming sink for output that is never held whole. The file is created only once
   * the limits are exceeded, capped at `maxSpillBytes`; `finish` gives what `output` would
   * give for the same bytes. Closing the scope without `finish` removes the file.
   */
  readonly spill: (options?: Options) => Effect.Effect<Sink, never, Scope.Scope>
  /** Removes expired `tool_*` files (by mtime), then enforces `maxDirectoryBytes`. */
  readonly cleanup: Effect.Effect<CleanupResult>
}

/**
 * The truncation service (see `Interface`); provided by `layer` and `layerWith`.
 *
 * @since 0.0.0
 */
export class Service extends Context.Service<Service, Interface>()("@gatehousejs/truncate/Truncate") {}

/**
 * A spill file could not be written.
 *
 * @since 0.0.0
 */
export class WriteError extends Schema.TaggedError<WriteError>()("TruncateWriteError", {
  directory: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Could not save tool output in ${this.directory}: ${this.reason}. Check that the directory is writable and the disk is not full.`
  }
}

/**
 * Settings of `layerWith`; every field is optional.
 *
 * @since 0.0.0
 */
export interface LayerOptions {
  /** Where spill files go; default `defaultDirectory`. */
  readonly directory?: string | undefined
  /** Age (mtime) after which the reaper removes a file; default `RETENTION`. */
  readonly retention?: Duration.Input | undefined
  readonly maxLines?: number | undefined
  readonly maxBytes?: number | undefined
  readonly maxSpillBytes?: number | undefined
  readonly maxDirectoryBytes?: number | undefined
  /** Time between reaper passes; default `REAP_INTERVAL`. */
  readonly reapInterval?: Duration.Input | undefined
}

/**
 * `$XDG_DATA_HOME/gatehouse/tool-output`, or `~/.local/share/gatehouse/tool-output` when
 * `XDG_DATA_HOME` is unset, empty or relative.
 *
 * @since 0.0.0
 */
export const defaultDirectory: Effect.Effect<string> = Config.String("XDG_DATA_HOME").pipe(
  Config.withDefault(""),
  Effect.orElseSucceed(() => ""),
  Effect.map((xdg) =>
    NodePath.join(
      NodePath.isAbsolute(xdg) ? xdg : NodePath.join(NodeOs.homedir(), ".local", "share"),
      "gatehouse",
      "tool-output"
    )
  )
)

const limit = (value: number | undefined, fallback: number): number =>
  value === undefined || Number.isNaN(value) ? fallback : Math.max(0, Math.floor(value))

// The service on the `FileSystem` in context, with its reaper forked into the current scope.
const make = Effect.fnUntraced(function* (options: LayerOptions = {}) {
  const fs = yield* FileSystem.FileSystem
  const directory = options.directory ?? (yield* defaultDirectory)
  const maxLines = limit(options.maxLines, MAX_LINES)
  const maxBytes = limit(options.maxBytes, MAX_BYTES)
  const store: SpillFile.Store = {
    fs,
    directory,
    maxSpillBytes: limit(options.maxSpillBytes, MAX_SPILL_BYTES),
    active: new Set()
  }
  // A folder an older version made 0755 is made private: spill files hold command output.
  yield* fs.stat(directory).pipe(
    Effect.flatMap((info) =>
      info.type === "Directory" && (info.mode & 0o077) !== 0 ? fs.chmod(directory, 0o700) : Effect.void
    ),
    Effect.ignore
  )
  const reaper: Reaper.Settings = {
    fs,
    directory,
    retentionMillis: Duration.toMillis(options.retention ?? RETENTION),
    maxDirectoryBytes: limit(options.maxDirectoryBytes, MAX_DIRECTORY_BYTES),
    active: store.active
  }

  const report = (error: PlatformError.PlatformError) =>
    Effect.logError("Truncate: the full tool output could not be saved", error).pipe(
      Effect.annotateLogs({ directory })
    )

  const resolve = (callOptions: Options | undefined) => ({
    maxLines: limit(callOptions?.maxLines, maxLines),
    maxBytes: limit(callOptions?.maxBytes, maxBytes),
    direction: callOptions?.direction ?? "head",
    hint: callOptions?.hint ?? hint
  })

  const output = Effect.fn("Truncate.output")(function* (text: string, callOptions?: Options) {
    const settings = resolve(callOptions)
    const bytes = Buffer.from(text, "utf8")
    const source = Cut.sourceOf(bytes)
    if (Cut.fits(source.totalLines, source.totalBytes, settings.maxLines, settings.maxBytes)) {
      return { content: text, truncated: false } satisfies Result
    }
    const plan = Cut.plan(source, settings.direction, settings.maxLines, settings.maxBytes)
    const outputPath = yield* SpillFile.save(store, bytes).pipe(
      Effect.catch((error) => Effect.as(report(error), undefined))
    )
    if (outputPath === undefined) {
      return { content: Cut.render(source, plan, unsavedHint), truncated: true } satisfies Result
    }
    const capped =
      bytes.length > store.maxSpillBytes
        ? { savedBytes: store.maxSpillBytes, totalBytes: bytes.length }
        : undefined
    const content = Cut.render(source, plan, settings.hint(outputPath, capped))
    return { content, truncated: true, outputPath } satisfies Result
  })

  const write = Effect.fn("Truncate.write")(function* (text: string) {
    return yield* SpillFile.save(store, Buffer.from(text, "utf8")).pipe(
      Effect.mapError((error) => new WriteError({ directory, reason: error.message }))
    )
  })

  const spill = (callOptions?: Options): Effect.Effect<Sink, never, Scope.Scope> =>
    SpillSink.make(store, { ...resolve(callOptions), unsavedHint, report })

  // One pass at a time: a manual cleanup and the reaper's pass never race over the same files.
  const passes = yield* Semaphore.make(1)
  const cleanup = Reaper.run(reaper).pipe(passes.withPermits(1), Effect.withSpan("Truncate.cleanup"))

  // First pass shortly after start, then every interval; a failed pass is logged and the
  // next one still runs. Forked into the layer's scope, so closing the layer stops it.
  const pass = cleanup.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : Effect.logError("Truncate: spill file cleanup failed", cause)
    )
  )
  yield* Effect.sleep(FIRST_REAP_DELAY).pipe(
    Effect.andThen(Effect.repeat(pass, Schedule.spaced(options.reapInterval ?? REAP_INTERVAL))),
    Effect.forkScoped
  )

  return Service.of({ directory, output, write, spill, cleanup })
})

/**
 * The live service with custom settings, on Node's file system.
 *
 * @example
 * ```ts
 * import { Truncate } from "@gatehousejs/truncate"
 * const TestTruncate = Truncate.layerWith({ directory: "/tmp/spill", maxLines: 100 })
 * ```
 * @since 0.0.0
 */
export const layerWith = (options: LayerOptions = {}): Layer.Layer<Service> =>
  Layer.effect(Service, make(options)).pipe(Layer.provide(NodeFileSystem.layer))

/**
 * The live service: default limits, `defaultDirectory`, 7-day retention, hourly reaper.
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<Service> = layerWith()
