/**
 * The web page of `gatehouse serve` (`GET /`): one self-contained HTML file (no build
 * step, nothing loaded from elsewhere) that follows the event stream, lists sessions,
 * streams the assistant's text and tool calls, answers permission asks and starts turns.
 *
 * The page is served with a Content-Security-Policy that admits only its own inline
 * script and style (by hash) and requests to this server, and may not be framed.
 *
 * @since 0.0.0
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import * as HttpServerResponse from "effect/http/HttpServerResponse"

const escapeAttribute = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

const hashes = (html: string, tag: "script" | "style"): Array<string> =>
  [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map(
    (match) => `'sha256-${createHash("sha256").update(match[1]!).digest("base64")}'`
  )

/**
 * The page's HTML, showing `directory` in its header.
 *
 * @since 0.0.0
 */
export const html = (directory: string): string =>
  readFileSync(new URL("../web/index.html", import.meta.url), "utf8").replace(
    "{{directory}}",
    escapeAttribute(directory)
  )

/**
 * The response serving the page (built once; the page never changes while serving).
 *
 * @since 0.0.0
 */
export const response = (directory: string): HttpServerResponse.HttpServerResponse => {
  const page = html(directory)
  const policy = [
    "default-src 'none'",
    `script-src ${hashes(page, "script").join(" ")}`,
    `style-src ${hashes(page, "style").join(" ")}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")
  return HttpServerResponse.text(page, {
    contentType: "text/html; charset=utf-8",
    headers: {
      "content-security-policy": policy,
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store"
    }
  })
}
