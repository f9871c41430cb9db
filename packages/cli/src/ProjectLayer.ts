/**
 * What a repository's own `gatehouse.json` may decide. Whoever wrote the repository wrote
 * that file (a clone is the user's own file, so ownership says nothing), so it may make
 * Gatehouse stricter and allow what its rules name, but not decide where the user's API key,
 * events and approvals go (`provider.*.base_url`, `redis`), which program runs every
 * command (`shell`), set an approval mode other than `ask` (`auto` and `yolo` approve
 * without a person), or loosen the sandbox (`mode` other than `enforce`,
 * `network` other than `none`, `allow_write`, `allow_read`). Those keys are taken from the
 * user's file, `--config` or the command line only; in the project's file they are left out
 * and said once on stderr. After the project's rules the user's own denies are applied
 * again, and {@link PROTECTED} permissions are decided as if the project's file had no rule
 * for them (see `Config.merge`), so a project cannot lift a deny, nor allow paths outside
 * itself or a command outside the sandbox without a person.
 *
 * @since 0.1.0
 */
import * as Defaults from "@gatehousejs/permission/Defaults"
import type * as Permission from "@gatehousejs/permission/Permission"
import * as Wildcard from "@gatehousejs/permission/Wildcard"
import type { Layer } from "./ConfigFile.ts"

/**
 * Permissions a repository's own rules do not decide: paths outside the project, commands
 * outside the sandbox, repeated calls.
 *
 * @since 0.1.0
 */
export const PROTECTED: ReadonlyArray<string> = ["external_directory", "bash_unsandboxed", "doom_loop"]

/**
 * `layer` as a project's file: without what such a file may not set (said in its `notes`).
 *
 * @since 0.1.0
 */
export const restrict = (
  layer: Layer,
  options: {
    /**
     * What the gate allows runs with no sandbox around it (`gatehouse hook`: the agent runs
     * the command itself): the project's allow rules are not read, its asks and denies are.
     */
    readonly unsandboxed?: boolean | undefined
  } = {}
): Layer => {
  const refused: Array<string> = []
  const { mode, network, allowWrite, allowRead, ...sandbox } = layer.sandbox
  const strict: { -readonly [K in keyof Layer["sandbox"]]: Layer["sandbox"][K] } = { ...sandbox }
  if (mode === "enforce") strict.mode = mode
  else if (mode !== undefined) refused.push(`sandbox.mode (${mode})`)
  if (network === "none") strict.network = network
  else if (network !== undefined) refused.push("sandbox.network")
  if (allowWrite !== undefined && allowWrite.length > 0) refused.push("sandbox.allow_write")
  if (allowRead !== undefined && allowRead.length > 0) refused.push("sandbox.allow_read")
  if (layer.mode !== undefined && layer.mode !== "ask") refused.push(`mode (${layer.mode})`)
  const allows = layer.permission.filter((rule) => rule.action === "allow").length
  if (options.unsandboxed === true && allows > 0)
    refused.push(
      `its ${allows} allow rule${allows === 1 ? "" : "s"} (what is allowed here runs outside any sandbox)`
    )
  const kept =
    options.unsandboxed === true ? sourced(layer).filter((entry) => entry.rule.action !== "allow") : undefined
  if (layer.shell !== undefined) refused.push("shell")
  if (layer.redis !== undefined) refused.push("redis")
  const baseUrls = Object.keys(layer.models.baseUrls)
  for (const provider of baseUrls) refused.push(`provider[${JSON.stringify(provider)}].base_url`)
  return {
    ...layer,
    mode: layer.mode === "ask" ? layer.mode : undefined,
    ...(kept === undefined
      ? {}
      : { permission: kept.map((entry) => entry.rule), sources: kept.map((entry) => entry.source) }),
    shell: undefined,
    redis: undefined,
    sandbox: strict,
    models: { ...layer.models, baseUrls: {} },
    project: true,
    notes: [...(layer.notes ?? []), ...(refused.length === 0 ? [] : [note(layer.file, refused)])]
  }
}

const note = (file: string, refused: ReadonlyArray<string>): string =>
  `${file}: a repository's own gatehouse.json does not decide ${refused.join(", ")}: left out; set ${refused.length === 1 ? "it" : "them"} in your own gatehouse.json or a file you pass with --config`

interface Sourced {
  readonly rule: Permission.Rule
  readonly source: string
}

const sourced = (layer: Layer): Array<Sourced> =>
  layer.permission.map((rule, at) => ({ rule, source: layer.sources[at] ?? layer.file }))

// The entries that decide `permission`, narrowed to it. Only rules written for
// bash_unsandboxed decide it (a catch-all is not consent, as the bash tool reads them).
const deciding = (permission: string, entries: ReadonlyArray<Sourced>): Array<Sourced> =>
  entries
    .filter((entry) =>
      permission === "bash_unsandboxed"
        ? entry.rule.permission === permission
        : Wildcard.match(permission, entry.rule.permission)
    )
    .map((entry) => ({ rule: { ...entry.rule, permission }, source: entry.source }))

/**
 * The rules that follow the project's layer `layers[index]` (none after another layer):
 * each {@link PROTECTED} permission decided again by the defaults and the layers before it
 * (the project's own denies of it still count), then the earlier layers' denies. (Their
 * asks are not: applied again they would also beat the user's own later allows.)
 *
 * @since 0.1.0
 */
export const reasserted = (layers: ReadonlyArray<Layer>, index: number): ReadonlyArray<Sourced> => {
  const project = layers[index]!
  if (project.project !== true) return []
  const defaults = Defaults.ruleset.map((rule, at) => ({ rule, source: Defaults.sources[at] ?? "default" }))
  const earlier = layers.slice(0, index).flatMap(sourced)
  const ownDenies = sourced(project).filter((entry) => entry.rule.action === "deny")
  return [
    ...PROTECTED.flatMap((permission) => [
      {
        rule: { permission, pattern: "*", action: "ask" as const },
        source: `default: a repository's gatehouse.json does not decide ${permission}`
      },
      ...deciding(permission, [...defaults, ...earlier]),
      // A project may still make them stricter.
      ...deciding(permission, ownDenies)
    ]),
    ...earlier.filter((entry) => entry.rule.action === "deny")
  ]
}
