package batch

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
)

// goldDigest hashes the gold side of every turn of a dialog: IDs, roles,
// gold outputs (a gold "no call" too), tags, dependencies, weight and
// criticality, and the dialog's tool definitions. Predictions, human labels
// and latencies are left out, and so are the turns without a gold side
// (unexpected predictions, which differ between releases), so two systems
// scored on the same golden dataset share it. Fields are length-prefixed.
func goldDigest(d *golden.Dialog) ([32]byte, error) {
	h := sha256.New()
	str := func(s string) {
		writeLen(h, len(s))
		h.Write([]byte(s))
	}
	str(d.ID)
	gold := 0
	for i := range d.Turns {
		if d.Turns[i].HasGold {
			gold++
		}
	}
	writeLen(h, gold)
	for i := range d.Turns {
		t := &d.Turns[i]
		if !t.HasGold {
			continue
		}
		str(strconv.Itoa(t.TurnNo))
		str(string(t.Role))
		str(t.GoldResponse)
		str(t.Gold.ToolID)
		str(t.Gold.Action)
		args := ""
		if t.Kind() == metrics.KindAction || len(t.Gold.Args) > 0 {
			a, err := golden.EncodeArgs(t.Gold.Args)
			if err != nil {
				return [32]byte{}, fmt.Errorf("dialog %q turn %d: encoding gold args: %w", d.ID, t.TurnNo, err)
			}
			args = a
		}
		str(args)
		tags := slices.Clone(t.Tags)
		writeLen(h, len(tags))
		for _, tag := range tags {
			str(tag)
		}
		writeLen(h, len(t.DependsOn))
		for _, dep := range t.DependsOn {
			writeLen(h, dep)
		}
		w := 1.0
		if t.Weight != nil {
			w = *t.Weight
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], math.Float64bits(w))
		h.Write(b[:])
		if t.Critical {
			h.Write([]byte{1})
		} else {
			h.Write([]byte{0})
		}
		if t.GoldNoCall {
			str("no_call") // absent from datasets without it, so their digests stay as they were
		}
	}
	if d.Tools != nil {
		str("tools")
		str(string(d.Tools.JSON()))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out, nil
}

func writeLen(h hash.Hash, n int) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
}
