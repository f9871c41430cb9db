/**
 * Gatehouse server: the HTTP API, the SSE event stream and the web page of `gatehouse serve`.
 *
 * @since 0.0.0
 */
export * as Api from "./Api.ts"
export * as EventStream from "./EventStream.ts"
export * as Guard from "./Guard.ts"
export * as Server from "./Server.ts"
export * as WebPage from "./WebPage.ts"
