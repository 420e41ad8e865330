package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/blobtest"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
)

func TestParseShardAndEnv(t *testing.T) {
	for _, c := range []struct {
		in   string
		want rundir.Shard
		ok   bool
	}{{"0/4", rundir.Shard{Index: 0, Count: 4}, true}, {" 3 / 4 ", rundir.Shard{Index: 3, Count: 4}, true}, {"4/4", rundir.Shard{}, false}, {"-1/2", rundir.Shard{}, false}, {"1", rundir.Shard{}, false}, {"a/b", rundir.Shard{}, false}, {"0/0", rundir.Shard{}, false}} {
		got, err := rundir.ParseShard(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("rundir.ParseShard(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !errors.Is(err, rundir.ErrBadShard) {
			t.Errorf("rundir.ParseShard(%q) error %v does not wrap rundir.ErrBadShard", c.in, err)
		}
	}
	for _, c := range []struct {
		env    map[string]string
		want   rundir.Shard
		ok     bool
		hasErr bool
	}{
		{map[string]string{}, rundir.Shard{}, false, false},
		{map[string]string{"JOB_COMPLETION_INDEX": "2", "JOB_COMPLETIONS": "5"}, rundir.Shard{Index: 2, Count: 5}, true, false},
		{map[string]string{"JOB_COMPLETION_INDEX": "2"}, rundir.Shard{}, true, true},
		{map[string]string{"JOB_COMPLETION_INDEX": "5", "JOB_COMPLETIONS": "5"}, rundir.Shard{}, true, true},
	} {
		got, ok, err := shardFromLookup(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		if got != c.want || ok != c.ok || (err != nil) != c.hasErr || err != nil && !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("env %v: got %v %v %v", c.env, got, ok, err)
		}
	}
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	t.Setenv("JOB_COMPLETIONS", "3")
	if s, ok, err := ShardFromEnv(); err != nil || !ok || s != (rundir.Shard{Index: 1, Count: 3}) {
		t.Errorf("ShardFromEnv() = %v %v %v", s, ok, err)
	}
}

func TestShardsPartitionDialogs(t *testing.T) {
	counts := make([]int, 4)
	for i := range 4000 {
		id := fmt.Sprintf("dialog-%d", i)
		n := 0
		for k := range 4 {
			if (rundir.Shard{Index: k, Count: 4}).Contains(id) {
				n++
				counts[k]++
			}
		}
		if n != 1 {
			t.Fatalf("%s is in %d shards", id, n)
		}
	}
	for k, c := range counts {
		if c < 900 || c > 1100 {
			t.Errorf("shard %d holds %d of 4000 dialogs: unbalanced", k, c)
		}
	}
}

func TestShardsMergeEqualsSingleRun(t *testing.T) {
	dir := t.TempDir()
	for _, extras := range []bool{false, true} {
		t.Run(fmt.Sprint("extras=", extras), func(t *testing.T) {
			ds := genDialogs(90, 9)
			in := writeGolden(t, dir, ds)
			if extras {
				in = writeGoldenExtras(t, dir, ds)
			}
			ref := filepath.Join(dir, fmt.Sprint("ref", extras))
			mustRun(t, baseOptions(in, ref))
			var shards []string
			total := 0
			for _, k := range []int{2, 0, 1} {
				out := filepath.Join(dir, fmt.Sprintf("shard%d-%v", k, extras))
				o := baseOptions(in, out)
				o.Shard = rundir.Shard{Index: k, Count: 3}
				s := mustRun(t, o)
				total += s.Dialogs
				if s.Settings["shard"] != o.Shard.String() {
					t.Errorf("shard summary settings %v", s.Settings)
				}
				if got := listDir(t, out); !slices.Equal(got, []string{rundir.DialogsFile, rundir.OrdinalsFile, rundir.SummaryFile, rundir.TurnsFile}) {
					t.Errorf("shard dir holds %v", got)
				}
				shards = append(shards, out)
			}
			if total != len(ds) {
				t.Fatalf("shards hold %d dialogs, want %d", total, len(ds))
			}
			merged := filepath.Join(dir, fmt.Sprint("merged", extras))
			if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{RowGroupSize: 200}, merged, shards...); err != nil {
				t.Fatal(err)
			}
			sameOutputs(t, ref, merged)

			// Bad shard sets.
			if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{}, t.TempDir(), shards[:2]...); !errors.Is(err, rundir.ErrShardMismatch) {
				t.Errorf("merging 2 of 3 shards: %v, want rundir.ErrShardMismatch", err)
			}
			if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{}, t.TempDir(), shards[0], shards[0], shards[1]); !errors.Is(err, rundir.ErrShardMismatch) {
				t.Errorf("merging a shard twice: %v, want rundir.ErrShardMismatch", err)
			}
			if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{}, t.TempDir(), ref); !errors.Is(err, rundir.ErrShardMismatch) {
				t.Errorf("merging an unsharded run: %v, want rundir.ErrShardMismatch", err)
			}
			if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{}, t.TempDir(), filepath.Join(dir, "nope"), shards[1], shards[2]); !errors.Is(err, rundir.ErrNotRun) || !errors.Is(err, badinput.ErrInvalid) {
				t.Errorf("merging a missing dir: %v, want rundir.ErrNotRun", err)
			}
		})
	}
}

func TestMergeRejectsOtherSettings(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(20, 10))
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	o := baseOptions(in, a)
	o.Shard = rundir.Shard{Index: 0, Count: 2}
	mustRun(t, o)
	o = baseOptions(in, b)
	o.Shard = rundir.Shard{Index: 1, Count: 2}
	o.Metric = testMetric(t, func(c *metrics.Config) { c.Thresholds.Threshold = 0.8 })
	mustRun(t, o)
	if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{}, filepath.Join(dir, "m"), a, b); !errors.Is(err, rundir.ErrShardMismatch) {
		t.Fatalf("Merge = %v, want rundir.ErrShardMismatch", err)
	}

	// Shards scored under different metric versions (b's summary from an
	// aem before versions were recorded) are refused, naming both.
	o = baseOptions(in, b)
	o.Shard = rundir.Shard{Index: 1, Count: 2}
	mustRun(t, o)
	sum := filepath.Join(b, rundir.SummaryFile)
	old := strings.Replace(string(readFile(t, sum)), fmt.Sprintf(`"metric_version": %d,`, metrics.Version), "", 1)
	if err := os.WriteFile(sum, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := rundir.Merge(context.Background(), rundir.MergeOptions{}, filepath.Join(dir, "m2"), a, b)
	if !errors.Is(err, rundir.ErrShardMismatch) || !strings.Contains(err.Error(), fmt.Sprintf("metric version 1, %s under %d", a, metrics.Version)) {
		t.Fatalf("Merge of two metric versions = %v, want rundir.ErrShardMismatch naming both", err)
	}
}

// sharedMem serves one in-memory bucket for every URL of scheme "memtest".
type sharedMem struct{ b *blob.Bucket }

func (s sharedMem) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return blob.NewBucket(blobtest.Driver{B: s.b, KeepOpen: true}), nil
}

// dirBlob serves fileblob buckets rooted at a directory for scheme "dirtest".
type dirBlob struct{ root string }

func (d dirBlob) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return fileblob.OpenBucket(filepath.Join(d.root, u.Host), &fileblob.Options{CreateDir: true, NoTempDir: true})
}

func TestObjectStoreLocations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(40, 11))
	ref := filepath.Join(dir, "ref")
	mustRun(t, baseOptions(in, ref))

	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	fileRoot := filepath.Join(dir, "fileroot")
	mux := new(blob.URLMux)
	mux.RegisterBucket("memtest", sharedMem{mem})
	mux.RegisterBucket("dirtest", dirBlob{fileRoot})
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.WriteAll(ctx, "in/golden.parquet", data, nil); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ name, input, out string }{
		{"mem", "memtest://bucket/in/golden.parquet", "memtest://bucket/runs/r1"},
		{"fileblob", "memtest://bucket/in/golden.parquet", "dirtest://b1/runs/r1"},
		{"file-url", "file://" + in, "file://" + filepath.Join(dir, "fileurl")},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := baseOptions(c.input, c.out)
			o.URLMux = mux
			o.WorkDir = t.TempDir()
			mustRun(t, o)
			if left := listDir(t, o.WorkDir); len(left) != 0 {
				t.Errorf("work dir not cleaned: %v", left)
			}
			rd, err := rundir.Open(ctx, c.out, rundir.OpenOptions{URLMux: mux, WorkDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			sameOutputsExceptInput(t, ref, rd.Dir())
		})
	}

	// Sharded run to the object store, merged there.
	var shards []string
	for k := range 2 {
		o := baseOptions("memtest://bucket/in/golden.parquet", fmt.Sprintf("memtest://bucket/shards/%d", k))
		o.URLMux, o.WorkDir, o.Shard = mux, t.TempDir(), rundir.Shard{Index: k, Count: 2}
		mustRun(t, o)
		shards = append(shards, o.OutDir)
	}
	if _, err := rundir.Merge(ctx, rundir.MergeOptions{URLMux: mux, WorkDir: t.TempDir(), RowGroupSize: 200}, "memtest://bucket/merged", shards...); err != nil {
		t.Fatal(err)
	}
	got, err := mem.ReadAll(ctx, "merged/turns.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, readFile(t, filepath.Join(ref, rundir.TurnsFile))) {
		t.Error("merged turns.parquet in the bucket differs from the single run's")
	}

	// Unreadable locations.
	for _, u := range []string{"memtest://bucket/in/missing.parquet", "nosuchscheme://x/y.parquet"} {
		o := baseOptions(u, filepath.Join(dir, "bad"))
		o.URLMux = mux
		if _, err := Run(ctx, o); !errors.Is(err, location.ErrUnreadable) {
			t.Errorf("Run(%s) = %v, want location.ErrUnreadable", u, err)
		}
	}
	if _, err := rundir.Open(ctx, "memtest://bucket/nothing", rundir.OpenOptions{URLMux: mux}); !errors.Is(err, rundir.ErrIncomplete) {
		t.Errorf("rundir.Open of an empty prefix = %v, want rundir.ErrIncomplete", err)
	}
}

// sameOutputsExceptInput is sameOutputs for runs whose input was named
// differently.
func sameOutputsExceptInput(t *testing.T, a, b string) {
	t.Helper()
	for _, n := range []string{rundir.TurnsFile, rundir.DialogsFile} {
		if !bytes.Equal(readFile(t, filepath.Join(a, n)), readFile(t, filepath.Join(b, n))) {
			t.Errorf("%s differs between %s and %s", n, a, b)
		}
	}
	sa, _ := rundir.ReadSummary(a)
	sb, err := rundir.ReadSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	sa.Timings, sb.Timings, sa.Input, sb.Input = nil, nil, "", ""
	if mustJSON(t, sa) != mustJSON(t, sb) {
		t.Errorf("summaries differ")
	}
}
