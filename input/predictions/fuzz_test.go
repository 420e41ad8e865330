package predictions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/otlpjson"
)

// FuzzOpen feeds arbitrary bytes to Open as each format: it must return
// conversations or an input error, never panic or fail otherwise, and every
// conversation it returns must survive the store round trip.
func FuzzOpen(f *testing.F) {
	for _, name := range []string{"chat.jsonl", "phoenix.jsonl", "openinference.otlp.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Add([]byte(`{"conversation_id":"a","messages":[{"role":"assistant","tool_calls":[{"function":{"name":"x","arguments":"{"}}]}]}`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		path := filepath.Join(t.TempDir(), "p")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		forced := []Format{FormatAuto, FormatChat, FormatOTLP, FormatPhoenix}[format%4]
		st, err := Open(context.Background(), path, Options{Format: forced, TempDir: t.TempDir(), SortMemory: 4096})
		if err != nil {
			if !errors.Is(err, badinput.ErrInvalid) || !hasKind(err) {
				t.Fatalf("error outside the vocabulary: %v", err)
			}
			return
		}
		defer st.Close()
		n := 0
		if err := st.Each(func(c Conversation, _ bool) error {
			n++
			got, err := st.Lookup(c.ID)
			if err != nil || len(got) == 0 {
				t.Fatalf("Lookup(%q) after Each: %v, %v", c.ID, got, err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n != st.Len() {
			t.Fatalf("Each gave %d of %d", n, st.Len())
		}
	})
}

// hasKind reports whether err wraps one of the kinds of input error of
// this package or of otlpjson.
func hasKind(err error) bool {
	for _, k := range []error{ErrInvalidRecord, ErrFormat, ErrJoin, otlpjson.ErrInvalid, otlpjson.ErrTruncated} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
