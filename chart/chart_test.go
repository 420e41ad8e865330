package chart

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 1.02, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 1, 6, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 125, 5, []float64{0, 20, 40, 60, 80, 100, 120}},
		{-0.13, 0.97, 6, []float64{-0.2 + 0.2, 0.2, 0.4, 0.6, 0.8}},
		{0.3, 0.31, 5, []float64{0.3, 0.302, 0.304, 0.306, 0.308, 0.31}},
		{1, 1, 5, nil},
		{1, math.Nextafter(1, 2), 6, []float64{1}}, // every score equal: once an endless loop
		{-1e-300, 1e-300, 5, []float64{-8e-301, -4e-301, 0, 4e-301, 8e-301}},
		{2, 1, 5, nil},
	}
	for _, tt := range tests {
		got := ticks(tt.lo, tt.hi, tt.n)
		if len(got) != len(tt.want) {
			t.Errorf("ticks(%g, %g, %d) = %v, want %v", tt.lo, tt.hi, tt.n, got, tt.want)
			continue
		}
		for i := range got {
			if d := got[i] - tt.want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("ticks(%g, %g, %d) = %v, want %v", tt.lo, tt.hi, tt.n, got, tt.want)
				break
			}
		}
	}
	if got := tickLabel(0.4, []float64{0, 0.2, 0.4}); got != "0.4" {
		t.Errorf("tickLabel = %q", got)
	}
	if got := tickLabel(120, []float64{0, 20}); got != "120" {
		t.Errorf("tickLabel = %q", got)
	}
}

func testFigure() Figure {
	red := color.RGBA{0xd6, 0x27, 0x28, 0xff}
	lines := Lines{
		Title: "Precision & <recall>", XLabel: "threshold", YLabel: "value", YMin: 0, YMax: 1,
		Series: []Series{
			{Name: "precision", X: []float64{0, 0.5, 1}, Y: []float64{0.2, 0.6, 0.9}, Color: SeriesColor(0)},
			{Name: "chosen", X: []float64{0.5, 0.5}, Y: []float64{0, 1}, Color: red, Dash: []float64{4, 3}},
			{Name: "point", X: []float64{0.5}, Y: []float64{0.6}, Color: red, Dots: true},
		},
	}
	bars := Bars{
		Title: "Correctness", YLabel: "%", Groups: []string{"all turns", "a_rather_long_failure_reason_name"},
		Series: []BarSeries{{Name: "v1", Values: []float64{80, 20}, Color: SeriesColor(0)}, {Name: "v2", Values: []float64{90, 10}, Color: SeriesColor(1)}},
	}
	return Figure{Width: 900, Height: 360, Charts: []Chart{lines, bars}}
}

func TestSVG(t *testing.T) {
	svg, err := testFigure().SVG()
	if err != nil {
		t.Fatal(err)
	}
	// Well-formed XML, with the texts escaped and every element accounted for.
	counts := map[string]int{}
	var texts []string
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			counts[tok.Name.Local]++
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	for _, want := range []string{"Precision & <recall>", "threshold", "precision", "chosen", "v1", "v2", "a_rather_long_failure_reason_name", "0.6"} {
		if !slices.Contains(texts, want) {
			t.Errorf("SVG lacks the text %q; has %q", want, texts)
		}
	}
	if counts["svg"] != 1 || counts["circle"] != 2 || counts["polyline"] < 5 {
		t.Errorf("elements %v", counts)
	}
	if !bytes.Contains(svg, []byte(`stroke-dasharray="4 3"`)) || !bytes.Contains(svg, []byte(`transform="rotate(-30`)) {
		t.Errorf("SVG lacks the dashed marker or the rotated long label:\n%s", svg)
	}
	again, _ := testFigure().SVG()
	if !bytes.Equal(svg, again) {
		t.Error("the same figure gave different SVG bytes")
	}
}

func TestPNG(t *testing.T) {
	data, err := testFigure().PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 900 || b.Dy() != 360 {
		t.Errorf("PNG is %v, want 900x360", b)
	}
	// The series colours, the text colour and the white background are all drawn.
	want := map[color.RGBA]bool{SeriesColor(0): false, SeriesColor(1): false, black: false, white: false}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			c := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}
			if _, ok := want[c]; ok {
				want[c] = true
			}
		}
	}
	for c, seen := range want {
		if !seen {
			t.Errorf("no pixel of colour %v", c)
		}
	}
	if out := os.Getenv("CHART_TEST_PNG"); out != "" { // to look at it
		os.WriteFile(out, data, 0o644)
	}
}

// TestRotatedLabelsInside: the first bar's rotated label, the longest,
// stays inside the figure (issue 29: inconsistent_parameter_values ran
// off its left edge).
func TestRotatedLabelsInside(t *testing.T) {
	groups := []string{"inconsistent_parameter_values", "prior_action_failed", "incomplete_response", "action_mismatch",
		"missing_parameters", "missing_turn", "tool_mismatch", "unexpected_turn"}
	values := []float64{9, 5, 2, 1, 1, 1, 1, 1}
	for _, width := range []float64{560, 720, 900} {
		fig := Figure{Width: width, Height: 340, Charts: []Chart{Bars{Title: "Failed turns by reason", YLabel: "turns", Groups: groups,
			Series: []BarSeries{{Name: "root cause", Values: values, Color: SeriesColor(3)}}}}}
		data, err := fig.PNG()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Min.X+3; x++ {
				if r, g, bl, _ := img.At(x, y).RGBA(); r != 0xffff || g != 0xffff || bl != 0xffff {
					t.Fatalf("width %g: a label reaches the left edge at (%d, %d)", width, x, y)
				}
			}
		}
	}
}
