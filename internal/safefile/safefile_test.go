package safefile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aem-dev/aem/internal/safefile"
)

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := safefile.WriteFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.json"}) {
		t.Errorf("directory holds %v, want only out.json", got)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm()&0o044 == 0 {
		t.Errorf("mode %v: not readable by others (umask aside, want 0644)", st.Mode())
	}
}

func TestAbortKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "turns.parquet")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := safefile.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	if len(names(t, dir)) != 2 {
		t.Errorf("no temporary file beside the destination: %v", names(t, dir))
	}
	f.Abort()
	f.Abort() // twice is fine
	if err := f.Commit(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Commit after Abort = %v, want os.ErrClosed", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("destination = %q after Abort, want the old content", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"turns.parquet"}) {
		t.Errorf("directory holds %v after Abort", got)
	}
}

func TestWriteWithError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x")
	boom := errors.New("encoder failed")
	err := safefile.WriteWith(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the writer's error", err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("directory holds %v after a failed write", got)
	}
}

func TestCommitFailureRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	// A non-empty directory cannot be replaced by a rename.
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := safefile.WriteFile(path, []byte("data"))
	if err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"taken"}) {
		t.Errorf("directory holds %v after a failed commit", got)
	}
}

func TestCreateInMissingDirectory(t *testing.T) {
	_, err := safefile.Create(filepath.Join(t.TempDir(), "no", "such", "file"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want fs.ErrNotExist", err)
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"summary.json", "turns.parquet"} {
		f, err := safefile.Create(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("killed before commit"))
		// no Commit, no Abort: as after kill -9
	}
	os.WriteFile(filepath.Join(dir, "keep.txt"), nil, 0o644)
	if err := safefile.RemoveStale(dir, "summary.json"); err != nil {
		t.Fatal(err)
	}
	got := names(t, dir)
	if len(got) != 2 || !slices.Contains(got, "keep.txt") {
		t.Errorf("after RemoveStale(summary.json): %v, want keep.txt and the turns.parquet temp", got)
	}
	if err := safefile.RemoveStale(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("RemoveStale of a missing directory = %v", err)
	}
}

func TestSHA256(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "abc")
	os.WriteFile(path, []byte("abc"), 0o644)
	got, err := safefile.SHA256(path)
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want || err != nil {
		t.Errorf("SHA256 = %s, %v; want %s", got, err, want)
	}
	if _, err := safefile.SHA256(filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v, want fs.ErrNotExist", err)
	}
}
