package compare

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"testing/quick"

	"github.com/aem-dev/aem/metrics"
)

func testOptions() Options {
	o := DefaultOptions()
	o.Bootstrap = 500
	o.Permutations = 1000
	return o
}

// noisyBase fails turn 4 (values) in every fifth dialog.
func noisyBase(d int, t TurnVerdict) TurnVerdict {
	if d%5 == 0 && t.TurnNo == 4 {
		return fail(t, metrics.ReasonInconsistentValues, 0)
	}
	return t
}

func statByName(t *testing.T, c *Comparison, name string) Stat {
	t.Helper()
	for _, s := range c.AllStats() {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("no stat %s", name)
	return Stat{}
}

func TestKnownRegression(t *testing.T) {
	base := build("v1", 200, noisyBase)
	// The candidate picks the wrong tool at turn 2 in 40 dialogs; turns 3-5
	// fail as its cascades.
	cand := build("v2", 200, func(d int, t TurnVerdict) TurnVerdict {
		t = noisyBase(d, t)
		if d%5 == 1 {
			return cascadeFrom2(t, metrics.ReasonToolMismatch)
		}
		return t
	})
	c, err := Compare(context.Background(), base, cand, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.Overall.Verdict != VerdictRegressed || !c.Overall.GateFailed || !c.Gate.Failed {
		t.Errorf("overall: %+v", c.Overall)
	}
	if c.Overall.Worse != 160 || c.Overall.Better != 0 {
		t.Errorf("discordant = %d/%d, want 160/0", c.Overall.Worse, c.Overall.Better)
	}
	if got := c.Changes; got.Regressed != 160 || got.RegressedRootCauses != 40 || got.RegressedCascades != 120 || got.Fixed != 0 {
		t.Errorf("changes = %+v, want 160 regressed: 40 root causes, 120 cascades", got)
	}
	if want := []ReasonCount{
		{Reason: "tool_mismatch", Total: 40, RootCause: 40},
		{Reason: "prior_action_failed", Total: 120, Cascade: 120},
	}; !reflect.DeepEqual(c.Changes.RegressedByReason, want) {
		t.Errorf("regressed by reason = %+v", c.Changes.RegressedByReason)
	}
	// Root causes first, then in key order.
	for i, tc := range c.Regressed {
		if (i < 40) != tc.RootCause {
			t.Fatalf("regressed[%d] root cause = %v; root causes must come first", i, tc.RootCause)
		}
	}
	first := c.Regressed[0]
	if first.DialogID != "d0001" || first.TurnNo != 2 || first.Reason != "tool_mismatch" || first.BasePredicted == first.CandidatePredicted || len(first.CandidateFieldScores) == 0 {
		t.Errorf("first regression = %+v", first)
	}
	if c.Regressed[40].CascadeFrom != 2 || c.Regressed[40].Reason != "prior_action_failed" {
		t.Errorf("first cascade = %+v", c.Regressed[40])
	}
	// Root-cause-free correctness moves by one turn per dialog only.
	if got := c.RootCauseFree.Diff; got > -0.039 || got < -0.041 {
		t.Errorf("root_cause_free diff = %v, want -0.04", got)
	}
	if s := statByName(t, c, "sub_metric:structure.action"); s.Verdict != VerdictRegressed || !s.GateFailed {
		t.Errorf("structure: %+v", s)
	}
	if s := statByName(t, c, "chain_bucket:two_step"); s.Verdict != VerdictRegressed {
		t.Errorf("two_step: %+v", s)
	}
	if s := statByName(t, c, "chain_bucket:single"); s.Verdict != VerdictRegressed {
		t.Errorf("single (cascades at turn 4): %+v", s)
	}
	if s := statByName(t, c, "tool:sales.step2"); s.Verdict != VerdictRegressed || s.Base != 1 || s.Candidate != 0.8 {
		t.Errorf("tool sales.step2: %+v", s)
	}
	if s := statByName(t, c, "tool:sales.step1"); s.Verdict != VerdictNoChange || s.Diff != 0 || s.P != 1 {
		t.Errorf("tool sales.step1: %+v", s)
	}
	if s := statByName(t, c, "failure_reason:tool_mismatch"); s.Verdict != VerdictRegressed || s.HigherIsBetter || s.Diff <= 0 {
		t.Errorf("tool_mismatch rate: %+v", s)
	}
	if s := statByName(t, c, "failure_reason:inconsistent_parameter_values"); s.Verdict != VerdictNoChange {
		t.Errorf("values rate unchanged: %+v", s)
	}
	if len(c.FlippedDialogs) != 40 || c.FlippedDialogs[0].Direction != "regressed" || c.FlippedDialogs[0].CandidateFirstFailure != 2 {
		t.Errorf("flipped dialogs: %d, first %+v", len(c.FlippedDialogs), c.FlippedDialogs)
	}
	if c.DialogPass == nil || c.DialogPass.Verdict != VerdictRegressed || c.DialogPass.Worse != 40 {
		t.Errorf("dialog pass: %+v", c.DialogPass)
	}
	if !c.ReasonShift.Significant {
		t.Errorf("failure-reason shift not significant: %+v", c.ReasonShift)
	}
	if len(c.Added) != 0 || len(c.Removed) != 0 || c.PairedTurns != 1000 || c.PairedDialogs != 200 {
		t.Errorf("pairing: paired %d/%d added %v removed %v", c.PairedTurns, c.PairedDialogs, c.Added, c.Removed)
	}
}

func TestKnownImprovement(t *testing.T) {
	worse := func(d int, t TurnVerdict) TurnVerdict {
		t = noisyBase(d, t)
		if d%5 == 1 {
			return cascadeFrom2(t, metrics.ReasonToolMismatch)
		}
		return t
	}
	c, err := Compare(context.Background(), build("v1", 200, worse), build("v2", 200, noisyBase), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.Overall.Verdict != VerdictImproved || c.Gate.Failed || len(c.Gate.Failures) != 0 {
		t.Errorf("overall %+v gate %+v", c.Overall, c.Gate)
	}
	if c.Changes.Fixed != 160 || c.Changes.FixedRootCauses != 40 || c.Changes.Regressed != 0 {
		t.Errorf("changes %+v", c.Changes)
	}
	if s := statByName(t, c, "failure_reason:tool_mismatch"); s.Verdict != VerdictImproved {
		t.Errorf("tool_mismatch: %+v", s)
	}
	if len(c.FlippedDialogs) != 40 || c.FlippedDialogs[0].Direction != "fixed" {
		t.Errorf("flips %+v", c.FlippedDialogs[:1])
	}
}

// TestPureNoise: the candidate differs from the base only by random
// symmetric flips of single turns, with the same failure reasons.
func TestPureNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	flipB, flipC := map[[2]int]bool{}, map[[2]int]bool{}
	alwaysFails := func(k [2]int) bool { return k[0]%7 == 0 && k[1] == 5 }
	for len(flipB) < 25 {
		if k := [2]int{rng.IntN(300), 1 + rng.IntN(turnsPerDialog)}; !alwaysFails(k) {
			flipB[k] = true
		}
	}
	for len(flipC) < 25 {
		k := [2]int{rng.IntN(300), 1 + rng.IntN(turnsPerDialog)}
		if !flipB[k] && !alwaysFails(k) {
			flipC[k] = true
		}
	}
	reason := func(t TurnVerdict) metrics.Reason {
		if t.Kind == metrics.KindAction {
			return metrics.ReasonInconsistentValues
		}
		return metrics.ReasonInconsistentResponse
	}
	mk := func(name string, flips map[[2]int]bool) Run {
		return build(name, 300, func(d int, t TurnVerdict) TurnVerdict {
			if flips[[2]int{d, t.TurnNo}] || (d%7 == 0 && t.TurnNo == 5) {
				return fail(t, reason(t), 0)
			}
			return t
		})
	}
	c, err := Compare(context.Background(), mk("v1", flipB), mk("v2", flipC), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.Overall.Worse != 25 || c.Overall.Better != 25 || c.Overall.P != 1 || c.Overall.Diff != 0 {
		t.Errorf("overall %+v", c.Overall)
	}
	if c.Gate.Failed {
		t.Errorf("noise fails the gate: %+v", c.Gate.Failures)
	}
	for _, s := range c.AllStats() {
		if s.Verdict != VerdictNoChange {
			t.Errorf("%s: verdict %s on pure noise (%+v)", s.Name(), s.Verdict, s)
		}
		if s.Units > 0 && (s.CI.Lo > s.Diff || s.CI.Hi < s.Diff) {
			t.Errorf("%s: CI [%v,%v] does not contain the observed diff %v", s.Name(), s.CI.Lo, s.CI.Hi, s.Diff)
		}
	}
	if c.ReasonShift.Significant {
		t.Errorf("shift on noise: %+v", c.ReasonShift)
	}
	if c.Changes.Regressed != 25 || c.Changes.Fixed != 25 {
		t.Errorf("changes %+v", c.Changes)
	}
}

// A sub-metric can regress while overall correctness does not move: the
// gate fails on it.
func TestGateOnSubMetric(t *testing.T) {
	base := build("v1", 200, func(d int, t TurnVerdict) TurnVerdict {
		if d%4 == 0 && t.TurnNo == 1 {
			return fail(t, metrics.ReasonMissingParameters, 0)
		}
		return t
	})
	cand := build("v2", 200, func(d int, t TurnVerdict) TurnVerdict {
		if d%4 == 0 && t.TurnNo == 1 {
			return fail(t, metrics.ReasonInconsistentValues, 0)
		}
		return t
	})
	c, err := Compare(context.Background(), base, cand, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.Overall.Diff != 0 || c.Overall.Verdict != VerdictNoChange {
		t.Errorf("overall %+v", c.Overall)
	}
	tr := statByName(t, c, "sub_metric:truthfulness.action")
	co := statByName(t, c, "sub_metric:completeness.action")
	if tr.Verdict != VerdictRegressed || !tr.GateFailed || co.Verdict != VerdictImproved {
		t.Errorf("truthfulness %+v\ncompleteness %+v", tr, co)
	}
	if !c.Gate.Failed || len(c.Gate.Failures) != 1 || c.Gate.Failures[0].Metric != "sub_metric:truthfulness.action" {
		t.Errorf("gate %+v", c.Gate)
	}
}

// TestGateMargin: a significant but small drop fails with margin 0 and
// passes when it is within the margin.
func TestGateMargin(t *testing.T) {
	base := build("v1", 400, nil)
	cand := build("v2", 400, func(d int, t TurnVerdict) TurnVerdict {
		if d%20 == 0 && t.TurnNo == 5 { // 20 of 2000 turns: -1 point
			return fail(t, metrics.ReasonInconsistentResponse, 0)
		}
		return t
	})
	// Overall drops 1 point (CI upper end about -0.6), truthfulness of
	// replies 2.5 points (20 of 800).
	tests := []struct {
		margin float64
		fails  []string
	}{
		{0, []string{"overall:correctness", "sub_metric:truthfulness.response"}},
		{0.002, []string{"overall:correctness", "sub_metric:truthfulness.response"}},
		{0.01, []string{"sub_metric:truthfulness.response"}},
		{0.05, nil},
	}
	for _, tt := range tests {
		o := testOptions()
		o.Margin = tt.margin
		c, err := Compare(context.Background(), base, cand, o)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range c.Gate.Failures {
			got = append(got, f.Metric)
		}
		if c.Gate.Failed != (len(tt.fails) > 0) || !slices.Equal(got, tt.fails) {
			t.Errorf("margin %v: gate failed = %v on %v, want %v (overall %+v)", tt.margin, c.Gate.Failed, got, tt.fails, c.Overall)
		}
	}
	// A stricter alpha makes a borderline drop pass: 6 of 6 discordant
	// turns give p = 0.03125 (Holm-adjusted at least that).
	cand = build("v2", 400, func(d int, t TurnVerdict) TurnVerdict {
		if d < 6 && t.TurnNo == 5 {
			return fail(t, metrics.ReasonInconsistentResponse, 0)
		}
		return t
	})
	o := testOptions()
	c, err := Compare(context.Background(), base, cand, o)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Overall.P-0.03125) > 1e-12 {
		t.Errorf("p = %v, want 0.03125", c.Overall.P)
	}
	o.Alpha = 0.01
	c2, err := Compare(context.Background(), base, cand, o)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Gate.Failed {
		t.Errorf("alpha 0.01: gate failed on p = %v", c2.Overall.P)
	}
}

func TestAddedRemovedTurns(t *testing.T) {
	base := build("v1", 20, nil)
	cand := build("v2", 20, nil)
	// Candidate loses dialog 3 turn 5 and all of dialog 7, and gains a turn 6 in dialog 2.
	cand.Turns = slices.DeleteFunc(cand.Turns, func(t TurnVerdict) bool {
		return (t.DialogID == "d0003" && t.TurnNo == 5) || t.DialogID == "d0007"
	})
	cand.Dialogs = slices.DeleteFunc(cand.Dialogs, func(d Dialog) bool { return d.ID == "d0007" })
	extra := passTurn(2, 5)
	extra.TurnNo = 6
	cand.Turns = append(cand.Turns, extra)
	cand.Dialogs = append(cand.Dialogs, Dialog{ID: "d0099", TestPass: true, Score: 1})
	c, err := Compare(context.Background(), base, cand, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := []Key{{DialogID: "d0002", TurnNo: 6}}; !reflect.DeepEqual(c.Added, want) {
		t.Errorf("added %v", c.Added)
	}
	if len(c.Removed) != 6 || !c.Removed[0].Equal(Key{DialogID: "d0003", TurnNo: 5}) || !c.Removed[1].Equal(Key{DialogID: "d0007", TurnNo: 1}) {
		t.Errorf("removed %v", c.Removed)
	}
	if !slices.Equal(c.RemovedDialogs, []string{"d0007"}) || !slices.Equal(c.AddedDialogs, []string{"d0099"}) {
		t.Errorf("dialogs removed %v added %v", c.RemovedDialogs, c.AddedDialogs)
	}
	if c.PairedTurns != 100-6 || c.Overall.Verdict != VerdictNoChange {
		t.Errorf("paired %d overall %+v", c.PairedTurns, c.Overall)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	base := build("v1", 5, nil)
	other := build("v2", 5, nil)
	for i := range other.Turns {
		other.Turns[i].DialogID = "x" + other.Turns[i].DialogID
	}
	if _, err := Compare(ctx, base, other, testOptions()); !errors.Is(err, ErrNoOverlap) {
		t.Errorf("no overlap: err = %v", err)
	}
	dup := build("v2", 5, nil)
	dup.Turns = append(dup.Turns, dup.Turns[3])
	_, err := Compare(ctx, base, dup, testOptions())
	var de *DuplicateTurnError
	if !errors.Is(err, ErrDuplicateTurn) || !errors.As(err, &de) || de.DialogID != "d0000" || de.TurnNo != 4 || de.Run != "v2" {
		t.Errorf("duplicate: err = %v", err)
	}
	dupD := build("v2", 5, nil)
	dupD.Dialogs = append(dupD.Dialogs, dupD.Dialogs[0])
	if _, err := Compare(ctx, base, dupD, testOptions()); !errors.As(err, &de) || !de.InDialogs {
		t.Errorf("duplicate dialog: err = %v", err)
	}
	if _, err := CompareRuns(ctx, []Run{base}, testOptions()); !errors.Is(err, ErrTooFewRuns) {
		t.Errorf("one run: %v", err)
	}
	if _, err := CompareRuns(ctx, []Run{base, base}, testOptions()); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("same names: %v", err)
	}
	ctxC, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Compare(ctxC, base, build("v2", 5, nil), testOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestMismatch(t *testing.T) {
	ctx := context.Background()
	base := build("v1", 10, nil)
	cand := build("v2", 10, nil)
	cand.Identity.Scorer = "embed:use-lite@sha256:abc"
	cand.Identity.Dataset = "ds2"
	_, err := CompareRuns(ctx, []Run{base, cand}, testOptions())
	var me *MismatchError
	if !errors.Is(err, ErrMismatch) || !errors.As(err, &me) || len(me.Mismatches) != 2 {
		t.Fatalf("err = %v", err)
	}
	if me.Mismatches[0].Field != "scorer" || me.Mismatches[1].Field != "dataset" {
		t.Errorf("mismatches %+v", me.Mismatches)
	}
	o := testOptions()
	o.AllowMismatch = true
	rep, err := CompareRuns(ctx, []Run{base, cand}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Mismatches) != 2 || len(rep.Comparisons[0].Mismatches) != 2 || !rep.Options.AllowMismatch {
		t.Errorf("report mismatches %+v", rep.Mismatches)
	}
}

func TestOptionsValidate(t *testing.T) {
	bad := []func(*Options){
		func(o *Options) { o.Alpha = 0 },
		func(o *Options) { o.Alpha = 0.7 },
		func(o *Options) { o.Margin = -0.1 },
		func(o *Options) { o.Margin = 1 },
		func(o *Options) { o.Bootstrap = 10 },
		func(o *Options) { o.Permutations = 0 },
	}
	for i, f := range bad {
		o := DefaultOptions()
		f(&o)
		if err := o.Validate(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("case %d: err = %v", i, err)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Error(err)
	}
}

// TestPairSymmetric is a property test: swapping the runs swaps the roles.
func TestPairSymmetric(t *testing.T) {
	gen := func(keys []uint8) Run {
		seen := map[Key]bool{}
		r := Run{Name: "r"}
		for _, k := range keys {
			key := Key{DialogID: dialogID(int(k % 7)), TurnNo: int(k/7) + 1}
			if seen[key] {
				continue
			}
			seen[key] = true
			r.Turns = append(r.Turns, TurnVerdict{DialogID: key.DialogID, TurnNo: key.TurnNo, Pass: k%3 == 0})
		}
		return r
	}
	prop := func(a, b []uint8) bool {
		ra, rb := gen(a), gen(b)
		ab, err1 := Pair(ra, rb)
		ba, err2 := Pair(rb, ra)
		if err1 != nil || err2 != nil {
			return false
		}
		if !slices.Equal(ab.Added, ba.Removed) || !slices.Equal(ab.Removed, ba.Added) || len(ab.Paired) != len(ba.Paired) {
			return false
		}
		for i := range ab.Paired {
			if !reflect.DeepEqual(ab.Paired[i].Base, ba.Paired[i].Candidate) || !reflect.DeepEqual(ab.Paired[i].Candidate, ba.Paired[i].Base) {
				return false
			}
		}
		return len(ab.Paired)+len(ab.Removed) == len(ra.Turns) && len(ab.Paired)+len(ab.Added) == len(rb.Turns)
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 300, Rand: nil}); err != nil {
		t.Error(err)
	}
}

// TestDeterministic: same input and seed give byte-identical reports,
// whatever the order of the input turns; another seed changes the CIs.
func TestDeterministic(t *testing.T) {
	ctx := context.Background()
	base := build("v1", 60, noisyBase)
	cand := build("v2", 60, func(d int, t TurnVerdict) TurnVerdict {
		if d%3 == 0 {
			return cascadeFrom2(t, metrics.ReasonActionMismatch)
		}
		return t
	})
	enc := func(runs []Run, o Options) string {
		rep, err := CompareRuns(ctx, runs, o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := enc([]Run{base, cand}, testOptions())
	shuffled := cand
	shuffled.Turns = slices.Clone(cand.Turns)
	rand.New(rand.NewPCG(5, 5)).Shuffle(len(shuffled.Turns), func(i, j int) {
		shuffled.Turns[i], shuffled.Turns[j] = shuffled.Turns[j], shuffled.Turns[i]
	})
	if b := enc([]Run{base, shuffled}, testOptions()); a != b {
		t.Error("report depends on turn order")
	}
	o := testOptions()
	o.Seed = 99
	if b := enc([]Run{base, cand}, o); a == b {
		t.Error("seed has no effect")
	}
	prev := runtime.GOMAXPROCS(1)
	one := enc([]Run{base, cand}, testOptions())
	runtime.GOMAXPROCS(prev)
	if one != a {
		t.Error("report depends on the number of workers")
	}
}

// BenchmarkCompare compares two runs of 5000 five-turn dialogs with the
// default options (2000 bootstrap resamples, 10000 permutations).
func BenchmarkCompare(b *testing.B) {
	base := build("v1", 5000, noisyBase)
	cand := build("v2", 5000, func(d int, t TurnVerdict) TurnVerdict {
		if d%7 == 0 {
			return cascadeFrom2(t, metrics.ReasonToolMismatch)
		}
		return t
	})
	for b.Loop() {
		if _, err := CompareRuns(context.Background(), []Run{base, cand}, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCompareRunsTrend(t *testing.T) {
	ctx := context.Background()
	v1 := build("v1", 150, noisyBase)
	v2 := build("v2", 150, nil) // fixes the noise
	v3 := build("v3", 150, func(d int, t TurnVerdict) TurnVerdict {
		if d%3 == 0 {
			return cascadeFrom2(t, metrics.ReasonToolMismatch)
		}
		return t
	})
	rep, err := CompareRuns(ctx, []Run{v1, v2, v3}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 3 || len(rep.Comparisons) != 2 || rep.Base != "v1" {
		t.Fatalf("runs %d comparisons %d", len(rep.Runs), len(rep.Comparisons))
	}
	if rep.Comparisons[0].Gate.Failed || !rep.Comparisons[1].Gate.Failed || !rep.Gate.Failed {
		t.Errorf("gates: %v %v report %v", rep.Comparisons[0].Gate.Failed, rep.Comparisons[1].Gate.Failed, rep.Gate.Failed)
	}
	for _, f := range rep.Gate.Failures {
		if f.Candidate != "v3" {
			t.Errorf("gate failure for %s", f.Candidate)
		}
	}
	row := rep.Trend[0]
	if row.Metric != "overall:correctness" || len(row.Values) != 3 || row.Diffs[0] != nil || row.Verdicts[0] != "" {
		t.Fatalf("trend row %+v", row)
	}
	if *row.Values[0] != 0.96 || *row.Values[1] != 1 || math.Abs(*row.Values[2]-550.0/750) > 1e-12 {
		t.Errorf("values %v %v %v", *row.Values[0], *row.Values[1], *row.Values[2])
	}
	if row.Verdicts[1] != VerdictImproved || row.Verdicts[2] != VerdictRegressed {
		t.Errorf("verdicts %v", row.Verdicts)
	}
	names := []string{}
	for _, r := range rep.Trend {
		names = append(names, r.Metric)
	}
	want := []string{"overall:correctness", "sub_metric:structure.action", "sub_metric:completeness.action",
		"sub_metric:truthfulness.action", "sub_metric:completeness.response", "sub_metric:truthfulness.response",
		"chain_bucket:single", "chain_bucket:two_step", "dialog:test_pass"}
	if !slices.Equal(names, want) {
		t.Errorf("trend metrics %v\nwant %v", names, want)
	}
	if rs := rep.Runs[0]; rs.Turns != 750 || rs.Passed != 720 || rs.DialogsPassed != 120 ||
		!reflect.DeepEqual(rs.FailureReasons, []ReasonCount{{Reason: "inconsistent_parameter_values", Total: 30, RootCause: 30}}) {
		t.Errorf("run stats %+v", rs)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("report does not encode: %v", err)
	}
}
