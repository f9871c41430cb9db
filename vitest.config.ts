import { defineConfig } from "vitest/config"
import { projects } from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // A run that collects no test is a broken run, not a green one.
    passWithNoTests: false,
    pool: "forks",
    maxWorkers: 2
  }
})
