package visible

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// control reports whether r must be shown rather than sent: the C0 and C1
// control characters, DEL, and the Unicode marks that change the order in
// which a terminal lays out a line (bidirectional embeddings, overrides
// and isolates).
func control(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, 0x80 <= r && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// escape appends the shown form of r.
func escape(b *strings.Builder, r rune) {
	switch r {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\v':
		b.WriteString(`\v`)
	default:
		if r < 0x80 {
			fmt.Fprintf(b, `\x%02x`, r)
		} else {
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
}

// show escapes s, keeping the runes keep allows.
func show(s string, keep func(rune) bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || control(r) && !keep(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case control(r) && !keep(r):
			escape(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func keepLines(r rune) bool { return r == '\n' || r == '\t' }
func keepNone(rune) bool    { return false }

// Text returns s with every control character but newline and tab shown
// as its escape, and every byte that is not UTF-8 as \xNN.
func Text(s string) string { return show(s, keepLines) }

// Line returns s as one line: like Text, with newlines and tabs escaped
// too.
func Line(s string) string { return show(s, keepNone) }

// Writer escapes what is written through it as Text does. It is safe for
// concurrent use; a UTF-8 sequence split across writes is held until it is
// whole.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence the last write cut
}

// NewWriter returns a Writer that writes the shown form of its input to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes the shown form of p; it returns len(p) when all of it was
// written (or held as the start of a rune).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.pending, p...)
	cut := len(buf)
	// Hold an incomplete but possibly valid sequence at the end.
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	w.pending = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(w.w, Text(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}
