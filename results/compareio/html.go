package compareio

import (
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/aem-dev/aem/chart"
	"github.com/aem-dev/aem/metrics/compare"
)

// maxHTMLChanges is how many regressed or fixed turns the HTML page lists.
const maxHTMLChanges = 100

// WriteHTML writes a self-contained HTML page: the report's tables and, as
// inline SVG, correctness by action-chain bucket, by sub-metric, and the
// failure-reason rates of every run.
func WriteHTML(w io.Writer, rep *compare.Report) error {
	var plots []template.HTML
	for _, mk := range []func(*compare.Report) (*groupedBars, error){bucketBars, subMetricBars, reasonBars} {
		g, err := mk(rep)
		if err != nil {
			return err
		}
		if g == nil {
			continue
		}
		svg, err := g.svg()
		if err != nil {
			return fmt.Errorf("plotting %s: %w", g.title, err)
		}
		plots = append(plots, svg)
	}
	return page.Execute(w, struct {
		R     *compare.Report
		Plots []template.HTML
		Max   int
	}{rep, plots, maxHTMLChanges})
}

// groupedBars is a bar chart with one group per label and one bar per run.
type groupedBars struct {
	title, ylabel string
	labels        []string
	runs          []string
	values        [][]float64 // [run][label], in percent
}

// svg draws the chart as inline SVG, sized for its labels and runs.
func (g *groupedBars) svg() (template.HTML, error) {
	b := chart.Bars{Title: g.title, YLabel: g.ylabel, Groups: g.labels}
	maxV := 0.0
	for i, name := range g.runs {
		b.Series = append(b.Series, chart.BarSeries{Name: name, Values: g.values[i], Color: chart.SeriesColor(i)})
		for _, v := range g.values[i] {
			maxV = math.Max(maxV, v)
		}
	}
	b.YMax = math.Max(1, maxV*1.25) // headroom for the legend
	groupW := 86.0
	if n := len(g.runs); n > 3 {
		groupW = float64(n) * 29
	}
	width := math.Max(576, float64(len(g.labels))*groupW+144)
	height := 336.0
	if n := longest(g.labels); n > 12 {
		height += float64(n) * 4
	}
	svg, err := chart.Figure{Width: width, Height: height, Charts: []chart.Chart{b}}.SVG()
	if err != nil {
		return "", err
	}
	// The SVG is generated here from the report; chart escapes its texts.
	return template.HTML(svg), nil
}

func longest(ss []string) int {
	n := 0
	for _, s := range ss {
		n = max(n, len(s))
	}
	return n
}

func runNames(rep *compare.Report) []string {
	out := make([]string, len(rep.Runs))
	for i, r := range rep.Runs {
		out[i] = r.Name
	}
	return out
}

// rateBars builds a chart from each run's rates, keyed in first-seen order.
func rateBars(rep *compare.Report, title string, first *compare.Rate, rates func(compare.RunStats) []compare.Rate) *groupedBars {
	var labels []string
	seen := map[string]bool{}
	if first != nil {
		labels, seen[first.Key] = append(labels, first.Key), true
	}
	for _, r := range rep.Runs {
		for _, x := range rates(r) {
			if !seen[x.Key] {
				seen[x.Key] = true
				labels = append(labels, x.Key)
			}
		}
	}
	if len(labels) == 0 || (first != nil && len(labels) == 1) {
		return nil
	}
	g := &groupedBars{title: title, ylabel: "correctness (%)", labels: labels, runs: runNames(rep)}
	for _, r := range rep.Runs {
		vs := make([]float64, len(labels))
		all := rates(r)
		if first != nil {
			all = append([]compare.Rate{{Key: first.Key, Value: r.Correctness}}, all...)
		}
		for _, x := range all {
			for j, l := range labels {
				if l == x.Key {
					vs[j] = 100 * x.Value
				}
			}
		}
		g.values = append(g.values, vs)
	}
	return g
}

func bucketBars(rep *compare.Report) (*groupedBars, error) {
	return rateBars(rep, "Correctness by action-chain bucket", &compare.Rate{Key: "all turns"},
		func(s compare.RunStats) []compare.Rate { return s.ChainBuckets }), nil
}

func subMetricBars(rep *compare.Report) (*groupedBars, error) {
	return rateBars(rep, "Correctness by sub-metric", nil,
		func(s compare.RunStats) []compare.Rate { return s.SubMetrics }), nil
}

func reasonBars(rep *compare.Report) (*groupedBars, error) {
	var labels []string
	seen := map[string]bool{}
	for _, r := range rep.Runs {
		for _, x := range r.FailureReasons {
			if !seen[x.Reason] {
				seen[x.Reason] = true
				labels = append(labels, x.Reason)
			}
		}
	}
	if len(labels) == 0 {
		return nil, nil
	}
	g := &groupedBars{title: "Failed turns by failure reason", ylabel: "% of the run's turns", labels: labels, runs: runNames(rep)}
	for _, r := range rep.Runs {
		vs := make([]float64, len(labels))
		for _, x := range r.FailureReasons {
			for j, l := range labels {
				if l == x.Reason && r.Turns > 0 {
					vs[j] = 100 * float64(x.Total) / float64(r.Turns)
				}
			}
		}
		g.values = append(g.values, vs)
	}
	return g, nil
}

func statsOf(c compare.Comparison) []compare.Stat {
	out := append([]compare.Stat{c.Overall, c.RootCauseFree}, c.SubMetrics...)
	if c.DialogPass != nil {
		out = append(out, *c.DialogPass)
	}
	return out
}

var page = template.Must(template.New("compare").Funcs(template.FuncMap{
	"pct":   pct,
	"pp":    pp,
	"p":     fmtP,
	"mark":  mark,
	"stats": statsOf,
	"padj": func(s compare.Stat) string {
		if s.PAdjusted == nil {
			return "–"
		}
		return fmtP(*s.PAdjusted)
	},
	"val": func(v *float64) string {
		if v == nil {
			return "–"
		}
		return pct(*v)
	},
	"diff": func(d *float64, verdict string) string {
		if d == nil {
			return ""
		}
		return "(" + pp(*d) + mark(verdict) + ")"
	},
	"fields": fieldSummary,
	"first":  func(n int, cs []compare.TurnChange) []compare.TurnChange { return cs[:min(n, len(cs))] },
	"more":   func(n int, cs []compare.TurnChange) int { return max(0, len(cs)-n) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>aem compare: {{.R.Base}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:90%}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child,td.l{text-align:left}
.fail{background:#fdd;padding:.6em;border-left:4px solid #c00}
.pass{background:#dfd;padding:.6em;border-left:4px solid #080}
.warn{background:#ffd;padding:.6em;border-left:4px solid #aa0}
.regressed{color:#b00;font-weight:bold}.improved{color:#070}
code{background:#f4f4f4;padding:0 3px;word-break:break-word}
svg{max-width:100%;height:auto;display:block;margin:1em 0}
</style></head><body>
<h1>aem compare</h1>
<p>Base <code>{{.R.Base}}</code>; {{len .R.Comparisons}} candidate(s). Significance level {{.R.Options.Alpha}}, margin {{pp .R.Options.Margin}}, {{.R.Options.Bootstrap}} bootstrap resamples by dialog, seed {{.R.Options.Seed}}.</p>
{{if .R.Gate.Failed}}<div class="fail"><b>Regression gate: FAILED.</b><ul>{{range .R.Gate.Failures}}<li><code>{{.Candidate}}</code> on {{.Metric}}: {{pct .Base}} → {{pct .Value}} ({{pp .Diff}}, CI upper end {{pp .CIHi}}, Holm p {{p .PAdjusted}})</li>{{end}}</ul>Rule: {{.R.Gate.Rule}}.</div>
{{else}}<div class="pass"><b>Regression gate: passed.</b> No candidate is significantly worse than the base overall or on any sub-metric.</div>{{end}}
{{if .R.Mismatches}}<div class="warn"><b>Runs compared despite differences (--allow-mismatch):</b><ul>{{range .R.Mismatches}}<li><code>{{.Candidate}}</code>: {{.Field}} is <code>{{.Value}}</code>, base has <code>{{.Base}}</code></li>{{end}}</ul></div>{{end}}
<h2>Trend across runs</h2>
<p>Each run's own figure over all its turns; Δ and verdict from the paired comparison with the base.</p>
<table><tr><th>metric</th>{{range .R.Runs}}<th><code>{{.Name}}</code></th>{{end}}</tr>
{{range .R.Trend}}{{$row := .}}<tr><td>{{.Metric}}</td>{{range $i, $v := .Values}}<td>{{val $v}} {{diff (index $row.Diffs $i) (index $row.Verdicts $i)}}</td>{{end}}</tr>
{{end}}</table>
{{range .Plots}}{{.}}{{end}}
{{range .R.Comparisons}}{{$c := .}}
<h2><code>{{.Candidate}}</code> vs <code>{{.Base}}</code>{{if .Gate.Failed}} <span class="regressed">gate FAILED</span>{{end}}</h2>
<p>Paired {{.PairedTurns}} turns in {{.PairedDialogs}} dialogs; {{len .Added}} turns only in the candidate, {{len .Removed}} only in the base.
<b>{{.Changes.Regressed}} turns regressed</b> ({{.Changes.RegressedRootCauses}} root causes, {{.Changes.RegressedCascades}} cascades); <b>{{.Changes.Fixed}} fixed</b> ({{.Changes.FixedRootCauses}} root causes, {{.Changes.FixedCascades}} cascades); {{len .FlippedDialogs}} dialogs flipped test_pass.</p>
<table><tr><th>metric</th><th>turns</th><th>base</th><th>candidate</th><th>Δ</th><th>CI of Δ</th><th>worse / better</th><th>McNemar p</th><th>Holm p</th><th>verdict</th></tr>
{{range stats $c}}<tr><td>{{.Group}}: {{.Key}}</td><td>{{.Units}}</td><td>{{pct .Base}}</td><td>{{pct .Candidate}}</td><td>{{pp .Diff}}</td><td>[{{pp .CI.Lo}}, {{pp .CI.Hi}}]</td><td>{{.Worse}} / {{.Better}}</td><td>{{p .P}}</td><td>{{padj .}}</td><td class="{{.Verdict}}">{{.Verdict}}{{if .GateFailed}} (gate){{end}}</td></tr>
{{end}}{{range .ChainBuckets}}<tr><td>chain bucket: {{.Key}}</td><td>{{.Units}}</td><td>{{pct .Base}}</td><td>{{pct .Candidate}}</td><td>{{pp .Diff}}</td><td>[{{pp .CI.Lo}}, {{pp .CI.Hi}}]</td><td>{{.Worse}} / {{.Better}}</td><td>{{p .P}}</td><td>–</td><td class="{{.Verdict}}">{{.Verdict}}</td></tr>
{{end}}{{range .Tools}}<tr><td>tool: {{.Key}}</td><td>{{.Units}}</td><td>{{pct .Base}}</td><td>{{pct .Candidate}}</td><td>{{pp .Diff}}</td><td>[{{pp .CI.Lo}}, {{pp .CI.Hi}}]</td><td>{{.Worse}} / {{.Better}}</td><td>{{p .P}}</td><td>–</td><td class="{{.Verdict}}">{{.Verdict}}</td></tr>
{{end}}</table>
{{if .FailureReasons}}<h3>By failure reason (share of paired turns; higher is worse)</h3>
<table><tr><th>reason</th><th>base root + cascade</th><th>candidate root + cascade</th><th>base</th><th>candidate</th><th>Δ</th><th>CI of Δ</th><th>McNemar p</th><th>verdict</th></tr>
{{range .FailureReasons}}<tr><td>{{.Key}}</td><td>{{.BaseCount.RootCause}} + {{.BaseCount.Cascade}}</td><td>{{.CandidateCount.RootCause}} + {{.CandidateCount.Cascade}}</td><td>{{pct .Base}}</td><td>{{pct .Candidate}}</td><td>{{pp .Diff}}</td><td>[{{pp .CI.Lo}}, {{pp .CI.Hi}}]</td><td>{{p .P}}</td><td class="{{.Verdict}}">{{.Verdict}}</td></tr>
{{end}}</table>
<p>Failure-reason distribution shift: {{if .ReasonShift.Testable}}{{if .ReasonShift.Significant}}<b class="regressed">significant</b>{{else}}not significant{{end}}; chi-square {{printf "%.2f" .ReasonShift.ChiSquare}}, permutation p {{p .ReasonShift.PPermutation}}{{with .ReasonShift.PAsymptotic}}, asymptotic p {{p .}}{{end}}.{{else}}not testable.{{end}}</p>{{end}}
{{if .Regressed}}<h3>Regressed turns ({{len .Regressed}}, root causes first)</h3>
<table><tr><th>dialog</th><th>turn</th><th>kind / tool</th><th>reason</th><th>attribution</th><th>gold</th><th>base</th><th>candidate</th><th>failing fields</th></tr>
{{range first $.Max .Regressed}}<tr><td class="l"><code>{{.DialogID}}</code>{{with .Trial}} trial {{.}}{{end}}</td><td>{{.TurnNo}}</td><td class="l">{{.Kind}} {{.Tool}}</td><td class="l">{{.Reason}}</td><td class="l">{{if .RootCause}}root cause{{else}}cascade{{if .CascadeFrom}} from {{.CascadeFrom}}{{end}}{{end}}</td><td class="l"><code>{{.Gold}}</code></td><td class="l"><code>{{.BasePredicted}}</code></td><td class="l"><code>{{.CandidatePredicted}}</code></td><td class="l">{{fields .CandidateFieldScores}}</td></tr>
{{end}}</table>{{with more $.Max .Regressed}}<p>…and {{.}} more in compare.json and compare.parquet.</p>{{end}}{{end}}
{{if .Fixed}}<h3>Fixed turns ({{len .Fixed}})</h3>
<table><tr><th>dialog</th><th>turn</th><th>kind / tool</th><th>reason in base</th><th>attribution</th><th>gold</th><th>base</th><th>candidate</th></tr>
{{range first $.Max .Fixed}}<tr><td class="l"><code>{{.DialogID}}</code>{{with .Trial}} trial {{.}}{{end}}</td><td>{{.TurnNo}}</td><td class="l">{{.Kind}} {{.Tool}}</td><td class="l">{{.Reason}}</td><td class="l">{{if .RootCause}}root cause{{else}}cascade{{end}}</td><td class="l"><code>{{.Gold}}</code></td><td class="l"><code>{{.BasePredicted}}</code></td><td class="l"><code>{{.CandidatePredicted}}</code></td></tr>
{{end}}</table>{{with more $.Max .Fixed}}<p>…and {{.}} more in compare.json and compare.parquet.</p>{{end}}{{end}}
{{if .FlippedDialogs}}<h3>Dialogs whose test_pass flipped ({{len .FlippedDialogs}})</h3>
<table><tr><th>dialog</th><th>direction</th><th>base score</th><th>candidate score</th><th>candidate root cause</th></tr>
{{range .FlippedDialogs}}<tr><td class="l"><code>{{.DialogID}}</code>{{with .Trial}} trial {{.}}{{end}}</td><td class="l {{.Direction}}">{{.Direction}}</td><td>{{printf "%.2f" .BaseScore}}</td><td>{{printf "%.2f" .CandidateScore}}</td><td class="l">{{.CandidateRootCause}}</td></tr>
{{end}}</table>{{end}}
{{end}}
</body></html>
`))
