package otlpjson

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadSpans calls fn for every span in r, an OTLP JSON traces file named
// name (for messages): one TracesData document, or several documents one
// after another (JSON Lines). The span passed to fn is reused: fn must copy
// what it keeps. Memory holds one span, whatever the size of the file.
func ReadSpans(ctx context.Context, name string, r io.Reader, fn func(*Span) error) error {
	w := &walker{ctx: ctx, name: name, dec: json.NewDecoder(bufio.NewReaderSize(r, 1<<20))}
	for doc := 0; ; doc++ {
		tok, err := w.dec.Token()
		if err == io.EOF {
			if doc == 0 {
				return w.fail("", "the file holds no OTLP JSON document", "export traces as OTLP JSON (resourceSpans)", nil)
			}
			return nil
		}
		if err != nil {
			return w.syntax("", err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return w.fail("", fmt.Sprintf("document %d is not a JSON object", doc+1), "each document is {\"resourceSpans\": [...]}", nil)
		}
		var keys []string
		found := false
		if err := w.object("", func(key, path string) error {
			if key == "resourceSpans" {
				found = true
				return w.array(path, func(p string) error { return w.resourceSpans(p, fn) })
			}
			keys = append(keys, key)
			return w.skip(path)
		}); err != nil {
			return err
		}
		if !found && len(keys) > 0 {
			return w.fail("", fmt.Sprintf("document %d has no resourceSpans (keys %q): not OTLP JSON traces", doc+1, keys),
				"give OTLP JSON traces, or name the file's format with --predictions-format", nil)
		}
	}
}

// walker walks the token stream of a traces file.
type walker struct {
	ctx   context.Context
	name  string
	dec   *json.Decoder
	spans int
}

func (w *walker) resourceSpans(path string, fn func(*Span) error) error {
	return w.object(path, func(key, p string) error {
		if key != "scopeSpans" && key != "instrumentationLibrarySpans" {
			return w.skip(p)
		}
		return w.array(p, func(p string) error {
			return w.object(p, func(key, p string) error {
				if key != "spans" {
					return w.skip(p)
				}
				var sp Span
				return w.array(p, func(p string) error {
					sp = Span{}
					if err := w.dec.Decode(&sp); err != nil {
						return w.syntax(p, err)
					}
					if w.spans++; w.spans%4096 == 0 {
						if err := w.ctx.Err(); err != nil {
							return err
						}
					}
					return fn(&sp)
				})
			})
		})
	})
}

// object reads '{', calls each for every key, and reads '}'. The caller
// has already consumed '{' when path is "" (the document level).
func (w *walker) object(path string, each func(key, path string) error) error {
	if path != "" {
		if err := w.delim(path, '{', "a JSON object"); err != nil {
			return err
		}
	}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return w.syntax(path, err)
		}
		key, _ := tok.(string)
		p := key
		if path != "" {
			p = path + "." + key
		}
		if err := each(key, p); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	if err != nil {
		return w.syntax(path, err)
	}
	return nil
}

// array reads '[', calls each for every element, and reads ']'.
func (w *walker) array(path string, each func(path string) error) error {
	if err := w.delim(path, '[', "a JSON array"); err != nil {
		return err
	}
	for i := 0; w.dec.More(); i++ {
		if err := each(fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // ']'
		return w.syntax(path, err)
	}
	return nil
}

func (w *walker) delim(path string, want json.Delim, what string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntax(path, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return w.fail(path, fmt.Sprintf("%v where %s was expected", tok, what), "write OTLP JSON (resourceSpans/scopeSpans/spans)", nil)
	}
	return nil
}

func (w *walker) skip(path string) error {
	var raw json.RawMessage
	if err := w.dec.Decode(&raw); err != nil {
		return w.syntax(path, err)
	}
	return nil
}

// syntax turns a decoding error into an *Error located by line.
func (w *walker) syntax(path string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	off := w.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return invalid(ErrTruncated, w.name, LineAt(w.name, off), path, fmt.Sprintf("file ends inside a JSON value after %d spans (truncated?)", w.spans),
			"re-export the traces, or cut the file at the last complete line", io.ErrUnexpectedEOF)
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Field != "" {
		path += "." + ute.Field
	}
	return invalid(ErrInvalid, w.name, LineAt(w.name, off), path, "not valid OTLP JSON",
		"check the exporter writes OTLP JSON (ids in hex, attributes as {key, value})", err)
}

func (w *walker) fail(path, problem, fix string, err error) error {
	return invalid(ErrInvalid, w.name, LineAt(w.name, w.dec.InputOffset()), path, problem, fix, err)
}
