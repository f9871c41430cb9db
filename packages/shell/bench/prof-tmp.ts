import * as fs from "node:fs"
import * as NodePath from "node:path"
import * as Permission from "@gatehousejs/permission/Permission"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as ShellAnalysis from "../src/ShellAnalysis.ts"
import * as ShellGate from "../src/ShellGate.ts"
import * as ShellParser from "../src/ShellParser.ts"
const corpus = fs.readFileSync(NodePath.join(import.meta.dirname, "data", "corpus.jsonl"), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l)).map((e: any) => ({ command: e.command as string, dialect: (e.shell === "powershell" ? "powershell" : "bash") as ShellParser.Dialect }))
const ruleset = Permission.fromConfig(JSON.parse(fs.readFileSync(NodePath.join(import.meta.dirname, "../../permission/bench/data/realistic-rules.json"), "utf8")))
const root = NodePath.resolve(import.meta.dirname, "../../..")
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(ShellParser.layer, scope))
const which = process.argv[2] ?? "corpus"
const oneLiners = corpus.filter((c) => c.dialect === "bash" && !c.command.includes("\n")).map((c) => c.command)
let long = ""; for (let i = 0; long.length < 10_000; i++) long += `${i === 0 ? "" : " && "}${oneLiners[i % oneLiners.length]}`
long = long.slice(0, 10_000)
const inputs = which === "long" ? Array.from({ length: 50 }, () => ({ command: long, dialect: "bash" as const })) : corpus
const parseOnly = process.argv[3] === "analyze"
const program = Effect.forEach(inputs, (input) => ShellAnalysis.analyze(input.command, { cwd: root, projectRoot: root, dialect: input.dialect }).pipe(Effect.map((a) => parseOnly ? "x" : ShellGate.judge(a, { ruleset }).decision)), { discard: true })
for (let i = 0; i < 3; i++) Effect.runSync(Effect.provideContext(program, context))
const t = performance.now()
for (let i = 0; i < 8; i++) Effect.runSync(Effect.provideContext(program, context))
console.log(which, parseOnly ? "analyze only" : "analyze+gate", ((performance.now() - t) / 8).toFixed(1), "ms per pass")
