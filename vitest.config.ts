import { defineConfig } from "vitest/config"
import { projects } from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // A run that collects no test is a broken run, not a green one.
    passWithNoTests: false,
    pool: "forks",
    // The tests that run `gatehouse` start the bundle (rebuilt first when a source is newer).
    globalSetup: ["./scripts/test/bundle.setup.ts"],
    // Quiet unless something fails: a dot per test, and a test's console output only when
    // it failed. `pnpm test --reporter=default` lists every file again.
    reporters: ["dot"],
    silent: "passed-only",
    maxWorkers: 2
  }
})
