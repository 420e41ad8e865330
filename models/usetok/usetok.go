package usetok

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// MaxTokens is the number of tokens the USE-lite model reads; later ones are dropped.
const MaxTokens = 128

// reserved is the number of leading vocabulary entries the reference never matches.
const reserved = 6

// separator replaces spaces and starts every non-empty text.
const separator = "\u2581"

// Piece is one vocabulary entry.
type Piece struct {
	Text  string
	Score float64
}

// Tokenizer segments text into USE-lite token ids.
type Tokenizer struct {
	pieces []Piece
	utf16  []int // UTF-16 length of each piece (the reference's String.length)
	// The trie of matchable pieces: nodes[0] is the root, whose children are in
	// rootKids; every other node keeps its children as sorted parallel slices.
	nodes    []trieNode
	rootKids map[rune]int32
}

type trieNode struct {
	keys   []rune  // sorted
	kids   []int32 // node index of the child for keys[i]
	end    bool
	score  float64
	index  int32
	length int32 // code points from the root
}

// child returns the child of node n for r, or -1.
func (t *Tokenizer) child(n int32, r rune) int32 {
	if n == 0 {
		if c, ok := t.rootKids[r]; ok {
			return c
		}
		return -1
	}
	keys := t.nodes[n].keys
	lo, hi := 0, len(keys)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keys[m] < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(keys) && keys[lo] == r {
		return t.nodes[n].kids[lo]
	}
	return -1
}

// New builds a tokenizer from the vocabulary, in id order.
func New(vocab []Piece) (*Tokenizer, error) {
	if len(vocab) <= reserved {
		return nil, fmt.Errorf("vocabulary has %d pieces, want more than %d", len(vocab), reserved)
	}
	t := &Tokenizer{pieces: append([]Piece(nil), vocab...), utf16: make([]int, len(vocab)), nodes: []trieNode{{}}}
	// Build with maps, then freeze the child maps into sorted slices.
	kids := []map[rune]int32{{}}
	for i, p := range vocab {
		t.utf16[i] = len(utf16.Encode([]rune(p.Text)))
		if i < reserved {
			continue
		}
		if p.Text == "" {
			return nil, fmt.Errorf("vocabulary piece %d is empty", i)
		}
		n := int32(0)
		depth := int32(0)
		for _, r := range p.Text {
			depth++
			c, ok := kids[n][r]
			if !ok {
				c = int32(len(t.nodes))
				t.nodes = append(t.nodes, trieNode{length: depth})
				kids = append(kids, map[rune]int32{})
				kids[n][r] = c
			}
			n = c
		}
		// Later duplicates win, as in the reference.
		t.nodes[n].end, t.nodes[n].score, t.nodes[n].index = true, p.Score, int32(i)
	}
	t.rootKids = kids[0]
	for n := 1; n < len(t.nodes); n++ {
		keys := make([]rune, 0, len(kids[n]))
		for r := range kids[n] {
			keys = append(keys, r)
		}
		slices.Sort(keys)
		t.nodes[n].keys = keys
		t.nodes[n].kids = make([]int32, len(keys))
		for j, r := range keys {
			t.nodes[n].kids[j] = kids[n][r]
		}
	}
	return t, nil
}

// Load reads the vocabulary from the Unigram model of a tokenizer.json.
func Load(path string) (*Tokenizer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading tokenizer %s: %w (run scripts/setup)", path, err)
	}
	var f struct {
		Model struct {
			Type  string               `json:"type"`
			Vocab [][2]json.RawMessage `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("parsing tokenizer %s: %w (the file is corrupt; run scripts/setup)", path, err)
	}
	if f.Model.Type != "Unigram" {
		return nil, fmt.Errorf("tokenizer %s: model type %q, want Unigram (not a USE-lite tokenizer)", path, f.Model.Type)
	}
	vocab := make([]Piece, len(f.Model.Vocab))
	for i, e := range f.Model.Vocab {
		if err := json.Unmarshal(e[0], &vocab[i].Text); err != nil {
			return nil, fmt.Errorf("tokenizer %s: vocab entry %d: %w", path, i, err)
		}
		if err := json.Unmarshal(e[1], &vocab[i].Score); err != nil {
			return nil, fmt.Errorf("tokenizer %s: vocab entry %d score: %w", path, i, err)
		}
	}
	t, err := New(vocab)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

// VocabSize is the number of pieces (ids run from 0 to VocabSize-1).
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// Piece returns the text of token id.
func (t *Tokenizer) Piece(id int) string { return t.pieces[id].Text }

// Normalize returns the text the segmentation runs on: NFKC, then "▁" prepended
// and every space replaced by "▁" (the empty string stays empty).
func Normalize(text string) string {
	n := norm.NFKC.String(text)
	if n == "" {
		return ""
	}
	return separator + strings.ReplaceAll(n, " ", separator)
}

// Encode returns all token ids of text, with no cap (see MaxTokens). Invalid
// UTF-8 bytes read as U+FFFD, which becomes the unknown id 0.
func (t *Tokenizer) Encode(text string) []int64 {
	symbols := []rune(Normalize(text))
	n := len(symbols)
	if n == 0 {
		return []int64{}
	}
	// Viterbi as the reference computes it. The reference visits, for each end
	// position, the arcs ending there by increasing start; relaxing arcs forward
	// from each start in increasing order visits every end's arcs in that same
	// order, and best[start] is final by then, so the result is identical.
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	relax := func(end int, score float64, index int32) {
		if best[end] == 0 || score >= best[end] {
			best[end] = score
			words[end] = index
		}
	}
	for i := 0; i < n; i++ {
		found := false
		for node := t.child(0, symbols[i]); node >= 0; {
			nd := &t.nodes[node]
			if nd.end {
				relax(i+int(nd.length), nd.score+best[i], nd.index)
				found = true
			}
			j := i + int(nd.length)
			if j >= n {
				break
			}
			node = t.child(node, symbols[j])
		}
		if !found {
			relax(i+1, 0+best[i], 0) // unknown character: score 0, id 0
		}
	}
	results := make([]int64, 0, n/2+1)
	for iter := n; iter > 0; {
		id := words[iter]
		results = append(results, int64(id))
		iter -= t.utf16[id]
	}
	merged := results[:0]
	prevUnk := false
	for _, id := range results {
		if !(prevUnk && id == 0) {
			merged = append(merged, id)
		}
		prevUnk = id == 0
	}
	slices.Reverse(merged)
	return merged
}
