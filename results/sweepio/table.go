package sweepio

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"

	"github.com/parquet-go/parquet-go"
)

// Format names a pairs or labels file layout.
type Format string

// Formats read by ReadPairs and the labels reader.
const (
	FormatAuto    Format = "auto"    // detect from content and extension
	FormatJSONL   Format = "jsonl"   // one JSON object per line
	FormatCSV     Format = "csv"     // comma-separated, header row, RFC 4180 quoting
	FormatTSV     Format = "tsv"     // tab-separated, header row, no quoting
	FormatParquet Format = "parquet" // flat Parquet columns
	// FormatSTSB is the STS Benchmark layout: tab-separated, no header, no
	// quoting; fields genre, filename, year, id, score (0-5), sentence1,
	// sentence2, then possibly extra fields, which are ignored.
	FormatSTSB Format = "stsb"
	// FormatReview is a review file of aem review (package review), read
	// as labels; FormatAuto and FormatJSONL recognise it by its "review"
	// member.
	FormatReview Format = "review"
)

// ParseFormat parses a --pairs-format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return FormatAuto, nil
	case FormatAuto, FormatJSONL, FormatCSV, FormatTSV, FormatParquet, FormatSTSB, FormatReview:
		return f, nil
	case "json", "ndjson":
		return FormatJSONL, nil
	}
	return "", fmt.Errorf("pairs format %q: %w: use auto, jsonl, csv, tsv, parquet, stsb or review", s, ErrFormat)
}

// table is a small in-memory table of text cells.
type table struct {
	file   string
	header []string
	rows   [][]string
	lines  []int          // source row of each row: its 1-based line in a text file, its 1-based row in Parquet
	text   bool           // lines are line numbers
	absent []map[int]bool // per row, cells that were null or missing (JSON, Parquet)
}

// err reports a problem with row r (an index into t.rows) in column field.
func (t *table) err(r int, field, problem, fix string, kind error) error {
	line := 0
	if t.text {
		line = t.lines[r]
	}
	return rowError(t.file, r, line, field, problem, fix, kind)
}

func (t *table) col(name string, aliases ...string) int {
	for _, n := range append([]string{name}, aliases...) {
		for i, h := range t.header {
			if strings.EqualFold(strings.TrimSpace(h), n) {
				return i
			}
		}
	}
	return -1
}

// cell returns row r's value in column c and whether it is present (not
// null, not missing, not empty after trimming).
func (t *table) cell(r, c int) (string, bool) {
	if c < 0 || c >= len(t.rows[r]) || (t.absent != nil && t.absent[r][c]) {
		return "", false
	}
	v := t.rows[r][c]
	return v, strings.TrimSpace(v) != ""
}

// detect decides the format of data named name.
func detect(name string, head []byte) Format {
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return FormatParquet
	}
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".parquet":
		return FormatParquet
	case ".jsonl", ".ndjson", ".json":
		return FormatJSONL
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return FormatJSONL
	}
	first, _, _ := bytes.Cut(head, []byte("\n"))
	first = bytes.TrimRight(first, "\r")
	if bytes.Contains(first, []byte("\t")) {
		f := strings.Split(string(first), "\t")
		if len(f) >= 7 && !hasHeaderName(f) {
			if _, err := strconv.ParseFloat(strings.TrimSpace(f[4]), 64); err == nil {
				return FormatSTSB
			}
		}
		if ext == ".tsv" || !bytes.Contains(first, []byte(",")) {
			return FormatTSV
		}
	}
	if ext == ".tsv" || ext == ".tab" {
		return FormatTSV
	}
	return FormatCSV
}

func hasHeaderName(f []string) bool {
	for _, x := range f {
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "text_a", "text_b", "label", "score", "dialog_id", "sentence1", "sentence2":
			return true
		}
	}
	return false
}

// readTable reads a whole file as a table in the given format.
func readTable(path string, format Format) (*table, Format, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, format, fmt.Errorf("reading %s: %w", path, err)
	}
	if format == FormatAuto || format == "" {
		format = detect(path, data[:min(len(data), 64<<10)])
	}
	t, err := parseTable(path, data, format)
	return t, format, err
}

// parseTable parses data in a known format. It never panics on bad input.
func parseTable(name string, data []byte, format Format) (*table, error) {
	t := &table{file: name, text: format != FormatParquet}
	var err error
	switch format {
	case FormatJSONL:
		err = t.parseJSONL(data)
	case FormatCSV:
		err = t.parseCSV(data)
	case FormatTSV:
		err = t.parseTSV(data, true)
	case FormatSTSB:
		t.header = []string{"genre", "filename", "year", "id", "score", "text_a", "text_b"}
		err = t.parseTSV(data, false)
	case FormatParquet:
		// parquet-go may panic on corrupt data.
		err = badinput.Recover(badinput.RowError{File: name, Row: badinput.NoRow, Problem: "not a readable Parquet file", Kind: ErrFormat},
			func() error { return t.parseParquet(data) })
	default:
		return nil, fmt.Errorf("%s: %w %q", name, ErrFormat, format)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (t *table) parseJSONL(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	index := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff"))
		}
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil || dec.More() {
			if err == nil {
				err = errors.New("more than one JSON value on the line")
			}
			return rowError(t.file, len(t.rows), line, "", fmt.Sprintf("not a JSON object: %v", err),
				"write one JSON object per line, e.g. {\"text_a\": \"...\", \"text_b\": \"...\", \"label\": 1}", ErrValue)
		}
		row := make([]string, len(t.header))
		absent := map[int]bool{}
		for k, v := range obj {
			c, ok := index[k]
			if !ok {
				c = len(t.header)
				index[k] = c
				t.header = append(t.header, k)
				for i := range t.rows {
					t.rows[i] = append(t.rows[i], "")
					t.absent[i][c] = true
				}
				row = append(row, "")
			}
			switch x := v.(type) {
			case nil:
				absent[c] = true
			case string:
				row[c] = x
			case json.Number:
				row[c] = x.String()
			case bool:
				row[c] = strconv.FormatBool(x)
			default:
				b, _ := json.Marshal(x)
				row[c] = string(b)
			}
		}
		for c := range t.header {
			if _, ok := obj[t.header[c]]; !ok {
				absent[c] = true
			}
		}
		t.rows = append(t.rows, row)
		t.absent = append(t.absent, absent)
		t.lines = append(t.lines, line)
	}
	if err := sc.Err(); err != nil {
		return rowError(t.file, len(t.rows), line+1, "", fmt.Sprintf("reading JSON lines: %v", err), "", ErrValue)
	}
	return nil
}

func (t *table) parseCSV(data []byte) error {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	first := true
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			row := len(t.rows)
			if first {
				row = int(badinput.NoRow)
			}
			return rowError(t.file, row, line, "", fmt.Sprintf("bad CSV: %v", err),
				"quote fields that hold commas or quotes (\"like \"\"this\"\"\"), or use a TSV or JSON Lines file", ErrValue)
		}
		line, _ := r.FieldPos(0)
		if first {
			t.header, first = rec, false
			continue
		}
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
}

func (t *table) parseTSV(data []byte, header bool) error {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	line := 0
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte("\n"))
		line++
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		rec := strings.Split(string(l), "\t")
		if header && t.header == nil {
			t.header = rec
			continue
		}
		if !header && len(rec) < len(t.header) {
			return rowError(t.file, len(t.rows), line, "", fmt.Sprintf("%d tab-separated fields, the STS-B layout has at least %d (genre, filename, year, id, score, sentence1, sentence2)", len(rec), len(t.header)),
				"check that the file is tab-separated, or give --pairs-format for its real layout", ErrValue)
		}
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
	return nil
}

func (t *table) parseParquet(data []byte) (err error) {
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fileError(t.file, "", fmt.Sprintf("not a readable Parquet file: %v", err), "", ErrFormat)
	}
	// Only top-level scalar columns are read; leaf index -> table column.
	leaf := map[int]int{}
	for i, path := range f.Schema().Columns() {
		if len(path) == 1 {
			leaf[i] = len(t.header)
			t.header = append(t.header, path[0])
		}
	}
	row := 0
	buf := make([]parquet.Row, 256)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			n, rerr := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				row++
				cells := make([]string, len(t.header))
				absent := map[int]bool{}
				for c := range t.header {
					absent[c] = true
				}
				for _, v := range r {
					c, ok := leaf[v.Column()]
					if !ok {
						continue
					}
					s, ok := valueText(v)
					cells[c] = s
					absent[c] = !ok
				}
				t.rows = append(t.rows, cells)
				t.absent = append(t.absent, absent)
				t.lines = append(t.lines, row)
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				rows.Close()
				return rowError(t.file, row, 0, "", fmt.Sprintf("reading Parquet rows: %v", rerr), "the file is corrupt or truncated", ErrValue)
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("%s: closing row group: %w", t.file, err)
		}
	}
	return nil
}

func valueText(v parquet.Value) (string, bool) {
	if v.IsNull() {
		return "", false
	}
	switch v.Kind() {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean()), true
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10), true
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10), true
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32), true
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64), true
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray()), true
	}
	return v.String(), true
}

// parseLabel reads a binary label: 1/0, true/false, pass/fail, yes/no.
func parseLabel(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "1.0", "true", "t", "pass", "yes", "y":
		return true, nil
	case "0", "0.0", "false", "f", "fail", "no", "n":
		return false, nil
	}
	return false, fmt.Errorf("label %q: use 1/0, true/false or pass/fail", s)
}

// parseScore reads a finite graded score.
func parseScore(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("score %q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("score %q is not a finite number", s)
	}
	return v, nil
}
