package batch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/internal/s3test"
	"github.com/aem-dev/aem/internal/storetest"
	"github.com/aem-dev/aem/rundir"
)

// remoteStore is a real object store with a fault proxy in front, this
// process's environment pointed at the proxy, and a bucket "evals" holding
// a golden dataset at golden/in.parquet.
type remoteStore struct {
	storetest.Remote
	mux    *blob.URLMux
	local  string // the golden file
	golden string // its URL in the store

	mu  sync.Mutex
	log []string
}

// newS3Store starts an S3 server (skipping the test without one).
func newS3Store(t *testing.T, dialogs int) *remoteStore { return newRemoteStore(t, "s3", dialogs) }

// newGCSStore starts a GCS emulator.
func newGCSStore(t *testing.T, dialogs int) *remoteStore { return newRemoteStore(t, "gs", dialogs) }

func newRemoteStore(t *testing.T, scheme string, dialogs int) *remoteStore {
	st := &remoteStore{Remote: storetest.Start(t, scheme)}
	st.golden = st.URL("golden/in.parquet")
	st.mux = location.NewURLMux(location.MuxOptions{Log: st.logf, MaxBackoff: 50 * time.Millisecond})
	st.local = writeGolden(t, t.TempDir(), genDialogs(dialogs, 21))
	st.Objects.Put(t, "evals", "golden/in.parquet", readFile(t, st.local))
	return st
}

func (st *remoteStore) logf(msg string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.log = append(st.log, msg)
}

func (st *remoteStore) logged() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Clone(st.log)
}

func (st *remoteStore) options(t *testing.T, out string, shard rundir.Shard) Options {
	o := baseOptions(st.golden, out)
	o.URLMux, o.WorkDir, o.Shard = st.mux, t.TempDir(), shard
	return o
}

// shards runs n shards of the golden dataset into the store's
// evals/PREFIX/k.
func (st *remoteStore) shards(t *testing.T, prefix string, n int) []string {
	var dirs []string
	for k := range n {
		o := st.options(t, st.URL(fmt.Sprintf("%s/%d", prefix, k)), rundir.Shard{Index: k, Count: n})
		mustRun(t, o)
		dirs = append(dirs, o.OutDir)
	}
	return dirs
}

// fetch downloads the run at a URL and returns its local copy.
func (st *remoteStore) fetch(t *testing.T, url string) string {
	rd, err := rundir.Open(context.Background(), url, rundir.OpenOptions{URLMux: st.mux, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	t.Cleanup(func() { rd.Close() })
	return rd.Dir()
}

// noCheckpointLeft checks that nothing but run files is left in the bucket
// under prefix, and (S3) no unfinished upload.
func (st *remoteStore) noCheckpointLeft(t *testing.T, prefix string) {
	for _, k := range st.Objects.Keys(t, "evals", prefix) {
		if strings.Contains(k, rundir.CheckpointDir) {
			t.Errorf("checkpoint object %s left in the bucket", k)
		}
	}
	if st.S3 == nil {
		return
	}
	if u := st.S3.Uploads(t, "evals"); len(u) != 0 {
		t.Errorf("unfinished uploads left: %v", u)
	}
}

// TestShardsAndMerge reads the golden dataset from the store, runs it as
// three shards into the bucket (checkpoints included) and merges them
// there, while the store resets connections mid-upload and mid-read,
// answers 429, 500 and 503, and is slow: the merged run must be byte for
// byte the single run, nothing but run files may be left in the bucket,
// and every fault must show in the log (but for a GCS read broken
// mid-body, which the storage client resumes by itself, unlogged). (A run
// without faults logs nothing: location's TestRoundTrip.)
func TestShardsAndMerge(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(*testing.T, int) *remoteStore
		// faults to inject: S3 takes PUTs of /evals/KEY; GCS takes
		// uploads as POSTs to /upload/storage/v1/b/evals/o?...name=KEY
		// (the key escaped: runs%2Fr%2F...), downloads as GETs of
		// /evals/KEY, metadata and lists as GETs under
		// /storage/v1/b/evals/o.
		faults   []s3test.Fault
		unlogged string // the faults that leave no line
		least    int    // failing faults that must be injected, at least
	}{
		{"s3", newS3Store, []s3test.Fault{
			{Method: "GET", Path: "/golden/in.parquet", Reset: true, After: 4_000, Times: 2},
			{Method: "PUT", Path: "/turns.parquet", Reset: true, After: 10_000, Times: 2},
			{Method: "PUT", Path: "/.aem-run/", Status: 503, Times: 3},
			{Method: "PUT", Path: "/summary.json", Status: 500, Times: 2},
			{Method: "HEAD", Status: 503, Times: 2},
			{Method: "GET", Path: "/dialogs.parquet", Reset: true, After: 3_000, Times: 2},
			{Path: "/shards/", Delay: 20 * time.Millisecond, Times: 10},
		}, "", 10},
		{"gs", newGCSStore, []s3test.Fault{
			{Method: "GET", Path: "/evals/golden/in.parquet", Reset: true, After: 4_000, Times: 2},
			{Method: "POST", Query: "%2Fturns.parquet", Reset: true, After: 10_000, Times: 2},
			{Method: "POST", Query: ".aem-run", Status: 503, Times: 3},
			{Method: "POST", Query: "summary.json", Status: 500, Times: 2},
			{Method: "GET", Path: "/storage/v1/b/evals/o", Status: 429, Times: 2},
			{Path: "/shards/", Delay: 20 * time.Millisecond, Times: 10},
		}, "reset GET", 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := c.open(t, 120)
			ref := filepath.Join(t.TempDir(), "ref")
			o := baseOptions(st.golden, ref)
			o.URLMux, o.WorkDir = st.mux, t.TempDir()
			mustRun(t, o)
			for _, f := range c.faults {
				st.Proxy.Add(f)
			}
			shards := st.shards(t, "runs/r/shards", 3)
			if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{URLMux: st.mux, WorkDir: t.TempDir(), RowGroupSize: 200},
				st.URL("runs/r/merged"), shards...); err != nil {
				t.Fatal(err)
			}
			st.Proxy.Clear()
			sameOutputs(t, ref, st.fetch(t, st.URL("runs/r/merged")))
			st.noCheckpointLeft(t, "runs/r/")

			var failures int // faults that fail a request; each must be logged
			for _, f := range st.Proxy.Injected() {
				if !strings.HasPrefix(f, "delay") && (c.unlogged == "" || !strings.HasPrefix(f, c.unlogged)) {
					failures++
				}
			}
			log := st.logged()
			t.Logf("faults injected:\n%s\n%d log lines:\n%s", strings.Join(st.Proxy.Injected(), "\n"), len(log), strings.Join(log, "\n"))
			if failures < c.least || len(log) != failures {
				t.Errorf("%d failing faults injected, %d retries logged: want one line per fault (at least %d)", failures, len(log), c.least)
			}
		})
	}
}

// TestPublishFails: a store that resets every upload of turns.parquet
// fails the run with a clear error, and leaves no run that looks complete
// in the bucket; once the store is back, --resume publishes the staged
// run without scoring again.
func TestPublishFails(t *testing.T) {
	for _, c := range []struct {
		name  string
		open  func(*testing.T, int) *remoteStore
		fault s3test.Fault
	}{
		{"s3", newS3Store, s3test.Fault{Method: "PUT", Path: "/runs/p/turns.parquet", Reset: true, After: 5_000}},
		{"gs", newGCSStore, s3test.Fault{Method: "POST", Query: "runs%2Fp%2Fturns.parquet", Reset: true, After: 5_000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := c.open(t, 60)
			ref := filepath.Join(t.TempDir(), "ref")
			mustRun(t, baseOptions(st.local, ref))
			st.Proxy.Add(c.fault)
			o := st.options(t, st.URL("runs/p"), rundir.Shard{})
			_, err := Run(context.Background(), o)
			if !errors.Is(err, location.ErrUnreadable) || !strings.Contains(err.Error(), st.URL("runs/p")) {
				t.Fatalf("Run with a store that refuses the upload = %v, want ErrUnreadable naming the output", err)
			}
			t.Log(err)
			if _, ok := st.Objects.Get(t, "evals", "runs/p/summary.json"); ok {
				t.Error("summary.json published by a run whose upload failed")
			}
			if _, ok := st.Objects.Get(t, "evals", "runs/p/turns.parquet"); ok {
				t.Error("a partial turns.parquet is under its final name")
			}
			st.Proxy.Clear()
			sc := &fakeScorer{}
			o.Resume, o.Scorer = true, sc
			var p recProgress
			o.Progress = &p
			mustRun(t, o)
			if sc.calls.Load() != 0 {
				t.Errorf("the resumed run scored again (%d calls)", sc.calls.Load())
			}
			sameOutputsExceptInput(t, ref, st.fetch(t, st.URL("runs/p")))
			st.noCheckpointLeft(t, "runs/p")
		})
	}
}

// TestMergeWhileShardRewritten reruns a shard into the bucket while the
// merge is reading it: the merge must fail with ErrChanged, publishing
// nothing, and succeed once the shard is stable.
func TestMergeWhileShardRewritten(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(*testing.T, int) *remoteStore
	}{{"s3", newS3Store}, {"gs", newGCSStore}} {
		t.Run(c.name, func(t *testing.T) {
			st := c.open(t, 60)
			shards := st.shards(t, "runs/m/shards", 2)
			// The first GET of shard 1's turns.parquet (GCS: its metadata
			// or its bytes) comes after the merge read the shard's marker.
			st.Proxy.Add(s3test.Fault{Method: "GET", Path: "/runs/m/shards/1/turns.parquet", Times: 1, Before: func() {
				o := st.options(t, shards[1], rundir.Shard{Index: 1, Count: 2})
				o.URLMux = location.NewURLMux(location.MuxOptions{})
				mustRun(t, o)
			}})
			mopts := rundir.MergeOptions{URLMux: st.mux, WorkDir: t.TempDir(), RowGroupSize: 200}
			_, err := rundir.Merge(context.Background(), mopts, st.URL("runs/m/merged"), shards...)
			if !errors.Is(err, location.ErrChanged) {
				t.Fatalf("merge while a shard is rewritten = %v, want ErrChanged", err)
			}
			t.Log(err)
			if keys := st.Objects.Keys(t, "evals", "runs/m/merged"); len(keys) != 0 {
				t.Errorf("a failed merge published %v", keys)
			}
			if _, err := rundir.Merge(context.Background(), mopts, st.URL("runs/m/merged"), shards...); err != nil {
				t.Fatalf("merge of the stable shards: %v", err)
			}
			ref := filepath.Join(t.TempDir(), "ref")
			mustRun(t, baseOptions(st.local, ref))
			sameOutputsExceptInput(t, ref, st.fetch(t, st.URL("runs/m/merged")))
		})
	}
}
