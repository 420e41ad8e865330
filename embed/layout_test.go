package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestLayoutFor(t *testing.T) {
	tests := []struct {
		name                    string
		sessions, threads, cpus int
		goBackend               bool
		wantS, wantT            int
	}{
		{"default: one single-thread session per core", 0, 0, 2, false, 2, 1},
		{"default on 16 cores", 0, 0, 16, false, 16, 1},
		{"default on one core", 0, 0, 1, false, 1, 1},
		{"go backend default: one session", 0, 0, 8, true, 1, 1},
		{"threads given: cores / threads sessions", 0, 2, 2, false, 1, 2},
		{"threads past the cores: one session", 0, 4, 2, false, 1, 4},
		{"sessions given: cores / sessions threads", 1, 0, 2, false, 1, 2},
		{"sessions past the cores: one thread each", 4, 0, 2, false, 4, 1},
		{"both given: as given", 3, 3, 2, false, 3, 3},
		{"go backend, sessions given", 2, 0, 2, true, 2, 1},
	}
	for _, tt := range tests {
		s, th := layoutFor(tt.sessions, tt.threads, tt.cpus, tt.goBackend)
		if s != tt.wantS || th != tt.wantT {
			t.Errorf("%s: layoutFor(%d, %d, %d, %v) = %dx%d, want %dx%d", tt.name, tt.sessions, tt.threads, tt.cpus, tt.goBackend, s, th, tt.wantS, tt.wantT)
		}
	}
}

// The queue hands out whole batches first, oldest first, then partial
// ones, never mixing padded lengths.
func TestQueueNext(t *testing.T) {
	rows := func(p int) int { return max(2, 64/p) } // 16 tokens: 4 rows; 32: 2 rows
	q := newQueue()
	mk := func(name string, padded int) *job { return &job{text: name, padded: padded} }
	q.add([]*job{mk("a16", 16), mk("b8", 8), mk("c32", 32)})
	q.add([]*job{mk("d16", 16), mk("e32", 32), mk("f16", 16), mk("g16", 16), mk("h16", 16), mk("i8", 8)})
	var got []string
	for {
		b := q.next(rows)
		if b == nil {
			break
		}
		var names []string
		for _, jb := range b {
			names = append(names, jb.text)
			if jb.padded != b[0].padded {
				t.Fatalf("batch %v mixes padded lengths", names)
			}
		}
		got = append(got, strings.Join(names, ","))
	}
	// Full first (16: a,d,f,g fill 4 rows; 32: c,e fill 2; a16 came first),
	// then partial ones by their oldest string (h16 after b8's group).
	want := []string{"a16,d16,f16,g16", "c32,e32", "b8,i8", "h16"}
	if !slices.Equal(got, want) {
		t.Errorf("batches %q, want %q", got, want)
	}
	if q.n != 0 || len(q.groups) != 0 {
		t.Errorf("queue not empty: %d jobs, %d groups", q.n, len(q.groups))
	}
}

// layoutStrings are strings of many token counts, so that batches of
// several padded lengths, full and partial, run in every layout.
func layoutStrings() []string {
	var out []string
	words := strings.Fields("the quarterly revenue for EMEA rose twelve percent while costs in the north american region fell sharply after the merger closed in march")
	for i := range 96 {
		n := 1 + (i*7)%len(words)
		out = append(out, fmt.Sprintf("%s %d", strings.Join(words[:n], " "), i))
	}
	return out
}

// TestLayoutsByteIdentical: vectors are bit-for-bit the same whatever the
// session layout (1x1, 1x2, 2x1), batch budget and number of concurrent
// callers, so run outputs are byte-identical across them. USE-lite on ORT,
// both forms.
func TestLayoutsByteIdentical(t *testing.T) {
	for _, p := range []string{PrecisionFP32, PrecisionInt8} {
		t.Run(p, func(t *testing.T) { layoutsByteIdentical(t, useLiteDirFor(t, p)) })
	}
}

func layoutsByteIdentical(t *testing.T, dir string) {
	lib := ortLib(t)
	texts := layoutStrings()
	embedAll := func(sessions, threads, batchTokens, callers int) [][]float32 {
		e, err := Open(context.Background(), Options{ModelDir: dir, ORTLib: lib, MemoEntries: -1,
			Sessions: sessions, IntraOpThreads: threads, BatchTokens: batchTokens})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		out := make([][]float32, len(texts))
		var wg sync.WaitGroup
		errs := make(chan error, callers)
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []string
				var at []int
				for i := c; i < len(texts); i += callers {
					mine, at = append(mine, texts[i]), append(at, i)
				}
				vecs, err := e.Embed(context.Background(), mine)
				if err != nil {
					errs <- err
					return
				}
				for j, i := range at {
					out[i] = vecs[j]
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		return out
	}
	want := embedAll(1, 1, 0, 1)
	for _, l := range []struct{ sessions, threads, batchTokens, callers int }{
		{1, 2, 0, 3},
		{2, 1, 0, 3},
		{2, 1, 96, 5}, // small budget: many small batches
		{1, 1, 1 << 16, 2},
	} {
		got := embedAll(l.sessions, l.threads, l.batchTokens, l.callers)
		for i := range texts {
			if !bitsEqual(got[i], want[i]) {
				t.Errorf("%dx%d, %d batch tokens, %d callers: vector of %q differs from 1x1's", l.sessions, l.threads, l.batchTokens, l.callers, texts[i])
				break
			}
		}
	}
}

func bitsEqual(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

// Two sessions on the go backend give the vectors of one.
func TestGoBackendSessions(t *testing.T) {
	texts := layoutStrings()[:24]
	one := openTest(t, tinyDir(t), BackendGo, func(o *Options) { o.Sessions = 1 })
	two := openTest(t, tinyDir(t), BackendGo, func(o *Options) { o.Sessions = 2; o.BatchTokens = 32 })
	want, err := one.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := two.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !bitsEqual(got[i], want[i]) {
			t.Fatalf("go backend, 2 sessions: vector of %q differs from 1 session's", texts[i])
		}
	}
	if st := two.Stats(); st.ModelCalls < 2 {
		t.Errorf("2 sessions, 32-token budget: %d model calls; the test needs several batches", st.ModelCalls)
	}
}
