package metrics

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/tooldef"
)

var updateVersion = flag.Bool("update", false, "rewrite testdata/version/verdicts.golden")

// versionCorpus is the corpus whose verdicts pin the metric's meaning: the
// bundled example, its tool-call dialogs with their definitions, the
// planted wrong values and rewordings of every value kind
// (datasets/planted), and every dialog file under testdata/ (add dialogs
// that show a new rule there).
func versionCorpus(t *testing.T) []Dialog {
	t.Helper()
	ds := loadJSONL(t, "../datasets/example/golden.jsonl")
	data, err := os.ReadFile("../datasets/example/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := tooldef.Parse("tools.json", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range loadJSONL(t, "../datasets/example/tool-calls.jsonl") {
		d.Tools = tools
		ds = append(ds, d)
	}
	ds = append(ds, loadJSONL(t, "../datasets/planted/planted.jsonl")...)
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		ds = append(ds, loadJSONL(t, f)...)
	}
	return ds
}

// verdictLines renders what a verdict means, one line per turn and one
// per dialog: outcomes, reasons, and for every field the method that
// decided it and the threshold it was held to. Scores are left out: a
// scorer's numbers are not the metric's rules.
func verdictLines(res []DialogResult) string {
	var b strings.Builder
	for _, d := range res {
		fmt.Fprintf(&b, "dialog %s: pass=%t score=%.4f root=%s roots=%d cascades=%d\n",
			d.DialogID, d.TestPass, d.Score, d.RootCause, d.RootCauseCount, d.CascadingCount)
		for _, v := range d.Turns {
			fmt.Fprintf(&b, "  turn %d %s: pass=%t reason=%s own=%s checks=%v s/c/t=%s/%s/%s cascade_from=%d\n",
				v.TurnNo, v.Kind, v.Pass, v.FailureReason, v.OwnReason, v.FailedChecks,
				v.Structure, v.Completeness, v.Truthfulness, v.CascadeFrom)
			for _, f := range v.FieldScores {
				fmt.Fprintf(&b, "    %s %s kind=%s pass=%t threshold=%g from=%s\n", f.Field, f.Method, f.Kind, f.Pass, f.Threshold, f.ThresholdFrom)
			}
		}
	}
	return b.String()
}

// TestVersionPinsVerdicts pins the meaning of metrics.Version: the default
// configuration and the verdicts of versionCorpus under it (Lexical
// scorer), in testdata/version/verdicts.golden. When it fails, the rules
// or defaults changed what verdicts mean: bump Version if the current one
// has been released (once between releases), say what changed in
// version.go and the README's "Metric versions", and rewrite the file with
// go test ./metrics -run TestVersionPinsVerdicts -update.
func TestVersionPinsVerdicts(t *testing.T) {
	cfg := DefaultConfig()
	conf, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("metric version %d\ndefault config %s\n", Version, conf) +
		verdictLines(evalAll(t, cfg, versionCorpus(t)...))
	path := filepath.Join("testdata", "version", "verdicts.golden")
	if *updateVersion {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the verdicts of the version corpus changed under metric version %d:\n%s\n"+
			"If version %d has been released, bump metrics.Version; say what changed in metrics/version.go and the README's "+
			"\"Metric versions\"; then: go test ./metrics -run TestVersionPinsVerdicts -update",
			Version, firstDiff(string(want), got), Version)
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  pinned: %s\n  now:    %s", i+1, w, g)
		}
	}
	return ""
}
