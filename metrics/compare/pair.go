package compare

import (
	"cmp"
	"slices"
)

// Key identifies a turn across runs.
type Key struct {
	DialogID string `json:"dialog_id"`
	TurnNo   int    `json:"turn_no"`
}

func compareKeys(a, b Key) int {
	if c := cmp.Compare(a.DialogID, b.DialogID); c != 0 {
		return c
	}
	return cmp.Compare(a.TurnNo, b.TurnNo)
}

// PairedTurn is one turn present in both runs.
type PairedTurn struct {
	Base      Turn
	Candidate Turn
}

// Key returns the turn's key.
func (p PairedTurn) Key() Key { return Key{p.Base.DialogID, p.Base.TurnNo} }

// Pairing is the result of matching two runs' turns on (dialog_id, turn_no).
type Pairing struct {
	// Paired holds the turns present in both runs, sorted by key.
	Paired []PairedTurn
	// Removed holds the keys only the base has; Added those only the
	// candidate has. Both sorted.
	Removed []Key
	Added   []Key
}

// Pair matches the turns of two runs on (dialog_id, turn_no). It is
// symmetric: Pair(b, a) has the roles of Pair(a, b) swapped. It returns a
// *DuplicateTurnError when a run holds a key twice; no overlap is not an
// error here (Compare reports it).
func Pair(base, cand Run) (Pairing, error) {
	bs, err := sortedTurns(base)
	if err != nil {
		return Pairing{}, err
	}
	cs, err := sortedTurns(cand)
	if err != nil {
		return Pairing{}, err
	}
	var p Pairing
	i, j := 0, 0
	for i < len(bs) || j < len(cs) {
		var c int
		switch {
		case i == len(bs):
			c = 1
		case j == len(cs):
			c = -1
		default:
			c = compareKeys(turnKey(bs[i]), turnKey(cs[j]))
		}
		switch {
		case c < 0:
			p.Removed = append(p.Removed, turnKey(bs[i]))
			i++
		case c > 0:
			p.Added = append(p.Added, turnKey(cs[j]))
			j++
		default:
			p.Paired = append(p.Paired, PairedTurn{Base: bs[i], Candidate: cs[j]})
			i++
			j++
		}
	}
	return p, nil
}

func turnKey(t Turn) Key { return Key{t.DialogID, t.TurnNo} }

func sortedTurns(r Run) ([]Turn, error) {
	ts := slices.Clone(r.Turns)
	slices.SortStableFunc(ts, func(a, b Turn) int { return compareKeys(turnKey(a), turnKey(b)) })
	for i := 1; i < len(ts); i++ {
		if turnKey(ts[i]) == turnKey(ts[i-1]) {
			return nil, &DuplicateTurnError{Run: r.Name, DialogID: ts[i].DialogID, TurnNo: ts[i].TurnNo}
		}
	}
	return ts, nil
}
