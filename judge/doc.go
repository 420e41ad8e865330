// Package judge is an LLM-as-judge for semantic equivalence: it asks an
// OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI's v1
// API, vLLM, llama.cpp's llama-server, Ollama, LiteLLM) whether an agent's
// output means the same as the gold output, where an embedding cosine is
// least trustworthy (single words, near-identical sentences).
//
// # Using it
//
//	j, err := judge.New(judge.Options{
//		URL: "https://api.openai.com/v1", Model: "gpt-4o-mini",
//		APIKey: judge.KeyFromEnv(os.Getenv), CacheDir: ".aem/judge-cache",
//	})
//	...
//	defer j.Close()
//	vs, err := j.Compare(ctx, []judge.Comparison{{Kind: judge.KindValue,
//		Field: "weather.get.city", Gold: "New York City", Predicted: "NYC"}})
//	// vs[0].Equivalent, vs[0].Score, vs[0].Reason; vs[0].Err for a judge error
//
// # Requests
//
// Each comparison is one request: a system message (what the grader does
// and the answer's JSON shape, then the definition of equivalence for the
// comparison's Kind: value, reply or clause) and a user message (the field
// path and its context when known, then the gold and the agent's strings as
// JSON string literals; a clause's field without its position in the
// reply, which tells the judge nothing). Temperature is 0 and max_tokens
// Options.MaxAnswerTokens. The prompts are versioned (PromptVersion); the
// version is part of the cache key and of the Judge's ID.
//
// The answer is asked for as response_format json_schema (strict); an
// endpoint that rejects it (HTTP 400 naming response_format) is asked with
// json_object, then with the prompt alone (Options.ResponseFormat "auto";
// a format named explicitly is kept). The content is parsed strictly
// (parseAnswer): one object with exactly reason (one non-empty sentence),
// equivalent (boolean) and score (a number in [0, 1], at least
// DecisionScore exactly when equivalent, so that a threshold of 0.5 on the
// score is the judge's decision and the score still ranks answers for a
// sweep). The reason comes first in the schema: the model writes it
// before deciding. A malformed answer
// is asked again once, with what was wrong; a second one is a judge error on
// that comparison (Result.Err, ErrMalformedAnswer), and so is a comparison
// the endpoint declines (past the model's context, a refusal: ErrRefused).
// The run goes on; judge errors are counted and never cached.
//
// # Escalation
//
// Escalation is the metrics.Scorer of --scorer embed+judge: a first scorer
// (the embedding) scores every comparison and the judge decides those in
// the uncertain band. A gold clause's comparisons with each clause of the
// reply are alternatives of one decision (metrics.Comparison.Among): they
// are judged from the highest first score down until one is equivalent,
// and not at all when one scores above the band; the rest are Spared.
//
// # Production manners
//
// Options.Concurrency bounds the requests in flight across all callers.
// RequestsPerMinute and TokensPerMinute are client-side rate limits
// (golang.org/x/time/rate; tokens are estimated before a request, at three
// bytes a token plus max_tokens, and charged again when the endpoint
// reports more). HTTP 429, 408, 409 and 5xx, timeouts (Options.Timeout per
// request) and connection errors are retried up to MaxRetries times with
// exponential backoff and jitter; a Retry-After (or OpenAI's
// retry-after-ms) is honoured, and on 429 it pauses every request, not only
// the one that met it. A 429 for an exhausted quota, 401, 403, 404 and other
// 4xx fail at once (ErrEndpoint). MaxCalls and MaxTokens are the run's
// budget: a request that could go past it is not sent, and Compare fails
// with ErrBudget; answers already received are in the cache, so a resumed
// run pays for nothing twice, and Judge.Carry charges what its earlier
// invocations spent, so the budget bounds the run as a whole. A Clock can
// be injected, so tests of waits and retries do not sleep.
//
// # Cache
//
// With Options.CacheDir, answers are kept in a diskcache directory
// (CacheName) keyed by sha256 of (model, prompt version, kind, field,
// context, gold, predicted): a rerun, a resume or another dataset sharing
// comparisons makes no call for them. Identical comparisons in flight at
// the same time make one call. Each answer is synced to disk before it
// counts (diskcache.Options.Sync). A damaged entry is a miss (asked again,
// Stats.CacheCorrupt), a file that cannot be read is moved aside
// (Stats.CacheNotices), and a failed write is counted (Stats.CacheErrors):
// the cache never stops a run. The bbolt file of earlier releases
// (judgements.bbolt) is not read: its answers are asked for again once.
//
// # Secrets
//
// The API key goes only into the Authorization header. It is never part of
// an error, a statistic or the ID; endpoint error messages are stripped of
// it; 401 and 403 messages are dropped (servers quote part of a bad key);
// the URL in messages loses its query and user information.
//
// The client is written against net/http rather than an OpenAI SDK: the
// judge uses one endpoint and five request fields, and needs its own
// budget, rate limits and retry policy around every call.
package judge
