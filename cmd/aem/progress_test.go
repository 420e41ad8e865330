package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aem-dev/aem/batch"
)

func TestStatusLine(t *testing.T) {
	tests := []struct {
		name  string
		s     batch.Stats
		total int64
		want  []string
		not   []string
	}{
		{
			name:  "known total",
			s:     batch.Stats{Elapsed: 10 * time.Second, RowsRead: 500, TurnsDone: 400, DialogsDone: 50, CacheHits: 3, CacheMisses: 1},
			total: 1000,
			want:  []string{"500/1000 rows read", "400 turns scored", "50 dialogs", "40 turns/s", "ETA 13s", "cache hits 75%"},
		},
		{
			name: "unknown total, resumed turns not counted in the rate",
			s:    batch.Stats{Elapsed: 2 * time.Second, TurnsDone: 300, ResumedTurns: 100, DialogsDone: 9},
			want: []string{"300 turns", "9 dialogs", "100 turns/s"},
			not:  []string{"ETA", "cache"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := statusLine(tt.s, tt.total)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("statusLine = %q, missing %q", got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("statusLine = %q, should not contain %q", got, n)
				}
			}
		})
	}
}

func TestProgressOutput(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := batch.Stats{Elapsed: time.Second, TurnsDone: 10, DialogsDone: 2}

	t.Run("terminal rewrites one line", func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(&Env{Stderr: &buf, StderrTTY: true, Now: clock}, false, nil)
		p.Start(-1)
		now = now.Add(time.Second)
		p.Update(s)
		p.Done(s, nil)
		out := buf.String()
		if !strings.Contains(out, "\r\033[K") || !strings.HasSuffix(out, "\n") {
			t.Errorf("tty output %q: want a rewritten line ending in a newline", out)
		}
	})
	t.Run("pipe gets timestamped log lines, rate-limited", func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(&Env{Stderr: &buf, Now: clock}, false, nil)
		p.Start(100)
		p.Update(s) // too soon: nothing
		now = now.Add(11 * time.Second)
		p.Update(s)
		p.Done(s, errors.New("boom")) // failed runs print no final line
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 1 || strings.Contains(buf.String(), "\r") || !strings.Contains(lines[0], "aem: ") {
			t.Errorf("log output %q: want one plain line", buf.String())
		}
	})
	t.Run("quiet prints nothing", func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(&Env{Stderr: &buf, StderrTTY: true, Now: clock}, true, nil)
		p.Start(10)
		p.Update(s)
		p.Done(s, nil)
		if buf.Len() != 0 {
			t.Errorf("quiet output %q", buf.String())
		}
	})
}

// The calls the rest of the input needs, at this process's rate per input
// row committed; resumed rows are not this process's work.
func TestJudgeLeft(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls int64
		s     batch.Stats
		total int64
		more  int64
		ok    bool
	}{
		{"a quarter done", 100, batch.Stats{RowsRead: 400, RowsCommitted: 250}, 1000, 300, true},
		{"resumed at 500", 100, batch.Stats{RowsRead: 900, ResumedRows: 500, RowsCommitted: 750}, 1000, 100, true},
		{"all committed", 80, batch.Stats{RowsRead: 1000, RowsCommitted: 1000}, 1000, 0, true},
		{"nothing committed", 5, batch.Stats{RowsRead: 300}, 1000, 0, false},
		{"nothing committed since the resume", 5, batch.Stats{RowsRead: 600, ResumedRows: 500, RowsCommitted: 0}, 1000, 0, false},
		{"size unknown", 5, batch.Stats{RowsRead: 300, RowsCommitted: 200}, -1, 0, false},
	} {
		more, ok := judgeLeft(tc.calls, tc.s, tc.total)
		if more != tc.more || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, more, ok, tc.more, tc.ok)
		}
	}
}
