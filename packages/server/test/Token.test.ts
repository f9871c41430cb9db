import { assert, describe, it } from "@effect/vitest"
import * as Server from "@gatehousejs/server/Server"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const fromEnv = (env: Record<string, string>) =>
  Effect.gen(function* () {
    return yield* Server.tokenFromEnv
  }).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))

describe("GATEHOUSE_SERVER_TOKEN", () => {
  it.effect("is optional", () =>
    Effect.gen(function* () {
      assert.isTrue(Option.isNone(yield* fromEnv({})))
    })
  )

  it.effect("is trimmed", () =>
    Effect.gen(function* () {
      const token = yield* fromEnv({ GATEHOUSE_SERVER_TOKEN: "  0123456789abcdefXYZ\n" })
      assert.deepStrictEqual(token, Option.some("0123456789abcdefXYZ"))
    })
  )

  it.effect("refuses a guessable short token, saying why", () =>
    Effect.gen(function* () {
      const error = yield* fromEnv({ GATEHOUSE_SERVER_TOKEN: "secret" }).pipe(Effect.flip)
      assert.include(String(error), "GATEHOUSE_SERVER_TOKEN must be at least 16 characters")
    })
  )
})
