package rundir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/aem-dev/aem/metrics/trials"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/stats"
)

// SummaryVersion is the version of summary.json this package writes.
const SummaryVersion = 1

// Summary is summary.json: run-level totals and the settings a run was
// made with. Compare refuses to pair runs whose Scorer, Thresholds or
// Dataset differ.
type Summary struct {
	Version int `json:"version"`
	// MetricVersion is metrics.Version of the aem that scored the run
	// (metrics.VersionUnrecorded for runs written before it was recorded).
	MetricVersion int `json:"metric_version"`
	// Dataset identifies the golden dataset: the sha256 of the gold side of
	// every turn in input order (predictions excluded, so two releases
	// scored on the same golden dataset share it).
	Dataset    string             `json:"dataset"`
	Input      string             `json:"input"`
	Scorer     string             `json:"scorer"`
	Thresholds metrics.Thresholds `json:"thresholds"`
	Settings   map[string]string  `json:"settings"`

	Dialogs int `json:"dialogs"`
	Turns   int `json:"turns"`
	Passed  int `json:"passed"`

	Correctness     float64            `json:"correctness"`
	SubMetrics      map[string]float64 `json:"sub_metrics"` // "structure", "completeness", "truthfulness"
	DialogPassRate  float64            `json:"dialog_pass_rate"`
	MeanDialogScore float64            `json:"mean_dialog_score"`

	// FailureReasons counts failed turns by primary reason, split by
	// root cause and cascade.
	FailureReasons map[string]ReasonCount `json:"failure_reasons"`
	// ByChainBucket is correctness by action-chain bucket.
	ByChainBucket map[string]BucketStat `json:"by_chain_bucket"`
	// LatencyCorrelation is set when the dataset has a latency_ms column:
	// Pearson and Spearman correlation of accumulated dialog latency with
	// dialog score.
	LatencyCorrelation *LatencyCorrelation `json:"latency_correlation,omitempty"`
	// Judge is set for runs with an escalating scorer (embed+judge, judge).
	Judge *JudgeSummary `json:"judge,omitempty"`
	// Trials is set when dialogs are repeated trials of tasks (a trial
	// column in the golden dataset, or trial numbers in the predictions):
	// pass@k, pass^k and flaky tasks over the dialogs with a trial;
	// dialogs.parquet has each task's figures.
	Trials *trials.Summary `json:"trials,omitempty"`
	// ReadOnly counts the read-only calls kept as context (rows of
	// turns.parquet with read_only true, not among Turns); absent when
	// there are none.
	ReadOnly *ReadOnlyCounts `json:"read_only,omitempty"`
	// GoldConflicts lists the gold calls that break their tool
	// definitions (the gold won for those fields); absent when none does.
	GoldConflicts *GoldConflicts `json:"gold_conflicts,omitempty"`
	// Embedding is set for runs scored with the embedding model: what the
	// model did in this invocation of aem run (a resumed run's earlier
	// invocations are not in it; a merge has none).
	Embedding *EmbeddingUsage `json:"embedding,omitempty"`

	// Timings is where the invocation's time went, in seconds, by the
	// names below (TimingTotal, ...): what each measures is said there.
	Timings map[string]float64 `json:"timings_seconds"`
}

// ReadOnlyCounts counts the read-only calls kept as context: their rows,
// the gold calls and predicted calls among them, and the rows that pair a
// gold call with a predicted one.
type ReadOnlyCounts struct {
	Turns     int `json:"turns"`
	Gold      int `json:"gold"`
	Predicted int `json:"predicted"`
	Matched   int `json:"matched"`
}

// Rows is the number of turns.parquet rows the counts stand for.
func (r *ReadOnlyCounts) Rows() int {
	if r == nil {
		return 0
	}
	return r.Turns
}

// The timings of summary.json (Summary.Timings), in seconds. A run reports
// total, scorer, metric, replay and commit; a merge, merge and total.
// Scorer and metric add up the time of the workers' calls, which run side
// by side: with several workers they can exceed total.
const (
	// TimingTotal is the wall time of this invocation of aem run (of aem
	// merge for a merged run): a resumed run counts only its last one.
	TimingTotal = "total"
	// TimingScorer is the time spent waiting on the scorer (the embedding
	// model, the lexical scorer, the judge) for the similarities of the
	// dialogs' comparisons, summed over the workers' calls.
	TimingScorer = "scorer"
	// TimingMetric is the time spent in the metric itself besides the
	// scorer: planning the comparisons, the checks that decide each
	// turn's verdict and the composition into dialog scores, and turning
	// verdicts into rows, summed over the workers. Runs written before
	// this name called it "judge" (ReadSummary renames it).
	TimingMetric = "metric"
	// TimingReplay is the time a resumed run spent copying the dialogs of
	// its checkpoint into the final files (about 0 on a fresh run).
	TimingReplay = "replay"
	// TimingCommit is the time spent committing the final files (closing
	// the Parquet files, renaming them into place) before summary.json.
	TimingCommit = "commit"
	// TimingMerge is the time aem merge spent combining the shards.
	TimingMerge = "merge"
)

// TimingNames lists the timings a summary may hold.
func TimingNames() []string {
	return []string{TimingTotal, TimingScorer, TimingMetric, TimingReplay, TimingCommit, TimingMerge}
}

// timingRenamed maps the old names of timings to the current ones.
var timingRenamed = map[string]string{"judge": TimingMetric}

// ReasonCount splits the failures of one reason into root causes and cascades.
type ReasonCount struct {
	Total     int `json:"total"`
	RootCause int `json:"root_cause"`
	Cascade   int `json:"cascade"`
}

// BucketStat is correctness within one action-chain bucket.
type BucketStat struct {
	Turns       int     `json:"turns"`
	Passed      int     `json:"passed"`
	Correctness float64 `json:"correctness"`
}

// JudgeSummary is the LLM judge's part in a run. The counts of field
// comparisons come from the rows (a resumed or merged run counts them
// all); Usage is what the run paid over every invocation of aem run that
// made it (a resumed run's checkpoint carries the earlier ones'; a merge
// has none).
type JudgeSummary struct {
	// Field comparisons recorded in turns.parquet that a scorer decided,
	// those the judge was asked about (judge_reason or judge_error set),
	// decided (by "judge"), and judge errors on (the first scorer decided).
	Semantic  int `json:"semantic_fields"`
	Escalated int `json:"escalated_fields"`
	Decided   int `json:"judge_decided_fields"`
	Errors    int `json:"judge_errors"`
	// EscalatedShare is Escalated / Semantic.
	EscalatedShare float64     `json:"escalated_share"`
	Usage          *JudgeUsage `json:"usage,omitempty"`
}

// JudgeUsage counts what the judge did for a run: in summary.json, over
// all its invocations (Invocations of them: a run stopped at the budget
// or interrupted and resumed has several).
type JudgeUsage struct {
	Invocations int64 `json:"invocations"`
	Compared    int64 `json:"compared"`  // distinct comparisons the first scorer scored
	Escalated   int64 `json:"escalated"` // of those, sent to the judge
	// Spared are in-band alternatives not sent to the judge: another
	// alternative of the same gold clause scored above the band or was
	// found equivalent (judge.Escalation).
	Spared int64 `json:"spared"`
	// Moot are in-band comparisons not sent because no verdict turns on
	// them (a gold clause whose numbers the reply lacks).
	Moot             int64 `json:"moot"`
	Calls            int64 `json:"calls"` // HTTP requests, retries included
	CacheHits        int64 `json:"cache_hits"`
	Retries          int64 `json:"retries"`
	Errors           int64 `json:"errors"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Add returns the sum of u and v, field by field.
func (u JudgeUsage) Add(v JudgeUsage) JudgeUsage {
	return JudgeUsage{
		Invocations: u.Invocations + v.Invocations,
		Compared:    u.Compared + v.Compared, Escalated: u.Escalated + v.Escalated,
		Spared: u.Spared + v.Spared, Moot: u.Moot + v.Moot,
		Calls: u.Calls + v.Calls, CacheHits: u.CacheHits + v.CacheHits,
		Retries: u.Retries + v.Retries, Errors: u.Errors + v.Errors,
		PromptTokens: u.PromptTokens + v.PromptTokens, CompletionTokens: u.CompletionTokens + v.CompletionTokens,
	}
}

// EmbeddingUsage is what the embedding model did in one invocation of aem
// run: how many strings it embedded per scored turn and for which kind of
// comparison, what it did not have to embed, and the session layout it ran.
type EmbeddingUsage struct {
	// ScoredTurns are the turns this invocation judged (not replayed from
	// a checkpoint); StringsPerScoredTurn is StringsEmbedded / ScoredTurns.
	ScoredTurns          int64   `json:"scored_turns"`
	StringsEmbedded      int64   `json:"strings_embedded"`
	StringsPerScoredTurn float64 `json:"strings_per_scored_turn"`
	// EmbeddedByKind splits StringsEmbedded by the comparisons that asked
	// for them: "values" (parameter values), "replies" (whole replies),
	// "clauses" (reply clauses, for completeness) and "shared" (asked for
	// under several kinds at once, embedded once: a reply that is its own
	// single clause).
	EmbeddedByKind map[string]int64 `json:"embedded_by_kind"`
	// Strings asked for again and not embedded: from the in-run memo and
	// from the persistent cache.
	MemoHits  int64 `json:"memo_hits"`
	CacheHits int64 `json:"cache_hits"`
	// The persistent cache's troubles, none of which stops a run: records
	// that failed their checks (embedded again and stored again), reads
	// or writes that failed (those vectors were not stored), and what
	// opening it found (files moved aside, bytes skipped, an earlier
	// release's cache file). The counts are as of the end of scoring.
	CacheCorrupt int64    `json:"cache_corrupt"`
	CacheErrors  int64    `json:"cache_errors"`
	CacheNotices []string `json:"cache_notices,omitempty"`
	// DecidedWithoutModel counts this invocation's field and reply-clause
	// comparisons that never reached a scorer, by the method that decided
	// them: "exact", "normalized" (equal after the kind's normalisation),
	// "typed" (JSON numbers, booleans, type mismatches), "any" (an $any
	// alternative decided without a scorer), "not_required" (a gold
	// clause completeness does not require, never compared), and the
	// value kinds' rules: "parsed_equal", "parsed_differs", "unparsed",
	// "differs", "equivalence", "contradicted".
	DecidedWithoutModel map[string]int64 `json:"decided_without_model"`
	// ValueKinds counts this invocation's compared parameter values by
	// kind ("date", "name", ...: metrics.FieldScore.Kind): how many the
	// kind's rules decided and how many went to a scorer.
	ValueKinds map[string]KindCount `json:"value_kinds,omitempty"`
	// The layout: Sessions sessions of Threads intra-op threads, batches
	// of at most BatchTokens token slots.
	Sessions    int `json:"sessions"`
	Threads     int `json:"threads"`
	BatchTokens int `json:"batch_tokens"`
	// ModelCalls batches; Tokens real and PaddedTokens fed (padding
	// included); ModelSeconds inside the model and IdleSeconds waiting
	// with nothing queued (after the first strings), each summed over
	// sessions.
	ModelCalls   int64   `json:"model_calls"`
	Tokens       int64   `json:"tokens"`
	PaddedTokens int64   `json:"padded_tokens"`
	ModelSeconds float64 `json:"model_seconds"`
	IdleSeconds  float64 `json:"idle_seconds"`
}

// LatencyCorrelation relates accumulated dialog latency to dialog score.
type LatencyCorrelation struct {
	Dialogs  int     `json:"dialogs"`
	Pearson  float64 `json:"pearson"`
	Spearman float64 `json:"spearman"`
}

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
	judge                  JudgeSummary
	judged                 bool // a row came from an escalating scorer
	readOnly               ReadOnlyCounts
	outcomes               []trials.Outcome // of the dialogs with a trial
	trialSeen              map[dialogKey]bool
}

func newSummaryAcc() *summaryAcc {
	return &summaryAcc{
		sub:       map[string]*[2]int{},
		reasons:   map[string]ReasonCount{},
		buckets:   map[string]*BucketStat{},
		digest:    sha256.New(),
		trialSeen: map[dialogKey]bool{},
	}
}

func (a *summaryAcc) addTurn(t *TurnRow) {
	if t.Context() {
		a.addReadOnly(t)
		return
	}
	a.turns++
	a.addJudge(t)
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

// addReadOnly counts a read-only call kept as context.
func (a *summaryAcc) addReadOnly(t *TurnRow) {
	r := &a.readOnly
	r.Turns++
	gold, pred := t.GoldAction != nil, t.PredictAction != nil
	if gold {
		r.Gold++
	}
	if pred {
		r.Predicted++
	}
	if gold && pred {
		r.Matched++
	}
}

// addJudge counts the judge's part in a turn's field comparisons.
func (a *summaryAcc) addJudge(t *TurnRow) {
	if t.EmbedPass == nil {
		return
	}
	a.judged = true
	for _, fs := range t.AllScores() {
		if fs.By == nil {
			continue
		}
		a.judge.Semantic++
		// Asked: the judge answered (a reason) or failed (an error). The
		// cosine column is not the mark: it says what was asked about.
		if fs.JudgeReason != nil || fs.JudgeError != nil {
			a.judge.Escalated++
		}
		if *fs.By == metrics.ByJudge {
			a.judge.Decided++
		}
		if fs.JudgeError != nil {
			a.judge.Errors++
		}
	}
}

// addDialog counts a dialog; a trial of a task that was already counted
// is ErrCorrupt.
func (a *summaryAcc) addDialog(d *DialogRow, goldDigest []byte) error {
	if d.Trial != nil {
		k := keyOf(d.DialogID, d.Trial)
		if a.trialSeen[k] {
			return corrupt(DialogsFile, noRow, "trial", fmt.Sprintf("dialog %q trial %d appears twice", d.DialogID, *d.Trial), nil)
		}
		a.trialSeen[k] = true
		a.outcomes = append(a.outcomes, trials.Outcome{Task: d.DialogID, Trial: int(*d.Trial), Pass: d.TestPass})
	}
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
	return nil
}

// summary builds the Summary; header fields (Input, Scorer, Thresholds,
// Settings, Timings) are the caller's.
func (a *summaryAcc) summary() *Summary {
	s := &Summary{
		Version:        SummaryVersion,
		MetricVersion:  metrics.Version,
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
	if a.judged {
		j := a.judge
		if j.Semantic > 0 {
			j.EscalatedShare = float64(j.Escalated) / float64(j.Semantic)
		}
		s.Judge = &j
	}
	if p, sp, ok := correlations(a.lat, a.latScore); ok {
		s.LatencyCorrelation = &LatencyCorrelation{Dialogs: len(a.lat), Pearson: p, Spearman: sp}
	}
	if len(a.outcomes) > 0 {
		t := trials.Summarize(trials.PerTask(a.outcomes))
		s.Trials = &t
	}
	if a.readOnly.Turns > 0 {
		r := a.readOnly
		s.ReadOnly = &r
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

// ReadSummary reads and checks the summary.json of the local run directory
// dir. A missing file is ErrIncomplete (naming the checkpoint of an
// unfinished run when there is one); a file that does not decode, or of
// another version, is ErrCorrupt.
func ReadSummary(dir string) (*Summary, error) {
	path := filepath.Join(dir, SummaryFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, cerr := os.Stat(filepath.Join(dir, CheckpointDir)); cerr == nil {
			return nil, incomplete(dir, SummaryFile, "the run is unfinished: it has a checkpoint but no summary.json",
				"finish it: rerun the same 'aem run' command with --resume", err)
		}
		return nil, incomplete(dir, SummaryFile, "no summary.json: the run did not finish, or this is not a run directory",
			"pass a directory written by 'aem run -o DIR', or rerun 'aem run'", err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var s Summary
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return nil, corrupt(path, noRow, "", "not a valid summary.json", err)
	}
	if s.Version != SummaryVersion {
		return nil, corrupt(path, noRow, "version", fmt.Sprintf("version %d, this aem reads version %d", s.Version, SummaryVersion), nil)
	}
	if s.MetricVersion == 0 {
		s.MetricVersion = metrics.VersionUnrecorded
	}
	for old, name := range timingRenamed {
		if v, ok := s.Timings[old]; ok {
			if _, now := s.Timings[name]; !now {
				s.Timings[name] = v
			}
			delete(s.Timings, old)
		}
	}
	return &s, nil
}

// WriteSummary writes dir/summary.json atomically. Write it after the data
// files are committed: its presence marks the run directory complete.
func WriteSummary(dir string, s *Summary, wrap Wrap) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", SummaryFile, err)
	}
	return wrap.WriteFile(filepath.Join(dir, SummaryFile), append(data, '\n'))
}

// KindCount is EmbeddingUsage.ValueKinds' entry for one kind.
type KindCount struct {
	Decided int64 `json:"decided"` // by the kind's rules, no scorer call
	Scored  int64 `json:"scored"`  // by a scorer (embedding, judge, composite)
}
