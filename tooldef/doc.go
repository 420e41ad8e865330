// Package tooldef owns tool definitions: the function schemas an agent is
// offered (OpenAI `tools`, MCP `inputSchema`, Anthropic `input_schema`,
// BFCL's `function` docs). It parses them, finds the definition a call
// names, and validates a call's arguments against the definition's JSON
// Schema, naming the field and the rule each violation breaks. It is pure:
// it parses bytes it is given and never opens a file.
//
// # Input
//
// Parse reads a JSON array of definitions, JSON Lines (one definition per
// line, or concatenated objects), or an object {"tools": [...]} (an MCP
// tools/list result). Each definition is one of
//
//	{"name": ..., "description": ..., "parameters": {...}}            OpenAI functions, BFCL
//	{"type": "function", "function": {"name": ..., "parameters": ...}} OpenAI Chat Completions tools
//	{"type": "function", "name": ..., "parameters": ...}               OpenAI Responses tools
//	{"name": ..., "inputSchema": {...}}                                MCP
//	{"name": ..., "input_schema": {...}}                               Anthropic
//
// A definition without a schema takes no parameters. MCP's tool
// annotation readOnlyHint ({"annotations": {"readOnlyHint": true}}: the
// tool changes nothing) is read into Tool.ReadOnly, beside the schema in
// every dialect, and for Chat Completions' form beside or inside
// "function" (OpenAI's and Anthropic's definitions have no field of their
// own for it; tools converted from MCP carry the annotations object).
// Other keys beside a schema (strict, title, other annotations,
// outputSchema...) are ignored; a
// definition with neither a schema nor only known keys is refused with the
// unknown key named, so a misspelt "paramters" is not read as "no
// parameters". Names must be non-empty and unique.
//
// # Schema dialect
//
// The JSON Schema subset tool definitions use: type (a name or a list of
// names), enum, const, default, description, properties, required,
// additionalProperties (boolean or schema), items (a schema, or a list for
// positional items), prefixItems, anyOf, oneOf (treated as anyOf), allOf,
// nullable (OpenAPI), and local $ref into $defs or definitions. Other
// keywords (minimum, title, examples...) are accepted and not checked, as
// in BFCL's checker; format and pattern are kept (Schema.Format,
// Schema.Pattern) but not checked either. Type names are JSON Schema's (object,
// array, string, number, integer, boolean, null) plus BFCL's dialect: dict
// (object), float (number), tuple (array), any (every type), and the rest
// of BFCL's GORILLA_TO_OPENAPI table (bool, list, byte, short, long,
// double, char, String, Bigint, ArrayList, Array, Queue, Stack, HashMap,
// Hashtable, Any) and Python's int and str.
//
// # Validation
//
// Tool.ValidateArgs checks a call's arguments: every required parameter is
// present (rule "required"), no parameter is unknown to the schema
// ("unknown"), and every value fits its schema. Schema.Validate checks one
// value: its type ("type"; an integer is accepted where a number is
// declared, and an integer must be written without fraction or exponent,
// as BFCL's checker reads JSON), enum and const membership ("enum"), the
// required and allowed keys of nested objects, items of arrays, anyOf,
// allOf ("any_of", "all_of"), at any depth. An element of an array whose
// items BFCL's dialect declares float (or double) must be written as one:
// BFCL's checker converts an integer to a float for a parameter's own
// value, not inside a list (Schema.Float; JSON Schema's number takes
// integers everywhere). A value equal to the schema's default is always
// accepted (real tool schemas declare "default": null on a string
// parameter that may be null). Violations come in a stable order (keys
// sorted) with the field's path ("filters.region[1]", "table[1][0]"), the
// offending value and what the schema wanted (Violation.Value, Want).
//
// # Names
//
// Set.Lookup finds a definition by its name as given, then with "." and
// "_" treated alike (models that cannot emit "." send math_factorial for
// math.factorial), when that match is unique.
package tooldef
