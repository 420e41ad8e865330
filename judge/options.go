package judge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Environment variables holding the API key, in the order KeyFromEnv reads
// them.
const (
	EnvAPIKey       = "AEM_JUDGE_API_KEY"
	EnvOpenAIAPIKey = "OPENAI_API_KEY"
)

// Response formats accepted by Options.ResponseFormat.
const (
	// FormatAuto asks for json_schema, and steps down to json_object, then
	// to the prompt alone, when the endpoint rejects the format.
	FormatAuto       = "auto"
	FormatJSONSchema = "json_schema" // OpenAI structured outputs (strict schema)
	FormatJSONObject = "json_object" // JSON mode: any JSON object
	FormatNone       = "none"        // no response_format: the prompt alone asks for JSON
)

// Defaults applied by Options.withDefaults to zero fields.
const (
	DefaultConcurrency      = 4
	DefaultTimeout          = 60 * time.Second
	DefaultMaxRetries       = 6
	DefaultBackoffBase      = time.Second
	DefaultBackoffMax       = time.Minute
	DefaultMaxRetryAfter    = 10 * time.Minute
	DefaultMaxAnswerTokens  = 200
	DefaultCacheMaxBytes    = 1 << 30
	DefaultCacheLockTimeout = 5 * time.Second
	// CacheName is the persistent cache's directory inside
	// Options.CacheDir (a diskcache directory).
	CacheName = "judgements"
)

// Options configures New. URL and Model are required; every other zero
// field takes its default.
type Options struct {
	// URL is the endpoint's base URL, as OpenAI clients take it
	// ("https://api.openai.com/v1", "http://localhost:8080/v1");
	// "/chat/completions" is appended unless the URL already ends with it.
	URL string
	// Model is the model name sent in every request. It is part of the
	// cache key and of the scorer ID: a different model is a different judge.
	Model string
	// APIKey is sent as "Authorization: Bearer <key>"; empty sends no
	// Authorization header (local servers). It never appears in an error,
	// a log line or an output. KeyFromEnv reads it from the environment.
	APIKey string

	// Concurrency is the most requests in flight at once (default 4).
	Concurrency int
	// RequestsPerMinute and TokensPerMinute bound the rate of requests and
	// of tokens (estimated before each request: see estimateTokens); 0 is
	// unlimited. Up to ten seconds' worth may go out at once.
	RequestsPerMinute int
	TokensPerMinute   int
	// Timeout bounds each request (default 60s); a request past it is
	// retried like a 5xx.
	Timeout time.Duration
	// MaxRetries is how many times one request is retried after HTTP 429,
	// 408, 5xx, a timeout or a connection error (default 6; negative: none).
	MaxRetries int
	// BackoffBase and BackoffMax shape the wait before retry n (from 0):
	// min(BackoffMax, BackoffBase*2^n), half of it fixed and half jitter,
	// unless the response says Retry-After (or retry-after-ms), which is
	// honoured up to MaxRetryAfter.
	BackoffBase   time.Duration
	BackoffMax    time.Duration
	MaxRetryAfter time.Duration

	// MaxCalls and MaxTokens are the run's budget: the requests sent
	// (retries included) and the tokens used (prompt plus completion, as
	// the endpoint reports them), with what Judge.Carry charged for the
	// run's earlier invocations. A request that would go past either is
	// not sent: Compare fails with ErrBudget. 0 is unlimited.
	MaxCalls  int64
	MaxTokens int64

	// ResponseFormat is FormatAuto (default), FormatJSONSchema,
	// FormatJSONObject or FormatNone.
	ResponseFormat string
	// MaxAnswerTokens is max_tokens in each request (default 200).
	MaxAnswerTokens int

	// CacheDir holds the persistent cache of answers (CacheName); empty
	// keeps answers in memory for this Judge only.
	CacheDir string
	// CacheMaxBytes bounds the cache's files (default 1 GiB, about two
	// million answers); the oldest entries are evicted past it.
	CacheMaxBytes int64
	// CacheLockTimeout is how long New waits for another process holding
	// the cache (default 5s).
	CacheLockTimeout time.Duration
	// DiscardCorruptCache deletes a cache file that cannot be read instead
	// of moving it aside. Either way the run goes on and
	// Stats.CacheNotices says what was done.
	DiscardCorruptCache bool

	// HTTPClient sends the requests; nil means a client with no timeout of
	// its own (Timeout applies per request).
	HTTPClient *http.Client
	// Clock reads the time and sleeps (rate limits, backoff); nil means
	// the real clock. Tests inject a fake one.
	Clock Clock
	// Jitter returns a number in [0, 1) for the backoff's jitter; nil
	// means math/rand/v2.
	Jitter func() float64
}

// Clock is the time source of a Judge.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

// realClock is the Clock of the running process.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// KeyFromEnv returns the API key from $AEM_JUDGE_API_KEY, else
// $OPENAI_API_KEY, else "". getenv is os.Getenv outside tests.
func KeyFromEnv(getenv func(string) string) string {
	if k := getenv(EnvAPIKey); k != "" {
		return k
	}
	return getenv(EnvOpenAIAPIKey)
}

// Validate reports the first bad setting, wrapping ErrInvalidOptions.
func (o Options) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, a...))
	}
	if o.URL == "" {
		return bad("no endpoint URL: set --judge-url (for example https://api.openai.com/v1)")
	}
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("endpoint URL %q is not an http(s) URL: give the base URL, for example https://api.openai.com/v1", redactURL(o.URL))
	}
	if u.User != nil {
		return bad("endpoint URL %q carries credentials: put the key in $%s instead", redactURL(o.URL), EnvAPIKey)
	}
	if strings.TrimSpace(o.Model) == "" {
		return bad("no model: set --judge-model (the name the endpoint serves, for example gpt-4o-mini)")
	}
	switch o.ResponseFormat {
	case "", FormatAuto, FormatJSONSchema, FormatJSONObject, FormatNone:
	default:
		return bad("response format %q: use auto, json_schema, json_object or none", o.ResponseFormat)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"concurrency", int64(o.Concurrency)}, {"requests per minute", int64(o.RequestsPerMinute)},
		{"tokens per minute", int64(o.TokensPerMinute)}, {"max calls", o.MaxCalls}, {"max tokens", o.MaxTokens},
		{"max answer tokens", int64(o.MaxAnswerTokens)}, {"cache size", o.CacheMaxBytes},
	} {
		if f.v < 0 {
			return bad("%s is %d: it must be 0 (the default or unlimited) or more", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{
		{"timeout", o.Timeout}, {"backoff base", o.BackoffBase}, {"backoff max", o.BackoffMax},
		{"max Retry-After", o.MaxRetryAfter}, {"cache lock timeout", o.CacheLockTimeout},
	} {
		if f.v < 0 {
			return bad("%s is %v: it must be 0 (the default) or more", f.name, f.v)
		}
	}
	return nil
}

// withDefaults fills zero fields with their defaults.
func (o Options) withDefaults() Options {
	setDefault(&o.Concurrency, DefaultConcurrency)
	setDefault(&o.Timeout, DefaultTimeout)
	setDefault(&o.MaxRetries, DefaultMaxRetries)
	setDefault(&o.BackoffBase, DefaultBackoffBase)
	setDefault(&o.BackoffMax, DefaultBackoffMax)
	setDefault(&o.MaxRetryAfter, DefaultMaxRetryAfter)
	setDefault(&o.MaxAnswerTokens, DefaultMaxAnswerTokens)
	setDefault(&o.CacheMaxBytes, DefaultCacheMaxBytes)
	setDefault(&o.CacheLockTimeout, DefaultCacheLockTimeout)
	setDefault(&o.ResponseFormat, FormatAuto)
	o.MaxRetries = max(o.MaxRetries, 0)
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	return o
}

func setDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// endpoint is the chat-completions URL for the base URL (validated by
// Validate); a query (Azure's api-version=) is kept.
func endpoint(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/chat/completions") {
		u.Path += "/chat/completions"
	}
	u.RawPath = ""
	return u.String()
}

// redactURL is u without its query and user information, for messages: an
// endpoint URL may carry a key (Azure's api-key=, a proxy's token=).
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
