package sweepio

import (
	"bytes"
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

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

	pr := plot.New()
	pr.Title.Text = fmt.Sprintf("Precision, recall, F1 (objective %s)", res.Objective)
	pr.X.Label.Text = "similarity threshold"
	pr.Y.Label.Text = "value"
	pr.Y.Min, pr.Y.Max = 0, 1.02
	pr.Add(plotter.NewGrid())
	var prec, rec, f1 plotter.XYs
	for _, p := range pts {
		if p.TP+p.FP > 0 {
			prec = append(prec, plotter.XY{X: p.Threshold, Y: p.Precision()})
		}
		rec = append(rec, plotter.XY{X: p.Threshold, Y: p.Recall()})
		f1 = append(f1, plotter.XY{X: p.Threshold, Y: p.F1()})
	}
	for _, c := range []struct {
		name string
		xy   plotter.XYs
		col  color.Color
	}{{"precision", prec, colPrecision}, {"recall", rec, colRecall}, {"F1", f1, colF1}} {
		if len(c.xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(c.xy)
		if err != nil {
			return nil, nil, fmt.Errorf("plotting %s: %w", c.name, err)
		}
		l.Color, l.Width = c.col, vg.Points(1.5)
		pr.Add(l)
		pr.Legend.Add(c.name, l)
	}
	mark, err := plotter.NewLine(plotter.XYs{{X: chosen.Threshold, Y: 0}, {X: chosen.Threshold, Y: 1.02}})
	if err != nil {
		return nil, nil, err
	}
	mark.Color, mark.Dashes, mark.Width = colChosen, []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1.2)
	pr.Add(mark)
	pr.Legend.Add(fmt.Sprintf("chosen %.4g", chosen.Threshold), mark)
	pr.Legend.Left, pr.Legend.Top = true, false

	roc := plot.New()
	auc := ""
	if res.ROCAUC != nil {
		auc = fmt.Sprintf(" (AUC %.3f)", res.ROCAUC.Value)
	}
	roc.Title.Text = "ROC" + auc
	roc.X.Label.Text = "false positive rate"
	roc.Y.Label.Text = "true positive rate"
	roc.X.Min, roc.X.Max, roc.Y.Min, roc.Y.Max = 0, 1, 0, 1.02
	roc.Add(plotter.NewGrid())
	var xy plotter.XYs
	for _, r := range stats.ROC(pts) {
		xy = append(xy, plotter.XY{X: r.FPR, Y: r.TPR})
	}
	curve, err := plotter.NewLine(xy)
	if err != nil {
		return nil, nil, fmt.Errorf("plotting the ROC curve: %w", err)
	}
	curve.Color, curve.Width = colPrecision, vg.Points(1.5)
	diag, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diag.Color, diag.Dashes = colGrey, []vg.Length{vg.Points(3), vg.Points(3)}
	dot, err := plotter.NewScatter(plotter.XYs{{X: chosen.FPR(), Y: chosen.TPR()}})
	if err != nil {
		return nil, nil, err
	}
	dot.GlyphStyle.Color, dot.GlyphStyle.Radius, dot.GlyphStyle.Shape = colChosen, vg.Points(4), draw.CircleGlyph{}
	roc.Add(diag, curve, dot)
	roc.Legend.Add("ROC", curve)
	roc.Legend.Add("chance", diag)
	roc.Legend.Add(fmt.Sprintf("chosen %.4g", chosen.Threshold), dot)
	roc.Legend.Top = false

	const w, h = 12 * vg.Inch, 4.5 * vg.Inch
	render := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 3,
			PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
		cs := plot.Align([][]*plot.Plot{{pr, roc}}, tiles, dc)
		pr.Draw(cs[0][0])
		roc.Draw(cs[0][1])
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110), vgimg.UseBackgroundColor(color.White))
	render(img)
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pb); err != nil {
		return nil, nil, fmt.Errorf("encoding the PNG plot: %w", err)
	}
	svg := vgsvg.New(w, h)
	render(svg)
	var sb bytes.Buffer
	if _, err := svg.WriteTo(&sb); err != nil {
		return nil, nil, fmt.Errorf("encoding the SVG plot: %w", err)
	}
	return pb.Bytes(), sb.Bytes(), nil
}
