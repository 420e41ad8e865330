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

func reasonBars(rs []Reason) *chart.Bars {
	if len(rs) == 0 {
		return nil
	}
	b := &chart.Bars{Title: "Failed turns by reason", YLabel: "turns"}
	root := chart.BarSeries{Name: "root cause", Color: chart.SeriesColor(3)}
	casc := chart.BarSeries{Name: "cascade", Color: chart.SeriesColor(1)}
	for _, r := range rs[:min(maxBars, len(rs))] {
		b.Groups = append(b.Groups, r.Reason)
		root.Values = append(root.Values, float64(r.RootCause))
		casc.Values = append(casc.Values, float64(r.Cascade))
	}
	b.Series = []chart.BarSeries{root, casc}
	return b
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
	if len(cs) == 0 {
		return nil
	}
	b := &chart.Bars{Title: "Failures explained by each root cause", YLabel: "failed turns"}
	root := chart.BarSeries{Name: "root-cause turns", Color: chart.SeriesColor(3)}
	casc := chart.BarSeries{Name: "their cascades", Color: chart.SeriesColor(1)}
	for i, c := range cs[:min(10, len(cs))] {
		b.Groups = append(b.Groups, fmt.Sprintf("#%d", i+1))
		root.Values = append(root.Values, float64(c.Roots))
		casc.Values = append(casc.Values, float64(c.Cascades))
	}
	b.Series = []chart.BarSeries{root, casc}
	return b
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
