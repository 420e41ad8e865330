package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"time"

	"gocloud.dev/blob"
)

// MergeOptions configures Merge; the zero value is fine.
type MergeOptions struct {
	// URLMux opens blob URLs; nil means blob.DefaultURLMux().
	URLMux *blob.URLMux
	// WorkDir receives downloads and the staged output for remote
	// locations ("" = os.TempDir()).
	WorkDir string
	// RowGroupSize of the merged files (DefaultRowGroupSize if 0); use the
	// value the shards were run with to get the bytes of a single run.
	RowGroupSize int
}

// Merge combines the outputs of the shards of one sharded run (each run
// with Options.Shard i/n, all n given in any order) into outDir, writing
// the turns.parquet, dialogs.parquet and summary.json a single unsharded
// run gives (byte-identical Parquet files; the same summary but for its
// timings). Shard directories and outDir may be blob URLs. It returns
// ErrShardMismatch when the shards are not one complete set of the same
// run, and ErrIncompleteRun/ErrCorruptOutput for a bad shard directory.
func Merge(ctx context.Context, outDir string, shardDirs ...string) (*Summary, error) {
	return MergeWith(ctx, MergeOptions{}, outDir, shardDirs...)
}

// MergeWith is Merge with options.
func MergeWith(ctx context.Context, opts MergeOptions, outDir string, shardDirs ...string) (_ *Summary, err error) {
	start := time.Now()
	if opts.URLMux == nil {
		opts.URLMux = blob.DefaultURLMux()
	}
	if opts.WorkDir == "" {
		opts.WorkDir = os.TempDir()
	}
	if opts.RowGroupSize <= 0 {
		opts.RowGroupSize = DefaultRowGroupSize
	}
	if len(shardDirs) == 0 {
		return nil, fmt.Errorf("%w: no shard directories to merge", ErrShardMismatch)
	}
	runs := make([]*RunDir, 0, len(shardDirs))
	defer func() {
		for _, r := range runs {
			r.Close()
		}
	}()
	for _, d := range shardDirs {
		r, err := ReadRunWith(ctx, d, ReadRunOptions{URLMux: opts.URLMux, WorkDir: opts.WorkDir})
		if err != nil {
			return nil, fmt.Errorf("merging shard %s: %w", d, err)
		}
		runs = append(runs, r)
	}
	if err := checkShardSet(runs); err != nil {
		return nil, err
	}

	outLoc, err := parseLocation(outDir)
	if err != nil {
		return nil, err
	}
	dir := outLoc.local
	if outLoc.remote() {
		dir = stagingDir(opts.WorkDir, outLoc)
		defer os.RemoveAll(dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	if err := removeOutputs(dir); err != nil {
		return nil, err
	}

	var streams []*dialogStream
	defer func() {
		for _, s := range streams {
			s.Close()
		}
	}()
	var ts *turnSchema
	for _, r := range runs {
		s, err := openDialogStream(filepath.Join(r.dir, TurnsFile), filepath.Join(r.dir, DialogsFile), filepath.Join(r.dir, OrdinalsFile))
		if err != nil {
			return nil, fmt.Errorf("merging shard %s: %w", r.Location, err)
		}
		streams = append(streams, s)
		schema := s.files[0].pf.Schema()
		if ts == nil {
			ts = &turnSchema{schema: turnRowSchema, baseLeafs: len(turnRowSchema.Columns())}
			if len(schema.Columns()) > ts.baseLeafs {
				ts.schema, ts.extras = schema, true
			}
		} else if schemaString(schema) != schemaString(ts.schema) && !(len(schema.Columns()) == ts.baseLeafs && !ts.extras) {
			return nil, fmt.Errorf("%w: %s has other extra columns than %s", ErrShardMismatch, r.Location, runs[0].Location)
		}
	}

	a, err := newAssembler(dir, ts, opts.RowGroupSize, false, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			a.abort()
		}
	}()
	heads := make([]*bundle, len(streams))
	for i, s := range streams {
		if heads[i], err = nextBundle(s); err != nil {
			return nil, err
		}
	}
	last := int64(-1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		best := -1
		for i, h := range heads {
			if h != nil && (best < 0 || h.idx.InputOrdinal < heads[best].idx.InputOrdinal) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		b := heads[best]
		if b.idx.InputOrdinal <= last {
			return nil, fmt.Errorf("%w: input ordinal %d of dialog %q appears twice or out of order (in %s)", ErrShardMismatch, b.idx.InputOrdinal, b.idx.DialogID, runs[best].Location)
		}
		last = b.idx.InputOrdinal
		if err := a.add(b); err != nil {
			return nil, err
		}
		if heads[best], err = nextBundle(streams[best]); err != nil {
			return nil, err
		}
	}
	sum := a.acc.summary()
	first := runs[0].Summary
	sum.Input, sum.Scorer, sum.Thresholds = first.Input, first.Scorer, first.Thresholds
	sum.Settings = maps.Clone(first.Settings)
	delete(sum.Settings, "shard")
	if err := a.commitData(); err != nil {
		return nil, err
	}
	sum.Timings["merge"] = time.Since(start).Seconds()
	sum.Timings["total"] = sum.Timings["merge"]
	if err := writeSummary(dir, sum, nil); err != nil {
		return nil, err
	}
	if outLoc.remote() {
		if err := publishRemote(ctx, Options{URLMux: opts.URLMux}, outLoc, dir); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

func nextBundle(s *dialogStream) (*bundle, error) {
	b, err := s.Next()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	return b, err
}

// checkShardSet verifies that runs are shards 0..n-1 of one run.
func checkShardSet(runs []*RunDir) error {
	n := len(runs)
	seen := make([]string, n)
	first := runs[0]
	firstSettings := maps.Clone(first.Summary.Settings)
	delete(firstSettings, "shard")
	firstThr, _ := json.Marshal(first.Summary.Thresholds)
	for _, r := range runs {
		if r.Shard == nil {
			return fmt.Errorf("%w: %s is not the output of a sharded run (no settings.shard in %s)", ErrShardMismatch, r.Location, SummaryFile)
		}
		if r.Shard.Count != n {
			return fmt.Errorf("%w: %s is shard %s, but %d shard directories were given", ErrShardMismatch, r.Location, r.Shard, n)
		}
		if prev := seen[r.Shard.Index]; prev != "" {
			return fmt.Errorf("%w: %s and %s are both shard %s", ErrShardMismatch, prev, r.Location, r.Shard)
		}
		seen[r.Shard.Index] = r.Location
		s := r.Summary
		settings := maps.Clone(s.Settings)
		delete(settings, "shard")
		thr, _ := json.Marshal(s.Thresholds)
		switch {
		case s.Input != first.Summary.Input:
			return fmt.Errorf("%w: %s scored input %q, %s scored %q", ErrShardMismatch, r.Location, s.Input, first.Location, first.Summary.Input)
		case s.Scorer != first.Summary.Scorer:
			return fmt.Errorf("%w: %s used scorer %q, %s used %q", ErrShardMismatch, r.Location, s.Scorer, first.Location, first.Summary.Scorer)
		case string(thr) != string(firstThr):
			return fmt.Errorf("%w: %s used other thresholds than %s", ErrShardMismatch, r.Location, first.Location)
		case !maps.Equal(settings, firstSettings):
			return fmt.Errorf("%w: %s used other settings than %s", ErrShardMismatch, r.Location, first.Location)
		}
		if _, err := os.Stat(filepath.Join(r.dir, OrdinalsFile)); err != nil {
			return fmt.Errorf("%w: %s has no %s", ErrIncompleteRun, r.Location, OrdinalsFile)
		}
	}
	return nil
}
