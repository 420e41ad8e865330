package bfcl

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics"
)

// liveDir is the team's copy of BFCL v4's live categories.
const liveDir = "../../../shared/data/bfcl-v4-live"

// liveCategories are BFCL v4's live categories; irrelevance has no
// possible answers (the right answer is no call).
var liveCategories = []string{"simple", "multiple", "parallel", "parallel_multiple", "irrelevance"}

// loadLive reads every live category with its answers, or skips.
func loadLive(t testing.TB) []Entry {
	t.Helper()
	if _, err := os.Stat(liveDir); err != nil {
		t.Skipf("BFCL live data not found at %s (the team's ../shared/data/bfcl-v4-live): %v", liveDir, err)
	}
	var all []Entry
	for _, cat := range liveCategories {
		qf := filepath.Join(liveDir, "BFCL_v4_live_"+cat+".json")
		af := filepath.Join(liveDir, "possible_answer", "BFCL_v4_live_"+cat+".json")
		es := mustRead(t, qf, ReadQuestions)
		as := map[string][]PossibleCall{}
		if cat != "irrelevance" {
			as = mustRead(t, af, ReadAnswers)
		}
		if err := Attach(es, as, qf, af); err != nil {
			t.Fatal(err)
		}
		all = append(all, es...)
	}
	return all
}

func mustRead[T any](t testing.TB, path string, read func(string, io.Reader) (T, error)) T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := read(path, f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestWritePerturbed writes one BFCL result file per perturbation into
// $AEM_BFCL_OUT (scripts/bench-bfcl drives it); skipped otherwise.
func TestWritePerturbed(t *testing.T) {
	out := os.Getenv("AEM_BFCL_OUT")
	if out == "" {
		t.Skip("set AEM_BFCL_OUT=DIR to write perturbed predictions (scripts/bench-bfcl)")
	}
	entries := loadLive(t)
	for _, p := range Perturbations {
		var ids []string
		preds := map[string]Prediction{}
		for _, e := range entries {
			if pred, ok := Perturb(e, p); ok {
				ids = append(ids, e.ID)
				preds[e.ID] = pred
			}
		}
		f, err := os.Create(filepath.Join(out, string(p)+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteResults(f, ids, preds); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d entries", p, len(ids))
	}
}

// liveSkips are the live entries whose possible answer BFCL's own checker
// can never pass (so the converter leaves them out), with the reason.
var liveSkips = map[string]string{
	"live_simple_106-63-0":    `lists no acceptable value for "auto_loan_payment_start"`,
	"live_simple_112-68-0":    `lists no acceptable value for "acc_routing_start"`,
	"live_multiple_862-181-3": `gives "journey_start_time", a parameter its definition lacks`,
	"live_multiple_964-207-0": `gives "question", a parameter its definition lacks`,
}

// TestLiveConvert converts every live entry: all but liveSkips become
// dialogs, with the definitions as BFCL wrote them; where an answer breaks
// them, the conflicts are findings aem run reports (BENCHMARKS.md counts
// them).
func TestLiveConvert(t *testing.T) {
	entries := loadLive(t)
	kinds, rules := map[string]int{}, map[string]int{}
	converted, dialogs := 0, 0
	for _, e := range entries {
		c, err := Convert(e, nil)
		if want, skip := liveSkips[e.ID]; skip {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %v, want a skip saying %q", e.ID, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		converted++
		for _, r := range c.Repairs {
			kinds[r.Kind]++
		}
		any := false
		for _, turn := range c.Dialog.Turns {
			if turn.Role != metrics.RoleTool || turn.GoldNoCall {
				continue
			}
			if err := metrics.ValidateGoldArgs(turn.Gold.Args); err != nil {
				t.Errorf("%s: %v", e.ID, err)
			}
			for _, k := range metrics.GoldConflicts(c.Dialog.Tools, turn.Gold) {
				rules[string(k.Rule)]++
				any = true
			}
		}
		if any {
			dialogs++
		}
	}
	if converted != len(entries)-len(liveSkips) {
		t.Errorf("converted %d of %d entries", converted, len(entries))
	}
	// The figures BENCHMARKS.md reports.
	if len(kinds) != 0 {
		t.Errorf("repairs %v, want none", kinds)
	}
	if want := map[string]int{"type": 24, "enum": 11}; !maps.Equal(rules, want) || dialogs != 30 {
		t.Errorf("conflicts %v in %d dialogs, want %v in 30", rules, dialogs, want)
	}
}

// documented are the perturbations where aem's verdict differs from BFCL's
// checker by design (README: "Tool definitions"), always the same way:
// aem passes, BFCL fails.
var documented = map[Perturbation]string{
	DefaultGiven: "an optional parameter the answer leaves out, given its schema default: aem passes (same call), BFCL fails it as unexpected",
	OmitDefault:  `an optional parameter left out whose answer is its schema default: aem passes (same call), BFCL needs "" among the answer's values`,
}

// stricter says where aem fails what BFCL's checker passes, by design:
// BFCL compares every string case-insensitively; aem compares a URL's path
// as it is (RFC 3986: only the scheme and host are case-insensitive), so
// under case_spacing an upper-cased path is another resource. It reports
// whether every failing field of the dialog is a URL.
func stricter(p Perturbation, res metrics.DialogResult) bool {
	if p != CaseSpacing {
		return false
	}
	failing := 0
	for _, v := range res.Turns {
		for _, f := range v.FieldScores {
			if !f.Pass {
				if f.Kind != "url" {
					return false
				}
				failing++
			}
		}
	}
	return failing > 0
}

// bfclVerdicts are BFCL's checker's verdicts on the perturbed predictions
// (scripts/bench-bfcl with UPDATE=1 writes them): per perturbation, the
// ids it passes or those it fails, whichever list is shorter.
type bfclVerdicts map[Perturbation]struct {
	Pass []string `json:"pass"`
	Fail []string `json:"fail"`
}

func (v bfclVerdicts) passes(p Perturbation, id string) (pass, known bool) {
	lists, ok := v[p]
	switch {
	case !ok:
		return false, false
	case lists.Pass != nil:
		return slices.Contains(lists.Pass, id), true
	}
	return !slices.Contains(lists.Fail, id), true
}

// TestAgreement judges every perturbation of every live entry with aem
// (in process, the lexical scorer; no comparison reaches it) and compares
// each dialog's verdict with BFCL's checker's: they must agree except on
// the documented perturbations, where aem passes and BFCL fails, and the
// stricter entries, where aem fails and BFCL passes. Under the
// race detector it checks every 9th entry.
func TestAgreement(t *testing.T) {
	entries := loadLive(t)
	data, err := os.ReadFile(filepath.Join("testdata", "bfcl_verdicts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var verdicts bfclVerdicts
	if err := json.Unmarshal(data, &verdicts); err != nil {
		t.Fatal(err)
	}
	step := 1
	if raceEnabled || testing.Short() {
		step = 9
	}
	var total, totalAgree, totalPlain int
	for _, p := range Perturbations {
		var agree, differ, judged, plainAgree int
		for i := 0; i < len(entries); i += step {
			e := entries[i]
			pred, ok := Perturb(e, p)
			if !ok {
				continue
			}
			bfclPass, known := verdicts.passes(p, e.ID)
			if !known {
				t.Fatalf("%s: no BFCL verdicts for this perturbation: run UPDATE=1 scripts/bench-bfcl", p)
			}
			c, err := Convert(e, &pred)
			if errors.Is(err, ErrSkipped) {
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", p, e.ID, err)
			}
			res, err := metrics.Evaluate(t.Context(), metrics.Lexical{}, metrics.DefaultConfig(), []metrics.Dialog{c.Dialog})
			if err != nil {
				t.Fatalf("%s %s: %v", p, e.ID, err)
			}
			judged++
			// The same dialog without its tool definitions, for BENCHMARKS.md.
			plain := c.Dialog
			plain.Tools = nil
			without, err := metrics.Evaluate(t.Context(), metrics.Lexical{}, metrics.DefaultConfig(), []metrics.Dialog{plain})
			if err != nil {
				t.Fatalf("%s %s without tools: %v", p, e.ID, err)
			}
			if without[0].TestPass == bfclPass {
				plainAgree++
			}
			switch aemPass := res[0].TestPass; {
			case aemPass == bfclPass:
				agree++
			case documented[p] != "" && aemPass && !bfclPass:
				differ++
			case !aemPass && bfclPass && stricter(p, res[0]):
				differ++
			default:
				t.Errorf("%s %s: aem passes %v (%s), BFCL's checker passes %v", p, e.ID, aemPass, res[0].Reason, bfclPass)
			}
		}
		t.Logf("%-20s %5d judged, %5d agree, %3d documented disagreements; without tool definitions %5d agree", p, judged, agree, differ, plainAgree)
		total, totalAgree, totalPlain = total+judged, totalAgree+agree, totalPlain+plainAgree
	}
	t.Logf("all: %d judged, %d agree (%.4f); without tool definitions %d (%.4f)", total, totalAgree,
		float64(totalAgree)/float64(total), totalPlain, float64(totalPlain)/float64(total))
}
