package rundir

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

	"github.com/aem-dev/aem/internal/location"
)

// MergeOptions configures Merge; the zero value is fine.
type MergeOptions struct {
	// URLMux opens blob URLs; nil means location.NewURLMux with aem's
	// retry policy and no log.
	URLMux *blob.URLMux
	// WorkDir receives downloads and the staged output for remote
	// locations ("" = os.TempDir()).
	WorkDir string
	// RowGroupSize of the merged files (DefaultRowGroupSize if 0); use the
	// value the shards were run with to get the bytes of a single run.
	RowGroupSize int
	// Force writes into an output directory that is not empty and not a
	// run's (ClaimOptions.Force).
	Force bool
}

// Merge combines the outputs of the shards of one sharded run (each run
// with --shard i/n, all n given in any order) into outDir, writing the
// turns.parquet, dialogs.parquet and summary.json a single unsharded run
// gives (byte-identical Parquet files; the same summary but for its
// timings). Shard directories and outDir may be blob URLs. Shards that are
// not one complete set of the same run are ErrShardMismatch; a shard
// directory that Open refuses is its error.
func Merge(ctx context.Context, opts MergeOptions, outDir string, shardDirs ...string) (_ *Summary, err error) {
	start := time.Now()
	if opts.URLMux == nil {
		opts.URLMux = location.NewURLMux(location.MuxOptions{})
	}
	if opts.WorkDir == "" {
		opts.WorkDir = os.TempDir()
	}
	if len(shardDirs) == 0 {
		return nil, mismatch(outDir, "no shard directories to merge")
	}
	runs := make([]*Run, 0, len(shardDirs))
	defer func() {
		for _, r := range runs {
			r.Close()
		}
	}()
	for _, d := range shardDirs {
		r, err := Open(ctx, d, OpenOptions{URLMux: opts.URLMux, WorkDir: opts.WorkDir})
		if err != nil {
			return nil, fmt.Errorf("merging shard %s: %w", d, err)
		}
		runs = append(runs, r)
	}
	if err := checkShardSet(runs); err != nil {
		return nil, err
	}

	outLoc, err := location.Parse(outDir)
	if err != nil {
		return nil, err
	}
	var shards []string // the local shard directories: inputs, never written
	for _, r := range runs {
		if !location.IsURL(r.Location) {
			shards = append(shards, r.dir)
		}
	}
	claim, err := claimMerge(ctx, opts, outLoc, shards)
	if err != nil {
		return nil, err
	}
	defer func() { claim.Release(err != nil) }()
	dir := claim.Dir()
	if outLoc.Remote() {
		defer os.RemoveAll(dir)
	}
	if err := RemoveOutputs(dir); err != nil {
		return nil, err
	}

	var readers []*DialogReader
	defer func() {
		for _, s := range readers {
			s.Close()
		}
	}()
	var ts *TurnSchema
	for _, r := range runs {
		s, err := OpenDialogs(FilesIn(r.dir))
		if err != nil {
			return nil, fmt.Errorf("merging shard %s: %w", r.Location, r.relocate(err, TurnsFile))
		}
		readers = append(readers, s)
		rts := s.TurnSchema()
		if ts == nil {
			ts = rts
		} else if rts.String() != ts.String() {
			return nil, mismatch(r.Location, fmt.Sprintf("other extra columns than %s", runs[0].Location))
		}
	}

	w, err := Create(FilesIn(dir), WriterOptions{Schema: ts, RowGroupSize: opts.RowGroupSize})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	heads := make([]*Dialog, len(readers))
	for i, s := range readers {
		if heads[i], err = nextDialog(s); err != nil {
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
			if h != nil && (best < 0 || h.Ordinal.InputOrdinal < heads[best].Ordinal.InputOrdinal) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		d := heads[best]
		if d.Ordinal.InputOrdinal <= last {
			return nil, mismatch(runs[best].Location, fmt.Sprintf("input ordinal %d of dialog %q appears twice or out of order", d.Ordinal.InputOrdinal, d.Ordinal.DialogID))
		}
		last = d.Ordinal.InputOrdinal
		if err := w.Add(d); err != nil {
			return nil, err
		}
		if heads[best], err = nextDialog(readers[best]); err != nil {
			return nil, err
		}
	}
	sum := w.Summary()
	first := runs[0].Summary
	sum.Input, sum.Scorer, sum.Thresholds, sum.MetricVersion = first.Input, first.Scorer, first.Thresholds, first.MetricVersion
	sum.Settings = maps.Clone(first.Settings)
	delete(sum.Settings, "shard")
	parts := make([]*GoldConflicts, len(runs))
	for i, r := range runs {
		parts[i] = r.Summary.GoldConflicts
	}
	sum.GoldConflicts = mergeConflicts(parts...)
	if err := w.CommitData(); err != nil {
		return nil, err
	}
	sum.Timings[TimingMerge] = time.Since(start).Seconds()
	sum.Timings[TimingTotal] = sum.Timings[TimingMerge]
	if err := WriteSummary(dir, sum, nil); err != nil {
		return nil, err
	}
	if outLoc.Remote() {
		if err := Publish(ctx, opts.URLMux, outLoc, dir); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// claimMerge claims Merge's output directory as a run's output is
// (ClaimDir; CheckRemote and the staging directory for a URL).
func claimMerge(ctx context.Context, opts MergeOptions, out location.Location, shards []string) (*Claim, error) {
	if !out.Remote() {
		return ClaimDir(out.Local, ClaimOptions{Force: opts.Force, Inputs: shards})
	}
	if err := CheckRemote(ctx, opts.URLMux, out, "", opts.Force); err != nil {
		return nil, err
	}
	return ClaimDir(location.StagingDir(opts.WorkDir, out), ClaimOptions{Force: true})
}

func nextDialog(r *DialogReader) (*Dialog, error) {
	d, err := r.Next()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	return d, err
}

// checkShardSet verifies that runs are shards 0..n-1 of one run.
func checkShardSet(runs []*Run) error {
	n := len(runs)
	seen := make([]string, n)
	first := runs[0]
	firstSettings := maps.Clone(first.Summary.Settings)
	delete(firstSettings, "shard")
	firstThr, _ := json.Marshal(first.Summary.Thresholds)
	for _, r := range runs {
		if r.Shard == nil {
			return mismatch(r.Location, fmt.Sprintf("not the output of a sharded run (no settings.shard in %s)", SummaryFile))
		}
		if r.Shard.Count != n {
			return mismatch(r.Location, fmt.Sprintf("shard %s, but %d shard directories were given", r.Shard, n))
		}
		if prev := seen[r.Shard.Index]; prev != "" {
			return mismatch(r.Location, fmt.Sprintf("%s and %s are both shard %s", prev, r.Location, r.Shard))
		}
		seen[r.Shard.Index] = r.Location
		s := r.Summary
		settings := maps.Clone(s.Settings)
		delete(settings, "shard")
		thr, _ := json.Marshal(s.Thresholds)
		switch {
		case s.Input != first.Summary.Input:
			return mismatch(r.Location, fmt.Sprintf("scored input %q, %s scored %q", s.Input, first.Location, first.Summary.Input))
		case s.MetricVersion != first.Summary.MetricVersion:
			return mismatch(r.Location, fmt.Sprintf("was scored under metric version %d, %s under %d: rescore the shards with one aem", s.MetricVersion, first.Location, first.Summary.MetricVersion))
		case s.Scorer != first.Summary.Scorer:
			return mismatch(r.Location, fmt.Sprintf("used scorer %q, %s used %q", s.Scorer, first.Location, first.Summary.Scorer))
		case string(thr) != string(firstThr):
			return mismatch(r.Location, "used other thresholds than "+first.Location)
		case !maps.Equal(settings, firstSettings):
			return mismatch(r.Location, "used other settings than "+first.Location)
		}
	}
	return nil
}

// Publish uploads the staged run directory dir to the blob location dst,
// summary.json last (so a reader never sees a complete run with mixed
// files), after deleting the run files already there, and removes dir.
func Publish(ctx context.Context, mux *blob.URLMux, dst location.Location, dir string) error {
	names := []string{SummaryFile, TurnsFile, DialogsFile, OrdinalsFile}
	if err := location.Delete(ctx, mux, dst, names); err != nil {
		return fmt.Errorf("%w: clearing %s: %w", location.ErrUnreadable, dst.Raw, err)
	}
	var files []string
	for _, n := range []string{TurnsFile, DialogsFile, OrdinalsFile, SummaryFile} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			files = append(files, filepath.Join(dir, n))
		}
	}
	if err := location.Upload(ctx, mux, dst, files); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}
