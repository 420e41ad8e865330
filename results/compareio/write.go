package compareio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/rundir"
)

// Output file names inside the compare output directory.
const (
	JSONFile     = "compare.json"
	ParquetFile  = "compare.parquet"
	MarkdownFile = "compare.md"
	HTMLFile     = "compare.html"
)

// PairRow is one row of compare.parquet: a turn present in both the base
// and a candidate, with both verdicts.
type PairRow struct {
	Base        string  `parquet:"base"`
	Candidate   string  `parquet:"candidate"`
	DialogID    string  `parquet:"dialog_id"`
	Trial       *int64  `parquet:"trial,optional"` // null when the dialog is not one of repeated trials
	TurnNo      int64   `parquet:"turn_no"`
	Kind        string  `parquet:"kind"`
	Tool        *string `parquet:"tool,optional"`
	ChainBucket *string `parquet:"chain_bucket,optional"`
	// Change is "regressed", "fixed", "both_pass" or "both_fail".
	Change string `parquet:"change"`

	BasePass               bool    `parquet:"base_pass"`
	CandidatePass          bool    `parquet:"candidate_pass"`
	BaseFailureReason      *string `parquet:"base_failure_reason,optional"`
	CandidateFailureReason *string `parquet:"candidate_failure_reason,optional"`
	BaseOwnReason          *string `parquet:"base_own_reason,optional"`
	CandidateOwnReason     *string `parquet:"candidate_own_reason,optional"`
	BaseRootCause          bool    `parquet:"base_root_cause"`
	CandidateRootCause     bool    `parquet:"candidate_root_cause"`
	BaseCascadeFrom        *int64  `parquet:"base_cascade_from,optional"`
	CandidateCascadeFrom   *int64  `parquet:"candidate_cascade_from,optional"`

	BaseStructure         string `parquet:"base_structure"`
	CandidateStructure    string `parquet:"candidate_structure"`
	BaseCompleteness      string `parquet:"base_completeness"`
	CandidateCompleteness string `parquet:"candidate_completeness"`
	BaseTruthfulness      string `parquet:"base_truthfulness"`
	CandidateTruthfulness string `parquet:"candidate_truthfulness"`

	Gold                 string                 `parquet:"gold"`
	BasePredicted        string                 `parquet:"base_predicted"`
	CandidatePredicted   string                 `parquet:"candidate_predicted"`
	BaseFieldScores      []rundir.FieldScoreRow `parquet:"base_field_scores,list"`
	CandidateFieldScores []rundir.FieldScoreRow `parquet:"candidate_field_scores,list"`
}

// PairRows flattens every comparison's paired turns, in comparison order
// then key order.
func PairRows(rep *compare.Report) []PairRow {
	var rows []PairRow
	for _, c := range rep.Comparisons {
		for _, p := range c.Pairs {
			b, k := p.Base, p.Candidate
			change := "both_pass"
			switch {
			case b.Pass && !k.Pass:
				change = "regressed"
			case !b.Pass && k.Pass:
				change = "fixed"
			case !b.Pass:
				change = "both_fail"
			}
			rows = append(rows, PairRow{
				Base: c.Base, Candidate: c.Candidate, DialogID: b.DialogID, Trial: b.Trial, TurnNo: int64(b.TurnNo),
				Kind: string(b.Kind), Tool: optStr(b.Tool), ChainBucket: optStr(b.ChainBucket), Change: change,
				BasePass: b.Pass, CandidatePass: k.Pass,
				BaseFailureReason: optStr(string(b.FailureReason)), CandidateFailureReason: optStr(string(k.FailureReason)),
				BaseOwnReason: optStr(string(b.OwnReason)), CandidateOwnReason: optStr(string(k.OwnReason)),
				BaseRootCause: b.RootCause, CandidateRootCause: k.RootCause,
				BaseCascadeFrom: optInt(b.CascadeFrom), CandidateCascadeFrom: optInt(k.CascadeFrom),
				BaseStructure: string(b.Structure), CandidateStructure: string(k.Structure),
				BaseCompleteness: string(b.Completeness), CandidateCompleteness: string(k.Completeness),
				BaseTruthfulness: string(b.Truthfulness), CandidateTruthfulness: string(k.Truthfulness),
				Gold: b.Gold, BasePredicted: b.Predicted, CandidatePredicted: k.Predicted,
				BaseFieldScores: fieldRows(b.FieldScores), CandidateFieldScores: fieldRows(k.FieldScores),
			})
		}
	}
	return rows
}

func fieldRows(fs []compare.FieldScore) []rundir.FieldScoreRow {
	out := make([]rundir.FieldScoreRow, len(fs))
	for i, f := range fs {
		out[i] = rundir.FieldScoreRow{Field: f.Field, Method: f.Method, Kind: optStr(f.Kind), Score: f.Score, Threshold: f.Threshold, ThresholdFrom: f.ThresholdFrom, Pass: f.Pass}
	}
	return out
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optInt(i int) *int64 {
	if i == 0 {
		return nil
	}
	v := int64(i)
	return &v
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *compare.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteParquet writes compare.parquet's rows to w.
func WriteParquet(w io.Writer, rep *compare.Report) error {
	return parquet.Write(w, PairRows(rep))
}

// WriteReport writes compare.json, compare.parquet, compare.md and
// compare.html into dir (created if needed), each atomically; compare.json
// goes last. It does not print anything.
func WriteReport(ctx context.Context, dir string, rep *compare.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the compare output directory: %w", err)
	}
	files := []struct {
		name  string
		write func(io.Writer, *compare.Report) error
	}{
		{ParquetFile, WriteParquet},
		{MarkdownFile, WriteMarkdown},
		{HTMLFile, WriteHTML},
		{JSONFile, WriteJSON},
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := f.write(&buf, rep); err != nil {
			return fmt.Errorf("rendering %s: %w", f.name, err)
		}
		if err := safefile.WriteFile(filepath.Join(dir, f.name), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
