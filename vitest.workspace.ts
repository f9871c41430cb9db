// One Vitest project per package; vitest.config.ts reads this list into `test.projects`.
const packages = ["core", "permission", "truncate", "shell", "session", "server", "cli"] as const

export const projects = [
  ...packages.map((name) => ({
    test: {
      name,
      root: `./packages/${name}`,
      include: ["test/**/*.test.ts"],
      testTimeout: 30_000,
      hookTimeout: 30_000
    }
  })),
  // The pack-and-install check (scripts/test/install.test.ts): slow, network for npm.
  { test: { name: "install", root: "./scripts", include: ["test/**/*.test.ts"], testTimeout: 120_000 } }
]
