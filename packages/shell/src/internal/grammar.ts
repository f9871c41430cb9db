// The allow-list of syntax: every named node type of both grammars, classified. The walkers
// descend into `walked` nodes (their children are judged), trust `inert` ones (leaves proved
// to carry no command in the context they appear; the expanding ones are still scanned for
// expansion syntax the grammar left unparsed) and report `unmodelled` ones (the note makes
// the verdict ask; their children are still walked, so a deny inside holds). A type missing
// from a table is unmodelled too: a grammar upgrade cannot add a trusted node silently
// (test/grammar.test.ts reads both node-types.json files).

export type SyntaxClass = "walked" | "inert" | "unmodelled"

const table = (entries: Record<SyntaxClass, ReadonlyArray<string>>): ReadonlyMap<string, SyntaxClass> => {
  const out = new Map<string, SyntaxClass>()
  for (const kind of ["walked", "inert", "unmodelled"] as const)
    for (const type of entries[kind]) out.set(type, kind)
  return out
}

/** tree-sitter-bash. */
export const BASH_SYNTAX: ReadonlyMap<string, SyntaxClass> = table({
  walked: [
    "program",
    "list",
    "pipeline",
    "command",
    "command_name",
    "redirected_statement",
    "declaration_command",
    "unset_command",
    "variable_assignment",
    "variable_assignments",
    "function_definition",
    "compound_statement",
    "subshell",
    "do_group",
    "if_statement",
    "elif_clause",
    "else_clause",
    "while_statement",
    "for_statement",
    "c_style_for_statement",
    "case_statement",
    "case_item",
    "negated_command",
    "command_substitution",
    "process_substitution",
    "string",
    // `$"…"`: walked for its substitutions, but its value is never static (a message
    // catalog may translate it into anything).
    "translated_string",
    "concatenation",
    "expansion",
    "arithmetic_expansion",
    "array",
    "binary_expression",
    "unary_expression",
    "ternary_expression",
    "postfix_expression",
    "parenthesized_expression",
    "test_command",
    "subscript",
    "heredoc_body",
    "heredoc_redirect",
    "herestring_redirect",
    "file_redirect",
    "brace_expression"
  ],
  // Leaves. `word`, `string_content`, `heredoc_content`, `extglob_pattern`, `regex` and
  // `number` are scanned for expansion syntax left inside them; names in an arithmetic
  // context are checked against the integers the text assigns.
  inert: [
    "word",
    "number",
    "raw_string",
    "ansi_c_string",
    "string_content",
    "simple_expansion",
    "variable_name",
    "special_variable_name",
    "file_descriptor",
    "heredoc_start",
    "heredoc_end",
    "heredoc_content",
    "comment",
    "regex",
    "extglob_pattern",
    "test_operator"
  ],
  unmodelled: []
})

/** tree-sitter-powershell. */
export const POWERSHELL_SYNTAX: ReadonlyMap<string, SyntaxClass> = table({
  walked: [
    "program",
    "statement_list",
    "pipeline",
    "pipeline_chain",
    "pipeline_chain_tail",
    "empty_statement",
    "command",
    "command_elements",
    "command_name_expr",
    "array_literal_expression",
    "unary_expression",
    "expression_with_unary_operator",
    "string_literal",
    "expandable_string_literal",
    "expandable_here_string_literal",
    "variable",
    "sub_expression",
    "parenthesized_expression",
    "array_expression",
    "script_block_expression",
    "script_block",
    "script_block_body",
    "param_block",
    "parameter_list",
    "script_parameter",
    "script_parameter_default",
    "attribute",
    "attribute_list",
    "attribute_name",
    "attribute_arguments",
    "attribute_argument",
    "logical_expression",
    "bitwise_expression",
    "comparison_expression",
    "additive_expression",
    "multiplicative_expression",
    "format_expression",
    "range_expression",
    "integer_literal",
    "redirection",
    "redirections",
    "redirected_file_name",
    "assignment_expression",
    "left_assignment_expression",
    "if_statement",
    "elseif_clauses",
    "elseif_clause",
    "else_clause",
    "foreach_statement",
    "foreach_parameter",
    "for_statement",
    "for_initializer",
    "for_condition",
    "for_iterator",
    "while_statement",
    "while_condition",
    "do_statement",
    "switch_statement",
    "switch_parameters",
    "switch_parameter",
    "switch_condition",
    "switch_filename",
    "switch_body",
    "switch_clauses",
    "switch_clause",
    "switch_clause_condition",
    "try_statement",
    "catch_clauses",
    "catch_clause",
    "catch_type_list",
    "finally_clause",
    "trap_statement",
    "statement_block",
    "hash_literal_expression",
    "hash_literal_body",
    "hash_entry",
    "key_expression",
    // A property read; a call of a member (an `argument_list` after it) is judged apart.
    "member_access",
    "member_name",
    "element_access",
    "type_literal",
    "type_spec",
    "type_name",
    "array_type_name",
    "generic_type_name",
    "generic_type_arguments",
    "dimension",
    "cast_expression",
    "pre_increment_expression",
    "pre_decrement_expression",
    "post_increment_expression",
    "post_decrement_expression",
    "flow_control_statement",
    "label_expression",
    "function_statement",
    "function_parameter_declaration",
    "named_block",
    "named_block_list",
    "argument_list",
    "argument_expression_list",
    "argument_expression",
    "logical_argument_expression",
    "bitwise_argument_expression",
    "comparison_argument_expression",
    "additive_argument_expression",
    "multiplicative_argument_expression",
    "format_argument_expression",
    "range_argument_expression"
  ],
  inert: [
    "command_name",
    "path_command_name",
    "path_command_name_token",
    "command_argument_sep",
    "command_invokation_operator",
    "command_parameter",
    "generic_token",
    "verbatim_string_characters",
    "verbatim_here_string_characters",
    "braced_variable",
    "decimal_integer_literal",
    "hexadecimal_integer_literal",
    "real_literal",
    "simple_name",
    "type_identifier",
    "comparison_operator",
    "format_operator",
    "file_redirection_operator",
    "merging_redirection_operator",
    "assignement_operator",
    "label",
    "comment",
    "function_name",
    "block_name"
  ],
  // Method calls run arbitrary .NET code (a short list of members proved inert is let
  // through by the walker); classes, enums, data sections, workflows and `--%` are not
  // modelled.
  unmodelled: [
    "invokation_expression",
    "invokation_foreach_expression",
    "stop_parsing",
    "verbatim_command_argument",
    "class_statement",
    "class_attribute",
    "class_method_definition",
    "class_method_parameter",
    "class_method_parameter_list",
    "class_property_definition",
    "enum_statement",
    "enum_member",
    "data_statement",
    "data_command",
    "data_commands_allowed",
    "data_commands_list",
    "data_name",
    "inlinescript_statement",
    "parallel_statement",
    "sequence_statement"
  ]
})

/**
 * The expansion syntax still present in the text of a leaf that the shell expands, skipping
 * what a backslash escapes: a backtick, `$(`, `$((`, `${`, `$[`, and in an unquoted word
 * `<(` / `>(`. `undefined` when there is none.
 */
export const hiddenBashExpansion = (
  text: string,
  unquoted: boolean,
  start = 0,
  end = text.length
): string | undefined => {
  // Character codes, read in place: most leaves hold none of these.
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c === 92 /* \ */) {
      i++
      continue
    }
    if (c === 96 /* ` */) return "`"
    if (i + 1 >= end) return undefined
    const next = text.charCodeAt(i + 1)
    if (c === 36 /* $ */ && (next === 40 || next === 123 || next === 91))
      return `$${String.fromCharCode(next)}`
    if (unquoted && (c === 60 || c === 62) && next === 40) return `${String.fromCharCode(c)}(`
  }
  return undefined
}

/** PowerShell: `$(` or `@(` left inside a bare token (a backtick escapes the next character). */
export const hiddenPowerShellExpansion = (text: string, start = 0, end = text.length): string | undefined => {
  for (let i = start; i < end - 1; i++) {
    const c = text.charCodeAt(i)
    if (c === 96 /* ` */) {
      i++
      continue
    }
    if ((c === 36 || c === 64) && text.charCodeAt(i + 1) === 40) return `${String.fromCharCode(c)}(`
  }
  return undefined
}
