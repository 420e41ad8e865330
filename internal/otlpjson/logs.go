package otlpjson

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// WriteLogs writes d as one line of OTLP JSON (a JSON Lines file of such
// documents is what the Collector's file exporter writes and its otlpjson
// receiver reads).
func WriteLogs(w io.Writer, d *LogsData) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("encoding OTLP logs: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ReadLogs calls fn for every log record in r, a file of OTLP JSON logs
// documents (one per line, or concatenated), with the record's resource and
// scope. Each document is decoded whole.
func ReadLogs(ctx context.Context, name string, r io.Reader, fn func(Resource, Scope, *LogRecord) error) error {
	dec := json.NewDecoder(bufio.NewReader(r))
	for doc := 1; ; doc++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var d LogsData
		start := dec.InputOffset()
		err := dec.Decode(&d)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			problem, kind := fmt.Sprintf("document %d is not OTLP JSON logs", doc), ErrInvalid
			if errors.Is(err, io.ErrUnexpectedEOF) {
				problem, kind = fmt.Sprintf("document %d is truncated", doc), ErrTruncated
			}
			return invalid(kind, name, LineAt(name, start)+boolInt(start > 0), "", problem,
				"write OTLP JSON logs ({\"resourceLogs\": [...]}) one document per line", err)
		}
		for _, rl := range d.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for i := range sl.LogRecords {
					if err := fn(rl.Resource, sl.Scope, &sl.LogRecords[i]); err != nil {
						return err
					}
				}
			}
		}
	}
}

// boolInt is 1 for true: a document after the first starts after the
// newline that ends the previous one.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
