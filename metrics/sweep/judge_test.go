package sweep

import (
	"context"
	"fmt"
	"math"
	"testing"
)

func TestJudgeAgreementHandComputed(t *testing.T) {
	P, F := true, false
	human := []bool{P, P, P, P, P, F, F, F, F, F}
	embed := []bool{P, P, P, F, F, P, F, F, F, F}  // TP 3, FN 2, FP 1, TN 4
	judged := []bool{P, P, P, P, F, F, F, F, F, P} // TP 4, FN 1, FP 1, TN 4
	var vs []LabelledVerdict
	for i := range human {
		first := embed[i]
		vs = append(vs, LabelledVerdict{Group: fmt.Sprintf("d%d", i/2), Ref: fmt.Sprint(i), Auto: judged[i], Human: human[i], First: &first})
	}
	vs = append(vs, LabelledVerdict{Group: "unjudged", Auto: true, Human: false}) // no first verdict: left out
	opts := quick()
	a, err := judgeAgreement(context.Background(), vs, opts)
	if err != nil {
		t.Fatal(err)
	}
	near := func(e *Estimate, want float64) bool { return e != nil && math.Abs(e.Value-want) < 1e-12 }
	j, e := a.Judged, a.Embedding
	if a.Turns != 10 || a.Changed != 3 || a.JudgeRight != 2 || a.EmbeddingRight != 1 || a.P != 1 || !near(a.Gain, 0.1) {
		t.Errorf("agreement %+v (gain %+v)", a, a.Gain)
	}
	if j.Confusion != (Counts{TP: 4, FP: 1, TN: 4, FN: 1}) || !near(j.Accuracy, 0.8) || !near(j.F1, 0.8) || !near(j.MCC, 0.6) || !near(j.Kappa, 0.6) {
		t.Errorf("judged %+v: accuracy %v f1 %v mcc %v kappa %v", j.Confusion, j.Accuracy.Value, j.F1.Value, j.MCC.Value, j.Kappa.Value)
	}
	if e.Confusion != (Counts{TP: 3, FP: 1, TN: 4, FN: 2}) || !near(e.Accuracy, 0.7) || !near(e.F1, 6.0/9) || !near(e.MCC, 10/math.Sqrt(600)) || !near(e.Kappa, 0.4) {
		t.Errorf("embedding %+v: accuracy %v f1 %v mcc %v kappa %v", e.Confusion, e.Accuracy.Value, e.F1.Value, e.MCC.Value, e.Kappa.Value)
	}
	for name, est := range map[string]*Estimate{"judged accuracy": j.Accuracy, "judged kappa": j.Kappa, "embedding mcc": e.MCC, "gain": a.Gain} {
		if est.Low == nil || est.High == nil || *est.Low > est.Value || *est.High < est.Value || est.CI == "" {
			t.Errorf("%s: interval %+v", name, est)
		}
	}
	// Deterministic: the same input gives the same figures.
	b, _ := judgeAgreement(context.Background(), vs, opts)
	if *b.Gain.Low != *a.Gain.Low || *b.Judged.MCC.High != *a.Judged.MCC.High {
		t.Error("two calls differ")
	}
	if a, err := judgeAgreement(context.Background(), vs[10:], opts); a != nil || err != nil {
		t.Errorf("an unjudged run: %+v, %v", a, err)
	}
}
