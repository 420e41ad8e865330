package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/home"
	"github.com/aem-dev/aem/metrics"
)

// scorerOptions chooses and configures the similarity scorer; run and
// sweep share them.
type scorerOptions struct {
	kind      string
	model     string
	backend   string
	ortLib    string
	threads   int
	graphOpt  string
	batchSize int
	cacheDir  string
	noCache   bool
	discard   bool
	cacheMax  int64
	memo      int
}

func (o *scorerOptions) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.kind, "scorer", "embed", "similarity scorer: embed (sentence embeddings, cosine) or lexical (word and trigram overlap, no model)")
	fs.StringVar(&o.model, "model", "", "model directory (default: models/use-lite in the install root, see INSTALL ROOT)")
	fs.StringVar(&o.backend, "backend", embed.BackendORT, "inference backend: ort (ONNX Runtime) or go (pure Go, slower, no shared library)")
	fs.StringVar(&o.ortLib, "ort-lib", "", "path of libonnxruntime.so.1 (default: lib/<os>-<arch>/ in the install root)")
	fs.IntVar(&o.threads, "threads", 0, "ONNX Runtime intra-op threads (0: one per core)")
	fs.StringVar(&o.graphOpt, "graph-opt", embed.GraphOptAll, "ONNX Runtime graph optimisation: disable, basic, extended or all")
	fs.IntVar(&o.batchSize, "batch-size", embed.DefaultBatchSize, "strings per model call")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "persistent embedding cache directory (default: embed-cache/ in the install root, see INSTALL ROOT)")
	fs.BoolVar(&o.noCache, "no-cache", false, "do not use the persistent embedding cache")
	fs.Int64Var(&o.cacheMax, "cache-max-mb", embed.DefaultCacheMaxBytes>>20, "bound of the persistent embedding cache in MiB (0: the default); the oldest entries are evicted past it")
	fs.IntVar(&o.memo, "memo-entries", embed.DefaultMemoEntries, "vectors kept in memory during a run (an LRU; 0: the default, negative: none)")
	fs.BoolVar(&o.discard, "cache-discard-corrupt", false, "move a corrupt embedding cache file aside and start an empty one instead of failing")
}

// openedScorer is a scorer plus what the caller must do with it afterwards.
type openedScorer struct {
	metrics.Scorer
	cacheStats func() (hits, misses int64)
	close      func() error
}

func (o scorerOptions) open(ctx context.Context, env *Env) (*openedScorer, error) {
	switch o.kind {
	case "lexical":
		return &openedScorer{Scorer: metrics.Lexical{}, close: func() error { return nil }}, nil
	case "embed":
	default:
		return nil, fmt.Errorf("unknown --scorer %q: use embed or lexical", o.kind)
	}
	eo := embed.Options{
		ModelDir:       o.model,
		Backend:        o.backend,
		ORTLib:         o.ortLib,
		IntraOpThreads: o.threads,
		GraphOptLevel:  o.graphOpt,
		BatchSize:      o.batchSize,
		Getenv:         env.Getenv,

		DiscardCorruptCache: o.discard,
		CacheMaxBytes:       o.cacheMax << 20,
		MemoEntries:         o.memo,
	}
	roots := env.homeRoots()
	root, err := home.Find(roots, func(dir string) []string { return needs(eo, dir) })
	if err != nil {
		return nil, fmt.Errorf("the embedding scorer needs the model and the ONNX Runtime library: %w\nInstall them with 'make install' or 'scripts/setup --user' (or scripts/setup in this directory), "+
			"or set AEM_HOME to a folder scripts/setup filled; --model and --ort-lib name them directly, "+
			"--backend go needs no ONNX Runtime, --scorer lexical needs neither", err)
	}
	eo.Home = root.Dir
	if !o.noCache {
		eo.CacheDir = o.cacheDir
		if eo.CacheDir == "" {
			eo.CacheDir = filepath.Join(cacheRoot(roots, root).Dir, "embed-cache")
		}
	}
	e, err := embed.Open(ctx, eo)
	if err != nil {
		return nil, err
	}
	s := embed.NewScorer(e)
	stats := func() (int64, int64) {
		st := e.Stats()
		return st.MemoHits + st.CacheHits, st.StringsEmbedded
	}
	return &openedScorer{Scorer: s, cacheStats: stats, close: e.Close}, nil
}

// needs lists the files the scorer takes from the install root dir: the
// default model and ONNX Runtime library, unless flags name them (or the
// go backend needs no library).
func needs(o embed.Options, dir string) []string {
	o.Home = dir
	var paths []string
	if p, src := o.ModelPath(); src == "default" {
		paths = append(paths, p)
	}
	if o.Backend != embed.BackendGo {
		if p, src := o.ORTLibPath(); src == "default" {
			paths = append(paths, p)
		}
	}
	return paths
}

// cacheRoot is where the embedding cache goes: the install root found,
// unless that belongs to an installed binary (often not writable; then the
// user cache directory).
func cacheRoot(roots []home.Root, found home.Root) home.Root {
	if found.Kind == home.BesideBinary {
		return home.Writable(roots)
	}
	return found
}
