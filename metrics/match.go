package metrics

import (
	"math"
	"strings"
)

// OrderInvariantPrefix starts a tag that puts a turn in an order-invariant
// block: turns tagged OrderInvariant_<group> with the same group may match
// gold to predicted in any order.
const OrderInvariantPrefix = "OrderInvariant_"

// blockGroup returns the turn's order-invariant group, "" when none, and
// an error when the turn names two different groups.
func blockGroup(d Dialog, t *Turn) (string, error) {
	group := ""
	for _, tag := range t.Tags {
		g, ok := strings.CutPrefix(tag, OrderInvariantPrefix)
		if !ok || g == group {
			continue
		}
		if group != "" {
			return "", badDialog(d, "turn %d has tags for two order-invariant blocks (%s%s, %s%s): keep one",
				t.TurnNo, OrderInvariantPrefix, group, OrderInvariantPrefix, g)
		}
		group = g
	}
	return group, nil
}

// matchBlock decides an order-invariant block. It builds the verdict of
// every compatible (gold, predicted) pairing, then picks the assignment that
// maximises, in order: passing turns, total match quality, matched pairs,
// then pairs kept in identity order. Unassigned gold turns are
// missing_turn; unassigned predictions are unexpected_turn.
func (j *decider) matchBlock(rows []*Turn) ([]decided, error) {
	var gold, pred []*Turn
	for _, r := range rows {
		if r.HasGold {
			gold = append(gold, r)
		}
		if r.HasPredict {
			pred = append(pred, r)
		}
	}
	n := max(len(gold), len(pred))
	cand := make([][]*decided, n)
	for a := range n {
		cand[a] = make([]*decided, n)
		for b := 0; a < len(gold) && b < len(pred); b++ {
			if gold[a].Role != pred[b].Role {
				continue
			}
			c, err := j.pair(gold[a], pred[b])
			if err != nil {
				return nil, err
			}
			cand[a][b] = &c
		}
	}
	asg := maxWeightAssignment(blockWeights(cand, gold, pred))
	var out []decided
	for a, b := range asg {
		switch {
		case cand[a][b] != nil:
			out = append(out, *cand[a][b])
		default:
			if a < len(gold) {
				out = append(out, j.missing(gold[a]))
			}
			if b < len(pred) {
				out = append(out, j.unexpected(pred[b]))
			}
		}
	}
	return out, nil
}

// blockWeights encodes the lexicographic objective as integers so the
// tiers can never trade off: one more passing turn outweighs any quality
// sum, one quality unit outweighs any number of identity bonuses.
func blockWeights(cand [][]*decided, gold, pred []*Turn) [][]int64 {
	n := int64(len(cand))
	q := qualityScale(n)
	qualityUnit := n + 1
	passUnit := n*(q+1)*qualityUnit + qualityUnit
	w := make([][]int64, n)
	for a := range cand {
		w[a] = make([]int64, n)
		for b, c := range cand[a] {
			if c == nil {
				continue
			}
			qi := int64(math.Round(clamp01(c.quality) * float64(q)))
			w[a][b] = (qi + 1) * qualityUnit // +1: a real pair beats leaving both unmatched
			if c.v.Pass {
				w[a][b] += passUnit
			}
			if gold[a].TurnNo == pred[b].TurnNo {
				w[a][b]++
			}
		}
	}
	return w
}

// qualityScale is the integer resolution of match quality, reduced for huge
// blocks so that the weights stay far from overflow.
func qualityScale(n int64) int64 {
	const limit = 1e17
	q := int64(1_000_000)
	for q > 1 && float64(n)*float64(n+1)*float64(n+1)*float64(q+1) > limit {
		q /= 10
	}
	return q
}
