package predictions

import (
	"context"
	"fmt"
	"io"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/align"
	"github.com/parquet-go/parquet-go"
)

// Columns the join adds to every turn (after the gold file's own extra
// columns), carried through to turns.parquet. Null where they do not apply.
var joinColumns = []struct {
	name string
	kind parquet.Kind
}{
	{"predict_seq", parquet.Int64},            // 1-based position of the prediction in the agent's sequence
	{"predict_function", parquet.ByteArray},   // the function name as the agent gave it
	{"predict_call_id", parquet.ByteArray},    // the tool call id
	{"predict_args_error", parquet.ByteArray}, // why the agent's arguments are not a JSON object (predict_args keeps them as written)
	{"source_file", parquet.ByteArray},
	{"source_line", parquet.Int64},
	{"source_trace_id", parquet.ByteArray},
	{"source_span_id", parquet.ByteArray},
	{"source_message_index", parquet.Int64},
}

// JoinStats counts what a join did; complete once Next has returned io.EOF.
type JoinStats struct {
	GoldDialogs int // gold dialogs read
	Dialogs     int // joined dialogs given out (one per trial)
	// NoPredictions counts gold dialogs that no conversation answers: all
	// their turns are missing_turn. NoPredictionIDs holds the first ten.
	NoPredictions   int
	NoPredictionIDs []string
	// Unmatched counts conversations whose id is no gold dialog's: they are
	// not scored. UnmatchedIDs holds the first ten.
	Unmatched    int
	UnmatchedIDs []string
	// Predictions left out by the alignment (see align.Joined), and gold
	// turns subset mode leaves unscored.
	Ignored, Context, Allowed, Unscored int
	// ReadOnly counts the predicted read-only calls, kept as context
	// (listed, never scored: align.Joined.ReadOnly).
	ReadOnly      int
	MalformedArgs int // scored calls whose arguments were not a JSON object (unparseable_arguments)
}

// Joiner joins the dialogs of a golden dataset with the conversations of a
// Store: for each gold dialog, one joined dialog per trial of the
// conversation with its id (the gold dialog_id with the conversation's
// trial as golden.Dialog.Trial: the trial stays a key of its own, never
// part of the id), or one with every turn missing when there is none. It
// implements batch.Source. Not safe for concurrent use.
type Joiner struct {
	gold       *golden.Reader
	store      *Store
	opts       align.Options
	extras     []golden.ExtraColumn
	goldLeaves int
	pending    []joinedDialog
	last       joinedDialog
	stats      JoinStats
	done       bool
}

// joinedDialog is a joined dialog with where its predictions came from.
type joinedDialog struct {
	d     golden.Dialog
	conv  Conversation
	steps []*Step // per turn: its prediction, nil when none
}

// NewJoiner joins gold with store; Close closes gold (the caller closes
// the store, which a second Joiner may read again).
func NewJoiner(gold *golden.Reader, store *Store, opts align.Options) (*Joiner, error) {
	j := &Joiner{gold: gold, store: store, opts: opts}
	j.extras = append(j.extras, gold.Extras()...)
	if s := gold.ExtraSchema(); s != nil {
		j.goldLeaves = len(s.Columns())
	}
	for i, c := range joinColumns {
		j.extras = append(j.extras, golden.ExtraColumn{Name: c.name, Node: parquet.Optional(leafNode(c.kind)),
			FirstLeaf: j.goldLeaves + i, Leaves: 1})
	}
	return j, nil
}

func leafNode(k parquet.Kind) parquet.Node {
	if k == parquet.Int64 {
		return parquet.Int(64)
	}
	return parquet.String()
}

// Extras describes the extra columns of the joined dialogs: the gold
// file's, then the join's (see joinColumns).
func (j *Joiner) Extras() []golden.ExtraColumn { return j.extras }

// Stats says what the join did so far.
func (j *Joiner) Stats() JoinStats { return j.stats }

// Close closes the gold reader.
func (j *Joiner) Close() error { return j.gold.Close() }

// Steps returns, for each turn of the dialog Next returned last, the
// predicted step on it (nil when the turn has none).
func (j *Joiner) Steps() []*Step { return j.last.steps }

// Conversation returns the conversation joined into the dialog Next
// returned last (ID and Trial; an empty one when the gold dialog had none).
func (j *Joiner) Conversation() Conversation { return j.last.conv }

// Next returns the next joined dialog, or io.EOF after the last (the
// unmatched conversations are then counted).
func (j *Joiner) Next(ctx context.Context) (golden.Dialog, error) {
	for len(j.pending) == 0 {
		if j.done {
			return golden.Dialog{}, io.EOF
		}
		g, err := j.gold.Next(ctx)
		if err == io.EOF {
			j.done = true
			if err := j.countUnmatched(); err != nil {
				return golden.Dialog{}, err
			}
			continue
		}
		if err != nil {
			return golden.Dialog{}, err
		}
		if j.pending, err = j.join(g); err != nil {
			return golden.Dialog{}, err
		}
	}
	j.last = j.pending[0]
	j.pending = j.pending[1:]
	j.stats.Dialogs++
	return j.last.d, nil
}

// join joins one gold dialog with every trial of its conversation.
func (j *Joiner) join(g golden.Dialog) ([]joinedDialog, error) {
	if g.Trial != nil {
		row := badinput.NoRow
		if j.gold.Format() == golden.FormatParquet {
			row = g.Rows[0]
		}
		return nil, rowError(ErrJoin, j.gold.Path(), row, 0, "trial",
			fmt.Sprintf("gold dialog %q has trial %d: with predictions, the trials come from the predictions", g.ID, *g.Trial),
			"drop the trial column (or key) from the golden dataset, and number the runs in the predictions (\"trial\", aem.trial)", nil)
	}
	j.stats.GoldDialogs++
	convs, err := j.store.Lookup(g.ID)
	if err != nil {
		return nil, err
	}
	if len(convs) == 0 {
		j.stats.NoPredictions++
		if len(j.stats.NoPredictionIDs) < 10 {
			j.stats.NoPredictionIDs = append(j.stats.NoPredictionIDs, g.ID)
		}
		convs = []Conversation{{ID: g.ID, Source: Source{MessageIndex: -1}}}
	}
	out := make([]joinedDialog, 0, len(convs))
	for _, c := range convs {
		d, err := j.joinOne(g, c)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func (j *Joiner) joinOne(g golden.Dialog, c Conversation) (joinedDialog, error) {
	steps := make([]align.Step, len(c.Steps))
	malformed := make([]string, len(c.Steps))
	seq := make([]int, len(c.Steps)) // 1-based position in the agent's sequence (user messages are not the agent's)
	n := 0
	for i, s := range c.Steps {
		switch s.Kind {
		case StepUser:
			steps[i] = align.Step{Role: metrics.RoleUser, Response: s.Text}
			continue
		case StepReply:
			n++
			seq[i] = n
			steps[i] = align.Step{Role: metrics.RoleAgent, Response: s.Text}
			continue
		}
		n++
		seq[i] = n
		steps[i] = align.Step{Role: metrics.RoleTool, Name: s.Name, Args: map[string]any{}}
		malformed[i] = s.ArgsError
		if malformed[i] == "" {
			args, err := golden.DecodeArgs(s.Args)
			if err != nil {
				malformed[i] = err.Error()
			} else {
				steps[i].Args = args
			}
		}
		if malformed[i] != "" {
			steps[i].UnparsedArgs = s.Args
			if steps[i].UnparsedArgs == "" {
				steps[i].UnparsedArgs = " " // never "": that would read as parsed
			}
		}
	}
	joined, err := align.Join(g.Dialog, steps, j.opts)
	if err != nil {
		return joinedDialog{}, err
	}
	id := g.ID
	d := golden.Dialog{Dialog: metrics.Dialog{ID: id, Turns: joined.Dialog.Turns, Tools: g.Tools}, Trial: c.Trial}
	srcs := make([]*Step, len(d.Turns))
	goldRow := map[int]int{} // turn_no -> index in g
	for i, t := range g.Turns {
		goldRow[t.TurnNo] = i
	}
	for i := range d.Turns {
		t := &d.Turns[i]
		t.DialogID = id
		var extra parquet.Row
		if k, ok := goldRow[t.TurnNo]; ok && t.HasGold && g.Extra != nil {
			extra = append(extra, g.Extra[k]...)
			d.Rows = append(d.Rows, g.Rows[k])
		} else {
			for c := range j.goldLeaves {
				extra = append(extra, parquet.NullValue().Level(0, 0, c))
			}
			d.Rows = append(d.Rows, -1)
		}
		p := joined.PredOf[i]
		var st *Step
		if p >= 0 {
			st = &c.Steps[p]
			srcs[i] = st
			if malformed[p] != "" {
				j.stats.MalformedArgs++
			}
		}
		pseq := 0
		if p >= 0 {
			pseq = seq[p]
		}
		extra = j.appendJoinColumns(extra, pseq, st, malformedOf(malformed, p))
		d.Extra = append(d.Extra, extra)
	}
	j.stats.Ignored += len(joined.Ignored)
	j.stats.Context += len(joined.Context)
	j.stats.Allowed += len(joined.Allowed)
	j.stats.Unscored += len(joined.Unscored)
	j.stats.ReadOnly += len(joined.ReadOnly)
	c.Steps = nil // the steps live on in srcs
	return joinedDialog{d: d, conv: c, steps: srcs}, nil
}

func malformedOf(m []string, p int) string {
	if p < 0 {
		return ""
	}
	return m[p]
}

// appendJoinColumns appends the join's columns for one turn; seq is the
// prediction's 1-based position in the agent's sequence.
func (j *Joiner) appendJoinColumns(row parquet.Row, seq int, st *Step, argsErr string) parquet.Row {
	col := j.goldLeaves
	str := func(s string, ok bool) {
		if ok {
			row = append(row, parquet.ByteArrayValue([]byte(s)).Level(0, 1, col))
		} else {
			row = append(row, parquet.NullValue().Level(0, 0, col))
		}
		col++
	}
	num := func(n int, ok bool) {
		if ok {
			row = append(row, parquet.Int64Value(int64(n)).Level(0, 1, col))
		} else {
			row = append(row, parquet.NullValue().Level(0, 0, col))
		}
		col++
	}
	if st == nil {
		for range joinColumns {
			row = append(row, parquet.NullValue().Level(0, 0, col))
			col++
		}
		return row
	}
	num(seq, true)
	str(st.Name, st.Kind == StepCall)
	str(st.CallID, st.CallID != "")
	str(argsErr, argsErr != "")
	str(st.Source.File, st.Source.File != "")
	num(st.Source.Line, st.Source.Line > 0)
	str(st.Source.TraceID, st.Source.TraceID != "")
	str(st.Source.SpanID, st.Source.SpanID != "")
	num(st.Source.MessageIndex, st.Source.MessageIndex >= 0)
	return row
}

// countUnmatched counts the conversations no gold dialog asked for.
func (j *Joiner) countUnmatched() error {
	return j.store.Each(func(c Conversation, used bool) error {
		if !used {
			j.stats.Unmatched++
			if len(j.stats.UnmatchedIDs) < 10 {
				j.stats.UnmatchedIDs = append(j.stats.UnmatchedIDs, fmt.Sprintf("%s (%s)", c.ID, where(c.Source)))
			}
		}
		return nil
	})
}
