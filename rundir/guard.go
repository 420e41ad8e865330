package rundir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
	"gocloud.dev/blob"

	"github.com/aem-dev/aem/internal/location"
)

// The files other commands write into a run directory by default, from
// its results: `aem report` (and `aem run --report`), `aem review`, `aem
// sweep`. A new run into the directory would leave them describing
// results it replaces (Claim).
const (
	ReportFile = "report.html"
	ReviewFile = "review.jsonl"
	SweepDir   = "sweep"
)

// LockFile is the lock of a run directory being written: an advisory lock
// (flock) on it is held by the one process writing the directory, which
// writes its pid into it; the file is removed when it lets go.
const LockFile = ".aem-lock"

// derivedNames are the entries ReportFile, ReviewFile and SweepDir.
var derivedNames = []string{ReportFile, ReviewFile, SweepDir}

// runNames are the entries a run itself writes.
var runNames = []string{TurnsFile, DialogsFile, SummaryFile, OrdinalsFile, CheckpointDir, LockFile}

// ClaimOptions says how a writer means to use a run directory.
type ClaimOptions struct {
	// Force writes into a directory that is not empty and not a run's
	// (its other entries are left as they are), and removes the files
	// derived from an earlier run there (derivedNames) instead of refusing.
	Force bool
	// Inputs are local files the writer reads: Claim refuses when one of
	// them is a file the writer would replace or remove.
	Inputs []string
	// Writes are the other files the writer will write, anywhere: derived
	// files among them are not stale, and no input may be one of them.
	Writes []string
}

// Claim is a run directory held for writing: created if needed, locked
// against every other writer. Release it when done.
type Claim struct {
	dir     string
	lock    *flock.Flock
	created bool // the directory did not exist before
}

// ClaimDir prepares the local directory dir to receive a run, in this order,
// so that nothing is written or removed before every check passes:
//
//  1. it looks at what dir holds: nothing (or nothing yet: it is created),
//     a run (summary.json written by aem, or the checkpoint of an
//     unfinished run), or other entries, which are refused, named, unless
//     opts.Force;
//  2. in a run directory, the files derived from the earlier run
//     (report.html, review.jsonl, sweep/) that the writer will not rewrite
//     are refused, named, unless opts.Force, which removes them once the
//     lock is held;
//  3. no input may be a file the writer replaces or removes (refused even
//     with Force);
//  4. the lock: a second writer of the same directory fails at once, with
//     ErrBusy naming the holder's pid.
//
// Refusals wrap ErrOutput. The run's own files are the writer's to
// replace; nothing else in dir is touched.
func ClaimDir(dir string, opts ClaimOptions) (*Claim, error) {
	st, err := inspect(dir)
	if err != nil {
		return nil, err
	}
	if st.foreign() && !opts.Force {
		return nil, fmt.Errorf("%w: %s is not empty and not a run directory: it holds %s (fix: choose a new or empty directory, or pass --force to write the run's files into it; nothing else in it is touched)",
			ErrOutput, dir, listNames(st.names))
	}
	stale := st.stale(dir, opts.Writes)
	if len(stale) > 0 && !opts.Force {
		return nil, fmt.Errorf("%w: %s holds %s, made from the run there before, which a new run would leave out of date (fix: move them away, or pass --force to remove them)",
			ErrOutput, dir, listNames(baseNames(stale)))
	}
	own := filesIn(dir, runNames...)
	for _, w := range opts.Writes {
		if err := CheckOutputFile(w); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(own, func(r string) bool { return sameFile(r, w) }) {
			return nil, fmt.Errorf("%w: %s is a file of the run written to %s (fix: write it elsewhere)", ErrOutput, w, dir)
		}
	}
	replaced := append(own, opts.Writes...)
	if opts.Force {
		replaced = append(replaced, stale...)
	}
	if err := checkInputs(opts.Inputs, replaced); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	c := &Claim{dir: dir, created: !st.exists}
	if c.lock, err = lockDir(dir); err != nil {
		c.removeIfEmpty()
		return nil, err
	}
	for _, p := range stale {
		if !opts.Force {
			break
		}
		if err := os.RemoveAll(p); err != nil {
			c.Release(true)
			return nil, fmt.Errorf("removing %s: %w", p, err)
		}
	}
	return c, nil
}

// Dir is the claimed directory.
func (c *Claim) Dir() string { return c.dir }

// Release lets go of the directory. After a failure (failed), a directory
// left with nothing in it is removed when Claim created it, so a failed
// run leaves no empty output directory behind.
func (c *Claim) Release(failed bool) {
	if c == nil || c.lock == nil {
		return
	}
	os.Remove(filepath.Join(c.dir, LockFile)) // while held: see lockDir
	c.lock.Unlock()
	c.lock = nil
	if failed {
		c.removeIfEmpty()
	}
}

func (c *Claim) removeIfEmpty() {
	if c.created {
		os.Remove(c.dir) // fails, as it should, unless empty
	}
}

// lockDir takes dir's lock without waiting. The lock file is removed by
// its holder when it lets go, so a process that opened it before may lock
// a file no longer in the directory: it then sees that the path names
// another file, and reports the directory busy.
func lockDir(dir string) (*flock.Flock, error) {
	path := filepath.Join(dir, LockFile)
	lk := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o644))
	ok, err := lk.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	if ok {
		held, herr := lk.Stat()
		now, nerr := os.Stat(path)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
				lk.Unlock()
				return nil, fmt.Errorf("locking %s: %w", dir, err)
			}
			return lk, nil
		}
		lk.Unlock()
	} else {
		lk.Close()
	}
	holder := "another aem process"
	if b, err := os.ReadFile(path); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			holder = fmt.Sprintf("another aem process (pid %d)", pid)
		}
	}
	return nil, fmt.Errorf("%w: %s is being written by %s; wait for it to finish or stop it (its lock is %s)", ErrBusy, dir, holder, path)
}

// dirState is what a directory holds.
type dirState struct {
	exists bool
	names  []string // entries but leftovers, directories with a trailing "/"
	run    bool     // a run's: summary.json by aem, or a checkpoint
}

func inspect(dir string) (dirState, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dirState{}, nil
	case err != nil:
		if info, serr := os.Stat(dir); serr == nil && !info.IsDir() {
			return dirState{}, fmt.Errorf("%w: %s is a file, not a directory (fix: give a directory for the run)", ErrOutput, dir)
		}
		return dirState{}, fmt.Errorf("reading output directory: %w", err)
	}
	st := dirState{exists: true, run: IsRunDir(dir)}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		if !isLeftover(e.Name()) {
			st.names = append(st.names, name)
		}
	}
	return st, nil
}

// foreign reports a directory that holds entries and is not a run's.
func (st dirState) foreign() bool { return len(st.names) > 0 && !st.run }

// isLeftover reports what a killed aem leaves in a directory before it is
// a run: its lock, an empty checkpoint directory, temporary files.
func isLeftover(name string) bool {
	return name == LockFile || name == CheckpointDir || strings.HasPrefix(name, ".tmp-") && isRunName(name)
}

// stale returns the paths of the derived files in a run directory that
// writes does not name.
func (st dirState) stale(dir string, writes []string) []string {
	if !st.run {
		return nil
	}
	var out []string
	for _, n := range derivedNames {
		p := filepath.Join(dir, n)
		if exists(p) && !slices.ContainsFunc(writes, func(w string) bool { return sameFile(w, p) }) {
			out = append(out, p)
		}
	}
	return out
}

// isRunName reports a name a run writes, or the temporary file of one.
func isRunName(name string) bool {
	for _, n := range runNames {
		if name == n || strings.HasPrefix(name, ".tmp-"+n) {
			return true
		}
	}
	return false
}

// isSummary reports whether path is a summary.json written by aem run.
func isSummary(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return false
	}
	for _, k := range []string{"version", "scorer", "dialogs", "turns"} {
		if _, ok := keys[k]; !ok {
			return false
		}
	}
	return true
}

// checkInputs refuses an input that is one of replaced, inside one, or a
// directory (of predictions) holding one.
func checkInputs(inputs, replaced []string) error {
	for _, in := range inputs {
		if in == "" {
			continue
		}
		for _, r := range replaced {
			if !sameFile(in, r) && !within(in, r) && !within(r, in) {
				continue
			}
			what := "the input " + in
			if filepath.Clean(in) != filepath.Clean(r) {
				what += " (" + r + ")"
			}
			return fmt.Errorf("%w: %s would be written over or removed (fix: write the output elsewhere)", ErrOutput, what)
		}
	}
	return nil
}

// sameFile reports whether a and b name the same existing file (links
// included), or the same path.
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	return filepath.Clean(absPath(a)) == filepath.Clean(absPath(b))
}

// within reports whether path lies inside the directory dir.
func within(path, dir string) bool {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return false
	}
	p, d := realPath(path), realPath(dir)
	return strings.HasPrefix(p, d+string(filepath.Separator))
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// realPath is p absolute with its symbolic links resolved, as far as they
// exist.
func realPath(p string) string {
	p = absPath(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func filesIn(dir string, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			out[i] += "/"
		}
	}
	return out
}

// listNames lists up to five names, sorted, then how many more.
func listNames(names []string) string {
	names = slices.Sorted(slices.Values(names))
	const most = 5
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// CheckOutputFile refuses a file an output would be written to when it
// is a file of a run directory (turns.parquet, summary.json, ... or
// anything in its checkpoint), or one of the writer's inputs: `aem report
// RUN -o RUN/turns.parquet` must not write HTML over the run, nor `aem
// import x.jsonl -o x.jsonl` Parquet over its input.
func CheckOutputFile(path string, inputs ...string) error {
	if err := checkInputs(inputs, []string{path}); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if inCheckpoint(dir) {
		return fmt.Errorf("%w: %s is inside the checkpoint of a run (fix: write the file elsewhere)", ErrOutput, path)
	}
	if isRunName(filepath.Base(path)) && IsRunDir(dir) {
		return fmt.Errorf("%w: %s is a file of the run in %s (fix: write the file elsewhere)", ErrOutput, path, dir)
	}
	return nil
}

// CheckOutputDir refuses a directory an output of several files is
// written to (aem sweep's, aem compare's) when it is a run directory,
// whose summary.json they would replace or whose files they would mix
// with, or inside one's checkpoint.
func CheckOutputDir(dir string) error {
	switch {
	case inCheckpoint(dir):
		return fmt.Errorf("%w: %s is inside the checkpoint of a run (fix: choose another directory)", ErrOutput, dir)
	case IsRunDir(dir):
		return fmt.Errorf("%w: %s is a run directory; this command writes its files into a directory of their own (fix: choose another directory)", ErrOutput, dir)
	}
	return nil
}

// inCheckpoint reports whether the directory dir is a checkpoint or lies
// inside one.
func inCheckpoint(dir string) bool {
	for d := realPath(dir); ; d = filepath.Dir(d) {
		if filepath.Base(d) == CheckpointDir {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// IsRunDir reports whether the local directory dir holds a run: a
// summary.json written by aem run, or the checkpoint of an unfinished one.
func IsRunDir(dir string) bool {
	return isSummary(filepath.Join(dir, SummaryFile)) || exists(filepath.Join(dir, CheckpointDir, "manifest.json"))
}

// CheckRemote is ClaimDir's check for an object-store prefix, before a run
// is staged for it: a prefix that holds objects, but neither a summary.json,
// a checkpoint (.aem-run/) nor only a run's files (an upload that stopped
// before summary.json), is refused, named, unless force; input (the run's golden dataset) must not
// be one of the run's files there, which the upload deletes first. Object
// stores have no lock: two writers of one prefix on different machines are
// not detected (the staging directory is locked, so two on one machine
// are). Nothing but the run's own files is ever deleted there.
func CheckRemote(ctx context.Context, mux *blob.URLMux, out location.Location, input string, force bool) error {
	if in, err := location.Parse(input); err == nil && in.Remote() && in.BucketURL == out.BucketURL {
		for _, n := range runNames {
			if strings.Trim(in.Key, "/") == path.Join(out.Key, n) {
				return fmt.Errorf("%w: the input %s is a file of the run written to %s (fix: write the run to another prefix)", ErrOutput, input, out.Raw)
			}
		}
	}
	if force {
		return nil
	}
	b, err := out.OpenBucket(ctx, mux)
	if err != nil {
		return err
	}
	defer b.Close()
	prefix := strings.Trim(out.Key, "/")
	if prefix != "" {
		prefix += "/"
	}
	var names []string
	run, others := false, false
	it := b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	for len(names) < 100 {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: listing %s: %w", location.ErrUnreadable, out.Raw, err)
		}
		name := strings.TrimPrefix(obj.Key, prefix)
		if obj.IsDir {
			// A prefix below (shards/0/ beside the merged run): the run
			// writes nothing under it; its checkpoint marks a run.
			run = run || name == CheckpointDir+"/"
			continue
		}
		names = append(names, name)
		run = run || name == SummaryFile
		others = others || !slices.Contains(runNames, name)
	}
	if len(names) > 0 && !run && others {
		return fmt.Errorf("%w: %s is not empty and not a run: it holds %s (fix: choose a new or empty prefix, or pass --force to write the run's files beside them; nothing else is touched)",
			ErrOutput, out.Raw, listNames(names))
	}
	return nil
}
