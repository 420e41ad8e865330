package compareio

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/aem-dev/aem/internal/markdown"
	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/metrics/trials"
)

// Limits on how many turns the Markdown report lists; compare.json and
// compare.parquet hold all of them.
const (
	maxListedRegressions = 25
	maxListedFixes       = 10
	maxListedKeys        = 10
	maxListedFlips       = 25
	maxTextLen           = 160
)

// WriteMarkdown writes the report a person reads in a pull request.
func WriteMarkdown(w io.Writer, rep *compare.Report) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	o := rep.Options
	var cands []string
	for _, c := range rep.Comparisons {
		cands = append(cands, code(c.Candidate))
	}
	p("# aem compare\n\n")
	p("Base %s; candidate%s %s. Significance level %g, margin %s, %d bootstrap resamples by dialog, seed %d.\n\n",
		code(rep.Base), plural(len(cands)), strings.Join(cands, ", "), o.Alpha, pp(o.Margin), o.Bootstrap, o.Seed)
	writeGate(p, rep)
	if len(rep.Mismatches) > 0 {
		p("> **Warning: runs compared despite differences (--allow-mismatch).**\n")
		for _, m := range rep.Mismatches {
			p("> - %s: %s is %s, base has %s\n", code(m.Candidate), text(m.Field), code(m.Value), code(m.Base))
		}
		p("\n")
	}
	if len(rep.Runs) > 2 {
		writeTrend(p, rep)
	}
	for i := range rep.Comparisons {
		writeComparison(p, &rep.Comparisons[i], len(rep.Comparisons) > 1)
	}
	writeTrials(p, rep)
	return b.Flush()
}

// writeTrials adds pass^k and pass@k of each run, and the change in pass^k
// from the base, when every run has repeated trials.
func writeTrials(p printer, rep *compare.Report) {
	k := 0
	for i, r := range rep.Runs {
		if r.Trials == nil {
			return
		}
		if i == 0 || r.Trials.K < k {
			k = r.Trials.K
		}
	}
	first, last := rep.Runs[0].Trials, rep.Runs[len(rep.Runs)-1].Trials
	p("## Reliability over trials\n\npass^k: every one of k trials of a task passes (τ-bench); pass@k: at least one does.\n\n| k |")
	for _, r := range rep.Runs {
		p(" %s pass^k | %s pass@k |", codeCell(r.Name), codeCell(r.Name))
	}
	p(" Δ pass^k (last - first) |\n|---|")
	for range rep.Runs {
		p("---:|---:|")
	}
	p("---:|\n")
	for i := range k {
		p("| %d |", i+1)
		for _, r := range rep.Runs {
			p(" %.3f | %.3f |", r.Trials.PassHat[i], r.Trials.PassAt[i])
		}
		p(" %+.3f |\n", last.PassHat[i]-first.PassHat[i])
	}
	p("\nFlaky tasks (some trials pass, some fail):")
	for _, r := range rep.Runs {
		p(" %s %d/%d (%.3f)", code(r.Name), r.Trials.Flaky, r.Trials.Tasks, r.Trials.FlakyShare)
	}
	p("\n")
}

type printer func(format string, args ...any)

func writeGate(p printer, rep *compare.Report) {
	g := rep.Gate
	if !g.Failed {
		p("**Regression gate: passed.** No candidate is significantly worse than the base overall or on any sub-metric.\n\n")
		return
	}
	p("**Regression gate: FAILED.** Significantly worse than the base:\n\n")
	for _, f := range g.Failures {
		p("- %s on %s: %s → %s (%s, CI upper end %s, Holm-adjusted p %s)\n",
			code(f.Candidate), text(f.Metric), pct(f.Base), pct(f.Value), pp(f.Diff), pp(f.CIHi), fmtP(f.PAdjusted))
	}
	p("\nRule: %s.\n\n", g.Rule)
}

func writeTrend(p printer, rep *compare.Report) {
	p("## Trend across runs\n\nEach run's own figure over all its turns; Δ and verdict from the paired comparison with the base.\n\n")
	p("| metric |")
	for _, r := range rep.Runs {
		p(" %s |", codeCell(r.Name))
	}
	p("\n|---|")
	for range rep.Runs {
		p("---:|")
	}
	p("\n")
	for _, row := range rep.Trend {
		p("| %s |", text(row.Metric))
		for i := range rep.Runs {
			cell := "–"
			if v := row.Values[i]; v != nil {
				cell = pct(*v)
			}
			if d := row.Diffs[i]; d != nil {
				cell += fmt.Sprintf(" (%s%s)", pp(*d), mark(row.Verdicts[i]))
			}
			p(" %s |", cell)
		}
		p("\n")
	}
	p("\n")
}

func writeComparison(p printer, c *compare.Comparison, several bool) {
	p("## %s vs %s\n\n", code(c.Candidate), code(c.Base))
	if c.Gate.Failed {
		p("Gate: **FAILED**.\n\n")
	} else if several {
		p("Gate: passed.\n\n")
	}
	p("Paired %d turns in %d dialogs.", c.PairedTurns, c.PairedDialogs)
	if len(c.Added)+len(c.Removed) > 0 {
		p(" Turn sets differ: %d turns only in the candidate (added), %d only in the base (removed); they are left out of every figure below.",
			len(c.Added), len(c.Removed))
	}
	p("\n\n")
	listKeys(p, "Added turns", c.Added)
	listKeys(p, "Removed turns", c.Removed)
	if len(c.AddedDialogs)+len(c.RemovedDialogs) > 0 {
		p("Dialogs only in the candidate: %s. Only in the base: %s.\n\n", listStrings(c.AddedDialogs), listStrings(c.RemovedDialogs))
	}
	ch := c.Changes
	var regFlips, fixFlips int
	for _, f := range c.FlippedDialogs {
		if f.Direction == "regressed" {
			regFlips++
		} else {
			fixFlips++
		}
	}
	p("**%s regressed** (%s, %s); **%d fixed** (%s, %s). Dialogs whose test_pass flipped: %d to fail, %d to pass.\n\n",
		count(ch.Regressed, "turn"), count(ch.RegressedRootCauses, "root cause"), count(ch.RegressedCascades, "cascade"),
		ch.Fixed, count(ch.FixedRootCauses, "root cause"), count(ch.FixedCascades, "cascade"), regFlips, fixFlips)

	p("### Overall and sub-metrics\n\n")
	statHeader(p, "metric", true)
	for _, s := range append([]compare.Stat{c.Overall, c.RootCauseFree}, c.SubMetrics...) {
		statRow(p, text(s.Key), s, true)
	}
	if c.DialogPass != nil {
		statRow(p, "dialog test_pass", *c.DialogPass, true)
	}
	p("\nVerdicts of the rows with a Holm p (the gate family) use the Holm-adjusted p-value; the other rows here and below use the unadjusted one and are exploratory. ")
	p("Sub-metrics count a turn when the check was assessed in both runs. root_cause_free is the share of turns that are not root-cause failures.\n\n")
	if len(c.ChainBuckets) > 0 {
		p("### By action-chain bucket\n\n")
		statHeader(p, "bucket", false)
		for _, s := range c.ChainBuckets {
			statRow(p, text(s.Key), s, false)
		}
		p("\n")
	}
	if len(c.Tools) > 0 {
		p("### By tool/action\n\n")
		statHeader(p, "tool.action", false)
		for _, s := range c.Tools {
			statRow(p, codeCell(s.Key), s, false)
		}
		p("\n")
	}
	writeReasons(p, c)
	writeChanges(p, "Regressed turns", "regressed", c.Regressed, maxListedRegressions)
	writeChanges(p, "Fixed turns", "fixed", c.Fixed, maxListedFixes)
	writeFlips(p, c.FlippedDialogs)
}

func statHeader(p printer, first string, gated bool) {
	if gated {
		p("| %s | turns | base | candidate | Δ | %s CI of Δ | worse / better | McNemar p | Holm p | verdict |\n|---|---:|---:|---:|---:|---|---:|---:|---:|---|\n", first, "95%")
		return
	}
	p("| %s | turns | base | candidate | Δ | %s CI of Δ | worse / better | McNemar p | verdict |\n|---|---:|---:|---:|---:|---|---:|---:|---|\n", first, "95%")
}

// statRow writes one row of a figures table; name is already Markdown.
func statRow(p printer, name string, s compare.Stat, gated bool) {
	ci := fmt.Sprintf("[%s, %s]", pp(s.CI.Lo), pp(s.CI.Hi))
	p("| %s | %d | %s | %s | %s | %s | %d / %d | %s |", name, s.Units, pct(s.Base), pct(s.Candidate), pp(s.Diff), ci, s.Worse, s.Better, fmtP(s.P))
	if gated {
		adj := "–"
		if s.PAdjusted != nil {
			adj = fmtP(*s.PAdjusted)
		}
		p(" %s |", adj)
	}
	p(" %s |\n", verdictText(s))
}

func writeReasons(p printer, c *compare.Comparison) {
	if len(c.FailureReasons) == 0 {
		return
	}
	p("### By failure reason\n\nShare of paired turns failing with each primary reason (higher is worse), with root causes and cascades counted apart.\n\n")
	p("| reason | base: root + cascade | candidate: root + cascade | base rate | candidate rate | Δ | %s CI of Δ | worse / better | McNemar p | verdict |\n|---|---:|---:|---:|---:|---:|---|---:|---:|---|\n", "95%")
	for _, r := range c.FailureReasons {
		p("| %s | %d + %d | %d + %d | %s | %s | %s | [%s, %s] | %d / %d | %s | %s |\n", text(r.Key),
			r.BaseCount.RootCause, r.BaseCount.Cascade, r.CandidateCount.RootCause, r.CandidateCount.Cascade,
			pct(r.Base), pct(r.Candidate), pp(r.Diff), pp(r.CI.Lo), pp(r.CI.Hi), r.Worse, r.Better, fmtP(r.P), verdictText(r.Stat))
	}
	s := c.ReasonShift
	p("\n**Failure-reason distribution shift:** ")
	if !s.Testable {
		p("not testable (fewer than two failure reasons, or a run without failures).\n\n")
		return
	}
	verdict := "no significant shift"
	if s.Significant {
		verdict = "**significant shift**"
	}
	p("%s. Chi-square %.2f over %d reasons; permutation p %s (%d permutations swapping whole dialogs between the runs)",
		verdict, s.ChiSquare, len(s.Categories), fmtP(s.PPermutation), s.Permutations)
	if s.PAsymptotic == nil {
		p("; too few failures for the asymptotic chi-square p-value.\n\n")
		return
	}
	p("; asymptotic p %s (df %d", fmtP(*s.PAsymptotic), s.DF)
	if len(s.MergedCategories) > 0 {
		p(", sparse reasons merged into other: %s", text(strings.Join(s.MergedCategories, ", ")))
	}
	p(").\n\n")
}

func writeChanges(p printer, title, what string, cs []compare.TurnChange, limit int) {
	if len(cs) == 0 {
		return
	}
	p("### %s (%d, root causes first)\n\n", title, len(cs))
	for i, t := range cs {
		if i == limit {
			p("\n…and %d more %s turns in compare.json and compare.parquet.\n", len(cs)-limit, what)
			break
		}
		role := "root cause"
		if !t.RootCause {
			role = "cascade"
			if t.CascadeFrom > 0 {
				role = fmt.Sprintf("cascade from turn %d", t.CascadeFrom)
			}
		}
		where := t.Kind
		if t.Tool != "" {
			where += ", " + code(t.Tool)
		}
		if t.Critical {
			where += ", critical"
		}
		reason := t.Reason
		if t.OwnReason != "" && t.OwnReason != t.Reason {
			reason += " (own: " + t.OwnReason + ")"
		}
		p("%d. %s%s turn %d (%s): **%s**, %s\n", i+1, code(t.DialogID), trials.Note(t.Trial), t.TurnNo, where, text(reason), role)
		p("   - gold: %s\n   - base: %s\n   - candidate: %s\n", code(t.Gold), code(t.BasePredicted), code(t.CandidatePredicted))
		failing := t.CandidateFieldScores
		if what == "fixed" {
			failing = t.BaseFieldScores
		}
		if s := fieldSummary(failing); s != "" {
			p("   - failing fields: %s\n", s)
		}
	}
	p("\n")
}

func fieldSummary(fs []compare.FieldScore) string {
	var parts []string
	for _, f := range fs {
		if f.Pass {
			continue
		}
		s := fmt.Sprintf("%s %s %.2f", code(f.Field), text(f.Method), f.Score)
		if f.Method == "semantic" {
			s += fmt.Sprintf(" < %.2f", f.Threshold) // "< " opens no tag
			if f.ThresholdFrom != "" {
				s += " (" + text(f.ThresholdFrom) + ")"
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func writeFlips(p printer, fs []compare.DialogFlip) {
	if len(fs) == 0 {
		return
	}
	p("### Dialogs whose test_pass flipped (%d)\n\n| dialog | now | base score | candidate score | first failure (base → candidate) | root cause (base → candidate) |\n|---|---|---:|---:|---|---|\n", len(fs))
	for i, f := range fs {
		if i == maxListedFlips {
			p("\n…and %d more in compare.json.\n", len(fs)-maxListedFlips)
			break
		}
		now := "fails"
		if f.CandidateTestPass {
			now = "passes"
		}
		p("| %s%s | %s | %.2f | %.2f | %s → %s | %s → %s |\n", codeCell(f.DialogID), trials.Note(f.Trial), now, f.BaseScore, f.CandidateScore,
			turnOrDash(f.BaseFirstFailure), turnOrDash(f.CandidateFirstFailure), orDash(f.BaseRootCause), orDash(f.CandidateRootCause))
	}
	p("\n")
}

func listKeys(p printer, title string, ks []compare.Key) {
	if len(ks) == 0 {
		return
	}
	var parts []string
	for i, k := range ks {
		if i == maxListedKeys {
			parts = append(parts, fmt.Sprintf("…and %d more", len(ks)-maxListedKeys))
			break
		}
		parts = append(parts, fmt.Sprintf("%s%s turn %d", code(k.DialogID), trials.Note(k.Trial), k.TurnNo))
	}
	p("%s: %s.\n\n", title, strings.Join(parts, ", "))
}

func listStrings(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	var parts []string
	for i, s := range ss {
		if i == maxListedKeys {
			parts = append(parts, fmt.Sprintf("…and %d more", len(ss)-maxListedKeys))
			break
		}
		parts = append(parts, code(s))
	}
	return strings.Join(parts, ", ")
}

func verdictText(s compare.Stat) string {
	switch s.Verdict {
	case compare.VerdictRegressed:
		if s.GateFailed {
			return "**▼ regressed (gate)**"
		}
		return "▼ regressed"
	case compare.VerdictImproved:
		return "▲ improved"
	}
	return "–"
}

func mark(verdict string) string {
	switch verdict {
	case compare.VerdictRegressed:
		return " ▼"
	case compare.VerdictImproved:
		return " ▲"
	}
	return ""
}

// count writes n and the noun, plural unless n is 1.
func count(n int, noun string) string { return fmt.Sprintf("%d %s%s", n, noun, plural(n)) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// pp formats a difference of shares in percentage points.
func pp(d float64) string {
	v := 100 * d
	if math.Abs(v) < 0.05 {
		v = 0
	}
	if v > 0 {
		return fmt.Sprintf("+%.1f pp", v)
	}
	return fmt.Sprintf("%.1f pp", v)
}

func fmtP(p float64) string {
	switch {
	case p >= 0.9995:
		return "1"
	case p >= 0.001:
		return fmt.Sprintf("%.3f", p)
	}
	return fmt.Sprintf("%.1e", p)
}

func turnOrDash(t int) string {
	if t == 0 {
		return "–"
	}
	return fmt.Sprint(t)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return text(s)
}

// Every text the report quotes from the runs (names, values, run
// locations) goes through text, code or codeCell: package markdown
// escapes it, so that no name reaches a viewer as HTML, a link or a
// table's end.

// text is plain text for prose and table cells (pipes escaped), truncated.
func text(s string) string { return markdown.Text(truncate(s)) }

// code renders s as inline code in prose and lists, truncated.
func code(s string) string {
	if s == "" {
		return "(none)"
	}
	return markdown.Code(truncate(s))
}

// codeCell renders s as inline code inside a table cell.
func codeCell(s string) string {
	if s == "" {
		return "(none)"
	}
	return markdown.CodeCell(truncate(s))
}

func truncate(s string) string {
	r := []rune(s)
	if len(r) > maxTextLen {
		return string(r[:maxTextLen-1]) + "…"
	}
	return s
}
