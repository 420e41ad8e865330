package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"git.sr.ht/~sbinet/gg"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
)

// fonts measures and draws text in Go Regular, one face per text size.
type fonts struct {
	faces map[float64]font.Face
}

func newFonts() (*fonts, error) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("parsing the embedded Go Regular font: %w", err)
	}
	fs := &fonts{faces: map[float64]font.Face{}}
	for _, size := range []float64{titleSize, labelSize, tickSize, tickSize + 1} {
		fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			return nil, fmt.Errorf("making a %gpx Go Regular face: %w", size, err)
		}
		fs.faces[size] = fc
	}
	return fs, nil
}

// width is the advance of s at size (one of the package's text sizes), in
// pixels.
func (f *fonts) width(s string, size float64) float64 {
	return float64(font.MeasureString(f.faces[size], s)) / 64
}

// PNG renders the figure as a PNG image, white background.
func (fig Figure) PNG() ([]byte, error) {
	f, err := newFonts()
	if err != nil {
		return nil, err
	}
	dc := gg.NewContext(int(math.Ceil(fig.Width)), int(math.Ceil(fig.Height)))
	dc.SetColor(white)
	dc.Clear()
	fig.draw(pngCanvas{dc, f}, f)
	var b bytes.Buffer
	if err := dc.EncodePNG(&b); err != nil {
		return nil, fmt.Errorf("encoding the PNG: %w", err)
	}
	return b.Bytes(), nil
}

type pngCanvas struct {
	dc *gg.Context
	f  *fonts
}

func (p pngCanvas) polyline(xs, ys []float64, col color.RGBA, width float64, dash []float64) {
	if len(xs) == 0 {
		return
	}
	p.dc.SetColor(col)
	p.dc.SetLineWidth(width)
	p.dc.SetDash(dash...)
	p.dc.MoveTo(xs[0], ys[0])
	for i := 1; i < len(xs); i++ {
		p.dc.LineTo(xs[i], ys[i])
	}
	p.dc.Stroke()
	p.dc.SetDash()
}

func (p pngCanvas) fillRect(r rect, col color.RGBA) {
	p.dc.SetColor(col)
	p.dc.DrawRectangle(r.x, r.y, r.w, r.h)
	p.dc.Fill()
}

func (p pngCanvas) circle(x, y, radius float64, col color.RGBA) {
	p.dc.SetColor(col)
	p.dc.DrawCircle(x, y, radius)
	p.dc.Fill()
}

func (p pngCanvas) text(s string, x, y, size, ax, deg float64, col color.RGBA) {
	p.dc.Push()
	p.dc.SetFontFace(p.f.faces[size])
	p.dc.SetColor(col)
	if deg != 0 {
		p.dc.RotateAbout(-deg*math.Pi/180, x, y)
	}
	p.dc.DrawStringAnchored(s, x, y, ax, 0)
	p.dc.Pop()
}
