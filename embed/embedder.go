package embed

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aem-dev/aem/diskcache"
	"github.com/aem-dev/aem/models/usetok"
)

// Embedder turns strings into L2-normalised sentence vectors with one loaded
// model. It is safe for concurrent use: Embed may be called from many
// goroutines, and their strings are coalesced into shared model batches (see
// the package doc). Close releases the session, the cache and the runtime.
type Embedder struct {
	opts     Options
	info     ModelInfo
	tok      *textTokenizer
	sessions []backend // one per Options.Sessions, each driven by its own goroutine
	plan     ioPlan
	dim      int
	seqMult  int
	cache    *vectorCache // nil without Options.CacheDir
	// writes carries new vectors from the sessions to the cache writer
	// (see writeLoop); nil without a cache. writerDone is closed when the
	// writer has stored everything sent.
	writes     chan cacheWrite
	writerDone chan struct{}
	keyPrefix  []byte
	memo       *memo

	mu       sync.Mutex // guards inflight, queue, closed
	inflight map[string]*future
	queue    *queue
	closed   bool
	work     *sync.Cond // signalled (with mu) when jobs are queued or the Embedder closes
	quit     chan struct{}
	served   sync.WaitGroup // the session goroutines
	closeErr error
	closeOne sync.Once

	st           counters
	cacheNotices []string // what opening the cache found (see Stats.CacheNotices)
}

// future is one distinct string being embedded; every caller that wants the
// string waits on the same future.
type future struct {
	done chan struct{}
	vec  []float32
	err  error
}

// cacheWrite is one batch's new vectors for the persistent cache.
type cacheWrite struct {
	keys [][32]byte
	vecs [][]float32
}

// pendingWrites is how many batches of new vectors may wait for the cache
// writer before a session waits for it. The writer gathers new vectors
// and stores them a full commit (diskcache.WriteKeys) at a time, and
// what it holds writeDelay after it last held nothing.
const (
	pendingWrites = 64
	writeDelay    = time.Second
)

// job is a future with its tokens, queued for the batching goroutine.
type job struct {
	text   string
	key    [32]byte
	tok    tokenized
	padded int   // the sequence length it runs at (padLen)
	seq    int64 // arrival order in the queue
	fut    *future
}

type counters struct {
	requests, memoHits, cacheHits, cacheMisses, cacheCorrupt, cacheErrors atomic.Int64
	cacheCommits                                                          atomic.Int64
	modelCalls, embedded, tokens, padded                                  atomic.Int64
	modelNanos, tokenizeNanos, idleNanos                                  atomic.Int64
	lastCacheErr                                                          atomic.Value // string
}

// Stats are an Embedder's counters since Open, for progress lines and
// benchmarks. Requests = MemoHits + CacheHits + (strings that reached the
// model or merged with one in flight).
type Stats struct {
	Requests       int64  // strings passed to Embed (after per-call dedupe)
	MemoHits       int64  // served by the in-run memo
	CacheHits      int64  // served by the persistent cache
	CacheMisses    int64  // looked up in the persistent cache and not found
	CacheCorrupt   int64  // persistent cache records that failed their checks (misses: embedded again and stored again)
	CacheErrors    int64  // persistent cache reads or writes that failed (embedding went on without it)
	CacheCommits   int64  // writes of new vectors to the persistent cache
	CacheLastError string // the last such failure
	CacheDir       string // the persistent cache's directory ("" without one)
	// CacheNotices says what opening the persistent cache found besides
	// vectors: files that could not be read (moved aside or deleted),
	// indexes rebuilt, bytes skipped, an earlier release's cache file.
	CacheNotices    []string
	ModelCalls      int64         // batches run through the model
	StringsEmbedded int64         // strings run through the model
	Tokens          int64         // real tokens fed to the model
	PaddedTokens    int64         // token slots fed, padding included (batch x seq)
	ModelTime       time.Duration // time inside the model (backend run, pooling excluded)
	TokenizeTime    time.Duration // time tokenizing (summed over callers)
	// IdleTime is how long sessions waited with nothing queued, summed over
	// sessions, from the first string queued (the wait in progress not
	// included): the time the callers did not keep the model busy.
	IdleTime time.Duration
}

// Open loads the model, tokenizer, backend session and cache described by
// opts. It runs one probe batch so that a model that cannot run fails here,
// with the model's path, rather than in the middle of a job.
func Open(ctx context.Context, opts Options) (*Embedder, error) {
	return open(ctx, opts, nil)
}

// open is Open with an optional backend opener, called once per session
// (tests inject fakes).
func open(ctx context.Context, opts Options, newBackend func() (backend, error)) (*Embedder, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	dir, source := opts.ModelPath()
	info, err := loadModelInfo(dir, source)
	if err != nil {
		return nil, err
	}
	var tok *textTokenizer
	ownCap := 0
	if info.TokenizerKind == tokenizerUSE {
		if info.MaxTokens == 0 {
			info.MaxTokens = usetok.MaxTokens
		}
	} else {
		rawTok, tokCap, err := loadTokenizer(info.TokenizerPath)
		if err != nil {
			return nil, err
		}
		ownCap = tokCap
		tok = &textTokenizer{tk: rawTok}
	}
	if info.MaxTokens == 0 {
		info.MaxTokens = ownCap
	}
	if info.MaxTokens == 0 {
		info.MaxTokens = fallbackMaxTokens
	}
	if opts.MaxTokens > 0 && opts.MaxTokens < info.MaxTokens {
		info.MaxTokens = opts.MaxTokens
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if tok != nil {
		tok = newTextTokenizer(tok.tk, info.MaxTokens, info.AddSpecialTokens)
	} else if tok, err = newUSETokenizer(info.TokenizerPath, info.MaxTokens); err != nil {
		return nil, err
	}

	e := &Embedder{
		opts:     opts,
		info:     *info,
		tok:      tok,
		seqMult:  1,
		memo:     newMemo(opts.MemoEntries),
		inflight: make(map[string]*future),
		queue:    newQueue(),
		quit:     make(chan struct{}),
	}
	e.work = sync.NewCond(&e.mu)
	switch {
	case newBackend != nil:
	case opts.Backend == BackendGo:
		newBackend = func() (backend, error) { return openGo(&e.info) }
		e.seqMult = goSeqMultiple
	default:
		newBackend = func() (backend, error) { return openORT(opts, &e.info) }
	}
	if err := e.openSessions(newBackend); err != nil {
		return nil, err
	}
	e.plan = e.sessions[0].ioPlan()
	if e.plan.tokenLevel && e.info.Pooling == "" {
		e.info.Pooling = PoolingMean // sentence-transformers' default
	}
	if !e.plan.tokenLevel {
		e.info.Pooling = PoolingNone
	}
	e.info.Output = e.plan.output.Name
	for _, in := range e.plan.inputs {
		e.info.Inputs = append(e.info.Inputs, in.Name)
	}
	if err := e.probe(); err != nil {
		_ = e.closeSessions()
		return nil, err
	}
	e.info.Dim = e.dim
	e.keyPrefix = cacheKeyPrefix(&e.info)
	if opts.CacheDir != "" {
		e.cache, e.cacheNotices, err = openCache(opts.CacheDir, opts.CacheMaxBytes, opts.CacheLockTimeout, opts.DiscardCorruptCache)
		if err != nil {
			_ = e.closeSessions()
			return nil, err
		}
		e.writes, e.writerDone = make(chan cacheWrite, pendingWrites), make(chan struct{})
		go e.writeLoop()
	}
	for _, be := range e.sessions {
		e.served.Add(1)
		go e.serve(be)
	}
	return e, nil
}

// openSessions opens Options.Sessions backends side by side (each reads
// and optimises the model: on two cores two sessions open in the time of
// one); on error it closes the ones that opened.
func (e *Embedder) openSessions(newBackend func() (backend, error)) error {
	opened := make([]backend, e.opts.Sessions)
	errs := make([]error, e.opts.Sessions)
	var wg sync.WaitGroup
	for i := range opened {
		wg.Go(func() { opened[i], errs[i] = newBackend() })
	}
	wg.Wait()
	for _, be := range opened {
		if be != nil {
			e.sessions = append(e.sessions, be)
		}
	}
	for _, err := range errs {
		if err != nil { // the first: the sessions fail alike
			return errors.Join(err, e.closeSessions())
		}
	}
	return nil
}

// closeSessions closes every open backend.
func (e *Embedder) closeSessions() error {
	var errs []error
	for _, be := range e.sessions {
		if err := be.close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the %s backend: %w", e.opts.Backend, err))
		}
	}
	e.sessions = nil
	return errors.Join(errs...)
}

// writeLoop stores new vectors in the persistent cache. It runs beside the
// sessions so that the model never waits for a commit unless
// pendingWrites batches are already waiting, and gathers the vectors of
// many batches into each commit: a commit syncs the file and releases its
// mapped pages (diskcache). Committing whatever waited at each wake-up
// made a cold run about 1.28x slower (BENCHMARKS.md). Vectors not yet
// stored when the process dies are only lost to the cache. A failed write
// is counted (Stats.CacheErrors) and embedding goes on.
func (e *Embedder) writeLoop() {
	defer close(e.writerDone)
	var (
		w     cacheWrite // gathered, not yet stored
		timer *time.Timer
		due   <-chan time.Time // nil while nothing waits
	)
	for {
		select {
		case m, ok := <-e.writes:
			if !ok {
				e.store(w)
				return
			}
			w.keys, w.vecs = append(w.keys, m.keys...), append(w.vecs, m.vecs...)
			for len(w.keys) >= diskcache.WriteKeys {
				n := diskcache.WriteKeys
				e.store(cacheWrite{w.keys[:n], w.vecs[:n]})
				w = cacheWrite{w.keys[n:], w.vecs[n:]}
			}
		case <-due:
			e.store(w)
			w = cacheWrite{}
		}
		switch {
		case len(w.keys) == 0 && due != nil:
			timer.Stop()
			due = nil
		case len(w.keys) > 0 && due == nil:
			timer = time.NewTimer(writeDelay)
			due = timer.C
		}
	}
}

// store writes w's vectors to the persistent cache in one commit.
func (e *Embedder) store(w cacheWrite) {
	if len(w.keys) == 0 {
		return
	}
	e.st.cacheCommits.Add(1)
	if err := e.cache.put(w.keys, w.vecs); err != nil {
		e.noteCacheErr(err)
	}
}

// probe runs a one-token batch to check the model runs and learn its width.
func (e *Embedder) probe() error {
	seq := min(e.seqMult, e.info.MaxTokens)
	in := &batchInput{batch: 1, seq: seq, ids: make([]int64, seq), mask: make([]int64, seq), types: make([]int64, seq)}
	in.mask[0] = 1
	out, dims, err := e.sessions[0].run(in)
	if err != nil {
		return fmt.Errorf("%w: test run of %s failed: %w", ErrModelInvalid, e.info.WeightsPath, err)
	}
	vecs, err := vectors(out, dims, in, e.plan.tokenLevel, e.info.Pooling)
	if err != nil {
		return fmt.Errorf("test run of %s: %w", e.info.WeightsPath, err)
	}
	e.dim = len(vecs[0])
	if e.info.Dim > 0 && e.info.Dim != e.dim {
		return fmt.Errorf("%w: %s produces %d-d vectors but its config says %d", ErrModelUnsupported, e.info.WeightsPath, e.dim, e.info.Dim)
	}
	return nil
}

// ModelID identifies the model: "<name>@sha256:<sha256 of the weights file>".
func (e *Embedder) ModelID() string { return e.info.ID() }

// Info describes the loaded model (paths, hashes, token cap, width, pooling).
func (e *Embedder) Info() ModelInfo { return e.info }

// Dim is the width of the vectors.
func (e *Embedder) Dim() int { return e.dim }

// Stats returns the counters since Open. Safe to call at any time.
func (e *Embedder) Stats() Stats {
	s := Stats{
		Requests:        e.st.requests.Load(),
		MemoHits:        e.st.memoHits.Load(),
		CacheHits:       e.st.cacheHits.Load(),
		CacheMisses:     e.st.cacheMisses.Load(),
		CacheCorrupt:    e.st.cacheCorrupt.Load(),
		CacheErrors:     e.st.cacheErrors.Load(),
		CacheCommits:    e.st.cacheCommits.Load(),
		CacheNotices:    e.cacheNotices,
		ModelCalls:      e.st.modelCalls.Load(),
		StringsEmbedded: e.st.embedded.Load(),
		Tokens:          e.st.tokens.Load(),
		PaddedTokens:    e.st.padded.Load(),
		ModelTime:       time.Duration(e.st.modelNanos.Load()),
		TokenizeTime:    time.Duration(e.st.tokenizeNanos.Load()),
		IdleTime:        time.Duration(e.st.idleNanos.Load()),
	}
	if v, ok := e.st.lastCacheErr.Load().(string); ok {
		s.CacheLastError = v
	}
	if e.cache != nil {
		s.CacheDir = e.cache.Dir()
	}
	return s
}

// Embed returns one L2-normalised vector per text, in input order. A
// string reaches the model once while the in-run memo (an LRU) holds its
// vector, and not at all when the persistent cache has it. Bad input never
// fails: invalid UTF-8 becomes U+FFFD, strings are truncated to the model's
// token cap, and a string with no tokens at all gets the zero vector. The
// returned slices are the caller's.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	shared, _, err := e.embedShared(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(shared))
	backing := make([]float32, len(shared)*e.dim)
	for i, v := range shared {
		out[i] = backing[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		copy(out[i], v)
	}
	return out, nil
}

// embedShared is Embed without the copy: the vectors are shared with the memo
// and must not be modified. embedded lists the (sanitized) strings this call
// sent to the model; the others came from the memo, the persistent cache or
// another caller's request.
func (e *Embedder) embedShared(ctx context.Context, texts []string) (vecs [][]float32, embedded []string, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	// Distinct sanitized strings, first-seen order.
	san := make([]string, len(texts))
	index := make(map[string]int, len(texts))
	var uniq []string
	for i, t := range texts {
		s := sanitize(t, e.info.MaxTokens)
		san[i] = s
		if _, ok := index[s]; !ok {
			index[s] = len(uniq)
			uniq = append(uniq, s)
		}
	}
	e.st.requests.Add(int64(len(uniq)))
	vecs = make([][]float32, len(uniq))
	var missIdx []int
	for i, s := range uniq {
		if v, ok := e.memo.get(s); ok {
			vecs[i] = v
			e.st.memoHits.Add(1)
			continue
		}
		missIdx = append(missIdx, i)
	}

	// Join strings already in flight; own the rest.
	waits := make(map[int]*future)
	var own []int
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, nil, ErrClosed
	}
	for _, i := range missIdx {
		s := uniq[i]
		if f, ok := e.inflight[s]; ok {
			waits[i] = f
			continue
		}
		if v, ok := e.memo.get(s); ok { // finished since the first look
			vecs[i] = v
			e.st.memoHits.Add(1)
			continue
		}
		f := &future{done: make(chan struct{})}
		e.inflight[s] = f
		waits[i] = f
		own = append(own, i)
	}
	e.mu.Unlock()

	if len(own) > 0 {
		if embedded, err = e.submit(uniq, own, waits); err != nil {
			return nil, nil, err
		}
	}
	for i, f := range waits {
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-e.quit:
			return nil, nil, ErrClosed
		}
		if f.err != nil {
			return nil, nil, f.err
		}
		vecs[i] = f.vec
	}
	out := make([][]float32, len(texts))
	for i, s := range san {
		out[i] = vecs[index[s]]
	}
	return out, embedded, nil
}

// submit resolves owned strings from the persistent cache, tokenizes the
// rest and queues them for the sessions; it returns the strings queued.
// Every owned future is resolved (now or by a session), whatever happens.
func (e *Embedder) submit(uniq []string, own []int, waits map[int]*future) (queued []string, err error) {
	keys := make([][32]byte, len(own))
	for j, i := range own {
		keys[j] = cacheKey(e.keyPrefix, uniq[i])
	}
	var cached [][]float32
	if e.cache != nil {
		var corrupt int
		var err error
		cached, corrupt, err = e.cache.get(keys)
		e.st.cacheCorrupt.Add(int64(corrupt))
		if err != nil {
			e.noteCacheErr(err)
			cached = nil
		}
	}
	var jobs []*job
	var done []*job // resolved without the model
	start := time.Now()
	for j, i := range own {
		jb := &job{text: uniq[i], key: keys[j], fut: waits[i]}
		if cached != nil && cached[j] != nil && len(cached[j]) == e.dim {
			e.st.cacheHits.Add(1)
			jb.fut.vec = cached[j]
			done = append(done, jb)
			continue
		}
		if e.cache != nil {
			e.st.cacheMisses.Add(1)
		}
		tk, err := e.tok.encode(jb.text)
		if err != nil {
			jb.fut.err = err
			done = append(done, jb)
			continue
		}
		jb.tok, jb.padded = tk, e.padLen(len(tk.ids))
		jobs = append(jobs, jb)
	}
	e.st.tokenizeNanos.Add(int64(time.Since(start)))
	e.mu.Lock()
	e.resolveLocked(done)
	if e.closed {
		for _, jb := range jobs {
			jb.fut.err = ErrClosed
		}
		e.resolveLocked(jobs)
		e.mu.Unlock()
		return nil, ErrClosed
	}
	e.queue.add(jobs)
	if len(jobs) > 0 {
		e.work.Broadcast()
	}
	e.mu.Unlock()
	for _, jb := range jobs {
		queued = append(queued, jb.text)
	}
	return queued, nil
}

// resolveLocked publishes finished jobs: memo first, then the future, then
// out of the in-flight map. Callers hold e.mu.
func (e *Embedder) resolveLocked(jobs []*job) {
	for _, jb := range jobs {
		if jb.fut.err == nil {
			e.memo.add(jb.text, jb.fut.vec)
		}
		if e.inflight[jb.text] == jb.fut {
			delete(e.inflight, jb.text)
		}
		close(jb.fut.done)
	}
}

func (e *Embedder) noteCacheErr(err error) {
	e.st.cacheErrors.Add(1)
	e.st.lastCacheErr.Store(err.Error())
}

// serve is one session's goroutine: whenever the queue holds strings it
// takes a batch (queue.next) and runs it, so no session idles while
// strings wait, and a batch is formed from everything queued at the
// moment a session is free ("batch while busy": under load batches fill
// without any added waiting; an idle Embedder runs a lone request at once).
func (e *Embedder) serve(be backend) {
	defer e.served.Done()
	for {
		e.mu.Lock()
		for e.queue.n == 0 && !e.closed {
			start, started := time.Now(), e.queue.seq > 0 // not the wait for the first strings
			e.work.Wait()
			if started {
				e.st.idleNanos.Add(int64(time.Since(start)))
			}
		}
		if e.closed {
			e.mu.Unlock()
			return
		}
		chunk := e.queue.next(e.batchRows)
		e.mu.Unlock()
		e.runJobs(be, chunk)
	}
}

// batchRows is how many strings of padded length p go in one batch: the
// token budget's worth, within [2, BatchSize].
func (e *Embedder) batchRows(p int) int {
	return max(2, min(e.opts.BatchSize, e.opts.BatchTokens/p))
}

// runJobs embeds a chunk of jobs (one padded length) on session be and
// resolves their futures.
func (e *Embedder) runJobs(be backend, chunk []*job) {
	out, err := e.runBatch(be, chunk)
	var keys [][32]byte
	var vecs [][]float32
	for i, jb := range chunk {
		if err != nil {
			jb.fut.err = err
			continue
		}
		jb.fut.vec = out[i]
		keys = append(keys, jb.key)
		vecs = append(vecs, out[i])
	}
	e.mu.Lock()
	e.resolveLocked(chunk)
	e.mu.Unlock()
	if e.cache != nil && len(keys) > 0 {
		e.writes <- cacheWrite{keys, vecs}
	}
}

// seqBucket is the padded sequence length at which a string of n tokens
// always runs. ONNX Runtime's vector for a row differs in the last float
// bits with the batch's padded length, and between a batch of one row and
// a larger one (measured: up to 3e-8), so a string's vector would depend on
// what it happened to be batched with, and two runs of the same dataset
// would differ with timing. Every string therefore runs at a length that
// depends only on its own token count, in batches of at least two rows:
// its vector is then a function of the string alone, and outputs are
// byte-identical whatever the number of workers. The buckets are exact up
// to 32 tokens, then rounded up to a step of 1/32 of the length (2 up to
// 64, 4 up to 128, ...), so padding wastes at most about 3%: the model's
// cost follows the padded tokens, and most strings are short. (Exact to
// 16 then steps of 1/8, the buckets before, padded 3.1% of the tokens
// of a 3,000-dialog run; these pad 0.9%. Changing them changes vectors in
// their last bits: cacheKeyPrefix names the scheme.)
func seqBucket(n, maxTokens int) int {
	if n <= exactBuckets {
		return max(n, 1)
	}
	step := 1
	for step*exactBuckets < n {
		step *= 2
	}
	b := (n + step - 1) / step * step
	if maxTokens > 0 {
		b = min(b, max(maxTokens, n))
	}
	return b
}

// exactBuckets is the longest string (in tokens) that runs at its own
// length; longer ones run in steps of 1/exactBuckets of their length.
const exactBuckets = 32

// padLen is the sequence length a string of n tokens runs at: its
// seqBucket, rounded up to the backend's multiple (never past the token
// cap).
func (e *Embedder) padLen(n int) int {
	seq := seqBucket(n, e.info.MaxTokens)
	if e.seqMult > 1 {
		seq = min((seq+e.seqMult-1)/e.seqMult*e.seqMult, max(seq, e.info.MaxTokens))
	}
	return seq
}

// buildBatch pads a chunk (strings of one padded length) into one batch:
// right padding with id 0 and attention mask 0, at the longest padLen of
// the chunk, and a padding row added to a chunk of one string (see
// seqBucket).
func (e *Embedder) buildBatch(chunk []tokenized) (in *batchInput, real int) {
	seq := 0
	for _, tk := range chunk {
		seq = max(seq, e.padLen(len(tk.ids)))
		real += len(tk.ids)
	}
	b := max(len(chunk), 2)
	in = &batchInput{batch: b, seq: seq, ids: make([]int64, b*seq), mask: make([]int64, b*seq), types: make([]int64, b*seq)}
	for r, tk := range chunk {
		copy(in.ids[r*seq:], tk.ids)
		copy(in.types[r*seq:], tk.types)
		for c := range tk.ids {
			in.mask[r*seq+c] = 1
		}
	}
	return in, real
}

// runBatch runs one chunk of jobs through the model on session be.
func (e *Embedder) runBatch(be backend, chunk []*job) ([][]float32, error) {
	toks := make([]tokenized, len(chunk))
	for i, jb := range chunk {
		toks[i] = jb.tok
	}
	in, real := e.buildBatch(toks)
	start := time.Now()
	out, dims, err := be.run(in)
	e.st.modelNanos.Add(int64(time.Since(start)))
	e.st.modelCalls.Add(1)
	if err != nil {
		return nil, err
	}
	e.st.embedded.Add(int64(len(chunk)))
	e.st.tokens.Add(int64(real))
	e.st.padded.Add(int64(in.batch * in.seq))
	vecs, err := vectors(out, dims, in, e.plan.tokenLevel, e.info.Pooling)
	if err != nil {
		return nil, err
	}
	return vecs[:len(chunk)], nil
}

// Close stops the sessions (callers still waiting get ErrClosed), waits
// for the cache writer to store what was embedded, then releases the
// sessions, the runtime reference and the cache. It is safe to call more
// than once.
func (e *Embedder) Close() error {
	e.closeOne.Do(func() {
		e.mu.Lock()
		e.closed = true
		close(e.quit)
		e.work.Broadcast()
		e.mu.Unlock()
		e.served.Wait()
		e.mu.Lock()
		left := e.queue.drain()
		for _, jb := range left {
			jb.fut.err = ErrClosed
		}
		e.resolveLocked(left)
		e.mu.Unlock()
		errs := []error{e.closeSessions()}
		if e.cache != nil {
			// The sessions have stopped: nothing sends any more.
			close(e.writes)
			<-e.writerDone
			if err := e.cache.Close(); err != nil {
				e.noteCacheErr(err) // a cache is an optimisation: the vectors returned are right
			}
		}
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// Layout is how an Embedder runs its model: Sessions sessions side by
// side, each of Threads intra-op threads, batches of at most BatchTokens
// token slots and BatchSize rows.
type Layout struct {
	Sessions, Threads, BatchTokens, BatchSize int
}

// Layout returns the resolved layout (see Options.Layout).
func (e *Embedder) Layout() Layout {
	return Layout{Sessions: e.opts.Sessions, Threads: e.opts.IntraOpThreads, BatchTokens: e.opts.BatchTokens, BatchSize: e.opts.BatchSize}
}
