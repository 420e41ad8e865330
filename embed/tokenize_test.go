package embed

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFixtureTokenizers(t *testing.T) {
	cases := []struct {
		fixture string
		text    string
		max     int
		want    []int64
	}{
		{"unigram", "hello world", 8, []int64{2, 3}},
		{"unigram", "the cat sat", 8, []int64{4, 5, 6}},
		{"unigram", "", 8, []int64{}},
		{"unigram", "the cat sat on the mat the cat sat", 4, []int64{4, 5, 6, 7}},
		{"wordpiece", "hello world", 8, []int64{2, 4, 5, 3}},
		{"wordpiece", "Cats", 8, []int64{2, 7, 12, 3}},
		// Truncation keeps [SEP].
		{"wordpiece", "the cat sat on the mat the cat sat", 6, []int64{2, 6, 7, 8, 9, 3}},
	}
	for _, c := range cases {
		tk, _, err := loadTokenizer(filepath.Join("testdata", c.fixture, "tokenizer.json"))
		if err != nil {
			t.Fatal(err)
		}
		tt := newTextTokenizer(tk, c.max, true)
		got, err := tt.encode(sanitize(c.text, c.max))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.ids, c.want) || len(got.types) != len(got.ids) {
			t.Errorf("%s %q: ids %v types %v, want %v", c.fixture, c.text, got.ids, got.types, c.want)
		}
	}
}

// fuzzTokenizers are the fixtures plus the installed USE-lite tokenizer when present.
func fuzzTokenizers(f *testing.F) map[string]*textTokenizer {
	out := map[string]*textTokenizer{}
	for _, fx := range []string{"unigram", "wordpiece"} {
		tk, _, err := loadTokenizer(filepath.Join("testdata", fx, "tokenizer.json"))
		if err != nil {
			f.Fatal(err)
		}
		out[fx] = newTextTokenizer(tk, 16, true)
	}
	dir := filepath.Join("..", ".aem", "models", DefaultModelName)
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err == nil {
		u, err := newUSETokenizer(filepath.Join(dir, "tokenizer.json"), 128)
		if err != nil {
			f.Fatal(err)
		}
		out["use-lite"] = u
		// The generic loader must also read USE-lite's tokenizer.json.
		tk, _, err := loadTokenizer(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			f.Fatal(err)
		}
		out["use-lite/hf"] = newTextTokenizer(tk, 128, true)
	}
	return out
}

// FuzzTokenize: any string tokenizes without error or panic, within the cap
// and the vocabulary, and the same string always gives the same ids.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", " ", "hello world", "\xff\xfe", "\x00\t\n\r", "日本語のテキスト", "e\u0301cole",
		strings.Repeat("a", 5000), "👋🏽 שלום", "[CLS] [SEP] [PAD]", "▁▁▁", "\u2028\u200b\ufeff"} {
		f.Add(s)
	}
	toks := fuzzTokenizers(f)
	f.Fuzz(func(t *testing.T, s string) {
		for name, tt := range toks {
			in := sanitize(s, tt.maxTokens)
			if !utf8.ValidString(in) || len(in) > tt.maxTokens*bytesPerTokenCap {
				t.Fatalf("sanitize(%q) = %q", s, in)
			}
			a, err := tt.encode(in)
			if err != nil {
				t.Fatalf("%s: %q: %v", name, s, err)
			}
			if len(a.ids) > tt.maxTokens || len(a.types) != len(a.ids) {
				t.Fatalf("%s: %q: %d ids, %d types (cap %d)", name, s, len(a.ids), len(a.types), tt.maxTokens)
			}
			vocab := 0
			if tt.use != nil {
				vocab = tt.use.VocabSize()
			} else {
				vocab = tt.tk.GetVocabSize(true)
			}
			for _, id := range a.ids {
				if id < 0 || int(id) >= vocab {
					t.Fatalf("%s: %q: id %d outside the vocabulary (%d)", name, s, id, vocab)
				}
			}
			b, _ := tt.encode(in)
			if !slices.Equal(a.ids, b.ids) {
				t.Fatalf("%s: %q: ids changed between calls", name, s)
			}
		}
	})
}

// FuzzEmbed: any string embeds through the whole path (sanitize, tokenize,
// pad, model, pool) to a finite unit or zero vector.
func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"", "hello", "\xff", strings.Repeat("the cat ", 300), "\x00"} {
		f.Add(s, "the cat")
	}
	e, err := Open(context.Background(), Options{ModelDir: writeModelDir(f, gatherModel(false), "unigram", nil), Backend: BackendGo, MaxTokens: 32})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	s := NewScorer(e)
	f.Fuzz(func(t *testing.T, a, b string) {
		got, err := s.Score(context.Background(), []string{a, a}, []string{b, a})
		if err != nil {
			t.Fatalf("%q vs %q: %v", a, b, err)
		}
		if got[1] != 1 || got[0] < -1 || got[0] > 1 || got[0] != got[0] {
			t.Fatalf("%q vs %q: %v", a, b, got)
		}
	})
}
