package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/aem-dev/aem/internal/safefile"

	"github.com/gomlx/go-huggingface/hub"
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

// Pull downloads a Hugging Face sentence-transformers ONNX export into dest,
// verifies it and writes aem-model.json. It fetches the ONNX file (installed
// as model.onnx), tokenizer.json, and whichever of the top-level
// configuration files the repository has (pullFiles: modules.json,
// 1_Pooling/config.json, config.json, ...). The model's identity is the
// sha256 of its weights.
//
// Files go through the Hugging Face cache ($XDG_CACHE_HOME/huggingface/hub or
// ~/.cache/huggingface/hub) with go-huggingface, one at a time with
// opts.Attempts tries each, then are copied into a temporary directory beside
// dest that is renamed into place at the end, so dest never holds a partial
// download. The endpoint is https://huggingface.co or $HF_ENDPOINT.
// Cancelling ctx takes effect between files and between tries.
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
	hint := "check the name, your connection and $HF_TOKEN for gated models; --onnx-file picks another export"
	files, err := pullList(ctx, r, opts)
	if err != nil {
		return Manifest{}, fmt.Errorf("pulling %s from %s: %w (%s)", repo, endpoint(), err, hint)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		to := files[name]
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		cached, err := retry(ctx, opts, func() (string, error) { return r.DownloadFile(name) })
		if err != nil {
			return Manifest{}, fmt.Errorf("pulling %s from %s: downloading %s: %w (%s)", repo, endpoint(), name, err, hint)
		}
		if err := copyFile(cached, filepath.Join(tmp, filepath.FromSlash(to))); err != nil {
			return Manifest{}, fmt.Errorf("pulling %s: %w", repo, err)
		}
	}
	m, err := Describe(ctx, tmp, Source{Kind: "huggingface", Repo: repo, Version: opts.Revision})
	if err != nil {
		return Manifest{}, fmt.Errorf("pulling %s: %w", repo, err)
	}
	b, err := m.Marshal()
	if err != nil {
		return Manifest{}, err
	}
	if err := safefile.WriteFile(filepath.Join(tmp, ManifestFile), b); err != nil {
		return Manifest{}, err
	}
	if opts.Force {
		if err := os.RemoveAll(dest); err != nil {
			return Manifest{}, fmt.Errorf("pulling %s: replacing %s: %w", repo, dest, err)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Manifest{}, fmt.Errorf("pulling %s: installing into %s: %w", repo, dest, err)
	}
	return m, nil
}

// pullFiles are the top-level files Pull takes when the repository has them,
// besides the ONNX file and tokenizer.json: the sentence-transformers
// configuration (pooling, modules, token cap) and the transformer's.
var pullFiles = []string{ModulesFile, PoolingConfigFile, "sentence_bert_config.json", "config.json",
	"tokenizer_config.json", "special_tokens_map.json", "vocab.txt"}

// pullList lists the repository's files (with opts.Attempts tries) and
// returns what to download: repository path -> path in the model directory.
// The ONNX file and tokenizer.json must be there.
func pullList(ctx context.Context, r *hub.Repo, opts PullOptions) (map[string]string, error) {
	var names []string
	_, err := retry(ctx, opts, func() (string, error) {
		names = names[:0]
		for name, err := range r.IterFileNames() {
			if err != nil {
				return "", err
			}
			names = append(names, name)
		}
		return "", nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the repository: %w", err)
	}
	have := map[string]bool{}
	var onnx []string
	for _, n := range names {
		have[n] = true
		if path.Ext(n) == ".onnx" {
			onnx = append(onnx, n)
		}
	}
	if !have[opts.OnnxFile] {
		if len(onnx) == 0 {
			return nil, fmt.Errorf("%w: the repository has no .onnx file (aem needs an ONNX export)", ErrMissingFile)
		}
		return nil, fmt.Errorf("%w: the repository has no %s; its ONNX files: %v", ErrMissingFile, opts.OnnxFile, onnx)
	}
	if !have[TokenizerFile] {
		return nil, fmt.Errorf("the repository has no tokenizer.json: %w (aem needs a fast-tokenizer export)", ErrMissingFile)
	}
	files := map[string]string{opts.OnnxFile: ModelFile, TokenizerFile: TokenizerFile}
	for _, f := range pullFiles {
		if have[f] {
			files[f] = f
		}
	}
	return files, nil
}

// retry runs f up to opts.Attempts times, opts.RetrySeconds apart, until it
// succeeds or ctx ends.
func retry(ctx context.Context, opts PullOptions, f func() (string, error)) (string, error) {
	var err error
	for i := range opts.Attempts {
		if i > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(time.Duration(opts.RetrySeconds) * time.Second):
			}
		}
		var s string
		if s, err = f(); err == nil {
			return s, nil
		}
	}
	return "", err
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
