package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/rundir"
)

// signOffDialogs are n dialogs whose gold replies state a fact of their
// own and close with the same sign-off, which the predictions leave out.
// The sign-off is common in the whole dataset (every reply uses it) but
// not in a shard of a few dialogs (features.CommonMin).
func signOffDialogs(n int) []metrics.Dialog {
	var ds []metrics.Dialog
	for i := range n {
		fact := fmt.Sprintf("Parcel %d left depot %d.", 100+i, 3*i)
		ds = append(ds, metrics.Dialog{ID: fmt.Sprintf("d%02d", i), Turns: []metrics.Turn{
			{TurnNo: 1, Role: metrics.RoleUser, HasGold: true, GoldResponse: "Where is my parcel?"},
			{TurnNo: 2, Role: metrics.RoleAgent, HasGold: true, HasPredict: true,
				GoldResponse: fact + " Let me know if you need more.", PredictResponse: fact},
		}})
	}
	return ds
}

// writeJSONL writes dialogs in the JSON Lines input format.
func writeJSONL(t *testing.T, dir string, ds []metrics.Dialog) string {
	t.Helper()
	var b strings.Builder
	for _, d := range ds {
		type side struct {
			Response string `json:"response"`
		}
		type turn struct {
			TurnNo  int    `json:"turn_no"`
			Turn    string `json:"turn"`
			Gold    *side  `json:"gold_turn"`
			Predict *side  `json:"predict_turn,omitempty"`
		}
		var ts []turn
		for _, x := range d.Turns {
			tr := turn{TurnNo: x.TurnNo, Turn: string(x.Role), Gold: &side{x.GoldResponse}}
			if x.HasPredict {
				tr.Predict = &side{x.PredictResponse}
			}
			ts = append(ts, tr)
		}
		line, err := json.Marshal(map[string]any{"dialog_id": d.ID, "turns": ts})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replyClauses reads, per dialog, whether each gold clause of its reply
// was required, and whether the reply passed.
func replyClauses(t *testing.T, dir string) map[string]string {
	t.Helper()
	r, err := rundir.Open(context.Background(), dir, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[string]string{}
	for tr, err := range rundir.ReadTurns[rundir.TurnRow](context.Background(), r) {
		if err != nil {
			t.Fatal(err)
		}
		if tr.Kind != string(metrics.KindResponse) {
			continue
		}
		var s []string
		for _, c := range tr.Clauses {
			s = append(s, fmt.Sprintf("%s required=%v covered=%v", c.Gold, c.Required, c.Covered))
		}
		out[tr.DialogID] = fmt.Sprintf("pass=%v %s", tr.Pass, strings.Join(s, "; "))
	}
	return out
}

// TestVocabularyOfTheWholeInput: the clauses of a reply are weighed by the
// gold replies of the whole dataset, whatever the input's format, the
// shard or a Source read in its place, so a sign-off every reply repeats
// is never required; a given Vocabulary is used as it is.
func TestVocabularyOfTheWholeInput(t *testing.T) {
	dir := t.TempDir()
	ds := signOffDialogs(12)
	parquetIn, jsonlIn := writeGolden(t, dir, ds), writeJSONL(t, dir, ds)
	check := func(name string, got map[string]string, want int, required bool) {
		t.Helper()
		if len(got) != want {
			t.Errorf("%s: %d replies, want %d", name, len(got), want)
		}
		for id, s := range got {
			sign := "Let me know if you need more. required=" + fmt.Sprint(required)
			if !strings.Contains(s, sign) || strings.HasPrefix(s, "pass=true") == required {
				t.Errorf("%s: dialog %s: %s; want the sign-off required=%v", name, id, s, required)
			}
		}
	}
	for _, in := range []string{parquetIn, jsonlIn} {
		out := filepath.Join(dir, "run-"+filepath.Ext(in)[1:])
		mustRun(t, baseOptions(in, out))
		check(in, replyClauses(t, out), 12, false)
	}
	total := 0
	for k := range 3 {
		o := baseOptions(parquetIn, filepath.Join(dir, fmt.Sprintf("shard-%d", k)))
		o.Shard = rundir.Shard{Index: k, Count: 3}
		mustRun(t, o)
		got := replyClauses(t, o.OutDir)
		total += len(got)
		check(fmt.Sprintf("shard %d/3", k), got, len(got), false)
	}
	if total != 12 {
		t.Errorf("the shards hold %d replies, want 12", total)
	}

	src, err := golden.Open(context.Background(), jsonlIn, golden.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := baseOptions(jsonlIn, filepath.Join(dir, "source"))
	o.Source, o.SourceID = src, "test"
	mustRun(t, o)
	check("a Source with its Input", replyClauses(t, o.OutDir), 12, false)

	o = baseOptions(parquetIn, filepath.Join(dir, "given"))
	o.Gold = &Gold{Vocabulary: features.NewVocabulary()} // nothing known to be common
	mustRun(t, o)
	check("an empty Vocabulary", replyClauses(t, o.OutDir), 12, true)
}

// TestSourceNeedsInputOrGold: a Source alone leaves nothing to learn the
// gold side from; Run says so before reading anything.
func TestSourceNeedsInputOrGold(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, signOffDialogs(2))
	for _, c := range []struct {
		input string
		want  string
	}{{"", "a Source without Input needs Gold"}, {"s3://bucket/golden.parquet", "needs Gold"}} {
		src, err := golden.Open(context.Background(), in, golden.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o := baseOptions(c.input, filepath.Join(dir, "out"))
		o.Source = src
		_, err = Run(context.Background(), o)
		src.Close()
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("input %q: %v; want ErrInvalidOptions saying %q", c.input, err, c.want)
		}
	}
}
