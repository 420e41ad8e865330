package thresholds

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
)

// Read reads and strictly decodes the thresholds file at path (see Decode).
func Read(path string) (File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, fmt.Errorf("reading thresholds file: %w", err)
	}
	return Decode(path, data)
}

// Encode renders f as the file's bytes: indented JSON, keys in the
// layout's order, a final newline. It refuses what Decode would refuse,
// so every file written reads back.
func Encode(f File) ([]byte, error) {
	if keysOf(f.Version) == nil {
		return nil, fmt.Errorf("encoding thresholds: version %d is not one this aem reads (1 to %d)", f.Version, Version)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding thresholds: %w", err)
	}
	b = append(b, '\n')
	if _, err := Decode("", b); err != nil {
		return nil, fmt.Errorf("encoding thresholds: %w", err)
	}
	return b, nil
}

// Write writes f to path atomically (safefile: temp file, fsync, rename,
// fsync of the directory): the one writer of thresholds files.
func Write(path string, f File) error {
	b, err := Encode(f)
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, b)
}

// ModelOf names the model behind a metrics.Scorer ID: "embed:<id>@sha256:<hex>"
// gives {id, hex}; any other ID (e.g. "lexical") gives {ID: scorerID}. Of
// a scorer that escalates ("embed:…+judge:…[band …]") it is the first's.
func ModelOf(scorerID string) Model {
	scorerID, _, _ = strings.Cut(scorerID, "+")
	if rest, ok := strings.CutPrefix(scorerID, "embed:"); ok {
		if id, sum, ok := strings.Cut(rest, "@sha256:"); ok {
			return Model{ID: id, SHA256: sum}
		}
		return Model{ID: rest}
	}
	return Model{ID: scorerID}
}

// CheckScorer refuses to apply f with the scorer scorerID when f names
// another embedding model: a threshold fitted on one model's scores means
// nothing on another's. A file without embedding_model (every version 1
// file) applies to any scorer.
func (f File) CheckScorer(name, scorerID string) error {
	want := f.EmbeddingModel
	if want == nil {
		return nil
	}
	got := ModelOf(scorerID)
	if got.ID == want.ID && (want.SHA256 == "" || got.SHA256 == want.SHA256) {
		return nil
	}
	return refuse(name, "embedding_model", fmt.Sprintf("fitted with %s, but this run scores with %s", want, got),
		"fit thresholds for this model with 'aem sweep' on a run made with it, or choose the model the file names (--scorer, --model, --precision)", nil)
}

// String renders the model as a scorer ID's tail: "use-lite@sha256:ab12…" or "lexical".
func (m Model) String() string {
	if m.SHA256 == "" {
		return m.ID
	}
	return m.ID + "@sha256:" + m.SHA256
}

// Scorer returns the scorer the file applies over first, a run's first
// scorer (the embedding model's): first itself when the file holds no
// composite, else its composites over first (composite.NewScorer). It
// refuses a file fitted with another embedding model than first's, in its
// embedding_model or in any composite's (name is the file's, for
// errors). A nil f gives first.
func (f *File) Scorer(name string, first metrics.Scorer) (metrics.Scorer, error) {
	if f == nil {
		return first, nil
	}
	if err := f.CheckScorer(name, first.ID()); err != nil {
		return nil, err
	}
	models := f.Composites()
	if models == nil {
		return first, nil
	}
	for _, k := range slices.Sorted(maps.Keys(models)) {
		if err := models[k].CheckEmbeddingModel(first.ID()); err != nil {
			return nil, refuse(name, "composite."+k, err.Error(), "", err)
		}
	}
	s, err := composite.NewScorer(first, models)
	if err != nil {
		return nil, refuse(name, "composite", err.Error(), "write the section as 'aem sweep --fit' does, or refit it", err)
	}
	return s, nil
}
