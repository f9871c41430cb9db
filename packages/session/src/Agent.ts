/**
 * The usual Gatehouse stack as one layer, from one configuration value: the agent loop
 * (`SessionPrompt`) with its processor, status and checkpoints; the tools (`DefaultTools`,
 * or `bashOnly`); the permission service with the built-in rules (`Defaults` of
 * `@gatehousejs/permission`), its bus, instances and approvals; bounded tool output
 * (`Truncate`); the session store (memory, or files); and the Node platform. Only the model
 * is yours to give.
 *
 * Every piece can still be replaced: the options set what the defaults leave open (rules,
 * approval mode, where sessions and approvals are kept, output limits, the shell), and
 * `layers` takes a layer of your own for the permission stack, the session store,
 * truncation or the platform.
 *
 * @example
 * ```ts
 * import { Agent, ScriptedModel, SessionPrompt } from "@gatehousejs/session"
 * import { Effect } from "effect"
 *
 * const model = ScriptedModel.layer({ turns: [{ parts: [{ type: "text", text: "Hello." }] }] })
 * const program = Effect.gen(function* () {
 *   const sessions = yield* SessionPrompt.Service
 *   const session = yield* sessions.create({ directory: process.cwd() })
 *   return yield* sessions.prompt(session.id, "Hi")
 * })
 * Effect.runPromise(program.pipe(Effect.provide(Agent.layer({ model }))))
 * ```
 *
 * @since 0.1.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Bus from "@gatehousejs/core/Bus"
import * as Instance from "@gatehousejs/core/Instance"
import * as ApprovalStore from "@gatehousejs/permission/ApprovalStore"
import * as Defaults from "@gatehousejs/permission/Defaults"
import * as Permission from "@gatehousejs/permission/Permission"
import type * as ShellContext from "@gatehousejs/shell/ShellContext"
import * as ShellParser from "@gatehousejs/shell/ShellParser"
import * as ShellTool from "@gatehousejs/shell/ShellTool"
import * as Truncate from "@gatehousejs/truncate/Truncate"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Tool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import * as Layer from "effect/Layer"
import * as Checkpoint from "./Checkpoint.ts"
import * as DefaultTools from "./DefaultTools.ts"
import type * as Message from "./Message.ts"
import * as SessionProcessor from "./SessionProcessor.ts"
import * as SessionPrompt from "./SessionPrompt.ts"
import * as SessionStatus from "./SessionStatus.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * A toolkit and the layer of its handlers (which may use the stack's `Permission` and
 * `Truncate` services).
 *
 * @since 0.1.0
 */
export interface Tools<T extends Record<string, Tool.Any>, E = never> {
  readonly toolkit: Toolkit.Toolkit<T>
  readonly handlers: Layer.Layer<Tool.HandlersFor<T>, E, Permission.Service | Truncate.Service>
}

/**
 * `list`, `read`, `write`, `edit` and `bash` (`DefaultTools`): the default.
 *
 * @since 0.1.0
 */
export const defaultTools: Tools<DefaultTools.Tools, ShellParser.LoadError> = {
  toolkit: DefaultTools.toolkit,
  handlers: DefaultTools.layer
}

/**
 * The `bash` tool alone.
 *
 * @since 0.1.0
 */
export const bashOnly: Tools<Toolkit.Tools<typeof ShellTool.toolkit>, ShellParser.LoadError> = {
  toolkit: ShellTool.toolkit,
  handlers: ShellTool.handlers.pipe(Layer.provide(ShellTool.layer), Layer.provide(ShellParser.layer))
}

/**
 * Where something is kept: in memory (lost with the layer), or in files under `directory`.
 *
 * @since 0.1.0
 */
export type Storage = "memory" | { readonly directory: string }

/**
 * What the permission stack provides: the service, the bus its events go out on, and the
 * registry of instances (projects) its state lives in.
 *
 * @since 0.1.0
 */
export type PermissionServices = Permission.Service | Bus.Service | Instance.Registry

/**
 * What {@link layer} provides.
 *
 * @since 0.1.0
 */
export type Services =
  | SessionPrompt.Service
  | SessionProcessor.Service
  | SessionStatus.Service
  | SessionStore.Service
  | Checkpoint.Service
  | Truncate.Service
  | LanguageModel.LanguageModel
  | PermissionServices

/**
 * The configuration of {@link layer}. Only `model` is required.
 *
 * @since 0.1.0
 */
export interface Options<T extends Record<string, Tool.Any>, EM, RM, ET> {
  /** The model: any `effect/ai` `LanguageModel` layer (`Model.layer`, `ScriptedModel.layer`). */
  readonly model: Layer.Layer<LanguageModel.LanguageModel, EM, RM>
  /** The tools; default {@link defaultTools}. */
  readonly tools?: Tools<T, ET> | undefined
  /**
   * Your rules, after the built-in `Defaults.ruleset`, so they win where they match (a rule
   * `bash "rm *" allow` allows `rm -rf build`). Traces name them `rules[i]`.
   */
  readonly rules?: Permission.Ruleset | undefined
  /** The whole ruleset instead of the defaults and `rules`. */
  readonly ruleset?: Permission.Ruleset | undefined
  /** With `ruleset`: where each of its rules comes from (same indexes), for traces. */
  readonly sources?: ReadonlyArray<string> | undefined
  /**
   * The permission service's options: `mode` (`ask | auto | yolo`), `interactive` (`false`:
   * an ask nobody can answer fails closed at once), `askTimeout`.
   */
  readonly permission?: Permission.Options | undefined
  /** Where "always" answers are kept (per project); default memory. */
  readonly approvals?: Storage | undefined
  /** Where sessions and their messages are kept; default memory. */
  readonly sessions?: Storage | undefined
  /** Tool-output limits and the spill directory (`Truncate.layerWith`). */
  readonly truncate?: Truncate.LayerOptions | undefined
  /** The shell tool's settings for every call: `shell`, `sandbox`, timeouts, `env`. */
  readonly shell?: Partial<ShellContext.Shape> | undefined
  readonly system?: string | undefined
  readonly maxSteps?: number | undefined
  /** What assistant messages record as their model. */
  readonly modelInfo?: { readonly provider: string; readonly id: string } | undefined
  readonly usableInput?: number | undefined
  readonly price?: ((tokens: Message.Tokens) => number) | undefined
  /**
   * Layers of your own, in place of the stack's (one that can fail: `Layer.orDie` it, or
   * handle its error, first).
   */
  readonly layers?:
    | {
        /**
         * Instead of `Permission.layerWith(permission)` with its bus, instances and approvals
         * (`Permission.layerMemoryWith(...)`, the Redis stack of `@gatehousejs/redis`).
         */
        readonly permission?: Layer.Layer<PermissionServices> | undefined
        /** Instead of the store `sessions` names. */
        readonly sessions?: Layer.Layer<SessionStore.Service> | undefined
        /** Instead of `Truncate.layerWith(truncate)`. */
        readonly truncate?: Layer.Layer<Truncate.Service> | undefined
        /** Instead of `NodeServices.layer` (what the model layer may need). */
        readonly platform?: Layer.Layer<NodeServices.NodeServices> | undefined
      }
    | undefined
}

/**
 * The permission stack {@link layer} uses unless given one: `Permission.layerWith(options)`
 * on a bus, an instance registry and the approvals `approvals` names.
 *
 * @since 0.1.0
 */
export const permissionLayer = (
  options: Permission.Options = {},
  approvals: Storage = "memory"
): Layer.Layer<PermissionServices> =>
  Permission.layerWith(options).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Bus.layer,
        approvals === "memory" ? ApprovalStore.layerMemory : ApprovalStore.layerFile(approvals.directory)
      )
    ),
    Layer.provideMerge(Instance.layer)
  )

/**
 * The session store `storage` names.
 *
 * @since 0.1.0
 */
export const storeLayer = (storage: Storage = "memory"): Layer.Layer<SessionStore.Service> =>
  storage === "memory" ? SessionStore.layerMemory : SessionStore.layerFile(storage.directory)

/**
 * The whole stack, wired: see the module's description. A turn runs with
 * `SessionPrompt.Service` (`create`, `prompt`, `abort`); asks wait in `Permission.Service`
 * (`list`, `reply`) and go out on `Bus.Service` as `permission.asked` for a UI to answer.
 *
 * @since 0.1.0
 */
export const layer = <
  T extends Record<string, Tool.Any> = DefaultTools.Tools,
  EM = never,
  RM extends NodeServices.NodeServices = never,
  ET = ShellParser.LoadError
>(
  options: Options<T, EM, RM, ET>
): Layer.Layer<Services | Tool.HandlersFor<T>, EM | ET> => {
  const tools = (options.tools ?? defaultTools) as unknown as Tools<T, ET>
  const own = options.rules ?? []
  const ruleset = options.ruleset ?? Permission.merge(Defaults.ruleset, own)
  const sources =
    options.ruleset === undefined
      ? [...Defaults.sources, ...own.map((_, index) => `rules[${index}]`)]
      : options.sources
  const prompt = SessionPrompt.layer({
    toolkit: tools.toolkit,
    ruleset,
    ...(options.permission?.mode === undefined ? {} : { mode: options.permission.mode }),
    maxSteps: options.maxSteps,
    system: options.system,
    model: options.modelInfo,
    usableInput: options.usableInput,
    price: options.price,
    shell: { ...(sources === undefined ? {} : { sources }), ...options.shell }
  })
  return prompt.pipe(
    Layer.provideMerge(tools.handlers),
    Layer.provideMerge(Layer.mergeAll(SessionProcessor.layer, Checkpoint.layer)),
    Layer.provideMerge(
      Layer.mergeAll(options.layers?.sessions ?? storeLayer(options.sessions), SessionStatus.layer)
    ),
    Layer.provideMerge(options.layers?.truncate ?? Truncate.layerWith(options.truncate)),
    Layer.provideMerge(options.layers?.permission ?? permissionLayer(options.permission, options.approvals)),
    Layer.provideMerge(options.model),
    Layer.provide(options.layers?.platform ?? NodeServices.layer)
    // What the model needed is `NodeServices` (`RM`), provided just above.
  ) as Layer.Layer<Services | Tool.HandlersFor<T>, EM | ET>
}
