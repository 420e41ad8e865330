package sweep

import (
	"context"

	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/metrics/stats"
)

// JudgeAgreement sets a judged run's verdicts beside those its first
// scorer alone would have given (the embedding's: turns.parquet's
// embed_pass), each against the human labels of the same turns. The
// figures' intervals are bootstraps by dialog; Gain is the judged
// verdicts' accuracy minus the embedding's, with its own interval, and P
// the exact McNemar test on the turns the judge changed (it treats turns
// as independent: prefer Gain's interval when dialogs are long).
type JudgeAgreement struct {
	Turns     int             `json:"turns"`
	Judged    *VerdictFigures `json:"judged"`
	Embedding *VerdictFigures `json:"embedding"`
	Gain      *Estimate       `json:"accuracy_gain"`
	// Changed is how many turns the judge's decisions changed; on
	// JudgeRight of them the judged verdict agrees with the human label, on
	// EmbeddingRight the embedding's did (they add up to Changed).
	Changed        int     `json:"changed"`
	JudgeRight     int     `json:"judge_right"`
	EmbeddingRight int     `json:"embedding_right"`
	P              float64 `json:"mcnemar_p"`
}

// VerdictFigures are one set of turn verdicts against the human labels.
type VerdictFigures struct {
	Confusion Counts    `json:"confusion"`
	Accuracy  *Estimate `json:"accuracy"`
	F1        *Estimate `json:"f1"`
	MCC       *Estimate `json:"mcc"`
	Kappa     *Estimate `json:"kappa"`
}

// judgeAgreement compares the verdicts that carry the first scorer's
// (LabelledVerdict.First); nil when none does (the run was not judged).
func judgeAgreement(ctx context.Context, vs []LabelledVerdict, opts Options) (*JudgeAgreement, error) {
	var judged, first, human []bool
	var groups []string
	a := &JudgeAgreement{}
	for _, v := range vs {
		if v.First == nil {
			continue
		}
		judged, first, human, groups = append(judged, v.Auto), append(first, *v.First), append(human, v.Human), append(groups, v.Group)
		if v.Auto != *v.First {
			a.Changed++
			if v.Auto == v.Human {
				a.JudgeRight++
			} else {
				a.EmbeddingRight++
			}
		}
	}
	if len(judged) == 0 {
		return nil, nil
	}
	a.Turns, a.P = len(judged), compare.McNemarExact(a.JudgeRight, a.EmbeddingRight)
	var err error
	if a.Judged, err = verdictFigures(ctx, judged, human, groups, opts); err != nil {
		return nil, err
	}
	if a.Embedding, err = verdictFigures(ctx, first, human, groups, opts); err != nil {
		return nil, err
	}
	gain := func(w []float64) float64 {
		j, _ := stats.ConfusionOf(judged, human, w)
		e, _ := stats.ConfusionOf(first, human, w)
		return j.Accuracy() - e.Accuracy()
	}
	a.Gain = &Estimate{Value: gain(nil)}
	if opts.Bootstrap > 0 {
		if err := bootstrapCI(ctx, a.Gain, groups, opts, gain); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// verdictFigures are auto's accuracy, F1, MCC and Cohen's kappa against
// human, with bootstrap intervals by group when opts ask for them.
func verdictFigures(ctx context.Context, auto, human []bool, groups []string, opts Options) (*VerdictFigures, error) {
	c, err := stats.ConfusionOf(auto, human, nil)
	if err != nil {
		return nil, err
	}
	f := &VerdictFigures{Confusion: countsOf(c), Accuracy: &Estimate{Value: c.Accuracy()}, F1: &Estimate{Value: c.F1()},
		MCC: &Estimate{Value: c.MCC()}, Kappa: &Estimate{Value: c.Kappa()}}
	if opts.Bootstrap == 0 {
		return f, nil
	}
	for _, fig := range []struct {
		e  *Estimate
		of func(stats.Confusion) float64
	}{{f.Accuracy, stats.Confusion.Accuracy}, {f.F1, stats.Confusion.F1}, {f.MCC, stats.Confusion.MCC}, {f.Kappa, stats.Confusion.Kappa}} {
		err := bootstrapCI(ctx, fig.e, groups, opts, func(w []float64) float64 {
			c, _ := stats.ConfusionOf(auto, human, w)
			return fig.of(c)
		})
		if err != nil {
			return nil, err
		}
	}
	return f, nil
}
