/**
 * Gatehouse over Redis: several `gatehouse serve` processes sharing one event stream, one set
 * of pending asks and one store of approvals.
 *
 * @since 0.0.0
 */
export * as RedisApprovalStore from "./RedisApprovalStore.ts"
export * as RedisBus from "./RedisBus.ts"
export * as RedisGroup from "./RedisGroup.ts"
export * as RedisPermission from "./RedisPermission.ts"
export * as RedisStack from "./RedisStack.ts"
