package compareio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/rundir"
)

// TestPipelineRuns compares real run directories written by batch.Run on
// the bundled example: a "perfect" release (every prediction equal to its
// gold turn) as the base, and the example's own predictions as the
// candidate. Every failing turn of the example must read as a regression,
// with the pipeline's root-cause/cascade split.
func TestPipelineRuns(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	example := filepath.Join("..", "..", "datasets", "example", "golden.jsonl")
	perfect := filepath.Join(root, "perfect.jsonl")
	writePerfect(t, example, perfect)

	run := func(input, name string) string {
		out := filepath.Join(root, name)
		if _, err := batch.Run(ctx, batch.Options{Input: input, OutDir: out, Scorer: metrics.Lexical{}, Workers: 1}); err != nil {
			t.Fatalf("batch.Run(%s): %v", input, err)
		}
		return out
	}
	baseDir, candDir := run(perfect, "v1"), run(example, "v2")
	runs, err := ReadRuns(ctx, []string{baseDir, candDir})
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Identity != runs[1].Identity {
		t.Fatalf("same golden dataset, different identity: %+v vs %+v", runs[0].Identity, runs[1].Identity)
	}
	rep, err := compare.CompareRuns(ctx, runs, compare.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Comparisons[0]
	// Count regressions and fixes independently, from the raw Parquet rows.
	passOf := func(dir string) map[[2]any]bool {
		rows, err := parquet.ReadFile[rundir.TurnRow](filepath.Join(dir, rundir.TurnsFile))
		if err != nil {
			t.Fatal(err)
		}
		m := map[[2]any]bool{}
		for _, r := range rows {
			m[[2]any{r.DialogID, r.TurnNo}] = r.Pass
		}
		return m
	}
	bp, cp := passOf(baseDir), passOf(candDir)
	var reg, fix, paired int
	for k, b := range bp {
		cv, ok := cp[k]
		if !ok {
			continue
		}
		paired++
		switch {
		case b && !cv:
			reg++
		case !b && cv:
			fix++
		}
	}
	if c.PairedTurns != paired || c.Changes.Regressed != reg || c.Changes.Fixed != fix || reg == 0 {
		t.Errorf("paired %d regressed %d fixed %d, want %d %d %d", c.PairedTurns, c.Changes.Regressed, c.Changes.Fixed, paired, reg, fix)
	}
	if c.Changes.RegressedRootCauses+c.Changes.RegressedCascades != reg || c.Changes.RegressedCascades == 0 {
		t.Errorf("root causes and cascades not split: %+v", c.Changes)
	}
	var salesRoot bool
	for _, r := range c.Regressed {
		if r.DialogID == "sales-report-q3" && r.TurnNo == 2 {
			salesRoot = r.RootCause && r.Reason == string(metrics.ReasonInconsistentValues)
		}
	}
	if !salesRoot {
		t.Error("sales-report turn 2 is not a regressed root cause with inconsistent_parameter_values")
	}
	if c.Regressed[0].RootCause != true {
		t.Error("root causes are not ranked first")
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("AEM_SHOW_REPORT") != "" {
		t.Log(md.String())
	}
	out := filepath.Join(root, "cmp")
	if d := os.Getenv("AEM_KEEP_REPORT"); d != "" {
		out = d
	}
	if err := WriteReport(ctx, out, rep); err != nil {
		t.Fatal(err)
	}
}

// writePerfect copies a JSON Lines golden dataset with every predicted
// turn replaced by its gold turn (where both exist), keeping the gold
// side's text unchanged.
func writePerfect(t *testing.T, in, out string) {
	t.Helper()
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		// Raw messages keep the gold side byte for byte (the dataset
		// digest hashes the gold text as written).
		var d map[string]json.RawMessage
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatal(err)
		}
		var turns []map[string]json.RawMessage
		if err := json.Unmarshal(d["turns"], &turns); err != nil {
			t.Fatal(err)
		}
		for _, turn := range turns {
			g, p := turn["gold_turn"], turn["predict_turn"]
			if len(g) > 0 && string(g) != "null" && len(p) > 0 && string(p) != "null" {
				turn["predict_turn"] = g
			}
		}
		raw, err := json.Marshal(turns)
		if err != nil {
			t.Fatal(err)
		}
		d["turns"] = raw
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
