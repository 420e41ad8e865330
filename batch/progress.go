package batch

import "time"

// Stats is a snapshot of a run's progress. Counts include the dialogs and
// turns restored from a checkpoint (see Resumed*).
type Stats struct {
	Elapsed     time.Duration
	RowsRead    int64 // input rows (turns) read, including skipped ones
	ResumedRows int64 // of RowsRead, the rows of dialogs restored from the checkpoint (read again, not scored)
	// RowsCommitted is where the input stands: the rows read up to the
	// last dialog committed (resumed rows, and other shards' rows before
	// it, included); 0 until this process commits one.
	RowsCommitted  int64
	DialogsDone    int64 // dialogs committed in input order
	TurnsDone      int64 // scored turns committed
	ResumedDialogs int64 // dialogs restored from the checkpoint at start
	ResumedTurns   int64
	Checkpoints    int64         // checkpoint parts committed by this process
	ScorerPairs    int64         // comparisons sent to the scorer (deduplicated per chunk by kind, field, context and strings)
	ScorerTime     time.Duration // time inside Scorer.Compare, summed over workers
	CacheHits      int64         // from Options.CacheStats, when set
	CacheMisses    int64
}

// TurnsPerSecond is the rate of this process: turns committed since it
// started (resumed turns excluded) per second.
func (s Stats) TurnsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.TurnsDone-s.ResumedTurns) / s.Elapsed.Seconds()
}

// CacheHitRate is hits/(hits+misses), or 0 before any lookup.
func (s Stats) CacheHitRate() float64 {
	if n := s.CacheHits + s.CacheMisses; n > 0 {
		return float64(s.CacheHits) / float64(n)
	}
	return 0
}

// ETA estimates the time left from the share of input rows read so far;
// ok is false when totalRows is unknown (< 0) or nothing was read yet.
// Rows are read ahead of scoring by a bounded window, so the estimate is
// slightly optimistic; for a shard it counts all rows, which a shard reads.
func (s Stats) ETA(totalRows int64) (d time.Duration, ok bool) {
	if totalRows <= 0 || s.RowsRead <= 0 || s.Elapsed <= 0 {
		return 0, false
	}
	left := float64(totalRows-s.RowsRead) / float64(s.RowsRead)
	return time.Duration(left * float64(s.Elapsed)), true
}

// Progress receives progress reports from Run. Start is called once before
// any Update; Update after each committed chunk; Done once at the end,
// whether the run succeeded or not. Calls never overlap (Update runs on the
// writer goroutine, Start and Done on Run's) and must return quickly: a
// slow Progress slows the run. Package batch never prints; the CLI renders
// these reports.
type Progress interface {
	// Start announces the run; totalRows is the number of input rows (turns,
	// all shards) or -1 when unknown.
	Start(totalRows int64)
	// Update reports the cumulative state.
	Update(Stats)
	// Done reports the final state and the run's error (nil on success).
	Done(s Stats, err error)
}

// NoopProgress ignores every report.
type NoopProgress struct{}

// Start does nothing.
func (NoopProgress) Start(int64) {}

// Update does nothing.
func (NoopProgress) Update(Stats) {}

// Done does nothing.
func (NoopProgress) Done(Stats, error) {}
