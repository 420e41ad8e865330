package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMetricOptionsConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"version":1,"threshold":0.6,"sub_metrics":{"truthfulness.values":0.75},"fields":{"t.a.p":0.9}}`)
	noGlobal := write("noglobal.json", `{"version":1,"fields":{"t.a.p":0.9}}`)
	bad := write("bad.json", `{"version":1,`)
	base := metricOptions{threshold: 0.5, cascade: "evidence", compose: "mean", passScore: 1}

	tests := []struct {
		name    string
		mod     func(*metricOptions)
		check   func(t *testing.T, got float64, field float64)
		wantErr string
	}{
		{name: "defaults", mod: func(*metricOptions) {}, check: func(t *testing.T, g, f float64) {
			if g != 0.5 || f != 0.5 {
				t.Errorf("global %v field %v, want 0.5 0.5", g, f)
			}
		}},
		{name: "thresholds file", mod: func(o *metricOptions) { o.thresholdsFile = good }, check: func(t *testing.T, g, f float64) {
			if g != 0.6 || f != 0.9 {
				t.Errorf("global %v field %v, want 0.6 0.9", g, f)
			}
		}},
		{name: "file without global keeps --threshold", mod: func(o *metricOptions) { o.thresholdsFile = noGlobal; o.threshold = 0.7 }, check: func(t *testing.T, g, f float64) {
			if g != 0.7 || f != 0.9 {
				t.Errorf("global %v field %v, want 0.7 0.9", g, f)
			}
		}},
		{name: "bad JSON", mod: func(o *metricOptions) { o.thresholdsFile = bad }, wantErr: "not valid JSON"},
		{name: "missing file", mod: func(o *metricOptions) { o.thresholdsFile = filepath.Join(dir, "nope.json") }, wantErr: "reading thresholds"},
		{name: "bad cascade", mod: func(o *metricOptions) { o.cascade = "domino" }, wantErr: "domino"},
		{name: "bad rule", mod: func(o *metricOptions) { o.compose = "median" }, wantErr: "median"},
		{name: "bad min rate", mod: func(o *metricOptions) { o.minRates = "structure" }, wantErr: "SUBMETRIC=RATE"},
		{name: "min rates", mod: func(o *metricOptions) { o.minRates = "structure=1, truthfulness=0.8" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.mod(&o)
			cfg, err := o.config()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, cfg.Thresholds.Threshold, cfg.Thresholds.For("truthfulness.values", "t.a.p"))
			}
		})
	}
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
