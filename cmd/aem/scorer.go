package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/home"
	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/rundir"
	"github.com/aem-dev/aem/thresholds"
)

// scorerOptions chooses and configures the similarity scorer; run and
// sweep share them.
type scorerOptions struct {
	kind        string
	model       string
	precision   string
	backend     string
	ortLib      string
	sessions    int
	threads     int
	graphOpt    string
	batchSize   int
	batchTokens int
	cacheDir    string
	noCache     bool
	discard     bool
	cacheMax    int64
	memo        int
	judge       judgeOptions
}

// Scorers accepted by --scorer.
const (
	scorerEmbed        = "embed"
	scorerLexical      = "lexical"
	scorerJudge        = "judge"
	scorerEmbedJudge   = "embed+judge"
	scorerLexicalJudge = "lexical+judge"
)

func (o *scorerOptions) addFlags(fs *flagSet) {
	sc, scale := fs.shared(topicScoring), fs.shared(topicScale)
	sc.StringVar(&o.kind, "scorer", scorerEmbed, "similarity scorer: embed (sentence embeddings, cosine), lexical (word and trigram overlap, no model), embed+judge (an LLM judge decides where the cosine is unsure: --judge-band), judge (the judge decides every comparison) or lexical+judge")
	sc.StringVar(&o.model, "model", "", "the embedding model: a directory, or the name of a model in the install root (aem models list), e.g. use-lite (default: the default model in --precision)")
	sc.StringVar(&o.precision, "precision", "", "form of the default model (USE-lite): int8 (models/use-lite-int8) or fp32 (models/use-lite, the reference); default "+embed.DefaultPrecision+", or the model a --thresholds file was fitted with")
	scale.StringVar(&o.backend, "backend", embed.BackendORT, "inference backend: ort (ONNX Runtime) or go (pure Go, slower, no shared library)")
	sc.StringVar(&o.ortLib, "ort-lib", "", "path of libonnxruntime.so.1 (default: lib/<os>-<arch>/ in the install root)")
	scale.IntVar(&o.sessions, "sessions", 0, "model sessions run side by side (0: from the core count; with --threads 0, one per core)")
	scale.IntVar(&o.threads, "threads", 0, "ONNX Runtime intra-op threads per session (0: from the core count; with --sessions 0, one)")
	scale.StringVar(&o.graphOpt, "graph-opt", embed.GraphOptAll, "ONNX Runtime graph optimisation: disable, basic, extended or all")
	scale.IntVar(&o.batchTokens, "batch-tokens", embed.DefaultBatchTokens, "token slots per model call (strings x padded length): short strings go many to a call, long ones few")
	scale.IntVar(&o.batchSize, "batch-size", embed.DefaultBatchSize, "most strings per model call")
	scale.StringVar(&o.cacheDir, "cache-dir", "", "persistent embedding cache directory (default: embed-cache/ in the install root, see INSTALL ROOT)")
	scale.BoolVar(&o.noCache, "no-cache", false, "do not use the persistent embedding and judge caches")
	scale.Int64Var(&o.cacheMax, "cache-max-mb", embed.DefaultCacheMaxBytes>>20, "bound of the persistent embedding cache in MiB (0: the default); the oldest entries are evicted past it")
	scale.IntVar(&o.memo, "memo-entries", 0, fmt.Sprintf("vectors kept in memory during a run (an LRU; 0: %d, or %d with --no-cache; negative: none)", embed.DefaultMemoEntries, embed.DefaultMemoEntriesNoCache))
	scale.BoolVar(&o.discard, "cache-discard-corrupt", false, "delete an embedding or judge cache file that cannot be read instead of moving it aside (FILE.corrupt-TIME); either way the run goes on")
	o.judge.addFlags(fs)
}

// followThresholds picks the form of the default model a thresholds file
// was fitted with when the command names no model (--model, --precision or
// their environment variables): a file fitted on use-lite keeps scoring
// with use-lite, not the default. It says so on stderr.
func (o *scorerOptions) followThresholds(env *Env, name string, f *thresholds.File) {
	if f == nil || f.EmbeddingModel == nil || o.model != "" || o.precision != "" {
		return
	}
	for _, p := range []string{embed.PrecisionInt8, embed.PrecisionFP32} {
		if f.EmbeddingModel.ID == embed.ModelFor(p) && p != embed.DefaultPrecision {
			o.precision = p
			fmt.Fprintf(env.Stderr, "aem: %s was fitted with %s: scoring with it (--precision %s); the default is %s (%s), for which 'aem sweep' fits thresholds anew\n",
				name, f.EmbeddingModel.ID, p, embed.DefaultModelName, embed.DefaultPrecision)
		}
	}
}

// openedScorer is a scorer plus what the caller must do with it afterwards.
type openedScorer struct {
	metrics.Scorer
	cacheStats func() (hits, misses int64)
	// embedding reports what the embedding model did (nil for lexical).
	embedding func() rundir.EmbeddingUsage
	// judge and escalation are set for the judge scorers.
	judge      *judge.Judge
	escalation *judge.Escalation
	close      func() error
	// cacheTroubles words what the caches could not do (after close).
	cacheTroubles func() []string
	// calibration is the shipped calibration open applied (see
	// thresholds.Default); nil when it applied none.
	calibration *thresholds.File
	// caches are the persistent caches the scorer uses, for their size
	// at the end of a run (see printCacheUsage).
	caches []cacheDir
}

// finish closes the scorer, then warns on w about what its caches could
// not do (see cachewarn.go).
func (sc *openedScorer) finish(w io.Writer) error {
	err := sc.close()
	if sc.cacheTroubles != nil {
		for _, line := range sc.cacheTroubles() {
			fmt.Fprintln(w, "aem: warning: "+line)
		}
	}
	return err
}

// open opens the scorer --scorer names, with the fitted composites of the
// thresholds file (nil: none; name is its path) over its first scorer,
// and the file's judge_band for an escalating one. A file fitted with
// another embedding model is refused (thresholds.ErrInvalid). Without a
// file and with calibrate, the shipped calibration of the embedding
// model applies instead, if there is one (openedScorer.calibration).
func (o scorerOptions) open(ctx context.Context, env *Env, file *thresholds.File, name string, calibrate bool) (*openedScorer, error) {
	var band *thresholds.JudgeBand
	if file != nil {
		band = file.JudgeBand
	}
	first, screen, ok := strings.Cut(o.kind, "+")
	switch {
	case o.kind == scorerJudge:
		first = scorerEmbed
	case ok && screen != scorerJudge, first != scorerEmbed && first != scorerLexical:
		return nil, fmt.Errorf("unknown --scorer %q: use embed, lexical, embed+judge, judge or lexical+judge", o.kind)
	}
	var sc *openedScorer
	cacheHome := home.Writable(env.homeRoots()).Dir
	if first == scorerLexical {
		sc = &openedScorer{Scorer: metrics.Lexical{}, close: func() error { return nil }}
	} else {
		o.followThresholds(env, name, file)
		var err error
		if sc, cacheHome, err = o.openEmbed(ctx, env); err != nil {
			return nil, err
		}
		if file == nil && calibrate {
			def, defName, err := thresholds.Default(sc.Scorer.ID())
			if err != nil {
				return nil, errors.Join(err, sc.close())
			}
			file, name, sc.calibration = def, defName, def
		}
	}
	applied, err := file.Scorer(name, sc.Scorer)
	if err != nil {
		return nil, errors.Join(err, sc.close())
	}
	sc.Scorer = applied
	if first == o.kind {
		return sc, nil
	}
	// Fitted composites over the first scorer answer with probabilities,
	// which have a band of their own.
	_, probabilities := sc.Scorer.(*composite.Scorer)
	b, err := o.judge.bandFor(o.kind, band, probabilities)
	if err == nil {
		sc.judge, err = judge.New(o.judge.options(env, cacheHome, o.noCache, o.discard))
	}
	if err != nil {
		return nil, errors.Join(err, sc.close())
	}
	printCacheNotices(env.Stderr, "judge", sc.judge.Stats().CacheNotices)
	if dir := sc.judge.Stats().CacheDir; dir != "" {
		sc.caches = append(sc.caches, cacheDir{what: "judge", dir: dir, bound: judge.DefaultCacheMaxBytes})
	}
	embedTroubles := sc.cacheTroubles
	sc.cacheTroubles = func() []string {
		var lines []string
		if embedTroubles != nil {
			lines = embedTroubles()
		}
		return append(lines, judgeCacheTroubles(sc.judge)...)
	}
	sc.escalation = judge.NewEscalation(sc.Scorer, sc.judge, b)
	sc.Scorer = sc.escalation
	closeFirst := sc.close
	sc.close = func() error { return errors.Join(sc.judge.Close(), closeFirst()) }
	return sc, nil
}

// openEmbed opens the embedding scorer; cacheHome is the install root its
// cache lives in (the judge's goes beside it).
func (o scorerOptions) openEmbed(ctx context.Context, env *Env) (sc *openedScorer, cacheHome string, err error) {
	eo := embed.Options{
		ModelDir:       o.model,
		Precision:      o.precision,
		Backend:        o.backend,
		ORTLib:         o.ortLib,
		Sessions:       o.sessions,
		IntraOpThreads: o.threads,
		GraphOptLevel:  o.graphOpt,
		BatchSize:      o.batchSize,
		BatchTokens:    o.batchTokens,
		Getenv:         env.Getenv,

		DiscardCorruptCache: o.discard,
		CacheMaxBytes:       o.cacheMax << 20,
		MemoEntries:         o.memo,
	}
	roots := env.homeRoots()
	root, err := home.Find(roots, func(dir string) []string { return needs(eo, dir) })
	if err != nil {
		return nil, "", fmt.Errorf("the embedding scorer needs the model and the ONNX Runtime library: %w\nInstall them with 'make install' or 'scripts/setup --user' (or scripts/setup in this directory), "+
			"or set AEM_HOME to a folder scripts/setup filled; --model and --ort-lib name them directly, "+
			"--backend go needs no ONNX Runtime, --scorer lexical needs neither", err)
	}
	eo.Home = root.Dir
	cacheHome = cacheRoot(roots, root).Dir
	if !o.noCache {
		eo.CacheDir = o.cacheDir
		if eo.CacheDir == "" {
			eo.CacheDir = filepath.Join(cacheHome, "embed-cache")
		}
	}
	e, err := embed.Open(ctx, eo)
	if err != nil {
		return nil, "", err
	}
	printCacheNotices(env.Stderr, "embedding", e.Stats().CacheNotices)
	s := embed.NewScorer(e)
	stats := func() (int64, int64) {
		st := e.Stats()
		return st.MemoHits + st.CacheHits, st.StringsEmbedded
	}
	sc = &openedScorer{Scorer: s, cacheStats: stats, embedding: embeddingUsage(e, s), close: e.Close,
		cacheTroubles: embedCacheTroubles(e)}
	if dir := e.Stats().CacheDir; dir != "" {
		bound := eo.CacheMaxBytes
		if bound == 0 {
			bound = embed.DefaultCacheMaxBytes
		}
		sc.caches = []cacheDir{{what: "embedding", dir: dir, bound: bound}}
	}
	return sc, cacheHome, nil
}

// embeddingUsage reports what e and s did, for summary.json.
func embeddingUsage(e *embed.Embedder, s *embed.Scorer) func() rundir.EmbeddingUsage {
	return func() rundir.EmbeddingUsage {
		es, ss := e.Stats(), s.Stats()
		l := e.Layout()
		return rundir.EmbeddingUsage{
			StringsEmbedded: es.StringsEmbedded,
			EmbeddedByKind: map[string]int64{"values": ss.EmbeddedValues, "replies": ss.EmbeddedReplies,
				"clauses": ss.EmbeddedClauses, "shared": ss.EmbeddedShared},
			MemoHits: es.MemoHits, CacheHits: es.CacheHits,
			CacheCorrupt: es.CacheCorrupt, CacheErrors: es.CacheErrors, CacheNotices: es.CacheNotices,
			Sessions: l.Sessions, Threads: l.Threads, BatchTokens: l.BatchTokens,
			ModelCalls: es.ModelCalls, Tokens: es.Tokens, PaddedTokens: es.PaddedTokens, ModelSeconds: es.ModelTime.Seconds(), IdleSeconds: es.IdleTime.Seconds(),
		}
	}
}

// needs lists the files the scorer takes from the install root dir: the
// default model and ONNX Runtime library, unless flags name them (or the
// go backend needs no library).
func needs(o embed.Options, dir string) []string {
	o.Home = dir
	var paths []string
	if o.ModelInHome() {
		p, _ := o.ModelPath()
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
