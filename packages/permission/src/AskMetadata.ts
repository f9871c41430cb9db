/**
 * What an ask's `metadata` holds, typed per permission, so a UI can show why a call asks
 * instead of dumping a record: the command and its working directory, which sub-command
 * carried which note, the rule that decided each pattern and where it came from, the diff
 * of an edit, what a doom loop repeated and how often.
 *
 * The wire keeps `metadata` an open record (a tool of one's own may put anything in it);
 * {@link decode} reads it by the request's permission with these schemas and fails, naming
 * the field, when a known permission's metadata does not fit.
 *
 * @example
 * ```ts
 * import * as AskMetadata from "@gatehousejs/permission/AskMetadata"
 * import * as Effect from "effect/Effect"
 *
 * const request = {
 *   permission: "doom_loop",
 *   metadata: { tool: "read", input: { path: "logs/status.txt" }, kind: "repeat", count: 3, tools: ["read"] }
 * }
 * const typed = Effect.runSync(AskMetadata.decode(request))
 * if (typed.permission === "doom_loop") console.log(AskMetadata.describeDoomLoop(typed.metadata))
 * // read logs/status.txt, 3 times with the same input
 * ```
 *
 * @since 0.0.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Action, Rule } from "./internal/rule.ts"

/**
 * The rule that decided one pattern of a request, and where it came from (a file, `default`).
 *
 * @since 0.0.0
 */
export const Decision = Schema.Struct({
  pattern: Schema.String,
  action: Action,
  rule: Rule,
  source: Schema.String
})
/**
 * @since 0.0.0
 */
export type Decision = typeof Decision.Type

/**
 * A note of the shell analysis: what a command does that a person should know
 * (`unmodelled`, `executes`, `writes`, `destructive`), with the sub-command it is about.
 *
 * @since 0.0.0
 */
export const Note = Schema.Struct({
  kind: Schema.String,
  message: Schema.String,
  command: Schema.optionalKey(Schema.String)
})
/**
 * @since 0.0.0
 */
export type Note = typeof Note.Type

// What every ask made for a shell command carries besides its own fields.
const shellFields = {
  command: Schema.optionalKey(Schema.String),
  cwd: Schema.optionalKey(Schema.String),
  rules: Schema.optionalKey(Schema.Array(Decision))
}

/**
 * A `bash` ask: the whole command, where it runs, every simple command, the notes, the
 * deciding rules, and whether the analysis could not model it (`escalated`: it asks
 * whatever the rules say, and no rule lifts that).
 *
 * @since 0.0.0
 */
export const Bash = Schema.Struct({
  command: Schema.String,
  cwd: Schema.String,
  commands: Schema.Array(Schema.String),
  notes: Schema.Array(Note),
  rules: Schema.Array(Decision),
  escalated: Schema.optionalKey(Schema.Boolean)
})
/**
 * @since 0.0.0
 */
export type Bash = typeof Bash.Type

/**
 * An `edit` ask: the file (`path`, absolute) and, from the file tools, what happens to it and
 * the diff; from a shell command, the project files it writes.
 *
 * @since 0.0.0
 */
export const Edit = Schema.Struct({
  path: Schema.optionalKey(Schema.String),
  action: Schema.optionalKey(Schema.String),
  diff: Schema.optionalKey(Schema.String),
  files: Schema.optionalKey(Schema.Array(Schema.String)),
  ...shellFields
})
/**
 * @since 0.0.0
 */
export type Edit = typeof Edit.Type

/**
 * A `read` ask: the file or directory (`path`), or the files a shell command reads.
 *
 * @since 0.0.0
 */
export const Read = Schema.Struct({
  path: Schema.optionalKey(Schema.String),
  files: Schema.optionalKey(Schema.Array(Schema.String)),
  ...shellFields
})
/**
 * @since 0.0.0
 */
export type Read = typeof Read.Type

/**
 * An `external_directory` ask: the path outside the project, or the directories a shell
 * command reaches.
 *
 * @since 0.0.0
 */
export const ExternalDirectory = Schema.Struct({
  path: Schema.optionalKey(Schema.String),
  directories: Schema.optionalKey(Schema.Array(Schema.String)),
  patterns: Schema.optionalKey(Schema.Array(Schema.String)),
  ...shellFields
})
/**
 * @since 0.0.0
 */
export type ExternalDirectory = typeof ExternalDirectory.Type

/**
 * A `doom_loop` ask: the model called `tool` with the same `input` `count` times in a row
 * (`repeat`), or alternated between two calls (`cycle`, `tools` names both).
 *
 * @since 0.0.0
 */
export const DoomLoop = Schema.Struct({
  tool: Schema.String,
  input: Schema.Unknown,
  kind: Schema.Literals(["repeat", "cycle"]),
  count: Schema.Number,
  tools: Schema.Array(Schema.String)
})
/**
 * @since 0.0.0
 */
export type DoomLoop = typeof DoomLoop.Type

/**
 * The schema of each permission whose metadata is known.
 *
 * @since 0.0.0
 */
export const schemas = {
  bash: Bash,
  edit: Edit,
  read: Read,
  external_directory: ExternalDirectory,
  doom_loop: DoomLoop
} as const

/**
 * A request's metadata decoded by its permission; `other` for a permission with no schema.
 *
 * @since 0.0.0
 */
export type Typed =
  | { readonly permission: "bash"; readonly metadata: Bash }
  | { readonly permission: "edit"; readonly metadata: Edit }
  | { readonly permission: "read"; readonly metadata: Read }
  | { readonly permission: "external_directory"; readonly metadata: ExternalDirectory }
  | { readonly permission: "doom_loop"; readonly metadata: DoomLoop }
  | {
      readonly permission: "other"
      readonly name: string
      readonly metadata: Readonly<Record<string, unknown>>
    }

const known = (permission: string): permission is keyof typeof schemas => Object.hasOwn(schemas, permission)

/**
 * Decodes `request.metadata` with the schema of `request.permission`.
 *
 * @since 0.0.0
 */
export const decode = (request: {
  readonly permission: string
  readonly metadata: Readonly<Record<string, unknown>>
}): Effect.Effect<Typed, Schema.SchemaError> => {
  const { permission, metadata } = request
  if (!known(permission)) return Effect.succeed({ permission: "other", name: permission, metadata })
  const schema = schemas[permission] as Schema.Decoder<unknown>
  return Effect.map(
    Schema.decodeUnknownEffect(schema)(metadata),
    (decoded) => ({ permission, metadata: decoded }) as Typed
  )
}

/**
 * A tool input in one line: its one string field when it has just one (`logs/status.txt`),
 * else its fields as `key=value`.
 *
 * @since 0.0.0
 */
export const showInput = (input: unknown): string => {
  if (typeof input !== "object" || input === null) return JSON.stringify(input) ?? String(input)
  const entries = Object.entries(input as Record<string, unknown>).filter(([, v]) => v !== undefined)
  const strings = entries.filter(([, v]) => typeof v === "string")
  if (entries.length === 1 && strings.length === 1) return strings[0]![1] as string
  const main = ["command", "path", "filePath", "pattern"].find(
    (key) => typeof (input as Record<string, unknown>)[key] === "string"
  )
  const rest = entries.filter(([key]) => key !== main)
  const shown = rest.map(
    ([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`
  )
  return [main === undefined ? undefined : (input as Record<string, string>)[main], ...shown]
    .filter((part) => part !== undefined)
    .join(" ")
}

/**
 * What a doom loop repeated and how often, for a person.
 *
 * @example
 * ```ts
 * import * as AskMetadata from "@gatehousejs/permission/AskMetadata"
 * AskMetadata.describeDoomLoop({ tool: "read", input: { path: "a.txt" }, kind: "repeat", count: 3, tools: ["read"] })
 * // "read a.txt, 3 times with the same input"
 * ```
 * @since 0.0.0
 */
export const describeDoomLoop = (loop: DoomLoop): string =>
  loop.kind === "repeat"
    ? `${loop.tool} ${showInput(loop.input)}, ${loop.count} times with the same input`
    : `${loop.tools.join(" and ")} in turn, ${loop.count} times each (last: ${loop.tool} ${showInput(loop.input)})`
