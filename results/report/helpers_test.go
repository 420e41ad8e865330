package report

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/datasets"
	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// example is the bundled example dataset.
var example = filepath.Join("..", "..", "datasets", "example", "golden.jsonl")

// scoreRun scores input with the lexical scorer (no model needed) into a
// fresh run directory and returns it.
func scoreRun(t testing.TB, input string, cfg metrics.Config) string {
	t.Helper()
	m, err := metrics.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	if _, err := batch.Run(context.Background(), batch.Options{Input: input, OutDir: out, Scorer: metrics.Lexical{}, Metric: m, Workers: 2}); err != nil {
		t.Fatalf("batch.Run(%s): %v", input, err)
	}
	return out
}

// generated writes a generated golden dataset of n dialogs (latencies and
// labels included) and returns its path.
func generated(t testing.TB, n int, seed uint64) string {
	t.Helper()
	cfg := datasets.DefaultGenConfig()
	cfg.Dialogs, cfg.Seed = n, seed
	path := filepath.Join(t.TempDir(), "gen.parquet")
	if _, err := golden.Write(context.Background(), path, golden.Seq(datasets.Generate(cfg)), golden.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// exampleConfig is the example's thresholds (datasets/example/thresholds.json).
func exampleConfig() metrics.Config {
	cfg := metrics.DefaultConfig()
	cfg.Thresholds.SubMetrics = map[string]float64{metrics.SubTruthValues: 0.75}
	return cfg
}

// build opens the run and builds its report.
func build(t testing.TB, dir string, opts Options) *Report {
	t.Helper()
	rd, err := rundir.Open(context.Background(), dir, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rep, err := Build(context.Background(), rd, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// page renders the report and parses it.
func page(t testing.TB, rep *Report) (*html.Node, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, rep, "test"); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, b.Bytes()
}

// each calls f for every element node under n.
func each(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		each(c, f)
	}
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

// text is the text content of n, spaces collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
