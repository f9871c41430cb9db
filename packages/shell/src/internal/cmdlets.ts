// The parameters of the PowerShell cmdlets whose parameters the analysis reads, and how
// PowerShell binds a parameter name written on the command line to one of them: the exact
// name or alias, else the one parameter whose name or alias it begins (any unambiguous
// prefix, about_Parameters / about_Command_Syntax); a prefix of two parameters is an error
// in PowerShell, one of none an error too. Tables from the cmdlets' documentation
// (PowerShell 7.4, FileSystem provider's dynamic parameters included).
import type { Word } from "./model.ts"

/** `value`: takes the next word (or the one after `:`); `switch`: none (or one after `:`). */
export type ParameterKind = "value" | "switch"

interface Parameter {
  /** Lower-cased, no dash: the name the analysis reads. */
  readonly name: string
  readonly kind: ParameterKind
  readonly aliases: ReadonlyArray<string>
}

const p = (spec: string): Parameter => {
  // "name:kind:alias,alias"
  const [name = "", kind = "value", aliases = ""] = spec.toLowerCase().split(":")
  return {
    name,
    kind: kind === "switch" ? "switch" : "value",
    aliases: aliases === "" ? [] : aliases.split(",")
  }
}

// Every cmdlet's (CmdletBinding) common parameters, and those of one that supports -WhatIf.
const COMMON = [
  "Verbose:switch:vb",
  "Debug:switch:db",
  "ErrorAction:value:ea",
  "WarningAction:value:wa",
  "InformationAction:value:infa",
  "ProgressAction:value:proga",
  "ErrorVariable:value:ev",
  "WarningVariable:value:wv",
  "InformationVariable:value:iv",
  "OutVariable:value:ov",
  "OutBuffer:value:ob",
  "PipelineVariable:value:pv"
]
const SHOULD_PROCESS = ["WhatIf:switch:wi", "Confirm:switch:cf"]
const PATHS = ["Path", "LiteralPath:value:pspath,lp"]
const FILTERS = ["Filter", "Include", "Exclude", "Force:switch", "Credential"]
const WRITE_CONTENT = [
  ...PATHS,
  ...FILTERS,
  ...SHOULD_PROCESS,
  "Value",
  "PassThru:switch",
  "NoNewline:switch",
  "Encoding",
  "AsByteStream:switch",
  "Stream"
]
const WEB = [
  "Uri",
  "UseBasicParsing:switch",
  "WebSession",
  "SessionVariable:value:sv",
  "AllowUnencryptedAuthentication:switch",
  "Authentication",
  "Credential",
  "UseDefaultCredentials:switch",
  "CertificateThumbprint",
  "Certificate",
  "SkipCertificateCheck:switch",
  "SslProtocol",
  "Token",
  "UserAgent",
  "DisableKeepAlive:switch",
  "TimeoutSec",
  "ConnectionTimeoutSeconds",
  "OperationTimeoutSeconds",
  "Headers",
  "SkipHeaderValidation:switch",
  "AllowInsecureRedirect:switch",
  "MaximumRedirection",
  "MaximumRetryCount",
  "PreserveAuthorizationOnRedirect:switch",
  "RetryIntervalSec",
  "Method",
  "CustomMethod:value:cm",
  "NoProxy:switch",
  "Proxy",
  "ProxyCredential",
  "ProxyUseDefaultCredentials:switch",
  "Body",
  "Form",
  "ContentType",
  "TransferEncoding",
  "InFile",
  "OutFile",
  "PassThru:switch",
  "Resume:switch",
  "SkipHttpErrorCheck:switch",
  "HttpVersion",
  "UnixSocket"
]

const TABLE: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  [
    "get-content",
    [
      ...PATHS,
      ...FILTERS,
      "ReadCount",
      "TotalCount:value:first,head",
      "Tail:value:last",
      "Delimiter",
      "Wait:switch",
      "Raw:switch",
      "Encoding",
      "AsByteStream:switch",
      "Stream"
    ]
  ],
  ["set-content", WRITE_CONTENT],
  ["add-content", WRITE_CONTENT],
  ["clear-content", [...PATHS, ...FILTERS, ...SHOULD_PROCESS, "Stream"]],
  [
    "out-file",
    [
      "FilePath:value:path",
      "LiteralPath:value:pspath,lp",
      "Encoding",
      "Append:switch",
      "Force:switch",
      "NoClobber:switch:nooverwrite",
      "Width",
      "NoNewline:switch",
      "InputObject",
      ...SHOULD_PROCESS
    ]
  ],
  [
    "tee-object",
    [
      "InputObject",
      "FilePath:value:path",
      "LiteralPath:value:pspath,lp",
      "Append:switch",
      "Encoding",
      "Variable"
    ]
  ],
  [
    "new-item",
    [
      "Path",
      "Name",
      "ItemType:value:type",
      "Value:value:target",
      "Force:switch",
      "Credential",
      ...SHOULD_PROCESS
    ]
  ],
  [
    "copy-item",
    [
      ...PATHS,
      ...FILTERS,
      ...SHOULD_PROCESS,
      "Destination",
      "Container:switch",
      "Recurse:switch",
      "PassThru:switch",
      "FromSession",
      "ToSession"
    ]
  ],
  ["move-item", [...PATHS, ...FILTERS, ...SHOULD_PROCESS, "Destination", "PassThru:switch"]],
  ["remove-item", [...PATHS, ...FILTERS, ...SHOULD_PROCESS, "Recurse:switch", "Stream"]],
  ["rename-item", [...PATHS, "Force:switch", "Credential", ...SHOULD_PROCESS, "NewName", "PassThru:switch"]],
  [
    "export-csv",
    [
      "InputObject",
      ...PATHS,
      "Force:switch",
      "NoClobber:switch:nooverwrite",
      "Encoding",
      "Append:switch",
      "Delimiter",
      "UseCulture:switch",
      "IncludeTypeInformation:switch:iti",
      "NoTypeInformation:switch:nti",
      "QuoteFields:value:qf",
      "UseQuotes:value:uq",
      "NoHeader:switch",
      ...SHOULD_PROCESS
    ]
  ],
  [
    "export-clixml",
    [
      "Depth",
      ...PATHS,
      "InputObject",
      "Force:switch",
      "NoClobber:switch:nooverwrite",
      "Encoding",
      ...SHOULD_PROCESS
    ]
  ],
  ["invoke-webrequest", WEB],
  [
    "invoke-restmethod",
    [
      ...WEB,
      "ResponseHeadersVariable:value:rhv",
      "StatusCodeVariable",
      "FollowRelLink:switch:fl",
      "MaximumFollowRelLink:value:ml"
    ]
  ],
  ["expand-archive", [...PATHS, "DestinationPath", "Force:switch", "PassThru:switch", ...SHOULD_PROCESS]],
  [
    "compress-archive",
    [
      ...PATHS,
      "DestinationPath",
      "CompressionLevel",
      "Update:switch",
      "Force:switch",
      "PassThru:switch",
      ...SHOULD_PROCESS
    ]
  ]
]

const PARAMETERS: ReadonlyMap<string, ReadonlyArray<Parameter>> = new Map(
  TABLE.map(([cmdlet, specs]) => [cmdlet, [...specs, ...COMMON].map(p)])
)

/** Whether the analysis knows `cmdlet`'s (lower-cased) parameters. */
export const hasParameterTable = (cmdlet: string): boolean => PARAMETERS.has(cmdlet)

/**
 * The parameter of `cmdlet` that `written` (`-Pat`, `-PSPath`, `-lp`) binds to, as
 * PowerShell binds it: `ambiguous` when it begins the names of two, `unknown` when of none.
 */
export const bindParameter = (
  cmdlet: string,
  written: string
): { readonly name: string; readonly kind: ParameterKind } | "ambiguous" | "unknown" => {
  const parameters = PARAMETERS.get(cmdlet)
  if (parameters === undefined) return "unknown"
  const option = written.replace(/^-/, "").toLowerCase()
  if (option === "") return "unknown"
  const exact = parameters.find((q) => q.name === option || q.aliases.includes(option))
  if (exact !== undefined) return exact
  const matches = parameters.filter(
    (q) => q.name.startsWith(option) || q.aliases.some((a) => a.startsWith(option))
  )
  if (matches.length === 1) return matches[0]!
  return matches.length === 0 ? "unknown" : "ambiguous"
}

/** What {@link bindWords} makes of a cmdlet's words. */
export interface Bound {
  /** argv[0], then each parameter the analysis reads with its value, by its full name (`-path`), then the positional words. */
  readonly words: ReadonlyArray<Word>
  /** Each named parameter's values, by full name (lower-cased, no dash). */
  readonly named: ReadonlyMap<string, ReadonlyArray<Word>>
  /** Parameter names PowerShell would not bind to one parameter. */
  readonly problems: ReadonlyArray<string>
}

/**
 * `words` (argv of a cmdlet with a table) with every parameter name written out in full
 * (`-Pat` -> `-path`, `-PSPath` -> `-literalpath`); switches and their `:$false`, and the
 * values of parameters that are not the ones `keep` names, left out, but for those `operand`
 * names (-Include, -Filter: names of files), which stay as operands. A name PowerShell would
 * not bind (ambiguous, unknown) is kept as written, with a problem: the word after it is
 * then read as an operand.
 */
export const bindWords = (
  cmdlet: string,
  words: ReadonlyArray<Word>,
  keep: (name: string) => boolean,
  operand: (name: string) => boolean = () => false
): Bound => {
  const out: Array<Word> = words.length === 0 ? [] : [words[0]!]
  const positional: Array<Word> = []
  const named = new Map<string, Array<Word>>()
  const problems: Array<string> = []
  let ended = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (ended || word.parameter !== true) {
      positional.push(word)
      continue
    }
    if (word.value === "--") {
      ended = true
      continue
    }
    const bound = bindParameter(cmdlet, word.value)
    if (bound === "ambiguous" || bound === "unknown") {
      problems.push(
        bound === "ambiguous"
          ? `\`${word.raw}\` names more than one parameter of ${cmdlet}: which one is not known`
          : `\`${word.raw}\` is not a parameter ${cmdlet} is known to have`
      )
      positional.push(word)
      continue
    }
    const full = { ...word, value: `-${bound.name}`, raw: word.raw }
    if (bound.kind === "switch") {
      // `-Force:$false`: the value is glued by the colon.
      if (word.joined === true) i++
      continue
    }
    const value = words[i + 1]
    // `-Value -Path x`: PowerShell stops, a value missing.
    if (value === undefined || value.parameter === true) continue
    i++
    const list = named.get(bound.name)
    if (list === undefined) named.set(bound.name, [value])
    else list.push(value)
    if (keep(bound.name)) out.push(full, value)
    else if (operand(bound.name)) positional.push(value)
  }
  return { words: [...out, ...positional], named, problems }
}
