package tooldef

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every error about the content of tool
// definitions (check with errors.Is); the CLI maps it to exit status 3.
var ErrInvalid = errors.New("invalid tool definitions")

// Error reports one bad tool definition: the source, which definition,
// which field, what is wrong and how to fix it. It wraps ErrInvalid and the
// cause.
type Error struct {
	File    string // the source as the caller named it; may be empty
	Index   int    // 0-based index of the definition; -1 for the file as a whole
	Line    int    // 1-based line where the definition starts; 0 when not known
	Field   string // JSON path inside the definition, e.g. "parameters.properties.unit.type"
	Problem string
	Fix     string
	Err     error // underlying cause (a JSON syntax error, say); may be nil
}

// Error formats the error as "FILE: line L, definition N, field F: PROBLEM (fix: FIX)".
func (e *Error) Error() string {
	var parts []string
	if e.Line > 0 {
		parts = append(parts, fmt.Sprintf("line %d", e.Line))
	}
	if e.Index >= 0 {
		parts = append(parts, fmt.Sprintf("definition %d", e.Index))
	}
	if e.Field != "" {
		parts = append(parts, "field "+e.Field)
	}
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if len(parts) > 0 {
		b.WriteString(strings.Join(parts, ", "))
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Fix != "" {
		fmt.Fprintf(&b, " (fix: %s)", e.Fix)
	}
	return b.String()
}

// Unwrap returns ErrInvalid and the cause.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// fieldErr is an error about one field of a definition; Parse fills in the
// file, definition index and line.
func fieldErr(field, problem, fix string) *Error {
	return &Error{Index: -1, Field: field, Problem: problem, Fix: fix}
}
