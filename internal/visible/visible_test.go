package visible

import (
	"bytes"
	"testing"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, text, line string }{
		{"plain text, ünïcode ✓", "plain text, ünïcode ✓", "plain text, ünïcode ✓"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab", `two\nlines\tand a tab`},
		{"red \x1b[31mtext\x1b[0m", `red \x1b[31mtext\x1b[0m`, `red \x1b[31mtext\x1b[0m`},
		{"title \x1b]0;pwned\a", `title \x1b]0;pwned\a`, `title \x1b]0;pwned\a`},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"nul\x00 del\x7f", `nul\x00 del\x7f`, `nul\x00 del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`, `c1 \u009b31m`},
		{"raw csi \x9b31m", `raw csi \x9b31m`, `raw csi \x9b31m`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`, `bidi \u202eevil\u202c \u2066x\u2069`},
		{"cut \xe2\x82", `cut \xe2\x82`, `cut \xe2\x82`},
		{"a real U+FFFD \ufffd stays", "a real U+FFFD \ufffd stays", "a real U+FFFD \ufffd stays"},
	} {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

// TestWriter writes hostile text in every split of its bytes: the stream
// shows the same text whatever the cut.
func TestWriter(t *testing.T) {
	in := []byte("é \x1b[2J ✓\u202e\n\xff end")
	want := Text(string(in))
	for cut := range len(in) + 1 {
		var out bytes.Buffer
		w := NewWriter(&out)
		for _, part := range [][]byte{in[:cut], in[cut:]} {
			if n, err := w.Write(part); err != nil || n != len(part) {
				t.Fatalf("cut %d: Write = %d, %v", cut, n, err)
			}
		}
		if out.String() != want {
			t.Errorf("cut %d: wrote %q, want %q", cut, out.String(), want)
		}
	}
}

func FuzzText(f *testing.F) {
	f.Add("a\x1b[31mb\u202e\xff\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, got := range []string{Text(s), Line(s)} {
			for _, r := range got {
				if control(r) && r != '\n' && r != '\t' {
					t.Fatalf("%q shows as %q, which sends %U", s, got, r)
				}
			}
		}
		for _, r := range Line(s) {
			if r == '\n' || r == '\t' {
				t.Fatalf("Line(%q) = %q keeps a line break or tab", s, Line(s))
			}
		}
	})
}
