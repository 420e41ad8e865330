package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
	"github.com/aem-dev/aem/thresholds"
)

// judgeOptions configures the LLM judge of --scorer judge and
// --scorer embed+judge. The API key is never a flag (a command line is
// visible to every user of the machine): it comes from AEM_JUDGE_API_KEY
// or OPENAI_API_KEY.
type judgeOptions struct {
	url         string
	model       string
	band        string
	bandProb    string
	concurrency int
	rpm, tpm    int
	timeout     time.Duration
	retries     int
	maxCalls    int64
	maxTokens   int64
	format      string
	cacheDir    string
}

func (o *judgeOptions) addFlags(fs *flagSet) {
	j := fs.shared(topicJudge)
	j.StringVar(&o.url, "judge-url", "", "the judge's OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or http://localhost:8080/v1 (key from AEM_JUDGE_API_KEY or OPENAI_API_KEY)")
	j.StringVar(&o.model, "judge-model", "", "the judge's model name, e.g. gpt-4o-mini")
	j.StringVar(&o.band, "judge-band", "", "embed+judge: ask the judge when the similarity lies in LOW:HIGH (default: the thresholds file's judge_band, else 0.35:0.8)")
	j.StringVar(&o.bandProb, "judge-band-composite", "", "embed+judge with a thresholds file carrying fitted composites: ask the judge when a composite's probability lies in LOW:HIGH (default: the file's judge_band.composite, else 0.2:0.8)")
	j.IntVar(&o.concurrency, "judge-concurrency", judge.DefaultConcurrency, "judge requests in flight at once")
	j.IntVar(&o.rpm, "judge-rpm", 0, "judge requests per minute (0: no limit)")
	j.IntVar(&o.tpm, "judge-tpm", 0, "judge tokens per minute, estimated before each request (0: no limit)")
	j.DurationVar(&o.timeout, "judge-timeout", judge.DefaultTimeout, "time limit of one judge request; a request past it is retried")
	j.IntVar(&o.retries, "judge-retries", judge.DefaultMaxRetries, "retries of a judge request after HTTP 429, 5xx, a timeout or a connection error (negative: none)")
	j.Int64Var(&o.maxCalls, "judge-max-calls", 0, "budget: stop the run (resumable) before the judge request that would pass this many, counting a resumed run's earlier invocations (0: no limit)")
	j.Int64Var(&o.maxTokens, "judge-max-tokens", 0, "budget: stop the run (resumable) before a judge request that could pass this many tokens, counting a resumed run's earlier invocations (0: no limit)")
	j.StringVar(&o.format, "judge-response-format", judge.FormatAuto, "how the answer's JSON is asked for: auto (json_schema, stepping down as the endpoint refuses), json_schema, json_object or none")
	j.StringVar(&o.cacheDir, "judge-cache-dir", "", "persistent cache of the judge's answers (default: <home>/judge-cache; --no-cache disables it)")
}

// options builds judge.Options; home is the install root for the default
// cache directory.
func (o judgeOptions) options(env *Env, home string, noCache, discard bool) judge.Options {
	jo := judge.Options{
		URL: o.url, Model: o.model, APIKey: judge.KeyFromEnv(env.Getenv),
		Concurrency: o.concurrency, RequestsPerMinute: o.rpm, TokensPerMinute: o.tpm,
		Timeout: o.timeout, MaxRetries: o.retries, MaxCalls: o.maxCalls, MaxTokens: o.maxTokens,
		ResponseFormat: o.format, DiscardCorruptCache: discard,
	}
	if o.retries == 0 {
		jo.MaxRetries = -1 // the flag's 0 means none; Options' 0 means the default
	}
	if !noCache {
		jo.CacheDir = o.cacheDir
		if jo.CacheDir == "" {
			jo.CacheDir = filepath.Join(home, "judge-cache")
		}
	}
	return jo
}

// bandFor is the escalation's bands: --judge-band, else fromFile (the
// thresholds file's judge_band), else the default, for similarities; and,
// when the first scorer answers with fitted composites' probabilities
// (probabilities), --judge-band-composite, else the file's
// judge_band.composite, else the default, for those. --scorer judge
// sends every score.
func (o judgeOptions) bandFor(kind string, fromFile *thresholds.JudgeBand, probabilities bool) (judge.Bands, error) {
	if kind == scorerJudge {
		if o.band != "" || o.bandProb != "" {
			return judge.Bands{}, fmt.Errorf("--judge-band and --judge-band-composite apply to --scorer embed+judge; --scorer judge asks the judge about every comparison")
		}
		b := judge.Bands{Similarity: judge.EveryScore}
		if probabilities {
			every := judge.EveryScore
			b.Probability = &every
		}
		return b, nil
	}
	if o.bandProb != "" && !probabilities {
		return judge.Bands{}, fmt.Errorf("--judge-band-composite applies when the thresholds file carries fitted composites ('aem sweep --fit' writes them); this run scores similarities only: use --judge-band")
	}
	b := judge.Bands{Similarity: judge.DefaultBand}
	var err error
	switch {
	case o.band != "":
		b.Similarity, err = judge.ParseBand(o.band)
	case fromFile != nil:
		b.Similarity = judge.Band{Low: fromFile.Low, High: fromFile.High}
	}
	if err != nil || !probabilities {
		return b, err
	}
	p := judge.DefaultProbabilityBand
	switch {
	case o.bandProb != "":
		p, err = judge.ParseProbabilityBand(o.bandProb)
	case fromFile != nil && fromFile.Composite != nil:
		p = judge.Band{Low: fromFile.Composite.Low, High: fromFile.Composite.High}
	}
	b.Probability = &p
	return b, err
}

// judgeMeter is a judged run's batch.JudgeMeter.
type judgeMeter struct{ sc *openedScorer }

// Usage counts what the judge and the escalation did in this process.
func (m judgeMeter) Usage() rundir.JudgeUsage {
	js, es := m.sc.judge.Stats(), m.sc.escalation.Stats()
	return rundir.JudgeUsage{
		Compared: es.Comparisons, Escalated: es.Escalated, Spared: es.Spared, Moot: es.Moot, Calls: js.Calls, CacheHits: js.CacheHits,
		Retries: js.Retries, Errors: js.Errors, PromptTokens: js.PromptTokens, CompletionTokens: js.CompletionTokens,
	}
}

// Carry charges the calls and tokens of a resumed run's earlier
// invocations against --judge-max-calls and --judge-max-tokens.
func (m judgeMeter) Carry(earlier rundir.JudgeUsage) {
	m.sc.judge.Carry(earlier.Calls, earlier.PromptTokens+earlier.CompletionTokens)
}

// clauseBandWarning warns when the similarity band ends below the clause
// threshold (completeness.clause): the escalation takes an alternative
// above the band as settled by the embedding, which fails it between the
// band's top and the threshold, so a gold clause the judge would have
// covered through another alternative is not asked about. "" when the
// band holds the threshold.
func clauseBandWarning(t metrics.Thresholds, b judge.Bands) string {
	th := t.For(metrics.ThresholdQuery{SubMetric: metrics.SubCompleteClause, By: metrics.ByEmbed})
	if th.Value <= b.Similarity.High {
		return ""
	}
	return fmt.Sprintf("the judge band %s ends below the clause threshold %g (%s): a gold clause with a reply clause scoring between them fails without the judge being asked; widen --judge-band to hold the threshold",
		b.Similarity, th.Value, th.From)
}
