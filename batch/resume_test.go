package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// assertNotComplete checks that dir presents no final output and holds no
// temporary files.
func assertNotComplete(t *testing.T, dir string) {
	t.Helper()
	assertNoFinalOutputs(t, dir, false)
}

// assertNoFinalOutputs checks that dir presents no final output; a killed
// process may leave hidden temporary files (allowTemp), which the next run
// removes.
func assertNoFinalOutputs(t *testing.T, dir string, allowTemp bool) {
	t.Helper()
	for _, n := range []string{rundir.SummaryFile, rundir.TurnsFile, rundir.DialogsFile, rundir.OrdinalsFile} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("%s exists after a failed run", n)
		}
	}
	for _, n := range listDir(t, dir) {
		if !allowTemp && strings.Contains(filepath.Base(n), ".tmp-") && !strings.HasPrefix(n, rundir.CheckpointDir) {
			t.Errorf("temporary file %s left behind", n)
		}
	}
	// A run that failed before its checkpoint removes the directory it
	// created, leaving nothing; otherwise the checkpoint is there.
	if _, err := rundir.Open(context.Background(), dir, rundir.OpenOptions{}); !errors.Is(err, rundir.ErrIncomplete) && !errors.Is(err, rundir.ErrNotRun) {
		t.Errorf("rundir.Open after a failed run = %v, want rundir.ErrIncomplete or ErrNotRun", err)
	}
}

func TestResumeAfterCancel(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(150, 4))
	ref := filepath.Join(dir, "ref")
	mustRun(t, baseOptions(in, ref))

	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprint("out", i))
			stopAt := int64(2 + r.IntN(12))
			t.Logf("cancelling at scorer call %d", stopAt)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sc := &fakeScorer{before: func(n int64) {
				if n == stopAt {
					cancel()
				}
			}}
			o := baseOptions(in, out)
			o.Scorer = sc
			o.Workers = 1 + i%3
			if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled Run = %v, want context.Canceled", err)
			}
			assertNotComplete(t, out)
			// Without --resume the checkpoint is protected. (A run cancelled
			// before it committed anything leaves no checkpoint.)
			if m, ok, err := loadManifest(filepath.Join(out, rundir.CheckpointDir)); err != nil {
				t.Fatal(err)
			} else if ok && len(m.Parts) > 0 {
				if _, err := Run(context.Background(), baseOptions(in, out)); !errors.Is(err, ErrCheckpointExists) {
					t.Fatalf("Run over a checkpoint = %v, want ErrCheckpointExists", err)
				}
			} else if _, err := os.Stat(filepath.Join(out, rundir.CheckpointDir)); err == nil {
				t.Fatal("an empty checkpoint was left behind")
			}
			// Resume, possibly interrupted again, then to the end.
			o = baseOptions(in, out)
			o.Resume = true
			o.Workers = 3
			var p recProgress
			o.Progress = &p
			mustRun(t, o)
			sameOutputs(t, ref, out)
			if _, err := os.Stat(filepath.Join(out, rundir.CheckpointDir)); err == nil {
				t.Error("checkpoint left after a completed run")
			}
			if p.start.ResumedDialogs == 0 && p.done.DialogsDone > 0 && stopAt > 4 {
				t.Logf("note: nothing was checkpointed before the cancel")
			}
			if p.done.DialogsDone != 150 {
				t.Errorf("progress reports %d dialogs done, want 150", p.done.DialogsDone)
			}
		})
	}
}

// recProgress records progress reports.
type recProgress struct {
	total   int64
	updates int
	start   Stats // first update
	done    Stats
	err     error
	calls   []string
}

func (p *recProgress) Start(total int64) { p.total = total; p.calls = append(p.calls, "start") }
func (p *recProgress) Update(s Stats) {
	if p.updates == 0 {
		p.start = s
	}
	p.updates++
	if p.calls[len(p.calls)-1] != "update" {
		p.calls = append(p.calls, "update")
	}
}
func (p *recProgress) Done(s Stats, err error) {
	p.done, p.err = s, err
	p.calls = append(p.calls, "done")
}

func TestResumeMismatch(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(80, 5))
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	o := baseOptions(in, out)
	o.Workers = 1
	o.Scorer = &fakeScorer{before: func(n int64) {
		if n == 8 {
			cancel()
		}
	}}
	if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if m, ok, err := loadManifest(filepath.Join(out, rundir.CheckpointDir)); err != nil || !ok || len(m.Parts) == 0 {
		t.Fatalf("no checkpoint parts after cancel: %v %v %+v", ok, err, m)
	}
	other := writeGolden(t, t.TempDir(), genDialogs(80, 6))
	for name, mut := range map[string]func(*Options){
		"threshold": func(o *Options) { o.Metric = testMetric(t, func(c *metrics.Config) { c.Thresholds.Threshold = 0.7 }) },
		"cascade": func(o *Options) {
			o.Metric = testMetric(t, func(c *metrics.Config) { c.Cascade = metrics.CascadeChain })
		},
		"input":  func(o *Options) { o.Input = other },
		"shard":  func(o *Options) { o.Shard = rundir.Shard{Index: 1, Count: 2} },
		"scorer": func(o *Options) { o.Scorer = renamedScorer{} },
	} {
		t.Run(name, func(t *testing.T) {
			o := baseOptions(in, out)
			o.Resume = true
			mut(&o)
			if _, err := Run(context.Background(), o); !errors.Is(err, ErrResumeMismatch) {
				t.Fatalf("Run = %v, want ErrResumeMismatch", err)
			}
		})
	}
	// A checkpoint written before metric versions were recorded (or under
	// another version) is refused, naming both versions.
	mf := filepath.Join(out, rundir.CheckpointDir, manifestName)
	orig := readFile(t, mf)
	old := strings.Replace(string(orig), fmt.Sprintf(`"metric_version": %d,`, metrics.Version), "", 1)
	if old == string(orig) {
		t.Fatalf("the manifest has no metric_version: %s", orig)
	}
	os.WriteFile(mf, []byte(old), 0o644)
	o = baseOptions(in, out)
	o.Resume = true
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrResumeMismatch) || !strings.Contains(err.Error(), fmt.Sprintf("metric version 1, this aem scores under %d", metrics.Version)) {
		t.Fatalf("Run over an older version's checkpoint = %v, want ErrResumeMismatch naming the versions", err)
	}
	os.WriteFile(mf, orig, 0o644)

	// A corrupt part is reported as a corrupt checkpoint, with no output.
	pt, _, _ := partFiles(filepath.Join(out, rundir.CheckpointDir), "part-00001")
	good := readFile(t, pt)
	os.WriteFile(pt, good[:len(good)/2], 0o644)
	o = baseOptions(in, out)
	o.Resume = true
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrCorruptCheckpoint) {
		t.Fatalf("Run over a corrupt part = %v, want ErrCorruptCheckpoint", err)
	}
	assertNotComplete(t, out)
	os.WriteFile(pt, good, 0o644)

	// A corrupt manifest is reported as such.
	os.WriteFile(filepath.Join(out, rundir.CheckpointDir, manifestName), []byte("{not json"), 0o644)
	o = baseOptions(in, out)
	o.Resume = true
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrCorruptCheckpoint) {
		t.Fatalf("Run = %v, want ErrCorruptCheckpoint", err)
	}
}

type renamedScorer struct{ metrics.Lexical }

func (renamedScorer) ID() string { return "other" }

func TestResumeWithoutCheckpointStartsFresh(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(30, 7))
	ref, out := filepath.Join(dir, "ref"), filepath.Join(dir, "out")
	mustRun(t, baseOptions(in, ref))
	o := baseOptions(in, out)
	o.Resume = true
	mustRun(t, o)
	sameOutputs(t, ref, out)
}

// TestResumeAfterKill9 kills a run in a child process with SIGKILL after
// it has checkpointed, resumes it here and checks the result.
func TestResumeAfterKill9(t *testing.T) {
	if os.Getenv("AEM_BATCH_KILL_CHILD") != "" {
		return // the child's work is done by TestKillChild
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(200, 8))
	ref, out := filepath.Join(dir, "ref"), filepath.Join(dir, "out")
	mustRun(t, baseOptions(in, ref))

	killChild(t, "TestKillChild", []string{"AEM_BATCH_KILL_CHILD=1", "AEM_BATCH_KILL_IN=" + in, "AEM_BATCH_KILL_OUT=" + out},
		"a checkpoint of 3 parts", func() bool {
			m, ok, _ := loadManifest(filepath.Join(out, rundir.CheckpointDir))
			return ok && len(m.Parts) >= 3
		})
	assertNoFinalOutputs(t, out, true)
	o := baseOptions(in, out)
	o.Resume = true
	var p recProgress
	o.Progress = &p
	mustRun(t, o)
	if p.start.ResumedDialogs == 0 {
		t.Error("resume restored no dialogs")
	}
	sameOutputs(t, ref, out)
	if got := listDir(t, out); !slices.Equal(got, []string{rundir.DialogsFile, rundir.SummaryFile, rundir.TurnsFile}) {
		t.Errorf("run dir after resume holds %v", got)
	}
}

// killChild runs the test named child of this test binary in a process
// of its own with env added, kills it with SIGKILL as soon as ready
// (what, for the message) holds, and fails the test if it ended otherwise
// or was not ready within 60 s.
func killChild(t *testing.T, child string, env []string, what string, ready func() bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s made no %s within 60s", child, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("%s ended with %v, want killed by SIGKILL (did it finish first?)", child, err)
	}
}

// TestKillChild is the child of TestResumeAfterKill9: a slow run that the
// parent kills.
func TestKillChild(t *testing.T) {
	if os.Getenv("AEM_BATCH_KILL_CHILD") == "" {
		t.Skip("child process of TestResumeAfterKill9")
	}
	o := baseOptions(os.Getenv("AEM_BATCH_KILL_IN"), os.Getenv("AEM_BATCH_KILL_OUT"))
	o.CheckpointTurns = 40
	o.Scorer = &fakeScorer{before: func(int64) { time.Sleep(20 * time.Millisecond) }}
	Run(context.Background(), o)
}
