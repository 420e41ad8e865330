package review

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/rundir"
)

// File is the default name of a review file, in the run directory (a
// file derived from the run: rundir.ClaimDir knows it).
const File = rundir.ReviewFile

// Sentinel errors. Every error about the content of a review file is a
// *badinput.RowError (exit status 3) naming the file, the 0-based item
// (row), its 1-based line, the field and the fix, and wrapping one of
// these.
var (
	// ErrSyntax: a line is not a JSON object of an item.
	ErrSyntax = errors.New("not a review item")
	// ErrVersion: an item of a version this aem does not read.
	ErrVersion = errors.New("unknown review version")
	// ErrValue: a field holds a value that cannot be used.
	ErrValue = errors.New("bad review value")
	// ErrDuplicate: two items name the same comparison.
	ErrDuplicate = errors.New("comparison reviewed twice")
)

// Write writes the items to path as JSON Lines, one item per line,
// atomically (safefile): the one writer of review files.
func Write(path string, items []Item) error {
	return safefile.WriteWith(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for i := range items {
			if err := enc.Encode(&items[i]); err != nil {
				return fmt.Errorf("encoding review item %s: %w", items[i].ID, err)
			}
		}
		return bw.Flush()
	})
}

// Sniff reports whether the file at path looks like a review file: its
// first non-blank line is a JSON object with a "review" member. Sweep
// uses it to tell a review file from other labels files.
func Sniff(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(line, &probe) != nil {
			return false
		}
		_, ok := probe["review"]
		return ok
	}
	return false
}

// maxLine bounds one line of a review file (an item with long replies).
const maxLine = 16 << 20

// Read reads a review file written by Write and edited by people or by
// the labelling page: every item, labelled or not, in file order. Blank
// lines are skipped. It checks what sweep relies on: the version, a
// dialog_id, a turn_no and a field on every item, human_label true, false
// or null (the strings "pass", "fail", "true", "false", "yes", "no", "1",
// "0" and "" are accepted too, as people type them), a finite human_score,
// and no comparison twice. Unknown members are ignored, so tools may add
// their own.
func Read(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading review file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	var items []Item
	seen := map[Key]int{} // item index
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		row := int64(len(items))
		it, err := decodeItem(raw)
		if err != nil {
			var re *badinput.RowError
			if errors.As(err, &re) {
				re.File, re.Row, re.Line = path, row, line
			}
			return nil, err
		}
		if prev, dup := seen[it.Key()]; dup {
			return nil, &badinput.RowError{File: path, Row: row, Line: line, Field: "field", Kind: ErrDuplicate,
				Problem: fmt.Sprintf("%s is reviewed again (first as item %s, row %d)", it.Key(), items[prev].ID, prev),
				Fix:     "keep one item per comparison"}
		}
		seen[it.Key()] = len(items)
		it.Line = line
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, &badinput.RowError{File: path, Row: int64(len(items)), Line: line + 1, Kind: ErrSyntax, Err: err,
			Problem: "cannot read the line", Fix: fmt.Sprintf("keep each item on one line of at most %d MiB", maxLine>>20)}
	}
	return items, nil
}

// decodeItem decodes one line; errors are RowErrors without file and row.
func decodeItem(raw []byte) (Item, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Item{}, &badinput.RowError{Kind: ErrSyntax, Err: err, Problem: "not a JSON object",
			Fix: "write one JSON object per line, as aem review does"}
	}
	// human_label is decoded by hand, to take what people type.
	label, hasLabel := m["human_label"]
	delete(m, "human_label")
	rest, _ := json.Marshal(m)
	var it Item
	if err := json.Unmarshal(rest, &it); err != nil {
		field := ""
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field = te.Field
		}
		return Item{}, &badinput.RowError{Field: field, Kind: ErrValue, Err: err, Problem: "a member has the wrong type",
			Fix: "keep the types aem review wrote (numbers as numbers, texts as strings)"}
	}
	if it.Review != Version {
		return Item{}, &badinput.RowError{Field: "review", Kind: ErrVersion,
			Problem: fmt.Sprintf("review version %d, this aem reads version %d", it.Review, Version),
			Fix:     "export the items again with this aem's 'aem review'"}
	}
	for _, c := range []struct{ name, v string }{{"dialog_id", it.DialogID}, {"field", it.Field}} {
		if strings.TrimSpace(c.v) == "" {
			return Item{}, &badinput.RowError{Field: c.name, Kind: ErrValue, Problem: "missing or empty " + c.name,
				Fix: "keep the item's key (dialog_id, trial, turn_no, field) as aem review wrote it"}
		}
	}
	if _, ok := m["turn_no"]; !ok {
		return Item{}, &badinput.RowError{Field: "turn_no", Kind: ErrValue, Problem: "missing turn_no",
			Fix: "keep the item's key (dialog_id, trial, turn_no, field) as aem review wrote it"}
	}
	if hasLabel {
		l, err := parseLabel(label)
		if err != nil {
			return Item{}, &badinput.RowError{Field: "human_label", Kind: ErrValue, Err: err, Problem: "not a judgement",
				Fix: `write true (the predicted value means the same as the gold one), false, or null (not judged); "pass" and "fail" work too`}
		}
		it.HumanLabel = l
	}
	if it.HumanScore != nil && (math.IsNaN(*it.HumanScore) || math.IsInf(*it.HumanScore, 0)) {
		return Item{}, &badinput.RowError{Field: "human_score", Kind: ErrValue, Problem: "not a finite number",
			Fix: "give a number or leave human_score out"}
	}
	return it, nil
}

// parseLabel reads a human_label: a JSON boolean, null, or a string people
// type for one.
func parseLabel(raw json.RawMessage) (*bool, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	yes, no := true, false
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return &x, nil
	case float64:
		switch x {
		case 1:
			return &yes, nil
		case 0:
			return &no, nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "":
			return nil, nil
		case "true", "pass", "yes", "y", "1", "same", "equivalent":
			return &yes, nil
		case "false", "fail", "no", "n", "0", "different":
			return &no, nil
		}
	}
	return nil, fmt.Errorf("%s", raw)
}
