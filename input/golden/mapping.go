package golden

import (
	"fmt"
	"sort"
	"strings"
)

// Canonical column names of the golden dataset.
const (
	ColDialogID        = "dialog_id"
	ColTurnNo          = "turn_no"
	ColTurn            = "turn"
	ColGoldResponse    = "gold_response"
	ColPredictResponse = "predict_response"
	ColGoldToolID      = "gold_tool_id"
	ColGoldAction      = "gold_action"
	ColGoldArgs        = "gold_args"
	ColPredictToolID   = "predict_tool_id"
	ColPredictAction   = "predict_action"
	ColPredictArgs     = "predict_args"
	ColTags            = "tags"
	ColDependsOn       = "depends_on"
	ColHumanLabel      = "human_label"
	ColHumanScore      = "human_score"
	ColWeight          = "weight"
	ColCritical        = "critical"
	ColLatencyMS       = "latency_ms"
	ColGoldNoCall      = "gold_no_call"
	ColTools           = "tools"
	ColTrial           = "trial"
	ColUserTurn        = "user_turn"
)

// colKind is the logical type a canonical column must have.
type colKind int

const (
	kindString     colKind = iota // BYTE_ARRAY (string, json, large_string)
	kindID                        // string, or an integer formatted in decimal
	kindInt                       // INT32 or INT64
	kindBool                      // BOOLEAN
	kindFloat                     // FLOAT, DOUBLE (or an integer)
	kindStringList                // list<string> or repeated string
	kindIntList                   // list<int> or repeated int
)

func (k colKind) String() string {
	switch k {
	case kindString:
		return "string"
	case kindID:
		return "string or integer"
	case kindInt:
		return "int32 or int64"
	case kindBool:
		return "boolean"
	case kindFloat:
		return "float or double"
	case kindStringList:
		return "list<string>"
	case kindIntList:
		return "list<int>"
	}
	return "?"
}

// column describes one canonical column.
type column struct {
	name     string
	kind     colKind
	required bool
}

// columns lists the canonical columns in schema order. The index in this
// slice is the column's slot in the reader.
var columns = []column{
	{ColDialogID, kindID, true},
	{ColTurnNo, kindInt, true},
	{ColTurn, kindString, true},
	{ColGoldResponse, kindString, true},
	{ColPredictResponse, kindString, true},
	{ColGoldToolID, kindString, true},
	{ColGoldAction, kindString, true},
	{ColGoldArgs, kindString, true},
	{ColPredictToolID, kindString, true},
	{ColPredictAction, kindString, true},
	{ColPredictArgs, kindString, true},
	{ColTags, kindStringList, false},
	{ColDependsOn, kindIntList, false},
	{ColHumanLabel, kindBool, false},
	{ColHumanScore, kindFloat, false},
	{ColWeight, kindFloat, false},
	{ColCritical, kindBool, false},
	{ColLatencyMS, kindFloat, false},
	{ColGoldNoCall, kindBool, false},
	{ColTools, kindString, false},
	{ColTrial, kindInt, false},
	{ColUserTurn, kindInt, false},
}

// Slots of the canonical columns (indexes into columns).
const (
	slotDialogID = iota
	slotTurnNo
	slotTurn
	slotGoldResponse
	slotPredictResponse
	slotGoldToolID
	slotGoldAction
	slotGoldArgs
	slotPredictToolID
	slotPredictAction
	slotPredictArgs
	slotTags
	slotDependsOn
	slotHumanLabel
	slotHumanScore
	slotWeight
	slotCritical
	slotLatencyMS
	slotGoldNoCall
	slotTools
	slotTrial
	slotUserTurn
	numSlots
)

// CanonicalColumns returns the canonical column names in schema order.
func CanonicalColumns() []string {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.name
	}
	return names
}

func canonicalSlot(name string) (int, bool) {
	for i, c := range columns {
		if c.name == name {
			return i, true
		}
	}
	return 0, false
}

// Mapping maps canonical column names to the names the user's file uses,
// e.g. {"gold_args": "expected_arguments"}. Canonical names not in the map
// are looked up under their own name.
type Mapping map[string]string

// ParseMapping parses the --map flag syntax: comma-separated
// canonical=column pairs, e.g. "gold_args=expected_arguments,turn=role".
// Spaces around names are trimmed; the empty string gives an empty mapping.
// It rejects unknown canonical names, empty names, a canonical name given
// twice and two canonical names mapped to the same column.
func ParseMapping(s string) (Mapping, error) {
	m := Mapping{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		canon, col, ok := strings.Cut(pair, "=")
		canon, col = strings.TrimSpace(canon), strings.TrimSpace(col)
		if !ok || canon == "" || col == "" {
			return nil, fmt.Errorf("%w: %q is not canonical=column (example: --map gold_args=expected_arguments,turn=role)", ErrBadMapping, pair)
		}
		if _, dup := m[canon]; dup {
			return nil, fmt.Errorf("%w: %q is mapped twice", ErrBadMapping, canon)
		}
		m[canon] = col
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate checks that every key is a canonical column name and that no two
// canonical names share a column.
func (m Mapping) Validate() error {
	keys := sortedKeys(m)
	used := map[string]string{}
	for _, canon := range keys {
		col := m[canon]
		if _, ok := canonicalSlot(canon); !ok {
			return fmt.Errorf("%w: %q is not a golden dataset column; the left side of --map must be one of: %s",
				ErrBadMapping, canon, strings.Join(CanonicalColumns(), ", "))
		}
		if col == "" {
			return fmt.Errorf("%w: %q is mapped to an empty column name", ErrBadMapping, canon)
		}
		if other, ok := used[col]; ok {
			return fmt.Errorf("%w: column %q is mapped to both %q and %q", ErrBadMapping, col, other, canon)
		}
		used[col] = canon
	}
	return nil
}

// String formats the mapping in ParseMapping syntax, sorted by canonical name.
func (m Mapping) String() string {
	keys := sortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

// source returns the column name the file uses for canonical column canon.
func (m Mapping) source(canon string) string {
	if col, ok := m[canon]; ok {
		return col
	}
	return canon
}

func sortedKeys(m Mapping) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
