package metrics

import (
	"errors"
	"strings"
	"testing"
)

// TestGoValues: batch or library users may build Args from Go values.
func TestGoValues(t *testing.T) {
	for _, tc := range []struct {
		gold, pred any
		want       bool
	}{
		{int64(3), 3.0, true}, {uint8(3), "3", true}, {float32(0.5), 0.5, true}, {3, 4, false},
		{"true", true, true}, {true, 1, false}, {[]any{1}, []any{int32(1)}, true},
	} {
		c := testComparer(Thresholds{Threshold: 0.5}, pairScores(nil).sim)
		if err := c.value("p", param{path: "p"}, tc.gold, tc.pred, false); err != nil || c.allPass() != tc.want {
			t.Errorf("%#v vs %#v: pass %v, want %v (%v)", tc.gold, tc.pred, c.allPass(), tc.want, err)
		}
	}
	if numbersClose(1, 2, 1e300) != true || numbersClose(1, inf(), 1e9) || numbersClose(inf(), inf(), 0) != true {
		t.Error("numbersClose edge cases")
	}
}

func inf() float64  { return 1 / zero() }
func zero() float64 { return 0 }

func TestChainBucket(t *testing.T) {
	for n, want := range map[int]string{0: "", 1: BucketSingle, 2: BucketTwoStep, 3: BucketThreePlus, 9: BucketThreePlus} {
		if got := ChainBucket(n); got != want {
			t.Errorf("ChainBucket(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMissingClauseSimilarity(t *testing.T) {
	long := strings.Repeat("word ", 40) + "end."
	d := oneTurn(t, `{"turn_no":3,"turn":"Agent","gold_turn":{"response":"Alpha. Beta."},"predict_turn":{"response":"`+long+`"}}`)
	sims := pairScores{{"Alpha. Beta.", long}: 0.2}.similarities([]Comparison{{Kind: CompareReply, Field: "response", Gold: "Alpha. Beta.", Predicted: long}})
	_, err := Default().Decide(d, sims, "s")
	if !errors.Is(err, ErrMissingSimilarity) || !strings.Contains(err.Error(), "turn 3: response.clause[0]") || !strings.Contains(err.Error(), "...") {
		t.Fatalf("got %v", err)
	}
}

func TestQualityScale(t *testing.T) {
	for _, n := range []int64{1, 10, 1000, 100000} {
		q := qualityScale(n)
		if q < 1 || float64(n)*float64(n+1)*float64(n+1)*float64(q+1) > 1e17 && q > 1 {
			t.Errorf("qualityScale(%d) = %d", n, q)
		}
	}
	if qualityScale(10) != 1_000_000 {
		t.Error("small blocks should keep full resolution")
	}
}

func TestSpecErrorMessage(t *testing.T) {
	e := &SpecError{DialogID: "d1", TurnNo: 4, Field: "city", Problem: "$any must list at least one alternative"}
	want := `dialog "d1" turn 4: gold args field "city": $any must list at least one alternative`
	if !strings.HasPrefix(e.Error(), want) || !errors.Is(e, ErrBadSpec) {
		t.Errorf("got %q", e.Error())
	}
}

func TestReasonThresholdBound(t *testing.T) {
	bound := map[Reason]bool{ReasonInconsistentValues: true, ReasonIncompleteResponse: true, ReasonInconsistentResponse: true}
	for _, r := range Reasons() {
		if got := r.ThresholdBound(); got != bound[r] {
			t.Errorf("%s.ThresholdBound() = %v, want %v", r, got, bound[r])
		}
	}
}
