/**
 * The toolset a session gets unless it brings its own: `list` (see {@link ReadTools}),
 * `read`, `write` and `edit` (see {@link FileTools}) and the shell's `bash` tool.
 *
 * @example
 * ```ts
 * import { DefaultTools, SessionPrompt } from "@gatehousejs/session"
 * import { Layer } from "effect"
 *
 * const Prompt = SessionPrompt.layer({ toolkit: DefaultTools.toolkit }).pipe(Layer.provide(DefaultTools.layer))
 * ```
 * @since 0.0.0
 */
import type * as Permission from "@gatehousejs/permission/Permission"
import * as ShellParser from "@gatehousejs/shell/ShellParser"
import * as ShellTool from "@gatehousejs/shell/ShellTool"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import type * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Layer from "effect/Layer"
import * as FileTools from "./FileTools.ts"
import * as ReadTools from "./ReadTools.ts"

/**
 * The tools of {@link toolkit}, by name.
 *
 * @since 0.0.0
 */
export type Tools = Toolkit.ToolsByName<
  [
    typeof ReadTools.list,
    typeof FileTools.read,
    typeof FileTools.write,
    typeof FileTools.edit,
    typeof ShellTool.tool
  ]
>

/**
 * `list`, `read`, `write`, `edit` and `bash`.
 *
 * @since 0.0.0
 */
export const toolkit: Toolkit.Toolkit<Tools> = Toolkit.make(
  ReadTools.list,
  FileTools.read,
  FileTools.write,
  FileTools.edit,
  ShellTool.tool
)

/**
 * The handlers of {@link toolkit} with the shell tool's service and parser. Needs
 * `Permission.Service` and `Truncate.Service`; fails to build when the shell grammars
 * cannot be loaded. `write` and `edit` declare their changes to the `FileChanges.Service`
 * of each call (the session loop sets the turn's checkpoint there).
 *
 * @since 0.0.0
 */
export const layer: Layer.Layer<
  Tool.HandlersFor<Tools>,
  ShellParser.LoadError,
  Permission.Service | Truncate.Service
> = Layer.mergeAll(ReadTools.handlers, FileTools.handlers, ShellTool.handlers).pipe(
  Layer.provide(ShellTool.layer),
  Layer.provide(ShellParser.layer)
)

/**
 * {@link layer} with its own Truncate service (spill files under `truncate.directory`),
 * for callers that have no other use for one. Needs `Permission.Service`.
 *
 * @since 0.0.0
 */
export const layerWith = (
  options: { readonly truncate?: Truncate.LayerOptions | undefined } = {}
): Layer.Layer<Tool.HandlersFor<Tools>, ShellParser.LoadError, Permission.Service> =>
  layer.pipe(Layer.provide(Truncate.layerWith(options.truncate)))
