package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tinyDir is a token-table model with mean pooling and the Unigram fixture tokenizer.
func tinyDir(t testing.TB) string {
	return writeModelDir(t, gatherModel(false), "unigram", map[string]string{"1_Pooling/config.json": poolingConfig("mean")})
}

func TestBadInputEmbedsWithoutCrashing(t *testing.T) {
	long := strings.Repeat("the cat sat on the mat ", 50_000) // ~1.1 MB, far past the cap
	cases := []struct {
		name string
		text string
		same string // when set, the vector must equal this string's
		zero bool   // the vector must be zero (no tokens)
	}{
		{"empty", "", "", true},
		{"whitespace", "  \t\n ", "", false},
		{"far past the cap", long, "the cat sat on the mat the cat sat", false},
		{"invalid UTF-8", "\xffhello\xfe", "\uFFFDhello\uFFFD", false},
		{"truncated rune", "hello \xe6\x97", "hello \uFFFD", false},
		{"control characters", "\x00\x07\x1b[31mhello\x7f", "", false},
		{"emoji and RTL", "hello 👋🏽 שלום مرحبا", "", false},
		{"only unknown pieces", "\u2603\u2603", "", false},
	}
	for _, be := range testBackends(t) {
		e := openTest(t, tinyDir(t), be, func(o *Options) { o.MaxTokens = 8 })
		for _, c := range cases {
			texts := []string{c.text}
			if c.same != "" {
				texts = append(texts, c.same)
			}
			got, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Fatalf("%s/%s: %v", be, c.name, err)
			}
			v := got[0]
			var norm float64
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("%s/%s: non-finite vector %v", be, c.name, v)
				}
				norm += float64(x) * float64(x)
			}
			switch {
			case c.zero && norm != 0:
				t.Errorf("%s/%s: want the zero vector, got %v", be, c.name, v)
			case !c.zero && math.Abs(norm-1) > 1e-5:
				t.Errorf("%s/%s: norm² %v, want 1", be, c.name, norm)
			}
			if c.same != "" {
				assertClose(t, be+"/"+c.name, v, got[1], 1e-6)
			}
		}
	}
}

func TestSanitize(t *testing.T) {
	cases := []struct {
		in        string
		maxTokens int
		want      string
	}{
		{"hello", 8, "hello"},
		{"a\xffb", 8, "a\uFFFDb"},
		{strings.Repeat("x", 100), 1, strings.Repeat("x", 64)},
		// The cut lands inside a 3-byte rune: back off to its start.
		{strings.Repeat("x", 63) + "日本", 1, strings.Repeat("x", 63)},
	}
	for _, c := range cases {
		if got := sanitize(c.in, c.maxTokens); got != c.want {
			t.Errorf("sanitize(%q, %d) = %q, want %q", c.in, c.maxTokens, got, c.want)
		}
	}
}

func TestScorer(t *testing.T) {
	for _, be := range testBackends(t) {
		e := openTest(t, tinyDir(t), be, nil)
		s := NewScorer(e)
		ctx := context.Background()

		// Identical strings: exactly 1, and the model is never reached.
		got, err := s.Score(ctx, []string{"hello world", "", "\xff"}, []string{"hello world", "", "\xff"})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if g != 1 {
				t.Errorf("%s: identical pair %d scored %v", be, i, g)
			}
		}
		if st := e.Stats(); st.ModelCalls != 0 || st.Requests != 0 {
			t.Fatalf("%s: identical strings reached the embedder: %+v", be, st)
		}

		if _, err := s.Score(ctx, []string{"a"}, nil); err == nil {
			t.Errorf("%s: mismatched lengths accepted", be)
		}

		// Repeated pairs and strings are embedded once.
		gold := []string{"the cat", "the cat", "hello world", "the cat", "dog"}
		pred := []string{"the mat", "the mat", "world", "hello world", "dog"}
		got, err = s.Score(ctx, gold, pred)
		if err != nil {
			t.Fatal(err)
		}
		if st := e.Stats(); st.StringsEmbedded != 4 { // the cat, the mat, hello world, world
			t.Errorf("%s: embedded %d strings, want 4", be, st.StringsEmbedded)
		}
		vecs, err := e.Embed(ctx, []string{"the cat", "the mat", "hello world", "world"})
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[1]), cosine(vecs[2], vecs[3]), cosine(vecs[0], vecs[2]), 1}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 || got[i] < -1 || got[i] > 1 {
				t.Errorf("%s: pair %d scored %v, want %v", be, i, got[i], want[i])
			}
		}
		if st := s.Stats(); st.Pairs != 8 || st.ExactMatches != 4 {
			t.Errorf("%s: scorer stats %+v", be, st)
		}
		// The second Embed came from the memo.
		if st := e.Stats(); st.MemoHits != 4 || st.StringsEmbedded != 4 {
			t.Errorf("%s: after the repeat: %+v", be, st)
		}
	}
}

// randomPairs makes n pairs of short strings from the fixture vocabulary,
// with plenty of repeats.
func randomPairs(n int, seed uint64) (gold, pred []string) {
	words := []string{"hello", "world", "the", "cat", "sat", "on", "mat", "dog", "cats", "a"}
	r := rand.New(rand.NewPCG(seed, 1))
	sentence := func() string {
		k := 1 + r.IntN(6)
		w := make([]string, k)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	for i := 0; i < n; i++ {
		gold = append(gold, sentence())
		pred = append(pred, sentence())
	}
	return gold, pred
}

// The batch pipeline calls Score from several workers; the similarities must
// not depend on how many.
func TestScoreConcurrentDeterministic(t *testing.T) {
	gold, pred := randomPairs(400, 7)
	for _, be := range testBackends(t) {
		ref := func() []float64 {
			e := openTest(t, tinyDir(t), be, func(o *Options) { o.BatchSize = 16 })
			out, err := NewScorer(e).Score(context.Background(), gold, pred)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}()
		for _, workers := range []int{2, 8} {
			e := openTest(t, tinyDir(t), be, func(o *Options) { o.BatchSize = 16 })
			s := NewScorer(e)
			got := make([]float64, len(gold))
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			chunk := (len(gold) + workers - 1) / workers
			for w := 0; w < workers; w++ {
				lo, hi := w*chunk, min((w+1)*chunk, len(gold))
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := lo; i < hi; i += 10 {
						j := min(i+10, hi)
						out, err := s.Score(context.Background(), gold[i:j], pred[i:j])
						if err != nil {
							errs <- err
							return
						}
						copy(got[i:j], out)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			for i := range got {
				if math.Abs(got[i]-ref[i]) > 1e-6 {
					t.Fatalf("%s, %d workers: pair %d scored %v, want %v", be, workers, i, got[i], ref[i])
				}
			}
			if st := e.Stats(); st.StringsEmbedded > st.Requests {
				t.Errorf("%s: embedded %d strings for %d requests: duplicates reached the model", be, st.StringsEmbedded, st.Requests)
			}
		}
	}
}

// fakeBackend is a pre-pooled model that records batch sizes and can hold
// its first call until released.
type fakeBackend struct {
	mu      sync.Mutex
	batches []int
	started chan struct{}
	gate    chan struct{}
	fail    error
}

func (f *fakeBackend) ioPlan() ioPlan {
	return ioPlan{
		inputs: []tensorInfo{{Name: inputIDs, Elem: elemInt64, Dims: []int64{-1, -1}}, {Name: inputMask, Elem: elemInt64, Dims: []int64{-1, -1}}},
		output: tensorInfo{Name: "embedding", Elem: elemFloat32, Dims: []int64{-1, 2}},
	}
}

func (f *fakeBackend) run(in *batchInput) ([]float32, []int64, error) {
	f.mu.Lock()
	f.batches = append(f.batches, in.batch)
	first := len(f.batches) == 2 // call 1 is Open's probe
	fail := f.fail
	f.mu.Unlock()
	if first && f.gate != nil {
		close(f.started)
		<-f.gate
	}
	if fail != nil {
		return nil, nil, fail
	}
	out := make([]float32, 2*in.batch)
	for r := 0; r < in.batch; r++ {
		var sum int64
		for c := 0; c < in.seq; c++ {
			sum += in.ids[r*in.seq+c] * in.mask[r*in.seq+c]
		}
		out[2*r], out[2*r+1] = 1, float32(sum)
	}
	return out, []int64{int64(in.batch), 2}, nil
}

func (f *fakeBackend) close() error { return nil }

// open is the backend opener for open: every session is f.
func (f *fakeBackend) open() (backend, error) { return f, nil }

// Requests from concurrent callers that arrive while a batch runs are
// coalesced into the next batch.
func TestBatchesCoalesceAcrossCallers(t *testing.T) {
	fb := &fakeBackend{started: make(chan struct{}), gate: make(chan struct{})}
	e, err := open(context.Background(), Options{ModelDir: writeModelDir(t, pooledModel(), "unigram", nil), BatchSize: 64, Sessions: 1}, fb.open)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := e.Embed(ctx, []string{"hello"}); err != nil {
			t.Error(err)
		}
	}()
	<-fb.started
	const callers = 20
	for i := 0; i < callers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.Embed(ctx, []string{fmt.Sprintf("cat %d", i), "dog 0"}); err != nil { // same token count: one bucket
				t.Error(err)
			}
		}()
	}
	// Wait until every caller has queued its strings ("dog 0" once, shared).
	deadline := time.Now().Add(10 * time.Second)
	for {
		e.mu.Lock()
		n := e.queue.n
		e.mu.Unlock()
		if n == callers+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d strings queued", n)
		}
		time.Sleep(time.Millisecond)
	}
	close(fb.gate)
	wg.Wait()
	fb.mu.Lock()
	defer fb.mu.Unlock()
	// The lone first request runs with a padding row (never a batch of one:
	// see seqBucket).
	if want := []int{1, 2, callers + 1}; fmt.Sprint(fb.batches) != fmt.Sprint(want) {
		t.Errorf("batch sizes %v, want %v (probe, the lone first request plus a padding row, then all queued callers together)", fb.batches, want)
	}
}

// IdleTime counts the sessions' waits between strings, not the wait for
// the first ones.
func TestIdleTime(t *testing.T) {
	fb := &fakeBackend{}
	e, err := open(context.Background(), Options{ModelDir: writeModelDir(t, pooledModel(), "unigram", nil), Sessions: 1}, fb.open)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	time.Sleep(20 * time.Millisecond)
	ctx := context.Background()
	if _, err := e.Embed(ctx, []string{"hello"}); err != nil {
		t.Fatal(err)
	}
	if idle := e.Stats().IdleTime; idle != 0 {
		t.Errorf("idle %v before the first strings were queued: want 0", idle)
	}
	time.Sleep(40 * time.Millisecond)
	if _, err := e.Embed(ctx, []string{"world"}); err != nil {
		t.Fatal(err)
	}
	if idle := e.Stats().IdleTime; idle < 20*time.Millisecond {
		t.Errorf("idle %v after a 40ms pause between callers: want at least 20ms", idle)
	}
}

func TestBackendErrorsReachCallers(t *testing.T) {
	fb := &fakeBackend{}
	e, err := open(context.Background(), Options{ModelDir: writeModelDir(t, pooledModel(), "unigram", nil), Sessions: 1}, fb.open)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	boom := errors.New("boom")
	fb.mu.Lock()
	fb.fail = boom
	fb.mu.Unlock()
	if _, err := e.Embed(context.Background(), []string{"hello"}); !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	// A failed string is not remembered: it is retried.
	fb.mu.Lock()
	fb.fail = nil
	fb.mu.Unlock()
	if _, err := e.Embed(context.Background(), []string{"hello"}); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

func TestCloseAndCancel(t *testing.T) {
	fb := &fakeBackend{started: make(chan struct{}), gate: make(chan struct{})}
	e, err := open(context.Background(), Options{ModelDir: writeModelDir(t, pooledModel(), "unigram", nil), Sessions: 1}, fb.open)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := e.Embed(ctx, []string{"hello"})
		done <- err
	}()
	<-fb.started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled caller got %v", err)
	}
	go func() {
		_, err := e.Embed(context.Background(), []string{"world"})
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	closed := make(chan error)
	go func() { closed <- e.Close() }()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("caller waiting across Close got %v", err)
	}
	close(fb.gate)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Embed after Close: %v", err)
	}
}

// Batches are sorted by token length; results come back in input order.
func TestLengthSortingKeepsInputOrder(t *testing.T) {
	e := openTest(t, tinyDir(t), BackendGo, func(o *Options) { o.BatchSize = 2 })
	texts := []string{"the cat sat on the mat", "dog", "hello world the cat", "a", "cat sat"}
	together, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		e1 := openTest(t, tinyDir(t), BackendGo, nil)
		alone, err := e1.Embed(context.Background(), []string{s})
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, s, together[i], alone[0], 1e-6)
	}
	st := e.Stats()
	// Batches hold strings of one padded length (padLen: on the go backend
	// all five run at 16), at most 2 strings each: 3 batches.
	if st.ModelCalls != 3 || st.StringsEmbedded != 5 || st.PaddedTokens < st.Tokens {
		t.Errorf("stats %+v", st)
	}
}

// Without a persistent cache the memo is all that keeps a string from the
// model twice, so its default is larger; an explicit size is kept.
func TestMemoDefaultFollowsTheCache(t *testing.T) {
	for _, tc := range []struct {
		memo     int
		cacheDir string
		want     int
	}{
		{0, "", DefaultMemoEntriesNoCache},
		{0, "/some/cache", DefaultMemoEntries},
		{7, "", 7},
		{7, "/some/cache", 7},
		{-1, "", -1},
	} {
		got := Options{MemoEntries: tc.memo, CacheDir: tc.cacheDir}.withDefaults().MemoEntries
		if got != tc.want {
			t.Errorf("MemoEntries %d, CacheDir %q: default %d, want %d", tc.memo, tc.cacheDir, got, tc.want)
		}
	}
	if DefaultMemoEntriesNoCache <= DefaultMemoEntries {
		t.Errorf("the memo without a cache (%d) is no larger than with one (%d)", DefaultMemoEntriesNoCache, DefaultMemoEntries)
	}
}

// closeCounter is a fake session that counts its closes.
type closeCounter struct {
	fakeBackend
	closed *atomic.Int32
}

func (c *closeCounter) close() error { c.closed.Add(1); return nil }

// The sessions open side by side; when one fails, Open returns its error
// and closes the others, whichever finished first.
func TestOpenSessionsFailureClosesTheOthers(t *testing.T) {
	dir := writeModelDir(t, pooledModel(), "unigram", nil)
	boom := errors.New("session 2 cannot start")
	for _, failing := range []int{1, 2, 3} {
		var calls, closed atomic.Int32
		opener := func() (backend, error) {
			if calls.Add(1) == int32(failing) {
				return nil, boom
			}
			return &closeCounter{closed: &closed}, nil
		}
		_, err := open(context.Background(), Options{ModelDir: dir, Sessions: 3}, opener)
		if !errors.Is(err, boom) {
			t.Fatalf("failing open %d: err = %v, want %v", failing, err, boom)
		}
		if n := strings.Count(err.Error(), boom.Error()); n != 1 {
			t.Errorf("failing open %d: the error says it %d times: %v", failing, n, err)
		}
		if calls.Load() != 3 || closed.Load() != 2 {
			t.Errorf("failing open %d: %d opens, %d closes; want 3 and 2", failing, calls.Load(), closed.Load())
		}
	}
}
