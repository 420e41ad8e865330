package usetok

import (
	"encoding/json"
	"fmt"
	"os"
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
	pieces  []Piece
	utf16   []int // UTF-16 length of each piece (the reference's String.length)
	root    *trieNode
	maxRune int // longest piece in code points
}

type trieNode struct {
	children map[rune]*trieNode
	end      bool
	score    float64
	index    int
	length   int // code points from the root
}

// New builds a tokenizer from the vocabulary, in id order.
func New(vocab []Piece) (*Tokenizer, error) {
	if len(vocab) <= reserved {
		return nil, fmt.Errorf("vocabulary has %d pieces, want more than %d", len(vocab), reserved)
	}
	t := &Tokenizer{pieces: append([]Piece(nil), vocab...), utf16: make([]int, len(vocab)), root: &trieNode{}}
	for i, p := range vocab {
		t.utf16[i] = len(utf16.Encode([]rune(p.Text)))
		if i < reserved {
			continue
		}
		if p.Text == "" {
			return nil, fmt.Errorf("vocabulary piece %d is empty", i)
		}
		node := t.root
		n := 0
		for _, r := range p.Text {
			n++
			next := node.children[r]
			if next == nil {
				if node.children == nil {
					node.children = map[rune]*trieNode{}
				}
				next = &trieNode{length: n}
				node.children[r] = next
			}
			node = next
		}
		node.end, node.score, node.index = true, p.Score, i // later duplicates win, as in the reference
		if n > t.maxRune {
			t.maxRune = n
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
	best := make([]float64, n+1)
	words := make([]int, n+1)
	// edge is one lattice arc ending at some position.
	type edge struct {
		start, length int
		score         float64
		index         int
	}
	// ends[e] lists arcs ending at e in order of increasing start (the reference
	// iterates its per-end object by ascending integer key).
	ends := make([][]edge, n+1)
	for i := 0; i < n; i++ {
		node := t.root.children[symbols[i]]
		found := false
		for j := i; j < n && node != nil; j++ {
			if node.end {
				ends[i+node.length] = append(ends[i+node.length], edge{i, node.length, node.score, node.index})
				found = true
			}
			if j+1 < n {
				node = node.children[symbols[j+1]]
			} else {
				node = nil
			}
		}
		if !found {
			ends[i+1] = append(ends[i+1], edge{i, 1, 0, 0})
		}
	}
	// Arcs were appended by increasing start already, since i runs upwards.
	for end := 0; end <= n; end++ {
		for _, e := range ends[end] {
			score := e.score + best[end-e.length]
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = e.index
			}
		}
	}
	var results []int64
	for iter := n; iter > 0; {
		id := words[iter]
		results = append(results, int64(id))
		iter -= t.utf16[id]
	}
	merged := make([]int64, 0, len(results))
	prevUnk := false
	for _, id := range results {
		if !(prevUnk && id == 0) {
			merged = append(merged, id)
		}
		prevUnk = id == 0
	}
	for i, j := 0, len(merged)-1; i < j; i, j = i+1, j-1 {
		merged[i], merged[j] = merged[j], merged[i]
	}
	return merged
}
