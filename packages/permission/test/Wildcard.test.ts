import { assert, describe, it } from "@effect/vitest"
import * as Wildcard from "@gatehousejs/permission/Wildcard"

// The regex the matcher replaces (opencode's definition), kept as an oracle.
const oracle = (input: string, pattern: string, ignoreCase: boolean): boolean => {
  const text = input.replaceAll("\\", "/")
  let source = pattern
    .replaceAll("\\", "/")
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
  if (source.endsWith(" .*")) source = `${source.slice(0, -3)}( .*)?`
  return new RegExp(`^${source}$`, ignoreCase ? "si" : "s").test(text)
}

describe("Wildcard.match", () => {
  it("? is exactly one character; regex metacharacters are literal", () => {
    assert.isTrue(Wildcard.match("file1.txt", "file?.txt"))
    assert.isFalse(Wildcard.match("file12.txt", "file?.txt"))
    assert.isTrue(Wildcard.match("foo+bar", "foo+bar"))
    assert.isFalse(Wildcard.match("fooobar", "foo+bar"))
    assert.isTrue(Wildcard.match("[a]", "[a]"))
    assert.isFalse(Wildcard.match("a", "[a]"))
    assert.isTrue(Wildcard.match("/", "?"))
  })

  it("a trailing ' *' is optional, other stars are not", () => {
    for (const input of ["ls", "ls -la", "ls foo bar", "ls "])
      assert.isTrue(Wildcard.match(input, "ls *"), input)
    assert.isFalse(Wildcard.match("lstmeval", "ls *"))
    assert.isFalse(Wildcard.match("lsof", "ls *"))
    assert.isTrue(Wildcard.match("ls", "ls*"))
    assert.isTrue(Wildcard.match("lstmeval", "ls*"))
    for (const input of ["git status", "git", "git commit -m foo"])
      assert.isTrue(Wildcard.match(input, "git *"))
    assert.isFalse(Wildcard.match("git push", "git * --force"))
    assert.isTrue(Wildcard.match("git push --force", "git * --force"))
    // "**" is two stars, not an optional suffix.
    assert.isFalse(Wildcard.match("ls", "ls **"))
  })

  it("* crosses / and newlines; the whole input must match", () => {
    assert.isTrue(Wildcard.match("src/a/.env", "*.env"))
    assert.isTrue(Wildcard.match("x.env.example", "*.env.*"))
    assert.isTrue(Wildcard.match("a\nb", "a*"))
    assert.isTrue(Wildcard.match("", "*"))
    assert.isTrue(Wildcard.match("", ""))
    assert.isFalse(Wildcard.match("a", ""))
    assert.isFalse(Wildcard.match("xa.env", "a.env"))
    assert.isFalse(Wildcard.match("a.envx", "*.env"))
  })

  it("backslashes count as / in input and pattern", () => {
    assert.isTrue(Wildcard.match("C:\\Windows\\System32\\*", "C:/Windows/System32/*"))
    assert.isTrue(Wildcard.match("C:/Windows/System32/drivers", "C:\\Windows\\System32\\*"))
  })

  it("ignores case only on Windows", () => {
    const windows = { ignoreCase: true }
    assert.isTrue(Wildcard.match("C:\\windows\\system32\\hosts", "C:/Windows/System32/*", windows))
    assert.isTrue(Wildcard.match("c:/windows/system32/hosts", "C:\\Windows\\System32\\*", windows))
    assert.isFalse(Wildcard.match("/users/test/file", "/Users/test/*", { ignoreCase: false }))
    assert.strictEqual(Wildcard.match("/users/test/file", "/Users/test/*"), process.platform === "win32")
  })

  it("answers multi-star patterns in linear time", () => {
    const start = performance.now()
    assert.isFalse(Wildcard.match("ab".repeat(150), "*a*b*a*b*c"))
    assert.isFalse(Wildcard.match("ab".repeat(500), "*a*b*a*b*c"))
    assert.isFalse(Wildcard.match("ab".repeat(50_000), "*a*b*a*b*c"))
    assert.isTrue(Wildcard.match(`${"ab".repeat(50_000)}c`, "*a*b*a*b*c"))
    const elapsed = performance.now() - start
    assert.isBelow(elapsed, 50, `took ${elapsed} ms`)
  })

  it("a compiled glob of the usual shape (text, then only stars) agrees with the regex oracle", () => {
    const patterns = [
      "git status *",
      "git *",
      "src/*",
      "ls*",
      "a**",
      "a ***",
      "* *",
      "x? *",
      "C:\\Temp\\*",
      " *"
    ]
    const inputs = [
      "",
      " ",
      "git",
      "git ",
      "git status",
      "git statusx",
      "git status -s",
      "src",
      "src/",
      "src/a/b"
    ]
    const more = ["ls", "lsof", "a", "a ", "ab", "x", "xy", "xy z", "C:/Temp/a", "C:\\Temp", "C:\\Temp\\b"]
    for (const pattern of patterns) {
      const compiled = Wildcard.compile(pattern)
      for (const input of [...inputs, ...more]) {
        const expected = oracle(input, pattern, process.platform === "win32")
        assert.strictEqual(
          compiled.matches(input),
          expected,
          `${JSON.stringify(input)} ~ ${JSON.stringify(pattern)}`
        )
      }
    }
  })

  it("agrees with the regex oracle on 5 000 seeded random pairs (1 000 also case-folded)", () => {
    let seed = 20_240_601
    const random = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
      return seed / 2 ** 32
    }
    const pick = (chars: string) => chars[Math.floor(random() * chars.length)]!
    const literal = "aAbB/\\\n .+()[]^$|{}kßİ-"
    const patternOf = () => {
      let out = ""
      const length = Math.floor(random() * 7)
      for (let i = 0; i < length; i++) out += random() < 0.3 ? pick("*?") : pick(literal)
      return random() < 0.3 ? `${out} *` : out
    }
    // Mostly inputs built from the pattern, so that many pairs match.
    const inputFor = (pattern: string) => {
      if (random() < 0.3) {
        let out = ""
        const length = Math.floor(random() * 8)
        for (let i = 0; i < length; i++) out += pick(literal)
        return out
      }
      let out = ""
      for (const char of pattern) {
        if (char === "*") for (let n = Math.floor(random() * 3); n > 0; n--) out += pick(literal)
        else if (char === "?") out += pick(literal)
        else if (random() < 0.1) out += char.toUpperCase()
        else out += char
      }
      if (pattern.endsWith(" *") && random() < 0.3) out = out.slice(0, -1).trimEnd()
      return out
    }
    let matches = 0
    let suffixMatches = 0
    const disagreements: Array<unknown> = []
    for (let i = 0; i < 5000; i++) {
      const pattern = patternOf()
      const input = inputFor(pattern)
      // Building a RegExp per pair dominates this test: check case folding on every fifth.
      for (const ignoreCase of i % 5 === 0 ? [false, true] : [false]) {
        const expected = oracle(input, pattern, ignoreCase)
        if (Wildcard.match(input, pattern, { ignoreCase }) !== expected) {
          disagreements.push({ input, pattern, ignoreCase, expected })
        }
        if (expected && !ignoreCase) {
          matches++
          if (pattern.endsWith(" *")) suffixMatches++
        }
      }
    }
    assert.deepStrictEqual(disagreements.slice(0, 5), [])
    assert.isAbove(matches, 1000)
    assert.isAbove(suffixMatches, 200)
  })
})

describe("Wildcard.all / allStructured", () => {
  it("the most specific matching pattern wins", () => {
    const rules = { "*": "deny", "git *": "ask", "git status": "allow" }
    assert.strictEqual(Wildcard.all("git status", rules), "allow")
    assert.strictEqual(Wildcard.all("git log", rules), "ask")
    assert.strictEqual(Wildcard.all("echo hi", rules), "deny")
    assert.isUndefined(Wildcard.all("echo hi", { "git *": "ask" }))
  })

  it("matches structured commands word by word", () => {
    const git = { "git *": "ask", "git status*": "allow" }
    assert.strictEqual(Wildcard.allStructured({ head: "git", tail: ["status", "--short"] }, git), "allow")
    assert.strictEqual(
      Wildcard.allStructured({ head: "npm", tail: ["run", "build", "--watch"] }, { "npm run *": "allow" }),
      "allow"
    )
    assert.isUndefined(Wildcard.allStructured({ head: "ls", tail: ["-la"] }, git))

    const tools = { "find *": "allow", "find * -delete*": "ask", "sort*": "allow", "sort -o *": "ask" }
    assert.strictEqual(Wildcard.allStructured({ head: "find", tail: ["src", "-delete"] }, tools), "ask")
    assert.strictEqual(Wildcard.allStructured({ head: "find", tail: ["src", "-print"] }, tools), "allow")
    assert.strictEqual(Wildcard.allStructured({ head: "sort", tail: ["-o", "out.txt"] }, tools), "ask")
    assert.strictEqual(Wildcard.allStructured({ head: "sort", tail: ["--reverse"] }, tools), "allow")

    const sed = { "sed * -i*": "ask", "sed -n*": "allow" }
    assert.strictEqual(Wildcard.allStructured({ head: "sed", tail: ["-i", "file"] }, sed), "ask")
    assert.strictEqual(Wildcard.allStructured({ head: "sed", tail: ["-i.bak", "file"] }, sed), "ask")
    assert.strictEqual(Wildcard.allStructured({ head: "sed", tail: ["-n", "1p", "file"] }, sed), "allow")
    assert.strictEqual(
      Wildcard.allStructured({ head: "sed", tail: ["-i", "-n", "/./p", "myfile.txt"] }, sed),
      "ask"
    )
  })
})
