// The model keys of gatehouse.json (ModelConfig) and the choice of a command's model from
// them and its flags (ModelChoice).
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Model from "@gatehousejs/session/Model"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Config from "../src/Config.ts"
import * as ModelChoice from "../src/ModelChoice.ts"
import * as ModelConfig from "../src/ModelConfig.ts"

describe("ModelConfig.decode", () => {
  it("names the providers Model knows", () => {
    assert.deepStrictEqual([...ModelConfig.providers], [...Model.providers])
  })

  it("reads model and a base URL per provider", () => {
    assert.deepStrictEqual(
      ModelConfig.decode({
        model: "openai-compatible/qwen3-coder",
        provider: { "openai-compatible": { base_url: " http://127.0.0.1:8080/v1 " }, anthropic: {} }
      }),
      {
        model: "openai-compatible/qwen3-coder",
        baseUrls: { "openai-compatible": "http://127.0.0.1:8080/v1" }
      }
    )
    assert.deepStrictEqual(ModelConfig.decode({}), { model: undefined, baseUrls: {} })
  })

  it("a wrong value is named by its path", () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ model: 42 }, "model", /expected a model string/],
      [{ model: " " }, "model", /expected a model string/],
      [{ provider: [] }, "provider", /expected an object of providers, got an array/],
      [
        { provider: { ollama: {} } },
        'provider["ollama"]',
        /unknown provider \(expected one of anthropic, openai, openai-compatible\)/
      ],
      [{ provider: { openai: "x" } }, 'provider["openai"]', /expected \{ "base_url": "…" \}/],
      [
        { provider: { openai: { url: "http://x" } } },
        'provider["openai"].url',
        /unknown key \(expected base_url\)/
      ],
      [
        { provider: { openai: { base_url: "localhost:1" } } },
        'provider["openai"].base_url',
        /expected an http/
      ]
    ]
    for (const [value, path, message] of cases) {
      const problem = ModelConfig.decode(value as never)
      assert.isTrue("path" in problem, JSON.stringify(value))
      if ("path" in problem) {
        assert.strictEqual(problem.path, path)
        assert.match(problem.message, message)
      }
    }
  })

  it.effect("Config.load takes the keys, and reports a bad one with the file and its path", () =>
    Effect.gen(function* () {
      const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "gatehouse-model-config-"))
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
      )
      const file = NodePath.join(dir, "gatehouse.json")
      NodeFs.writeFileSync(
        file,
        JSON.stringify({
          model: "anthropic/claude-x",
          provider: { anthropic: { base_url: "https://proxy.example/" } }
        })
      )
      // A base URL is where the API key goes: read from a file the person names, not from
      // the repository's own (which still names the model).
      const info = yield* Config.load({ cwd: dir, config: file })
      assert.deepStrictEqual(info.models, {
        model: "anthropic/claude-x",
        baseUrls: { anthropic: "https://proxy.example/" }
      })
      const fromProject = yield* Config.load({ cwd: dir })
      assert.deepStrictEqual(fromProject.models, { model: "anthropic/claude-x", baseUrls: {} })
      NodeFs.writeFileSync(file, JSON.stringify({ provider: { openai: { base_url: 1 } } }))
      const exit = yield* Effect.exit(Config.load({ cwd: dir }))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.findErrorOption(exit)
      assert.strictEqual(
        error._tag === "Some" ? error.value.message : "",
        `${file}: provider["openai"].base_url: expected an http:// or https:// URL, got 1`
      )
    }).pipe(Effect.scoped)
  )
})

describe("ModelChoice.choose", () => {
  const settings: ModelConfig.Settings = {
    model: "openai-compatible/qwen3",
    baseUrls: { "openai-compatible": "http://127.0.0.1:8080/v1", anthropic: "https://proxy.example" }
  }

  it("--model wins over the file's model, --base-url over the file's base URL", () => {
    assert.deepStrictEqual(ModelChoice.choose({ settings, file: "gatehouse.json" }), {
      spec: { provider: "openai-compatible", id: "qwen3" },
      baseUrl: "http://127.0.0.1:8080/v1",
      from: "gatehouse.json"
    })
    assert.deepStrictEqual(
      ModelChoice.choose({ flag: "anthropic/claude-x", settings, file: "gatehouse.json" }),
      {
        spec: { provider: "anthropic", id: "claude-x" },
        baseUrl: "https://proxy.example",
        from: "--model"
      }
    )
    assert.deepStrictEqual(
      ModelChoice.choose({
        flag: "openai/gpt-5",
        baseUrl: "http://127.0.0.1:1/v1",
        settings,
        file: "g.json"
      }),
      { spec: { provider: "openai", id: "gpt-5" }, baseUrl: "http://127.0.0.1:1/v1", from: "--model" }
    )
  })

  it("no model, a bad model, openai-compatible without a URL: a ChoiceError saying what to do", () => {
    const none = ModelChoice.choose({ settings: { model: undefined, baseUrls: {} }, file: "gatehouse.json" })
    assert.instanceOf(none, ModelChoice.ChoiceError)
    assert.match(
      (none as ModelChoice.ChoiceError).message,
      /no model: pass --model .* or set "model" in gatehouse\.json/
    )
    const bad = ModelChoice.choose({ flag: "gemini/flash", settings, file: "gatehouse.json" })
    assert.match(
      (bad as ModelChoice.ChoiceError).message,
      /^--model: model "gemini\/flash": unknown provider "gemini"/
    )
    const fromFile = ModelChoice.choose({
      settings: { model: "gpt-5", baseUrls: {} },
      file: "/p/gatehouse.json"
    })
    assert.match(
      (fromFile as ModelChoice.ChoiceError).message,
      /^\/p\/gatehouse\.json: model "gpt-5" names no provider/
    )
    const noUrl = ModelChoice.choose({
      flag: "openai-compatible/llama",
      settings: { model: undefined, baseUrls: {} },
      file: "gatehouse.json"
    })
    assert.match(
      (noUrl as ModelChoice.ChoiceError).message,
      /pass --base-url .* or set provider\["openai-compatible"\]\.base_url in gatehouse\.json/
    )
  })
})
