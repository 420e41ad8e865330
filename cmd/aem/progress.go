package main

import (
	"fmt"
	"io"
	"time"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/judge"
)

// progress renders batch.Progress reports on stderr: a status line
// rewritten in place on a terminal, a plain log line every logEvery
// otherwise. It never writes to stdout.
type progress struct {
	w        io.Writer // log lines
	redraw   io.Writer // the status line on a terminal
	tty      bool
	now      func() time.Time
	logEvery time.Duration
	// extra, when set, appends a scorer's own figures (the judge's) to
	// each line.
	extra func(s batch.Stats, total int64) string

	total    int64
	last     time.Time
	drawn    bool
	finished bool
}

func newProgress(env *Env, quiet bool, extra func(batch.Stats, int64) string) batch.Progress {
	if quiet {
		return batch.NoopProgress{}
	}
	redraw := env.StatusLine
	if redraw == nil {
		redraw = env.Stderr
	}
	return &progress{w: env.Stderr, redraw: redraw, tty: env.StderrTTY, now: env.Now, logEvery: 10 * time.Second, extra: extra}
}

func (p *progress) Start(totalRows int64) {
	p.total = totalRows
	p.last = p.now()
}

func (p *progress) Update(s batch.Stats) {
	every := p.logEvery
	if p.tty {
		every = 200 * time.Millisecond
	}
	if p.now().Sub(p.last) < every {
		return
	}
	p.last = p.now()
	p.print(s)
}

func (p *progress) Done(s batch.Stats, err error) {
	if p.finished {
		return
	}
	p.finished = true
	if err == nil {
		p.print(s)
	}
	if p.tty && p.drawn {
		fmt.Fprintln(p.redraw)
	}
}

func (p *progress) print(s batch.Stats) {
	line := statusLine(s, p.total)
	if p.extra != nil {
		line += p.extra(s, p.total)
	}
	if p.tty {
		fmt.Fprintf(p.redraw, "\r\033[K%s", line)
		p.drawn = true
		return
	}
	fmt.Fprintf(p.w, "%s aem: %s\n", p.now().UTC().Format(time.RFC3339), line)
}

// statusLine formats one progress report: turns done (of the total when
// known), dialogs, throughput, ETA and the embedding cache's hit rate.
func statusLine(s batch.Stats, total int64) string {
	done := s.TurnsDone
	fresh := done - s.ResumedTurns
	rate := 0.0
	if secs := s.Elapsed.Seconds(); secs > 0 {
		rate = float64(fresh) / secs
	}
	line := fmt.Sprintf("%d turns", done)
	if total > 0 {
		line = fmt.Sprintf("%d/%d rows read, %d turns scored", s.RowsRead, total, done)
	}
	line += fmt.Sprintf(", %d dialogs, %.0f turns/s", s.DialogsDone, rate)
	if total > 0 && rate > 0 && s.RowsRead < total {
		left := time.Duration(float64(total-s.RowsRead) / rate * float64(time.Second))
		line += ", ETA " + left.Round(time.Second).String()
	}
	if n := s.CacheHits + s.CacheMisses; n > 0 {
		line += fmt.Sprintf(", cache hits %.0f%%", 100*float64(s.CacheHits)/float64(n))
	}
	return line
}

// judgeStatus is the judge's part of the progress line: calls made, the
// calls the rest of the input will take at this rate (judgeLeft), tokens,
// cache hits and judge errors.
func judgeStatus(j *judge.Judge) func(batch.Stats, int64) string {
	return func(s batch.Stats, total int64) string {
		st := j.Stats()
		line := fmt.Sprintf("; judge %d calls", st.Calls)
		if more, ok := judgeLeft(st.Calls, s, total); ok && s.RowsCommitted < total {
			line += fmt.Sprintf(" (about %d more to finish)", more)
		}
		line += fmt.Sprintf(", %s tokens", humanCount(st.PromptTokens+st.CompletionTokens))
		if st.CacheHits > 0 {
			line += fmt.Sprintf(", %d cached", st.CacheHits)
		}
		if st.Errors > 0 {
			line += fmt.Sprintf(", %d errors", st.Errors)
		}
		return line
	}
}

// humanCount writes n with a k or M suffix past 10,000.
func humanCount(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// judgeLeft estimates the judge calls the rest of the input needs, at the
// rate of this process: its calls per input row committed since it
// started (resumed rows left out) times the rows after the last committed
// dialog. Calls for dialogs scored but not committed yet count in the
// rate, so the estimate errs high, never low: their answers are cached
// and a resumed run does not pay for them again. ok is false while the
// input's size is unknown or nothing is committed.
func judgeLeft(calls int64, s batch.Stats, total int64) (more int64, ok bool) {
	done := s.RowsCommitted - s.ResumedRows
	if total <= 0 || done <= 0 {
		return 0, false
	}
	return calls * max(total-s.RowsCommitted, 0) / done, true
}

// budgetStopped is a batch.Progress that keeps the input's size and the
// last stats, passing every report on, so that a run stopped at the judge
// budget can say what finishing would take (budgetMessage).
type budgetStopped struct {
	batch.Progress
	total int64
	last  batch.Stats
}

func (b *budgetStopped) Start(total int64) {
	b.total = total
	b.Progress.Start(total)
}

func (b *budgetStopped) Update(s batch.Stats) {
	b.last = s
	b.Progress.Update(s)
}

func (b *budgetStopped) Done(s batch.Stats, err error) {
	b.last = s
	b.Progress.Done(s, err)
}

// budgetMessage says how far a run stopped at the budget got and about
// how many calls the rest of the input needs.
func (b *budgetStopped) budgetMessage(calls int64) string {
	s := b.last
	more, ok := judgeLeft(calls, s, b.total)
	if !ok {
		return fmt.Sprintf("this run made %d judge calls and committed no dialog, so there is no estimate of what the rest needs", calls)
	}
	return fmt.Sprintf("this run made %d judge calls for input rows %d to %d of %d; at that rate the remaining %d rows need about %d more calls "+
		"(the rate counts the calls of dialogs in flight, so it errs high; answers received are cached and not paid again)",
		calls, s.ResumedRows+1, s.RowsCommitted, b.total, max(b.total-s.RowsCommitted, 0), more)
}
