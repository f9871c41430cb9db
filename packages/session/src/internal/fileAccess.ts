// What the file tools share: where a path is (through symlinks), the asks before touching
// it, and the shape failures and bounded outputs take for the model.
import * as NodePath from "node:path"
import * as Instance from "@gatehousejs/core/Instance"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as ShellGate from "@gatehousejs/shell/ShellGate"
import type * as Truncate from "@gatehousejs/truncate/Truncate"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { resolveReal, within } from "./paths.ts"

/** A failure as the model reads it: the error's tag and its message. */
export const Failure = Schema.Struct({ _tag: Schema.String, message: Schema.String })
export type Failure = typeof Failure.Type

/** What a reading tool returns: the bounded output and where the full output went. */
export const Output = Schema.Struct({
  output: Schema.String,
  title: Schema.String,
  truncated: Schema.Boolean,
  outputPath: Schema.optionalKey(Schema.String)
})

/** A path as the tools judge it. */
export interface Location {
  readonly context: ShellContext.Shape
  /** The project root, through symlinks. */
  readonly root: string
  /** The path, absolute and through symlinks. */
  readonly absolute: string
  readonly inside: boolean
  /** The project-relative path (`/`-separated) inside the project, else the absolute path. */
  readonly pattern: string
}

export const fileError = (message: string): Failure => ({ _tag: "FileError", message })

export const toFailure = (error: { readonly _tag: string; readonly message: string }): Failure => ({
  _tag: error._tag,
  message: error.message
})

const real = (path: string) =>
  Effect.tryPromise({
    try: () => resolveReal(path),
    catch: (cause) => fileError(`cannot resolve ${path}: ${(cause as Error).message}`)
  })

/** The project root of the current call: the context's, else the instance's, else the cwd. */
export const projectRoot = Effect.gen(function* () {
  const context = yield* ShellContext.Service
  const instance = yield* Effect.serviceOption(Instance.Current)
  return (
    context.projectRoot ?? Option.getOrUndefined(Option.map(instance, (i) => i.directory)) ?? process.cwd()
  )
})

/** Where `input` (relative to the call's directory, or absolute) is, for judging. */
export const locate = Effect.fnUntraced(function* (input: string) {
  const context = yield* ShellContext.Service
  const root = yield* real(yield* projectRoot)
  const absolute = yield* real(NodePath.resolve(context.directory ?? root, input))
  const relative = within(root, absolute)
  const location: Location = {
    context,
    root,
    absolute,
    inside: relative !== undefined,
    pattern: relative ?? absolute
  }
  return location
})

/** One permission ask on behalf of `tool`, carrying the call's ids for UIs. */
export const ask = (
  service: Permission.Interface,
  context: ShellContext.Shape,
  tool: string,
  permission: string,
  pattern: string,
  metadata: Record<string, unknown>,
  escalated = false
) =>
  service.ask({
    sessionID: context.sessionID,
    permission,
    patterns: [pattern],
    always: [pattern],
    metadata,
    // An escalated call goes to a person whatever the rules allow (a deny still denies).
    ruleset: escalated ? ShellGate.escalatedRuleset(permission, [pattern], context.ruleset) : context.ruleset,
    ...(escalated ? { needsPerson: true, unmodelled: true } : {}),
    ...(context.callID === undefined
      ? {}
      : {
          tool: {
            callID: context.callID,
            name: tool,
            ...(context.messageID === undefined ? {} : { messageID: context.messageID })
          }
        })
  })

/**
 * Whether `where` is in the spill directory of truncated output (through symlinks): a
 * reading tool may always read there, since the truncation hint sends the model there.
 */
export const isSpilled = (truncate: Truncate.Interface, where: Location) =>
  Effect.map(real(truncate.directory), (spill) => within(spill, where.absolute) !== undefined)

/**
 * The asks before `tool` touches `where`: `external_directory` (`<dir>/*`) when it is
 * outside the project (and not `readable`: a read of the spill directory), then
 * `permission` with the project-relative path. An edit of a file that configures what later
 * commands run or what the gate allows (`.git/hooks/*`, `.npmrc`, `gatehouse.json`, an
 * agent's settings) asks a person whatever the edit rules allow, as the shell gate asks it.
 */
export const gate = Effect.fnUntraced(function* (
  service: Permission.Interface,
  tool: string,
  permission: "read" | "edit",
  where: Location,
  directory: string,
  metadata: Record<string, unknown> = {},
  readable = false
) {
  if (!where.inside && !(readable && permission === "read"))
    yield* ask(service, where.context, tool, "external_directory", `${directory}/*`, {
      path: where.absolute,
      ...metadata
    })
  const configures = permission === "edit" && ShellGate.configuresExecution(where.absolute)
  yield* ask(
    service,
    where.context,
    tool,
    permission,
    where.pattern,
    { path: where.absolute, ...metadata },
    configures
  )
})

/** What a reading tool returns: the kept text, a title, and where the whole went when cut. */
export interface Bounded {
  readonly output: string
  readonly title: string
  readonly truncated: boolean
  readonly outputPath?: string
}

/** `text` through Truncate: cut to the limits, the whole spilled to a file. */
export const bounded = (truncate: Truncate.Interface, text: string, title: string) =>
  Effect.map(
    truncate.output(text),
    (kept): Bounded => ({
      output: kept.content,
      title,
      truncated: kept.truncated,
      ...(kept.truncated && kept.outputPath !== undefined ? { outputPath: kept.outputPath } : {})
    })
  )
