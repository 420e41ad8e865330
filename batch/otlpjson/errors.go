package otlpjson

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrInvalid is wrapped by every error about the content of a file (not
// JSON, truncated, a field of the wrong type); the CLI maps it to exit
// status 3.
var ErrInvalid = errors.New("invalid OTLP JSON")

// Error locates a problem in an OTLP JSON file.
type Error struct {
	File    string
	Line    int    // 1-based; 0 when unknown
	Field   string // JSON path, e.g. resourceSpans[0].scopeSpans[1].spans[7]
	Problem string
	Fix     string
	Err     error
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(": line %d", e.Line)
	}
	if e.Field != "" {
		s += ", field " + e.Field
	}
	s += ": " + e.Problem
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Fix != "" {
		s += " (fix: " + e.Fix + ")"
	}
	return s
}

// Unwrap returns ErrInvalid and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.Err}
}

// LineAt returns the 1-based line of byte offset off in the file at path
// (0 when it cannot be read). It is for error messages: it rereads the file.
func LineAt(path string, off int64) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, off), 1<<16)
	line := 1
	for {
		b, err := r.ReadByte()
		if err != nil {
			return line
		}
		if b == '\n' {
			line++
		}
	}
}
