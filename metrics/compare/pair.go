package compare

import (
	"cmp"
	"slices"
	"strconv"
)

// Key identifies a turn across runs: (dialog_id, trial, turn_no). Keys
// hold a pointer: compare them with Equal, not ==.
type Key struct {
	DialogID string `json:"dialog_id"`
	Trial    *int64 `json:"trial,omitempty"`
	TurnNo   int    `json:"turn_no"`
}

// Equal reports whether two keys name the same turn.
func (k Key) Equal(o Key) bool { return compareKeys(k, o) == 0 }

// compareKeys orders keys by dialog_id, trial (none first) and turn_no.
func compareKeys(a, b Key) int {
	if c := cmp.Compare(a.DialogID, b.DialogID); c != 0 {
		return c
	}
	if c := compareTrials(a.Trial, b.Trial); c != 0 {
		return c
	}
	return cmp.Compare(a.TurnNo, b.TurnNo)
}

// compareTrials orders trials, none first.
func compareTrials(a, b *int64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// dialogKey is a dialog's key inside a comparison: one string per
// (dialog_id, trial), distinct for distinct pairs.
func dialogKey(id string, trial *int64) string {
	if trial == nil {
		return "n" + id
	}
	return "t" + strconv.FormatInt(*trial, 10) + ":" + id
}

// PairedTurn is one turn present in both runs.
type PairedTurn struct {
	Base      TurnVerdict
	Candidate TurnVerdict
}

// Key returns the turn's key.
func (p PairedTurn) Key() Key { return turnKey(p.Base) }

// Pairing is the result of matching two runs' turns on (dialog_id, trial,
// turn_no).
type Pairing struct {
	// Paired holds the turns present in both runs, sorted by key.
	Paired []PairedTurn
	// Removed holds the keys only the base has; Added those only the
	// candidate has. Both sorted.
	Removed []Key
	Added   []Key
}

// Pair matches the turns of two runs on (dialog_id, trial, turn_no). It is
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

func turnKey(t TurnVerdict) Key { return Key{t.DialogID, t.Trial, t.TurnNo} }

func sortedTurns(r Run) ([]TurnVerdict, error) {
	ts := slices.Clone(r.Turns)
	slices.SortStableFunc(ts, func(a, b TurnVerdict) int { return compareKeys(turnKey(a), turnKey(b)) })
	for i := 1; i < len(ts); i++ {
		if turnKey(ts[i]).Equal(turnKey(ts[i-1])) {
			return nil, &DuplicateTurnError{Run: r.Name, DialogID: ts[i].DialogID, Trial: ts[i].Trial, TurnNo: ts[i].TurnNo}
		}
	}
	return ts, nil
}
