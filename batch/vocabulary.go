package batch

import (
	"context"
	"fmt"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
)

// GoldVocabulary reads every gold reply of the local golden dataset at
// path once: completeness weighs each gold clause by how common its words
// are among the whole dataset's gold replies
// (metrics.Metric.WithVocabulary). Run counts it before scoring unless
// Options.Vocabulary gives it; a caller with something else to do first
// (opening a model) can count it meanwhile. Counting over the whole input,
// whatever the shard, the worker count or the point a run resumes from,
// keeps the outputs identical across all of them.
func GoldVocabulary(ctx context.Context, path string, opts golden.ReadOptions) (*features.Vocabulary, error) {
	opts.Hook = golden.NoopHook{} // the scoring pass reports an unsorted input
	r, err := golden.Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// Counting runs beside the reading: the pass holds up the model, and
	// the other core has nothing else to do yet.
	v := features.NewVocabulary()
	dialogs, counted := make(chan metrics.Dialog, 64), make(chan struct{})
	go func() {
		defer close(counted)
		for d := range dialogs {
			metrics.AddReplies(v, d)
		}
	}()
	defer func() { close(dialogs); <-counted }()
	for d, err := range r.All(ctx) {
		if err != nil {
			return nil, fmt.Errorf("counting the words of the gold replies in %s: %w", path, err)
		}
		dialogs <- d.Dialog
	}
	return v, nil
}

// vocabulary is the run's vocabulary: Options.Vocabulary, else the
// Metric's, else the gold replies of the input at path (the local copy of
// Input).
func (o Options) vocabulary(ctx context.Context, path string) (*features.Vocabulary, error) {
	if v := o.givenVocabulary(); v != nil {
		return v, nil
	}
	return GoldVocabulary(ctx, path, o.ReadOptions)
}

func (o Options) givenVocabulary() *features.Vocabulary {
	if o.Vocabulary == nil && o.Metric != nil {
		return o.Metric.Vocabulary()
	}
	return o.Vocabulary
}

// vocabularyProblem says why a run could not learn its vocabulary: a
// Source read in place of Input leaves only Input's local file to count,
// so without a Vocabulary it needs one.
func (o Options) vocabularyProblem() error {
	if o.Source == nil || o.givenVocabulary() != nil {
		return nil
	}
	if o.Input == "" {
		return fmt.Errorf("a Source without Input needs a Vocabulary (metrics.AddReplies over the dataset's dialogs; features.NewVocabulary() for none)")
	}
	if loc, err := location.Parse(o.Input); err == nil && loc.Remote() {
		return fmt.Errorf("a Source with the remote Input %s needs a Vocabulary: the gold replies are counted from a local file", o.Input)
	}
	return nil
}
