package embed

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aem-dev/aem/home/hometest"
	"github.com/aem-dev/aem/internal/longtest"
)

// useLiteDir returns the installed default model, or skips.
func useLiteDir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv(EnvModel); dir != "" {
		return dir
	}
	return useLiteDirFor(t, DefaultPrecision)
}

// useLiteDirFor returns the installed form of the default model of a
// precision (use-lite, use-lite-int8), or skips.
func useLiteDirFor(t testing.TB, precision string) string {
	t.Helper()
	home := os.Getenv(EnvHome)
	if home == "" {
		home = filepath.Join("..", ".aem")
	}
	dir := filepath.Join(home, "models", ModelFor(precision))
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		hometest.Missing(t, "model %s not installed at %s: run scripts/setup (or set %s) to run the USE-lite tests", ModelFor(precision), dir, EnvHome)
	}
	return dir
}

type referenceSentence struct {
	Text   string    `json:"text"`
	IDs    []int64   `json:"ids"`
	How    string    `json:"how"`
	Vector []float32 `json:"vector"`
}

// referenceVectors reads the TF.js reference vectors committed by the model
// engineer (scripts/reference/reference.js).
func referenceVectors(t testing.TB) []referenceSentence {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "models", "testdata", "reference", "vectors.json"))
	if err != nil {
		t.Skipf("reference vectors not found (%v)", err)
	}
	var f struct {
		Sentences []referenceSentence `json:"sentences"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("parsing reference vectors: %v", err)
	}
	if len(f.Sentences) == 0 {
		t.Fatal("no reference sentences")
	}
	return f.Sentences
}

// goReferenceSubset is the reference sentences the go backend checks
// under -race: every 8th and the empty string (all of them without -race,
// which scripts/test --long's second pass runs).
func goReferenceSubset(refs []referenceSentence) []referenceSentence {
	if !raceEnabled {
		return refs
	}
	var sub []referenceSentence
	for i, r := range refs {
		if i%8 == 0 || r.Text == "" {
			sub = append(sub, r)
		}
	}
	return sub
}

// Our vectors match the original TF.js model's on every reference sentence
// (short values, long replies, Unicode, odd spaces, the empty string), on
// both backends, with all sentences embedded together (so most are padded).
// Under -race the go backend checks a subset (goReferenceSubset).
func TestUSELiteMatchesReference(t *testing.T) {
	dir := useLiteDirFor(t, PrecisionFP32)
	all := referenceVectors(t)
	got := map[string]map[string][]float32{}
	for _, be := range testBackends(t) {
		refs := all
		if be == BackendGo {
			refs = goReferenceSubset(all)
		}
		texts := make([]string, len(refs))
		for i, r := range refs {
			texts[i] = r.Text
		}
		e := openTest(t, dir, be, func(o *Options) { o.BatchSize = 16 })
		if e.Dim() != 512 || e.Info().MaxTokens != 128 || e.Info().Pooling != PoolingNone {
			t.Fatalf("%s: info %+v", be, e.Info())
		}
		if !strings.HasPrefix(e.ModelID(), "use-lite@sha256:") {
			t.Errorf("ModelID %q", e.ModelID())
		}
		vecs, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		worst := 1.0
		for i, r := range refs {
			tk, err := e.tok.encode(sanitize(r.Text, e.Info().MaxTokens))
			if err != nil {
				t.Fatal(err)
			}
			if want := r.IDs[:min(len(r.IDs), 128)]; !slices.Equal(tk.ids, want) {
				t.Errorf("%s: %q: token ids %v, reference %v", be, r.Text, tk.ids, want)
			}
			c := cosine(vecs[i], r.Vector)
			worst = min(worst, c)
			if c < 0.9999 {
				t.Errorf("%s: %q: cosine with the reference %.7f < 0.9999", be, r.Text, c)
			}
		}
		t.Logf("%s: %d sentences, lowest cosine with the reference %.7f", be, len(refs), worst)
		// A vector does not depend on what shared its batch: a second
		// Embedder (its own memo and cache) embeds some texts one at a time.
		step := 7
		if be == BackendGo {
			step = 8 // each new sequence length compiles the graph anew
		}
		e1 := openTest(t, dir, be, nil)
		for i := 0; i < len(texts); i += step {
			alone, err := e1.Embed(context.Background(), texts[i:i+1])
			if err != nil {
				t.Fatal(err)
			}
			assertClose(t, be+" alone vs batched: "+texts[i], alone[0], vecs[i], 1e-6)
		}
		got[be] = map[string][]float32{}
		for i, text := range texts {
			got[be][text] = vecs[i]
		}
	}
	if o, g := got[BackendORT], got[BackendGo]; o != nil && g != nil {
		worst := 0.0
		for text, gv := range g {
			for j, x := range o[text] {
				worst = max(worst, math.Abs(float64(x-gv[j])))
			}
		}
		t.Logf("largest ORT-vs-Go difference %.2g", worst)
		if worst > 1e-4 {
			t.Errorf("ORT and Go vectors differ by %g > 1e-4", worst)
		}
	}
}

// stsPair is one STS-B row.
type stsPair struct {
	score  float64
	s1, s2 string
}

// stsbFile is the STS-B dev set beside the project (../shared).
func stsbFile() string { return filepath.Join("..", "..", "shared", "data", "stsb-dev", "sts-dev.csv") }

// readSTSB reads sts-dev.csv: TAB-separated, no header, fields genre,
// filename, year, sid, score, s1, s2 (some rows carry extra trailing fields),
// no quote processing.
func readSTSB(t testing.TB) []stsPair {
	t.Helper()
	path := stsbFile()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("STS-B dev set not found at %s (%v)", path, err)
	}
	defer f.Close()
	var rows []stsPair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 7 {
			t.Fatalf("%s:%d: %d fields, want at least 7", path, n, len(fields))
		}
		score, err := strconv.ParseFloat(fields[4], 64)
		if err != nil {
			t.Fatalf("%s:%d: score %q: %v", path, n, fields[4], err)
		}
		rows = append(rows, stsPair{score, fields[5], fields[6]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

// ranks gives average ranks (ties share the mean of their positions).
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

func TestRankCorrelations(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	if p := pearson(x, []float64{2, 4, 6, 8, 10}); math.Abs(p-1) > 1e-12 {
		t.Errorf("pearson %v", p)
	}
	if got := ranks([]float64{10, 20, 20, 5}); !slices.Equal(got, []float64{2, 3.5, 3.5, 1}) {
		t.Errorf("ranks %v", got)
	}
	if s := pearson(ranks(x), ranks([]float64{1, 4, 9, 16, 25})); math.Abs(s-1) > 1e-12 {
		t.Errorf("spearman %v", s)
	}
}

// The whole path (ORT, USE-lite, Scorer) reproduces the reference model's
// STS-B dev correlations with the float32 model (Spearman 78.39, Pearson
// 78.26, x100), and the int8 model stays within 1 point (0.01) of them. A
// long test (the paths it takes are the other tests' too): scripts/test
// --long and CI run it.
func TestUSELiteSTSBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("STS-B: 1500 pairs through the model; skipped under -short")
	}
	longtest.Require(t, "STS-B: 3000 embeddings of 1500 pairs against the pinned correlations")
	rows := readSTSB(t)
	if len(rows) != 1500 {
		t.Fatalf("%d STS-B rows, want 1500", len(rows))
	}
	gold := make([]string, len(rows))
	pred := make([]string, len(rows))
	human := make([]float64, len(rows))
	for i, r := range rows {
		gold[i], pred[i], human[i] = r.s1, r.s2, r.score
	}
	correlate := func(precision string) (spearman, pearsonR float64) {
		e := openTest(t, useLiteDirFor(t, precision), BackendORT, nil)
		sims, err := NewScorer(e).Score(context.Background(), gold, pred)
		if err != nil {
			t.Fatal(err)
		}
		return 100 * pearson(ranks(sims), ranks(human)), 100 * pearson(sims, human)
	}
	sp, pe := correlate(PrecisionFP32)
	t.Logf("STS-B dev, fp32: Spearman %.2f (reference 78.39), Pearson %.2f (reference 78.26)", sp, pe)
	if math.Abs(sp-78.39) > 0.5 || math.Abs(pe-78.26) > 0.5 {
		t.Errorf("fp32: Spearman %.2f / Pearson %.2f, want within 0.5 of 78.39 / 78.26", sp, pe)
	}
	sq, pq := correlate(PrecisionInt8)
	t.Logf("STS-B dev, int8: Spearman %.2f, Pearson %.2f", sq, pq)
	if math.Abs(sq-sp) > 1 || math.Abs(pq-pe) > 1 {
		t.Errorf("int8: Spearman %.2f / Pearson %.2f, want within 1 (0.01) of fp32's %.2f / %.2f", sq, pq, sp, pe)
	}
}
