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
	w        io.Writer
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
	return &progress{w: env.Stderr, tty: env.StderrTTY, now: env.Now, logEvery: 10 * time.Second, extra: extra}
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
		fmt.Fprintln(p.w)
	}
}

func (p *progress) print(s batch.Stats) {
	line := statusLine(s, p.total)
	if p.extra != nil {
		line += p.extra(s, p.total)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
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
// calls the whole input will take at this rate (when its size is known),
// tokens, cache hits and judge errors.
func judgeStatus(j *judge.Judge) func(batch.Stats, int64) string {
	return func(s batch.Stats, total int64) string {
		st := j.Stats()
		line := fmt.Sprintf("; judge %d calls", st.Calls)
		if total > 0 && s.RowsRead > 0 && s.RowsRead < total {
			line += fmt.Sprintf(" (about %d for the run)", st.Calls*total/s.RowsRead)
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
