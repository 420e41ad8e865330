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
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/rundir"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/metrics"
	"github.com/parquet-go/parquet-go"
	"gocloud.dev/blob"
	"golang.org/x/sync/errgroup"
)

// Source yields the dialogs of a golden dataset in input order;
// *golden.Reader implements it.
type Source interface {
	// Next returns the next dialog, or io.EOF after the last.
	Next(ctx context.Context) (golden.Dialog, error)
	// Extras describes the carried-through extra columns.
	Extras() []golden.ExtraColumn
	Close() error
}

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// chunk is a run of consecutive dialogs scored by one worker with one
// scorer call.
type chunk struct {
	seq     int64
	items   []chunkItem
	decided []rundir.Dialog
	// end is the input rows read up to the chunk's last dialog (rows of
	// other shards and resumed dialogs included): where the input stands
	// once the chunk is committed (Stats.RowsCommitted).
	end int64
}

type chunkItem struct {
	ordinal int64
	d       golden.Dialog
}

// runState carries what the stages of one Run share.
type runState struct {
	o        Options
	ts       *rundir.TurnSchema
	ckptDir  string
	m        *manifest
	remote   *remoteCheckpoint // the checkpoint's copy in the store (nil: local output)
	scorerID string
	final    *rundir.Writer

	rowsRead    atomic.Int64
	rowsResumed atomic.Int64 // of rowsRead, those of dialogs the checkpoint already holds
	scorerPairs atomic.Int64
	scorerNanos atomic.Int64
	unscored    unscoredCounts
	metricNanos atomic.Int64      // time in the metric besides the scorer (summary.json: timings_seconds.metric)
	judgeBefore rundir.JudgeUsage // paid by the earlier invocations of a resumed run
	start       time.Time

	wrap rundir.Wrap // tests: fault injection
}

// Run evaluates the golden dataset opts.Input with opts.Scorer and writes
// the run directory opts.OutDir (see the package documentation for the
// files, checkpoints, shards and URLs). It returns the summary written to
// summary.json. On error nothing in OutDir looks complete: the final files
// are only renamed into place at the end; committed checkpoint parts stay
// for a later Run with Resume (a run that failed before its first
// checkpoint leaves no checkpoint, unless it paid an LLM judge: the
// checkpoint then keeps the account, Options.Judge). A cancelled ctx
// stops the run at the next dialog boundary with ctx's error, resumable.
func Run(ctx context.Context, opts Options) (*rundir.Summary, error) {
	return run(ctx, opts, nil)
}

func run(ctx context.Context, opts Options, wrap rundir.Wrap) (sum *rundir.Summary, err error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	st := &runState{o: o, start: time.Now(), scorerID: o.Scorer.ID(), wrap: wrap}
	var stats Stats
	defer func() {
		st.fillStats(&stats)
		o.Progress.Done(stats, err)
	}()

	outLoc, err := location.Parse(o.OutDir)
	if err != nil {
		return nil, err
	}
	claim := o.Output
	if claim == nil {
		if claim, err = claimOutput(ctx, o, outLoc); err != nil {
			return nil, err
		}
		defer func() { claim.Release(err != nil) }()
	}
	outDir := claim.Dir()

	src, inputFP, inputPath, totalRows, cleanup, err := openSource(ctx, o)
	if err != nil {
		o.Progress.Start(-1)
		return nil, err
	}
	defer cleanup()
	defer src.Close()
	gold, err := o.gold(ctx, inputPath)
	if err != nil {
		o.Progress.Start(-1)
		return nil, err
	}
	conflicts := o.conflictsOf(gold)
	if o.StrictGold && len(conflicts) > 0 {
		o.Progress.Start(-1)
		return nil, &GoldConflictsError{Conflicts: conflicts}
	}
	o.Metric = o.Metric.WithVocabulary(gold.Vocabulary)
	st.o = o
	o.Progress.Start(totalRows)

	if st.ts, err = rundir.NewTurnSchema(src.Extras()); err != nil {
		return nil, err
	}
	thr, err := json.Marshal(o.Metric.Config().Thresholds)
	if err != nil {
		return nil, err
	}
	fp := fingerprint{Input: inputFP, MetricVersion: metrics.Version, Scorer: st.scorerID, Thresholds: string(thr), Settings: settingsOf(o.Metric.Config(), o), TurnsSchema: st.ts.String()}
	if o.Shard.Enabled() {
		fp.Shard = o.Shard.String()
	}

	// Checkpoint: start a new one or pick up the existing one (for a
	// remote output, possibly the copy in the store).
	st.ckptDir = filepath.Join(outDir, rundir.CheckpointDir)
	if st.remote = newRemoteCheckpoint(o.URLMux, outLoc); st.remote != nil {
		if err := st.remote.settle(ctx, st.ckptDir, o.WorkDir, o.OutDir, o.Resume); err != nil {
			return nil, err
		}
	}
	m, found, err := loadManifest(st.ckptDir)
	switch {
	case err != nil:
		return nil, err
	case found && !o.Resume:
		return nil, fmt.Errorf("%w in %s: pass --resume to continue it, or remove %s to start over", ErrCheckpointExists, o.OutDir, st.ckptDir)
	case found:
		if err := compareFingerprints(m.Fingerprint, fp); err != nil {
			return nil, fmt.Errorf("%w: %s: %w (remove %s to start over)", ErrResumeMismatch, o.OutDir, err, st.ckptDir)
		}
		if err := removeOrphans(st.ckptDir, m); err != nil {
			return nil, err
		}
	default:
		m = &manifest{Version: 1, Fingerprint: fp}
		if err := rundir.RemoveOutputs(outDir); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(st.ckptDir, 0o755); err != nil {
			return nil, fmt.Errorf("creating checkpoint: %w", err)
		}
		if err := saveManifest(st.ckptDir, m, wrap); err != nil {
			return nil, err
		}
	}
	st.m = m
	if found && m.JudgeUsage != nil && o.Judge != nil {
		st.judgeBefore = *m.JudgeUsage
		o.Judge.Carry(st.judgeBefore)
	}
	defer func() {
		if err != nil {
			err = st.keepCheckpoint(err)
		}
	}()
	if found {
		if err := rundir.RemoveOutputs(outDir); err != nil {
			return nil, err
		}
	}

	// The final files are written as dialogs are committed; on resume they
	// start with the dialogs of the checkpoint parts.
	if st.final, err = rundir.Create(rundir.FilesIn(outDir),
		rundir.WriterOptions{Schema: st.ts, RowGroupSize: o.RowGroupSize, Ordinals: o.Shard.Enabled(), Wrap: wrap}); err != nil {
		return nil, err
	}
	defer st.final.Abort() // no-op once committed
	replayStart := time.Now()
	if err := st.replay(ctx); err != nil {
		return nil, err
	}
	replayTime := time.Since(replayStart)

	stats.ResumedDialogs, stats.ResumedTurns = m.totals()
	stats.DialogsDone, stats.TurnsDone = stats.ResumedDialogs, stats.ResumedTurns
	if err := st.pipeline(ctx, src, &stats); err != nil {
		return nil, err
	}
	src.Close()

	sum = st.final.Summary()
	st.header(sum)
	if sum.GoldConflicts, err = rundir.NewGoldConflicts(conflicts); err != nil {
		return nil, err
	}
	// Data files first; summary.json last.
	commitStart := time.Now()
	if err := st.final.CommitData(); err != nil {
		return nil, err
	}
	if sum.Judge != nil {
		sum.Judge.Usage = st.judgeUsage()
	}
	if o.EmbeddingUsage != nil {
		sum.Embedding = st.embeddingUsage(stats.TurnsDone - stats.ResumedTurns)
	}
	sum.Timings[rundir.TimingScorer] = time.Duration(st.scorerNanos.Load()).Seconds()
	sum.Timings[rundir.TimingMetric] = time.Duration(st.metricNanos.Load()).Seconds()
	sum.Timings[rundir.TimingReplay] = replayTime.Seconds()
	sum.Timings[rundir.TimingCommit] = time.Since(commitStart).Seconds()
	sum.Timings[rundir.TimingTotal] = time.Since(st.start).Seconds()
	if err := rundir.WriteSummary(outDir, sum, wrap); err != nil {
		// Without summary.json the data files are not a run: remove them;
		// the checkpoint stays, so --resume replays it and finishes.
		return nil, errors.Join(err, rundir.RemoveOutputs(outDir))
	}
	if outLoc.Remote() {
		// The staged directory keeps its checkpoint until the upload is
		// done, so a run interrupted while uploading resumes by replaying
		// it (--resume) instead of scoring everything again. Publish
		// removes the staged directory, checkpoint included.
		if err := rundir.Publish(ctx, o.URLMux, outLoc, outDir); err != nil {
			return nil, fmt.Errorf("publishing the run to %s: %w", o.OutDir, err)
		}
		if err := st.remote.remove(ctx); err != nil {
			return nil, err
		}
	} else {
		if err := os.RemoveAll(st.ckptDir); err != nil {
			return nil, fmt.Errorf("removing checkpoint: %w", err)
		}
		if err := safefile.SyncDir(outDir); err != nil {
			return nil, err
		}
	}
	stats.Elapsed = time.Since(st.start)
	return sum, nil
}

// ClaimOutput checks and locks the run directory Run would write
// (rundir.ClaimDir; for a URL, rundir.CheckRemote and its staging
// directory), for a caller to fail at once, before it opens a model or a
// cache, when the directory is refused or another process writes it. Pass
// the claim as Options.Output and release it when done.
func ClaimOutput(ctx context.Context, opts Options) (*rundir.Claim, error) {
	outLoc, err := location.Parse(opts.OutDir)
	if err != nil {
		return nil, err
	}
	if opts.URLMux == nil {
		opts.URLMux = blob.DefaultURLMux()
	}
	return claimOutput(ctx, opts, outLoc)
}

func claimOutput(ctx context.Context, o Options, outLoc location.Location) (*rundir.Claim, error) {
	inputs := o.Inputs
	if in, err := location.Parse(o.Input); err == nil && !in.Remote() {
		inputs = append([]string{in.Local}, inputs...)
	}
	if !outLoc.Remote() {
		return rundir.ClaimDir(outLoc.Local, rundir.ClaimOptions{Force: o.Force, Inputs: inputs, Writes: o.Writes})
	}
	if err := rundir.CheckRemote(ctx, o.URLMux, outLoc, o.Input, o.Force); err != nil {
		return nil, err
	}
	// The staging directory is aem's own, named after the URL: only the
	// lock and the inputs matter there.
	return rundir.ClaimDir(location.StagingDir(o.WorkDir, outLoc), rundir.ClaimOptions{Force: true, Inputs: inputs})
}

// keepCheckpoint settles the checkpoint of a run that stopped with err. A
// run that committed no part and paid no judge leaves nothing to resume:
// its checkpoint goes. Otherwise, with a judge, the manifest records the
// judge's account as of the stop, so that --resume counts it in the budget
// and the summary.
func (st *runState) keepCheckpoint(err error) error {
	u := st.judgeUsage()
	if len(st.m.Parts) == 0 && (u == nil || u.Calls == 0) {
		os.RemoveAll(st.ckptDir)
		return err
	}
	if u == nil {
		return err // the last part's manifest says all there is
	}
	st.m.JudgeUsage = u
	if serr := saveManifest(st.ckptDir, st.m, st.wrap); serr != nil {
		return errors.Join(err, serr)
	}
	return err
}

// judgeUsage is what the judge was paid for this run: by the earlier
// invocations the checkpoint records and by this one. nil without a judge.
func (st *runState) judgeUsage() *rundir.JudgeUsage {
	if st.o.Judge == nil {
		return nil
	}
	u := st.judgeBefore.Add(st.o.Judge.Usage())
	u.Invocations = st.judgeBefore.Invocations + 1
	return &u
}

func compareFingerprints(old, cur fingerprint) error {
	switch {
	case old.Input != cur.Input:
		return errors.New("the input file has changed")
	case old.MetricVersion != cur.MetricVersion:
		return fmt.Errorf("it was scored under metric version %d, this aem scores under %d", max(old.MetricVersion, metrics.VersionUnrecorded), cur.MetricVersion)
	case old.Scorer != cur.Scorer:
		return fmt.Errorf("scorer was %q, now %q", old.Scorer, cur.Scorer)
	case old.Thresholds != cur.Thresholds:
		return fmt.Errorf("thresholds were %s, now %s", old.Thresholds, cur.Thresholds)
	case old.Shard != cur.Shard:
		return fmt.Errorf("shard was %q, now %q", old.Shard, cur.Shard)
	case old.TurnsSchema != cur.TurnsSchema:
		return errors.New("the input's extra columns have changed")
	}
	for k, v := range old.Settings {
		if cur.Settings[k] != v {
			return fmt.Errorf("setting %s was %q, now %q", k, v, cur.Settings[k])
		}
	}
	for k, v := range cur.Settings {
		if _, ok := old.Settings[k]; !ok {
			return fmt.Errorf("setting %s was unset, now %q", k, v)
		}
	}
	return nil
}

// openSource opens the input, fingerprints it and counts its rows (-1
// when unknown); path is the input's local file ("" for a Source without
// Input).
func openSource(ctx context.Context, o Options) (src Source, fp, path string, rows int64, cleanup func(), err error) {
	if o.Source != nil {
		return o.Source, "source:" + o.SourceID, o.Input, -1, func() {}, nil
	}
	loc, err := location.Parse(o.Input)
	if err != nil {
		return nil, "", "", 0, nil, err
	}
	path, cleanup = loc.Local, func() {}
	if loc.Remote() {
		if path, err = location.Download(ctx, o.URLMux, loc, o.WorkDir); err != nil {
			return nil, "", "", 0, nil, err
		}
		cleanup = func() { os.Remove(path) }
	}
	if fp, err = safefile.SHA256(path); err != nil {
		cleanup()
		return nil, "", "", 0, nil, fmt.Errorf("reading input %s: %w", o.Input, err)
	}
	r, err := golden.Open(ctx, path, o.ReadOptions)
	if err != nil {
		cleanup()
		return nil, "", "", 0, nil, err
	}
	return r, "sha256:" + fp, path, r.NumRows(), cleanup, nil
}

// pipeline runs reader -> workers -> writer and leaves every scored dialog
// in committed checkpoint parts.
func (st *runState) pipeline(ctx context.Context, src Source, stats *Stats) error {
	o := st.o
	g, gctx := errgroup.WithContext(ctx)
	// At most maxInFlight chunks exist between the reader and the writer's
	// commit, which bounds memory and the writer's reorder window.
	maxInFlight := 2*o.Workers + 2
	tokens := make(chan struct{}, maxInFlight)
	chunks := make(chan *chunk, o.Workers)
	results := make(chan *chunk, o.Workers)

	g.Go(func() error {
		defer close(chunks)
		return st.read(gctx, src, tokens, chunks)
	})
	var workers sync.WaitGroup
	for range o.Workers {
		workers.Add(1)
		g.Go(func() error {
			defer workers.Done()
			return st.work(gctx, chunks, results)
		})
	}
	g.Go(func() error {
		workers.Wait()
		close(results)
		return nil
	})
	g.Go(func() error {
		return st.write(gctx, tokens, results, stats)
	})
	err := g.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

func (st *runState) read(ctx context.Context, src Source, tokens chan struct{}, out chan<- *chunk) error {
	skip := st.m.nextOrdinal()
	var (
		ordinal int64 = -1
		seq     int64
		cur     *chunk
		turns   int
	)
	send := func() error {
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		cur.seq = seq
		seq++
		select {
		case out <- cur:
		case <-ctx.Done():
			return ctx.Err()
		}
		cur, turns = nil, 0
		return nil
	}
	for {
		d, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err // golden errors name the file, row and column
		}
		ordinal++
		st.rowsRead.Add(int64(len(d.Turns)))
		if ordinal < skip {
			st.rowsResumed.Add(int64(len(d.Turns)))
		}
		if ordinal < skip || !st.o.Shard.Contains(d.ID) {
			continue
		}
		if cur == nil {
			cur = &chunk{}
		}
		cur.items = append(cur.items, chunkItem{ordinal: ordinal, d: d})
		cur.end = st.rowsRead.Load()
		turns += len(d.Turns)
		if turns >= st.o.ChunkTurns {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if cur != nil {
		return send()
	}
	return nil
}

func (st *runState) work(ctx context.Context, in <-chan *chunk, out chan<- *chunk) error {
	for c := range in {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.decideChunk(ctx, c); err != nil {
			return err
		}
		select {
		case out <- c:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// decideChunk scores all comparisons of the chunk's dialogs with one
// scorer call, then decides and converts each dialog.
func (st *runState) decideChunk(ctx context.Context, c *chunk) error {
	t0 := time.Now()
	dialogs := make([]metrics.Dialog, len(c.items))
	for i := range c.items {
		dialogs[i] = c.items[i].d.Dialog
	}
	timed := &timedScorer{Scorer: st.o.Scorer}
	plan := st.o.Metric.Plan(dialogs)
	sims, err := plan.Similarities(ctx, timed)
	st.scorerPairs.Add(timed.comparisons)
	st.scorerNanos.Add(int64(timed.elapsed))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("dialogs %q to %q: %w", c.items[0].d.ID, c.items[len(c.items)-1].d.ID, err)
	}
	c.decided = make([]rundir.Dialog, len(c.items))
	first := firstScores(st.o.Scorer, sims)
	for i := range c.items {
		it := &c.items[i]
		res, err := plan.Decide(i, sims, st.scorerID)
		if err != nil {
			return fmt.Errorf("scoring dialog %q (input rows %s): %w", it.d.ID, rowSpan(it.d.Rows), err)
		}
		st.unscored.add(&res)
		var alone *metrics.DialogResult
		if first != nil {
			r, err := plan.Decide(i, first, st.scorerID)
			if err != nil {
				return fmt.Errorf("scoring dialog %q (input rows %s) with the first scorer alone: %w", it.d.ID, rowSpan(it.d.Rows), err)
			}
			alone = &r
		}
		j, err := st.convert(it, &res, alone)
		if err != nil {
			return err
		}
		c.decided[i] = j
	}
	c.items = nil
	st.metricNanos.Add(int64(time.Since(t0) - timed.elapsed))
	return nil
}

// unscoredMethods are the methods that decide a comparison without a
// scorer (the strings or values agree, a value's kind decides, or a reply
// clause is not required), in the order of unscoredCounts.methods.
var unscoredMethods = [...]string{metrics.MethodExact, metrics.MethodNormalized, metrics.MethodTyped, metrics.MethodAny,
	metrics.MethodNotRequired, metrics.MethodParsedEqual, metrics.MethodParsedDiffers, metrics.MethodUnparsed,
	metrics.MethodDiffers, metrics.MethodEquivalence, metrics.MethodContradicted}

// unscoredCounts counts field and clause comparisons decided by
// unscoredMethods without a scorer, and parameter values by kind, for
// summary.json's embedding section.
type unscoredCounts struct {
	methods [len(unscoredMethods)]atomic.Int64
	mu      sync.Mutex
	kinds   map[string]rundir.KindCount
}

func (u *unscoredCounts) add(r *metrics.DialogResult) {
	for _, v := range r.Turns {
		for _, fs := range v.FieldScores {
			u.count(fs)
		}
		for _, cs := range v.Clauses {
			u.count(cs.FieldScore)
		}
		if v.Kind == metrics.KindAction {
			u.addKinds(v.FieldScores)
		}
	}
}

func (u *unscoredCounts) count(fs metrics.FieldScore) {
	if fs.By != "" {
		return
	}
	for i, m := range unscoredMethods {
		if fs.Method == m {
			u.methods[i].Add(1)
		}
	}
}

// addKinds counts a turn's compared parameter values by kind: decided by
// the kind's rules, or by a scorer.
func (u *unscoredCounts) addKinds(scores []metrics.FieldScore) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, fs := range scores {
		if fs.Kind == "" || fs.Method == metrics.MethodMissing || fs.Method == metrics.MethodType {
			continue
		}
		if u.kinds == nil {
			u.kinds = map[string]rundir.KindCount{}
		}
		c := u.kinds[fs.Kind]
		if fs.By != "" {
			c.Scored++
		} else {
			c.Decided++
		}
		u.kinds[fs.Kind] = c
	}
}

// embeddingUsage completes the scorer's EmbeddingUsage with the turns this
// invocation scored and the comparisons no scorer saw.
func (st *runState) embeddingUsage(turns int64) *rundir.EmbeddingUsage {
	u := st.o.EmbeddingUsage()
	u.ScoredTurns = turns
	if turns > 0 {
		u.StringsPerScoredTurn = float64(u.StringsEmbedded) / float64(turns)
	}
	u.DecidedWithoutModel = make(map[string]int64, len(unscoredMethods))
	for i, m := range unscoredMethods {
		u.DecidedWithoutModel[m] = st.unscored.methods[i].Load()
	}
	st.unscored.mu.Lock()
	u.ValueKinds = maps.Clone(st.unscored.kinds)
	st.unscored.mu.Unlock()
	return &u
}

// timedScorer counts the comparisons sent to a Scorer and the time it
// takes, for Stats and the summary's timings. One per chunk: not shared.
type timedScorer struct {
	metrics.Scorer
	comparisons int64
	elapsed     time.Duration
}

func (t *timedScorer) Compare(ctx context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	start := time.Now()
	out, err := t.Scorer.Compare(ctx, cs)
	t.comparisons += int64(len(cs))
	t.elapsed += time.Since(start)
	return out, err
}

func rowSpan(rows []int64) string {
	if len(rows) == 0 {
		return "?"
	}
	lo, hi := rows[0], rows[0]
	for _, r := range rows {
		lo, hi = min(lo, r), max(hi, r)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// escalating is a Scorer that lets a judge decide some comparisons after
// a first scorer (judge.Escalation); the run then records the verdict the
// first scorer alone would have given (TurnRow.EmbedPass).
type escalating interface{ Escalates() bool }

// firstScores returns sims with every judge's decision replaced by the
// first scorer's score, and no alternative spared, when s is escalating;
// nil otherwise.
func firstScores(s metrics.Scorer, sims metrics.Similarities) metrics.Similarities {
	if e, ok := s.(escalating); !ok || !e.Escalates() {
		return nil
	}
	first := make(metrics.Similarities, len(sims))
	for c, sim := range sims {
		if sim.Judge != nil {
			sim = metrics.Similarity{Score: sim.Judge.FirstScore, By: sim.Judge.FirstBy}
		}
		sim.Spared = false
		first[c] = sim
	}
	return first
}

// setEmbedPass records on each row the first scorer's verdict for the
// same gold turn (order-invariant blocks may match other predicted turns).
func setEmbedPass(trs []rundir.TurnRow, alone *metrics.DialogResult) {
	pass := make(map[int]bool, len(alone.Turns))
	for _, v := range alone.Turns {
		if _, seen := pass[v.TurnNo]; !seen {
			pass[v.TurnNo] = v.Pass
		}
	}
	for i := range trs {
		p, ok := pass[int(trs[i].TurnNo)]
		if !ok {
			p = trs[i].Pass
		}
		trs[i].EmbedPass = &p
	}
}

// convert turns a decided dialog into its run directory rows; alone, when
// set, is the verdict of the first scorer alone (TurnRow.EmbedPass).
func (st *runState) convert(it *chunkItem, res, alone *metrics.DialogResult) (rundir.Dialog, error) {
	trs, src, dr, err := rundir.RowsOf(&it.d, res)
	if err != nil {
		return rundir.Dialog{}, err
	}
	if alone != nil {
		setEmbedPass(trs, alone)
	}
	digest, err := goldDigest(&it.d)
	if err != nil {
		return rundir.Dialog{}, err
	}
	j := rundir.Dialog{Row: dr,
		Ordinal: rundir.OrdinalRow{InputOrdinal: it.ordinal, DialogID: it.d.ID, Turns: int64(len(trs)), GoldSHA256: digest[:]}}
	if !st.ts.HasExtras() {
		j.Turns = trs
	} else {
		j.TurnsRaw = make([]parquet.Row, len(trs))
		for i := range trs {
			var extra parquet.Row
			if it.d.Extra != nil {
				extra = it.d.Extra[src[i]]
			}
			j.TurnsRaw[i] = st.ts.Row(&trs[i], extra)
		}
	}
	j.DeconstructRow()
	return j, nil
}

// write commits chunks in input order into checkpoint parts.
func (st *runState) write(ctx context.Context, tokens chan struct{}, in <-chan *chunk, stats *Stats) (err error) {
	o := st.o
	pending := map[int64]*chunk{}
	var next int64
	var part *partWriter
	defer func() {
		if part != nil {
			part.abort()
		}
	}()
	commitPart := func() error {
		if part == nil {
			return nil
		}
		p := part
		part = nil
		st.m.JudgeUsage = st.judgeUsage()
		if err := p.commit(st.m); err != nil {
			return err
		}
		stats.Checkpoints++
		if st.remote != nil && ctx.Err() == nil {
			return st.remote.push(ctx, st.ckptDir, st.m)
		}
		return nil
	}
	for c := range in {
		pending[c.seq] = c
		for {
			c, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			for i := range c.decided {
				j := &c.decided[i]
				if part == nil {
					part, err = newPartWriter(st.ckptDir, len(st.m.Parts)+1, st.ts, j.Ordinal.InputOrdinal, st.wrap, time.Now())
					if err != nil {
						return err
					}
				}
				if err := part.add(j); err != nil {
					return err
				}
				if err := st.final.Add(j); err != nil {
					return err
				}
				stats.DialogsDone++
				stats.TurnsDone += int64(j.NumTurns())
			}
			stats.RowsCommitted = c.end
			<-tokens
			if part != nil && (part.info.Turns >= int64(o.CheckpointTurns) || time.Since(part.started) >= o.CheckpointInterval) {
				if err := commitPart(); err != nil {
					return err
				}
			}
			st.fillStats(stats)
			o.Progress.Update(*stats)
		}
	}
	if err := ctx.Err(); err != nil {
		// Keep what is complete: commit the dialogs received so far, all
		// of which are whole and in order, so a resume redoes less.
		if cerr := commitPart(); cerr != nil {
			return errors.Join(err, cerr)
		}
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("internal error: %d chunks never committed", len(pending))
	}
	return commitPart()
}

func (st *runState) fillStats(s *Stats) {
	s.Elapsed = time.Since(st.start)
	s.RowsRead, s.ResumedRows = st.rowsRead.Load(), st.rowsResumed.Load()
	s.ScorerPairs = st.scorerPairs.Load()
	s.ScorerTime = time.Duration(st.scorerNanos.Load())
	if st.o.CacheStats != nil {
		s.CacheHits, s.CacheMisses = st.o.CacheStats()
	}
}

// replay adds the dialogs of the checkpoint parts to the final files.
func (st *runState) replay(ctx context.Context) error {
	for _, p := range st.m.Parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, d, i := partFiles(st.ckptDir, p.Name)
		if err := copyDialogs(st.final, rundir.Files{Turns: t, Dialogs: d, Ordinals: i}); err != nil {
			return fmt.Errorf("%w: replaying checkpoint part %s: %w (remove %s to start over)", ErrCorruptCheckpoint, p.Name, err, st.ckptDir)
		}
	}
	return nil
}

// copyDialogs adds the dialogs of files to w.
func copyDialogs(w *rundir.Writer, files rundir.Files) error {
	r, err := rundir.OpenDialogs(files)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := w.Add(d); err != nil {
			return err
		}
	}
}

// header fills the settings part of a summary.
func (st *runState) header(s *rundir.Summary) {
	s.Input = st.o.Input
	s.Scorer = st.scorerID
	s.Thresholds = st.o.Metric.Config().Thresholds
	s.Settings = settingsOf(st.o.Metric.Config(), st.o)
	if st.o.Shard.Enabled() {
		s.Settings["shard"] = st.o.Shard.String()
	}
}
