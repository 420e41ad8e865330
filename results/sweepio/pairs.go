package sweepio

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/metrics/values"
)

// Pair is one human-labelled text pair.
type Pair struct {
	Row   int    // source row (line number for text files)
	Group string // resampling unit: the group column, else the row
	TextA string
	TextB string
	// Kind is the value kind the pair calibrates (the kind column: "name",
	// "category", "text", ... a kind held to a similarity threshold); ""
	// for free text pairs without one.
	Kind string

	HasLabel bool
	Label    bool
	HasScore bool
	Score    float64 // graded human similarity
}

// ReadPairs reads a pairs file: JSON Lines, CSV or TSV with a header, or
// Parquet, with columns text_a and text_b (aliases sentence1, sentence2),
// label (1/0, true/false, pass/fail) and/or score (a graded human
// similarity on any scale), an optional group column (pairs of one group
// are kept together in folds and bootstrap resamples) and an optional kind
// column (the value kind a pair calibrates, fitted apart); or the STS
// Benchmark layout (FormatSTSB; score only). FormatAuto detects the format
// from the content and extension. Every row must have both texts and a
// label or a score.
func ReadPairs(path string, format Format) ([]Pair, Format, error) {
	if format == FormatReview {
		return nil, format, fmt.Errorf("%s: %w: a review file labels a run's comparisons; give it to --labels with the run, not to --pairs", path, ErrFormat)
	}
	t, format, err := readTable(path, format)
	if err != nil {
		return nil, format, err
	}
	pairs, err := pairsOf(t)
	return pairs, format, err
}

// ParsePairs is ReadPairs on data already in memory (name is used in
// messages and for detection).
func ParsePairs(name string, data []byte, format Format) ([]Pair, error) {
	if format == FormatAuto || format == "" {
		format = detect(name, data[:min(len(data), 64<<10)])
	}
	t, err := parseTable(name, data, format)
	if err != nil {
		return nil, err
	}
	return pairsOf(t)
}

func pairsOf(t *table) ([]Pair, error) {
	ca, cb := t.col("text_a", "sentence1"), t.col("text_b", "sentence2")
	cl, cs, cg, ck := t.col("label"), t.col("score"), t.col("group", "dialog_id"), t.col("kind")
	for _, c := range []struct {
		i    int
		name string
	}{{ca, "text_a"}, {cb, "text_b"}} {
		if c.i < 0 {
			return nil, fileError(t.file, c.name, fmt.Sprintf("no %s column (columns: %v)", c.name, t.header),
				"name the columns text_a, text_b, label and/or score, or give --pairs-format stsb for an STS Benchmark file", ErrColumn)
		}
	}
	if cl < 0 && cs < 0 {
		return nil, fileError(t.file, "label", "neither a label nor a score column",
			"add label (1/0) for binary judgements and/or score for graded ones", ErrColumn)
	}
	if len(t.rows) == 0 {
		return nil, fileError(t.file, "", "no pairs", "the file has a header but no data rows", ErrValue)
	}
	out := make([]Pair, 0, len(t.rows))
	for r := range t.rows {
		p := Pair{Row: t.lines[r], Group: "row " + strconv.Itoa(t.lines[r])}
		p.TextA, _ = t.cell(r, ca)
		p.TextB, _ = t.cell(r, cb)
		if g, ok := t.cell(r, cg); ok {
			p.Group = g
		}
		if k, ok := t.cell(r, ck); ok && k != "" {
			if kind, known := values.ParseKind(k); !known || !values.Embedded(kind) {
				return nil, t.err(r, "kind", fmt.Sprintf("%q is not a kind held to a similarity threshold", k),
					"use one of "+kindList()+", or leave it empty (values of the other kinds are compared by parsed value or exactly, never by similarity)", ErrValue)
			}
			p.Kind = k
		}
		if v, ok := t.cell(r, cl); ok {
			l, err := parseLabel(v)
			if err != nil {
				return nil, t.err(r, t.header[cl], err.Error(), "or leave it empty when the row has a score", ErrValue)
			}
			p.HasLabel, p.Label = true, l
		}
		if v, ok := t.cell(r, cs); ok {
			s, err := parseScore(v)
			if err != nil {
				return nil, t.err(r, t.header[cs], err.Error(), "give a number, or leave it empty when the row has a label", ErrValue)
			}
			p.HasScore, p.Score = true, s
		}
		if !p.HasLabel && !p.HasScore {
			return nil, t.err(r, "label", "neither label nor score is set",
				"give the pair a label or a score, or remove the row", ErrValue)
		}
		out = append(out, p)
	}
	return out, nil
}

// comparison is the question a pair asks the scorer: does text_b say what
// text_a says? A pair of a value kind is asked as a value comparison of
// that kind; a pair without one is free text with no field, asked as a
// reply comparison with an empty Field.
func (p Pair) comparison() metrics.Comparison {
	if p.Kind != "" {
		return metrics.Comparison{Kind: metrics.CompareValue, ValueKind: p.Kind, Gold: p.TextA, Predicted: p.TextB}
	}
	return metrics.Comparison{Kind: metrics.CompareReply, Gold: p.TextA, Predicted: p.TextB}
}

// kindList names the kinds a pair may calibrate.
func kindList() string {
	var names []string
	for _, k := range values.EmbeddedKinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// ScorePairs scores every pair with s (text_a as gold, text_b as
// predicted), in chunks of batch pairs so cancellation is prompt, and
// returns the calibration input.
func ScorePairs(ctx context.Context, s metrics.Scorer, pairs []Pair, batch int) (sweep.Input, error) {
	if batch <= 0 {
		batch = 1024
	}
	in := sweep.Input{Samples: make([]sweep.Sample, 0, len(pairs)), EmbeddingModel: EmbeddingModelOf(s.ID())}
	for lo := 0; lo < len(pairs); lo += batch {
		hi := min(lo+batch, len(pairs))
		cs := make([]metrics.Comparison, 0, hi-lo)
		for _, p := range pairs[lo:hi] {
			cs = append(cs, p.comparison())
		}
		answers, err := s.Compare(ctx, cs)
		if err != nil {
			return sweep.Input{}, fmt.Errorf("scoring pairs %d-%d with %s: %w", lo+1, hi, s.ID(), err)
		}
		if len(answers) != len(cs) {
			return sweep.Input{}, fmt.Errorf("scoring pairs %d-%d with %s: got %d scores for %d pairs", lo+1, hi, s.ID(), len(answers), len(cs))
		}
		for i, p := range pairs[lo:hi] {
			in.Samples = append(in.Samples, sweep.Sample{Group: p.Group, Kind: p.Kind, Score: answers[i].Score, HasLabel: p.HasLabel, Label: p.Label,
				HasHuman: p.HasScore, Human: p.Score, Ref: "pair on row " + strconv.Itoa(p.Row),
				Features: features.Extract(p.TextA, p.TextB, answers[i].Score), HasFeatures: true})
		}
	}
	return in, nil
}
