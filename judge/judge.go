package judge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"
)

// Judge asks an OpenAI-compatible chat-completions endpoint whether
// predicted strings are equivalent to gold ones. It is safe for concurrent
// use: every call shares one concurrency limit, one pair of rate limits,
// one budget and one cache.
type Judge struct {
	o      Options
	url    string
	secret redactor // the API key's parts, kept out of what the endpoint says
	store  store
	lim    *limits
	sem    chan struct{}
	flight singleflight.Group

	mu  sync.Mutex
	fmt string // response format in use; FormatAuto steps down from json_schema

	st           counters
	cacheNotices []string // what opening the cache found (Stats.CacheNotices)
}

// counters are the Judge's statistics; see Stats.
type counters struct {
	comparisons, cacheHits, judged, errors atomic.Int64
	calls, retries, usageMissing           atomic.Int64
	promptTokens, completionTokens         atomic.Int64
	cacheCorrupt, cacheErrors              atomic.Int64
	lastCacheErr                           atomic.Value // string
}

// Result is the judge's outcome for one Comparison.
type Result struct {
	Answer
	// Cached is true when the answer came from the cache (no call made).
	Cached bool
	// Err is a judge error on this comparison: the answer was malformed
	// twice (ErrMalformedAnswer) or the endpoint declined it (ErrRefused).
	// Answer is then zero. Judge errors are not cached.
	Err error
}

// New checks o and opens the cache. Close the Judge when done.
func New(o Options) (*Judge, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	s, notices, err := openStore(o)
	if err != nil {
		return nil, fmt.Errorf("opening the judge cache: %w", err)
	}
	j := &Judge{o: o, url: endpoint(o.URL), secret: newRedactor(o.APIKey), store: s, lim: newLimits(o), sem: make(chan struct{}, o.Concurrency), fmt: o.ResponseFormat,
		cacheNotices: notices}
	if j.fmt == FormatAuto {
		j.fmt = FormatJSONSchema
	}
	return j, nil
}

// ID names the judge for outputs and comparability: the model and the
// prompts' version, "judge:gpt-4o-mini@prompt-2".
func (j *Judge) ID() string { return "judge:" + j.o.Model + "@prompt-" + PromptVersion }

// Carry charges what earlier invocations of the same run spent (calls
// and tokens, as their Stats counted them) against the budget, so that
// MaxCalls and MaxTokens bound the run as a whole, however often it is
// resumed. Stats still counts this Judge's own work only.
func (j *Judge) Carry(calls, tokens int64) { j.lim.carry(calls, tokens) }

// Close closes the cache.
func (j *Judge) Close() error {
	if err := j.store.close(); err != nil {
		j.noteCacheErr(err) // the answers given stand; Stats reports it
	}
	return nil
}

// noteCacheErr counts a cache read or write that failed.
func (j *Judge) noteCacheErr(err error) {
	j.st.cacheErrors.Add(1)
	j.st.lastCacheErr.Store(err.Error())
}

// Compare judges each comparison and returns one Result per comparison,
// in order. A comparison the judge could not answer has Result.Err set and
// the others go on. The error is for the whole call: ErrBudget (nothing
// more is sent; what was answered is cached), ErrEndpoint, a bad Kind, or
// the context's error.
func (j *Judge) Compare(ctx context.Context, cs []Comparison) ([]Result, error) {
	for i, c := range cs {
		if err := c.validate(); err != nil {
			return nil, fmt.Errorf("comparison %d (%s): %w", i, c.Field, err)
		}
	}
	out := make([]Result, len(cs))
	// No shared cancellation: after a failure (the budget, say), requests
	// already sent finish and their answers are cached; nothing new starts.
	var g errgroup.Group
	g.SetLimit(4 * j.o.Concurrency)
	var failed atomic.Bool
	for i, c := range cs {
		if failed.Load() {
			break
		}
		g.Go(func() error {
			if failed.Load() {
				return nil
			}
			v, err := j.one(ctx, c)
			if err != nil {
				failed.Store(true)
				return err
			}
			out[i] = v
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// one judges one comparison: from the cache, or by joining the same
// comparison in flight, or by asking the endpoint.
func (j *Judge) one(ctx context.Context, c Comparison) (Result, error) {
	j.st.comparisons.Add(1)
	c = c.asked()
	key := cacheKey(j.o.Model, c)
	if a, ok := j.lookup(key); ok {
		j.st.cacheHits.Add(1)
		return Result{Answer: a, Cached: true}, nil
	}
	v, err, _ := j.flight.Do(string(key[:]), func() (any, error) {
		if a, ok := j.lookup(key); ok { // answered while this call waited
			return Result{Answer: a, Cached: true}, nil
		}
		a, err := j.ask(ctx, c)
		if errors.Is(err, ErrMalformedAnswer) || errors.Is(err, ErrRefused) {
			j.st.errors.Add(1)
			return Result{Err: err}, nil
		}
		if err != nil {
			return nil, err
		}
		j.st.judged.Add(1)
		if err := j.store.put(key, a); err != nil {
			j.noteCacheErr(err) // the answer stands; the next run asks again
		}
		return Result{Answer: a}, nil
	})
	if err != nil {
		return Result{}, err
	}
	return v.(Result), nil
}

// lookup reads the cache; a damaged entry or a failing read is a miss.
// A reason cached before the key's parts were redacted is redacted as it
// is read.
func (j *Judge) lookup(key [32]byte) (Answer, bool) {
	a, ok, corrupt, err := j.store.get(key)
	if corrupt {
		j.st.cacheCorrupt.Add(1)
	}
	if err != nil {
		j.noteCacheErr(err)
		return Answer{}, false
	}
	a.Reason = j.redact(a.Reason)
	return a, ok
}

// ask gets one answer from the endpoint. A malformed answer is retried
// once, with the model's answer and what was wrong with it added to the
// conversation; a second malformed answer is ErrMalformedAnswer.
func (j *Judge) ask(ctx context.Context, c Comparison) (Answer, error) {
	msgs := c.messages()
	var problem error
	for attempt := range 2 {
		content, err := j.complete(ctx, msgs)
		if err != nil {
			return Answer{}, err
		}
		a, perr := parseAnswer(content)
		if perr == nil {
			a.Reason = j.redact(a.Reason) // before the cache and the rows see it
			return a, nil
		}
		// perr may quote the answer (an unknown key, the score's text).
		problem = fmt.Errorf("%w (attempt %d of 2: %s; answer %q)", ErrMalformedAnswer, attempt+1, j.redact(perr.Error()), clip(j.redact(content), 120))
		msgs = append(msgs, message{Role: "assistant", Content: content}, message{Role: "user", Content: repairPrompt(perr.Error())})
	}
	return Answer{}, problem
}

// format is the response format to ask for now.
func (j *Judge) format() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.fmt
}

// stepDown moves FormatAuto from the format the endpoint rejected to the
// next: json_schema, json_object, none. A format named explicitly is
// never changed.
func (j *Judge) stepDown(rejected string) {
	if j.o.ResponseFormat != FormatAuto {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fmt != rejected {
		return // another request stepped down already
	}
	switch rejected {
	case FormatJSONSchema:
		j.fmt = FormatJSONObject
	case FormatJSONObject:
		j.fmt = FormatNone
	}
}

// Stats counts what a Judge did.
type Stats struct {
	Comparisons      int64         // comparisons asked about, cache hits included
	CacheHits        int64         // answered from the cache, no call made
	Judged           int64         // answered by the endpoint
	Errors           int64         // judge errors (Result.Err): malformed twice, declined
	Calls            int64         // HTTP requests sent, retries and repair requests included
	Retries          int64         // requests retried after 429, 5xx, timeouts or connection errors
	PromptTokens     int64         // as the endpoint reported them
	CompletionTokens int64         // as the endpoint reported them
	UsageMissing     int64         // answers without usage, counted at their estimate (in PromptTokens)
	RateWait         time.Duration // time spent waiting for rate limits, 429 pauses and backoff
	CacheCorrupt     int64         // cache entries that failed their checks (misses)
	CacheErrors      int64         // cache reads or writes that failed (the run went on)
	CacheLastError   string        // the last such failure
	CacheDir         string        // the persistent cache's directory ("" without one)
	CacheNotices     []string      // what opening the cache found: files moved aside, an earlier release's file
	ResponseFormat   string        // the response format in use at the end
}

// Stats returns the counters so far.
func (j *Judge) Stats() Stats {
	_, _, waited := j.lim.snapshot()
	last, _ := j.st.lastCacheErr.Load().(string)
	return Stats{
		Comparisons: j.st.comparisons.Load(), CacheHits: j.st.cacheHits.Load(), Judged: j.st.judged.Load(),
		Errors: j.st.errors.Load(), Calls: j.st.calls.Load(), Retries: j.st.retries.Load(),
		PromptTokens: j.st.promptTokens.Load(), CompletionTokens: j.st.completionTokens.Load(),
		UsageMissing: j.st.usageMissing.Load(), RateWait: waited,
		CacheCorrupt: j.st.cacheCorrupt.Load(), CacheErrors: j.st.cacheErrors.Load(),
		CacheLastError: last, CacheDir: j.store.dir(), CacheNotices: j.cacheNotices,
		ResponseFormat: j.format(),
	}
}
