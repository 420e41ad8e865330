package report

import (
	"regexp"
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// causeKey is a class of root causes.
type causeKey struct{ reason, tool, field, kind string }

type causeAcc struct {
	classes map[causeKey]*Cause
	// classesOf holds, for the dialog just added, the classes of its
	// roots (the explorer keeps example dialogs of each).
	classesOf []causeKey
}

func newCauseAcc() causeAcc { return causeAcc{classes: map[causeKey]*Cause{}} }

// indices matches array indices in a field path, folded so that the same
// parameter in every element is one class.
var indices = regexp.MustCompile(`\[\d+\]`)

// classOf is the class of a root-cause turn: its own reason at its gold
// call (the predicted one for an unexpected turn), and the parameter for
// failures of one: the first failing value, or missing or extra key.
func classOf(t *rundir.TurnRow) causeKey {
	reason := "unknown"
	switch {
	case t.OwnReason != nil:
		reason = *t.OwnReason
	case t.FailureReason != nil:
		reason = *t.FailureReason
	}
	k := causeKey{reason: reason, kind: t.Kind}
	if t.Kind != string(metrics.KindAction) {
		return k
	}
	k.tool = toolOf(t.GoldToolID, t.GoldAction, "")
	if k.tool == "" {
		k.tool = toolOf(t.PredictToolID, t.PredictAction, "")
	}
	switch metrics.Reason(reason) {
	case metrics.ReasonMissingParameters:
		if len(t.MissingKeys) > 0 {
			k.field = t.MissingKeys[0]
		}
	case metrics.ReasonExtraParameters:
		if len(t.ExtraKeys) > 0 {
			k.field = t.ExtraKeys[0]
		}
	case metrics.ReasonInconsistentValues, metrics.ReasonInvalidType:
		for _, fs := range t.FieldScores {
			if !fs.Pass {
				k.field = fs.Field
				break
			}
		}
	}
	base := fieldBase(t.GoldToolID, t.GoldAction)
	if base == "" {
		base = fieldBase(t.PredictToolID, t.PredictAction)
	}
	k.field = indices.ReplaceAllString(strings.TrimPrefix(k.field, base+"."), "[]")
	return k
}

// dialog attributes the dialog's failed turns: each root to its class,
// each cascade to the class of the root it inherits from.
func (a *causeAcc) dialog(turns []rundir.TurnRow) {
	a.classesOf = a.classesOf[:0]
	roots := map[int64]causeKey{} // by turn_no, for cascade_from
	perDialog := map[causeKey]int{}
	failed := 0
	for i := range turns {
		t := &turns[i]
		if t.Pass {
			continue
		}
		failed++
		if !t.RootCause {
			continue
		}
		k := classOf(t)
		if _, dup := roots[t.TurnNo]; !dup {
			roots[t.TurnNo] = k
		}
		c := a.classes[k]
		if c == nil {
			c = &Cause{Reason: k.reason, Tool: k.tool, Field: k.field, Kind: k.kind}
			a.classes[k] = c
		}
		c.Roots++
		c.Explained++
		if perDialog[k] == 0 {
			a.classesOf = append(a.classesOf, k)
			c.Dialogs++
		}
		perDialog[k]++
	}
	if len(perDialog) == 0 {
		return
	}
	for i := range turns {
		t := &turns[i]
		if t.Pass || t.RootCause {
			continue
		}
		if k, ok := rootOf(t, turns, roots); ok {
			c := a.classes[k]
			c.Cascades++
			c.Explained++
			perDialog[k]++
		}
	}
	for k, n := range perDialog {
		if n == failed {
			a.classes[k].Sole++
		}
	}
}

// rootOf finds the class of the root a cascade inherits from, following
// cascade_from through cascades.
func rootOf(t *rundir.TurnRow, turns []rundir.TurnRow, roots map[int64]causeKey) (causeKey, bool) {
	for hops := 0; t.CascadeFrom != nil && hops < len(turns); hops++ {
		if k, ok := roots[*t.CascadeFrom]; ok {
			return k, true
		}
		from := *t.CascadeFrom
		i := slices.IndexFunc(turns, func(u rundir.TurnRow) bool { return u.TurnNo == from })
		if i < 0 {
			break
		}
		t = &turns[i]
	}
	return causeKey{}, false
}

// addExample records a dialog as an example of class k.
func (a *causeAcc) addExample(k causeKey, r Ref, max int) bool {
	c := a.classes[k]
	if len(c.Examples) >= max {
		return false
	}
	c.Examples = append(c.Examples, r)
	return true
}

// ranked returns the first n classes, most failures explained first, and
// the number of classes.
func (a *causeAcc) ranked(n int) ([]Cause, int) {
	out := make([]Cause, 0, len(a.classes))
	for _, c := range a.classes {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(x, y Cause) int {
		if x.Explained != y.Explained {
			return y.Explained - x.Explained
		}
		if x.Dialogs != y.Dialogs {
			return y.Dialogs - x.Dialogs
		}
		return strings.Compare(x.Reason+"\x00"+x.Tool+"\x00"+x.Field, y.Reason+"\x00"+y.Tool+"\x00"+y.Field)
	})
	return out[:min(n, len(out))], len(out)
}
