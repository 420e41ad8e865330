package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
)

// Gold is what a run learns from the whole golden dataset before it
// scores: the words of the gold replies (completeness weighs each gold
// clause by how common its words are: metrics.Metric.WithVocabulary) and
// the gold calls that break their tool definitions. Learning both over the
// whole input, whatever the shard, the worker count or the point a run
// resumes from, keeps the outputs identical across all of them.
type Gold struct {
	Vocabulary *features.Vocabulary
	// Conflicts lists every gold call's conflict with its definitions, in
	// input order (golden.Conflict): findings the run reports
	// (summary.json, gold_conflicts), or refuses with Options.StrictGold.
	Conflicts []golden.Conflict
}

// ReadGold reads the local golden dataset at path once for its Gold. Run
// reads it before scoring unless Options.Gold gives it; a caller with
// something else to do first (opening a model) can read it meanwhile.
func ReadGold(ctx context.Context, path string, opts golden.ReadOptions) (*Gold, error) {
	opts.Hook = golden.NoopHook{} // the scoring pass reports an unsorted input
	r, err := golden.Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// Counting runs beside the reading: the pass holds up the model, and
	// the other core has nothing else to do yet.
	g := &Gold{Vocabulary: features.NewVocabulary()}
	dialogs, counted := make(chan metrics.Dialog, 64), make(chan struct{})
	go func() {
		defer close(counted)
		for d := range dialogs {
			metrics.AddReplies(g.Vocabulary, d)
		}
	}()
	defer func() { close(dialogs); <-counted }()
	for d, err := range r.All(ctx) {
		if errors.Is(err, badinput.ErrInvalid) || ctx.Err() != nil {
			return nil, err // names the file, row and field, as the scoring pass would
		}
		if err != nil {
			return nil, fmt.Errorf("reading the gold side of %s: %w", path, err)
		}
		g.Conflicts = append(g.Conflicts, d.Conflicts...)
		dialogs <- d.Dialog
	}
	return g, nil
}

// gold is the run's Gold: Options.Gold, else read from path (the local
// copy of Input). The Metric's own vocabulary, when it has one, is used
// in place of the one read.
func (o Options) gold(ctx context.Context, path string) (*Gold, error) {
	g := o.Gold
	if g == nil {
		var err error
		if g, err = ReadGold(ctx, path, o.ReadOptions); err != nil {
			return nil, err
		}
		for i := range g.Conflicts {
			g.Conflicts[i].File = o.Input // not the local copy of a remote input
		}
	}
	if v := o.Metric.Vocabulary(); v != nil && (o.Gold == nil || o.Gold.Vocabulary == nil) {
		g = &Gold{Vocabulary: v, Conflicts: g.Conflicts}
	}
	if g.Vocabulary == nil {
		g = &Gold{Vocabulary: features.NewVocabulary(), Conflicts: g.Conflicts}
	}
	return g, nil
}

// goldProblem says why a run could not read its Gold: a Source read in
// place of Input leaves only Input's local file to read, so without one
// it needs Options.Gold.
func (o Options) goldProblem() error {
	if o.Source == nil || o.Gold != nil {
		return nil
	}
	if o.Input == "" {
		return fmt.Errorf("a Source without Input needs Gold (its Vocabulary: metrics.AddReplies over the dataset's dialogs; its Conflicts: each dialog's)")
	}
	if loc, err := location.Parse(o.Input); err == nil && loc.Remote() {
		return fmt.Errorf("a Source with the remote Input %s needs Gold: the gold side is read from a local file", o.Input)
	}
	return nil
}

// conflictsOf keeps the conflicts of the run's dialogs (its shard's).
func (o Options) conflictsOf(g *Gold) []golden.Conflict {
	if !o.Shard.Enabled() {
		return g.Conflicts
	}
	var out []golden.Conflict
	for _, c := range g.Conflicts {
		if o.Shard.Contains(c.DialogID) {
			out = append(out, c)
		}
	}
	return out
}

// ErrGoldConflicts is wrapped by the error of a run with
// Options.StrictGold whose gold calls break their tool definitions (a
// *GoldConflictsError, which also wraps badinput.ErrInvalid).
var ErrGoldConflicts = errors.New("gold calls break their tool definitions")

// GoldConflictsError refuses a golden dataset whose gold calls break their
// tool definitions (Options.StrictGold), listing every conflict.
type GoldConflictsError struct {
	Conflicts []golden.Conflict
}

// Error lists every conflict, one a line.
func (e *GoldConflictsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d gold value(s) break their tool definitions (refused by --strict-gold; without it the gold wins for those fields and the run goes on):",
		len(e.Conflicts))
	for _, c := range e.Conflicts {
		b.WriteString("\n  ")
		b.WriteString(c.Error())
	}
	return b.String()
}

// Unwrap returns ErrGoldConflicts and badinput.ErrInvalid (exit status 3).
func (e *GoldConflictsError) Unwrap() []error { return []error{ErrGoldConflicts, badinput.ErrInvalid} }
