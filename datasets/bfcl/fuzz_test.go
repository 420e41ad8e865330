package bfcl

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead: the three BFCL readers never panic and fail only with
// ErrInvalid; an entry read from a question line and an answer line either
// converts or is skipped with a reason, and perturbs without panicking.
func FuzzRead(f *testing.F) {
	qs, _ := os.ReadFile(filepath.Join("testdata", "questions.jsonl"))
	as, _ := os.ReadFile(filepath.Join("testdata", "answers.jsonl"))
	rs, _ := os.ReadFile(filepath.Join("testdata", "results.jsonl"))
	ql, al, rl := bytes.Split(qs, []byte("\n")), bytes.Split(as, []byte("\n")), bytes.Split(rs, []byte("\n"))
	for i := range min(len(ql), len(al), len(rl)) {
		f.Add(ql[i], al[i], rl[i])
	}
	f.Fuzz(func(t *testing.T, q, a, r []byte) {
		entries, qerr := ReadQuestions("q", bytes.NewReader(q))
		answers, aerr := ReadAnswers("a", bytes.NewReader(a))
		results, rerr := ReadResults("r", bytes.NewReader(r))
		for _, err := range []error{qerr, aerr, rerr} {
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
		}
		if qerr != nil || aerr != nil || len(entries) != 1 {
			return
		}
		e := entries[0]
		for _, calls := range answers {
			e.Answers = calls
		}
		var pred *Prediction
		for _, p := range results {
			pred = &p
		}
		if _, err := Convert(e, pred); err != nil && !errors.Is(err, ErrSkipped) && !errors.Is(err, ErrInvalid) {
			t.Fatalf("Convert: %v", err)
		}
		for _, p := range Perturbations {
			Perturb(e, p)
		}
	})
}
