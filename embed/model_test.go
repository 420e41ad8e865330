package embed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/safefile"

	"github.com/aem-dev/aem/models/onnxpb"
)

// Models whose inputs or outputs are not a text embedder's are refused with
// their actual names and shapes, on every backend.
func TestRefusesUnexpectedModels(t *testing.T) {
	base := func() onnxpb.Model { return gatherModel(false) }
	cases := []struct {
		name   string
		model  func() onnxpb.Model
		extra  map[string]string
		expect []string // substrings of the error
	}{
		{"rank-1 output", func() onnxpb.Model {
			m := base()
			m.Graph.Nodes = append(m.Graph.Nodes[:1], onnxpb.Op("ReduceMean", []string{"tok"}, []string{"last_hidden_state"}, onnxpb.AttrIs("axes", 1, 2), onnxpb.AttrI("keepdims", 0)))
			m.Graph.Outputs[0] = onnxpb.TensorInfo("last_hidden_state", onnxpb.Float, onnxpb.P("batch"))
			return m
		}, nil, []string{"rank 1", "last_hidden_state float32[?]", "input_ids int64[?,?]"}},
		{"float input", func() onnxpb.Model {
			m := base()
			m.Graph.Inputs = append(m.Graph.Inputs, onnxpb.TensorInfo("pixel_values", onnxpb.Float, onnxpb.P("batch"), onnxpb.D(3)))
			return m
		}, nil, []string{`unknown input "pixel_values"`, "pixel_values float32[?,3]"}},
		{"no input_ids", func() onnxpb.Model {
			m := base()
			m.Graph.Inputs[0].Name = "ids"
			m.Graph.Nodes[0].Inputs[1] = "ids"
			return m
		}, nil, []string{`unknown input "ids"`}},
		{"manifest names a missing output", base, map[string]string{ManifestFile: `{"name":"t","output":"sentence_vec"}`}, []string{`no output named "sentence_vec"`}},
		{"token-level output but pooling none", base, map[string]string{ManifestFile: `{"name":"t","pooling":"none"}`}, []string{"token-level", "pooling none"}},
		{"width disagrees with config", base, map[string]string{"1_Pooling/config.json": `{"word_embedding_dimension": 7, "pooling_mode_mean_tokens": true}`}, []string{"width 3", "says 7"}},
	}
	for _, be := range testBackends(t) {
		for _, c := range cases {
			t.Run(be+"/"+c.name, func(t *testing.T) {
				dir := writeModelDir(t, c.model(), "unigram", c.extra)
				o := Options{ModelDir: dir, Backend: be}
				if be == BackendORT {
					o.ORTLib = ortLib(t)
				}
				e, err := Open(context.Background(), o)
				if err == nil {
					e.Close()
					t.Fatal("Open accepted the model")
				}
				if !errors.Is(err, ErrModelUnsupported) {
					t.Fatalf("error %v is not ErrModelUnsupported", err)
				}
				for _, s := range c.expect {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
			})
		}
	}
}

func TestModelDirErrors(t *testing.T) {
	good := func(t *testing.T) string { return writeModelDir(t, pooledModel(), "unigram", nil) }
	cases := []struct {
		name    string
		setup   func(t *testing.T) string
		want    error
		mention []string
	}{
		{"missing dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") }, ErrModelMissing, []string{"nope", "scripts/setup"}},
		{"not a dir", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "f")
			os.WriteFile(p, []byte("x"), 0o644)
			return p
		}, ErrModelMissing, []string{"not a directory"}},
		{"no model.onnx", func(t *testing.T) string {
			d := good(t)
			os.Remove(filepath.Join(d, "model.onnx"))
			return d
		}, ErrModelMissing, []string{"no model.onnx", "scripts/setup"}},
		{"manifest names a missing weights file", func(t *testing.T) string {
			d := good(t)
			os.WriteFile(filepath.Join(d, ManifestFile), []byte(`{"model":"weights.onnx"}`), 0o644)
			return d
		}, ErrModelMissing, []string{"weights.onnx"}},
		{"corrupt model.onnx", func(t *testing.T) string {
			d := good(t)
			os.WriteFile(filepath.Join(d, "model.onnx"), []byte("this is not a protobuf \xff\xff\xff"), 0o644)
			return d
		}, ErrModelInvalid, []string{"model.onnx", "scripts/setup"}},
		{"truncated model.onnx", func(t *testing.T) string {
			d := good(t)
			b, _ := os.ReadFile(filepath.Join(d, "model.onnx"))
			os.WriteFile(filepath.Join(d, "model.onnx"), b[:len(b)/2], 0o644)
			return d
		}, ErrModelInvalid, []string{"model.onnx"}},
		{"sha256 mismatch", func(t *testing.T) string {
			d := good(t)
			os.WriteFile(filepath.Join(d, ManifestFile), []byte(`{"name":"t","sha256":"00ff"}`), 0o644)
			return d
		}, ErrModelInvalid, []string{"00ff", "re-run scripts/setup"}},
		{"corrupt manifest", func(t *testing.T) string {
			d := good(t)
			os.WriteFile(filepath.Join(d, ManifestFile), []byte(`{"name":`), 0o644)
			return d
		}, ErrModelInvalid, []string{ManifestFile}},
		{"missing tokenizer", func(t *testing.T) string {
			d := good(t)
			os.Remove(filepath.Join(d, "tokenizer.json"))
			return d
		}, ErrModelMissing, []string{"tokenizer.json"}},
		{"corrupt tokenizer", func(t *testing.T) string {
			d := good(t)
			os.WriteFile(filepath.Join(d, "tokenizer.json"), []byte(`{"model": {"type": "Unigram", "vocab": `), 0o644)
			return d
		}, ErrTokenizer, []string{"tokenizer.json"}},
		{"unsupported tokenizer", func(t *testing.T) string {
			d := good(t)
			os.WriteFile(filepath.Join(d, "tokenizer.json"), []byte(`{"model": {"type": "Mystery"}}`), 0o644)
			return d
		}, ErrTokenizer, []string{"tokenizer.json"}},
	}
	for _, be := range testBackends(t) {
		for _, c := range cases {
			t.Run(be+"/"+c.name, func(t *testing.T) {
				o := Options{ModelDir: c.setup(t), Backend: be}
				if be == BackendORT {
					o.ORTLib = ortLib(t)
				}
				e, err := Open(context.Background(), o)
				if err == nil {
					e.Close()
					t.Fatal("Open succeeded")
				}
				if !errors.Is(err, c.want) {
					t.Fatalf("error %v, want %v", err, c.want)
				}
				for _, s := range c.mention {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
			})
		}
	}
}

func TestModelIDAndManifest(t *testing.T) {
	dir := writeModelDir(t, pooledModel(), "unigram", map[string]string{
		ManifestFile: `{"name":"tiny-use","max_tokens":5,"dim":3,"output":"embedding","pooling":"none","future_field":1}`,
	})
	sum, err := safefile.SHA256(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	e := openTest(t, dir, BackendGo, nil)
	if got, want := e.ModelID(), "tiny-use@sha256:"+sum; got != want {
		t.Errorf("ModelID %q, want %q", got, want)
	}
	if got := NewScorer(e).ID(); got != "embed:tiny-use@sha256:"+sum {
		t.Errorf("Scorer.ID %q", got)
	}
	if e.Info().MaxTokens != 5 {
		t.Errorf("max tokens %d, want 5 from the manifest", e.Info().MaxTokens)
	}
	// Options.MaxTokens may lower the cap, never raise it.
	e2 := openTest(t, dir, BackendGo, func(o *Options) { o.MaxTokens = 3 })
	e3 := openTest(t, dir, BackendGo, func(o *Options) { o.MaxTokens = 500 })
	if e2.Info().MaxTokens != 3 || e3.Info().MaxTokens != 5 {
		t.Errorf("caps %d, %d; want 3, 5", e2.Info().MaxTokens, e3.Info().MaxTokens)
	}
}

func TestORTLibraryErrors(t *testing.T) {
	if !ortAvailable {
		dir := writeModelDir(t, pooledModel(), "unigram", nil)
		if _, err := Open(context.Background(), Options{ModelDir: dir}); !errors.Is(err, ErrORTLibrary) || !strings.Contains(err.Error(), "--backend go") {
			t.Fatalf("ORT without cgo: %v", err)
		}
		return
	}
	dir := writeModelDir(t, pooledModel(), "unigram", nil)
	missing := filepath.Join(t.TempDir(), "lib", "libonnxruntime.so.1")
	_, err := Open(context.Background(), Options{ModelDir: dir, ORTLib: missing})
	if !errors.Is(err, ErrORTLibraryMissing) {
		t.Fatalf("missing library: %v", err)
	}
	for _, s := range []string{missing, "scripts/setup", EnvORTLib, "--ort-lib", "--backend go"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	// The default location under AEM_HOME, named as such.
	home := t.TempDir()
	_, err = Open(context.Background(), Options{ModelDir: dir, Getenv: func(k string) string {
		if k == EnvHome {
			return home
		}
		return ""
	}})
	if !errors.Is(err, ErrORTLibraryMissing) || !strings.Contains(err.Error(), filepath.Join(home, "lib", PlatformDir(), "libonnxruntime.so.1")) {
		t.Fatalf("default location: %v", err)
	}
	// A file that is not a shared library.
	bogus := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	os.WriteFile(bogus, []byte("not an ELF file"), 0o644)
	_, err = Open(context.Background(), Options{ModelDir: dir, ORTLib: bogus})
	if !errors.Is(err, ErrORTLibrary) || !strings.Contains(err.Error(), bogus) {
		t.Fatalf("bogus library: %v", err)
	}
}

func TestResolvePaths(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	o := Options{Getenv: get}
	lib, src := o.ORTLibPath()
	if want := filepath.Join(".aem", "lib", PlatformDir(), "libonnxruntime.so.1"); lib != want || src != "default" {
		t.Errorf("default lib %s (%s), want %s", lib, src, want)
	}
	if dir, _ := o.ModelPath(); dir != filepath.Join(".aem", "models", "use-lite-int8") {
		t.Errorf("default model %s", dir)
	}
	env[EnvHome] = "/opt/aem"
	if lib, _ := o.ORTLibPath(); lib != filepath.Join("/opt/aem", "lib", PlatformDir(), "libonnxruntime.so.1") {
		t.Errorf("AEM_HOME lib %s", lib)
	}
	env[EnvORTLib] = "/x/libonnxruntime.so.1"
	env[EnvModel] = "/m"
	if lib, src := o.ORTLibPath(); lib != "/x/libonnxruntime.so.1" || src != EnvORTLib {
		t.Errorf("env lib %s (%s)", lib, src)
	}
	if dir, src := o.ModelPath(); dir != "/m" || src != EnvModel {
		t.Errorf("env model %s (%s)", dir, src)
	}
	o.ORTLib, o.ModelDir = "/flag/lib.so", "/flag/model"
	if lib, src := o.ORTLibPath(); lib != "/flag/lib.so" || src != "--ort-lib" {
		t.Errorf("flag lib %s (%s)", lib, src)
	}
	if dir, src := o.ModelPath(); dir != "/flag/model" || src != "--model" {
		t.Errorf("flag model %s (%s)", dir, src)
	}
}

// TestResolveModel: the default model follows the precision; --model is a
// directory, or the name of a model in the install root.
func TestResolveModel(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("here", 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		o                Options
		wantDir, wantSrc string
		inHome           bool
	}{
		{Options{}, filepath.Join("h", "models", DefaultModelName), "default", true},
		{Options{Precision: PrecisionInt8}, filepath.Join("h", "models", "use-lite-int8"), "default", true},
		{Options{Precision: PrecisionFP32}, filepath.Join("h", "models", "use-lite"), "default", true},
		{Options{ModelDir: "use-lite"}, filepath.Join("h", "models", "use-lite"), "--model use-lite (an installed model)", true},
		{Options{ModelDir: "here"}, "here", "--model", false}, // a directory here wins over a name
		{Options{ModelDir: "./use-lite"}, "./use-lite", "--model", false},
		{Options{ModelDir: "/abs/dir"}, "/abs/dir", "--model", false},
		{Options{Getenv: func(k string) string { return map[string]string{EnvModel: "use-lite-int8"}[k] }},
			filepath.Join("h", "models", "use-lite-int8"), "AEM_MODEL use-lite-int8 (an installed model)", true},
	}
	for _, tt := range tests {
		tt.o.Home = "h"
		dir, src := tt.o.ModelPath()
		if dir != tt.wantDir || src != tt.wantSrc || tt.o.ModelInHome() != tt.inHome {
			t.Errorf("%+v: %s (%s), in home %v; want %s (%s), %v", tt.o, dir, src, tt.o.ModelInHome(), tt.wantDir, tt.wantSrc, tt.inHome)
		}
	}
	if ModelFor("int4") != "" || ModelFor("") != DefaultModelName || ModelFor(DefaultPrecision) != DefaultModelName {
		t.Error("ModelFor: the default precision's model is not DefaultModelName, or an unknown precision has one")
	}
}

func TestOptionsValidate(t *testing.T) {
	cases := []struct {
		o  Options
		ok bool
	}{
		{Options{}, true},
		{Options{Backend: "go", GraphOptLevel: "basic", BatchSize: 1}, true},
		{Options{Backend: "tf"}, false},
		{Options{GraphOptLevel: "max"}, false},
		{Options{IntraOpThreads: -1}, false},
		{Options{BatchSize: -3}, false},
		{Options{BatchSize: 5000}, false},
		{Options{MaxTokens: -1}, false},
		{Options{CacheMaxBytes: -1}, false},
		{Options{Precision: PrecisionInt8}, true},
		{Options{Precision: PrecisionFP32}, true},
		{Options{Precision: "int4"}, false},
		{Options{Precision: PrecisionFP32, ModelDir: ModelFP32}, false},
		{Options{Precision: PrecisionInt8, Getenv: func(k string) string { return map[string]string{EnvModel: "/m"}[k] }}, false},
	}
	for _, c := range cases {
		err := c.o.Validate()
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrInvalidOptions)) {
			t.Errorf("%+v: %v", c.o, err)
		}
	}
	if _, err := Open(context.Background(), Options{Backend: "tf"}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Open with a bad backend: %v", err)
	}
}
