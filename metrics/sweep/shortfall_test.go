package sweep

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestShortfall(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	ci := func(lo, hi float64) *Estimate { return &Estimate{Value: lo, Low: f(lo), High: f(hi)} }
	tests := []struct {
		name               string
		pass, fail         int
		threshold          *Estimate
		none               bool
		morePass, moreFail int
		reason             string
	}{
		{name: "enough of both, narrow", pass: 40, fail: 35, threshold: ci(0.50, 0.58), none: true},
		{name: "enough, no interval", pass: 30, fail: 30, threshold: &Estimate{Value: 0.5}, none: true},
		{name: "the issue's 8 labels", pass: 6, fail: 2, threshold: ci(0.429, 0.625),
			// (0.196/0.1)^2 = 3.84: 6 -> 24 is under 30, so 30 of each.
			morePass: 24, moreFail: 28, reason: "6 pass and 2 fail labels, fewer than the 30"},
		{name: "one class short, no interval", pass: 50, fail: 12, threshold: &Estimate{Value: 0.5},
			morePass: 0, moreFail: 18, reason: "50 pass and 12 fail labels"},
		{name: "enough, too wide", pass: 40, fail: 60, threshold: ci(0.40, 0.55),
			// (0.15/0.1)^2 = 2.25: 40 -> 90, 60 -> 135.
			morePass: 50, moreFail: 75, reason: "is 0.150 wide, more than 0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := shortfall(LabelCounts{Positive: tt.pass, Negative: tt.fail}, tt.threshold, 0.95)
			if tt.none {
				if s != nil {
					t.Fatalf("shortfall = %+v, want none", s)
				}
				return
			}
			if s == nil {
				t.Fatal("no shortfall")
			}
			if s.MorePass != tt.morePass || s.MoreFail != tt.moreFail {
				t.Errorf("more pass %d, fail %d; want %d, %d", s.MorePass, s.MoreFail, tt.morePass, tt.moreFail)
			}
			msg := s.Error(tt.threshold.Value).Error()
			if !strings.Contains(msg, tt.reason) || !errors.Is(s.Error(0.5), ErrFewLabels) {
				t.Errorf("message %q lacks %q", msg, tt.reason)
			}
			if tt.moreFail > 0 && !strings.Contains(msg, "more fail") || tt.moreFail == 0 && strings.Contains(msg, "more fail") {
				t.Errorf("message %q: the fail labels wanted are %d", msg, tt.moreFail)
			}
		})
	}
}

// TestFewLabelsCalibrate: Calibrate sets Shortfall on a handful of
// labels, and not on a few hundred that separate well.
func TestFewLabelsCalibrate(t *testing.T) {
	many, err := Calibrate(context.Background(), Input{Samples: synth(1, 120)}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if many.Shortfall != nil || many.FewLabels() != nil {
		t.Errorf("%d labels: shortfall %+v", many.Labels.Binary, many.Shortfall)
	}
	res, err := Calibrate(context.Background(), Input{Samples: synth(1, 12)}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if err := res.FewLabels(); !errors.Is(err, ErrFewLabels) || res.Shortfall.MorePass == 0 || res.Shortfall.MoreFail == 0 {
		t.Errorf("%d labels: FewLabels() = %v, shortfall %+v", res.Labels.Binary, err, res.Shortfall)
	}
}

// TestWeakAdviceFit: the advice of a weak fit suggests --fit only when the
// composite was not fitted already.
func TestWeakAdviceFit(t *testing.T) {
	for _, by := range []string{ScoredByCosine, ScoredByComposite} {
		r := &Result{Warning: weakPrefix + "held-out MCC 0.000", ScoredBy: by}
		if got := strings.Contains(r.Weak().Error(), "--fit"); got != (by == ScoredByCosine) {
			t.Errorf("scored by %s: advice %q", by, r.Weak())
		}
	}
}
