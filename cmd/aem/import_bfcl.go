package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/datasets/bfcl"
	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
)

// runImportBFCL converts BFCL question files, their possible answers and
// optionally a model's results into one golden dataset.
func runImportBFCL(ctx context.Context, env *Env, o importOptions, inputs []string) error {
	if err := checkOutput(o.out, append([]string{o.answers, o.results}, inputs...)...); err != nil {
		return err
	}
	if o.answers != "" && len(inputs) > 1 {
		return usagef(lookup("import"), "--answers names the possible answers of one question file; with several, aem finds each in possible_answer/ beside it")
	}
	preds, err := readBFCLResults(o.results)
	if err != nil {
		return err
	}
	var (
		dialogs   []metrics.Dialog
		skipped   []string
		dropped   int
		conflicts int
		used      = map[string]bool{}
	)
	for _, in := range inputs {
		entries, err := readBFCLEntries(in, o.answers)
		if err != nil {
			return err
		}
		for _, e := range entries {
			var pred *bfcl.Prediction
			if p, ok := preds[e.ID]; ok {
				pred, used[e.ID] = &p, true
			}
			c, err := bfcl.Convert(e, pred)
			var skip *bfcl.SkipError
			switch {
			case errors.As(err, &skip):
				skipped = append(skipped, skip.Error())
				continue
			case err != nil:
				return fmt.Errorf("converting %s: %w", in, err)
			}
			dropped += len(c.Repairs)
			conflicts += countConflicts(c.Dialog)
			dialogs = append(dialogs, c.Dialog)
		}
	}
	if n := len(preds) - len(used); n > 0 {
		return fmt.Errorf("%s: %d results name entries the question files do not have (fix: give the question files of the same categories)", o.results, n)
	}
	turns, err := golden.Write(ctx, o.out, golden.Slice(dialogs), golden.WriteOptions{})
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	for _, s := range skipped {
		fmt.Fprintf(env.Stderr, "aem: %s\n", s)
	}
	if dropped > 0 {
		fmt.Fprintf(env.Stderr, "aem: %d parameter(s) the definitions lack, which the answers mark optional, left out of the gold calls (BFCL's checker fails a call that gives one)\n", dropped)
	}
	if conflicts > 0 {
		fmt.Fprintf(env.Stderr, "aem: %d gold value(s) break their definitions as BFCL wrote them; 'aem run' lists them in summary.json and lets the gold win for those fields, as BFCL's checker does\n", conflicts)
	}
	fmt.Fprintf(env.Stdout, "wrote %d turns in %d dialogs from %d BFCL file(s) to %s (%d entries left out)\n",
		turns, len(dialogs), len(inputs), o.out, len(skipped))
	return nil
}

// readBFCLEntries reads a question file and attaches its possible answers:
// answers when given, else possible_answer/<same name> beside it (an
// irrelevance file needs none).
func readBFCLEntries(questions, answers string) ([]bfcl.Entry, error) {
	entries, err := readBFCLFile(questions, bfcl.ReadQuestions)
	if err != nil {
		return nil, err
	}
	if answers == "" {
		answers = filepath.Join(filepath.Dir(questions), "possible_answer", filepath.Base(questions))
		if _, err := os.Stat(answers); errors.Is(err, os.ErrNotExist) {
			return entries, bfcl.Attach(entries, nil, questions, answers)
		}
	}
	as, err := readBFCLFile(answers, bfcl.ReadAnswers)
	if err != nil {
		return nil, err
	}
	return entries, bfcl.Attach(entries, as, questions, answers)
}

// readBFCLResults reads comma-separated result files into one map.
func readBFCLResults(list string) (map[string]bfcl.Prediction, error) {
	out := map[string]bfcl.Prediction{}
	for _, path := range strings.Split(list, ",") {
		if path = strings.TrimSpace(path); path == "" {
			continue
		}
		preds, err := readBFCLFile(path, bfcl.ReadResults)
		if err != nil {
			return nil, err
		}
		for id, p := range preds {
			if _, dup := out[id]; dup {
				return nil, fmt.Errorf("%s: a result for %s is also in an earlier results file (fix: give each entry one result)", path, id)
			}
			out[id] = p
		}
	}
	return out, nil
}

func readBFCLFile[T any](path string, read func(string, io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, fmt.Errorf("reading BFCL data: %w", err)
	}
	defer f.Close()
	return read(path, f)
}

// countConflicts counts the conflicts of d's gold calls with its tool
// definitions.
func countConflicts(d metrics.Dialog) int {
	n := 0
	for _, t := range d.Turns {
		if t.Role == metrics.RoleTool && t.HasGold && !t.GoldNoCall {
			n += len(metrics.GoldConflicts(d.Tools, t.Gold))
		}
	}
	return n
}
