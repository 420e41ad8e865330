package predictions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/align"
	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
)

func joiner(t *testing.T, gold, pred string, opts align.Options) *Joiner {
	t.Helper()
	ctx := context.Background()
	r, err := golden.Open(ctx, gold, golden.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, pred, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewJoiner(r, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close(); st.Close() })
	return j
}

func drain(t *testing.T, j *Joiner) []golden.Dialog {
	t.Helper()
	var out []golden.Dialog
	for {
		d, err := j.Next(context.Background())
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
}

// TestJoinChatLog joins the chat-log fixture with a golden dataset, writes
// the joined file, reads it back and scores it.
func TestJoinChatLog(t *testing.T) {
	j := joiner(t, filepath.Join("testdata", "gold.jsonl"), filepath.Join("testdata", "chat.jsonl"), align.Options{})
	out := filepath.Join(t.TempDir(), "joined.parquet")
	n, err := golden.WriteDialogs(context.Background(), out, golden.WriteOptions{Extras: j.Extras()}, func(yield func(golden.Dialog, error) bool) {
		for _, d := range drain(t, j) {
			if !yield(d, nil) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	s := j.Stats()
	if s.GoldDialogs != 3 || s.Dialogs != 4 || s.NoPredictions != 1 || s.NoPredictionIDs[0] != "unanswered" ||
		s.Unmatched != 1 || s.UnmatchedIDs[0] != "42 ("+filepath.Join("testdata", "chat.jsonl")+" line 5)" || s.MalformedArgs != 1 {
		t.Errorf("stats = %+v", s)
	}
	if n != 8 {
		t.Errorf("%d turns written, want 8", n)
	}

	r, err := golden.Open(context.Background(), out, golden.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, e := range r.Extras() {
		names = append(names, e.Name)
	}
	wantNames := []string{"team", "predict_seq", "predict_function", "predict_call_id", "predict_args_error",
		"source_file", "source_line", "source_trace_id", "source_span_id", "source_message_index"}
	if d := cmp.Diff(wantNames, names); d != "" {
		t.Errorf("extra columns (-want +got):\n%s", d)
	}
	var dialogs []metrics.Dialog
	var got []string
	for d, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		dialogs = append(dialogs, d.Dialog)
		name := d.ID
		if d.Trial != nil {
			name += fmt.Sprintf("@%d", *d.Trial)
		}
		if name == "refund-7@2" && d.Turns[0].Predict.UnparsedArgs != "{order: 7}" {
			t.Errorf("the agent's arguments did not survive the joined file: %q", d.Turns[0].Predict.UnparsedArgs)
		}
		for i, tr := range d.Turns {
			got = append(got, fmt.Sprintf("%s/%d %s gold=%v pred=%v %s", name, tr.TurnNo, tr.Role, tr.HasGold, tr.HasPredict, extras(r, d.Extra[i])))
		}
	}
	chat := filepath.Join("testdata", "chat.jsonl")
	want := []string{
		"sales-report-q3/1 User gold=true pred=false team=<nil>",
		"sales-report-q3/2 Tool gold=true pred=true team=sales predict_seq=1 predict_function=sales_db.aggregate predict_call_id=call_1 source_file=" + chat + " source_line=1 source_message_index=2",
		"sales-report-q3/3 Agent gold=true pred=true team=sales predict_seq=2 source_file=" + chat + " source_line=1 source_message_index=4",
		"refund-7@1/1 Tool gold=true pred=true team=<nil> predict_seq=1 predict_function=refund predict_call_id=c1 source_file=" + chat + " source_line=2 source_message_index=1",
		"refund-7@1/2 Agent gold=true pred=true team=<nil> predict_seq=2 source_file=" + chat + " source_line=2 source_message_index=2",
		"refund-7@2/1 Tool gold=true pred=true team=<nil> predict_seq=1 predict_function=refund predict_call_id=c1 " +
			"predict_args_error=arguments are not JSON: invalid character 'o' looking for beginning of object key string source_file=" + chat + " source_line=3 source_message_index=1",
		"refund-7@2/2 Agent gold=true pred=false team=<nil>",
		"unanswered/1 Tool gold=true pred=false team=<nil>",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("joined rows (-want +got):\n%s", d)
	}
	res, err := metrics.Evaluate(context.Background(), metrics.Lexical{}, metrics.DefaultConfig(), dialogs)
	if err != nil {
		t.Fatal(err)
	}
	var verdicts []string
	for _, dr := range res {
		for _, v := range dr.Turns {
			verdicts = append(verdicts, fmt.Sprintf("%s/%d:%s", dr.DialogID, v.TurnNo, v.FailureReason))
		}
	}
	wantV := []string{"sales-report-q3/2:", "sales-report-q3/3:", "refund-7/1:", "refund-7/2:",
		"refund-7/1:unparseable_arguments", "refund-7/2:missing_turn", "unanswered/1:missing_turn"}
	if d := cmp.Diff(wantV, verdicts); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
}

// extras renders a turn's extra values as name=value: the gold file's
// "team" always, the join's columns when not null.
func extras(r *golden.Reader, row parquet.Row) string {
	var parts []string
	for _, e := range r.Extras() {
		for _, v := range row {
			if v.Column() != e.FirstLeaf {
				continue
			}
			switch {
			case !v.IsNull():
				parts = append(parts, e.Name+"="+v.String())
			case e.Name == "team":
				parts = append(parts, "team=<nil>")
			}
		}
	}
	return strings.Join(parts, " ")
}

// TestJoinTrialKey: the trial is a key of its own, so a gold dialog_id
// that looks like "<id>#<trial>" can never be confused with a trial.
func TestJoinTrialKey(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, "gold.jsonl")
	pred := filepath.Join(dir, "chat.jsonl")
	writeFile(t, gold, `{"dialog_id": "a", "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "hi"}}]}
{"dialog_id": "a#1", "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "hi"}}]}
`)
	writeFile(t, pred, `{"conversation_id": "a", "trial": 0, "messages": [{"role": "assistant", "content": "hi"}]}
{"conversation_id": "a", "trial": 1, "messages": [{"role": "assistant", "content": "hi"}]}
{"conversation_id": "a#1", "messages": [{"role": "assistant", "content": "hello"}]}
`)
	var got []string
	for _, d := range drain(t, joiner(t, gold, pred, align.Options{})) {
		trial := "none"
		if d.Trial != nil {
			trial = fmt.Sprint(*d.Trial)
		}
		got = append(got, fmt.Sprintf("%s trial=%s %q", d.ID, trial, d.Turns[0].PredictResponse))
	}
	want := []string{`a trial=0 "hi"`, `a trial=1 "hi"`, `a#1 trial=none "hello"`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("joined dialogs (-want +got):\n%s", d)
	}
}

// TestJoinRefusesGoldTrials: with predictions, trials come from the
// predictions; a golden dataset that has its own is refused.
func TestJoinRefusesGoldTrials(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, "gold.jsonl")
	pred := filepath.Join(dir, "chat.jsonl")
	writeFile(t, gold, `{"dialog_id": "a", "trial": 1, "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "hi"}}]}
`)
	writeFile(t, pred, `{"conversation_id": "a", "trial": 1, "messages": [{"role": "assistant", "content": "hi"}]}
`)
	_, err := joiner(t, gold, pred, align.Options{}).Next(context.Background())
	if err == nil || !strings.Contains(err.Error(), `gold dialog "a" has trial 1: with predictions, the trials come from the predictions`) ||
		!strings.Contains(err.Error(), "field trial") || !errors.Is(err, badinput.ErrInvalid) || !errors.Is(err, ErrJoin) {
		t.Errorf("err = %v, want the gold trial refused as bad input", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
