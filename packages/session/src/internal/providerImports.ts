// Makes the published builds of Effect's provider packages loadable on effect 4.1 without
// a package-manager patch: a Node resolve hook redirects the imports that 4.1 moved
// (`effect/unstable/{ai,http,encoding,socket}/*` -> `effect/{ai,http,encoding,socket}/*`)
// and the one it dropped (`effect/Encoding`, whose `encodeBase64` is now
// `effect/encoding/Base64`'s `encode`), and only for modules inside those three packages.
// It is the runtime form of the import-only patches in the repository's patches/ (same
// redirects, same reason, dropped with them once Effect publishes builds for 4.1). In the
// workspace and in the cli bundle the code is already patched and the hook never matches.
// A load hook does what the patches' one change of behaviour does: the Anthropic and OpenAI
// models send a tool's string result as it is, not through JSON.stringify.
import * as NodeModule from "node:module"

const PROVIDER_MODULE = /\/node_modules\/@effect\/ai-(?:anthropic|openai|openai-compat)\//
const MOVED = /^effect\/unstable\/(ai|http|encoding|socket)\/(.+)$/

// A source file in the workspace, a compiled one when installed from the registry.
const encodingShim = new URL(
  import.meta.url.endsWith(".ts") ? "./effectEncoding.ts" : "./effectEncoding.js",
  import.meta.url
).href

// The two models that JSON-encode a tool's result, and the expression that does it.
const TOOL_RESULT_MODULE =
  /\/node_modules\/@effect\/ai-(?:anthropic|openai)\/dist\/(?:Anthropic|OpenAi)LanguageModel\.js$/
const ENCODED_RESULT = "JSON.stringify(part.result)"
const PLAIN_RESULT = 'typeof part.result === "string" ? part.result : JSON.stringify(part.result)'

/** `source` with a tool's string result sent as it is (unchanged where that is done already). */
export const plainToolResults = (source: string): string =>
  source.includes(PLAIN_RESULT) ? source : source.replaceAll(ENCODED_RESULT, `(${PLAIN_RESULT})`)

/** Where an import of a provider package goes on effect 4.1, if it moved. */
export const redirect = (specifier: string): string | undefined => {
  if (specifier === "effect/Encoding") return encodingShim
  const moved = MOVED.exec(specifier)
  return moved === null ? undefined : `effect/${moved[1]}/${moved[2]}`
}

// Hooks are process-wide; registering twice would only stack identical redirects.
let registered = false

/** Registers the redirect once per process (a no-op where Node has no `registerHooks`). */
export const register = (): void => {
  if (registered || typeof NodeModule.registerHooks !== "function") return
  registered = true
  NodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (context.parentURL !== undefined && PROVIDER_MODULE.test(context.parentURL)) {
        const target = redirect(specifier)
        if (target !== undefined) return nextResolve(target, context)
      }
      return nextResolve(specifier, context)
    },
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context)
      if (!TOOL_RESULT_MODULE.test(url) || loaded.source == null) return loaded
      const source =
        typeof loaded.source === "string"
          ? loaded.source
          : new TextDecoder().decode(loaded.source as ArrayBuffer | NodeJS.ArrayBufferView)
      return { ...loaded, source: plainToolResults(source) }
    }
  })
}
