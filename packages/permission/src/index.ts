/**
 * Gatehouse permission: rules and globs, command arity, the ask/reply service, and the
 * store of remembered approvals.
 *
 * @since 0.0.0
 */
export * as ApprovalStore from "./ApprovalStore.ts"
export * as Arity from "./Arity.ts"
export * as AskMetadata from "./AskMetadata.ts"
export * as Defaults from "./Defaults.ts"
export * as Permission from "./Permission.ts"
export * as PermissionConfig from "./PermissionConfig.ts"
export * as Ruleset from "./Ruleset.ts"
export * as Wildcard from "./Wildcard.ts"
