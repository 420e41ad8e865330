package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the txtar scripts under testdata/script run `aem` as a
// command, in process, the way a user would.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"aem": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Each
// script runs in its own temporary directory; $REPO is the repository root
// so scripts can reach the bundled example.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("REPO", repo)
			e.Setenv("AEM_HOME", filepath.Join(repo, ".aem"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "model":
				// The default model and ONNX Runtime, as scripts/setup installs them.
				_, err := os.Stat(filepath.Join(repo, ".aem", "models", "use-lite", "model.onnx"))
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}
