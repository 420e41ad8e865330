package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/input/golden"
)

// TestReadGold: aem run reads a local input's gold side (the replies'
// words, the conflicts) while the scorer opens; what it cannot read (a
// URL, a missing or malformed file) it leaves to batch.Run, which reports
// the problem as it always did.
func TestReadGold(t *testing.T) {
	example := filepath.Join("..", "..", "datasets", "example", "golden.jsonl")
	malformed := filepath.Join(t.TempDir(), "malformed.jsonl")
	if err := os.WriteFile(malformed, []byte("{\"dialog_id\": \"d\", \"turns\": [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		input   string
		replies int // gold replies counted; -1: left to batch.Run (nil)
	}{
		{example, 6}, // the example's six agent turns with a gold reply
		{filepath.Join(t.TempDir(), "missing.jsonl"), -1},
		{malformed, -1},
		{"s3://bucket/golden.parquet", -1},
	}
	for _, tt := range tests {
		g := readGold(t.Context(), tt.input, golden.ReadOptions{}).wait()
		switch {
		case tt.replies < 0 && g != nil:
			t.Errorf("%s: counted %d replies, want it left to batch.Run", tt.input, g.Vocabulary.Replies())
		case tt.replies >= 0 && (g == nil || g.Vocabulary.Replies() != tt.replies):
			t.Errorf("%s: got %v, want %d replies", tt.input, g, tt.replies)
		}
	}
	// A scorer that fails to open stops the count; stop waits for it.
	ctx, cancel := context.WithCancel(t.Context())
	b := readGold(ctx, example, golden.ReadOptions{})
	cancel()
	b.stop()
}
