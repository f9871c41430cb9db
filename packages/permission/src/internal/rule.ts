// The rule schemas, apart from Permission.ts so ApprovalStore can decode stored rules
// without an import cycle. Re-exported by Permission.
import * as Schema from "effect/Schema"

/**
 * What a rule decides: `allow`, `ask` (a person answers) or `deny`.
 *
 * @since 0.0.0
 */
export const Action = Schema.Literals(["allow", "ask", "deny"])
/**
 * @since 0.0.0
 */
export type Action = typeof Action.Type

/**
 * What a conditional rule needs of a call (`Ruleset.Condition`): `harmless`.
 *
 * @since 0.1.0
 */
export const Condition = Schema.Literal("harmless")

/**
 * One rule: for tool permission `permission` (a glob, e.g. `bash`, `mcp_*`) and subject
 * `pattern` (a glob over the command text or path), do `action`. With `literal: true` the
 * pattern is the subject's exact text, never read as a glob (`ls *.ts` matches only
 * `ls *.ts`): what "always" remembers for a command it must not generalise. With
 * `when: "harmless"` the rule decides only calls their caller vouches are harmless
 * (`Ruleset.vouched`), as the built-in `Defaults` allow understood commands.
 *
 * @since 0.0.0
 */
export const Rule = Schema.Struct({
  permission: Schema.String,
  pattern: Schema.String,
  action: Action,
  literal: Schema.optionalKey(Schema.Boolean),
  when: Schema.optionalKey(Condition)
})
/**
 * @since 0.0.0
 */
export type Rule = typeof Rule.Type

/**
 * An ordered list of rules; later rules win.
 *
 * @since 0.0.0
 */
export const Ruleset = Schema.Array(Rule)
/**
 * @since 0.0.0
 */
export type Ruleset = typeof Ruleset.Type
