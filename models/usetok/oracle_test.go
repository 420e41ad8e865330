package usetok

import (
	"unicode/utf16"
)

// oracle is a literal, unoptimised port of the reference JS tokenizer
// (lib/tokenizer.ts of @energetic-ai/embeddings 0.2.0: Trie with object children,
// per-end lattice, backward Viterbi loop). Tokenizer.Encode must agree with it.
type oracle struct {
	vocab []Piece
	root  *oracleNode
}

type oracleNode struct {
	children map[rune]*oracleNode
	end      bool
	word     []rune
	score    float64
	index    int
}

func newOracle(vocab []Piece) *oracle {
	o := &oracle{vocab: vocab, root: &oracleNode{children: map[rune]*oracleNode{}}}
	for i := reserved; i < len(vocab); i++ {
		node := o.root
		symbols := []rune(vocab[i].Text)
		for k, r := range symbols {
			if node.children[r] == nil {
				node.children[r] = &oracleNode{children: map[rune]*oracleNode{}, word: append(append([]rune{}, node.word...), r)}
			}
			node = node.children[r]
			if k == len(symbols)-1 {
				node.end, node.score, node.index = true, vocab[i].Score, i
			}
		}
	}
	return o
}

type oracleMatch struct {
	key   []rune
	score float64
	index int
}

func (o *oracle) commonPrefixSearch(ss []rune) []oracleMatch {
	var out []oracleMatch
	node := o.root.children[ss[0]]
	for i := 0; i < len(ss) && node != nil; i++ {
		if node.end {
			out = append(out, oracleMatch{node.word, node.score, node.index})
		}
		if i+1 < len(ss) {
			node = node.children[ss[i+1]]
		} else {
			node = nil
		}
	}
	if len(out) == 0 {
		out = append(out, oracleMatch{[]rune{ss[0]}, 0, 0})
	}
	return out
}

func (o *oracle) encode(input string) []int64 {
	symbols := []rune(Normalize(input))
	nodes := make([]map[int][]oracleMatch, len(symbols)+1)
	words := make([]int, len(symbols)+1)
	best := make([]float64, len(symbols)+1)
	for i := range nodes {
		nodes[i] = map[int][]oracleMatch{}
	}
	for i := range symbols {
		for _, piece := range o.commonPrefixSearch(symbols[i:]) {
			end := i + len(piece.key)
			nodes[end][i] = append(nodes[end][i], piece)
		}
	}
	for endPos := 0; endPos <= len(symbols); endPos++ {
		for startPos := 0; startPos < endPos; startPos++ { // JS object keys: ascending integers
			for _, word := range nodes[endPos][startPos] {
				score := word.score + best[endPos-len(word.key)]
				if best[endPos] == 0 || score >= best[endPos] {
					best[endPos] = score
					words[endPos] = word.index
				}
			}
		}
	}
	var results []int64
	for iter := len(words) - 1; iter > 0; {
		results = append(results, int64(words[iter]))
		iter -= len(utf16.Encode([]rune(o.vocab[words[iter]].Text)))
	}
	merged := []int64{}
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
