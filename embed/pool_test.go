package embed

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Hand-computed pooled vectors for the tiny token-table models. Token ids come
// from the fixture tokenizers (checked in tokenize_test.go).
func TestPoolingTokenLevel(t *testing.T) {
	tab := tokenTable()
	mean := func(ids ...int) []float32 {
		v := make([]float32, testDim)
		for _, id := range ids {
			for j := range v {
				v[j] += tab[id][j] / float32(len(ids))
			}
		}
		return v
	}
	maxp := func(ids ...int) []float32 {
		v := append([]float32(nil), tab[ids[0]]...)
		for _, id := range ids[1:] {
			for j := range v {
				v[j] = max(v[j], tab[id][j])
			}
		}
		return v
	}
	// "hello world" -> [2 3]; "the cat sat" -> [4 5 6] (testdata/unigram).
	cases := []struct {
		mode string
		text string
		want []float32
	}{
		{"mean", "hello world", mean(2, 3)},
		{"mean", "the cat sat", mean(4, 5, 6)},
		{"cls", "hello world", tab[2]},
		{"cls", "the cat sat", tab[4]},
		{"max", "hello world", maxp(2, 3)},
		{"max", "the cat sat", maxp(4, 5, 6)},
	}
	for _, be := range testBackends(t) {
		for _, mode := range []string{"mean", "cls", "max"} {
			dir := writeModelDir(t, gatherModel(false), "unigram", map[string]string{
				"modules.json": modulesJSON, "1_Pooling/config.json": poolingConfig(mode),
			})
			e := openTest(t, dir, be, nil)
			if got := e.Info().Pooling; string(got) != mode {
				t.Fatalf("%s: pooling %q, want %q", be, got, mode)
			}
			var texts []string
			var wants [][]float32
			for _, c := range cases {
				if c.mode == mode {
					texts = append(texts, c.text)
					wants = append(wants, unit(c.want))
				}
			}
			// Embedded together: the shorter string is padded; padding must not count.
			got, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range texts {
				assertClose(t, be+"/"+mode+"/"+texts[i], got[i], wants[i], 1e-6)
			}
		}
	}
}

func TestTokenTypeIDs(t *testing.T) {
	tab := tokenTable()
	// testdata/wordpiece: "hello world" -> [CLS]=2 hello=4 world=5 [SEP]=3, all type 0.
	want := make([]float32, testDim)
	for _, id := range []int{2, 4, 5, 3} {
		for j := range want {
			want[j] += (tab[id][j] + typeTable[0][j]) / 4
		}
	}
	for _, be := range testBackends(t) {
		dir := writeModelDir(t, gatherModel(true), "wordpiece", map[string]string{"1_Pooling/config.json": poolingConfig("mean")})
		e := openTest(t, dir, be, nil)
		if got := strings.Join(e.Info().Inputs, ","); got != "input_ids,attention_mask,token_type_ids" {
			t.Fatalf("%s: inputs %s", be, got)
		}
		got, err := e.Embed(context.Background(), []string{"hello world", "cats"})
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, be, got[0], unit(want), 1e-6)
		if e.Info().MaxTokens != 8 {
			t.Errorf("%s: max tokens %d, want 8 from tokenizer.json's truncation", be, e.Info().MaxTokens)
		}
	}
}

// A pre-pooled [batch, dim] output is used as is (only normalised), and a
// string's vector does not depend on what shares its batch.
func TestPrePooledAndBatchInvariance(t *testing.T) {
	tab := tokenTable()
	for _, be := range testBackends(t) {
		dir := writeModelDir(t, pooledModel(), "unigram", nil)
		e := openTest(t, dir, be, nil)
		if e.Info().Pooling != PoolingNone || e.Dim() != testDim {
			t.Fatalf("%s: pooling %q dim %d", be, e.Info().Pooling, e.Dim())
		}
		alone, err := e.Embed(context.Background(), []string{"hello world"})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, testDim)
		for j := range want {
			want[j] = (tab[2][j] + tab[3][j]) / 2
		}
		assertClose(t, be, alone[0], unit(want), 1e-6)

		e2 := openTest(t, dir, be, nil)
		mixed, err := e2.Embed(context.Background(), []string{"the cat sat on the mat the cat sat on the mat", "hello world", "dog"})
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, be+" batch invariance", mixed[1], alone[0], 1e-6)
	}
}

func TestParsePoolingConfig(t *testing.T) {
	cases := []struct {
		json    string
		want    Pooling
		wantErr string
	}{
		{`{"pooling_mode_mean_tokens": true}`, PoolingMean, ""},
		{`{"pooling_mode_mean_sqrt_len_tokens": true}`, PoolingMean, ""},
		{`{"pooling_mode_cls_token": true}`, PoolingCLS, ""},
		{`{"pooling_mode_max_tokens": true}`, PoolingMax, ""},
		{`{"pooling_mode_lasttoken": true}`, PoolingLast, ""},
		{`{"pooling_mode": "cls"}`, PoolingCLS, ""},
		{`{}`, "", "no pooling mode"},
		{`{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}`, "", "concatenated"},
		{`{"pooling_mode_weightedmean_tokens": true}`, "", "weighted-mean"},
		{`{"pooling_mode": "mystery"}`, "", "not supported"},
		{`not json`, "", "invalid"},
	}
	for _, c := range cases {
		got, err := parsePoolingConfig([]byte(c.json))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err %v, want one containing %q", c.json, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.json, got, err, c.want)
		}
	}
}

func TestPoolHelpers(t *testing.T) {
	// Two tokens of width 2, the second padding.
	tok := []float32{1, 2, 100, -100}
	mask := []int64{1, 0}
	for _, c := range []struct {
		mode Pooling
		want []float32
	}{{PoolingMean, []float32{1, 2}}, {PoolingCLS, []float32{1, 2}}, {PoolingMax, []float32{1, 2}}, {PoolingLast, []float32{1, 2}}} {
		dst := make([]float32, 2)
		pool(dst, tok, mask, 2, c.mode)
		assertClose(t, string(c.mode), dst, c.want, 0)
	}
	// No real token: zeros.
	dst := []float32{0, 0}
	pool(dst, tok, []int64{0, 0}, 2, PoolingMean)
	assertClose(t, "empty", dst, []float32{0, 0}, 0)

	for _, c := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{1, 0}, 1},
		{[]float32{1, 0}, []float32{-1, 0}, -1},
		{[]float32{1, 0}, []float32{0, 1}, 0},
		{[]float32{0, 0}, []float32{0, 0}, 1},
		{[]float32{0, 0}, []float32{0, 1}, 0},
	} {
		if got := cosine(c.a, c.b); got != c.want {
			t.Errorf("cosine(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	// Output shape checks.
	in := &batchInput{batch: 2, seq: 3, mask: make([]int64, 6)}
	if _, err := vectors(make([]float32, 6), []int64{3, 2}, in, false, PoolingNone); !errors.Is(err, ErrModelUnsupported) {
		t.Errorf("wrong batch dim: %v", err)
	}
	if _, err := vectors(make([]float32, 12), []int64{2, 2, 3}, in, true, PoolingMean); !errors.Is(err, ErrModelUnsupported) {
		t.Errorf("wrong seq dim: %v", err)
	}
	// NaN for a row with no real token (a 0/0 in the graph's pooling) is the
	// zero vector; NaN for a real row is an error.
	nan := []float32{1, float32(nanValue())}
	got, err := vectors(append(nan, nan...), []int64{2, 2}, in, false, PoolingNone)
	if err != nil || got[0][0] != 0 || got[0][1] != 0 {
		t.Errorf("NaN for an all-padding row: %v, %v", got, err)
	}
	in.mask[0] = 1
	if _, err := vectors(append(nan, nan...), []int64{2, 2}, in, false, PoolingNone); !errors.Is(err, ErrModelInvalid) {
		t.Errorf("NaN output: %v", err)
	}
}

func nanValue() float64 { var z float64; return z / z }
