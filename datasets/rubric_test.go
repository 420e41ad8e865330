package datasets

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
)

// labelled generates dialogs with labels that follow the rubric exactly.
func labelled(t *testing.T, n int) []metrics.Dialog {
	t.Helper()
	cfg := DefaultGenConfig()
	cfg.Dialogs, cfg.Seed, cfg.LabelNoise = n, 11, 0
	return collect(cfg)
}

func sameCall(a, b metrics.Call) bool {
	return a.ToolID == b.ToolID && a.Action == b.Action && reflect.DeepEqual(a.Args, b.Args)
}

func inBlock(t metrics.Turn) string {
	for _, tag := range t.Tags {
		if strings.HasPrefix(tag, "OrderInvariant_") {
			return tag
		}
	}
	return ""
}

// TestRubricCalls: a call is correct exactly when some prediction it may
// be matched with (itself, or any call of its order-invariant block)
// performs it: identical, or with a value reworded (a listed paraphrase).
// Wrong values, cascades, keys, tools, missing and extra calls fail.
func TestRubricCalls(t *testing.T) {
	var exact, reworded, wrong, blockTurns int
	for _, d := range labelled(t, 800) {
		for i, tr := range d.Turns {
			if tr.Role != metrics.RoleTool || tr.HumanLabel == nil {
				continue
			}
			label := *tr.HumanLabel
			if !tr.HasGold || (!tr.HasPredict && inBlock(tr) == "") {
				if label {
					t.Fatalf("%s turn %d: a missing or unexpected call labelled correct", d.ID, tr.TurnNo)
				}
				continue
			}
			candidates := []metrics.Turn{tr}
			if tag := inBlock(tr); tag != "" {
				blockTurns++
				candidates = nil
				for _, o := range d.Turns {
					if inBlock(o) == tag && o.HasPredict {
						candidates = append(candidates, o)
					}
				}
			}
			performed, paraphrased := false, false
			for _, c := range candidates {
				if sameCall(tr.Gold, c.Predict) {
					performed = true
				}
				if rewordedCall(tr.Gold, c.Predict) {
					paraphrased = true
				}
			}
			switch {
			case performed && !label:
				t.Fatalf("%s turn %d: the exact call is performed but labelled wrong (block %q)", d.ID, tr.TurnNo, inBlock(tr))
			case performed:
				exact++
			case paraphrased && inBlock(tr) == "" && !label && !cascade(d.Turns[:i], tr):
				t.Fatalf("%s turn %d: %v for %v is a paraphrase but labelled wrong", d.ID, tr.TurnNo, tr.Predict.Args, tr.Gold.Args)
			case paraphrased && label:
				reworded++
			case !paraphrased && label:
				t.Fatalf("%s turn %d: %v for %v labelled correct", d.ID, tr.TurnNo, tr.Predict, tr.Gold)
			default:
				wrong++
			}
		}
	}
	if exact == 0 || reworded == 0 || wrong == 0 || blockTurns == 0 {
		t.Errorf("exact %d, reworded %d, wrong %d, block turns %d: every case should occur", exact, reworded, wrong, blockTurns)
	}
}

// rewordedCall reports a prediction that differs from gold only in
// values that are listed paraphrases of the gold value (or of the topic
// inside a formatted value, "Trip to NYC" for "Trip to New York City").
func rewordedCall(gold, pred metrics.Call) bool {
	if gold.ToolID != pred.ToolID || gold.Action != pred.Action || len(gold.Args) != len(pred.Args) {
		return false
	}
	for k, gv := range gold.Args {
		pv, ok := pred.Args[k]
		if !ok {
			return false
		}
		if m, isAny := gv.(map[string]any); isAny {
			gv = m["$any"].([]any)[0]
		}
		if reflect.DeepEqual(gv, pv) {
			continue
		}
		gs, ok1 := gv.(string)
		ps, ok2 := pv.(string)
		if !ok1 || !ok2 || !paraphraseInside(gs, ps) {
			return false
		}
	}
	return true
}

func paraphraseInside(gold, pred string) bool {
	for v, alts := range paraphrases {
		for _, a := range alts {
			if strings.Contains(gold, v) && strings.Replace(gold, v, a, 1) == pred {
				return true
			}
		}
	}
	return false
}

// cascade reports whether the call carries a wrong value of an earlier
// call of the dialog.
func cascade(before []metrics.Turn, tr metrics.Turn) bool {
	for _, b := range before {
		if b.Role == metrics.RoleTool && b.HumanLabel != nil && !*b.HumanLabel {
			return true
		}
	}
	return false
}

// TestRubricReplies: a reply labelled correct states every number, date,
// time and code of the gold reply and no other; a changed or omitted one
// fails. Filler (openers, offers of more help) may differ or be left out.
func TestRubricReplies(t *testing.T) {
	var ok, fillerOmitted, changedNumber int
	for _, d := range labelled(t, 800) {
		for _, tr := range d.Turns {
			if tr.Role != metrics.RoleAgent || tr.HumanLabel == nil {
				continue
			}
			if !tr.HasPredict {
				if *tr.HumanLabel {
					t.Fatalf("%s turn %d: a missing reply labelled correct", d.ID, tr.TurnNo)
				}
				continue
			}
			g := features.Anchors(features.Tokenize(tr.GoldResponse))
			p := features.Anchors(features.Tokenize(tr.PredictResponse))
			same := slices.Equal(g, p)
			switch {
			case *tr.HumanLabel && !same:
				t.Fatalf("%s turn %d labelled correct with other facts:\n gold %q %v\n pred %q %v", d.ID, tr.TurnNo, tr.GoldResponse, g, tr.PredictResponse, p)
			case *tr.HumanLabel:
				ok++
				for _, closer := range closers[2:] {
					if strings.HasSuffix(tr.GoldResponse, closer) && !strings.HasSuffix(tr.PredictResponse, closer) {
						fillerOmitted++
					}
				}
			case !same && len(g) == len(p):
				changedNumber++
			}
		}
	}
	if ok == 0 || fillerOmitted == 0 || changedNumber == 0 {
		t.Errorf("correct %d (filler left out %d), a number changed %d: every case should occur", ok, fillerOmitted, changedNumber)
	}
}

// TestFactWordingsAgree: both wordings of a fact state the same values, so
// rewording a reply never changes its facts.
func TestFactWordingsAgree(t *testing.T) {
	for kind, fs := range replyKinds {
		for _, f := range fs {
			a, b := placeholders(f.a), placeholders(f.b)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("kind %q: %q states %v, %q states %v", kind, f.a, a, f.b, b)
			}
		}
	}
}

func TestLabelNoise(t *testing.T) {
	cfg := DefaultGenConfig()
	cfg.Dialogs, cfg.Seed = 1000, 3
	noisy := collect(cfg)
	cfg.LabelNoise = 0
	clean := collect(cfg)
	flipped, n := 0, 0
	for i, d := range clean {
		for j, tr := range d.Turns {
			if tr.HumanLabel == nil {
				continue
			}
			n++
			if *tr.HumanLabel != *noisy[i].Turns[j].HumanLabel {
				flipped++
			}
		}
	}
	if r := float64(flipped) / float64(n); r < 0.035 || r > 0.065 {
		t.Errorf("%d of %d labels flipped (%.3f), want about 0.05", flipped, n, r)
	}
}
