package review

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/internal/safefile"
)

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("review").Parse(pageHTML))

// WriteHTML writes the labelling page for items to path (atomically): one
// self-contained file, nothing fetched, no server. An annotator judges
// each item, the labels are kept in the browser's local storage as they
// go (keyed by the file's name and items), and a button downloads every
// item with its label as JSON Lines, the review file format, named after
// jsonl (the review file the page was made from: review.jsonl gives
// review-labelled.jsonl).
func WriteHTML(path, jsonl string, items []Item) error {
	if items == nil {
		items = []Item{}
	}
	run, scorer := "", ""
	if len(items) > 0 {
		run, scorer = items[0].Run, items[0].Scorer
	}
	base := strings.TrimSuffix(filepath.Base(jsonl), filepath.Ext(jsonl))
	key := fmt.Sprintf("aem-review:%s:%s:%d:%s", run, base, len(items), firstID(items))
	var b bytes.Buffer
	if err := page.Execute(&b, struct {
		Items                           []Item
		Run, Scorer, StoreKey, Download string
	}{items, run, scorer, key, base + "-labelled.jsonl"}); err != nil {
		return fmt.Errorf("rendering the review page: %w", err)
	}
	if err := safefile.WriteFile(path, b.Bytes()); err != nil {
		return fmt.Errorf("writing the review page: %w", err)
	}
	return nil
}

func firstID(items []Item) string {
	if len(items) == 0 {
		return ""
	}
	return items[0].DialogID + "/" + items[0].Field
}
