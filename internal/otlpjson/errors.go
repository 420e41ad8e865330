package otlpjson

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/aem-dev/aem/internal/badinput"
)

// The kinds of input error, each wrapped by the *badinput.RowError that
// reports it (check with errors.Is).
var (
	// ErrInvalid: the file is not OTLP JSON, or a value in it is not what
	// OTLP JSON allows there (an id that is not hex or base64, ...).
	ErrInvalid = errors.New("invalid OTLP JSON")
	// ErrTruncated: the file ends inside a JSON value.
	ErrTruncated = errors.New("truncated OTLP JSON")
)

// invalid is the one place this package builds its input errors: a
// badinput.RowError located by line and JSON path (Row is badinput.NoRow:
// a span is a record nested in a document), wrapping badinput.ErrInvalid
// and kind.
func invalid(kind error, file string, line int, field, problem, fix string, err error) error {
	return &badinput.RowError{File: file, Row: badinput.NoRow, Line: line, Field: field, Problem: problem, Fix: fix, Kind: kind, Err: err}
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
