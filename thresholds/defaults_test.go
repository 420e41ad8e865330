package thresholds

import (
	"os"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/values"
)

// inheritedKinds are the kinds the public labelled data has too few pairs
// of: they take the name kind's entries (they are names of places,
// languages and currencies).
var inheritedKinds = map[values.Kind]values.Kind{
	values.Address: values.Name, values.Language: values.Name, values.Country: values.Name, values.Currency: values.Name,
}

// TestWriteDefaults turns the thresholds file `aem sweep --fit` wrote from
// the calibration pairs ($AEM_DEFAULTS_FROM) into a shipped calibration
// ($AEM_DEFAULTS_TO, with $AEM_DEFAULTS_SOURCE as its source):
// scripts/calibrate drives it; skipped otherwise.
func TestWriteDefaults(t *testing.T) {
	from, to := os.Getenv("AEM_DEFAULTS_FROM"), os.Getenv("AEM_DEFAULTS_TO")
	if from == "" || to == "" {
		t.Skip("set AEM_DEFAULTS_FROM and AEM_DEFAULTS_TO to write a shipped calibration (scripts/calibrate)")
	}
	f, err := Read(from)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DefaultsFrom(f, inheritedKinds, os.Getenv("AEM_DEFAULTS_SOURCE"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(to, out); err != nil {
		t.Fatal(err)
	}
}

// TestShippedDefaults reads every shipped calibration: each decodes, names
// its embedding model with the sha256 of its weights, says where it came
// from, holds an entry for every kind held to a similarity threshold and
// nothing that decides other comparisons, and is what Default returns for
// a scorer of that model (and nothing for other scorers).
func TestShippedDefaults(t *testing.T) {
	entries, err := shipped.ReadDir("defaults")
	if err != nil || len(entries) == 0 {
		t.Fatalf("no shipped calibration: %v", err)
	}
	for _, e := range entries {
		data, err := shipped.ReadFile("defaults/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		f, err := Decode(e.Name(), data)
		if err != nil {
			t.Fatal(err)
		}
		m := f.EmbeddingModel
		if m == nil || len(m.SHA256) != 64 || m.ID+".json" != e.Name() {
			t.Errorf("%s: embedding model %+v: want the model the file is named after, with its sha256", e.Name(), m)
			continue
		}
		if !strings.Contains(f.Source, "scripts/calibrate") {
			t.Errorf("%s: source %q does not say how to reproduce it", e.Name(), f.Source)
		}
		for _, k := range values.EmbeddedKinds() {
			if _, ok := f.Kinds[string(k)]; !ok {
				t.Errorf("%s: no threshold for kind %s", e.Name(), k)
			}
		}
		if f.Threshold == nil || *f.Threshold != metrics.DefaultThreshold || len(f.SubMetrics)+len(f.Fields)+len(f.Types)+len(f.CompositeFields) > 0 || f.JudgeBand != nil {
			t.Errorf("%s: decides more than value kinds: %+v", e.Name(), f)
		}
		for k := range f.Composite {
			if !strings.HasPrefix(k, "kinds.") {
				t.Errorf("%s: composite %q applies to more than a value kind", e.Name(), k)
			}
		}
		got, name, err := Default("embed:" + m.String())
		if err != nil || got == nil || name != DefaultsDir+"/"+e.Name() {
			t.Errorf("Default(embed:%s) = %v, %q, %v", m, got, name, err)
		}
		if got, _, _ := Default("embed:" + m.ID + "@sha256:" + strings.Repeat("0", 64)); got != nil {
			t.Errorf("Default of %s with other weights = %+v, want none", m.ID, got)
		}
	}
	for _, id := range []string{"lexical", "judge:gpt-4o-mini@prompt-1", "embed:custom"} {
		if got, _, err := Default(id); got != nil || err != nil {
			t.Errorf("Default(%s) = %+v, %v; want none", id, got, err)
		}
	}
}
