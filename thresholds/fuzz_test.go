package thresholds

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/aem-dev/aem/internal/badinput"
)

// FuzzDecode: Decode never panics; it accepts a file or refuses it with a
// *badinput.RowError; an accepted file has valid values, encodes, and reads back the
// same. scripts/fuzz runs it (every Fuzz target in the module).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"version": 2, "threshold": 0.5, "sub_metrics": {"truthfulness.values": 0.75}, "types": {"string": 0.8}, "fields": {"a.b.c": 0.9}, "embedding_model": {"id": "use-lite", "sha256": "` + sha + `"}, "source": "x"}`,
		`{"version": 1, "threshold": 0, "fields": {"a.b.c.d[0]": -1}, "model": "lexical"}`,
		`{"version": 2, "threshold": 0.5, "threshold": 0.5}`,
		`{"version": 3}`, `{"version": 2, "x": {"y": [null]}}`, `[]`, `{"version": 2} x`, ``,
		`{"version": 2, "sub_metrics": {"completeness.response": -0.5}}`,
		`{"version": 3, "composite_fields": {"a.b.c": 0.4, "a.b.c.d[0]": 1}, "composite": {"default": ` + fittedJSON + `}}`,
		`{"version": 3, "sub_metrics": {"completeness.clause": 0.5, "completeness.response": 0.9}, "composite": {"default": ` + fittedJSON + `}}`,
		`{"version": 3, "composite": {"truthfulness.values": {"features": ["cosine"], "mean": [0], "scale": [1], "coefficients": [1], "intercept": 0, "threshold": 0.5, "embedding_model": {"id": "x"}, "held_out": {"samples": 1, "cosine_only": {}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode("f.json", data)
		if err != nil {
			var e *badinput.RowError
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Fix == "" {
				t.Fatalf("refusal %v is not a *badinput.RowError with a fix", err)
			}
			return
		}
		if p := file.problems(); len(p) > 0 {
			t.Fatalf("accepted a file with problems %v", p)
		}
		b, err := Encode(file)
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		again, err := Decode("again.json", b)
		if err != nil {
			t.Fatalf("re-reading %s: %v", b, err)
		}
		if d := cmp.Diff(file, again, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("round trip changed the file:\n%s", d)
		}
	})
}
