package batch

import (
	"context"
	"fmt"

	"github.com/aem-dev/aem/batch/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
)

// goldVocabulary reads every gold reply of the input at path once, before
// scoring: completeness weighs each gold clause by how common its words are
// among the whole dataset's gold replies (features.Vocabulary). Counting
// over the whole input, whatever the shard, the worker count or the point a
// run resumes from, keeps the outputs identical across all of them.
func goldVocabulary(ctx context.Context, path string, opts golden.ReadOptions) (*features.Vocabulary, error) {
	opts.Hook = golden.NoopHook{} // the scoring pass reports an unsorted input
	r, err := golden.Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	v := features.NewVocabulary()
	for d, err := range r.All(ctx) {
		if err != nil {
			return nil, fmt.Errorf("counting the words of the gold replies in %s: %w", path, err)
		}
		for _, t := range d.Turns {
			if t.Role == metrics.RoleAgent && t.HasGold {
				v.Add(t.GoldResponse)
			}
		}
	}
	return v, nil
}
