/**
 * The model a command talks to, from its `--model` and `--base-url` and the configuration's
 * `model` and `provider` keys (see ModelConfig), and the one place its layer is built.
 *
 * @since 0.0.0
 */
import * as Model from "@gatehousejs/session/Model"
import type * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as ModelConfig from "./ModelConfig.ts"

// A bad model string as its message.
const parseModel = (text: string): Model.Spec | string =>
  Effect.runSync(Model.parse(text).pipe(Effect.catch((error) => Effect.succeed(error.message))))

/**
 * The model a command will use, with where it was chosen (for the command's opening line).
 *
 * @since 0.0.0
 */
export interface Choice {
  readonly spec: Model.Spec
  readonly baseUrl: string | undefined
  /** `--model` or the configuration file. */
  readonly from: string
}

/**
 * Why no model could be chosen, in words a person can act on. It never holds a key.
 *
 * @since 0.0.0
 */
export class ChoiceError {
  readonly _tag = "ModelChoiceError"
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

/**
 * The model of `--model` (else the file's `model`) and its base URL: `--base-url`, else
 * the file's `provider.<name>.base_url`. `openai-compatible` without a base URL is an error
 * here, with both ways to give one.
 *
 * @since 0.0.0
 */
export const choose = (options: {
  readonly flag?: string | undefined
  readonly baseUrl?: string | undefined
  readonly settings: ModelConfig.Settings
  /** The configuration file, for messages (`gatehouse.json` when none was read). */
  readonly file: string
}): Choice | ChoiceError => {
  const text = options.flag ?? options.settings.model
  if (text === undefined)
    return new ChoiceError(
      `no model: pass --model anthropic/<id> (or openai/<id>, openai-compatible/<id>), or set "model" in ${options.file}`
    )
  const from = options.flag === undefined ? options.file : "--model"
  const spec = parseModel(text)
  if (typeof spec === "string") return new ChoiceError(`${from}: ${spec}`)
  const baseUrl = options.baseUrl ?? options.settings.baseUrls[spec.provider]
  if (spec.provider === "openai-compatible" && (baseUrl === undefined || baseUrl.trim() === ""))
    return new ChoiceError(
      `model "${text}" needs the server's URL: pass --base-url http://127.0.0.1:8080/v1 (llama.cpp; Ollama: http://127.0.0.1:11434/v1), or set provider["openai-compatible"].base_url in ${options.file}`
    )
  return { spec, baseUrl, from }
}

/**
 * The `LanguageModel` of a choice: the one place a command's model is built. Fails with
 * `Model.ConfigError` (a missing key names its variable) before any request.
 *
 * @since 0.0.0
 */
export const layer = (choice: Choice): Layer.Layer<LanguageModel.LanguageModel, Model.ConfigError> =>
  Model.layer({ spec: choice.spec, baseUrl: choice.baseUrl })
