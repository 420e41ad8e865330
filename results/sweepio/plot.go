package sweepio

import (
	"fmt"
	"image/color"
	"sort"

	"github.com/aem-dev/aem/chart"
	"github.com/aem-dev/aem/metrics/stats"
	"github.com/aem-dev/aem/metrics/sweep"
)

func sortStrings(s []string) { sort.Strings(s) }

// maxPlotPoints caps the vertices per curve so a sweep over a million
// distinct scores still gives a small SVG.
const maxPlotPoints = 2000

var (
	colPrecision = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	colRecall    = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	colF1        = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	colChosen    = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	colGrey      = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
)

// thin keeps at most maxPlotPoints evenly spaced points, always keeping
// the first, the last and keep.
func thin(pts []stats.Point, keep int) []stats.Point {
	if len(pts) <= maxPlotPoints {
		return pts
	}
	step := float64(len(pts)-1) / float64(maxPlotPoints-1)
	var out []stats.Point
	last := -1
	for i := 0; i < maxPlotPoints; i++ {
		j := int(float64(i)*step + 0.5)
		if keep > last && keep < j {
			out = append(out, pts[keep])
		}
		if j != last {
			out = append(out, pts[j])
			last = j
		}
	}
	return out
}

// Plot draws two panels side by side: precision, recall and F1 against the
// threshold with the chosen threshold marked, and the ROC curve with the
// chosen point marked. It returns the figure as PNG and as SVG.
func Plot(res *sweep.Result) (pngData, svgData []byte, err error) {
	if len(res.Points) == 0 {
		return nil, nil, fmt.Errorf("plotting the sweep: no binary labels, so no sweep to plot")
	}
	chosen := res.Points[res.Chosen]
	pts := thin(res.Points, res.Chosen)

	prec := chart.Series{Name: "precision", Color: colPrecision}
	rec := chart.Series{Name: "recall", Color: colRecall}
	f1 := chart.Series{Name: "F1", Color: colF1}
	for _, p := range pts {
		if p.TP+p.FP > 0 {
			prec.X, prec.Y = append(prec.X, p.Threshold), append(prec.Y, p.Precision())
		}
		rec.X, rec.Y = append(rec.X, p.Threshold), append(rec.Y, p.Recall())
		f1.X, f1.Y = append(f1.X, p.Threshold), append(f1.Y, p.F1())
	}
	pr := chart.Lines{
		Title:  fmt.Sprintf("Precision, recall, F1 (objective %s)", res.Objective),
		XLabel: "similarity threshold", YLabel: "value",
		YMin: 0, YMax: 1.02, Legend: chart.BottomLeft,
	}
	for _, s := range []chart.Series{prec, rec, f1} {
		if len(s.X) > 0 {
			pr.Series = append(pr.Series, s)
		}
	}
	pr.XMin, pr.XMax = rec.X[0], rec.X[len(rec.X)-1]
	if pr.XMin > pr.XMax {
		pr.XMin, pr.XMax = pr.XMax, pr.XMin
	}
	pr.Series = append(pr.Series, chart.Series{Name: fmt.Sprintf("chosen %.4g", chosen.Threshold),
		X: []float64{chosen.Threshold, chosen.Threshold}, Y: []float64{0, 1.02}, Color: colChosen, Width: 1.2, Dash: []float64{4, 3}})

	auc := ""
	if res.ROCAUC != nil {
		auc = fmt.Sprintf(" (AUC %.3f)", res.ROCAUC.Value)
	}
	curve := chart.Series{Name: "ROC", Color: colPrecision}
	for _, r := range stats.ROC(pts) {
		curve.X, curve.Y = append(curve.X, r.FPR), append(curve.Y, r.TPR)
	}
	roc := chart.Lines{
		Title: "ROC" + auc, XLabel: "false positive rate", YLabel: "true positive rate",
		XMin: 0, XMax: 1, YMin: 0, YMax: 1.02, Legend: chart.BottomRight,
		Series: []chart.Series{
			{Name: "chance", X: []float64{0, 1}, Y: []float64{0, 1}, Color: colGrey, Width: 1, Dash: []float64{3, 3}},
			curve,
			{Name: fmt.Sprintf("chosen %.4g", chosen.Threshold), X: []float64{chosen.FPR()}, Y: []float64{chosen.TPR()}, Color: colChosen, Dots: true},
		},
	}

	fig := chart.Figure{Width: 1320, Height: 495, Charts: []chart.Chart{pr, roc}}
	if pngData, err = fig.PNG(); err != nil {
		return nil, nil, fmt.Errorf("plotting the sweep: %w", err)
	}
	if svgData, err = fig.SVG(); err != nil {
		return nil, nil, fmt.Errorf("plotting the sweep: %w", err)
	}
	return pngData, svgData, nil
}
