package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aem-dev/aem/models/onnxpb"
)

// fakeHub serves one repository the way huggingface.co does for the endpoints
// go-huggingface uses: the revision info and
// /ORG/NAME/resolve/COMMIT/FILE with an ETag.
func fakeHub(t *testing.T, repo string, files map[string][]byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	var requests atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/api/models/"+repo+"/revision/main", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var sib []map[string]string
		for name := range files {
			sib = append(sib, map[string]string{"rfilename": name})
		}
		json.NewEncoder(w).Encode(map[string]any{"id": repo, "sha": commit, "siblings": sib})
	})
	mux.HandleFunc("/"+repo+"/resolve/"+commit+"/", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		name := strings.TrimPrefix(r.URL.Path, "/"+repo+"/resolve/"+commit+"/")
		b, ok := files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		s := sha256.Sum256(b)
		w.Header().Set("ETag", `"`+hex.EncodeToString(s[:])+`"`)
		w.Header().Set("X-Repo-Commit", commit)
		w.Write(b)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	return srv, &requests
}

func TestPull(t *testing.T) {
	m := tinyEncoder()
	onnx, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	repo := "acme/tiny-encoder"
	_, requests := fakeHub(t, repo, map[string][]byte{
		"onnx/model.onnx":       onnx,
		"onnx/model_O4.onnx":    []byte("another export"),
		"tokenizer.json":        []byte(tinyTokenizer),
		"config.json":           []byte(`{"hidden_size":2}`),
		"modules.json":          []byte(`[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"}]`),
		"1_Pooling/config.json": []byte(`{"word_embedding_dimension":2,"pooling_mode_cls_token":true}`),
		"README.md":             []byte("not needed"),
	})
	home := t.TempDir()
	dest := Dir(home, repo)
	ctx := context.Background()
	man, err := Pull(ctx, repo, dest, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if man.Name != repo || man.Source.Kind != "huggingface" || man.Source.Repo != repo || man.Pooling != "cls" || man.Dim != 2 {
		t.Errorf("manifest = %+v", man)
	}
	s := sha256.Sum256(onnx)
	if man.ID != repo+"@sha256:"+hex.EncodeToString(s[:]) {
		t.Errorf("ID = %s, want the sha256 of the weights", man.ID)
	}
	for _, f := range []string{ModelFile, TokenizerFile, ModulesFile, PoolingConfigFile, ManifestFile, "config.json"} {
		if _, err := os.Stat(filepath.Join(dest, filepath.FromSlash(f))); err != nil {
			t.Errorf("%s not installed: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dest, "README.md")); err == nil {
		t.Error("README.md was downloaded")
	}
	if _, err := Verify(ctx, dest); err != nil {
		t.Errorf("Verify after Pull: %v", err)
	}
	if l, _ := List(home); len(l) != 1 || l[0].Manifest.ID != man.ID {
		t.Errorf("List = %+v", l)
	}
	// Pulling again needs Force; with it, the model is replaced.
	if _, err := Pull(ctx, repo, dest, PullOptions{}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("second Pull: err = %v, want a hint to use --force", err)
	}
	if _, err := Pull(ctx, repo, dest, PullOptions{Force: true}); err != nil {
		t.Errorf("Pull --force: %v", err)
	}
	if requests.Load() == 0 {
		t.Error("the fake hub saw no requests")
	}
	entries, _ := os.ReadDir(filepath.Dir(dest))
	if len(entries) != 1 {
		t.Errorf("leftovers beside the model: %v", entries)
	}
}

func TestPullErrors(t *testing.T) {
	tiny := tinyEncoder()
	good, _ := tiny.Marshal()
	cases := []struct {
		name  string
		repo  string
		files map[string][]byte
		opts  PullOptions
		want  string
		is    error
	}{
		{"bad name", "not-a-repo", nil, PullOptions{}, "want ORG/NAME", ErrBadRepo},
		{"path traversal", "../etc", nil, PullOptions{}, "want ORG/NAME", ErrBadRepo},
		{"no onnx", "acme/none", map[string][]byte{"tokenizer.json": []byte(tinyTokenizer)}, PullOptions{}, "no .onnx file", ErrMissingFile},
		{"onnx elsewhere", "acme/elsewhere", map[string][]byte{"model.onnx": good, "tokenizer.json": []byte(tinyTokenizer)},
			PullOptions{}, "no onnx/model.onnx; its ONNX files: [model.onnx]", ErrMissingFile},
		{"no tokenizer", "acme/notok", map[string][]byte{"onnx/model.onnx": good}, PullOptions{}, "no tokenizer.json", ErrMissingFile},
		{"other onnx file", "acme/other", map[string][]byte{"model.onnx": good, "tokenizer.json": []byte(tinyTokenizer)},
			PullOptions{OnnxFile: "model.onnx"}, "", nil},
		{"bad output", "acme/badout", map[string][]byte{"onnx/model.onnx": mustMarshal(t, tinyEncoder(onnxpb.TensorInfo("logits", onnxpb.Float, onnxpb.P("batch")))),
			"tokenizer.json": []byte(tinyTokenizer)}, PullOptions{}, "logits FLOAT[batch]", ErrBadModel},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.files != nil {
				fakeHub(t, c.repo, c.files)
			}
			dest := filepath.Join(t.TempDir(), "m")
			_, err := Pull(context.Background(), c.repo, dest, PullOptions{OnnxFile: c.opts.OnnxFile, Attempts: 1})
			if c.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
				t.Fatalf("err = %v, want %q (%v)", err, c.want, c.is)
			}
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Errorf("dest exists after a failed pull")
			}
		})
	}
}

func mustMarshal(t *testing.T, m onnxpb.Model) []byte {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
