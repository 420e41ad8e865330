package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/internal/s3test"
	"github.com/aem-dev/aem/rundir"
)

// s3Store is a real S3 server with a fault proxy in front, this process's
// AWS environment pointed at the proxy, and a bucket "evals" holding a
// golden dataset at golden/in.parquet.
type s3Store struct {
	srv   *s3test.Server
	proxy *s3test.Proxy
	mux   *blob.URLMux
	local string // the golden file

	mu  sync.Mutex
	log []string
}

const s3Golden = "s3://evals/golden/in.parquet"

func newS3Store(t *testing.T, dialogs int) *s3Store {
	srv := s3test.Start(t)
	st := &s3Store{srv: srv, proxy: s3test.NewProxy(t, srv.Endpoint)}
	srv.SetEnv(t, st.proxy.URL)
	st.mux = location.NewURLMux(location.MuxOptions{Log: st.logf, MaxBackoff: 50 * time.Millisecond})
	srv.Bucket(t, "evals")
	st.local = writeGolden(t, t.TempDir(), genDialogs(dialogs, 21))
	srv.Put(t, "evals", "golden/in.parquet", readFile(t, st.local))
	return st
}

func (st *s3Store) logf(msg string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.log = append(st.log, msg)
}

func (st *s3Store) logged() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Clone(st.log)
}

func (st *s3Store) options(t *testing.T, out string, shard rundir.Shard) Options {
	o := baseOptions(s3Golden, out)
	o.URLMux, o.WorkDir, o.Shard = st.mux, t.TempDir(), shard
	return o
}

// shards runs n shards of the golden dataset into s3://evals/PREFIX/k.
func (st *s3Store) shards(t *testing.T, prefix string, n int) []string {
	var dirs []string
	for k := range n {
		o := st.options(t, fmt.Sprintf("s3://evals/%s/%d", prefix, k), rundir.Shard{Index: k, Count: n})
		mustRun(t, o)
		dirs = append(dirs, o.OutDir)
	}
	return dirs
}

// fetch downloads the run at a URL and returns its local copy.
func (st *s3Store) fetch(t *testing.T, url string) string {
	rd, err := rundir.Open(context.Background(), url, rundir.OpenOptions{URLMux: st.mux, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	t.Cleanup(func() { rd.Close() })
	return rd.Dir()
}

// noCheckpointLeft checks that nothing but run files is left in the bucket
// under prefix, and no unfinished upload.
func (st *s3Store) noCheckpointLeft(t *testing.T, prefix string) {
	for _, k := range st.srv.Keys(t, "evals", prefix) {
		if strings.Contains(k, rundir.CheckpointDir) {
			t.Errorf("checkpoint object %s left in the bucket", k)
		}
	}
	if u := st.srv.Uploads(t, "evals"); len(u) != 0 {
		t.Errorf("unfinished uploads left: %v", u)
	}
}

// TestS3ShardsAndMerge reads the golden dataset from s3://, runs it as
// three shards into the bucket and merges them there, while the store
// resets connections mid-upload and mid-read, answers 500 and 503, and is
// slow: the merged run must be byte for byte the single run, nothing but
// run files may be left in the bucket, and every fault must show in the
// log. (A run without faults logs nothing: location's TestS3RoundTrip.)
func TestS3ShardsAndMerge(t *testing.T) {
	st := newS3Store(t, 120)
	ref := filepath.Join(t.TempDir(), "ref")
	o := baseOptions(s3Golden, ref)
	o.URLMux, o.WorkDir = st.mux, t.TempDir()
	mustRun(t, o)
	for _, f := range []s3test.Fault{
		{Method: "GET", Path: "/golden/in.parquet", Reset: true, After: 4_000, Times: 2},
		{Method: "PUT", Path: "/turns.parquet", Reset: true, After: 10_000, Times: 2},
		{Method: "PUT", Path: "/.aem-run/", Status: 503, Times: 3},
		{Method: "PUT", Path: "/summary.json", Status: 500, Times: 2},
		{Method: "HEAD", Status: 503, Times: 2},
		{Method: "GET", Path: "/dialogs.parquet", Reset: true, After: 3_000, Times: 2},
		{Path: "/shards/", Delay: 20 * time.Millisecond, Times: 10},
	} {
		st.proxy.Add(f)
	}
	shards := st.shards(t, "runs/r/shards", 3)
	if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{URLMux: st.mux, WorkDir: t.TempDir(), RowGroupSize: 200},
		"s3://evals/runs/r/merged", shards...); err != nil {
		t.Fatal(err)
	}
	st.proxy.Clear()
	sameOutputs(t, ref, st.fetch(t, "s3://evals/runs/r/merged"))
	st.noCheckpointLeft(t, "runs/r/")

	var failures int // faults that fail a request; each must be logged
	for _, f := range st.proxy.Injected() {
		if !strings.HasPrefix(f, "delay") {
			failures++
		}
	}
	log := st.logged()
	t.Logf("faults injected:\n%s\n%d log lines:\n%s", strings.Join(st.proxy.Injected(), "\n"), len(log), strings.Join(log, "\n"))
	if failures < 10 || len(log) != failures {
		t.Errorf("%d failing faults injected, %d retries logged: want one line per fault (at least 10)", failures, len(log))
	}
}

// TestS3MergeWhileShardRewritten reruns a shard into the bucket while the
// merge is reading it: the merge must fail with ErrChanged, publishing
// nothing, and succeed once the shard is stable.
func TestS3MergeWhileShardRewritten(t *testing.T) {
	st := newS3Store(t, 60)
	shards := st.shards(t, "runs/m/shards", 2)
	st.proxy.Add(s3test.Fault{Method: "GET", Path: "/runs/m/shards/1/turns.parquet", Times: 1, Before: func() {
		o := st.options(t, shards[1], rundir.Shard{Index: 1, Count: 2})
		o.URLMux = location.NewURLMux(location.MuxOptions{})
		mustRun(t, o)
	}})
	mopts := rundir.MergeOptions{URLMux: st.mux, WorkDir: t.TempDir(), RowGroupSize: 200}
	_, err := rundir.Merge(context.Background(), mopts, "s3://evals/runs/m/merged", shards...)
	if !errors.Is(err, location.ErrChanged) {
		t.Fatalf("merge while a shard is rewritten = %v, want ErrChanged", err)
	}
	t.Log(err)
	if keys := st.srv.Keys(t, "evals", "runs/m/merged"); len(keys) != 0 {
		t.Errorf("a failed merge published %v", keys)
	}
	if _, err := rundir.Merge(context.Background(), mopts, "s3://evals/runs/m/merged", shards...); err != nil {
		t.Fatalf("merge of the stable shards: %v", err)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	mustRun(t, baseOptions(st.local, ref))
	sameOutputsExceptInput(t, ref, st.fetch(t, "s3://evals/runs/m/merged"))
}

// TestS3PublishFails: a store that resets every upload of turns.parquet
// fails the run with a clear error, and leaves no run that looks complete
// in the bucket; once the store is back, --resume publishes the staged
// run without scoring again.
func TestS3PublishFails(t *testing.T) {
	st := newS3Store(t, 60)
	ref := filepath.Join(t.TempDir(), "ref")
	mustRun(t, baseOptions(st.local, ref))
	st.proxy.Add(s3test.Fault{Method: "PUT", Path: "/runs/p/turns.parquet", Reset: true, After: 5_000})
	o := st.options(t, "s3://evals/runs/p", rundir.Shard{})
	_, err := Run(context.Background(), o)
	if !errors.Is(err, location.ErrUnreadable) || !strings.Contains(err.Error(), "s3://evals/runs/p") {
		t.Fatalf("Run with a store that refuses the upload = %v, want ErrUnreadable naming the output", err)
	}
	t.Log(err)
	if _, ok := st.srv.Get(t, "evals", "runs/p/summary.json"); ok {
		t.Error("summary.json published by a run whose upload failed")
	}
	if _, ok := st.srv.Get(t, "evals", "runs/p/turns.parquet"); ok {
		t.Error("a partial turns.parquet is under its final name")
	}
	st.proxy.Clear()
	sc := &fakeScorer{}
	o.Resume, o.Scorer = true, sc
	var p recProgress
	o.Progress = &p
	mustRun(t, o)
	if sc.calls.Load() != 0 {
		t.Errorf("the resumed run scored again (%d calls)", sc.calls.Load())
	}
	sameOutputsExceptInput(t, ref, st.fetch(t, "s3://evals/runs/p"))
	st.noCheckpointLeft(t, "runs/p")
}

// TestS3ResumeFromBucket kills a shard (SIGKILL, in a child process) once
// its checkpoint is in the bucket, then resumes it as a rescheduled pod
// would: on a fresh work directory, from the bucket's copy alone.
func TestS3ResumeFromBucket(t *testing.T) {
	if os.Getenv("AEM_BATCH_S3_CHILD") != "" {
		return // the child's work is done by TestS3KillChild
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	st := newS3Store(t, 200)
	out := "s3://evals/runs/k/shards/1"
	shard := rundir.Shard{Index: 1, Count: 2}
	ref := filepath.Join(t.TempDir(), "ref")
	o := st.options(t, ref, shard)
	mustRun(t, o)

	killChild(t, "TestS3KillChild", []string{"AEM_BATCH_S3_CHILD=1", "AEM_BATCH_S3_OUT=" + out},
		"checkpoint of 2 parts in the bucket", func() bool {
			data, ok := st.srv.Get(t, "evals", "runs/k/shards/1/.aem-run/manifest.json")
			var m manifest
			return ok && json.Unmarshal(data, &m) == nil && len(m.Parts) >= 2
		})

	// Another machine: a new work directory.
	o = st.options(t, out, shard)
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrCheckpointExists) || !strings.Contains(err.Error(), out+"/.aem-run") {
		t.Fatalf("Run over the bucket's checkpoint without resume = %v, want ErrCheckpointExists naming it", err)
	}
	o.Resume = true
	var p recProgress
	o.Progress = &p
	mustRun(t, o)
	if p.start.ResumedDialogs == 0 {
		t.Error("resume restored no dialogs from the bucket")
	}
	t.Logf("resumed %d dialogs from the bucket", p.start.ResumedDialogs)
	sameOutputs(t, ref, st.fetch(t, out))
	st.noCheckpointLeft(t, "runs/k")
}

// TestS3KillChild is the child of TestS3ResumeFromBucket: a slow shard
// writing to the bucket, checkpointing often, that the parent kills.
func TestS3KillChild(t *testing.T) {
	if os.Getenv("AEM_BATCH_S3_CHILD") == "" {
		t.Skip("child process of TestS3ResumeFromBucket")
	}
	o := baseOptions(s3Golden, os.Getenv("AEM_BATCH_S3_OUT"))
	o.Shard = rundir.Shard{Index: 1, Count: 2}
	o.WorkDir = t.TempDir()
	o.CheckpointTurns = 40
	o.Scorer = &fakeScorer{before: func(int64) { time.Sleep(20 * time.Millisecond) }}
	Run(context.Background(), o)
}
