package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"

	"github.com/aem-dev/aem/batch/safefile"

	"github.com/gomlx/go-huggingface/hub"
	"github.com/knights-analytics/hugot"
)

// PullOptions tunes Pull. The zero value pulls onnx/model.onnx from the main
// branch with two attempts per file.
type PullOptions struct {
	// OnnxFile is the repository path of the ONNX export; default "onnx/model.onnx"
	// (where sentence-transformers repositories keep it).
	OnnxFile string
	// Revision is a branch, tag or commit; default "main".
	Revision string
	// AuthToken is a Hugging Face token for gated or private repositories
	// (aem passes $HF_TOKEN).
	AuthToken string
	// Force replaces an existing model directory.
	Force bool
	// Attempts per download (default 2), RetrySeconds between them (default 1).
	Attempts, RetrySeconds int
}

var repoName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Pull downloads a Hugging Face sentence-transformers ONNX export (model.onnx and
// tokenizer.json with hugot's downloader, plus modules.json and
// 1_Pooling/config.json when the repository has them) into dest, verifies it and
// writes aem-model.json. The model's identity is the sha256 of its weights.
//
// Files are fetched into a temporary directory beside dest and renamed into place
// at the end, so dest never holds a partial download. The endpoint is
// https://huggingface.co or $HF_ENDPOINT; files are cached in the Hugging Face
// cache ($XDG_CACHE_HOME/huggingface/hub or ~/.cache/huggingface/hub). hugot's
// downloader takes no context: files are fetched one at a time first (see
// prefetch), and cancelling ctx takes effect between files.
func Pull(ctx context.Context, repo, dest string, opts PullOptions) (Manifest, error) {
	if !repoName.MatchString(repo) {
		return Manifest{}, fmt.Errorf("pulling %q: %w: want ORG/NAME as on huggingface.co, e.g. sentence-transformers/all-MiniLM-L6-v2", repo, ErrBadRepo)
	}
	if opts.OnnxFile == "" {
		opts.OnnxFile = "onnx/model.onnx"
	}
	if opts.Revision == "" {
		opts.Revision = "main"
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 2
	}
	if opts.RetrySeconds <= 0 {
		opts.RetrySeconds = 1
	}
	if _, err := os.Stat(dest); err == nil && !opts.Force {
		return Manifest{}, fmt.Errorf("pulling %s: %s already exists (use --force to replace it, or aem models verify %s)", repo, dest, dest)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return Manifest{}, fmt.Errorf("pulling %s: %w", repo, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".pull-*")
	if err != nil {
		return Manifest{}, fmt.Errorf("pulling %s: %w", repo, err)
	}
	defer os.RemoveAll(tmp)

	r := hub.New(repo).WithRevision(opts.Revision)
	if opts.AuthToken != "" {
		r = r.WithAuth(opts.AuthToken)
	}
	r.Verbosity = 0
	if err := prefetch(ctx, r, opts.OnnxFile); err != nil {
		return Manifest{}, fmt.Errorf("pulling %s from %s: %w (check the name, your connection and $HF_TOKEN for gated models; --onnx-file picks another export)", repo, endpoint(), err)
	}

	dl := hugot.NewDownloadOptions()
	dl.OnnxFilePath = opts.OnnxFile
	dl.Branch = opts.Revision
	dl.AuthToken = opts.AuthToken
	dl.MaxRetries = opts.Attempts
	dl.RetryInterval = opts.RetrySeconds
	dl.Verbose = false
	got, err := hugot.DownloadModel(repo, tmp, dl)
	if err != nil {
		return Manifest{}, fmt.Errorf("pulling %s from %s: %w (check the name, your connection and $HF_TOKEN for gated models; --onnx-file picks another export)", repo, endpoint(), err)
	}
	if err := ctx.Err(); err != nil {
		return Manifest{}, err
	}
	// hugot copies files by base name; the weights must be called model.onnx.
	if base := filepath.Base(opts.OnnxFile); base != ModelFile {
		if err := os.Rename(filepath.Join(got, base), filepath.Join(got, ModelFile)); err != nil {
			return Manifest{}, fmt.Errorf("pulling %s: %w", repo, err)
		}
	}
	if _, err := os.Stat(filepath.Join(got, TokenizerFile)); err != nil {
		return Manifest{}, fmt.Errorf("pulling %s: the repository has no tokenizer.json: %w (aem needs a fast-tokenizer export)", repo, ErrMissingFile)
	}
	// sentence-transformers configuration, which hugot does not copy (prefetch
	// already put it in the cache).
	for _, f := range []string{ModulesFile, PoolingConfigFile} {
		if !r.HasFile(f) {
			continue
		}
		p, err := r.DownloadFile(f)
		if err != nil {
			return Manifest{}, fmt.Errorf("pulling %s: downloading %s: %w", repo, f, err)
		}
		if err := copyFile(p, filepath.Join(got, filepath.FromSlash(f))); err != nil {
			return Manifest{}, fmt.Errorf("pulling %s: %w", repo, err)
		}
	}
	m, err := Describe(ctx, got, Source{Kind: "huggingface", Repo: repo, Version: opts.Revision})
	if err != nil {
		return Manifest{}, fmt.Errorf("pulling %s: %w", repo, err)
	}
	b, err := m.Marshal()
	if err != nil {
		return Manifest{}, err
	}
	if err := safefile.WriteFile(filepath.Join(got, ManifestFile), b); err != nil {
		return Manifest{}, err
	}
	if opts.Force {
		if err := os.RemoveAll(dest); err != nil {
			return Manifest{}, fmt.Errorf("pulling %s: replacing %s: %w", repo, dest, err)
		}
	}
	if err := os.Rename(got, dest); err != nil {
		return Manifest{}, fmt.Errorf("pulling %s: installing into %s: %w", repo, dest, err)
	}
	return m, nil
}

// hugotFiles are the base names hugot.DownloadModel fetches besides the ONNX file.
var hugotFiles = map[string]bool{"tokenizer.json": true, "special_tokens_map.json": true, "tokenizer_config.json": true,
	"config.json": true, "genai_config.json": true, "vocab.txt": true}

// prefetch downloads into the Hugging Face cache, one file at a time, every file
// hugot.DownloadModel will ask for plus the sentence-transformers configuration,
// so that hugot then only validates the repository and copies from the cache.
// One at a time because go-huggingface v0.3.1 (under hugot) updates its progress
// counters without a lock when it downloads several files at once (a data race
// the race detector reports), and so that ctx is honoured between files.
func prefetch(ctx context.Context, r *hub.Repo, onnxFile string) error {
	var want []string
	for name, err := range r.IterFileNames() {
		if err != nil {
			return err
		}
		if name == onnxFile || name == ModulesFile || name == PoolingConfigFile || hugotFiles[path.Base(name)] {
			want = append(want, name)
		}
	}
	for _, name := range want {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := r.DownloadFile(name); err != nil {
			return fmt.Errorf("downloading %s: %w", name, err)
		}
	}
	return nil
}

func endpoint() string {
	if e := os.Getenv("HF_ENDPOINT"); e != "" {
		return e
	}
	return "https://huggingface.co"
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return errors.Join(out.Sync(), out.Close())
}
