package otlpjson

import (
	"bufio"
	"io"
	"os"

	"github.com/aem-dev/aem/batch/badinput"
)

// invalid is the one place this package builds its input errors: a
// badinput.RowError located by line and JSON path (Row is badinput.NoRow:
// a span is a record nested in a document), wrapping badinput.ErrInvalid.
func invalid(file string, line int, field, problem, fix string, err error) error {
	return &badinput.RowError{File: file, Row: badinput.NoRow, Line: line, Field: field, Problem: problem, Fix: fix, Err: err}
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
