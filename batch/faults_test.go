package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/rundir"

	"github.com/aem-dev/aem/input/golden"
	"github.com/parquet-go/parquet-go"
)

// failingWriter fails with ENOSPC once more than limit bytes were written
// to files whose name contains match.
func failingWriter(match string, limit int64) rundir.Wrap {
	var written atomic.Int64
	return func(name string, w io.Writer) io.Writer {
		if !strings.Contains(name, match) {
			return w
		}
		return writerFunc(func(p []byte) (int, error) {
			if written.Add(int64(len(p))) > limit {
				return 0, &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
			}
			return w.Write(p)
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestDiskFullDuringWrite(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(100, 12))
	ref := filepath.Join(dir, "ref")
	mustRun(t, baseOptions(in, ref))
	for _, c := range []struct {
		name, match string
		limit       int64
	}{
		{"final turns", rundir.TurnsFile, 2000},
		{"final dialogs", rundir.DialogsFile, 100},
		{"summary", rundir.SummaryFile, 10},
		{"part", "part-00002.turns", 100},
		{"manifest", manifestName, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			_, err := run(context.Background(), baseOptions(in, out), failingWriter(c.match, c.limit))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("run = %v, want ENOSPC", err)
			}
			assertNotComplete(t, out)
			// Once space is back, --resume finishes the run exactly.
			o := baseOptions(in, out)
			o.Resume = true
			mustRun(t, o)
			sameOutputs(t, ref, out)
		})
	}
}

func TestScorerErrorMidRun(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(100, 13))
	out := filepath.Join(dir, "out")
	var p recProgress
	o := baseOptions(in, out)
	o.Workers = 3
	o.Scorer = &fakeScorer{failAt: 5}
	o.Progress = &p
	_, err := Run(context.Background(), o)
	if !errors.Is(err, ErrScorer) || !strings.Contains(err.Error(), "model exploded on call 5") {
		t.Fatalf("Run = %v, want ErrScorer with the scorer's message", err)
	}
	if strings.Count(err.Error(), "model exploded") != 1 {
		t.Errorf("error reported more than once: %v", err)
	}
	assertNotComplete(t, out)
	if p.err == nil || p.calls[len(p.calls)-1] != "done" {
		t.Errorf("progress not told of the failure: %v %v", p.calls, p.err)
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	good := writeGolden(t, dir, genDialogs(50, 14))
	data := readFile(t, good)
	truncated := filepath.Join(dir, "truncated.parquet")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	corrupt := filepath.Join(dir, "corrupt.parquet")
	bad := slices.Clone(data)
	for i := 100; i < len(bad)/3; i += 97 {
		bad[i] ^= 0xff
	}
	os.WriteFile(corrupt, bad, 0o644)
	missingCol := filepath.Join(dir, "missing.parquet")
	type partial struct {
		DialogID string `parquet:"dialog_id"`
		TurnNo   int64  `parquet:"turn_no"`
	}
	if err := parquet.WriteFile(missingCol, []partial{{"a", 1}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, input string
		want        error
	}{
		{"truncated", truncated, badinput.ErrInvalid},
		{"corrupt pages", corrupt, nil},
		{"missing columns", missingCol, golden.ErrMissingColumn},
		{"no such file", filepath.Join(dir, "nope.parquet"), os.ErrNotExist},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
			_, err := Run(context.Background(), baseOptions(c.input, out))
			if err == nil {
				t.Fatal("Run succeeded on bad input")
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Run = %v, want %v", err, c.want)
			}
			t.Logf("error: %v", err)
			assertNotComplete(t, out)
		})
	}
}

func TestReadRunErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(30, 15))
	src := filepath.Join(dir, "src")
	mustRun(t, baseOptions(in, src))
	copyRun := func(name string) string {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		for _, f := range []string{rundir.TurnsFile, rundir.DialogsFile, rundir.SummaryFile} {
			os.WriteFile(filepath.Join(d, f), readFile(t, filepath.Join(src, f)), 0o644)
		}
		return d
	}
	for _, c := range []struct {
		name string
		mut  func(d string)
		want error
	}{
		{"no summary", func(d string) { os.Remove(filepath.Join(d, rundir.SummaryFile)) }, rundir.ErrIncomplete},
		{"no turns", func(d string) { os.Remove(filepath.Join(d, rundir.TurnsFile)) }, rundir.ErrIncomplete},
		{"bad summary", func(d string) { os.WriteFile(filepath.Join(d, rundir.SummaryFile), []byte("{"), 0o644) }, rundir.ErrCorrupt},
		{"summary version", func(d string) {
			os.WriteFile(filepath.Join(d, rundir.SummaryFile), []byte(`{"version": 99}`), 0o644)
		}, rundir.ErrCorrupt},
		{"truncated turns", func(d string) {
			b := readFile(t, filepath.Join(d, rundir.TurnsFile))
			os.WriteFile(filepath.Join(d, rundir.TurnsFile), b[:len(b)-10], 0o644)
		}, rundir.ErrCorrupt},
		{"wrong file", func(d string) {
			os.WriteFile(filepath.Join(d, rundir.TurnsFile), readFile(t, filepath.Join(d, rundir.DialogsFile)), 0o644)
		}, rundir.ErrCorrupt},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := copyRun(strings.ReplaceAll(c.name, " ", "-"))
			c.mut(d)
			_, err := rundir.Open(context.Background(), d, rundir.OpenOptions{})
			if !errors.Is(err, c.want) {
				t.Fatalf("rundir.Open = %v, want %v", err, c.want)
			}
		})
	}
	// A corrupt page inside turns.parquet surfaces as an iteration error.
	d := copyRun("corrupt-page")
	b := readFile(t, filepath.Join(d, rundir.TurnsFile))
	for i := 8; i < len(b)/2; i += 13 {
		b[i] ^= 0x5a
	}
	os.WriteFile(filepath.Join(d, rundir.TurnsFile), b, 0o644)
	rd, err := rundir.Open(context.Background(), d, rundir.OpenOptions{})
	if err == nil {
		defer rd.Close()
		var iterErr error
		for _, err := range rd.Turns(context.Background()) {
			if err != nil {
				iterErr = err
				break
			}
		}
		if iterErr == nil {
			t.Fatal("reading a corrupt turns.parquet gave no error")
		}
		t.Logf("iteration error: %v", iterErr)
	}
}

func TestExtraColumnsCarriedThrough(t *testing.T) {
	dir := t.TempDir()
	ds := genDialogs(25, 16)
	in := writeGoldenExtras(t, dir, ds)
	out := filepath.Join(dir, "out")
	rd := runWithExtras(t, in, out, []string{"source", "quality", "labels", "input_pass"})
	// Read the rows generically and check the extras against the input.
	type turnWithExtras struct {
		DialogID  string   `parquet:"dialog_id"`
		TurnNo    int64    `parquet:"turn_no"`
		Source    string   `parquet:"source"`
		Quality   *float64 `parquet:"quality,optional"`
		Labels    []string `parquet:"labels,list"`
		InputPass *int32   `parquet:"input_pass,optional"`
		Pass      bool     `parquet:"pass"`
	}
	rows, err := parquet.ReadFile[turnWithExtras](filepath.Join(out, rundir.TurnsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != rd.Summary.Turns {
		t.Fatalf("%d rows", len(rows))
	}
	byID := map[string]int{}
	for i, d := range ds {
		byID[d.ID] = i
	}
	for _, r := range rows {
		i := byID[r.DialogID]
		j := int(r.TurnNo) - 1
		if want := fmt.Sprintf("src-%d-%d", i, j); r.Source != want {
			t.Errorf("%s/%d: source %q, want %q", r.DialogID, r.TurnNo, r.Source, want)
		}
		if (r.Quality != nil) != (j%2 == 0) || (r.Quality != nil && *r.Quality != float64(i)/10) {
			t.Errorf("%s/%d: quality %v", r.DialogID, r.TurnNo, r.Quality)
		}
		if !slices.Equal(r.Labels, []string{"a", fmt.Sprint(j)}) {
			t.Errorf("%s/%d: labels %v", r.DialogID, r.TurnNo, r.Labels)
		}
		if r.InputPass == nil || *r.InputPass != int32(i) {
			t.Errorf("%s/%d: input_pass %v", r.DialogID, r.TurnNo, r.InputPass)
		}
	}
	// Determinism holds with extras too.
	out4 := filepath.Join(dir, "out4")
	o := baseOptions(in, out4)
	o.Workers = 4
	o.ChunkTurns = 3
	mustRun(t, o)
	sameOutputs(t, out, out4)
}

func TestProgressReports(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(40, 17))
	var p recProgress
	o := baseOptions(in, filepath.Join(dir, "out"))
	o.Progress = &p
	o.CacheStats = func() (int64, int64) { return 7, 3 }
	s := mustRun(t, o)
	if !slices.Equal(p.calls, []string{"start", "update", "done"}) {
		t.Errorf("calls %v", p.calls)
	}
	if p.err != nil || p.done.DialogsDone != int64(s.Dialogs) || p.done.TurnsDone != int64(s.Turns) {
		t.Errorf("done %+v err %v, summary %d dialogs %d turns", p.done, p.err, s.Dialogs, s.Turns)
	}
	if p.total <= 0 || p.done.RowsRead != p.total {
		t.Errorf("total rows %d, rows read %d", p.total, p.done.RowsRead)
	}
	if p.done.CacheHits != 7 || p.done.CacheMisses != 3 || p.done.ScorerPairs == 0 || p.done.Checkpoints == 0 {
		t.Errorf("stats %+v", p.done)
	}
}

// TestJSONExtrasCarriedThrough runs a JSON Lines dataset with keys the
// format does not define: they reach turns.parquet as typed columns (a
// clash with an output column renamed input_<name>), dialog keys as
// dialog_<key>.
func TestJSONExtrasCarriedThrough(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "golden.jsonl")
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, `{"dialog_id": "d%d", "team": "t%d", "turns": [`, i, i%2)
		fmt.Fprintf(&b, `{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "total is %d"}, "predict_turn": {"response": "total is %d"}, "pass": %d, "field_labels": {"response": true}},`, i, i, i)
		fmt.Fprintf(&b, `{"turn_no": 2, "turn": "Tool", "gold_turn": {"tool_id": "db", "action": "q", "args": {"n": %d}}, "predict_turn": {"tool_id": "db", "action": "q", "args": {"n": %d}}, "source": "run-%d"}]}`+"\n", i, i+i%2, i)
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	runWithExtras(t, in, out, []string{"field_labels", "input_pass", "source", "dialog_team"})
	type turnWithExtras struct {
		DialogID    string  `parquet:"dialog_id"`
		TurnNo      int64   `parquet:"turn_no"`
		Pass        bool    `parquet:"pass"`
		FieldLabels *string `parquet:"field_labels,optional"`
		InputPass   *int64  `parquet:"input_pass,optional"`
		Source      *string `parquet:"source,optional"`
		Team        *string `parquet:"dialog_team,optional"`
	}
	rows, err := parquet.ReadFile[turnWithExtras](filepath.Join(out, rundir.TurnsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 {
		t.Fatalf("%d rows, want 12", len(rows))
	}
	for k, r := range rows {
		i := k / 2
		if r.Team == nil || *r.Team != fmt.Sprintf("t%d", i%2) {
			t.Errorf("%s/%d: dialog_team %v", r.DialogID, r.TurnNo, r.Team)
		}
		if r.TurnNo == 1 {
			if r.FieldLabels == nil || *r.FieldLabels != `{"response":true}` || r.InputPass == nil || *r.InputPass != int64(i) || r.Source != nil {
				t.Errorf("%s/1: field_labels %v, input_pass %v, source %v", r.DialogID, r.FieldLabels, r.InputPass, r.Source)
			}
			continue
		}
		if r.FieldLabels != nil || r.InputPass != nil || r.Source == nil || *r.Source != fmt.Sprintf("run-%d", i) {
			t.Errorf("%s/2: field_labels %v, input_pass %v, source %v", r.DialogID, r.FieldLabels, r.InputPass, r.Source)
		}
		if r.Pass != (i%2 == 0) {
			t.Errorf("%s/2: pass %v", r.DialogID, r.Pass)
		}
	}
}

// runWithExtras runs in into out and checks the run's extra columns.
func runWithExtras(t *testing.T, in, out string, want []string) *rundir.Run {
	t.Helper()
	mustRun(t, baseOptions(in, out))
	rd, err := rundir.Open(context.Background(), out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	if !slices.Equal(rd.ExtraColumns, want) {
		t.Fatalf("extra columns %v, want %v", rd.ExtraColumns, want)
	}
	return rd
}
