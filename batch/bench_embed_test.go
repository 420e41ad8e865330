//go:build aembench

package batch

// Built only with -tags aembench (scripts/bench sets it when the model is
// installed), so the default suite does not depend on the model or cgo.

import (
	"context"
	"os"
	"strconv"

	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/metrics"
)

func init() {
	benchScorer = func(ctx context.Context) (metrics.Scorer, func() map[string]any, func(), error) {
		if os.Getenv("AEM_BENCH_SCORER") != "embed" {
			return nil, nil, nil, nil
		}
		// AEM_BENCH_MEMO sets embed.Options.MemoEntries (0 or unset: the
		// default), to measure how the in-run memo weighs on peak RSS.
		memo, _ := strconv.Atoi(os.Getenv("AEM_BENCH_MEMO"))
		e, err := embed.Open(ctx, embed.Options{CacheDir: os.Getenv("AEM_BENCH_CACHE"), MemoEntries: memo})
		if err != nil {
			return nil, nil, nil, err
		}
		stats := func() map[string]any {
			s := e.Stats()
			return map[string]any{"model_s": s.ModelTime.Seconds(), "tokenize_s": s.TokenizeTime.Seconds(),
				"strings_embedded": s.StringsEmbedded, "model_calls": s.ModelCalls, "memo_hits": s.MemoHits,
				"cache_hits": s.CacheHits, "cache_misses": s.CacheMisses}
		}
		return embed.NewScorer(e), stats, func() { e.Close() }, nil
	}
}
