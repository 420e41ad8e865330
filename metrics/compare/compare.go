package compare

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/trials"
)

// Stat groups.
const (
	GroupOverall       = "overall"
	GroupSubMetric     = "sub_metric"
	GroupChainBucket   = "chain_bucket"
	GroupTool          = "tool"
	GroupFailureReason = "failure_reason"
	GroupDialog        = "dialog"
)

// Verdicts of a Stat.
const (
	VerdictRegressed = "regressed"
	VerdictImproved  = "improved"
	VerdictNoChange  = "no_significant_change"
)

// Stat compares one share between the base and the candidate on the same
// units (paired turns, or dialogs for the dialog group).
type Stat struct {
	Group string `json:"group"`
	Key   string `json:"key"`
	// HigherIsBetter is false for failure-reason rates.
	HigherIsBetter bool     `json:"higher_is_better"`
	Units          int      `json:"units"`
	Dialogs        int      `json:"dialogs"`
	Base           float64  `json:"base"`
	Candidate      float64  `json:"candidate"`
	Diff           float64  `json:"diff"` // Candidate - Base
	CI             Interval `json:"ci"`
	// Worse and Better count discordant units: those that got worse
	// (passed in base and failed in candidate, or gained the failure
	// reason) and those that got better.
	Worse  int `json:"worse"`
	Better int `json:"better"`
	// P is the exact two-sided McNemar p-value on Worse and Better.
	P float64 `json:"p"`
	// Gated is true for the Stats in the gate family; PAdjusted is then
	// the Holm-adjusted P, and GateFailed whether the Stat fails the gate.
	Gated      bool     `json:"gated"`
	PAdjusted  *float64 `json:"p_adjusted,omitempty"`
	GateFailed bool     `json:"gate_failed"`
	Verdict    string   `json:"verdict"`

	clusters []cluster // per-dialog counts, kept until the CI is computed
}

// Name is "group:key", also the Stat's random stream name.
func (s Stat) Name() string { return s.Group + ":" + s.Key }

// ReasonCount counts failed turns of one reason, split into root causes
// and cascades.
type ReasonCount struct {
	Reason    string `json:"reason"`
	Total     int    `json:"total"`
	RootCause int    `json:"root_cause"`
	Cascade   int    `json:"cascade"`
}

// ReasonStat is the Stat of one failure reason's rate among paired turns,
// with each run's root-cause and cascade counts.
type ReasonStat struct {
	Stat
	BaseCount      ReasonCount `json:"base_count"`
	CandidateCount ReasonCount `json:"candidate_count"`
}

// TurnChange is a paired turn that regressed (passed in base, fails in the
// candidate) or was fixed (the reverse).
type TurnChange struct {
	DialogID    string `json:"dialog_id"`
	Trial       *int64 `json:"trial,omitempty"`
	TurnNo      int    `json:"turn_no"`
	Kind        string `json:"kind"`
	Tool        string `json:"tool,omitempty"`
	ChainBucket string `json:"chain_bucket,omitempty"`
	Critical    bool   `json:"critical"`
	// RootCause, CascadeFrom, Reason and OwnReason describe the failing
	// side: the candidate for a regression, the base for a fix.
	RootCause   bool   `json:"root_cause"`
	CascadeFrom int    `json:"cascade_from,omitempty"`
	Reason      string `json:"reason"`
	OwnReason   string `json:"own_reason,omitempty"`

	Gold                 string       `json:"gold"`
	BasePredicted        string       `json:"base_predicted"`
	CandidatePredicted   string       `json:"candidate_predicted"`
	BaseFieldScores      []FieldScore `json:"base_field_scores"`
	CandidateFieldScores []FieldScore `json:"candidate_field_scores"`
}

// ChangeCounts sums up the turn-level changes, root causes and cascades
// apart: a new early error that makes four later turns fail reads as one
// root-cause regression and four cascades.
type ChangeCounts struct {
	Regressed           int           `json:"regressed"`
	RegressedRootCauses int           `json:"regressed_root_causes"`
	RegressedCascades   int           `json:"regressed_cascades"`
	Fixed               int           `json:"fixed"`
	FixedRootCauses     int           `json:"fixed_root_causes"`
	FixedCascades       int           `json:"fixed_cascades"`
	RegressedByReason   []ReasonCount `json:"regressed_by_reason"`
	FixedByReason       []ReasonCount `json:"fixed_by_reason"`
}

// DialogFlip is a dialog whose test_pass differs between the runs.
type DialogFlip struct {
	DialogID              string  `json:"dialog_id"`
	Trial                 *int64  `json:"trial,omitempty"`
	Direction             string  `json:"direction"` // "regressed" or "fixed"
	BaseTestPass          bool    `json:"base_test_pass"`
	CandidateTestPass     bool    `json:"candidate_test_pass"`
	BaseScore             float64 `json:"base_score"`
	CandidateScore        float64 `json:"candidate_score"`
	BaseFirstFailure      int     `json:"base_first_failure_turn,omitempty"`
	CandidateFirstFailure int     `json:"candidate_first_failure_turn,omitempty"`
	BaseRootCause         string  `json:"base_root_cause,omitempty"`
	CandidateRootCause    string  `json:"candidate_root_cause,omitempty"`
}

// GateFailure is one Stat that failed the gate.
type GateFailure struct {
	Candidate string  `json:"candidate"`
	Metric    string  `json:"metric"`
	Base      float64 `json:"base"`
	Value     float64 `json:"candidate_value"`
	Diff      float64 `json:"diff"`
	CIHi      float64 `json:"ci_hi"`
	PAdjusted float64 `json:"p_adjusted"`
}

// Gate is the regression-gate decision.
type Gate struct {
	Failed   bool          `json:"failed"`
	Alpha    float64       `json:"alpha"`
	Margin   float64       `json:"margin"`
	Rule     string        `json:"rule"`
	Failures []GateFailure `json:"failures"`
}

const gateRule = "fail when, overall or on any sub-metric, the Holm-adjusted exact McNemar p < alpha and the upper end of the dialog-bootstrap CI of (candidate - base) < -margin"

// Comparison is the paired comparison of one candidate with the base.
type Comparison struct {
	Base       string     `json:"base"`
	Candidate  string     `json:"candidate"`
	Mismatches []Mismatch `json:"mismatches,omitempty"`

	PairedTurns   int   `json:"paired_turns"`
	PairedDialogs int   `json:"paired_dialogs"`
	Added         []Key `json:"added_turns"`
	Removed       []Key `json:"removed_turns"`
	// AddedDialogs and RemovedDialogs name dialogs as "<dialog_id>", or
	// "<dialog_id> trial <n>" for a trial.
	AddedDialogs   []string `json:"added_dialogs"`
	RemovedDialogs []string `json:"removed_dialogs"`

	Overall        Stat         `json:"overall"`
	RootCauseFree  Stat         `json:"root_cause_free"`
	SubMetrics     []Stat       `json:"sub_metrics"`
	ChainBuckets   []Stat       `json:"chain_buckets"`
	Tools          []Stat       `json:"tools"`
	FailureReasons []ReasonStat `json:"failure_reasons"`
	DialogPass     *Stat        `json:"dialog_pass,omitempty"`

	Changes        ChangeCounts `json:"changes"`
	Regressed      []TurnChange `json:"regressed"`
	Fixed          []TurnChange `json:"fixed"`
	FlippedDialogs []DialogFlip `json:"flipped_dialogs"`

	ReasonShift ShiftTest `json:"failure_reason_shift"`
	Gate        Gate      `json:"gate"`

	// Pairs holds every paired turn, sorted by key (compare.parquet).
	Pairs []PairedTurn `json:"-"`
}

// AllStats returns every Stat of the comparison in report order.
func (c *Comparison) AllStats() []Stat {
	out := []Stat{c.Overall, c.RootCauseFree}
	out = append(out, c.SubMetrics...)
	out = append(out, c.ChainBuckets...)
	out = append(out, c.Tools...)
	for _, r := range c.FailureReasons {
		out = append(out, r.Stat)
	}
	if c.DialogPass != nil {
		out = append(out, *c.DialogPass)
	}
	return out
}

// unit is one paired observation of an indicator.
type unit struct {
	dialog     string
	base, cand bool
}

// Sub-metric order in reports.
var (
	kinds      = []metrics.Kind{metrics.KindAction, metrics.KindResponse}
	subMetrics = []string{metrics.SubStructure, metrics.SubCompleteness, metrics.SubTruthfulness}
	buckets    = []string{"single", "two_step", "three_plus"}
	// reasonOrder is the precedence order of metrics' reasons.
	reasonOrder = metrics.Reasons()
)

func outcome(t TurnVerdict, sub string) metrics.Outcome {
	switch sub {
	case metrics.SubStructure:
		return t.Structure
	case metrics.SubCompleteness:
		return t.Completeness
	default:
		return t.Truthfulness
	}
}

func assessed(o metrics.Outcome) bool { return o == metrics.OutcomePass || o == metrics.OutcomeFail }

// orderKeys orders known keys first (in the given order), then the rest sorted.
func orderKeys(present map[string]bool, known []string) []string {
	var out []string
	for _, k := range known {
		if present[k] {
			out = append(out, k)
		}
	}
	var rest []string
	for k := range present {
		if !slices.Contains(known, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func reasonStrings() []string {
	out := make([]string, len(reasonOrder))
	for i, r := range reasonOrder {
		out[i] = string(r)
	}
	return out
}

// computeStat fills a Stat from units sorted by dialog.
func computeStat(group, key string, higherIsBetter bool, us []unit) (Stat, error) {
	s := Stat{Group: group, Key: key, HigherIsBetter: higherIsBetter, Units: len(us)}
	var cs []cluster
	var sb, sc int
	for i, u := range us {
		if i == 0 || u.dialog != us[i-1].dialog {
			cs = append(cs, cluster{})
		}
		c := &cs[len(cs)-1]
		c.n++
		if u.base {
			c.base++
			sb++
		}
		if u.cand {
			c.cand++
			sc++
		}
		switch {
		case u.base && !u.cand:
			if higherIsBetter {
				s.Worse++
			} else {
				s.Better++
			}
		case !u.base && u.cand:
			if higherIsBetter {
				s.Better++
			} else {
				s.Worse++
			}
		}
	}
	s.Dialogs = len(cs)
	if len(us) == 0 {
		s.P = 1
		s.Verdict = VerdictNoChange
		return s, nil
	}
	s.Base = float64(sb) / float64(len(us))
	s.Candidate = float64(sc) / float64(len(us))
	s.Diff = float64(sc-sb) / float64(len(us))
	s.P = McNemarExact(s.Worse, s.Better)
	s.clusters = cs
	return s, nil
}

// finishStats computes the bootstrap CI and the verdict of every Stat, in
// parallel (each Stat has its own random stream, so the result does not
// depend on the number of workers).
func finishStats(ctx context.Context, stats []*Stat, opts Options) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, s := range stats {
		if s.Units == 0 {
			continue
		}
		g.Go(func() error {
			ci, err := bootstrapDiff(gctx, s.clusters, opts.Alpha, opts.Bootstrap, opts.Seed, s.Name())
			if err != nil {
				return fmt.Errorf("bootstrapping %s: %w", s.Name(), err)
			}
			s.CI = ci
			s.Verdict = verdict(*s, s.P, opts)
			s.clusters = nil
			return nil
		})
	}
	return g.Wait()
}

// verdict applies the documented rule with p-value p.
func verdict(s Stat, p float64, opts Options) string {
	worse := s.CI.Hi < -opts.Margin
	better := s.CI.Lo > opts.Margin
	if !s.HigherIsBetter {
		worse, better = s.CI.Lo > opts.Margin, s.CI.Hi < -opts.Margin
	}
	switch {
	case p < opts.Alpha && worse:
		return VerdictRegressed
	case p < opts.Alpha && better:
		return VerdictImproved
	}
	return VerdictNoChange
}

func collect(pairs []PairedTurn, keep func(PairedTurn) bool, ind func(TurnVerdict) bool) []unit {
	var us []unit
	for _, p := range pairs {
		if keep(p) {
			us = append(us, unit{p.Base.DialogID, ind(p.Base), ind(p.Candidate)})
		}
	}
	return us
}

// Compare compares a candidate run with a base run. It returns
// ErrNoOverlap (wrapped) when they share no turn, a *DuplicateTurnError for
// a run holding a key twice, and a *MismatchError when their identities
// differ and opts.AllowMismatch is false.
func Compare(ctx context.Context, base, cand Run, opts Options) (*Comparison, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mm := CheckIdentity(base, cand)
	if len(mm) > 0 && !opts.AllowMismatch {
		return nil, &MismatchError{Base: base.Name, Mismatches: mm}
	}
	pr, err := Pair(base, cand)
	if err != nil {
		return nil, err
	}
	if len(pr.Paired) == 0 {
		return nil, fmt.Errorf("%w: base %s has %d turns and candidate %s has %d, but none share a (dialog_id, trial, turn_no); were they scored on the same golden dataset?",
			ErrNoOverlap, base.Name, len(base.Turns), cand.Name, len(cand.Turns))
	}
	c := &Comparison{
		Base: base.Name, Candidate: cand.Name, Mismatches: mm,
		PairedTurns: len(pr.Paired), Added: pr.Added, Removed: pr.Removed,
		Pairs: pr.Paired,
	}
	dialogs := map[string]bool{}
	for _, p := range pr.Paired {
		dialogs[dialogKey(p.Base.DialogID, p.Base.Trial)] = true
	}
	c.PairedDialogs = len(dialogs)
	all := func(PairedTurn) bool { return true }
	pass := func(t TurnVerdict) bool { return t.Pass }

	stat := func(group, key string, hib bool, us []unit) (Stat, error) {
		return computeStat(group, key, hib, us)
	}
	if c.Overall, err = stat(GroupOverall, "correctness", true, collect(pr.Paired, all, pass)); err != nil {
		return nil, err
	}
	if c.RootCauseFree, err = stat(GroupOverall, "root_cause_free", true,
		collect(pr.Paired, all, func(t TurnVerdict) bool { return t.Pass || !t.RootCause })); err != nil {
		return nil, err
	}
	for _, k := range kinds {
		for _, sub := range subMetrics {
			us := collect(pr.Paired, func(p PairedTurn) bool {
				return p.Base.Kind == k && assessed(outcome(p.Base, sub)) && assessed(outcome(p.Candidate, sub))
			}, func(t TurnVerdict) bool { return outcome(t, sub) == metrics.OutcomePass })
			if len(us) == 0 {
				continue
			}
			s, err := stat(GroupSubMetric, sub+"."+string(k), true, us)
			if err != nil {
				return nil, err
			}
			c.SubMetrics = append(c.SubMetrics, s)
		}
	}
	bucketSet, toolSet, reasonSet := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range pr.Paired {
		if p.Base.ChainBucket != "" {
			bucketSet[p.Base.ChainBucket] = true
		}
		if p.Base.Tool != "" {
			toolSet[p.Base.Tool] = true
		}
		for _, t := range []TurnVerdict{p.Base, p.Candidate} {
			if !t.Pass {
				reasonSet[string(t.FailureReason)] = true
			}
		}
	}
	for _, b := range orderKeys(bucketSet, buckets) {
		s, err := stat(GroupChainBucket, b, true, collect(pr.Paired, func(p PairedTurn) bool { return p.Base.ChainBucket == b }, pass))
		if err != nil {
			return nil, err
		}
		c.ChainBuckets = append(c.ChainBuckets, s)
	}
	for _, tool := range orderKeys(toolSet, nil) {
		s, err := stat(GroupTool, tool, true, collect(pr.Paired, func(p PairedTurn) bool { return p.Base.Tool == tool }, pass))
		if err != nil {
			return nil, err
		}
		c.Tools = append(c.Tools, s)
	}
	for _, r := range orderKeys(reasonSet, reasonStrings()) {
		has := func(t TurnVerdict) bool { return !t.Pass && string(t.FailureReason) == r }
		s, err := stat(GroupFailureReason, r, false, collect(pr.Paired, all, has))
		if err != nil {
			return nil, err
		}
		rs := ReasonStat{Stat: s, BaseCount: ReasonCount{Reason: r}, CandidateCount: ReasonCount{Reason: r}}
		for _, p := range pr.Paired {
			countReason(&rs.BaseCount, p.Base, has)
			countReason(&rs.CandidateCount, p.Candidate, has)
		}
		c.FailureReasons = append(c.FailureReasons, rs)
	}
	if err := c.compareDialogs(base, cand); err != nil {
		return nil, err
	}
	c.changes(pr.Paired)
	stats := []*Stat{&c.Overall, &c.RootCauseFree}
	for _, group := range [][]Stat{c.SubMetrics, c.ChainBuckets, c.Tools} {
		for i := range group {
			stats = append(stats, &group[i])
		}
	}
	for i := range c.FailureReasons {
		stats = append(stats, &c.FailureReasons[i].Stat)
	}
	if c.DialogPass != nil {
		stats = append(stats, c.DialogPass)
	}
	if err := finishStats(ctx, stats, opts); err != nil {
		return nil, err
	}

	ds := make([]string, len(pr.Paired))
	rb := make([]string, len(pr.Paired))
	rc := make([]string, len(pr.Paired))
	for i, p := range pr.Paired {
		ds[i], rb[i], rc[i] = p.Base.DialogID, reasonOf(p.Base), reasonOf(p.Candidate)
	}
	if c.ReasonShift, err = reasonShift(ctx, ds, rb, rc, opts.Alpha, opts.Permutations, opts.Seed); err != nil {
		return nil, fmt.Errorf("testing the failure-reason shift: %w", err)
	}
	c.gate(opts)
	return c, nil
}

func countReason(rc *ReasonCount, t TurnVerdict, has func(TurnVerdict) bool) {
	if !has(t) {
		return
	}
	rc.Total++
	if t.RootCause {
		rc.RootCause++
	} else {
		rc.Cascade++
	}
}

func reasonOf(t TurnVerdict) string {
	if t.Pass {
		return passCategory
	}
	if t.FailureReason == "" {
		return "unknown"
	}
	return string(t.FailureReason)
}

// compareDialogs fills DialogPass, FlippedDialogs and the added/removed dialogs.
func (c *Comparison) compareDialogs(base, cand Run) error {
	bd, err := dialogIndex(base)
	if err != nil {
		return err
	}
	cd, err := dialogIndex(cand)
	if err != nil {
		return err
	}
	c.AddedDialogs, c.RemovedDialogs = []string{}, []string{}
	var us []unit
	for _, k := range sortedDialogs(bd) {
		b := bd[k]
		d, ok := cd[k]
		if !ok {
			c.RemovedDialogs = append(c.RemovedDialogs, b.ID+trials.Note(b.Trial))
			continue
		}
		us = append(us, unit{b.ID, b.TestPass, d.TestPass})
		if b.TestPass != d.TestPass {
			f := DialogFlip{
				DialogID: b.ID, Trial: b.Trial, Direction: "fixed", BaseTestPass: b.TestPass, CandidateTestPass: d.TestPass,
				BaseScore: b.Score, CandidateScore: d.Score,
				BaseFirstFailure: b.FirstFailureTurn, CandidateFirstFailure: d.FirstFailureTurn,
				BaseRootCause: string(b.RootCause), CandidateRootCause: string(d.RootCause),
			}
			if b.TestPass {
				f.Direction = "regressed"
			}
			c.FlippedDialogs = append(c.FlippedDialogs, f)
		}
	}
	for _, k := range sortedDialogs(cd) {
		if _, ok := bd[k]; !ok {
			c.AddedDialogs = append(c.AddedDialogs, cd[k].ID+trials.Note(cd[k].Trial))
		}
	}
	slices.SortStableFunc(c.FlippedDialogs, func(a, b DialogFlip) int {
		// Regressions first.
		return cmp.Compare(b.Direction, a.Direction)
	})
	if len(us) > 0 {
		s, err := computeStat(GroupDialog, "test_pass", true, us)
		if err != nil {
			return err
		}
		c.DialogPass = &s
	}
	return nil
}

// dialogIndex maps each dialog's dialogKey to it.
func dialogIndex(r Run) (map[string]Dialog, error) {
	m := make(map[string]Dialog, len(r.Dialogs))
	for _, d := range r.Dialogs {
		k := dialogKey(d.ID, d.Trial)
		if _, dup := m[k]; dup {
			return nil, &DuplicateTurnError{Run: r.Name, DialogID: d.ID, Trial: d.Trial, InDialogs: true}
		}
		m[k] = d
	}
	return m, nil
}

// sortedDialogs returns the keys of a dialogIndex by dialog_id, then trial.
func sortedDialogs(m map[string]Dialog) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return compareKeys(Key{DialogID: m[a].ID, Trial: m[a].Trial}, Key{DialogID: m[b].ID, Trial: m[b].Trial})
	})
}

// changes fills Regressed, Fixed and Changes.
func (c *Comparison) changes(pairs []PairedTurn) {
	c.Regressed, c.Fixed = []TurnChange{}, []TurnChange{}
	regBy, fixBy := map[string]*ReasonCount{}, map[string]*ReasonCount{}
	for _, p := range pairs {
		if p.Base.Pass == p.Candidate.Pass {
			continue
		}
		failing := p.Candidate
		if p.Candidate.Pass {
			failing = p.Base
		}
		tc := TurnChange{
			DialogID: p.Base.DialogID, Trial: p.Base.Trial, TurnNo: p.Base.TurnNo, Kind: string(p.Base.Kind),
			Tool: p.Base.Tool, ChainBucket: p.Base.ChainBucket, Critical: p.Base.Critical || p.Candidate.Critical,
			RootCause: failing.RootCause, CascadeFrom: failing.CascadeFrom,
			Reason: reasonOf(failing), OwnReason: string(failing.OwnReason),
			Gold: p.Base.Gold, BasePredicted: p.Base.Predicted, CandidatePredicted: p.Candidate.Predicted,
			BaseFieldScores: p.Base.FieldScores, CandidateFieldScores: p.Candidate.FieldScores,
		}
		by := regBy
		if p.Base.Pass {
			c.Regressed = append(c.Regressed, tc)
			c.Changes.Regressed++
			if tc.RootCause {
				c.Changes.RegressedRootCauses++
			} else {
				c.Changes.RegressedCascades++
			}
		} else {
			by = fixBy
			c.Fixed = append(c.Fixed, tc)
			c.Changes.Fixed++
			if tc.RootCause {
				c.Changes.FixedRootCauses++
			} else {
				c.Changes.FixedCascades++
			}
		}
		rc := by[tc.Reason]
		if rc == nil {
			rc = &ReasonCount{Reason: tc.Reason}
			by[tc.Reason] = rc
		}
		countReason(rc, failing, func(TurnVerdict) bool { return true })
	}
	rank := func(a, b TurnChange) int {
		if a.RootCause != b.RootCause {
			if a.RootCause {
				return -1
			}
			return 1
		}
		if a.Critical != b.Critical {
			if a.Critical {
				return -1
			}
			return 1
		}
		return compareKeys(Key{a.DialogID, a.Trial, a.TurnNo}, Key{b.DialogID, b.Trial, b.TurnNo})
	}
	slices.SortStableFunc(c.Regressed, rank)
	slices.SortStableFunc(c.Fixed, rank)
	c.Changes.RegressedByReason = orderedCounts(regBy)
	c.Changes.FixedByReason = orderedCounts(fixBy)
}

func orderedCounts(m map[string]*ReasonCount) []ReasonCount {
	present := map[string]bool{}
	for k := range m {
		present[k] = true
	}
	out := []ReasonCount{}
	for _, k := range orderKeys(present, reasonStrings()) {
		out = append(out, *m[k])
	}
	return out
}

// gate applies the gating rule to the overall and sub-metric Stats.
func (c *Comparison) gate(opts Options) {
	c.Gate = Gate{Alpha: opts.Alpha, Margin: opts.Margin, Rule: gateRule, Failures: []GateFailure{}}
	family := []*Stat{&c.Overall}
	for i := range c.SubMetrics {
		family = append(family, &c.SubMetrics[i])
	}
	ps := make([]float64, len(family))
	for i, s := range family {
		ps[i] = s.P
	}
	adj := Holm(ps)
	for i, s := range family {
		a := adj[i]
		s.Gated = true
		s.PAdjusted = &a
		s.Verdict = verdict(*s, a, opts)
		s.GateFailed = s.Verdict == VerdictRegressed
		if s.GateFailed {
			c.Gate.Failed = true
			c.Gate.Failures = append(c.Gate.Failures, GateFailure{
				Candidate: c.Candidate, Metric: s.Name(), Base: s.Base, Value: s.Candidate,
				Diff: s.Diff, CIHi: s.CI.Hi, PAdjusted: a,
			})
		}
	}
}
