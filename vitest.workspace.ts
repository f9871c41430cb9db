// One Vitest project per package; vitest.config.ts reads this list into `test.projects`.
const packages = ["core", "permission", "truncate", "shell", "session", "server", "redis", "cli"] as const

export const projects = [
  ...packages.map((name) => ({
    test: {
      name,
      root: `./packages/${name}`,
      include: ["test/**/*.test.ts"],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // The cli's commands read the user's gatehouse.json: none of the machine's in tests.
      ...(name === "cli" ? { env: { XDG_CONFIG_HOME: "/nonexistent/gatehouse-test-config" } } : {})
    }
  })),
  // The pack-and-install check (scripts/test/install.test.ts): slow, network for npm.
  { test: { name: "install", root: "./scripts", include: ["test/install.test.ts"], testTimeout: 120_000 } },
  // The bench harness (scripts/bench-kit.ts).
  { test: { name: "bench-kit", root: "./scripts", include: ["test/bench-kit.test.ts"] } },
  // scripts/bundle.ts, which builds the `gatehouse` the cli tests run.
  { test: { name: "bundle", root: "./scripts", include: ["test/bundle.test.ts"], testTimeout: 60_000 } },
  // scripts/toolchain.sh sourced from bash and zsh.
  { test: { name: "toolchain", root: "./scripts", include: ["test/toolchain.test.ts"] } }
]
