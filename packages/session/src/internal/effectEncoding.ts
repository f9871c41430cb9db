// What the provider packages' `effect/Encoding` import is redirected to (see
// providerImports.ts): the one function they use, under the name they use.
export { encode as encodeBase64 } from "effect/encoding/Base64"
