package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/aem-dev/aem/internal/visible"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/rundir"
)

// verdictTable prints a dialog's turns for `aem show RUN --dialog ID`: one
// line per turn (turn, role, pass/fail, reason), then the comparison that
// failed (field, gold, predicted, score, what decided it); a turn with
// several has a line for each. On a terminal it is an aligned table with
// long values cut; piped, tab-separated values with a header, nothing
// cut. Every cell has its control characters escaped (visible.Line), so a
// value never breaks a line or a column.
type verdictTable struct {
	tty    bool
	trials bool // the run has trials: a trial column
	rows   [][]string
}

// maxCell is how many characters of a value a terminal's table shows.
const maxCell = 40

var tableHeader = []string{"turn", "role", "verdict", "reason", "field", "kind", "gold", "predicted", "score", "decided by"}

// add adds a turn's lines.
func (v *verdictTable) add(t *rundir.TurnRow) {
	first := []string{strconv.FormatInt(t.TurnNo, 10), t.Role, "pass", ""}
	switch {
	case t.Pass:
	case t.CascadeFrom != nil:
		first[2] = fmt.Sprintf("cascade from turn %d", *t.CascadeFrom)
	default:
		first[2] = "FAIL"
		if t.RootCause {
			first[2] = "FAIL (root cause)"
		}
	}
	if t.FailureReason != nil {
		first[3] = *t.FailureReason // a cascade's own failures are its comparisons' lines
	}
	if v.trials {
		trial := ""
		if t.Trial != nil {
			trial = strconv.FormatInt(*t.Trial, 10)
		}
		first = append([]string{trial}, first...)
	}
	details := failedComparisons(t)
	if len(details) == 0 {
		details = [][]string{{"", "", "", "", "", ""}}
	}
	for i, d := range details {
		lead := first
		if i > 0 {
			lead = make([]string, len(first))
		}
		v.rows = append(v.rows, append(slices.Clone(lead), d...))
	}
}

// failedComparisons are the turn's failed comparisons, each as field,
// the gold value's kind, gold, predicted, score and what decided it: the call's name when it
// differs, every value that failed (a missing one too), every extra
// parameter, and for a reply each required clause it does not cover.
func failedComparisons(t *rundir.TurnRow) [][]string {
	if t.Pass {
		return nil
	}
	var out [][]string
	texts := rundir.TextsOf(t)
	gold, pred := callName(t.GoldToolID, t.GoldAction), callName(t.PredictToolID, t.PredictAction)
	if t.GoldToolID != nil && t.PredictToolID != nil && gold != pred {
		out = append(out, []string{"tool.action", "", quote(gold), quote(pred), "", "name"})
	}
	if (t.GoldArgs == nil && t.GoldResponse == nil) != (t.PredictArgs == nil && t.PredictResponse == nil) {
		out = append(out, []string{"turn", "", turnSide(gold, t.GoldArgs, t.GoldResponse), turnSide(pred, t.PredictArgs, t.PredictResponse), "", ""})
	}
	base := ""
	if t.GoldToolID != nil && t.GoldAction != nil {
		base = metrics.Call{ToolID: *t.GoldToolID, Action: *t.GoldAction}.FieldBase() + "."
	}
	for _, fs := range t.FieldScores {
		if fs.Pass || strings.HasPrefix(fs.Field, "response.clause[") {
			continue
		}
		g, p := "", ""
		switch fs.Method {
		case metrics.MethodCoverage: // a share of clauses, not a value
		case metrics.MethodUnparseable:
			g, p = turnSide("", t.GoldArgs, nil), side(t.PredictArgs) // the text as given
		default:
			g, p = sides(texts, fs.Field)
		}
		kind := ""
		if fs.Kind != nil {
			kind = *fs.Kind
		}
		out = append(out, []string{fs.Field, kind, g, p, score(fs), decidedBy(fs)})
	}
	for _, k := range t.ExtraKeys {
		g, p := sides(texts, base+k)
		out = append(out, []string{base + k, "", g, p, "", "extra"})
	}
	for _, c := range t.Clauses {
		if c.Required && !c.Covered {
			out = append(out, []string{c.Field, "text", quote(c.Gold), side(c.PredictedText), clauseScore(c), c.Method})
		}
	}
	return out
}

// sides are the gold and predicted values of a field (JSON text):
// "(missing)" for a value the prediction lacks, "(none)" for one gold
// lacks, both empty when neither side has the field (a tool not offered).
func sides(texts rundir.Texts, field string) (gold, pred string) {
	g, p, gok, pok := texts.Sides(field)
	switch {
	case !gok && !pok:
		return "", ""
	case !gok:
		g = "(none)"
	case !pok:
		p = "(missing)"
	}
	return g, p
}

// clauseScore is a gold clause's score against its threshold, and what
// the reply does not state or mention when the wording matched.
func clauseScore(c rundir.ClauseRow) string {
	var why []string
	if len(c.MissingAnchors) > 0 {
		words := make([]string, len(c.MissingAnchors))
		for i, a := range c.MissingAnchors {
			words[i] = quote(features.Wording(c.Gold, a))
		}
		why = append(why, "does not state "+strings.Join(words, ", "))
	}
	if len(c.MissingNames) > 0 {
		names := make([]string, len(c.MissingNames))
		for i, n := range c.MissingNames {
			names[i] = quote(n)
		}
		why = append(why, "does not mention "+strings.Join(names, ", "))
	}
	sc := "no clause to compare"
	if c.Score != nil && c.Threshold != nil {
		sc = compareTo(*c.Score, *c.Threshold, c.Pass)
	}
	switch {
	case len(why) > 0 && c.Pass:
		sc += ", but the reply " + strings.Join(why, " and ")
	case len(why) > 0:
		sc += "; the reply " + strings.Join(why, " and ")
	}
	return sc
}

// callName is "tool.action", "" without a tool.
func callName(tool, action *string) string {
	if tool == nil {
		return ""
	}
	if action == nil {
		return *tool
	}
	return *tool + "." + *action
}

// turnSide is one side of a whole turn: the call with its arguments as
// given, the reply quoted, "(none)" when the turn has no such side.
func turnSide(call string, args, reply *string) string {
	switch {
	case args != nil:
		return strings.TrimSpace(call + " " + *args)
	case reply != nil:
		return quote(*reply)
	}
	return "(none)"
}

// score is a comparison's score against its threshold, or how it was
// decided when no threshold held it.
func score(fs rundir.FieldScoreRow) string {
	if fs.ThresholdFrom == "" {
		return ""
	}
	return compareTo(fs.Score, fs.Threshold, fs.Pass)
}

func compareTo(score, threshold float64, pass bool) string {
	op := "<"
	if pass {
		op = ">="
	}
	return fmt.Sprintf("%.3f %s %.3f", score, op, threshold)
}

// decidedBy is the comparison's method and, when a scorer decided it,
// which one.
func decidedBy(fs rundir.FieldScoreRow) string {
	if fs.By != nil {
		return fs.Method + " (" + *fs.By + ")"
	}
	return fs.Method
}

// side quotes one side's text, "(none)" when the turn has no such side.
func side(s *string) string {
	if s == nil {
		return "(none)"
	}
	return quote(*s)
}

// quote writes a value in double quotes, its quotes and backslashes
// escaped (its control characters are escaped with every cell's).
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// write prints the table.
func (v *verdictTable) write(w io.Writer) error {
	header := tableHeader
	if v.trials {
		header = append([]string{"trial"}, header...)
	}
	rows := make([][]string, len(v.rows))
	for i, row := range v.rows {
		rows[i] = make([]string, len(row))
		for j, c := range row {
			rows[i][j] = visible.Line(c)
		}
	}
	if !v.tty {
		for _, row := range append([][]string{header}, rows...) {
			if _, err := fmt.Fprintln(w, strings.Join(row, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	values := map[int]bool{slices.Index(header, "gold"): true, slices.Index(header, "predicted"): true}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(header, "\t")))
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = c
			if values[i] {
				cells[i] = cut(c, maxCell)
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(b.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// cut shortens s to n characters, marking the cut (and closing a quote).
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	out := string(r[:n-1]) + "…"
	if r[0] == '"' {
		out += `"`
	}
	return out
}
