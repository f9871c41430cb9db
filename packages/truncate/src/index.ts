/**
 * Gatehouse truncate: bounded tool output, streaming spill files and their reaper.
 *
 * @since 0.0.0
 */
export * as Truncate from "./Truncate.ts"
