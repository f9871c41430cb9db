/**
 * Gatehouse core: the event bus, instances and per-instance state, identifiers.
 *
 * @since 0.0.0
 */
export * as AtomicFile from "./AtomicFile.ts"
export * as Bus from "./Bus.ts"
export * as BusEvent from "./BusEvent.ts"
export * as FileLock from "./FileLock.ts"
export * as Identifier from "./Identifier.ts"
export * as Instance from "./Instance.ts"
export * as InstanceState from "./InstanceState.ts"
export * as Sha256 from "./Sha256.ts"
