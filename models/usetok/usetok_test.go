package usetok

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// vocab is a small vocabulary exercising the reference tokenizer's rules; ids are
// indices. The first six entries are reserved and never matched.
var vocab = []Piece{
	{"\ufffd", 0}, {"<s>", 0}, {"</s>", 0}, {"x1", 0}, {"x2", 0}, {"x3", 0},
	{"\u2581", -5},     // 6
	{"\u2581new", -3},  // 7
	{"\u2581york", -4}, // 8
	{"\u2581ne", -6},   // 9
	{"w", -4},          // 10
	{"\u2581a", -2},    // 11
	{"b", -3},          // 12
	{"ab", -100},       // 13: never chosen over a+b
	{":", 0},           // 14: a null score in vocab.json reads as 0
	{"c", -1},          // 15
	{"c", -2},          // 16: duplicate piece: the later id wins
	{"<s>", -1},        // 17: matchable copy of a reserved piece
	{"é", -1},          // 18 (NFC form)
}

func TestEncode(t *testing.T) {
	tok, err := New(vocab)
	if err != nil {
		t.Fatal(err)
	}
	// Every want below is what the reference JS tokenizer returns for this
	// vocabulary (checked with @energetic-ai/embeddings 0.2.0 under Node.js).
	cases := []struct {
		text string
		want []int64
	}{
		{"", []int64{}},
		{"new york", []int64{7, 8}},
		{"new", []int64{7}},
		{"a b", []int64{11, 6, 12}},
		{"  a", []int64{6, 6, 11}},     // leading spaces kept, one "▁" each, plus the prepended one
		{"a  ", []int64{11, 6, 6}},     // trailing spaces kept
		{"a\tb", []int64{11, 0, 12}},   // tab is not a space: unknown
		{"a\n\nb", []int64{11, 0, 12}}, // consecutive unknowns merge
		{"a日本b", []int64{11, 0, 12}},   // unknown characters: one id 0 per run
		{"c", []int64{6, 16}},          // duplicate piece: later id
		{"<s>", []int64{6, 0}},         // unknown "s", ">" (score 0) beat the piece "<s>"; reserved ids never appear
		{"e\u0301", []int64{6, 18}},    // NFKC composes e + combining acute
		{"\ufb01", []int64{6, 0}},      // NFKC: "ﬁ" -> "fi", both unknown, merged
		{"\u00a0a", []int64{6, 11}},    // NFKC maps NBSP to a space, which becomes "▁"
		{":", []int64{6, 14}},          // score-0 path: the reference's best==0 sentinel
		{" ", []int64{6, 6}},
		{"\xff", []int64{6, 0}}, // invalid UTF-8 reads as U+FFFD: unknown
		{"ab", []int64{11, 12}}, // "▁a"+"b" (-5) beats "▁"+"ab" (-105)
	}
	orc := newOracle(vocab)
	for _, c := range cases {
		if o := orc.encode(c.text); fmt.Sprint(o) != fmt.Sprint(c.want) {
			t.Errorf("oracle(%q) = %v, want %v", c.text, o, c.want)
		}
		got := tok.Encode(c.text)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Encode(%q) (-want +got):\n%s", c.text, diff)
		}
	}
}

func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"":            "",
		"a b":         "\u2581a\u2581b",
		" a":          "\u2581\u2581a",
		"a\tb\n":      "\u2581a\tb\n",
		"ＡＢＣ　１":       "\u2581ABC\u25811",
		"e\u0301cole": "\u2581école",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(vocab[:6]); err == nil {
		t.Error("reserved-only vocabulary: no error")
	}
	bad := append(append([]Piece{}, vocab...), Piece{"", -1})
	if _, err := New(bad); err == nil {
		t.Error("empty piece: no error")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "absent.json")); err == nil || !strings.Contains(err.Error(), "scripts/setup") {
		t.Errorf("missing file: err = %v", err)
	}
}

// FuzzEncode checks invariants of any segmentation: ids are in range, none is
// reserved (1..5), no two unknowns are adjacent, and without unknowns the pieces
// spell the normalised text.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "new york", "a\tb", "日本", ":", "\xff\xfe", "  a  b  ", "é\u0301"} {
		f.Add(s)
	}
	tok, err := New(vocab)
	if err != nil {
		f.Fatal(err)
	}
	orc := newOracle(vocab)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if want := orc.encode(s); fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Fatalf("Encode(%q) = %v, literal port of the reference gives %v", s, ids, want)
		}
		var b strings.Builder
		unknown := false
		for i, id := range ids {
			if id < 0 || int(id) >= tok.VocabSize() || (id >= 1 && id <= 5) {
				t.Fatalf("Encode(%q) = %v: id %d out of range or reserved", s, ids, id)
			}
			if id == 0 {
				unknown = true
				if i > 0 && ids[i-1] == 0 {
					t.Fatalf("Encode(%q) = %v: adjacent unknowns", s, ids)
				}
			}
			b.WriteString(tok.Piece(int(id)))
		}
		if n := Normalize(s); !unknown && b.String() != n {
			t.Fatalf("Encode(%q) = %v spells %q, want %q", s, ids, b.String(), n)
		}
		if Normalize(s) == "" && len(ids) != 0 {
			t.Fatalf("Encode(%q) = %v, want no tokens", s, ids)
		}
		_ = utf8.ValidString(s)
	})
}

func ExampleTokenizer_Encode() {
	tok, err := New(vocab)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tok.Encode("new york"), tok.Encode(""), tok.Encode("a\tb"))
	// Output: [7 8] [] [11 0 12]
}
