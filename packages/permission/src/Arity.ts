/**
 * How many leading tokens of a shell command name what it does, so that an "always" answer
 * approves `git checkout *` rather than every `git` command or only `git checkout main`.
 *
 * The table (156 entries) lists commands whose subcommand matters: `git` has arity 2
 * (`git checkout`), `npm run` has arity 3 (`npm run dev`). The longest listed prefix of the
 * tokens decides; an unlisted command counts as its first token alone.
 *
 * @since 0.0.0
 */

// Entries by arity; multi-word prefixes are comma-separated.
const ONE = (
  "cat cd chmod chown cp echo env export grep kill killall ln ls mkdir mv ps pwd rm rmdir sleep " +
  "source tail touch unset which"
).split(" ")

const TWO = (
  "bazel brew bun cabal cargo cdk cf cmake composer conda consul crictl dart deno docker dotnet " +
  "eksctl firebase flutter flyctl git go gradle hatch helm heroku hugo ip kind kubectl kustomize " +
  "lein make mamba mc micromamba minikube mise mix mongosh mysql mvn ng nix npm nvm nx opam openssl " +
  "pdm pip pipenv pixi pnpm poetry podman psql pulumi pyenv python rake rbenv redis-cli rustup rye " +
  "sbt serverless skaffold sls sst stack swift systemctl terraform tmux turbo ufw uv vault vercel " +
  "volta wp yarn zig"
).split(" ")

const THREE = (
  "aws, az, bun run, bun x, cargo add, cargo run, consul kv, deno task, doctl, docker builder, " +
  "docker compose, docker container, docker image, docker network, docker volume, eksctl create, " +
  "gcloud, gh, git config, git remote, git stash, ip addr, ip link, ip netns, ip route, kind create, " +
  "kubectl kustomize, kubectl rollout, mc admin, npm exec, npm init, npm run, npm view, openssl req, " +
  "openssl x509, pnpm dlx, pnpm exec, pnpm run, podman container, podman image, pulumi stack, sfdx, " +
  "terraform workspace, vault auth, vault kv, yarn dlx, yarn run"
).split(", ")

/**
 * The arity table: a command prefix (tokens joined by one space) to how many tokens name
 * the command. A `Map`, so names such as `toString` or `__proto__` are ordinary unknown
 * commands.
 *
 * @since 0.0.0
 */
export const table: ReadonlyMap<string, number> = new Map([
  ...ONE.map((key) => [key, 1] as const),
  ...TWO.map((key) => [key, 2] as const),
  ...THREE.map((key) => [key, 3] as const)
])

const LONGEST_KEY = Math.max(...[...table.keys()].map((key) => key.split(" ").length))
// First tokens of the keys longer than one token: only these can have a longer prefix.
const STARTS_LONGER = new Set(
  [...table.keys()].filter((key) => key.includes(" ")).map((key) => key.split(" ")[0]!)
)

/**
 * The tokens that name the command: the arity of the longest listed prefix, else the
 * first token alone; `[]` for `[]`.
 *
 * @example
 * ```ts
 * import { Arity } from "@gatehousejs/permission"
 * Arity.prefix(["git", "checkout", "main"]) // ["git", "checkout"]
 * Arity.prefix(["npm", "run", "dev", "--watch"]) // ["npm", "run", "dev"]
 * Arity.prefix(["touch", "a.txt"]) // ["touch"]
 * ```
 * @since 0.0.0
 */
export const prefix = (tokens: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (tokens.length === 0) return []
  // Every listed prefix of the tokens, shortest first: the last one found is the longest.
  let key = tokens[0]!
  let arity = table.get(key) ?? 1
  if (!STARTS_LONGER.has(key)) return tokens.slice(0, arity)
  for (let length = 2; length <= Math.min(tokens.length, LONGEST_KEY); length++) {
    key += ` ${tokens[length - 1]}`
    arity = table.get(key) ?? arity
  }
  return tokens.slice(0, arity)
}
