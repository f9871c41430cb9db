export * as Config from "./Config.ts"
