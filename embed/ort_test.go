//go:build cgo

package embed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Several ORT Embedders at once share the process-global environment; closing
// them all releases it and a later Open loads it again.
func TestORTEnvironmentRefcount(t *testing.T) {
	lib := ortLib(t)
	dir := writeModelDir(t, pooledModel(), "unigram", nil)
	for round := 0; round < 2; round++ {
		var es []*Embedder
		for i := 0; i < 3; i++ {
			e, err := Open(context.Background(), Options{ModelDir: dir, ORTLib: lib, IntraOpThreads: 1, GraphOptLevel: GraphOptBasic})
			if err != nil {
				t.Fatalf("round %d open %d: %v", round, i, err)
			}
			es = append(es, e)
		}
		// A different library while the environment is loaded is refused.
		other := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
		os.WriteFile(other, []byte("x"), 0o644)
		if _, err := Open(context.Background(), Options{ModelDir: dir, ORTLib: other}); !errors.Is(err, ErrORTLibrary) {
			t.Errorf("second library: %v", err)
		}
		for _, e := range es {
			if _, err := e.Embed(context.Background(), []string{"hello"}); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range es {
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil { // idempotent
				t.Fatal(err)
			}
		}
		if ortRuntime.refs != 0 {
			t.Fatalf("round %d: %d references left", round, ortRuntime.refs)
		}
	}
}
