package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"slices"

	"github.com/aem-dev/aem/metrics/stats"

	"github.com/aem-dev/aem/metrics"
)

// SummaryVersion is the version of summary.json this package writes.
const SummaryVersion = 1

// summaryAcc accumulates a Summary from output rows in input order. Run,
// resume and Merge all feed it the final rows, so they agree exactly.
type summaryAcc struct {
	dialogs, turns, passed int
	testPass               int
	scoreSum               float64
	sub                    map[string]*[2]int // pass, applicable
	reasons                map[string]ReasonCount
	buckets                map[string]*BucketStat
	lat, latScore          []float64
	digest                 hash.Hash
}

func newSummaryAcc() *summaryAcc {
	return &summaryAcc{
		sub:     map[string]*[2]int{},
		reasons: map[string]ReasonCount{},
		buckets: map[string]*BucketStat{},
		digest:  sha256.New(),
	}
}

func (a *summaryAcc) addTurn(t *TurnRow) {
	a.turns++
	if t.Pass {
		a.passed++
	}
	for name, o := range map[string]string{metrics.SubStructure: t.Structure, metrics.SubCompleteness: t.Completeness, metrics.SubTruthfulness: t.Truthfulness} {
		switch metrics.Outcome(o) {
		case metrics.OutcomePass, metrics.OutcomeFail:
			c := a.sub[name]
			if c == nil {
				c = new([2]int)
				a.sub[name] = c
			}
			c[1]++
			if metrics.Outcome(o) == metrics.OutcomePass {
				c[0]++
			}
		}
	}
	if !t.Pass {
		reason := "unknown"
		if t.FailureReason != nil {
			reason = *t.FailureReason
		}
		rc := a.reasons[reason]
		rc.Total++
		if t.RootCause {
			rc.RootCause++
		} else {
			rc.Cascade++
		}
		a.reasons[reason] = rc
	}
	if t.ChainBucket != nil {
		b := a.buckets[*t.ChainBucket]
		if b == nil {
			b = &BucketStat{}
			a.buckets[*t.ChainBucket] = b
		}
		b.Turns++
		if t.Pass {
			b.Passed++
		}
	}
}

func (a *summaryAcc) addDialog(d *DialogRow, goldDigest []byte) {
	a.dialogs++
	if d.TestPass {
		a.testPass++
	}
	a.scoreSum += d.Score
	if d.LatencyMS != nil {
		a.lat = append(a.lat, *d.LatencyMS)
		a.latScore = append(a.latScore, d.Score)
	}
	a.digest.Write(goldDigest)
}

// summary builds the Summary; header fields (Input, Scorer, Thresholds,
// Settings, Timings) are the caller's.
func (a *summaryAcc) summary() *Summary {
	s := &Summary{
		Version:        SummaryVersion,
		Dataset:        "sha256:" + hex.EncodeToString(a.digest.Sum(nil)),
		Dialogs:        a.dialogs,
		Turns:          a.turns,
		Passed:         a.passed,
		Correctness:    ratio(a.passed, a.turns),
		SubMetrics:     map[string]float64{},
		DialogPassRate: ratio(a.testPass, a.dialogs),
		FailureReasons: a.reasons,
		ByChainBucket:  map[string]BucketStat{},
		Settings:       map[string]string{},
		Timings:        map[string]float64{},
	}
	if a.dialogs > 0 {
		s.MeanDialogScore = a.scoreSum / float64(a.dialogs)
	}
	for name, c := range a.sub {
		s.SubMetrics[name] = ratio(c[0], c[1])
	}
	for name, b := range a.buckets {
		st := *b
		st.Correctness = ratio(b.Passed, b.Turns)
		s.ByChainBucket[name] = st
	}
	if p, sp, ok := correlations(a.lat, a.latScore); ok {
		s.LatencyCorrelation = &LatencyCorrelation{Dialogs: len(a.lat), Pearson: p, Spearman: sp}
	}
	return s
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// correlations returns the Pearson and Spearman correlation of x and y; ok
// is false when they are undefined (fewer than two points, or a constant
// series).
func correlations(x, y []float64) (pearson, spearman float64, ok bool) {
	p, err1 := stats.Pearson(x, y)
	s, err2 := stats.Spearman(x, y)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return p, s, true
}

// settingsOf lists the settings that change results, as recorded in
// summary.json and checked on resume and merge.
func settingsOf(cfg metrics.Config, o Options) map[string]string {
	s := map[string]string{
		"cascade":                string(cfg.Cascade),
		"composition.rule":       string(cfg.Composition.Rule),
		"composition.gate_cap":   fmtFloat(cfg.Composition.GateCap),
		"composition.pass_score": fmtFloat(cfg.Composition.PassScore),
		"numeric_tolerance":      fmtFloat(cfg.NumericTolerance),
	}
	keys := make([]string, 0, len(cfg.Composition.MinRates))
	for k := range cfg.Composition.MinRates {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s["composition.min_rate."+k] = fmtFloat(cfg.Composition.MinRates[k])
	}
	if len(o.ReadOptions.Mapping) > 0 {
		s["mapping"] = o.ReadOptions.Mapping.String()
	}
	return s
}
