// Debian's Chromium driven by playwright-core, for the web page's tests. The flags are the
// ones this machine needs (no sandbox as root, no background traffic to a closed network);
// the profile folder is removed with the browser.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import { chromium } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

export const browser = Effect.acquireRelease(
  Effect.promise(async () => {
    const profile = mkdtempSync(NodePath.join(tmpdir(), "gatehouse-chromium-"))
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1200, height: 800 },
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    return { context, profile }
  }),
  ({ context, profile }) =>
    Effect.promise(async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    })
).pipe(Effect.map(({ context }) => context))
