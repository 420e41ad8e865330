package values

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// pairCase is one line of testdata/pairs.tsv.
type pairCase struct {
	line             int
	kind             Kind
	gold, pred, want string
	rule             Rule
}

func readPairs(t testing.TB) []pairCase {
	t.Helper()
	var out []pairCase
	readTable(t, "pairs.tsv", 5, func(n int, cols []string) {
		c := pairCase{line: n, gold: cols[1], pred: cols[2], want: cols[3], rule: Rule(cols[4])}
		if cols[0] == "-" {
			c.kind = Classify(c.gold, Hints{})
		} else if k, ok := ParseKind(cols[0]); ok {
			c.kind = k
		} else {
			t.Fatalf("pairs.tsv:%d: unknown kind %q", n, cols[0])
		}
		out = append(out, c)
	})
	return out
}

// readTable calls row for every line of testdata/name that is neither
// empty nor a comment, with its tab-separated columns (cols of them).
func readTable(t testing.TB, name string, cols int, row func(line int, c []string)) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != cols {
			t.Fatalf("%s:%d: %d columns, want %d", name, n, len(c), cols)
		}
		row(n, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func outcome(v Ruling) string {
	switch {
	case !v.Decided():
		return "embed"
	case v.Pass:
		return "pass"
	}
	return "fail"
}

// TestComparePairs runs the table of testdata/pairs.tsv: every wrong
// value of the issue fails by its kind's rule, every rewording passes,
// and what no rule can decide is left to the embedding.
func TestComparePairs(t *testing.T) {
	c := Comparer{Tolerance: 1e-9}
	for _, p := range readPairs(t) {
		v := c.Compare(p.kind, p.gold, p.pred)
		if got := outcome(v); got != p.want || v.Rule != p.rule {
			t.Errorf("pairs.tsv:%d: %s %q vs %q: got %s by %s (%s), want %s by %s", p.line, p.kind, p.gold, p.pred, got, v.Rule, v.Detail, p.want, p.rule)
		}
		if v.Kind != p.kind {
			t.Errorf("pairs.tsv:%d: verdict kind %q, want %q", p.line, v.Kind, p.kind)
		}
	}
}

// TestCompareSymmetric swaps gold and prediction (keeping gold's kind):
// the outcome is the same, but where only one side parses.
func TestCompareSymmetric(t *testing.T) {
	c := Comparer{Tolerance: 1e-9}
	for _, p := range readPairs(t) {
		a, b := c.Compare(p.kind, p.gold, p.pred), c.Compare(p.kind, p.pred, p.gold)
		if a.Rule == RuleUnparsed || b.Rule == RuleUnparsed {
			continue // gold's kind decides what the prediction must state
		}
		if outcome(a) != outcome(b) {
			t.Errorf("pairs.tsv:%d: %s %q vs %q is %s (%s) one way, %s (%s) the other", p.line, p.kind, p.gold, p.pred, outcome(a), a.Rule, outcome(b), b.Rule)
		}
	}
}

// TestClassify runs testdata/classify.tsv: a value, its key and what its
// schema says, and the kind Classify must give.
func TestClassify(t *testing.T) {
	readTable(t, "classify.tsv", 4, func(n int, cols []string) {
		var h Hints
		if cols[1] != "-" {
			h.Key = cols[1]
		}
		switch s := cols[2]; {
		case s == "enum":
			h.Enum = true
		case s == "pattern":
			h.Pattern = ".*"
		case strings.HasPrefix(s, "format="):
			h.Format = strings.TrimPrefix(s, "format=")
		}
		if got := Classify(cols[0], h); got != Kind(cols[3]) {
			t.Errorf("classify.tsv:%d: Classify(%q, %+v) = %q, want %q", n, cols[0], h, got, cols[3])
		}
	})
}

func TestClassifyJSON(t *testing.T) {
	for _, c := range []struct {
		v    any
		want Kind
	}{
		{json.Number("12"), Integer}, {json.Number("1.5"), Decimal}, {json.Number("1e3"), Decimal},
		{true, Boolean}, {nil, ""}, {map[string]any{}, ""}, {[]any{}, ""},
	} {
		if got := Classify(c.v, Hints{}); got != c.want {
			t.Errorf("Classify(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestContradictions runs testdata/replies.tsv: a gold reply, a predicted
// one, and the kind of fact that contradicts ("none" for a rewording).
// Each side is split into clauses at sentence ends, as metrics does.
func TestContradictions(t *testing.T) {
	readTable(t, "replies.tsv", 3, func(n int, cols []string) {
		cs := Contradictions(sentences(cols[0]), sentences(cols[1]))
		got := "none"
		if len(cs) > 0 {
			got = string(cs[0].Kind)
		}
		if got != cols[2] {
			t.Errorf("replies.tsv:%d: %q vs %q: got %s %v, want %s", n, cols[0], cols[1], got, cs, cols[2])
		}
		if len(cs) > 0 && (cs[0].Gold == "" || cs[0].Pred == "") {
			t.Errorf("replies.tsv:%d: contradiction %v does not name both facts", n, cs[0])
		}
		// Swapped, the same kind of fact contradicts.
		back := Contradictions(sentences(cols[1]), sentences(cols[0]))
		if (len(back) > 0) != (len(cs) > 0) {
			t.Errorf("replies.tsv:%d: swapped, got %v, want as %v", n, back, cs)
		}
	})
}

// sentences splits a reply at ". ", "! ", "? " and "; " (metrics splits
// with SplitClauses; this is enough for the table).
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if strings.ContainsRune(".!?;", rune(s[i])) && (i+1 == len(s) || s[i+1] == ' ') {
			out = append(out, strings.TrimSpace(s[start:i+1]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// TestCompareAt holds CompareAt's key rule: a categorical token that
// repeats its key's words is the token, names keep their words, and a
// different token stays different.
func TestCompareAt(t *testing.T) {
	cases := []struct {
		key        string
		kind       Kind
		gold, pred string
		want       Rule
		pass       bool
	}{
		{"plan", Category, "premium", "Premium plan", RuleEquivalence, true},
		{"plan", Category, "premium plan", "premium", RuleEquivalence, true},
		{"payment_method", Category, "credit card", "credit card payment", RuleEquivalence, true},
		{"plan", Category, "premium", "basic plan", RuleNeedsEmbedding, false},
		{"plan", Category, "plan", "premium plan", RuleNeedsEmbedding, false}, // nothing left of gold
		{"city", Name, "Mexico City", "Mexico", RuleNeedsEmbedding, false},
		{"", Category, "premium", "premium plan", RuleNeedsEmbedding, false},
		{"plan", Category, "premium", "premium", RuleExact, true},
		{"gate", Identifier, "B12", "Gate B12", RuleNormalized, true},
		{"order_id", Identifier, "10293", "Order #10293", RuleNormalized, true},
		{"gate", Identifier, "B12", "Gate B21", RuleDiffers, false},
		{"terminal", Identifier, "B12", "Gate B12", RuleDiffers, false},
	}
	for _, c := range cases {
		v := Comparer{}.CompareAt(c.key, c.kind, c.gold, c.pred)
		if v.Rule != c.want || v.Rule != RuleNeedsEmbedding && v.Pass != c.pass {
			t.Errorf("CompareAt(%q, %s, %q, %q) = %s pass %v, want %s pass %v", c.key, c.kind, c.gold, c.pred, v.Rule, v.Pass, c.want, c.pass)
		}
	}
}
