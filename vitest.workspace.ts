// One Vitest project per package; vitest.config.ts reads this list into `test.projects`.
const packages = ["core", "permission", "truncate", "shell", "session", "server", "cli"] as const

export const projects = packages.map((name) => ({
  test: {
    name,
    root: `./packages/${name}`,
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
}))
