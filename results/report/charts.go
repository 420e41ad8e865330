package report

import (
	"fmt"
	"math"

	"github.com/aem-dev/aem/chart"
)

// Figure is one of the report's charts: Name is its file name without
// extension (WritePNGs writes Name.png).
type Figure struct {
	Name, Title string
	Figure      chart.Figure
}

// maxBars bounds the groups of a bar chart (the tables list them all).
const maxBars = 12

// Figures are the report's charts, in page order; charts without data
// are left out.
func Figures(rep *Report) []Figure {
	var out []Figure
	add := func(name, title string, c chart.Chart, groups int) {
		w := math.Max(560, float64(groups)*70+160)
		out = append(out, Figure{Name: name, Title: title, Figure: chart.Figure{Width: w, Height: 340, Charts: []chart.Chart{c}}})
	}
	bars := func(name, title string, b *chart.Bars) {
		if b != nil {
			add(name, title, b, len(b.Groups))
		}
	}
	bars("correctness", "Correctness by sub-metric, turn kind and action-chain bucket", rateBars(rep.SubMetrics, rep.Kinds, rep.Buckets))
	bars("reasons", "Failed turns by reason: root causes and cascades", reasonBars(rep.Reasons))
	bars("causes", "Root causes by failures explained", causeBars(rep.Causes))
	bars("tools", "Correctness by tool and action (most failures first)", toolBars(rep.Tools))
	if l := latencyLines(rep.Latency); l != nil {
		add("latency", "Correctness against turn latency", *l, 0)
	}
	if l := marginLines(rep.Margins); l != nil {
		add("margins", "Decisive scores around their thresholds", *l, 0)
	}
	return out
}

func pct(a, b int) float64 { return 100 * ratio(a, b) }

func rateBars(groups ...[]Rate) *chart.Bars {
	b := &chart.Bars{Title: "Correctness", YLabel: "% of turns passing", YMax: 100}
	s := chart.BarSeries{Color: chart.SeriesColor(0)}
	for _, g := range groups {
		for _, r := range g {
			b.Groups = append(b.Groups, r.Key)
			s.Values = append(s.Values, 100*r.Correctness())
		}
	}
	if len(b.Groups) == 0 {
		return nil
	}
	b.Series = []chart.BarSeries{s}
	return b
}

// rootCascadeBars is a bar chart of root causes and cascades per group;
// nil without groups.
func rootCascadeBars(title, ylabel, rootName, cascName string, groups []string, roots, cascades []int) *chart.Bars {
	if len(groups) == 0 {
		return nil
	}
	b := &chart.Bars{Title: title, YLabel: ylabel, Groups: groups}
	root := chart.BarSeries{Name: rootName, Color: chart.SeriesColor(3)}
	casc := chart.BarSeries{Name: cascName, Color: chart.SeriesColor(1)}
	for i := range groups {
		root.Values = append(root.Values, float64(roots[i]))
		casc.Values = append(casc.Values, float64(cascades[i]))
	}
	b.Series = []chart.BarSeries{root, casc}
	return b
}

func reasonBars(rs []Reason) *chart.Bars {
	var groups []string
	var roots, cascades []int
	for _, r := range rs[:min(maxBars, len(rs))] {
		groups, roots, cascades = append(groups, r.Reason), append(roots, r.RootCause), append(cascades, r.Cascade)
	}
	return rootCascadeBars("Failed turns by reason", "turns", "root cause", "cascade", groups, roots, cascades)
}

// CauseLabel names a root-cause class on one line.
func CauseLabel(c Cause) string {
	s := c.Reason
	if c.Tool != "" {
		s += " @ " + c.Tool
	}
	if c.Field != "" {
		s += "." + c.Field
	}
	if c.Tool == "" && c.Kind != "" && c.Kind != "action" {
		s += " (" + c.Kind + ")"
	}
	return s
}

func causeBars(cs []Cause) *chart.Bars {
	var groups []string
	var roots, cascades []int
	for i, c := range cs[:min(10, len(cs))] {
		groups, roots, cascades = append(groups, fmt.Sprintf("#%d", i+1)), append(roots, c.Roots), append(cascades, c.Cascades)
	}
	return rootCascadeBars("Failures explained by each root cause", "failed turns", "root-cause turns", "their cascades", groups, roots, cascades)
}

func toolBars(ts []Rate) *chart.Bars {
	if len(ts) == 0 {
		return nil
	}
	b := &chart.Bars{Title: "Correctness by tool and action", YLabel: "% of turns passing", YMax: 100}
	s := chart.BarSeries{Color: chart.SeriesColor(0)}
	for _, r := range ts[:min(maxBars, len(ts))] {
		b.Groups = append(b.Groups, r.Key)
		s.Values = append(s.Values, 100*r.Correctness())
	}
	b.Series = []chart.BarSeries{s}
	return b
}

func latencyLines(l *Latency) *chart.Lines {
	if l == nil || len(l.Groups) < 2 {
		return nil
	}
	s := chart.Series{Name: "correctness", Color: chart.SeriesColor(0), Width: 2}
	dots := chart.Series{Name: "group (equal turns)", Color: chart.SeriesColor(0), Dots: true}
	for _, g := range l.Groups {
		x := math.Log10(math.Sqrt(math.Max(g.From, 0.1) * g.To))
		s.X, s.Y = append(s.X, x), append(s.Y, pct(g.Passed, g.Turns))
	}
	dots.X, dots.Y = s.X, s.Y
	return &chart.Lines{Title: "Correctness against turn latency", XLabel: "latency, log10 ms (group midpoint)", YLabel: "% of turns passing",
		YMin: 0, YMax: 100, Series: []chart.Series{s, dots}, Legend: chart.BottomLeft}
}

func marginLines(m Margins) *chart.Lines {
	if len(m.Entries) == 0 {
		return nil
	}
	l := chart.Lines{Title: "Comparisons by score − threshold", XLabel: "score − threshold", YLabel: "comparisons",
		XMin: BinLow, XMax: BinLow + bins*BinWidth, Legend: chart.TopRight}
	top := 0.0
	for i, e := range m.Entries[:min(5, len(m.Entries))] {
		s := chart.Series{Name: e.From, Color: chart.SeriesColor(i), Width: 2}
		for j, n := range e.Bins {
			s.X = append(s.X, BinLow+(float64(j)+0.5)*BinWidth)
			s.Y = append(s.Y, float64(n))
			top = math.Max(top, float64(n))
		}
		l.Series = append(l.Series, s)
	}
	l.YMin, l.YMax = 0, math.Max(1, top*1.3)
	l.Series = append(l.Series, chart.Series{Name: "at the threshold", X: []float64{0, 0}, Y: []float64{0, l.YMax}, Color: chart.SeriesColor(7), Dash: []float64{4, 3}})
	return &l
}
