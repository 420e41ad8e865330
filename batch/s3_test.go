package batch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aem-dev/aem/rundir"
)

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
			data, ok := st.Objects.Get(t, "evals", "runs/k/shards/1/.aem-run/manifest.json")
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
	o := baseOptions("s3://evals/golden/in.parquet", os.Getenv("AEM_BATCH_S3_OUT"))
	o.Shard = rundir.Shard{Index: 1, Count: 2}
	o.WorkDir = t.TempDir()
	o.CheckpointTurns = 40
	o.Scorer = &fakeScorer{before: func(int64) { time.Sleep(20 * time.Millisecond) }}
	Run(context.Background(), o)
}
