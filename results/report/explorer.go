package report

import (
	"container/heap"
	"slices"
	"unicode/utf8"

	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/rundir"
)

// explorerAcc picks the explorer's dialogs while the rows stream by: a
// bounded heap of the worst, the named ones, and the first examples of
// each root-cause class (bounded too; which classes are listed is known
// only at the end).
type explorerAcc struct {
	opts     Options
	seq      int
	worst    worstHeap
	named    map[string]bool
	found    map[string]bool
	picked   []*Dialog // named, in input order
	examples map[dkey]*Dialog
}

func newExplorerAcc(opts Options) explorerAcc {
	a := explorerAcc{opts: opts, named: map[string]bool{}, found: map[string]bool{}, examples: map[dkey]*Dialog{}}
	for _, id := range opts.Dialogs {
		a.named[id] = true
	}
	return a
}

// ranked is a dialog with what orders it among the worst.
type ranked struct {
	d     *Dialog
	seq   int
	roots int64
}

// worse reports whether a belongs before b: lower score, then more root
// causes, then earlier in the input.
func worse(a, b ranked) bool {
	if a.d.Score != b.d.Score {
		return a.d.Score < b.d.Score
	}
	if a.roots != b.roots {
		return a.roots > b.roots
	}
	return a.seq < b.seq
}

// worstHeap keeps the least bad of the kept dialogs on top.
type worstHeap []ranked

func (h worstHeap) Len() int           { return len(h) }
func (h worstHeap) Less(i, j int) bool { return worse(h[j], h[i]) }
func (h worstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstHeap) Push(x any)        { *h = append(*h, x.(ranked)) }
func (h *worstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// dialog considers one dialog; classes are the root-cause classes it has
// (causeAcc.classesOf), for which it may be kept as an example.
func (a *explorerAcc) dialog(d *rundir.DialogRow, turns []rundir.TurnRow, causes *causeAcc) {
	a.seq++
	var detail *Dialog
	get := func() *Dialog {
		if detail == nil {
			detail = a.detail(d, turns)
		}
		return detail
	}
	r := ranked{seq: a.seq, roots: d.RootCauseCount}
	probe := Dialog{Score: d.Score}
	r.d = &probe
	if len(a.worst) < a.opts.Worst || worse(r, a.worst[0]) {
		r.d = get()
		heap.Push(&a.worst, r)
		if len(a.worst) > a.opts.Worst {
			heap.Pop(&a.worst)
		}
	}
	if a.named[d.DialogID] {
		a.found[d.DialogID] = true
		get().Named = true
		a.picked = append(a.picked, get())
	}
	k := keyOf(d.DialogID, d.Trial)
	for _, c := range causes.classesOf {
		root := int64(0)
		for i := range turns {
			if t := &turns[i]; !t.Pass && t.RootCause && classOf(t) == c {
				root = t.TurnNo
				break
			}
		}
		if causes.addExample(c, Ref{DialogID: d.DialogID, Trial: d.Trial, TurnNo: root}, a.opts.Examples) && len(a.examples) < maxExampleDialogs {
			a.examples[k] = get()
		}
	}
}

// result is the explorer: the worst dialogs (worst first), then the named
// ones, then the examples of the listed classes; each once. missing lists
// the named dialogs the run lacks.
func (a *explorerAcc) result(causes []Cause) (out []Dialog, missing []string) {
	w := slices.Clone(a.worst)
	slices.SortFunc(w, func(x, y ranked) int {
		if worse(x, y) {
			return -1
		}
		return 1
	})
	seen := map[dkey]bool{}
	add := func(d *Dialog) {
		if k := keyOf(d.DialogID, d.Trial); !seen[k] {
			seen[k] = true
			out = append(out, *d)
		}
	}
	selected := a.seq > a.opts.Worst // not every dialog made the list
	for _, r := range w {
		r.d.Worst = selected && !r.d.TestPass
		add(r.d)
	}
	for _, d := range a.picked {
		add(d)
	}
	for _, c := range causes {
		for _, ex := range c.Examples {
			if d := a.examples[keyOf(ex.DialogID, ex.Trial)]; d != nil {
				add(d)
			}
		}
	}
	for _, id := range a.opts.Dialogs {
		if !a.found[id] {
			missing = append(missing, id)
		}
	}
	return out, missing
}

// detail converts a dialog's rows for the explorer, texts shortened.
func (a *explorerAcc) detail(d *rundir.DialogRow, turns []rundir.TurnRow) *Dialog {
	out := &Dialog{
		DialogID: d.DialogID, Trial: d.Trial, Score: d.Score, TestPass: d.TestPass, Reason: d.Reason,
		RootCauseCount: d.RootCauseCount, CascadingCount: d.CascadingCount, LatencyMS: d.LatencyMS, TaskTrials: d.TaskTrials,
	}
	if d.RootCause != nil {
		out.RootCause = *d.RootCause
	}
	if n := len(d.TaskPassHatK); n > 0 {
		v := d.TaskPassHatK[n-1]
		out.TaskPassHatK = &v
	}
	for i := range turns {
		if i >= a.opts.MaxTurns {
			out.More = len(turns) - i
			break
		}
		out.Turns = append(out.Turns, a.turn(&turns[i]))
	}
	return out
}

func (a *explorerAcc) turn(t *rundir.TurnRow) Turn {
	u := Turn{
		TurnNo: t.TurnNo, PredictTurnNo: t.PredictTurnNo, Role: t.Role, Kind: t.Kind, Pass: t.Pass,
		RootCause: t.RootCause, CascadeFrom: t.CascadeFrom, FailedChecks: t.FailedChecks,
		Missing: t.MissingKeys, Extra: t.ExtraKeys, LatencyMS: t.LatencyMS, HumanLabel: t.HumanLabel,
		GoldTool: toolOf(t.GoldToolID, t.GoldAction, ""), PredictTool: toolOf(t.PredictToolID, t.PredictAction, ""),
	}
	if t.FailureReason != nil {
		u.Reason = *t.FailureReason
	}
	if t.OwnReason != nil {
		u.OwnReason = *t.OwnReason
	}
	gold, pred := t.GoldArgs, t.PredictArgs
	if t.Kind != "action" {
		gold, pred = t.GoldResponse, t.PredictResponse
	}
	u.Gold, u.Predict = a.text(gold), a.text(pred)
	for _, fs := range t.FieldScores {
		if fs.Pass && (!fs.ScorerDecided() || fs.Score-fs.Threshold >= clearMargin) {
			u.Matched++
			continue
		}
		f := Field{Field: fs.Field, Method: fs.Method, Score: fs.Score, Threshold: fs.Threshold, From: fs.ThresholdFrom, Pass: fs.Pass}
		if fs.Kind != nil {
			f.Kind = *fs.Kind
		}
		if fs.By != nil {
			f.By = *fs.By
		}
		if fs.Kind != nil {
			f.ValueKind = *fs.Kind
		}
		if fs.JudgeReason != nil {
			f.JudgeReason = a.text(fs.JudgeReason)
		}
		u.Fields = append(u.Fields, f)
	}
	for _, c := range t.Clauses {
		if !c.Required {
			u.Unrequired++
			continue
		}
		cl := Clause{Field: c.Field, Gold: a.text(&c.Gold), Weight: c.Weight, Covered: c.Covered, Pass: c.Pass, Method: c.Method,
			Predicted: a.text(c.PredictedText), Score: c.Score, Threshold: c.Threshold, MissingNames: c.MissingNames}
		for _, anchor := range c.MissingAnchors {
			cl.MissingAnchors = append(cl.MissingAnchors, features.Wording(c.Gold, anchor))
		}
		if c.ThresholdFrom != nil {
			cl.From = *c.ThresholdFrom
		}
		u.Clauses = append(u.Clauses, cl)
	}
	return u
}

// clearMargin is how far above its threshold a passing score is left out
// of a turn's field list (counted in Turn.Matched).
const clearMargin = 0.1

// text shortens s to MaxText characters, marking the cut.
func (a *explorerAcc) text(s *string) string {
	if s == nil {
		return ""
	}
	if utf8.RuneCountInString(*s) <= a.opts.MaxText {
		return *s
	}
	r := []rune(*s)
	return string(r[:a.opts.MaxText]) + "…"
}
