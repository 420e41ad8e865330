package thresholds

import (
	"embed"
	"fmt"
	"io/fs"
	"path"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/values"
)

// shipped holds the shipped calibrations, one thresholds file per model
// (defaults/<model>.json), each written by scripts/calibrate.
//
//go:embed defaults/*.json
var shipped embed.FS

// DefaultsDir is where the shipped calibrations sit in the source tree.
const DefaultsDir = "thresholds/defaults"

// Default returns the shipped calibration for the run's scorer (its ID,
// "embed:use-lite-int8@sha256:…"): the file fitted with the same embedding
// model (name and weights), and its name for messages
// ("thresholds/defaults/use-lite-int8.json"). It returns nil when no
// shipped file was fitted with the scorer's model (another model, the
// lexical scorer, a judge alone): the global threshold then decides.
func Default(scorerID string) (*File, string, error) {
	got := ModelOf(scorerID)
	entries, err := fs.ReadDir(shipped, "defaults")
	if err != nil {
		return nil, "", fmt.Errorf("reading the shipped calibrations: %w", err)
	}
	for _, e := range entries {
		name := path.Join("defaults", e.Name())
		data, err := shipped.ReadFile(name)
		if err != nil {
			return nil, "", fmt.Errorf("reading the shipped calibration %s: %w", name, err)
		}
		f, err := Decode(path.Join("thresholds", name), data)
		if err != nil {
			return nil, "", err
		}
		if m := f.EmbeddingModel; m != nil && m.ID == got.ID && m.SHA256 == got.SHA256 {
			return &f, path.Join(DefaultsDir, e.Name()), nil
		}
	}
	return nil, "", nil
}

// DefaultsFrom makes a shipped calibration out of a file `aem sweep --fit`
// wrote from labelled pairs of every kind (scripts/calibrate): it keeps the
// per-kind thresholds and composites, and nothing that would decide other
// comparisons (the global threshold is metrics.DefaultThreshold, no
// sub-metric, field, default composite or judge band). A kind held to a
// similarity threshold with too few labels to be fitted takes the entries
// of the kind named by inherit (addresses, languages, countries and
// currencies are names of places and things), said in source.
func DefaultsFrom(f File, inherit map[values.Kind]values.Kind, source string) (File, error) {
	global := metrics.DefaultThreshold
	out := File{Version: Version, Threshold: &global, EmbeddingModel: f.EmbeddingModel, Source: source}
	if f.EmbeddingModel == nil || f.EmbeddingModel.SHA256 == "" {
		return File{}, fmt.Errorf("the fitted file names no embedding model with its sha256: fit it with the model's scorer")
	}
	for _, k := range values.EmbeddedKinds() {
		from := k
		if _, ok := f.Kinds[string(k)]; !ok {
			from = inherit[k]
		}
		th, ok := f.Kinds[string(from)]
		if !ok {
			continue
		}
		if out.Kinds == nil {
			out.Kinds = map[string]float64{}
		}
		out.Kinds[string(k)] = th
		if m := f.Composite[metrics.KindKey(string(from))]; m != nil {
			if out.Composite == nil {
				out.Composite = map[string]*composite.Model{}
			}
			out.Composite[metrics.KindKey(string(k))] = m
		}
	}
	if len(out.Kinds) == 0 {
		return File{}, fmt.Errorf("the fitted file has no thresholds by kind: fit labelled pairs with a kind column")
	}
	if _, err := Encode(out); err != nil {
		return File{}, err
	}
	return out, nil
}
