package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/models"
)

func modelsEnv(vars map[string]string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }}, &out, &errb
}

func TestModelsUsage(t *testing.T) {
	cases := [][]string{{}, {"frobnicate"}, {"pull"}, {"pull", "a/b", "c/d"}, {"verify", "a", "b"}, {"list", "x"}, {"convert", "a", "b"}}
	for _, args := range cases {
		env, _, _ := modelsEnv(nil)
		err := runCommand(context.Background(), env, cmdModels(), args)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("models %v: err = %v, want a usage error", args, err)
		}
	}
}

func TestModelsListVerify(t *testing.T) {
	home := t.TempDir()
	env, out, errb := modelsEnv(map[string]string{"AEM_HOME": home})
	if err := runCommand(context.Background(), env, cmdModels(), []string{"list"}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "no models under") {
		t.Errorf("empty list: stdout %q stderr %q", out, errb)
	}
	// A broken model directory is listed with its problem; verify fails naming it.
	broken := filepath.Join(home, "models", "broken")
	os.MkdirAll(broken, 0o755)
	out.Reset()
	if err := runCommand(context.Background(), env, cmdModels(), []string{"list"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "?\t-\t-\t"+broken) {
		t.Errorf("list = %q", out)
	}
	err := runCommand(context.Background(), env, cmdModels(), []string{"verify", broken})
	if !errors.Is(err, models.ErrMissingFile) || !strings.Contains(err.Error(), broken) {
		t.Errorf("verify broken: err = %v", err)
	}
	// Default verify target is HOME/models/use-lite (from AEM_HOME).
	err = runCommand(context.Background(), env, cmdModels(), []string{"verify"})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, "models", "use-lite")) {
		t.Errorf("verify default: err = %v", err)
	}
}

func TestModelsConvertMissingSource(t *testing.T) {
	home := t.TempDir()
	env, _, _ := modelsEnv(nil)
	err := runCommand(context.Background(), env, cmdModels(), []string{"convert", "--home", home})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, "cache")) || !strings.Contains(err.Error(), "scripts/setup") {
		t.Errorf("err = %v, want one naming the cached tarball and scripts/setup", err)
	}
}
