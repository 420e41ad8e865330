package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/results/sweepio"
)

// printSweep writes the short table `aem sweep` shows: the fitted
// threshold and figures with intervals, per-sub-metric thresholds,
// agreement, warnings and the files written.
func printSweep(env *Env, s *sweepio.Summary, files []string) {
	r := s.Result
	l := r.Labels
	unit, why := "dialogs", "dialogs are the unit of cross-validation and of the bootstrap: a dialog's samples are held out and resampled together"
	if s.Mode == "pairs" {
		unit, why = "groups", "groups (the group column, else each row) are the unit of cross-validation and of the bootstrap"
	}
	fmt.Fprintf(env.Stdout, "%d labelled samples from %d %s (%d pass, %d fail, %d graded); scorer %s\n(%s)\n",
		l.Samples, l.Groups, unit, l.Positive, l.Negative, l.Graded, s.Scorer, why)
	if s.Run != nil && len(s.Run.Excluded) > 0 {
		var parts []string
		for _, k := range sortedStrings(s.Run.Excluded) {
			parts = append(parts, fmt.Sprintf("%d %s", s.Run.Excluded[k], k))
		}
		fmt.Fprintf(env.Stdout, "left out of fitting: %s\n", strings.Join(parts, "; "))
	}
	if s.Run != nil && (s.Run.ReviewUnlabelled > 0 || s.Run.Overridden > 0) {
		fmt.Fprintf(env.Stdout, "labels file: %d field labels; %d review items not judged yet (skipped); %d of the dataset's field_labels replaced by the file's\n",
			s.Run.FieldLabels, s.Run.ReviewUnlabelled, s.Run.Overridden)
	}
	fmt.Fprintf(env.Stdout, "objective %s, %s; scored by %s\n\n", r.Objective, r.Evaluation, r.ScoredBy)
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\t%s\t%g%% CI\tcosine only\t\n", r.ScoredBy, 100*levelOf(s))
	cos := r.CosineOnly
	if cos == nil {
		cos = &sweep.Block{Figures: &sweep.Figures{}}
	}
	row := func(name string, e, cosine *sweep.Estimate, note string) {
		if e == nil {
			return
		}
		ci, c := "-", "-"
		if e.Low != nil {
			ci = fmt.Sprintf("[%.3f, %.3f]", *e.Low, *e.High)
		}
		if cosine != nil {
			c = fmt.Sprintf("%.4f", cosine.Value)
		}
		fmt.Fprintf(tw, "%s\t%.4f\t%s\t%s\t%s\n", name, e.Value, ci, c, note)
	}
	if r.Threshold != nil {
		note := ""
		if r.Folds != nil {
			note = fmt.Sprintf("folds %.3f-%.3f (sd %.3f)", r.Folds.Min, r.Folds.Max, r.Folds.SD)
		}
		row("threshold", r.Threshold, cos.Threshold, note)
	}
	if r.Figures != nil {
		how := "in-sample"
		if r.Folds != nil {
			how = "held-out"
		}
		row("f1", r.F1, cos.F1, how)
		row("precision", r.Precision, cos.Precision, "")
		row("recall", r.Recall, cos.Recall, "")
		row("accuracy", r.Accuracy, cos.Accuracy, "")
		row("mcc", r.MCC, cos.MCC, "")
	}
	row("roc_auc", r.ROCAUC, cos.ROCAUC, "")
	row("average_precision", r.AveragePrecision, nil, "")
	if c := r.Correlations; c != nil {
		row("pearson", c.Pearson, nil, "vs human_score")
		row("spearman", c.Spearman, nil, "vs human_score")
		row("kendall", c.Kendall, nil, "vs human_score")
		row("point_biserial", c.PointBiserial, nil, "vs human_label")
	}
	if a := r.Agreement; a != nil {
		row("verdict kappa", a.Kappa, nil, fmt.Sprintf("%d turns, %d disagree (the run's verdicts)", a.Turns, a.DisagreementCount))
		for _, k := range sortedStrings(a.ByKind) {
			g := a.ByKind[k]
			fmt.Fprintf(tw, "agreement %s\t%.4f\t-\t-\t%d turns, kappa %.3f\n", k, g.Accuracy, g.Turns, g.Kappa)
		}
	}
	tw.Flush()
	printGroups(env, "sub-metric", r.SubMetrics)
	printGroups(env, "value kind", r.Kinds)
	if len(r.Fields) > 0 {
		own := 0
		for _, g := range r.Fields {
			if g.Threshold != nil {
				own++
			}
		}
		composites := ""
		if n := len(r.CompositeFields()); n > 0 {
			composites = fmt.Sprintf(" (%d with a composite threshold of their own too)", n)
		}
		fmt.Fprintf(env.Stdout, "fields: %d with a threshold of their own%s, %d fall back (see summary.json)\n", own, composites, len(r.Fields)-own)
	}
	if j := r.JudgeAgreement; j != nil {
		printJudgeAgreement(env, j, levelOf(s))
	}
	if b := r.JudgeBand; b != nil {
		fmt.Fprintf(env.Stdout, "judge band (thresholds.json judge_band, for --scorer embed+judge): where the threshold's decision is wrong %g%% of the time or more\n", 100*b.ErrorRate)
		printBand(env, "similarity", b.Similarity)
		if b.Composite != nil {
			printBand(env, "composite probability", *b.Composite)
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(env.Stderr, "aem sweep: warning: %s\n", w)
	}
	if err := r.Weak(); err != nil {
		fmt.Fprintf(env.Stderr, "aem sweep: warning: %v\n", err)
	}
	if err := r.FewLabels(); err != nil {
		fmt.Fprintf(env.Stderr, "aem sweep: warning: %v%s\n", err, nextLabels(s))
	}
	if len(files) > 0 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = filepath.Base(f)
		}
		fmt.Fprintf(env.Stdout, "\nwrote %s into %s\n", strings.Join(names, ", "), filepath.Dir(files[0]))
	}
}

// printJudgeAgreement sets a judged run's verdicts beside the
// embedding's alone against the human labels.
func printJudgeAgreement(env *Env, j *sweep.JudgeAgreement, level float64) {
	fmt.Fprintf(env.Stdout, "\njudged verdicts beside the embedding's alone (embed_pass), against the human labels of the same %d turns:\n", j.Turns)
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\tjudged\t%g%% CI\tembedding\t%g%% CI\t\n", 100*level, 100*level)
	ci := func(e *sweep.Estimate) string {
		if e.Low == nil {
			return "-"
		}
		return fmt.Sprintf("[%.3f, %.3f]", *e.Low, *e.High)
	}
	for _, row := range []struct {
		name string
		a, b *sweep.Estimate
	}{{"accuracy", j.Judged.Accuracy, j.Embedding.Accuracy}, {"f1", j.Judged.F1, j.Embedding.F1},
		{"mcc", j.Judged.MCC, j.Embedding.MCC}, {"kappa", j.Judged.Kappa, j.Embedding.Kappa}} {
		fmt.Fprintf(tw, "%s\t%.4f\t%s\t%.4f\t%s\t\n", row.name, row.a.Value, ci(row.a), row.b.Value, ci(row.b))
	}
	tw.Flush()
	fmt.Fprintf(env.Stdout, "accuracy gain %+.4f %s; the judge changed %d turns: right on %d, wrong on %d (exact McNemar p = %.4g)\n\n",
		j.Gain.Value, ci(j.Gain), j.Changed, j.JudgeRight, j.EmbeddingRight, j.P)
}

// printBand prints one scale's judge band and what it holds.
func printBand(env *Env, name string, b sweep.UncertainBand) {
	fmt.Fprintf(env.Stdout, "  %s %.4f:%.4f around %.4f: %d of %d labelled comparisons (%s), %d of %d held-out errors (%s)\n",
		name, b.Low, b.High, b.Threshold, b.InBand, b.Samples, percent(b.InBand, b.Samples), b.ErrorsInBand, b.Errors, percent(b.ErrorsInBand, b.Errors))
}

// percent is n of total as a percentage, "-" of nothing.
func percent(n, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

func levelOf(s *sweepio.Summary) float64 {
	var v float64
	fmt.Sscan(s.Settings["level"], &v)
	return v
}

func sortedStrings[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// printGroups prints the thresholds of a scope's groups (sub-metrics,
// value kinds): labels, own threshold or "global", ROC-AUC and the held-out
// accuracy of the group's own composite against the cosine's.
func printGroups(env *Env, scope string, groups map[string]*sweep.GroupResult) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(env.Stdout)
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tlabels\tthreshold\troc_auc\tcomposite held-out accuracy (cosine only)\n", scope)
	for _, k := range sortedStrings(groups) {
		g := groups[k]
		th, auc, comp := "global", "-", "-"
		if g.Threshold != nil {
			th = fmt.Sprintf("%.4f", *g.Threshold)
		}
		if g.ROCAUC != nil {
			auc = fmt.Sprintf("%.3f", *g.ROCAUC)
		}
		if m := g.Composite; m != nil && m.HeldOut != nil {
			comp = fmt.Sprintf("%.4f (%.4f)", m.HeldOut.Accuracy, m.HeldOut.CosineOnly.Accuracy)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", k, g.Labels.Binary, th, auc, comp)
	}
	tw.Flush()
}

// nextLabels says where to find the comparisons to label next when the
// threshold rests on too few labels: for a run, the 'aem review' command
// that exports those whose scores lie in the threshold's interval (or
// within 0.1 of it without one), where a label narrows it most.
func nextLabels(s *sweepio.Summary) string {
	r := s.Result
	if s.Mode != "run" {
		return "; label more pairs, above all ones whose scores lie near the threshold; --accept-weak keeps the result anyway"
	}
	lo, hi := r.Threshold.Value-sweep.MaxTrustedWidth, r.Threshold.Value+sweep.MaxTrustedWidth
	if r.ScoredBy == sweep.ScoredByComposite && r.CosineOnly != nil && r.CosineOnly.Threshold != nil {
		// The run's scores are cosines: look around the cosine's threshold.
		lo, hi = r.CosineOnly.Threshold.Value-sweep.MaxTrustedWidth, r.CosineOnly.Threshold.Value+sweep.MaxTrustedWidth
	} else if f := r.Shortfall; f.Low != nil && *f.High > *f.Low {
		lo, hi = *f.Low, *f.High
	}
	lo, hi = max(lo, -1), min(hi, 1)
	return fmt.Sprintf(".\n  To pick the turns to label next: aem review %s --band %.3f:%.3f --html review.html\n"+
		"  (the comparisons whose scores lie there, where a label narrows the threshold most), label them in the page, then\n"+
		"  aem sweep %s --labels review-labelled.jsonl. --accept-weak keeps this result anyway", s.Input, lo, hi, s.Input)
}
