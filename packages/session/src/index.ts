/**
 * Gatehouse session: messages and parts, their store, the stream processor, the agent
 * loop on `effect/ai`, the file tools and the per-turn checkpoints, and a scripted model
 * for demos and tests.
 *
 * @since 0.0.0
 */
export * as Agent from "./Agent.ts"
export * as Checkpoint from "./Checkpoint.ts"
export * as DefaultTools from "./DefaultTools.ts"
export * as DoomLoop from "./DoomLoop.ts"
export * as FileChanges from "./FileChanges.ts"
export * as FileTools from "./FileTools.ts"
export * as Message from "./Message.ts"
export * as Model from "./Model.ts"
export * as ReadTools from "./ReadTools.ts"
export * as ScriptedModel from "./ScriptedModel.ts"
export * as Session from "./Session.ts"
export * as SessionHistory from "./SessionHistory.ts"
export * as SessionProcessor from "./SessionProcessor.ts"
export * as SessionPrompt from "./SessionPrompt.ts"
export * as SessionRetry from "./SessionRetry.ts"
export * as SessionStatus from "./SessionStatus.ts"
export * as SessionStore from "./SessionStore.ts"
