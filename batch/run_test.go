package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunWritesCompleteRunDir(t *testing.T) {
	dir := t.TempDir()
	ds := genDialogs(60, 1)
	in := writeGolden(t, dir, ds)
	out := filepath.Join(dir, "out")
	sum := mustRun(t, baseOptions(in, out))

	if got, want := listDir(t, out), []string{rundir.DialogsFile, rundir.SummaryFile, rundir.TurnsFile}; !slices.Equal(got, want) {
		t.Fatalf("run dir holds %v, want %v", got, want)
	}
	rd, err := rundir.Open(context.Background(), out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()

	// Recompute the expected results with metrics.Evaluate and compare.
	want, err := metrics.Evaluate(context.Background(), metrics.Lexical{}, metrics.DefaultConfig(), ds)
	if err != nil {
		t.Fatal(err)
	}
	var turns []rundir.TurnRow
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, tr)
	}
	var dialogs []rundir.DialogRow
	for dr, err := range rd.Dialogs(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		dialogs = append(dialogs, dr)
	}
	if len(dialogs) != len(want) {
		t.Fatalf("%d dialog rows, want %d", len(dialogs), len(want))
	}
	k := 0
	passed := 0
	for i, res := range want {
		if dialogs[i].DialogID != res.DialogID || dialogs[i].Score != res.Score || dialogs[i].TestPass != res.TestPass ||
			dialogs[i].RootCauseCount != int64(res.RootCauseCount) || dialogs[i].Reason != res.Reason {
			t.Errorf("dialog %d: got %+v, want %+v", i, dialogs[i], res)
		}
		for _, v := range res.Turns {
			tr := turns[k]
			k++
			if tr.DialogID != v.DialogID || tr.TurnNo != int64(v.TurnNo) || tr.Pass != v.Pass || tr.Kind != string(v.Kind) {
				t.Errorf("turn row %d: got %s/%d pass=%v, want %s/%d pass=%v", k-1, tr.DialogID, tr.TurnNo, tr.Pass, v.DialogID, v.TurnNo, v.Pass)
			}
			if (tr.FailureReason == nil) != (v.FailureReason == "") || (tr.FailureReason != nil && *tr.FailureReason != string(v.FailureReason)) {
				t.Errorf("turn row %d: failure_reason %v, want %q", k-1, tr.FailureReason, v.FailureReason)
			}
			if tr.Scorer != "lexical" {
				t.Errorf("turn row %d: scorer %q", k-1, tr.Scorer)
			}
			if v.Pass {
				passed++
			}
		}
	}
	if k != len(turns) {
		t.Fatalf("%d turn rows, want %d", len(turns), k)
	}
	if sum.Turns != k || sum.Dialogs != len(want) || sum.Passed != passed {
		t.Errorf("summary totals %d turns %d dialogs %d passed, want %d %d %d", sum.Turns, sum.Dialogs, sum.Passed, k, len(want), passed)
	}
	if sum.Correctness != float64(passed)/float64(k) {
		t.Errorf("correctness %v", sum.Correctness)
	}
	if sum.Scorer != "lexical" || sum.Input != in || sum.Thresholds.Threshold != 0.5 || sum.Settings["cascade"] != "evidence" {
		t.Errorf("summary header: %+v", sum)
	}
	if sum.LatencyCorrelation == nil || sum.LatencyCorrelation.Dialogs == 0 {
		t.Errorf("no latency correlation in %+v", sum)
	}
	var rc, casc int
	for _, c := range sum.FailureReasons {
		if c.Total != c.RootCause+c.Cascade {
			t.Errorf("reason count %+v does not add up", c)
		}
		rc += c.RootCause
		casc += c.Cascade
	}
	if rc+casc != k-passed {
		t.Errorf("failure reasons count %d failures, want %d", rc+casc, k-passed)
	}
	if len(sum.ByChainBucket) == 0 || len(sum.SubMetrics) != 3 {
		t.Errorf("chain buckets %v, sub-metrics %v", sum.ByChainBucket, sum.SubMetrics)
	}
	// The summary returned is the one on disk.
	if got := mustJSON(t, rd.Summary); got != mustJSON(t, sum) {
		t.Errorf("summary on disk differs from the one returned")
	}
}

func TestDeterministicAcrossWorkersAndChunks(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(120, 2))
	ref := filepath.Join(dir, "w1")
	o := baseOptions(in, ref)
	o.Workers = 1
	mustRun(t, o)
	for _, c := range []struct {
		name                 string
		workers, chunk, ckpt int
	}{{"w4", 4, 40, 150}, {"w3-small-chunks", 3, 1, 7}, {"w2-big-chunks", 2, 10000, 100000}} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name)
			o := baseOptions(in, out)
			o.Workers, o.ChunkTurns, o.CheckpointTurns = c.workers, c.chunk, c.ckpt
			mustRun(t, o)
			sameOutputs(t, ref, out)
		})
	}
}

func TestRerunReplacesOutputs(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(20, 3))
	out := filepath.Join(dir, "out")
	mustRun(t, baseOptions(in, out))
	o := baseOptions(in, out)
	o.Metric = testMetric(t, func(c *metrics.Config) { c.Thresholds.Threshold = 0.99 })
	s := mustRun(t, o)
	if s.Thresholds.Threshold != 0.99 {
		t.Fatalf("threshold %v", s.Thresholds.Threshold)
	}
	rd, err := rundir.Open(context.Background(), out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	held := 0
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if tr.Threshold != nil && *tr.Threshold != 0.99 {
			t.Fatalf("turn row threshold %v, want 0.99 or none", *tr.Threshold)
		}
		if tr.Threshold != nil {
			held++
		}
	}
	if held == 0 {
		t.Error("no turn row records the threshold it was held to")
	}
}

func TestValidate(t *testing.T) {
	ok := Options{Input: "x", OutDir: "y", Scorer: metrics.Lexical{}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Options){
		"no input":    func(o *Options) { o.Input = "" },
		"no outdir":   func(o *Options) { o.OutDir = "" },
		"no scorer":   func(o *Options) { o.Scorer = nil },
		"workers":     func(o *Options) { o.Workers = -1 },
		"shard":       func(o *Options) { o.Shard = rundir.Shard{Index: 3, Count: 3} },
		"chunk turns": func(o *Options) { o.ChunkTurns = -5 },
	} {
		t.Run(name, func(t *testing.T) {
			o := ok
			mut(&o)
			if err := o.Validate(); !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("Validate() = %v, want ErrInvalidOptions", err)
			}
			if _, err := Run(context.Background(), o); !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("Run() = %v, want ErrInvalidOptions", err)
			}
		})
	}
}

func TestEmptyAndJSONInputs(t *testing.T) {
	dir := t.TempDir()
	// An input without turns is refused (golden.ErrEmpty, exit status 3),
	// and the directory the run made for it is gone.
	empty := writeGolden(t, dir, nil)
	out := filepath.Join(dir, "empty")
	if _, err := Run(context.Background(), baseOptions(empty, out)); !errors.Is(err, golden.ErrEmpty) {
		t.Fatalf("Run of an input without turns = %v, want golden.ErrEmpty", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the failed run left %s", out)
	}

	// JSON Lines input (no extra columns), same results as its Parquet form.
	ds := genDialogs(15, 30)
	pq := writeGolden(t, dir, ds)
	jsonl := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(jsonl, toJSONL(t, ds), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "pq"), filepath.Join(dir, "jsonl")
	mustRun(t, baseOptions(pq, a))
	mustRun(t, baseOptions(jsonl, b))
	if !bytes.Equal(readFile(t, filepath.Join(a, rundir.TurnsFile)), readFile(t, filepath.Join(b, rundir.TurnsFile))) {
		t.Error("turns.parquet differs between Parquet and JSONL input")
	}
}

// toJSONL encodes dialogs in the JSON Lines import format of the write-up.
func toJSONL(t *testing.T, ds []metrics.Dialog) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, d := range ds {
		var turns []map[string]any
		for _, tn := range d.Turns {
			m := map[string]any{"turn_no": tn.TurnNo, "turn": string(tn.Role), "tags": tn.Tags}
			side := func(has bool, resp string, c metrics.Call) any {
				if !has {
					return nil
				}
				if tn.Role == metrics.RoleTool {
					return map[string]any{"tool_id": c.ToolID, "action": c.Action, "args": c.Args}
				}
				return map[string]any{"response": resp}
			}
			if g := side(tn.HasGold, tn.GoldResponse, tn.Gold); g != nil {
				m["gold_turn"] = g
			}
			if p := side(tn.HasPredict, tn.PredictResponse, tn.Predict); p != nil {
				m["predict_turn"] = p
			}
			if tn.Weight != nil {
				m["weight"] = *tn.Weight
			}
			if tn.Critical {
				m["critical"] = true
			}
			if tn.LatencyMS != nil {
				m["latency_ms"] = *tn.LatencyMS
			}
			if tn.HumanLabel != nil {
				m["human_label"] = *tn.HumanLabel
			}
			turns = append(turns, m)
		}
		line, err := json.Marshal(map[string]any{"dialog_id": d.ID, "turns": turns})
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(line, '\n'))
	}
	return buf.Bytes()
}

func TestBundledExample(t *testing.T) {
	in := filepath.Join("..", "datasets", "example", "golden.jsonl")
	if _, err := os.Stat(in); err != nil {
		t.Skip("no bundled example")
	}
	out := filepath.Join(t.TempDir(), "out")
	s := mustRun(t, baseOptions(in, out))
	if s.Dialogs == 0 || s.Turns == 0 || len(s.FailureReasons) == 0 {
		t.Fatalf("example summary %+v", s)
	}
}
