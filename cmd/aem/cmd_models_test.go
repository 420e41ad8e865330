package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/models"
)

func modelsEnv(vars map[string]string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }}, &out, &errb
}

func TestModelsUsage(t *testing.T) {
	cases := [][]string{{}, {"frobnicate"}, {"pull"}, {"pull", "a/b", "c/d"}, {"verify", "a", "b"}, {"list", "x"}, {"convert", "a", "b"},
		{"convert", "--out", "somewhere"}, {"convert", "--precision", "int4"}}
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
	if !strings.HasPrefix(out.String(), "?\t-\t-\t-\t"+broken) {
		t.Errorf("list = %q", out)
	}
	// A directory whose name holds a tab, a line break and an escape keeps
	// its row's five columns, the characters shown.
	os.RemoveAll(broken)
	hostile := filepath.Join(home, "models", "a\tb\nc\x1b[2J")
	os.MkdirAll(hostile, 0o755)
	out.Reset()
	if err := runCommand(context.Background(), env, cmdModels(), []string{"list"}); err != nil {
		t.Fatal(err)
	}
	if want := "?\t-\t-\t-\t" + filepath.Join(home, "models", `a\tb\nc\x1b[2J`) + "\n"; out.String() != want {
		t.Errorf("list of a hostile name = %q, want %q", out, want)
	}
	os.RemoveAll(hostile)
	os.MkdirAll(broken, 0o755)
	err := runCommand(context.Background(), env, cmdModels(), []string{"verify", broken})
	if !errors.Is(err, models.ErrMissingFile) || !strings.Contains(err.Error(), broken) {
		t.Errorf("verify broken: err = %v", err)
	}
	// Default verify targets are HOME/models/use-lite-int8 and use-lite (from AEM_HOME).
	err = runCommand(context.Background(), env, cmdModels(), []string{"verify"})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, "models", "use-lite-int8")) || !strings.HasSuffix(strings.Split(err.Error(), "\n")[1], filepath.Join(home, "models", "use-lite")) {
		t.Errorf("verify default: err = %v", err)
	}
}

// TestModelsListPrecision: list gives each form of the default model its
// precision and marks the one aem runs by default.
func TestModelsListPrecision(t *testing.T) {
	home := t.TempDir()
	for _, m := range []models.Manifest{
		{Format: models.ManifestFormat, Name: "use-lite", Precision: "fp32", ID: "use-lite@sha256:aa", Dim: 512},
		{Format: models.ManifestFormat, Name: "use-lite-int8", Precision: "int8", ID: "use-lite-int8@sha256:bb", Dim: 512},
		{Format: models.ManifestFormat, Name: "org/mini", ID: "org/mini@sha256:cc", Dim: 384},
	} {
		dir := models.Dir(home, m.Name)
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env, out, _ := modelsEnv(map[string]string{"AEM_HOME": home})
	if err := runCommand(context.Background(), env, cmdModels(), []string{"list"}); err != nil {
		t.Fatal(err)
	}
	mark := map[string]string{"use-lite": "fp32", "use-lite-int8": "int8"}
	mark[embed.DefaultModelName] += " (default)"
	want := "org/mini\torg/mini@sha256:cc\t384\t-\t" + models.Dir(home, "org/mini") + "\n" +
		"use-lite\tuse-lite@sha256:aa\t512\t" + mark["use-lite"] + "\t" + models.Dir(home, "use-lite") + "\n" +
		"use-lite-int8\tuse-lite-int8@sha256:bb\t512\t" + mark["use-lite-int8"] + "\t" + models.Dir(home, "use-lite-int8") + "\n"
	if out.String() != want {
		t.Errorf("list:\n%s\nwant:\n%s", out, want)
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
