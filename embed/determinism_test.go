package embed

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSeqBucket(t *testing.T) {
	tests := []struct{ n, max, want int }{
		{0, 128, 1}, {1, 128, 1}, {5, 128, 5}, {17, 128, 17}, {31, 128, 31}, {32, 128, 32},
		{33, 128, 34}, {34, 128, 34}, {63, 128, 64}, {64, 128, 64}, {65, 128, 68}, {121, 128, 124},
		{127, 128, 128}, {128, 128, 128}, {99, 100, 100}, {98, 99, 99}, {129, 512, 136},
		{500, 512, 512}, {20, 0, 20}, {600, 512, 600},
	}
	for _, tt := range tests {
		if got := seqBucket(tt.n, tt.max); got != tt.want {
			t.Errorf("seqBucket(%d, %d) = %d, want %d", tt.n, tt.max, got, tt.want)
		}
	}
}

// TestVectorIndependentOfBatch: a string's vector is bit-for-bit the same
// whatever it is batched with (alone, with shorter or longer strings, in a
// full batch), so runs are byte-identical whatever the timing and workers.
func TestVectorIndependentOfBatch(t *testing.T) {
	for _, p := range []string{PrecisionFP32, PrecisionInt8} {
		t.Run(p, func(t *testing.T) { vectorIndependentOfBatch(t, useLiteDirFor(t, p)) })
	}
}

func vectorIndependentOfBatch(t *testing.T, dir string) {
	ctx := context.Background()
	e, err := Open(ctx, Options{ModelDir: dir, ORTLib: ortLib(t), MemoEntries: -1, BatchSize: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	target := "Revenue for EMEA rose 12% in Q3"
	long := strings.Repeat("the quarterly report was published on time ", 6)
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("value %d", i))
	}
	batches := map[string][]string{
		"alone":            {target},
		"with a shorter":   {target, "NYC"},
		"with a longer":    {"New York City and the surrounding boroughs", target},
		"with a long":      {long, target, "x"},
		"in a full batch":  append([]string{target}, many...),
		"twice, reordered": {"NYC", target, long},
	}
	want, err := e.Embed(ctx, []string{target})
	if err != nil {
		t.Fatal(err)
	}
	for name, texts := range batches {
		got, err := e.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(texts, target)
		if !slices.Equal(got[i], want[0]) {
			t.Errorf("%s: vector differs from the string embedded alone", name)
		}
	}
}
