package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/aem-dev/aem/internal/s3test"
)

// TestS3CommandLine runs aem as a user would against a real S3 server
// behind a proxy that fails some requests: shards into the bucket, a merge
// there, show of the merged run. The credentials reach aem through the
// environment only, and no key appears in any output, log or object; the
// retries are on stderr; the merged files are a local run's.
func TestS3CommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs aem six times")
	}
	srv := s3test.Start(t)
	proxy := s3test.NewProxy(t, srv.Endpoint)
	srv.Bucket(t, "evals")
	dir := t.TempDir()
	env := append(srv.Env(proxy.URL), "AEM_SCORER=lexical", "AEM_WORK_DIR="+filepath.Join(dir, "work"))
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	var outputs []string // everything aem printed
	run := func(want int, args ...string) string {
		t.Helper()
		cmd, stderr := aemCmd(t, dir, env, args...)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		code := exitCode(t, cmd.Run())
		outputs = append(outputs, stdout.String(), stderr.String())
		if code != want {
			t.Fatalf("aem %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, stderr)
		}
		return stderr.String()
	}
	run(0, "gen", "--dialogs", "80", "--seed", "5", "-o", "golden.parquet")
	golden, err := os.ReadFile(filepath.Join(dir, "golden.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Put(t, "evals", "golden/nightly.parquet", golden)
	run(0, "run", "golden.parquet", "-o", "local", "--quiet")

	proxy.Add(s3test.Fault{Method: "PUT", Path: "/shards/0/turns.parquet", Status: 503, Times: 1})
	proxy.Add(s3test.Fault{Method: "GET", Path: "/golden/nightly.parquet", Reset: true, After: 10_000, Times: 1})
	stderr := run(0, "run", "s3://evals/golden/nightly.parquet", "-o", "s3://evals/runs/x/shards/0", "--shard", "0/2", "--quiet")
	for _, want := range []string{
		"aem: object store: PutObject s3://evals/runs/x/shards/0/turns.parquet failed, retrying",
		"aem: object store: reading s3://evals/golden/nightly.parquet broke at byte 10000",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	run(0, "run", "s3://evals/golden/nightly.parquet", "-o", "s3://evals/runs/x/shards/1", "--shard", "1/2", "--quiet")
	run(0, "merge", "-o", "s3://evals/runs/x/merged", "s3://evals/runs/x/shards/0", "s3://evals/runs/x/shards/1")
	run(0, "show", "s3://evals/runs/x/merged")
	for _, f := range []string{"turns.parquet", "dialogs.parquet"} {
		want, _ := os.ReadFile(filepath.Join(dir, "local", f))
		if got, ok := srv.Get(t, "evals", "runs/x/merged/"+f); !ok || !bytes.Equal(got, want) {
			t.Errorf("merged %s in the bucket (%d bytes) differs from the local run's (%d bytes)", f, len(got), len(want))
		}
	}

	// A wrong secret: exit 1, an error that names the object, no key.
	env = append(env, "AWS_SECRET_ACCESS_KEY=not-"+srv.SecretKey)
	stderr = run(1, "run", "s3://evals/golden/nightly.parquet", "-o", "out2", "--quiet")
	if !strings.Contains(stderr, "s3://evals/golden/nightly.parquet") {
		t.Errorf("the error does not name the object:\n%s", stderr)
	}

	// No key anywhere: what aem printed, the objects, the work directory.
	noSecret(t, outputs, srv, "s3", dir, regexp.MustCompile(regexp.QuoteMeta(srv.AccessKey)+"|"+regexp.QuoteMeta(srv.SecretKey)))
}

// objects is how a test inspects a store behind aem's back;
// s3test.Server and gcstest.Server both are.
type objects interface {
	Get(t testing.TB, bucket, key string) ([]byte, bool)
	Keys(t testing.TB, bucket, prefix string) []string
}

// noSecret fails the test if secret matches anything aem printed
// (printed), any object in the bucket "evals" of srv, or any file under
// dir.
func noSecret(t *testing.T, printed []string, srv objects, scheme, dir string, secret *regexp.Regexp) {
	t.Helper()
	texts := slices.Clone(printed)
	places := make([]string, len(printed))
	for i := range places {
		places[i] = fmt.Sprintf("output %d of aem", i+1)
	}
	for _, k := range srv.Keys(t, "evals", "") {
		data, _ := srv.Get(t, "evals", k)
		texts = append(texts, string(data))
		places = append(places, scheme+"://evals/"+k)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			texts = append(texts, string(data))
			places = append(places, p)
		}
		return nil
	})
	for i, s := range texts {
		if secret.MatchString(s) {
			t.Errorf("a credential reached %s (of %d places looked at)", places[i], len(texts))
		}
	}
}

// readmeManifest returns the Kubernetes Job manifest the README shows
// (the yaml block with "kind: Job").
func readmeManifest(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(m[1], "kind: Job") {
			return m[1]
		}
	}
	t.Fatal("the README shows no yaml block with kind: Job")
	return ""
}

// indexedJob is the part of a Job manifest the test reads.
type indexedJob struct {
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Args []string `yaml:"args"`
					Env  []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestIndexedJobMatchesExampleShards holds the README's Kubernetes
// Indexed Job to scripts/k8s-indexed-job.yaml and to the command line
// scripts/example-shards runs for each shard: the same arguments (with
// the pod's $(VAR) expanded) and every variable the manifest sets.
func TestIndexedJobMatchesExampleShards(t *testing.T) {
	manifest := readmeManifest(t)
	file, err := os.ReadFile("../../scripts/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if manifest != string(file) {
		t.Fatal("the README's manifest differs from scripts/k8s-indexed-job.yaml")
	}
	var job indexedJob
	if err := yaml.Unmarshal(file, &job); err != nil {
		t.Fatalf("parsing the manifest: %v", err)
	}
	if job.Spec.CompletionMode != "Indexed" || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("the manifest is not an Indexed Job of one container: %+v", job.Spec)
	}
	c := job.Spec.Template.Spec.Containers[0]
	const index = "3"
	podEnv := map[string]string{"JOB_COMPLETION_INDEX": index}
	for _, e := range c.Env {
		podEnv[e.Name] = e.Value
	}
	if podEnv["JOB_COMPLETIONS"] != strconv.Itoa(job.Spec.Completions) {
		t.Errorf("JOB_COMPLETIONS is %q, spec.completions %d", podEnv["JOB_COMPLETIONS"], job.Spec.Completions)
	}
	var want []string
	for _, a := range c.Args {
		want = append(want, regexp.MustCompile(`\$\((\w+)\)`).ReplaceAllStringFunc(a, func(v string) string {
			return podEnv[v[2:len(v)-1]]
		}))
	}

	cmd := exec.Command("bash", "../../scripts/example-shards", "--print-shard-command", "--shards", podEnv["JOB_COMPLETIONS"])
	cmd.Env = append(os.Environ(), "JOB_COMPLETION_INDEX="+index, "RUN_DATE="+podEnv["RUN_DATE"])
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/example-shards --print-shard-command: %v", err)
	}
	var got []string
	scriptEnv := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "arg":
			got = append(got, rest)
		case "env":
			k, v, _ := strings.Cut(rest, "=")
			scriptEnv[k] = v
		default:
			t.Fatalf("unexpected line from the script: %q", line)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("a shard's arguments differ:\n  manifest: %q\n  script:   %q", want, got)
	}
	for name, v := range podEnv {
		sv, ok := scriptEnv[name]
		switch {
		case !ok:
			t.Errorf("the manifest sets %s, the script does not", name)
		case name != "AEM_WORK_DIR" && sv != v: // each process of the script has a work dir of its own
			t.Errorf("%s is %q in the manifest, %q in the script", name, v, sv)
		}
	}
}

// TestExampleShards runs scripts/example-shards (2 shards, 200 dialogs,
// the lexical scorer) and checks that it prints the byte-identical check.
func TestExampleShards(t *testing.T) {
	if testing.Short() {
		t.Skip("builds aem and runs it five times")
	}
	if _, err := s3test.Find(); err != nil {
		s3test.Start(t) // skips, or fails under scripts/test, saying how to get the server
	}
	cmd := exec.Command("bash", "scripts/example-shards", "--shards", "2", "--dialogs", "200")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "AEM_SCORER=lexical", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/example-shards: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "byte-identical: "); n != 2 {
		t.Errorf("the script printed %d byte-identical checks, want 2:\n%s", n, out)
	}
	t.Logf("%s", out)
}
