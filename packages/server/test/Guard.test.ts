import { assert, describe, it } from "@effect/vitest"
import * as Guard from "@gatehousejs/server/Guard"

describe("Guard", () => {
  it("reads the host name of a Host header, without port", () => {
    assert.strictEqual(Guard.hostName("127.0.0.1:4096"), "127.0.0.1")
    assert.strictEqual(Guard.hostName("LocalHost"), "localhost")
    assert.strictEqual(Guard.hostName("[::1]:80"), "[::1]")
    assert.strictEqual(Guard.hostName("evil.example:8080"), "evil.example")
    assert.isUndefined(Guard.hostName("a b"))
    assert.isUndefined(Guard.hostName("host:port:extra"))
    assert.isUndefined(Guard.hostName(""))
  })

  it("accepts only loopback names", () => {
    for (const name of ["localhost", "app.localhost", "127.0.0.1", "127.1.2.3", "[::1]"]) {
      assert.isTrue(Guard.isLoopbackName(name), name)
    }
    for (const name of [
      "localhost.evil.example",
      "127.0.0.1.nip.io",
      "0.0.0.0",
      "10.0.0.1",
      "[::]",
      "example.com"
    ]) {
      assert.isFalse(Guard.isLoopbackName(name), name)
    }
  })

  it("generates distinct, long tokens", () => {
    const a = Guard.generateToken()
    const b = Guard.generateToken()
    assert.notStrictEqual(a, b)
    assert.isAtLeast(a.length, 40)
    assert.match(a, /^[A-Za-z0-9_-]+$/)
  })
})
