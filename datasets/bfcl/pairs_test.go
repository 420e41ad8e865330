package bfcl

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics/values"
)

// TestPairs derives value pairs from two questions that share a function:
// alternatives are positives, the other question's values and other enum
// members negatives; pairs the kind's comparator decides without the
// scorer (the dates, a wrong date or the same date written otherwise;
// Boston against San Francisco, different names; "San Francisco, CA"
// and "San Francisco, California", one place by its qualifier) are left
// out, since no threshold decides them.
func TestPairs(t *testing.T) {
	fn := `{"name": "find_hotel", "parameters": {"type": "dict", "properties": {` +
		`"city": {"type": "string"}, "date": {"type": "string"},` +
		`"tier": {"type": "string", "enum": ["budget", "luxury", "standard"]}}}}`
	q := func(id string) string {
		return `{"id": "` + id + `", "question": [[{"role": "user", "content": "?"}]], "function": [` + fn + `]}` + "\n"
	}
	entries, err := ReadQuestions("q.json", strings.NewReader(q("live_simple_1-1-0")+q("live_simple_2-2-0")))
	if err != nil {
		t.Fatal(err)
	}
	answers, err := ReadAnswers("a.json", strings.NewReader(
		`{"id": "live_simple_1-1-0", "ground_truth": [{"find_hotel": {"city": ["San Francisco, CA", "San Francisco, California", "SF"], "date": ["2024-05-20", "May 20, 2024"], "tier": ["budget"]}}]}`+"\n"+
			`{"id": "live_simple_2-2-0", "ground_truth": [{"find_hotel": {"city": ["Boston, MA"], "date": ["2024-06-01"], "tier": ["luxury"]}}]}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Attach(entries, answers, "q.json", "a.json"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range Pairs(entries) {
		got = append(got, strings.Join([]string{p.Group, p.Gold, p.Predicted, map[bool]string{true: "same", false: "other"}[p.Label], string(p.Kind), p.Source}, " | "))
	}
	want := []string{
		"find_hotel.city | San Francisco, CA | SF | same | name | alternatives",
		"find_hotel.tier | budget | luxury | other | category | other_question",
		"find_hotel.tier | budget | standard | other | category | enum",
		"find_hotel.tier | luxury | budget | other | category | other_question",
		"find_hotel.tier | luxury | standard | other | category | enum",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pairs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var buf bytes.Buffer
	if err := WritePairs(&buf, Pairs(entries)); err != nil {
		t.Fatal(err)
	}
	var row map[string]any
	if err := json.Unmarshal(bytes.SplitN(buf.Bytes(), []byte("\n"), 2)[0], &row); err != nil || row["text_a"] != "San Francisco, CA" || row["kind"] != "name" || row["label"] != true {
		t.Errorf("first row %v (%v)", row, err)
	}
}

// TestWritePairs writes the labelled pairs the shipped calibration is
// fitted on into $AEM_BFCL_PAIRS (scripts/calibrate drives it; skipped
// otherwise): BFCL's value pairs of its live categories (Pairs), then, when
// $AEM_STSB names the STS Benchmark's tab-separated file, its sentence
// pairs as free text (kind text, the human score 0-5 as score; the sweep
// binarizes it). It logs the counts by kind and label.
func TestWritePairs(t *testing.T) {
	out := os.Getenv("AEM_BFCL_PAIRS")
	if out == "" {
		t.Skip("set AEM_BFCL_PAIRS=FILE to write BFCL's value pairs (scripts/calibrate)")
	}
	pairs := Pairs(loadLive(t))
	var buf bytes.Buffer
	if err := WritePairs(&buf, pairs); err != nil {
		t.Fatal(err)
	}
	counts := map[values.Kind][2]int{}
	for _, p := range pairs {
		c := counts[p.Kind]
		if p.Label {
			c[0]++
		} else {
			c[1]++
		}
		counts[p.Kind] = c
	}
	for _, k := range values.EmbeddedKinds() {
		t.Logf("BFCL %-9s %4d same, %4d other", k, counts[k][0], counts[k][1])
	}
	if path := os.Getenv("AEM_STSB"); path != "" {
		n := writeSTSB(t, &buf, path)
		t.Logf("STS-B text: %d scored pairs", n)
	}
	if err := os.WriteFile(filepath.Clean(out), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeSTSB appends the STS Benchmark file's pairs (fields 4-6: score,
// sentence 1, sentence 2; no quoting) as free-text pairs, grouped by
// their source file (field 1) and year.
func writeSTSB(t *testing.T, w *bytes.Buffer, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	n := 0
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 7 {
			t.Fatalf("%s line %d: %d fields, want at least 7", path, i+1, len(f))
		}
		score, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			t.Fatalf("%s line %d: score %q: %v", path, i+1, f[4], err)
		}
		row := map[string]any{"text_a": f[5], "text_b": f[6], "score": score, "kind": string(values.Text),
			"group": "stsb " + f[1] + " " + f[2], "source": "stsb", "ref": "sts-dev line " + strconv.Itoa(i+1)}
		if err := enc.Encode(row); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}
