package report

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// Options says how much of the run the page shows in rows; the aggregates
// always cover every turn. The zero value takes the defaults.
type Options struct {
	// Worst is how many of the lowest-scoring dialogs the explorer holds
	// (default 50).
	Worst int
	// Dialogs are dialog ids the explorer holds too (every trial of each).
	Dialogs []string
	// Causes is how many root-cause classes are listed (default 25), and
	// Examples how many example dialogs each links to (default 3).
	Causes, Examples int
	// MaxText is how many characters of a gold or predicted text a turn
	// keeps (default 1500), MaxTurns how many turns of a dialog (default
	// 80).
	MaxText, MaxTurns int
}

// Defaults of Options.
const (
	DefaultWorst    = 50
	DefaultCauses   = 25
	DefaultExamples = 3
	defaultMaxText  = 1500
	defaultMaxTurns = 80
	// maxExampleDialogs bounds the example dialogs kept while reading,
	// before the ranking of the classes is known.
	maxExampleDialogs = 600
)

// ErrOptions is wrapped by the error for Options that cannot be used.
var ErrOptions = errors.New("bad report options")

// Validate checks the options (negative counts are refused).
func (o Options) Validate() error {
	for _, c := range []struct {
		name string
		v    int
	}{{"worst", o.Worst}, {"causes", o.Causes}, {"examples", o.Examples}, {"max text", o.MaxText}, {"max turns", o.MaxTurns}} {
		if c.v < 0 {
			return fmt.Errorf("%w: %s %d is negative", ErrOptions, c.name, c.v)
		}
	}
	return nil
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Worst, DefaultWorst)
	def(&o.Causes, DefaultCauses)
	def(&o.Examples, DefaultExamples)
	def(&o.MaxText, defaultMaxText)
	def(&o.MaxTurns, defaultMaxTurns)
	return o
}

// dkey identifies a dialog: dialog_id and trial.
type dkey struct {
	id    string
	trial int64 // -1 for none
}

func keyOf(id string, trial *int64) dkey {
	if trial == nil {
		return dkey{id, -1}
	}
	return dkey{id, *trial}
}

// Build reads the run in one pass, turns.parquet beside dialogs.parquet
// (both in input order, a dialog's turns together), and computes the
// report. Memory is bounded by the explorer's dialogs and the number of
// distinct groups (tools, root-cause classes, threshold entries), not by
// the run's size.
func Build(ctx context.Context, rd *rundir.Run, opts Options) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	b := newBuilder(rd, opts.withDefaults())
	next, stop := iter.Pull2(rd.Dialogs(ctx))
	defer stop()
	var cur []rundir.TurnRow
	row := int64(0)
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		// The dialog row of these turns is the next one with their id (a
		// run written before trials had columns of their own may carry a
		// trial in its turns only).
		k := keyOf(cur[0].DialogID, cur[0].Trial)
		for {
			d, err, ok := next()
			if err != nil {
				return err
			}
			if !ok {
				return rd.Corrupt(rundir.TurnsFile, row-int64(len(cur)), "dialog_id", fmt.Sprintf("dialog %s has turns but no row in %s", refName(cur[0].DialogID, cur[0].Trial), rundir.DialogsFile))
			}
			if d.DialogID == cur[0].DialogID && (d.Trial == nil || cur[0].Trial == nil || keyOf(d.DialogID, d.Trial) == k) {
				b.dialog(&d, cur)
				cur = cur[:0]
				return nil
			}
			b.dialog(&d, nil) // a dialog without scored turns
		}
	}
	for t, err := range rd.Turns(ctx) {
		if err != nil {
			return nil, err
		}
		if t.Context() { // a read-only call kept as context: not a verdict
			row++
			continue
		}
		if len(cur) > 0 && keyOf(t.DialogID, t.Trial) != keyOf(cur[0].DialogID, cur[0].Trial) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		cur = append(cur, t)
		row++
	}
	if err := flush(); err != nil {
		return nil, err
	}
	for {
		d, err, ok := next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		b.dialog(&d, nil)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return b.report(), nil
}

// finished is when the run's summary.json was written.
func finished(rd *rundir.Run) (t time.Time) {
	if info, err := os.Stat(filepath.Join(rd.Dir(), rundir.SummaryFile)); err == nil {
		t = info.ModTime().UTC().Truncate(time.Second)
	}
	return t
}

// refName names a dialog in messages.
func refName(id string, trial *int64) string {
	if trial == nil {
		return strconv.Quote(id)
	}
	return fmt.Sprintf("%q trial %d", id, *trial)
}

// builder accumulates the report while the rows stream by.
type builder struct {
	opts    Options
	rep     *Report
	sub     map[string]*Rate
	kinds   map[string]*Rate
	buckets map[string]*Rate
	tools   map[string]*Rate
	reasons map[string]*Reason
	lat     latencyAcc
	causes  causeAcc
	margins marginAcc
	ex      explorerAcc
}

func newBuilder(rd *rundir.Run, opts Options) *builder {
	return &builder{
		opts: opts,
		rep:  &Report{Location: rd.Location, Options: opts, Summary: rd.Summary, Finished: finished(rd), Extra: rd.ExtraColumns},
		sub:  map[string]*Rate{}, kinds: map[string]*Rate{}, buckets: map[string]*Rate{}, tools: map[string]*Rate{},
		reasons: map[string]*Reason{},
		causes:  newCauseAcc(),
		margins: newMarginAcc(),
		ex:      newExplorerAcc(opts),
	}
}

// count adds a turn to the group key of m.
func count(m map[string]*Rate, key string, pass bool) *Rate {
	r := m[key]
	if r == nil {
		r = &Rate{Key: key}
		m[key] = r
	}
	r.Turns++
	if pass {
		r.Passed++
	}
	return r
}

// dialog adds one dialog and its turns.
func (b *builder) dialog(d *rundir.DialogRow, turns []rundir.TurnRow) {
	b.rep.Dialogs++
	for i := range turns {
		b.turn(&turns[i])
	}
	b.causes.dialog(turns)
	b.ex.dialog(d, turns, &b.causes)
}

func (b *builder) turn(t *rundir.TurnRow) {
	b.rep.Turns++
	for name, o := range map[string]string{metrics.SubStructure: t.Structure, metrics.SubCompleteness: t.Completeness, metrics.SubTruthfulness: t.Truthfulness} {
		switch metrics.Outcome(o) {
		case metrics.OutcomePass, metrics.OutcomeFail:
			count(b.sub, name, metrics.Outcome(o) == metrics.OutcomePass)
		}
	}
	count(b.kinds, t.Kind, t.Pass)
	if t.ChainBucket != nil {
		count(b.buckets, *t.ChainBucket, t.Pass)
	}
	if t.Kind == string(metrics.KindAction) {
		r := count(b.tools, toolOf(t.GoldToolID, t.GoldAction, "(no gold call)"), t.Pass)
		if !t.Pass && t.RootCause {
			r.RootCauses++
		}
	}
	if !t.Pass {
		reason := "unknown"
		if t.FailureReason != nil {
			reason = *t.FailureReason
		}
		r := b.reasons[reason]
		if r == nil {
			r = &Reason{Reason: reason}
			b.reasons[reason] = r
		}
		r.Total++
		if t.RootCause {
			r.RootCause++
			b.rep.RootCauses++
		} else {
			r.Cascade++
			b.rep.Cascades++
		}
	}
	if t.LatencyMS != nil {
		b.lat.add(*t.LatencyMS, t.Pass)
	}
	b.margins.turn(t)
}

// toolOf names a call as people call it (metrics.Call.FunctionName:
// "sales_db.aggregate", or "get_weather" for a plain function), or none
// when the turn has no such call.
func toolOf(tool, action *string, none string) string {
	if tool == nil {
		return none
	}
	c := metrics.Call{ToolID: *tool}
	if action != nil {
		c.Action = *action
	}
	return c.FunctionName()
}

// fieldBase is the prefix of the call's field paths (metrics.Call.FieldBase).
func fieldBase(tool, action *string) string {
	if tool == nil {
		return ""
	}
	c := metrics.Call{ToolID: *tool}
	if action != nil {
		c.Action = *action
	}
	return c.FieldBase()
}

func (b *builder) report() *Report {
	rep := b.rep
	order := []string{metrics.SubStructure, metrics.SubCompleteness, metrics.SubTruthfulness}
	for _, k := range order {
		if r := b.sub[k]; r != nil {
			rep.SubMetrics = append(rep.SubMetrics, *r)
		}
	}
	rep.Kinds = sortedRates(b.kinds, byTurns)
	rep.Buckets = sortedRates(b.buckets, byBucket)
	rep.Tools = sortedRates(b.tools, byFailures)
	for _, r := range b.reasons {
		rep.Reasons = append(rep.Reasons, *r)
	}
	slices.SortFunc(rep.Reasons, func(a, b Reason) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	rep.Latency = b.lat.groups(latencyGroups)
	rep.Causes, rep.CausesTotal = b.causes.ranked(b.opts.Causes)
	rep.Margins = b.margins.result()
	rep.Explorer, rep.Missing = b.ex.result(rep.Causes)
	return rep
}

// Orders of rates.
var (
	byTurns = func(a, b Rate) int {
		if a.Turns != b.Turns {
			return b.Turns - a.Turns
		}
		return strings.Compare(a.Key, b.Key)
	}
	byFailures = func(a, b Rate) int {
		fa, fb := a.Turns-a.Passed, b.Turns-b.Passed
		if fa != fb {
			return fb - fa
		}
		return strings.Compare(a.Key, b.Key)
	}
	bucketRank = map[string]int{metrics.BucketSingle: 0, metrics.BucketTwoStep: 1, metrics.BucketThreePlus: 2}
	byBucket   = func(a, b Rate) int {
		ra, oka := bucketRank[a.Key]
		rb, okb := bucketRank[b.Key]
		if oka && okb {
			return ra - rb
		}
		if oka != okb {
			if oka {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	}
)

func sortedRates(m map[string]*Rate, order func(a, b Rate) int) []Rate {
	out := make([]Rate, 0, len(m))
	for _, r := range m {
		out = append(out, *r)
	}
	slices.SortFunc(out, order)
	return out
}
