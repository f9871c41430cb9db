import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import * as Instance from "@gatehousejs/core/Instance"
import * as Sha256 from "@gatehousejs/core/Sha256"

const nodeSha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

describe("Sha256.hex", () => {
  it("is FIPS 180-4's SHA-256 on the standard vectors", () => {
    assert.strictEqual(Sha256.hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert.strictEqual(Sha256.hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert.strictEqual(
      Sha256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    )
  })

  it("equals node:crypto's for every length across the block and padding boundaries, and for non-ASCII text", () => {
    for (let length = 0; length <= 300; length++) {
      const ascii = "/home/user/project-".repeat(20).slice(0, length)
      assert.strictEqual(Sha256.hex(ascii), nodeSha256(ascii), `ascii, length ${length}`)
      const wide = "é/日本😀".repeat(60).slice(0, length)
      assert.strictEqual(Sha256.hex(wide), nodeSha256(wide), `non-ascii, length ${length}`)
    }
    const long = "x".repeat(100_000)
    assert.strictEqual(Sha256.hex(long), nodeSha256(long))
  })

  it("keeps Instance.info's project ids what they were with node:crypto (remembered approvals stay found)", () => {
    for (const directory of ["/tmp/project", "/work/main", "/home/ü ser/my project"]) {
      assert.strictEqual(Instance.info(directory).projectID, `prj_${nodeSha256(directory).slice(0, 20)}`)
    }
  })
})
