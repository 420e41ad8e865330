package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/thresholds"
)

func TestMetricOptionsConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, dir, name, body) }
	good := write("good.json", `{"version":1,"threshold":0.6,"sub_metrics":{"truthfulness.values":0.75},"fields":{"t.a.p":0.9}}`)
	zero := write("zero.json", `{"version":2,"threshold":0,"sub_metrics":{"truthfulness.values":0}}`)
	noGlobal := write("noglobal.json", `{"version":2,"fields":{"t.a.p":0.9}}`)
	bad := write("bad.json", `{"version":1,`)
	unknown := write("unknown.json", `{"version":2,"treshold":0.5}`)
	base := metricOptions{threshold: givenFloat{value: 0.5}, cascade: "evidence", compose: "mean", passScore: 1}
	given := func(v float64) givenFloat { return givenFloat{value: v, given: true} }

	tests := []struct {
		name          string
		mod           func(*metricOptions)
		global, field float64 // want: the global threshold and the one for t.a.p's values
		usage         bool    // want a usage error (exit 2)
		invalid       bool    // want thresholds.ErrInvalid (exit 3)
		wantErr       string
	}{
		{name: "defaults", mod: func(*metricOptions) {}, global: 0.5, field: 0.5},
		{name: "flag", mod: func(o *metricOptions) { o.threshold = given(0.7) }, global: 0.7, field: 0.7},
		{name: "flag 0", mod: func(o *metricOptions) { o.threshold = given(0) }, global: 0, field: 0},
		{name: "thresholds file", mod: func(o *metricOptions) { o.thresholdsFile = good }, global: 0.6, field: 0.9},
		{name: "explicit flag replaces the file's global only", mod: func(o *metricOptions) { o.thresholdsFile = good; o.threshold = given(0.3) }, global: 0.3, field: 0.9},
		{name: "the file's 0 is kept", mod: func(o *metricOptions) { o.thresholdsFile = zero }, global: 0, field: 0},
		{name: "file without global keeps --threshold", mod: func(o *metricOptions) { o.thresholdsFile = noGlobal; o.threshold = given(0.7) }, global: 0.7, field: 0.9},
		{name: "bad JSON", mod: func(o *metricOptions) { o.thresholdsFile = bad }, invalid: true, wantErr: "not valid JSON"},
		{name: "unknown key", mod: func(o *metricOptions) { o.thresholdsFile = unknown }, invalid: true, wantErr: "field treshold: unknown key"},
		{name: "missing file", mod: func(o *metricOptions) { o.thresholdsFile = filepath.Join(dir, "nope.json") }, wantErr: "reading thresholds"},
		{name: "threshold out of range", mod: func(o *metricOptions) { o.threshold = given(2) }, usage: true, wantErr: "threshold: 2 is not in [-1, 1]"},
		{name: "bad cascade", mod: func(o *metricOptions) { o.cascade = "domino" }, usage: true, wantErr: "domino"},
		{name: "bad rule", mod: func(o *metricOptions) { o.compose = "median" }, usage: true, wantErr: "median"},
		{name: "bad min rate", mod: func(o *metricOptions) { o.minRates = "structure" }, usage: true, wantErr: "SUBMETRIC=RATE"},
		{name: "min rates", mod: func(o *metricOptions) { o.minRates = "structure=1, truthfulness=0.8" }, global: 0.5, field: 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.mod(&o)
			file, err := o.readThresholds()
			var m *metrics.Metric
			if err == nil {
				m, err = o.metric(file)
			}
			if tt.wantErr != "" {
				// isFlagValue: runCommand turns the error into a usage error (exit 2).
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || isFlagValue(err) != tt.usage || errors.Is(err, thresholds.ErrInvalid) != tt.invalid {
					t.Fatalf("err = %v (%T), want one containing %q, usage %v, invalid %v", err, err, tt.wantErr, tt.usage, tt.invalid)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (file != nil) != (o.thresholdsFile != "" && o.thresholdsFile != noThresholds) {
				t.Errorf("file %v for --thresholds %q", file, o.thresholdsFile)
			}
			q := metrics.ThresholdQuery{SubMetric: metrics.SubTruthValues, Field: "t.a.p", Param: "t.a.p"}
			th := m.Config().Thresholds
			if g, f := th.Threshold, th.For(q).Value; g != tt.global || f != tt.field {
				t.Errorf("global %v field %v, want %v %v", g, f, tt.global, tt.field)
			}
		})
	}
}

// TestThresholdFlagGiven checks that --threshold and AEM_THRESHOLD both
// count as given, and the default does not.
func TestThresholdFlagGiven(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		env   string
		want  givenFloat
		fails bool
	}{
		{nil, "", givenFloat{value: 0.5}, false},
		{[]string{"--threshold", "0.5"}, "", givenFloat{value: 0.5, given: true}, false},
		{[]string{"--threshold=0"}, "", givenFloat{value: 0, given: true}, false},
		{nil, "0.25", givenFloat{value: 0.25, given: true}, false},
		{[]string{"--threshold", "banana"}, "", givenFloat{}, true},
	} {
		var o metricOptions
		fs := newFlagSet("run")
		o.addFlags(fs)
		err := fs.flags.Parse(tc.args)
		if err == nil {
			err = fs.applyEnv(func(k string) string {
				if k == "AEM_THRESHOLD" {
					return tc.env
				}
				return ""
			}, io.Discard)
		}
		if (err != nil) != tc.fails || !tc.fails && o.threshold != tc.want {
			t.Errorf("%v env %q: %+v, %v; want %+v", tc.args, tc.env, o.threshold, err, tc.want)
		}
	}
}

// writeFile writes body to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseRates(t *testing.T) {
	got, err := parseRates("structure=1,truthfulness=0.8")
	if err != nil {
		t.Fatal(err)
	}
	if got["structure"] != 1 || got["truthfulness"] != 0.8 || len(got) != 2 {
		t.Errorf("parseRates = %v", got)
	}
	if got, err := parseRates("  "); err != nil || got != nil {
		t.Errorf("parseRates(blank) = %v, %v", got, err)
	}
	if _, err := parseRates("structure=high"); err == nil {
		t.Error("parseRates(structure=high) succeeded")
	}
}

// TestRunThresholdsExitStatus runs `aem run` in-process with thresholds
// files and flags and checks the exit status and message of each.
func TestRunThresholdsExitStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, dir, name, body) }
	lexical := write("lexical.json", `{"version": 2, "threshold": 0, "embedding_model": {"id": "lexical"}}`)
	future := write("future.json", `{"version": 5, "threshold": 0.5}`)
	model := `{"features": ["cosine", "number_mismatch"], "mean": [0.5, 0], "scale": [0.3, 1], "coefficients": [3, -4], "intercept": 0, "threshold": 0.6, "embedding_model": {"id": "%s"}}`
	fitted := write("fitted.json", fmt.Sprintf(`{"version": 3, "threshold": 0.5, "composite": {"default": `+model+`}}`, "lexical"))
	fittedElsewhere := write("elsewhere.json", fmt.Sprintf(`{"version": 3, "threshold": 0.5, "composite": {"truthfulness.values": `+model+`}}`, "embed:use-lite@sha256:4b1f"))
	typo := write("typo.json", `{"version": 2, "treshold": 0.5}`)
	example := filepath.Join("..", "..", "datasets", "example", "thresholds.json") // fitted with use-lite-int8
	input := filepath.Join("..", "..", "datasets", "example", "golden.jsonl")
	tests := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"file for this scorer, threshold 0", []string{"--thresholds", lexical}, exitOK, ""},
		{"future version", []string{"--thresholds", future}, exitInvalidRows, "field version: 5 is newer than this aem reads"},
		{"a composite fitted with this scorer", []string{"--thresholds", fitted}, exitOK, ""},
		{"a composite fitted with another model", []string{"--thresholds", fittedElsewhere}, exitInvalidRows,
			"field composite.truthfulness.values: composite fitted with another embedding model: it was fitted on cosines of embed:use-lite@sha256:4b1f, this run scores with lexical"},
		{"unknown key", []string{"--thresholds", typo}, exitInvalidRows, "field treshold: unknown key in a version 2 file"},
		{"another scorer's file", []string{"--thresholds", example}, exitInvalidRows, "field embedding_model: fitted with use-lite-int8, but this run scores with lexical"},
		{"threshold out of range", []string{"--threshold", "2"}, exitUsage, "threshold: 2 is not in [-1, 1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
			args := append([]string{input, "-o", filepath.Join(t.TempDir(), "out"), "--scorer", "lexical", "--quiet"}, tc.args...)
			err := runCommand(t.Context(), env, cmdRun(), args)
			if got := exitStatus(env, err); got != tc.status || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d with %q", got, errb.String(), tc.status, tc.stderr)
			}
			if tc.name == "a composite fitted with this scorer" && !strings.Contains(out.String(), "with lexical+composite:") {
				t.Errorf("the run did not score with the file's composite:\n%s", out.String())
			}
		})
	}
}
