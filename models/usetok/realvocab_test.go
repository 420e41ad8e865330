package usetok

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/home/hometest"
)

// realTokenizer loads the installed USE-lite vocabulary ($AEM_HOME or the
// repository's .aem), or skips.
func realTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	home := os.Getenv("AEM_HOME")
	if home == "" {
		home = filepath.Join("..", "..", ".aem")
	}
	path := filepath.Join(home, "models", "use-lite", "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		hometest.Missing(t, "USE-lite tokenizer not installed at %s (run scripts/setup): %v", path, err)
	}
	tok, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestMatchesOracleOnRealVocab compares Encode with the literal port of the
// reference on random texts built from words, punctuation, whitespace and
// characters outside the vocabulary.
func TestMatchesOracleOnRealVocab(t *testing.T) {
	tok := realTokenizer(t)
	orc := newOracle(tok.pieces)
	parts := []string{"the", "New", "York", "revenue", "profit", "café", "é", "e\u0301", "日本", "🎉", " ", "  ", "\t", "\n", ":", ":)", ":30",
		"<s>", "</s>", "extra_token_id_1", "\ufffd", "\x00", "\xff", "12.5%", "$4", "don't", "ﬁ", "Ｂ", "\u00a0", "—", "http://x.io/a?b=c", "'", "\""}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for k := r.IntN(12); k >= 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		if got, want := tok.Encode(s), orc.encode(s); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Encode(%q) = %v, literal port gives %v", s, got, want)
		}
	}
}
