package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

const eps = 1e-9

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestConfusionFigures(t *testing.T) {
	type want struct{ p, r, f1, acc, bal, mcc, kappa, tpr, fpr, youden float64 }
	cases := []struct {
		name string
		c    Confusion
		w    want
	}{
		{"mixed", Confusion{TP: 3, FP: 1, TN: 4, FN: 2},
			want{0.75, 0.6, 6.0 / 9, 0.7, 0.7, 10 / math.Sqrt(600), 0.4, 0.6, 0.2, 0.4}},
		{"perfect", Confusion{TP: 2, TN: 3},
			want{1, 1, 1, 1, 1, 1, 1, 1, 0, 1}},
		{"inverted", Confusion{FP: 3, FN: 2},
			want{0, 0, 0, 0, 0, -1, 1 - 1/(1-0.48), 0, 1, -1}},
		{"all one class predicted right", Confusion{TP: 5},
			want{1, 1, 1, 1, 1, 0, 0, 1, 0, 1}},
		{"empty", Confusion{},
			want{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		// po = 0.5, pe = (6*5+4*5)/100 = 0.5, so kappa = 0; TP*TN = FP*FN, so mcc = 0.
		{"chance", Confusion{TP: 3, FP: 3, TN: 2, FN: 2},
			want{0.5, 0.6, 6.0 / 11, 0.5, (0.6 + 0.4) / 2, (6 - 6) / math.Sqrt(6*5*5*4), 0, 0.6, 0.6, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			got := want{c.Precision(), c.Recall(), c.F1(), c.Accuracy(), c.BalancedAccuracy(), c.MCC(), c.Kappa(), c.TPR(), c.FPR(), c.Youden()}
			g := []float64{got.p, got.r, got.f1, got.acc, got.bal, got.mcc, got.kappa, got.tpr, got.fpr, got.youden}
			w := []float64{tc.w.p, tc.w.r, tc.w.f1, tc.w.acc, tc.w.bal, tc.w.mcc, tc.w.kappa, tc.w.tpr, tc.w.fpr, tc.w.youden}
			names := []string{"precision", "recall", "f1", "accuracy", "balanced", "mcc", "kappa", "tpr", "fpr", "youden"}
			for i := range g {
				if !near(g[i], w[i], eps) {
					t.Errorf("%s = %v, want %v", names[i], g[i], w[i])
				}
			}
		})
	}
}

func TestConfusionAt(t *testing.T) {
	c, err := ConfusionAt([]float64{0.9, 0.5, 0.5, 0.1}, []bool{true, true, false, false}, nil, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if c != (Confusion{TP: 2, FP: 1, TN: 1}) {
		t.Errorf("got %+v (score equal to the threshold must pass)", c)
	}
	c, _ = ConfusionAt([]float64{0.9, 0.1}, []bool{true, false}, []float64{2, 3}, 0.5)
	if c != (Confusion{TP: 2, TN: 3}) {
		t.Errorf("weighted: got %+v", c)
	}
	if _, err := ConfusionAt([]float64{1}, nil, nil, 0); !errors.Is(err, ErrLength) {
		t.Errorf("length mismatch: err = %v", err)
	}
}

func TestSweepHandComputed(t *testing.T) {
	scores := []float64{0.8, 0.1, 0.9, 0.3, 0.8}
	labels := []bool{true, false, true, false, false}
	pts, err := Sweep(scores, labels)
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{
		{0.1, Confusion{TP: 2, FP: 3}},
		{0.2, Confusion{TP: 2, FP: 2, TN: 1}},
		{0.55, Confusion{TP: 2, FP: 1, TN: 2}},
		{0.85, Confusion{TP: 1, TN: 3, FN: 1}},
		{math.Nextafter(0.9, 2), Confusion{TN: 3, FN: 2}},
	}
	if len(pts) != len(want) {
		t.Fatalf("got %d points, want %d: %+v", len(pts), len(want), pts)
	}
	for i := range want {
		if !near(pts[i].Threshold, want[i].Threshold, 1e-12) || pts[i].Confusion != want[i].Confusion {
			t.Errorf("point %d = %+v, want %+v", i, pts[i], want[i])
		}
	}
	auc, err := AUC(pts)
	if err != nil || !near(auc, 5.5/6, eps) {
		t.Errorf("AUC = %v, %v; want 5.5/6 (one tied pair counts half)", auc, err)
	}
	ap, err := AveragePrecision(pts)
	if err != nil || !near(ap, 0.5+0.5*2.0/3, eps) {
		t.Errorf("AP = %v, %v; want 0.8333", ap, err)
	}
	roc := ROC(pts)
	if roc[0].FPR != 0 || roc[0].TPR != 0 || roc[len(roc)-1].FPR != 1 || roc[len(roc)-1].TPR != 1 {
		t.Errorf("ROC should run from (0,0) to (1,1): %+v", roc)
	}
}

func TestSweepErrors(t *testing.T) {
	cases := []struct {
		name   string
		scores []float64
		labels []bool
		want   error
	}{
		{"empty", nil, nil, ErrEmpty},
		{"length", []float64{1, 2}, []bool{true}, ErrLength},
		{"nan", []float64{0.2, math.NaN()}, []bool{true, false}, ErrNaN},
		{"inf", []float64{math.Inf(1)}, []bool{true}, ErrNaN},
	}
	for _, tc := range cases {
		if _, err := Sweep(tc.scores, tc.labels); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	pts, _ := Sweep([]float64{0.1, 0.2}, []bool{true, true})
	if _, err := AUC(pts); !errors.Is(err, ErrOneClass) {
		t.Errorf("one-class AUC: err = %v", err)
	}
	pts, _ = Sweep([]float64{0.1, 0.2}, []bool{false, false})
	if _, err := AveragePrecision(pts); !errors.Is(err, ErrOneClass) {
		t.Errorf("AP without positives: err = %v", err)
	}
}

// bruteThresholds is the midpoint candidate set computed naively.
func bruteThresholds(scores []float64) []float64 {
	d := slices.Clone(scores)
	slices.Sort(d)
	d = slices.Compact(d)
	out := []float64{d[0]}
	for i := 1; i < len(d); i++ {
		out = append(out, Midpoint(d[i-1], d[i]))
	}
	return append(out, math.Nextafter(d[len(d)-1], math.Inf(1)))
}

func randomData(r *rand.Rand, n int, grid float64) ([]float64, []bool, []float64) {
	s := make([]float64, n)
	l := make([]bool, n)
	w := make([]float64, n)
	for i := range s {
		s[i] = math.Round(r.Float64()*grid) / grid // many ties
		l[i] = r.Float64() < s[i]*0.8+0.1
		w[i] = float64(r.IntN(3))
	}
	return s, l, w
}

func TestSweepMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(60)
		scores, labels, weights := randomData(r, n, float64(1+r.IntN(20)))
		if trial%2 == 0 {
			weights = nil
		}
		s, err := NewSorted(scores, labels)
		if err != nil {
			t.Fatal(err)
		}
		pts := s.Sweep(weights)
		th := bruteThresholds(scores)
		if len(pts) != len(th) {
			t.Fatalf("trial %d: %d points, brute force %d", trial, len(pts), len(th))
		}
		for i, p := range pts {
			if p.Threshold != th[i] {
				t.Fatalf("trial %d point %d: threshold %v, brute force %v", trial, i, p.Threshold, th[i])
			}
			want, _ := ConfusionAt(scores, labels, weights, th[i])
			if p.Confusion != want {
				t.Fatalf("trial %d at %v: %+v, brute force %+v", trial, th[i], p.Confusion, want)
			}
		}
		// AUC against the Mann-Whitney pair count.
		if weights != nil {
			continue
		}
		var pairs, wins float64
		for i := range scores {
			for j := range scores {
				if labels[i] && !labels[j] {
					pairs++
					switch {
					case scores[i] > scores[j]:
						wins++
					case scores[i] == scores[j]:
						wins += 0.5
					}
				}
			}
		}
		auc, err := AUC(pts)
		if pairs == 0 {
			if !errors.Is(err, ErrOneClass) {
				t.Fatalf("trial %d: one class, AUC err = %v", trial, err)
			}
			continue
		}
		if err != nil || !near(auc, wins/pairs, 1e-12) {
			t.Fatalf("trial %d: AUC %v (%v), Mann-Whitney %v", trial, auc, err, wins/pairs)
		}
	}
}

func TestMidpoint(t *testing.T) {
	lo := 0.5
	hi := math.Nextafter(lo, 1)
	m := Midpoint(lo, hi)
	if !(m > lo && m <= hi) {
		t.Errorf("Midpoint(%v, %v) = %v, want in (lo, hi]", lo, hi, m)
	}
	if Midpoint(0.2, 0.4) != 0.30000000000000004 && Midpoint(0.2, 0.4) != 0.3 {
		t.Errorf("Midpoint(0.2,0.4) = %v", Midpoint(0.2, 0.4))
	}
}

func TestCorrelationsHandComputed(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{2, 4, 5, 4, 5}
	cases := []struct {
		name string
		f    func(x, y []float64) (float64, error)
		want float64
	}{
		{"pearson", Pearson, 6 / math.Sqrt(60)},
		{"spearman", Spearman, 7 / math.Sqrt(90)},
		{"kendall", KendallTauB, 6 / math.Sqrt(80)},
	}
	for _, tc := range cases {
		got, err := tc.f(x, y)
		if err != nil || !near(got, tc.want, eps) {
			t.Errorf("%s = %v, %v; want %v", tc.name, got, err, tc.want)
		}
		if _, err := tc.f([]float64{1, 1, 1}, []float64{1, 2, 3}); !errors.Is(err, ErrUndefined) {
			t.Errorf("%s of a constant: err = %v", tc.name, err)
		}
		if _, err := tc.f([]float64{1, 2}, []float64{1, 2}); !errors.Is(err, ErrUndefined) {
			t.Errorf("%s of 2 points: err = %v", tc.name, err)
		}
		if _, err := tc.f([]float64{1, 2, math.NaN()}, []float64{1, 2, 3}); !errors.Is(err, ErrNaN) {
			t.Errorf("%s with NaN: err = %v", tc.name, err)
		}
	}
	pb, err := PointBiserial([]float64{0.9, 0.8, 0.8, 0.3, 0.1}, []bool{true, true, false, false, false})
	if want := 0.54 / math.Sqrt(0.508*1.2); err != nil || !near(pb, want, 1e-9) {
		t.Errorf("point-biserial = %v, %v; want %v", pb, err, want)
	}
	if got := Ranks([]float64{10, 20, 20, 5}); !slices.Equal(got, []float64{2, 3.5, 3.5, 1}) {
		t.Errorf("Ranks = %v", got)
	}
}

func TestCorrelationsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		n := 3 + r.IntN(40)
		x := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(6))
			y[i] = x[i] + float64(r.IntN(5))
		}
		// Kendall tau-b by brute force.
		var nc, nd, tx, ty float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				dx, dy := x[i]-x[j], y[i]-y[j]
				switch {
				case dx == 0 && dy == 0:
				case dx == 0:
					tx++
				case dy == 0:
					ty++
				case (dx > 0) == (dy > 0):
					nc++
				default:
					nd++
				}
			}
		}
		kt, err := KendallTauB(x, y)
		if den := math.Sqrt((nc + nd + tx) * (nc + nd + ty)); den == 0 {
			if !errors.Is(err, ErrUndefined) {
				t.Fatalf("trial %d: constant series, err = %v", trial, err)
			}
			continue
		} else if err != nil || !near(kt, (nc-nd)/den, 1e-12) {
			t.Fatalf("trial %d: tau-b %v (%v), brute force %v", trial, kt, err, (nc-nd)/den)
		}
		p, err := Pearson(x, y)
		if g := stat.Correlation(x, y, nil); err != nil || !near(p, g, 1e-9) {
			t.Fatalf("trial %d: Pearson %v (%v), gonum %v", trial, p, err, g)
		}
		s, _ := Spearman(x, y)
		if g := stat.Correlation(Ranks(x), Ranks(y), nil); !near(s, g, 1e-9) {
			t.Fatalf("trial %d: Spearman %v, Pearson of ranks %v", trial, s, g)
		}
	}
}

func TestFisherZCI(t *testing.T) {
	lo, hi, err := FisherZCI(0.5, 28, 0.95)
	q := 1.959963984540054
	if err != nil || !near(lo, math.Tanh(math.Atanh(0.5)-q/5), 1e-9) || !near(hi, math.Tanh(math.Atanh(0.5)+q/5), 1e-9) {
		t.Errorf("FisherZCI = %v, %v, %v", lo, hi, err)
	}
	if !near(lo, 0.1560, 1e-3) || !near(hi, 0.7357, 1e-3) {
		t.Errorf("FisherZCI = [%v, %v], want about [0.156, 0.736]", lo, hi)
	}
	if _, _, err := FisherZCI(0.5, 3, 0.95); !errors.Is(err, ErrUndefined) {
		t.Errorf("n=3: err = %v", err)
	}
}

func TestKFoldByGroup(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var names []string
	var labels []bool
	for d := 0; d < 37; d++ {
		for range 1 + r.IntN(6) {
			names = append(names, string(rune('A'+d%26))+string(rune('a'+d/26)))
			labels = append(labels, r.Float64() < 0.3)
		}
	}
	groups, ng := GroupIndex(names)
	if ng != 37 {
		t.Fatalf("GroupIndex found %d groups", ng)
	}
	for _, k := range []int{2, 5, 10, 37} {
		folds, err := KFoldByGroup(groups, labels, k, 42)
		if err != nil {
			t.Fatal(err)
		}
		foldOf := map[int]int{}
		used := map[int]bool{}
		for i, g := range groups {
			if f, ok := foldOf[g]; ok && f != folds[i] {
				t.Fatalf("k=%d: group %d is in folds %d and %d (leak)", k, g, f, folds[i])
			}
			foldOf[g] = folds[i]
			used[folds[i]] = true
		}
		if len(used) != k {
			t.Errorf("k=%d: only %d folds used", k, len(used))
		}
		again, _ := KFoldByGroup(groups, labels, k, 42)
		if !slices.Equal(folds, again) {
			t.Errorf("k=%d: same seed gave a different split", k)
		}
	}
	for _, k := range []int{0, 1, 38} {
		if _, err := KFoldByGroup(groups, labels, k, 1); !errors.Is(err, ErrFolds) {
			t.Errorf("k=%d: err = %v", k, err)
		}
	}
}

func TestBootstrapReproducible(t *testing.T) {
	groups, ng := GroupIndex([]string{"a", "a", "b", "c", "c", "c", "d"})
	draw := func(seed uint64) [][]float64 {
		b, err := NewBootstrap(groups, seed)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for range 20 {
			w := b.Next(nil)
			out = append(out, w)
			// whole groups: equal weight within a group; ng draws in all.
			mult := map[int]float64{}
			for i, g := range groups {
				if m, ok := mult[g]; ok && m != w[i] {
					t.Fatalf("group %d split across weights", g)
				}
				mult[g] = w[i]
			}
			sum := 0.0
			for _, m := range mult {
				sum += m
			}
			if sum != float64(ng) {
				t.Fatalf("drew %v groups, want %d", sum, ng)
			}
		}
		return out
	}
	a, b, c := draw(1), draw(1), draw(2)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("replicate %d differs with the same seed", i)
		}
	}
	same := true
	for i := range a {
		same = same && slices.Equal(a[i], c[i])
	}
	if same {
		t.Error("different seeds gave identical replicates")
	}
	if got := Expand([]float64{2, 0, 1}, nil); !slices.Equal(got, []int{0, 0, 2}) {
		t.Errorf("Expand = %v", got)
	}
}

func TestPercentileCI(t *testing.T) {
	v := make([]float64, 101)
	for i := range v {
		v[i] = float64(100 - i)
	}
	v = append(v, math.NaN())
	lo, hi, ok := PercentileCI(v, 0.9)
	if !ok || !near(lo, 5, eps) || !near(hi, 95, eps) {
		t.Errorf("PercentileCI = %v, %v, %v", lo, hi, ok)
	}
	if _, _, ok := PercentileCI([]float64{1, 2}, 0.95); ok {
		t.Error("PercentileCI of 2 values should not be ok")
	}
	m, sd := MeanSD([]float64{1, 2, 3, 4})
	if m != 2.5 || !near(sd, math.Sqrt(5.0/3), eps) {
		t.Errorf("MeanSD = %v, %v", m, sd)
	}
}

func BenchmarkSweepMillion(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	scores, labels, _ := randomData(r, 1_000_000, 1e6)
	b.ResetTimer()
	for b.Loop() {
		pts, err := Sweep(scores, labels)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := AUC(pts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKendallMillion(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, _, _ := randomData(r, 1_000_000, 1e6)
	y, _, _ := randomData(r, 1_000_000, 5)
	for b.Loop() {
		if _, err := KendallTauB(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPairedMatchesExpanded(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(30)
		x := make([]float64, n)
		y := make([]float64, n)
		w := make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(5))
			y[i] = float64(r.IntN(4)) + x[i]*float64(r.IntN(2))
			w[i] = float64(r.IntN(4))
		}
		p, err := NewPaired(x, y)
		if err != nil {
			t.Fatal(err)
		}
		idx := Expand(w, nil)
		ex, ey := make([]float64, len(idx)), make([]float64, len(idx))
		for k, i := range idx {
			ex[k], ey[k] = x[i], y[i]
		}
		for _, c := range []struct {
			name   string
			plain  func(x, y []float64) (float64, error)
			paired func(w []float64) (float64, error)
		}{{"pearson", Pearson, p.Pearson}, {"spearman", Spearman, p.Spearman}, {"kendall", KendallTauB, p.Kendall}} {
			want, werr := c.plain(ex, ey)
			got, gerr := c.paired(w)
			if (werr == nil) != (gerr == nil) || (werr == nil && !near(got, want, 1e-9)) {
				t.Fatalf("trial %d %s: weighted %v (%v), expanded %v (%v)", trial, c.name, got, gerr, want, werr)
			}
			if werr != nil && !errors.Is(gerr, ErrUndefined) {
				t.Fatalf("trial %d %s: err %v", trial, c.name, gerr)
			}
			// Unit weights equal the plain function on the data itself.
			want, werr = c.plain(x, y)
			got, gerr = c.paired(nil)
			if (werr == nil) != (gerr == nil) || (werr == nil && !near(got, want, 1e-9)) {
				t.Fatalf("trial %d %s unweighted: %v (%v), plain %v (%v)", trial, c.name, got, gerr, want, werr)
			}
		}
	}
}

// TestPearsonLargestDoubles: the correlation of series near the largest
// finite double is the correlation of the same series scaled down (issue
// 28: the sums of squares overflowed to NaN).
func TestPearsonLargestDoubles(t *testing.T) {
	x := []float64{1, 1.7976931348623157, 0.5, 1.25}
	y := []float64{1.5, 1, 0.4, 1.7}
	want, err := Pearson(x, y)
	if err != nil {
		t.Fatal(err)
	}
	scale := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i := range v {
			out[i] = v[i] * 1e308
		}
		return out
	}
	for _, c := range []struct {
		name string
		x, y []float64
	}{{"x huge", scale(x), y}, {"both huge", scale(x), scale(y)}, {"y huge", x, scale(y)}} {
		got, err := Pearson(c.x, c.y)
		if err != nil || math.IsNaN(got) || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: Pearson = %v, %v; want %v", c.name, got, err, want)
		}
	}
}
