package sweepio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/rundir"
	"github.com/aem-dev/aem/thresholds"
)

// writeGolden writes a JSON Lines golden dataset of nd dialogs with three
// action turns each; predicted values replace 0-4 words of the gold value
// and the human calls a turn correct when at most one word changed.
func writeGolden(t *testing.T, nd int) string {
	t.Helper()
	words := strings.Fields("the quarterly revenue report for europe by product line and region in euros")
	other := strings.Fields("annual profit summary across asia per customer segment or country using dollars")
	r := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	for d := range nd {
		var turns []map[string]any
		for k := 1; k <= 3; k++ {
			gold := words[:6+r.IntN(6)]
			pred := append([]string(nil), gold...)
			changes := r.IntN(5)
			for c := 0; c < changes; c++ {
				i := r.IntN(len(pred))
				pred[i] = other[i]
			}
			changed := 0
			for i := range gold {
				if gold[i] != pred[i] {
					changed++
				}
			}
			call := func(v string) map[string]any {
				return map[string]any{"tool_id": "crm", "action": "report", "args": map[string]any{"title": v, "limit": 5}}
			}
			turns = append(turns, map[string]any{"turn_no": k, "turn": "Tool", "gold_turn": call(strings.Join(gold, " ")),
				"predict_turn": call(strings.Join(pred, " ")), "human_label": changed <= 1, "human_score": float64(4 - changed)})
		}
		line, _ := json.Marshal(map[string]any{"dialog_id": fmt.Sprintf("dlg-%03d", d), "turns": turns})
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "golden.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestThresholdsRoundTripThroughRun runs the real pipeline (batch.Run with
// the lexical scorer), calibrates on its turns.parquet, and runs again with
// the fitted thresholds file: the second run must apply them.
func TestThresholdsRoundTripThroughRun(t *testing.T) {
	golden := writeGolden(t, 40)
	run1 := filepath.Join(t.TempDir(), "run1")
	ctx := context.Background()
	if _, err := batch.Run(ctx, batch.Options{Input: golden, OutDir: run1, Scorer: metrics.Lexical{}, Workers: 2}); err != nil {
		t.Fatalf("aem run: %v", err)
	}
	in, info, err := ReadRun(ctx, run1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Turns != 120 || info.LabelledTurns != 120 || len(in.Verdicts) != 120 || len(in.Samples) < 60 {
		t.Fatalf("read %+v: %d samples, %d verdicts", info, len(in.Samples), len(in.Verdicts))
	}
	opts := sweep.DefaultOptions()
	opts.Bootstrap = 100
	res, err := sweep.Calibrate(ctx, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(run1, "sweep")
	if _, err := Write(ctx, out, &Summary{Version: 1, Mode: "run", Input: run1, Scorer: info.Scorer, Run: info, Result: res}); err != nil {
		t.Fatal(err)
	}
	file, err := thresholds.Read(filepath.Join(out, ThresholdsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := file.CheckScorer("", info.Scorer); err != nil || file.EmbeddingModel.ID != "lexical" {
		t.Errorf("the file names %+v, err %v", file.EmbeddingModel, err)
	}
	th := thresholds.Lookup(&file, 0.5, false)
	cfg := metrics.DefaultConfig()
	cfg.Thresholds = th
	metric, err := metrics.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run2 := filepath.Join(t.TempDir(), "run2")
	sum, err := batch.Run(ctx, batch.Options{Input: golden, OutDir: run2, Scorer: metrics.Lexical{}, Metric: metric, Workers: 2})
	if err != nil {
		t.Fatalf("aem run --thresholds: %v", err)
	}
	if sum.Thresholds.Threshold != th.Threshold {
		t.Errorf("second run used threshold %v, want the fitted %v", sum.Thresholds.Threshold, th.Threshold)
	}
	want := th.For(metrics.ThresholdQuery{SubMetric: metrics.SubTruthValues, Field: "crm.report.title", Param: "crm.report.title"}).Value
	n := 0
	in2, _, err := ReadRun(ctx, run2, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Bootstrap = 0
	res2, err := sweep.Calibrate(ctx, in2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Agreement.Kappa.Value <= res.Agreement.Kappa.Value {
		t.Errorf("verdict agreement with the fitted thresholds %v, not above the default's %v", res2.Agreement.Kappa.Value, res.Agreement.Kappa.Value)
	}
	rd, err := rundir.Open(ctx, run2, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for row, err := range rd.Turns(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		for _, fs := range row.FieldScores {
			if fs.Method == metrics.MethodSemantic {
				n++
				if fs.Threshold != want {
					t.Fatalf("%s turn %d %s held to %v, want the fitted %v", row.DialogID, row.TurnNo, fs.Field, fs.Threshold, want)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no semantic comparisons in the second run")
	}
	t.Logf("fitted %+v; held-out f1 %.3f; verdict kappa %.3f at the default threshold, %.3f with the fitted ones", th, res.F1.Value, res.Agreement.Kappa.Value, res2.Agreement.Kappa.Value)
}

// dirBlob serves fileblob buckets rooted at a directory, so that a test
// URL scheme behaves like a remote object store.
type dirBlob struct{ root string }

func (d dirBlob) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return fileblob.OpenBucket(filepath.Join(d.root, u.Host), &fileblob.Options{CreateDir: true, NoTempDir: true})
}

// TestReadRunFromObjectStore writes a run to an object store and reads it
// back by URL: the calibration input must equal that of a local run, and
// an incomplete remote run is refused.
func TestReadRunFromObjectStore(t *testing.T) {
	ctx := context.Background()
	golden := writeGolden(t, 20)
	mux := new(blob.URLMux)
	mux.RegisterBucket("dirtest", dirBlob{t.TempDir()})
	local := filepath.Join(t.TempDir(), "run")
	for _, out := range []string{local, "dirtest://bucket/nightly/run"} {
		if _, err := batch.Run(ctx, batch.Options{Input: golden, OutDir: out, Scorer: metrics.Lexical{}, Workers: 2, URLMux: mux}); err != nil {
			t.Fatalf("aem run -o %s: %v", out, err)
		}
	}
	want, wantInfo, err := ReadRun(ctx, local, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, info, err := ReadRun(ctx, "dirtest://bucket/nightly/run", RunOptions{URLMux: mux})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the remote run gives a different calibration input than the same run read locally")
	}
	if info.Dir != "dirtest://bucket/nightly/run" || info.Turns != wantInfo.Turns || info.Scorer != wantInfo.Scorer || info.LabelledTurns != wantInfo.LabelledTurns {
		t.Errorf("remote info %+v, local %+v", info, wantInfo)
	}
	if _, _, err := ReadRun(ctx, "dirtest://bucket/nightly/missing", RunOptions{URLMux: mux}); !errors.Is(err, rundir.ErrIncomplete) || !strings.Contains(err.Error(), "dirtest://bucket/nightly/missing") {
		t.Errorf("incomplete remote run: err = %v, want ErrIncompleteRun naming the URL", err)
	}
	if _, _, err := ReadRun(ctx, "nosuch://bucket/run", RunOptions{URLMux: mux}); !errors.Is(err, location.ErrUnreadable) {
		t.Errorf("unknown scheme: err = %v, want ErrUnreadableLocation", err)
	}
}
