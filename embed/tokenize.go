package embed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aem-dev/aem/models/usetok"
	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// bytesPerTokenCap bounds the text handed to the tokenizer: a string is cut
// (at a rune boundary) to MaxTokens*bytesPerTokenCap bytes before
// tokenization. No vocabulary piece is that long, so the first MaxTokens
// tokens are unchanged while a megabyte reply costs no more than a short one.
const bytesPerTokenCap = 64

// textTokenizer turns strings into token ids for the model. It is safe for
// concurrent use: sugarme's Tokenizer keeps no per-call state apart from the
// Unigram model's word cache, which is itself locked.
type textTokenizer struct {
	tk         *tokenizer.Tokenizer // generic tokenizer.json (sugarme)
	use        *usetok.Tokenizer    // USE-lite's exact reference tokenizer, when the manifest asks for it
	maxTokens  int
	addSpecial bool
}

// Tokenizer kinds a manifest may name ("tokenizer": {"kind": ...}).
const (
	tokenizerHF  = ""         // tokenizer.json through github.com/sugarme/tokenizer
	tokenizerUSE = "use-lite" // models/usetok: the USE-lite reference tokenizer's exact ids
)

// newUSETokenizer loads the USE-lite vocabulary from tokenizer.json for models/usetok.
func newUSETokenizer(path string, maxTokens int) (*textTokenizer, error) {
	u, err := usetok.Load(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenizer, err)
	}
	return &textTokenizer{use: u, maxTokens: maxTokens}, nil
}

// tokenized is one string's tokens.
type tokenized struct {
	ids   []int64
	types []int64
}

// loadTokenizer reads tokenizer.json. It returns the tokenizer's own
// truncation cap (0 when it has none) so the caller can pick MaxTokens.
// Padding and truncation settings in the file are dropped: the embedder pads
// batches itself (with attention mask 0) and truncates to MaxTokens.
func loadTokenizer(path string) (tk *tokenizer.Tokenizer, ownCap int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: reading %s: %w", ErrTokenizer, path, err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, 0, fmt.Errorf("%w: parsing %s: %w (a truncated download? re-run scripts/setup)", ErrTokenizer, path, err)
	}
	if tr, ok := cfg["truncation"].(map[string]any); ok {
		if n, ok := tr["max_length"].(float64); ok && n > 0 {
			ownCap = int(n)
		}
	}
	cfg["truncation"] = nil
	cfg["padding"] = nil
	clean, err := json.Marshal(cfg)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: re-encoding %s: %w", ErrTokenizer, path, err)
	}
	// sugarme/tokenizer panics (type assertions) on some unexpected configs;
	// turn that into an error naming the file.
	defer func() {
		if r := recover(); r != nil {
			tk, err = nil, fmt.Errorf("%w: loading %s: unsupported tokenizer configuration (%v)", ErrTokenizer, path, r)
		}
	}()
	tk, err = pretrained.FromReader(bytes.NewReader(clean))
	if err != nil {
		return nil, 0, fmt.Errorf("%w: loading %s: %w", ErrTokenizer, path, err)
	}
	return tk, ownCap, nil
}

func newTextTokenizer(tk *tokenizer.Tokenizer, maxTokens int, addSpecial bool) *textTokenizer {
	tk.WithTruncation(&tokenizer.TruncationParams{MaxLength: maxTokens, Strategy: tokenizer.LongestFirst})
	tk.WithPadding(nil)
	return &textTokenizer{tk: tk, maxTokens: maxTokens, addSpecial: addSpecial}
}

// sanitize makes s safe to tokenize: invalid UTF-8 bytes become U+FFFD and
// the string is cut, at a rune boundary, to maxTokens*bytesPerTokenCap bytes.
// NUL and other control characters are passed to the tokenizer as they are
// (its normaliser decides; for USE-lite they are unknown pieces).
func sanitize(s string, maxTokens int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if limit := maxTokens * bytesPerTokenCap; len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// encode tokenizes one sanitized string, truncated to maxTokens.
//
// sugarme/tokenizer fails (panics, recovered here) on some strings with
// control characters under some normalisers; such a string is tokenized again
// with its control characters replaced by spaces, which is what BERT-style
// normalisers do anyway.
func (t *textTokenizer) encode(s string) (tokenized, error) {
	if t.use != nil {
		ids := t.use.Encode(s)
		ids = ids[:min(len(ids), t.maxTokens):min(len(ids), t.maxTokens)]
		return tokenized{ids: ids, types: make([]int64, len(ids))}, nil
	}
	out, err := t.encodeHF(s)
	if err == nil {
		return out, nil
	}
	clean := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if clean == s {
		return out, err
	}
	return t.encodeHF(clean)
}

func (t *textTokenizer) encodeHF(s string) (out tokenized, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: tokenizing a %d-byte string: %v", ErrTokenizer, len(s), r)
		}
	}()
	enc, err := t.tk.EncodeSingle(s, t.addSpecial)
	if err != nil {
		return tokenized{}, fmt.Errorf("%w: tokenizing a %d-byte string: %w", ErrTokenizer, len(s), err)
	}
	n := min(len(enc.Ids), t.maxTokens)
	out.ids = make([]int64, n)
	out.types = make([]int64, n)
	for i := 0; i < n; i++ {
		out.ids[i] = int64(enc.Ids[i])
		if i < len(enc.TypeIds) {
			out.types[i] = int64(enc.TypeIds[i])
		}
	}
	return out, nil
}
