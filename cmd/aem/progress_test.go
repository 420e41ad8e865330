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
