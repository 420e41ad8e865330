// Package chart draws the few figures aem writes, sweep's curves (Lines)
// and compare's grouped bars (Bars), as SVG and as PNG.
//
// It replaces gonum/plot, whose plot package links twelve Liberation fonts
// (4.4 MB of the binary; see BENCHMARKS.md, "Binary size"), with one small
// embedded font, Go Regular (golang.org/x/image/font/gofont), used to
// measure text for the layout of both formats and to draw the PNG's text.
// The SVG names Go first and falls back to the viewer's sans-serif fonts.
// PNGs are rasterised with git.sr.ht/~sbinet/gg.
//
// A Figure places its charts side by side. The output depends only on the
// input: the same figure gives the same bytes.
package chart
