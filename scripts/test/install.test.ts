// The pack-and-install check: every package packed as it would be published, installed
// with plain npm into a fresh project outside the repository (no workspace, no pnpm, no
// type stripping under node_modules), and used there as a user would: the agent program of
// the root README, every package README's example, `tsc --noEmit` on all of them against
// the published declarations, and the installed `gatehouse` command.
import { type SpawnSyncReturns, spawnSync } from "node:child_process"
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync
} from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const root = NodePath.resolve(import.meta.dirname, "..", "..")
const work = realpathSync(mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-install-")))
const tarballs = NodePath.join(work, "tarballs")
const project = NodePath.join(work, "project")

const run = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  timeout = 240_000
): SpawnSyncReturns<string> => {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout,
    env: { ...process.env, NO_COLOR: "1" }
  })
  if (result.error) throw result.error
  return result
}

const ok = (result: SpawnSyncReturns<string>, what: string): string => {
  assert.strictEqual(result.status, 0, `${what} exited ${result.status}:\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** The ```ts blocks of a README, each a whole program. */
const examples = (file: string): Array<string> =>
  [...readFileSync(file, "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!)

const MODELS = `import { Model } from "@gatehousejs/session"
import { Effect, Stream } from "effect"
import * as LanguageModel from "effect/ai/LanguageModel"
import { start } from "./fakeProviders.ts"

for (const provider of Model.providers) {
  const server = await start(provider, [{ type: "reply", text: \`hello from \${provider}\` }])
  const text = Effect.gen(function* () {
    const spec = yield* Model.parse(\`\${provider}/some-model\`)
    const parts = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(
      Stream.runCollect,
      Effect.provide(
        Model.layer({ spec, baseUrl: server.baseUrl, env: { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" } })
      )
    )
    return parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : [])).join("")
  })
  console.log(await Effect.runPromise(text))
  await server.close()
}
`

const packages = readdirSync(NodePath.join(root, "packages")).sort()
const programs: Array<{ readonly name: string; readonly source: string }> = []

beforeAll(() => {
  // What `pnpm build` does, except that the cli's bundle is only rebuilt when stale: the
  // other test files run it meanwhile, and a rebuild empties its folder first.
  ok(run("pnpm", ["exec", "tsc", "--build", "tsconfig.build.json"], root), "tsc --build tsconfig.build.json")
  ok(run(process.execPath, ["scripts/bundle.ts", "--if-stale"], root), "bundle --if-stale")
  mkdirSync(tarballs)
  for (const name of packages) {
    ok(
      run("pnpm", ["pack", "--pack-destination", tarballs], NodePath.join(root, "packages", name)),
      `pnpm pack ${name}`
    )
  }
  mkdirSync(project)
  const dependencies: Record<string, string> = {
    effect: "4.1.0",
    "@effect/platform-node": "4.1.0"
  }
  for (const file of readdirSync(tarballs)) {
    const name = /^gatehousejs-(.+)-\d+\.\d+\.\d+\.tgz$/.exec(file)?.[1]
    assert.isDefined(name, `unexpected tarball ${file}`)
    dependencies[`@gatehousejs/${name}`] = `file:${NodePath.join(tarballs, file)}`
  }
  writeFileSync(
    NodePath.join(project, "package.json"),
    JSON.stringify({
      name: "an-effect-agent",
      private: true,
      type: "module",
      dependencies,
      devDependencies: { typescript: "7.0.2", "@types/node": "22.20.7" }
    })
  )
  // What `tsc --init` users have: strict, NodeNext, libraries' own declarations not re-checked.
  writeFileSync(
    NodePath.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        types: ["node"],
        strict: true,
        exactOptionalPropertyTypes: true,
        verbatimModuleSyntax: true,
        erasableSyntaxOnly: true,
        noEmit: true,
        skipLibCheck: true
      },
      include: ["*.ts"]
    })
  )
  ok(run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], project), "npm install")

  const agents = examples(NodePath.join(root, "README.md"))
  assert.lengthOf(
    agents,
    2,
    "the root README has two ```ts programs: the short agent at the top and the one of 'Use it in your agent'"
  )
  programs.push({ name: "agent-short", source: agents[0]! }, { name: "agent", source: agents[1]! })
  for (const name of packages) {
    for (const [index, source] of examples(NodePath.join(root, "packages", name, "README.md")).entries()) {
      programs.push({ name: `${name}-${index + 1}`, source })
    }
  }
  for (const program of programs) writeFileSync(NodePath.join(project, `${program.name}.ts`), program.source)
  // A model of each provider on the registry's own (unpatched) provider packages; in a
  // folder of its own, outside the type-checked examples (it imports a .ts helper).
  mkdirSync(NodePath.join(project, "models"))
  copyFileSync(
    NodePath.join(root, "packages", "session", "test", "fakeProviders.ts"),
    NodePath.join(project, "models", "fakeProviders.ts")
  )
  writeFileSync(NodePath.join(project, "models", "run.ts"), MODELS)
}, 600_000)

// Removing an installed node_modules takes more than the default 10 s on a loaded machine.
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

describe("installed from the packed tarballs with npm", () => {
  it("holds one copy of effect, shared by every package", () => {
    const copies = run(
      "find",
      ["node_modules", "-path", "*/effect/package.json", "-not", "-path", "*/@effect/*"],
      project
    )
    assert.deepStrictEqual(ok(copies, "find").trim().split("\n"), ["node_modules/effect/package.json"])
  })

  it("type-checks the agent and every README example against the published declarations", () => {
    ok(run(NodePath.join(project, "node_modules", ".bin", "tsc"), ["-p", "."], project), "tsc --noEmit")
  })

  it("runs the agent: one turn on the scripted model, the ask answered through Permission.Service", () => {
    const out = ok(run(process.execPath, ["agent.ts"], project, 60_000), "node agent.ts")
    assert.include(out, "asked: bash [ 'echo hello from gatehouse' ]")
    assert.include(out, "hello from gatehouse\n")
  })

  it("runs the short agent at the top of the README: ls runs, rm -rf . is refused and nothing is deleted", () => {
    const folder = NodePath.join(project, "short")
    mkdirSync(folder)
    writeFileSync(NodePath.join(folder, "hello.txt"), "hi\n")
    const out = ok(run(process.execPath, ["../agent-short.ts"], folder, 60_000), "node agent-short.ts")
    assert.match(out, /input: \{ command: 'ls' \},\s+output: 'hello\.txt\\n'/)
    assert.match(out, /input: \{ command: 'rm -rf \.' \},\s+error: 'bash "rm -rf \." needs approval/)
    assert.strictEqual(readFileSync(NodePath.join(folder, "hello.txt"), "utf8"), "hi\n")
  })

  it("runs every package README's example", () => {
    const names = programs
      .map((program) => program.name)
      .filter((name) => name !== "agent" && name !== "agent-short")
    assert.isAtLeast(names.length, packages.length - 1)
    for (const name of names) ok(run(process.execPath, [`${name}.ts`], project, 60_000), `node ${name}.ts`)
  })

  it("runs a model of each provider on the registry's unpatched provider packages", () => {
    // As published: the imports effect 4.1 moved, which Model redirects at run time.
    const client = readFileSync(
      NodePath.join(project, "node_modules", "@effect", "ai-anthropic", "dist", "AnthropicClient.js"),
      "utf8"
    )
    assert.include(client, '"effect/unstable/http/HttpClient"')
    const out = ok(run(process.execPath, ["models/run.ts"], project, 60_000), "node models/run.ts")
    assert.strictEqual(out, "hello from anthropic\nhello from openai\nhello from openai-compatible\n")
  })

  it("gatehouse check judges with the project's gatehouse.json", () => {
    const gatehouse = NodePath.join(project, "node_modules", ".bin", "gatehouse")
    assert.include(ok(run(gatehouse, ["check", "--", "ls"], project), "gatehouse check"), "verdict: allow")
    writeFileSync(
      NodePath.join(project, "gatehouse.json"),
      JSON.stringify({ permission: { bash: { "rm *": "deny" } } })
    )
    try {
      const json = JSON.parse(
        ok(run(gatehouse, ["check", "--json", "--", "rm -rf build"], project), "check --json")
      )
      assert.strictEqual(json.decision, "deny")
    } finally {
      rmSync(NodePath.join(project, "gatehouse.json"))
    }
  })

  it("@gatehousejs/cli alone (what npx installs) brings no Effect and runs", () => {
    const alone = NodePath.join(work, "cli-alone")
    mkdirSync(alone)
    writeFileSync(NodePath.join(alone, "package.json"), JSON.stringify({ name: "cli-alone", private: true }))
    const cli = readdirSync(tarballs).find((file) => file.startsWith("gatehousejs-cli-"))!
    ok(
      run(
        "npm",
        ["install", "--no-audit", "--no-fund", "--loglevel=error", NodePath.join(tarballs, cli)],
        alone
      ),
      "npm install @gatehousejs/cli"
    )
    const installed = readdirSync(NodePath.join(alone, "node_modules")).sort()
    assert.notInclude(installed, "effect")
    assert.notInclude(installed, "@effect")
    const out = ok(
      run(NodePath.join(alone, "node_modules", ".bin", "gatehouse"), ["check", "--", "ls -la"], alone),
      "check"
    )
    assert.include(out, "verdict: allow")
  })

  it("gatehouse run runs a command through the gate", () => {
    const gatehouse = NodePath.join(project, "node_modules", ".bin", "gatehouse")
    assert.strictEqual(ok(run(gatehouse, ["run", "--", "echo hi"], project), "gatehouse run"), "hi\n")
  })
})
