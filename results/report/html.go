package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// The page's style and script, inlined into every report.
var (
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
	//go:embed page.html
	pageHTML string
)

// WriteHTML writes the report as one self-contained HTML page: inline CSS,
// SVG charts and a few lines of script (the explorer's search), nothing
// fetched. version is the aem version shown in the header.
func WriteHTML(w io.Writer, rep *Report, version string) error {
	svgs := map[string]template.HTML{}
	for _, f := range Figures(rep) {
		svg, err := f.Figure.SVG()
		if err != nil {
			return fmt.Errorf("drawing the %s chart: %w", f.Name, err)
		}
		// chart escapes every text it draws; the SVG is ours.
		svgs[f.Name] = template.HTML(fmt.Sprintf(`<figure aria-label="%s">%s</figure>`, template.HTMLEscapeString(f.Title), svg))
	}
	index := map[dkey]int{}
	for i, d := range rep.Explorer {
		index[keyOf(d.DialogID, d.Trial)] = i
	}
	funcs := template.FuncMap{
		"figure": func(name string) template.HTML { return svgs[name] },
		"ref": func(r Ref) template.HTML {
			label := r.DialogID
			if r.Trial != nil {
				label += " trial " + strconv.FormatInt(*r.Trial, 10)
			}
			i, ok := index[keyOf(r.DialogID, r.Trial)]
			if !ok {
				return template.HTML(`<code title="not in the explorer: aem report --dialogs ID">` + template.HTMLEscapeString(label) + `</code>`)
			}
			return template.HTML(fmt.Sprintf(`<a href="#d%d-t%d">%s</a>`, i, r.TurnNo, template.HTMLEscapeString(label)))
		},
	}
	t, err := template.New("report").Funcs(pageFuncs).Funcs(funcs).Parse(pageHTML)
	if err != nil {
		return fmt.Errorf("parsing the report template: %w", err)
	}
	return t.Execute(w, struct {
		R       *Report
		CSS     template.CSS
		JS      template.JS
		Version string
		Deltas  []float64
		Worst   int
		Named   bool
	}{rep, template.CSS(pageCSS), template.JS(pageJS), version, Deltas, rep.Options.Worst, len(rep.Options.Dialogs) > 0})
}

// pageFuncs format the page's numbers; the golden test formats
// summary.json's with the same functions (Format).
var pageFuncs = template.FuncMap{
	"pct":   func(v float64) string { return Format("pct", v) },
	"num":   func(v float64) string { return Format("num", v) },
	"int":   func(v int) string { return Format("int", float64(v)) },
	"int64": func(v int64) string { return Format("int", float64(v)) },
	"sum": func(m map[string]int64) int64 {
		var n int64
		for _, v := range m {
			n += v
		}
		return n
	},
	"num2":       func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"ms":         formatMS,
	"share":      func(a, b int) float64 { return ratio(a, b) },
	"add":        func(a, b int) int { return a + b },
	"sub1":       func(a int) int { return a - 1 },
	"last":       func(v []float64) float64 { return v[len(v)-1] },
	"join":       func(v []string) string { return strings.Join(v, ", ") },
	"causeLabel": CauseLabel,
	"uncovered":  uncovered,
	"label": func(l *bool) string {
		switch {
		case l == nil:
			return ""
		case *l:
			return "pass"
		}
		return "fail"
	},
	// also lists a failed turn's checks besides its reason and own reason.
	"also": func(t Turn) []string {
		var out []string
		for _, c := range t.FailedChecks {
			if c != t.Reason && c != t.OwnReason {
				out = append(out, c)
			}
		}
		return out
	},
	"short": func(s string) string {
		if len(s) > 19 {
			return s[:19] + "…"
		}
		return s
	},
	"bar": func(r Rate) template.HTML {
		w := math.Round(60 * r.Correctness())
		return template.HTML(fmt.Sprintf(`<span class="bar" style="width:%gpx"></span><span class="bar f" style="width:%gpx"></span>`, w, 60-w))
	},
}

// Format writes a figure as the page shows it: "pct" a share as a
// percentage with one decimal, "num" three decimals, "int" a count with
// thousands separators.
func Format(kind string, v float64) string {
	switch kind {
	case "pct":
		return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
	case "int":
		s := strconv.FormatInt(int64(v), 10)
		var b strings.Builder
		for i, c := range s {
			if i > 0 && c != '-' && (len(s)-i)%3 == 0 && s[i-1] != '-' {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func formatMS(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return Format("int", math.Round(v))
}

// uncovered says why a required gold clause is not covered, in words:
// which facts or names the reply leaves out when its wording matched,
// else that nothing matched well enough.
func uncovered(c Clause) string {
	if !c.Pass {
		if c.Method == metrics.MethodMissing {
			return "not covered: the reply has no clause to compare"
		}
		return "not covered: no clause of the reply scores at or above the threshold"
	}
	var parts []string
	if len(c.MissingAnchors) > 0 {
		parts = append(parts, "the reply does not state "+quoted(c.MissingAnchors, "or"))
	}
	if len(c.MissingNames) > 0 {
		parts = append(parts, "it does not mention "+quoted(c.MissingNames, "or"))
	}
	if len(parts) == 0 {
		return "not covered"
	}
	return "not covered: " + strings.Join(parts, "; ")
}

// quoted lists values in quotation marks: “a”, “b” or “c”.
func quoted(v []string, conj string) string {
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = "“" + s + "”"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}
