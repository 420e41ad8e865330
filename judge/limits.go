package judge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limits holds what bounds the requests of one Judge: the run's budget,
// the per-minute rate limits and a shared pause after HTTP 429.
type limits struct {
	clock     Clock
	requests  *rate.Limiter // nil: unlimited
	tokens    *rate.Limiter // nil: unlimited
	maxCalls  int64
	maxTokens int64

	mu       sync.Mutex
	calls    int64 // requests sent or about to be
	used     int64 // tokens the endpoint reported (or estimated, without usage)
	inflight int64 // estimated tokens of requests not yet answered
	stopped  error // the budget error, once reached: nothing more is sent
	pause    time.Time
	waited   time.Duration
}

// burstWindow is how much of a per-minute rate may go out at once.
const burstWindow = 10 * time.Second

func newLimits(o Options) *limits {
	l := &limits{clock: o.Clock, maxCalls: o.MaxCalls, maxTokens: o.MaxTokens}
	l.requests = perMinute(o.RequestsPerMinute)
	l.tokens = perMinute(o.TokensPerMinute)
	return l
}

// perMinute is a limiter of n per minute with burstWindow's worth of burst;
// nil for 0.
func perMinute(n int) *rate.Limiter {
	if n == 0 {
		return nil
	}
	burst := max(1, int(int64(n)*int64(burstWindow)/int64(time.Minute)))
	return rate.NewLimiter(rate.Limit(float64(n)/60), burst)
}

// reserve admits one request estimated at est tokens against the budget.
// Every successful reserve must be followed by settle.
func (l *limits) reserve(est int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.stopped != nil:
		return l.stopped
	case l.maxCalls > 0 && l.calls+1 > l.maxCalls:
		l.stopped = fmt.Errorf("%w: %d calls made, the most allowed (--judge-max-calls %d)", ErrBudget, l.calls, l.maxCalls)
		return l.stopped
	case l.maxTokens > 0 && l.used+l.inflight+est > l.maxTokens:
		l.stopped = fmt.Errorf("%w: %d tokens used, and the next call (up to %d) would pass --judge-max-tokens %d", ErrBudget, l.used+l.inflight, est, l.maxTokens)
		return l.stopped
	}
	l.calls++
	l.inflight += est
	return nil
}

// unreserve takes back a reservation whose request was never sent.
func (l *limits) unreserve(est int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls--
	l.inflight -= est
}

// settle records what a sent request used and charges the token rate
// limiter for tokens past the estimate.
func (l *limits) settle(est, used int64) {
	l.mu.Lock()
	l.inflight -= est
	l.used += used
	l.mu.Unlock()
	if extra := used - est; extra > 0 && l.tokens != nil {
		l.tokens.ReserveN(l.clock.Now(), int(min(extra, int64(l.tokens.Burst()))))
	}
}

// pauseFor holds every request back for d from now (HTTP 429 with
// Retry-After: the endpoint asked everyone to wait, not one request).
func (l *limits) pauseFor(d time.Duration) {
	until := l.clock.Now().Add(d)
	l.mu.Lock()
	if until.After(l.pause) {
		l.pause = until
	}
	l.mu.Unlock()
}

// wait blocks until a request of est tokens may go: past any pause and
// within both rate limits.
func (l *limits) wait(ctx context.Context, est int64) error {
	l.mu.Lock()
	pause := l.pause
	l.mu.Unlock()
	if d := pause.Sub(l.clock.Now()); d > 0 {
		if err := l.sleep(ctx, d); err != nil {
			return err
		}
	}
	if err := l.take(ctx, l.requests, 1); err != nil {
		return err
	}
	return l.take(ctx, l.tokens, est)
}

// take waits for n tokens of lim (at most its burst).
func (l *limits) take(ctx context.Context, lim *rate.Limiter, n int64) error {
	if lim == nil {
		return nil
	}
	now := l.clock.Now()
	r := lim.ReserveN(now, int(min(n, int64(lim.Burst()))))
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if err := l.sleep(ctx, d); err != nil {
		r.CancelAt(l.clock.Now())
		return err
	}
	return nil
}

func (l *limits) sleep(ctx context.Context, d time.Duration) error {
	l.mu.Lock()
	l.waited += d
	l.mu.Unlock()
	return l.clock.Sleep(ctx, d)
}

// carry charges calls and tokens spent before this process started (the
// earlier invocations of a resumed run) against the budget.
func (l *limits) carry(calls, tokens int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls += calls
	l.used += tokens
}

// snapshot returns the counters.
func (l *limits) snapshot() (calls, used int64, waited time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls, l.used, l.waited
}
