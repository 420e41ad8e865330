package compare

import (
	"fmt"

	"github.com/aem-dev/aem/metrics"
)

// Fixture runs: every dialog has five turns: 1-2 an action chain
// (two_step), 3 a reply, 4 a single action, 5 a reply.
const turnsPerDialog = 5

func dialogID(d int) string { return fmt.Sprintf("d%04d", d) }

func passTurn(d, t int) TurnVerdict {
	tr := TurnVerdict{
		DialogID: dialogID(d), TurnNo: t, Pass: true,
		Completeness: metrics.OutcomePass, Truthfulness: metrics.OutcomePass,
		Gold: fmt.Sprintf("gold %d/%d", d, t), Predicted: fmt.Sprintf("gold %d/%d", d, t),
	}
	switch t {
	case 1, 2, 4:
		tr.Kind = metrics.KindAction
		tr.Structure = metrics.OutcomePass
		tr.Tool = fmt.Sprintf("sales.step%d", t)
		tr.ChainBucket = "two_step"
		if t == 4 {
			tr.ChainBucket = "single"
		}
	default:
		tr.Kind = metrics.KindResponse
		tr.Structure = metrics.OutcomeNA
	}
	return tr
}

// fail turns tr into a failure with the given primary reason; cascadeFrom
// > 0 makes it a cascade (prior_action_failed) of that turn.
func fail(tr TurnVerdict, reason metrics.Reason, cascadeFrom int) TurnVerdict {
	tr.Pass = false
	tr.Predicted = "wrong " + tr.Predicted
	tr.FailureReason = reason
	tr.OwnReason = reason
	tr.RootCause = cascadeFrom == 0
	tr.CascadeFrom = cascadeFrom
	own := reason
	if cascadeFrom > 0 {
		tr.FailureReason = metrics.ReasonPriorActionFailed
		if tr.Kind == metrics.KindAction {
			own = metrics.ReasonInconsistentValues
		} else {
			own = metrics.ReasonInconsistentResponse
		}
		tr.OwnReason = own
	}
	switch own {
	case metrics.ReasonToolMismatch, metrics.ReasonActionMismatch:
		tr.Structure = metrics.OutcomeFail
		tr.Completeness, tr.Truthfulness = metrics.OutcomeNA, metrics.OutcomeNA
	case metrics.ReasonMissingParameters, metrics.ReasonExtraParameters, metrics.ReasonIncompleteResponse:
		tr.Completeness = metrics.OutcomeFail
	default:
		tr.Truthfulness = metrics.OutcomeFail
	}
	tr.FieldScores = []FieldScore{{Field: "x", Method: "semantic", Score: 0.2, Threshold: 0.5}}
	return tr
}

// build makes a run of n dialogs; mod may change each turn.
func build(name string, n int, mod func(d int, t TurnVerdict) TurnVerdict) Run {
	r := Run{Name: name, Identity: Identity{Dataset: "ds1", Scorer: "lexical", Thresholds: `{"threshold":0.5}`}}
	for d := range n {
		pass := true
		passed := 0
		first := 0
		var root metrics.Reason
		for t := 1; t <= turnsPerDialog; t++ {
			tr := passTurn(d, t)
			if mod != nil {
				tr = mod(d, tr)
			}
			r.Turns = append(r.Turns, tr)
			if tr.Pass {
				passed++
			} else {
				if pass {
					first, root = t, tr.FailureReason
				}
				pass = false
			}
		}
		r.Dialogs = append(r.Dialogs, Dialog{
			ID: dialogID(d), TestPass: pass, Score: float64(passed) / turnsPerDialog,
			SuccessRate: float64(passed) / turnsPerDialog, FirstFailureTurn: first, RootCause: root,
		})
	}
	return r
}

// cascadeFrom2 fails turn 2 with reason and turns 3-5 as its cascades.
func cascadeFrom2(t TurnVerdict, reason metrics.Reason) TurnVerdict {
	switch {
	case t.TurnNo == 2:
		return fail(t, reason, 0)
	case t.TurnNo > 2:
		return fail(t, reason, 2)
	}
	return t
}
