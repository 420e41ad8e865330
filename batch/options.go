package batch

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
	"gocloud.dev/blob"
)

// Defaults used by Options when a field is zero.
const (
	DefaultChunkTurns         = 512
	DefaultCheckpointTurns    = 20_000
	DefaultCheckpointInterval = 30 * time.Second
)

// JudgeMeter is an LLM judge's account of what it paid.
type JudgeMeter interface {
	// Usage is what the judge did in this invocation of the run
	// (Invocations is not set).
	Usage() rundir.JudgeUsage
	// Carry charges what earlier invocations of a resumed run paid
	// against the budget.
	Carry(earlier rundir.JudgeUsage)
}

// Options configures Run. Input, OutDir and Scorer are required; every
// other zero field takes a documented default. Options are passed by value
// and never modified by Run.
type Options struct {
	// Input is the golden dataset: a local path, a file:// URL or a
	// gocloud.dev/blob URL (s3://bucket/key, gs://bucket/key, ...). Remote
	// input is downloaded to WorkDir first (Parquet needs random access).
	Input string
	// OutDir is the run directory: a local path, a file:// URL or a blob
	// URL prefix. Remote output is staged in WorkDir and uploaded at the end,
	// summary.json last.
	OutDir string
	// Workers is the number of scoring goroutines; 0 means GOMAXPROCS.
	Workers int
	// Metric decides the turns' verdicts: built once from the metric configuration by
	// metrics.New, which validates it (metrics.Default() if nil).
	Metric *metrics.Metric
	// Scorer scores string similarity; its ID is recorded in every output.
	Scorer metrics.Scorer
	// ReadOptions configures the golden reader (column mapping, spill dir).
	ReadOptions golden.ReadOptions
	// Resume continues the unfinished run checkpointed in OutDir. Without
	// it, a checkpoint in OutDir is an error (ErrCheckpointExists).
	Resume bool
	// Force writes into an OutDir that is not empty and not a run
	// directory, and removes the files derived from an earlier run there
	// (report.html, review.jsonl, sweep/), which are refused without it
	// (rundir.ClaimDir).
	Force bool
	// Inputs are the local files the run reads besides Input (thresholds,
	// tool definitions, predictions): like Input, never written over.
	Inputs []string
	// Writes are the files the caller writes after the run (a report, an
	// OpenTelemetry file): no input may be one of them, and a derived
	// file among them is not stale.
	Writes []string
	// Output, when set, is OutDir already claimed by ClaimOutput with these
	// options: Run writes into it and leaves releasing it to the caller.
	// Nil: Run claims OutDir itself.
	Output *rundir.Claim
	// Shard restricts the run to one shard of the dialogs; the zero value
	// (or Count 1) runs them all.
	Shard rundir.Shard
	// Progress receives progress reports; nil means NoopProgress.
	Progress Progress
	// CacheStats, when set, is polled for the scorer's cache counters,
	// reported in Stats.
	CacheStats func() (hits, misses int64)
	// Judge, when set, accounts for an LLM judge's spending: summary.json
	// (Summary.Judge.Usage) and the checkpoint hold what the run paid over
	// all its invocations, and a resumed run's budget counts the earlier
	// ones.
	Judge JudgeMeter
	// EmbeddingUsage, when set, reports what the embedding model did in
	// this run (strings, layout, model time); Run adds the turns scored
	// and the comparisons decided without a scorer, and writes it to
	// summary.json (Summary.Embedding).
	EmbeddingUsage func() rundir.EmbeddingUsage

	// RowGroupSize is the number of rows per row group of turns.parquet and
	// dialogs.parquet (rundir.DefaultRowGroupSize if 0).
	RowGroupSize int
	// ChunkTurns is roughly how many turns a worker scores per scorer call
	// (DefaultChunkTurns if 0). Chunks hold whole dialogs.
	ChunkTurns int
	// CheckpointTurns and CheckpointInterval say how often a checkpoint
	// part is committed: after this many turns or this much time, whichever
	// comes first (defaults DefaultCheckpointTurns, DefaultCheckpointInterval).
	CheckpointTurns    int
	CheckpointInterval time.Duration
	// WorkDir holds downloaded inputs and staged remote outputs ("" means
	// os.TempDir()).
	WorkDir string
	// URLMux opens blob URLs; nil means location.NewURLMux with aem's
	// retry policy and no log.
	URLMux *blob.URLMux

	// Source, when set, is read instead of opening Input (for callers that
	// already hold a reader, and tests); SourceID then stands for the input
	// fingerprint checked on resume. Run closes Source.
	Source   Source
	SourceID string

	// Gold is what the run learns from the whole golden dataset before
	// scoring (ReadGold): the vocabulary that weighs the clauses of gold
	// replies (see metrics.Metric.WithVocabulary; the Metric's own, when it
	// has one, wins over Gold's nil Vocabulary) and the gold calls'
	// conflicts with their tool definitions. Nil: Run reads it from Input
	// (the whole dataset, whatever the shard), so a Source needs Input to
	// be the local golden dataset it reads, or Gold.
	Gold *Gold
	// StrictGold refuses a golden dataset whose gold calls break their tool
	// definitions (a *GoldConflictsError listing every one, exit status 3)
	// before anything is scored. Without it the gold wins for those fields
	// (metrics.GoldConflicts) and summary.json lists the conflicts.
	StrictGold bool
}

// ShardFromEnv reads the shard of a Kubernetes Indexed Job:
// JOB_COMPLETION_INDEX (set by Kubernetes) and JOB_COMPLETIONS (which the
// Job manifest must set to spec.completions). ok is false when
// JOB_COMPLETION_INDEX is unset.
func ShardFromEnv() (s rundir.Shard, ok bool, err error) {
	return shardFromLookup(os.LookupEnv)
}

func shardFromLookup(lookup func(string) (string, bool)) (rundir.Shard, bool, error) {
	idx, ok := lookup("JOB_COMPLETION_INDEX")
	if !ok || strings.TrimSpace(idx) == "" {
		return rundir.Shard{}, false, nil
	}
	cnt, ok := lookup("JOB_COMPLETIONS")
	if !ok || strings.TrimSpace(cnt) == "" {
		return rundir.Shard{}, true, fmt.Errorf("%w: JOB_COMPLETION_INDEX is set but JOB_COMPLETIONS is not: set it to the Job's spec.completions", ErrInvalidOptions)
	}
	s, err := rundir.ParseShard(idx + "/" + cnt)
	if err != nil {
		return rundir.Shard{}, true, fmt.Errorf("%w: from JOB_COMPLETION_INDEX/JOB_COMPLETIONS: %w", ErrInvalidOptions, err)
	}
	return s, true, nil
}

// Validate reports every problem with the options at once.
func (o Options) Validate() error {
	var errs []error
	if o.Input == "" && o.Source == nil {
		errs = append(errs, errors.New("no input dataset"))
	}
	if o.OutDir == "" {
		errs = append(errs, errors.New("no output directory"))
	}
	if o.Scorer == nil {
		errs = append(errs, errors.New("no scorer"))
	}
	if o.Workers < 0 {
		errs = append(errs, fmt.Errorf("workers %d < 0", o.Workers))
	}
	for name, v := range map[string]int{"row group size": o.RowGroupSize, "chunk turns": o.ChunkTurns, "checkpoint turns": o.CheckpointTurns} {
		if v < 0 {
			errs = append(errs, fmt.Errorf("%s %d < 0", name, v))
		}
	}
	if o.CheckpointInterval < 0 {
		errs = append(errs, fmt.Errorf("checkpoint interval %s < 0", o.CheckpointInterval))
	}
	if err := o.Shard.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.goldProblem(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	return nil
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Workers == 0 {
		o.Workers = defaultWorkers()
	}
	if o.Metric == nil {
		o.Metric = metrics.Default()
	}
	if o.Progress == nil {
		o.Progress = NoopProgress{}
	}
	if o.RowGroupSize == 0 {
		o.RowGroupSize = rundir.DefaultRowGroupSize
	}
	if o.ChunkTurns == 0 {
		o.ChunkTurns = DefaultChunkTurns
	}
	if o.CheckpointTurns == 0 {
		o.CheckpointTurns = DefaultCheckpointTurns
	}
	if o.CheckpointInterval == 0 {
		o.CheckpointInterval = DefaultCheckpointInterval
	}
	if o.WorkDir == "" {
		o.WorkDir = os.TempDir()
	}
	if o.URLMux == nil {
		o.URLMux = location.NewURLMux(location.MuxOptions{})
	}
	return o
}
