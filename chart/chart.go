package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Series is one curve of a Lines chart.
type Series struct {
	Name  string
	X, Y  []float64
	Color color.RGBA
	Width float64   // stroke width in pixels (0: 1.5)
	Dash  []float64 // on/off lengths in pixels; nil for a solid line
	Dots  bool      // a dot at each point instead of a line
}

// Corner says where a legend goes inside the axes.
type Corner int

// Legend corners.
const (
	BottomRight Corner = iota
	BottomLeft
	TopRight
	TopLeft
)

// Lines is a chart of curves over numeric axes.
type Lines struct {
	Title, XLabel, YLabel string
	// The axes' ranges; when a range is empty (min >= max) it is taken from
	// the data.
	XMin, XMax, YMin, YMax float64
	Series                 []Series
	Legend                 Corner
}

// BarSeries is one bar per group of a Bars chart.
type BarSeries struct {
	Name   string
	Values []float64 // one per group
	Color  color.RGBA
}

// Bars is a grouped bar chart: one group per label along the x axis, one
// bar per series in each group, the y axis from 0.
type Bars struct {
	Title, YLabel string
	Groups        []string
	Series        []BarSeries
	YMax          float64 // 0: from the data, with room for the legend
}

// Chart is Lines or Bars.
type Chart interface {
	draw(c canvas, f *fonts, r rect)
}

// Figure is charts side by side in a Width x Height pixel image.
type Figure struct {
	Width, Height float64
	Charts        []Chart
}

// palette holds the colours SeriesColor gives in turn.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
}

// SeriesColor is the i-th colour of an eight-colour palette (repeating).
func SeriesColor(i int) color.RGBA { return palette[i%len(palette)] }

var (
	black     = color.RGBA{0x22, 0x22, 0x22, 0xff}
	gridColor = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
	white     = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// Text sizes in pixels.
const (
	titleSize = 15
	labelSize = 13
	tickSize  = 11
)

type rect struct{ x, y, w, h float64 }

// canvas is what a chart draws on: the SVG writer and the PNG rasteriser.
type canvas interface {
	polyline(xs, ys []float64, col color.RGBA, width float64, dash []float64)
	fillRect(r rect, col color.RGBA)
	circle(x, y, radius float64, col color.RGBA)
	// text draws s with its baseline at y, starting at x minus ax times its
	// width (ax: 0 left, 0.5 centred, 1 right), turned by deg degrees
	// (counter-clockwise) about (x, y).
	text(s string, x, y, size, ax, deg float64, col color.RGBA)
}

// draw lays the charts out side by side with a margin.
func (fig Figure) draw(c canvas, f *fonts) {
	const pad = 12
	n := float64(len(fig.Charts))
	w := (fig.Width - pad*(n+1)) / n
	for i, ch := range fig.Charts {
		ch.draw(c, f, rect{pad + float64(i)*(w+pad), pad, w, fig.Height - 2*pad})
	}
}

// axes is the mapping from data to pixels inside a chart's plotting area.
type axes struct {
	area                   rect
	xmin, xmax, ymin, ymax float64
}

func (a axes) px(x float64) float64 {
	return a.area.x + (x-a.xmin)/(a.xmax-a.xmin)*a.area.w
}

func (a axes) py(y float64) float64 {
	return a.area.y + a.area.h - (y-a.ymin)/(a.ymax-a.ymin)*a.area.h
}

// frame draws the title, the y grid and tick labels, the x axis label and
// the y axis label, and returns the plotting area. bottom is the room below
// the area for x tick labels, minLeft the least room left of it.
func frame(c canvas, f *fonts, r rect, title, xlabel, ylabel string, ymin, ymax, bottom, minLeft float64) (axes, []float64) {
	yt := ticks(ymin, ymax, 5)
	left := math.Max(float64(14+labelSize+8), minLeft)
	for _, v := range yt {
		left = math.Max(left, 14+labelSize+10+f.width(tickLabel(v, yt), tickSize))
	}
	area := rect{r.x + left, r.y + titleSize + 14, r.w - left - 10, r.h - titleSize - 14 - bottom}
	if xlabel != "" {
		area.h -= labelSize + 8
		c.text(xlabel, area.x+area.w/2, r.y+r.h-4, labelSize, 0.5, 0, black)
	}
	c.text(title, r.x+r.w/2, r.y+titleSize, titleSize, 0.5, 0, black)
	c.text(ylabel, r.x+labelSize, area.y+area.h/2, labelSize, 0.5, 90, black)
	a := axes{area: area, ymin: ymin, ymax: ymax}
	for _, v := range yt {
		y := a.py(v)
		c.polyline([]float64{area.x, area.x + area.w}, []float64{y, y}, gridColor, 1, nil)
		c.text(tickLabel(v, yt), area.x-5, y+tickSize*0.35, tickSize, 1, 0, black)
	}
	return a, yt
}

// box draws the plotting area's outline.
func box(c canvas, r rect) {
	c.polyline([]float64{r.x, r.x + r.w, r.x + r.w, r.x, r.x}, []float64{r.y, r.y, r.y + r.h, r.y + r.h, r.y}, black, 1, nil)
}

func (l Lines) draw(c canvas, f *fonts, r rect) {
	xmin, xmax := l.XMin, l.XMax
	ymin, ymax := l.YMin, l.YMax
	if xmin >= xmax {
		xmin, xmax = dataRange(l.Series, func(s Series) []float64 { return s.X })
	}
	if ymin >= ymax {
		ymin, ymax = dataRange(l.Series, func(s Series) []float64 { return s.Y })
	}
	a, _ := frame(c, f, r, l.Title, l.XLabel, l.YLabel, ymin, ymax, tickSize+10, 0)
	a.xmin, a.xmax = xmin, xmax
	xt := ticks(xmin, xmax, 6)
	for _, v := range xt {
		x := a.px(v)
		c.polyline([]float64{x, x}, []float64{a.area.y, a.area.y + a.area.h}, gridColor, 1, nil)
		c.text(tickLabel(v, xt), x, a.area.y+a.area.h+tickSize+5, tickSize, 0.5, 0, black)
	}
	for _, s := range l.Series {
		xs, ys := make([]float64, len(s.X)), make([]float64, len(s.Y))
		for i := range s.X {
			xs[i], ys[i] = a.px(s.X[i]), a.py(s.Y[i])
		}
		if s.Dots {
			for i := range xs {
				c.circle(xs[i], ys[i], 4, s.Color)
			}
			continue
		}
		c.polyline(xs, ys, s.Color, cmpOr(s.Width, 1.5), s.Dash)
	}
	box(c, a.area)
	var items []legendItem
	for _, s := range l.Series {
		items = append(items, legendItem{s.Name, s.Color, s.Dash, s.Dots, false})
	}
	legend(c, f, a.area, l.Legend, items)
}

func (b Bars) draw(c canvas, f *fonts, r rect) {
	ymax := b.YMax
	if ymax <= 0 {
		for _, s := range b.Series {
			for _, v := range s.Values {
				ymax = math.Max(ymax, v)
			}
		}
		ymax = math.Max(1, ymax*1.25) // headroom for the legend
	}
	longest, rotate := 0.0, false
	for _, g := range b.Groups {
		longest = math.Max(longest, f.width(g, tickSize))
	}
	bottom, minLeft := tickSize+10.0, 0.0
	slot := (r.w - 80) / float64(max(1, len(b.Groups)))
	if longest > slot*0.95 {
		rotate = true
		bottom = longest*math.Sin(math.Pi/6) + tickSize + 10
		minLeft = rotatedRoom(f, b.Groups, r.w-10)
	}
	a, _ := frame(c, f, r, b.Title, "", b.YLabel, 0, ymax, bottom, minLeft)
	a.xmin, a.xmax = -0.5, float64(len(b.Groups))-0.5
	n := float64(max(1, len(b.Series)))
	barW := math.Min(0.7*a.area.w/float64(max(1, len(b.Groups)))/n, 48)
	for j, g := range b.Groups {
		cx := a.px(float64(j))
		for i, s := range b.Series {
			if j >= len(s.Values) {
				continue
			}
			x := cx + barW*(float64(i)-(n-1)/2) - barW/2
			top := a.py(math.Min(s.Values[j], ymax))
			c.fillRect(rect{x, top, barW, a.area.y + a.area.h - top}, s.Color)
		}
		y := a.area.y + a.area.h + tickSize + 5
		if rotate {
			c.text(g, cx, y-tickSize/2, tickSize, 1, 30, black)
		} else {
			c.text(g, cx, y, tickSize, 0.5, 0, black)
		}
	}
	box(c, a.area)
	var items []legendItem
	for _, s := range b.Series {
		items = append(items, legendItem{s.Name, s.Color, nil, false, true})
	}
	legend(c, f, a.area, TopRight, items)
}

// rotatedRoom is the room left of the plotting area that keeps every
// label, rotated 30 degrees and ending under its bar, inside the chart: a
// long label under one of the first bars reaches back past the area's
// left edge. w is the chart's width less the area's right margin; the
// bars sit at the middles of equal slots of what the room leaves.
func rotatedRoom(f *fonts, groups []string, w float64) float64 {
	n := float64(len(groups))
	room := 0.0
	for j, g := range groups {
		at := (float64(j) + 0.5) / n // where the bar sits, as a share of the area
		reach := f.width(g, tickSize)*math.Cos(math.Pi/6) + 4
		// left + at*(w-left) >= reach
		room = math.Max(room, (reach-at*w)/(1-at))
	}
	return room
}

type legendItem struct {
	name  string
	col   color.RGBA
	dash  []float64
	dot   bool
	solid bool // a filled square (bars)
}

// legend draws the items in a box in the corner of area; unnamed items
// (a chart's only series) have no entry.
func legend(c canvas, f *fonts, area rect, corner Corner, items []legendItem) {
	items = slices.DeleteFunc(slices.Clone(items), func(it legendItem) bool { return it.name == "" })
	if len(items) == 0 {
		return
	}
	const sample, gap, line = 22.0, 6.0, labelSize + 5.0
	w := 0.0
	for _, it := range items {
		w = math.Max(w, f.width(it.name, tickSize+1))
	}
	w += sample + 3*gap
	h := line*float64(len(items)) + gap
	x, y := area.x+area.w-w-8, area.y+area.h-h-8
	if corner == BottomLeft || corner == TopLeft {
		x = area.x + 8
	}
	if corner == TopRight || corner == TopLeft {
		y = area.y + 8
	}
	c.fillRect(rect{x, y, w, h}, white)
	for i, it := range items {
		cy := y + gap + line*float64(i) + line/2 - 2
		switch {
		case it.solid:
			c.fillRect(rect{x + gap + sample/2 - 5, cy - 5, 10, 10}, it.col)
		case it.dot:
			c.circle(x+gap+sample/2, cy, 4, it.col)
		default:
			c.polyline([]float64{x + gap, x + gap + sample}, []float64{cy, cy}, it.col, 1.5, it.dash)
		}
		c.text(it.name, x+2*gap+sample, cy+tickSize*0.35, tickSize+1, 0, 0, black)
	}
}

// dataRange is the smallest and largest of the values get picks out, widened
// when they are equal.
func dataRange(ss []Series, get func(Series) []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range get(s) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return 0, 1
	}
	if lo == hi {
		return lo - 0.5, hi + 0.5
	}
	return lo, hi
}

// ticks returns about n round values (steps of 1, 2 or 5 times a power of
// ten, the one nearest (hi-lo)/n) within [lo, hi].
func ticks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 1 {
		return nil
	}
	raw := (hi - lo) / float64(n)
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step := pow
	for _, m := range []float64{2, 5, 10} { // the round step nearest raw, on a log scale
		if math.Abs(math.Log(m*pow/raw)) < math.Abs(math.Log(step/raw)) {
			step = m * pow
		}
	}
	first, last := math.Ceil(lo/step-1e-9), math.Floor(hi/step+1e-9)
	if math.Max(math.Abs(first), math.Abs(last)) > 1<<52 {
		// A range too narrow for float64 to step through (1 to the next
		// float, as when every score is equal): no round ticks, only lo.
		return []float64{lo}
	}
	var out []float64
	for k := 0; k <= int(last-first); k++ {
		v := (first + float64(k)) * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out
}

// tickLabel writes v with as many decimals as the tick step needs.
func tickLabel(v float64, all []float64) string {
	dec := 0
	if len(all) > 1 {
		step := all[1] - all[0]
		dec = max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

func cmpOr(a, b float64) float64 {
	if a != 0 {
		return a
	}
	return b
}

// SVG renders the figure as a standalone SVG document.
func (fig Figure) SVG() ([]byte, error) {
	f, err := newFonts()
	if err != nil {
		return nil, err
	}
	s := &svgCanvas{}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="Go, 'DejaVu Sans', Helvetica, Arial, sans-serif">`+"\n",
		num(fig.Width), num(fig.Height), num(fig.Width), num(fig.Height))
	s.fillRect(rect{0, 0, fig.Width, fig.Height}, white)
	fig.draw(s, f)
	s.b.WriteString("</svg>\n")
	return s.b.Bytes(), nil
}

type svgCanvas struct{ b bytes.Buffer }

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// fix2 rounds a coordinate to hundredths of a pixel: smaller files, and the
// same bytes on every platform.
func fix2(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func (s *svgCanvas) polyline(xs, ys []float64, col color.RGBA, width float64, dash []float64) {
	var pts []string
	for i := range xs {
		pts = append(pts, fix2(xs[i])+","+fix2(ys[i]))
	}
	fmt.Fprintf(&s.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%s"`, strings.Join(pts, " "), hex(col), num(width))
	if len(dash) > 0 {
		var ds []string
		for _, d := range dash {
			ds = append(ds, num(d))
		}
		fmt.Fprintf(&s.b, ` stroke-dasharray="%s"`, strings.Join(ds, " "))
	}
	s.b.WriteString("/>\n")
}

func (s *svgCanvas) fillRect(r rect, col color.RGBA) {
	fmt.Fprintf(&s.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", fix2(r.x), fix2(r.y), fix2(r.w), fix2(r.h), hex(col))
}

func (s *svgCanvas) circle(x, y, radius float64, col color.RGBA) {
	fmt.Fprintf(&s.b, `<circle cx="%s" cy="%s" r="%s" fill="%s"/>`+"\n", fix2(x), fix2(y), num(radius), hex(col))
}

func (s *svgCanvas) text(str string, x, y, size, ax, deg float64, col color.RGBA) {
	anchor := map[float64]string{0: "start", 0.5: "middle", 1: "end"}[ax]
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="%s" fill="%s"`, fix2(x), fix2(y), num(size), anchor, hex(col))
	if deg != 0 {
		fmt.Fprintf(&s.b, ` transform="rotate(%s %s %s)"`, num(-deg), fix2(x), fix2(y))
	}
	s.b.WriteString(">")
	xmlEscape(&s.b, str)
	s.b.WriteString("</text>\n")
}

func xmlEscape(b *bytes.Buffer, s string) {
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&#34;")
		default:
			b.WriteRune(r)
		}
	}
}
