package models

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aem-dev/aem/models/usetok"
	ort "github.com/yalue/onnxruntime_go"
)

// minCosine is the agreement required between the converted model and the
// original TF.js model on every reference sentence.
const minCosine = 0.9999

type referenceSentence struct {
	Text   string    `json:"text"`
	IDs    []int64   `json:"ids"`
	How    string    `json:"how"`
	Vector []float64 `json:"vector"`
}

func loadReference(t testing.TB) []referenceSentence {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "reference", "vectors.json"))
	if err != nil {
		t.Fatalf("reading reference vectors (regenerate with scripts/reference/run): %v", err)
	}
	var doc struct {
		Sentences []referenceSentence `json:"sentences"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("parsing reference vectors: %v", err)
	}
	var texts []string
	rawS, err := os.ReadFile(filepath.Join("testdata", "reference", "sentences.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rawS, &texts); err != nil {
		t.Fatal(err)
	}
	if len(texts) != len(doc.Sentences) {
		t.Fatalf("sentences.json has %d sentences, vectors.json %d: rerun scripts/reference/run", len(texts), len(doc.Sentences))
	}
	for i, s := range doc.Sentences {
		if s.Text != texts[i] || len(s.Vector) != UseLiteDim {
			t.Fatalf("reference %d (%q) is stale or malformed: rerun scripts/reference/run", i, s.Text)
		}
	}
	return doc.Sentences
}

// referenceTexts are the sentences of refs, in order.
func referenceTexts(refs []referenceSentence) []string {
	texts := make([]string, len(refs))
	for i, r := range refs {
		texts[i] = r.Text
	}
	return texts
}

// loadTokenizer loads the exact tokenizer of the model in dir.
func loadTokenizer(t testing.TB, dir string) *usetok.Tokenizer {
	t.Helper()
	tok, err := usetok.Load(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func cosine(a []float32, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * b[i]
		na += float64(a[i]) * float64(a[i])
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

// padBatch tokenizes with the exact tokenizer, truncates to the token cap and
// right-pads with id 0 / mask 0; an empty text gets one padding position.
func padBatch(tok *usetok.Tokenizer, texts []string) (ids, mask []int64, seq int) {
	return padBatchCap(tok, texts, UseLiteMaxTokens)
}

// padBatchCap is padBatch with another token cap (0: none).
func padBatchCap(tok *usetok.Tokenizer, texts []string, maxTokens int) (ids, mask []int64, seq int) {
	rows := make([][]int64, len(texts))
	seq = 1
	for i, s := range texts {
		r := tok.Encode(s)
		if maxTokens > 0 && len(r) > maxTokens {
			r = r[:maxTokens]
		}
		rows[i] = r
		seq = max(seq, len(r))
	}
	ids = make([]int64, len(texts)*seq)
	mask = make([]int64, len(texts)*seq)
	for i, r := range rows {
		copy(ids[i*seq:], r)
		for j := range r {
			mask[i*seq+j] = 1
		}
	}
	return ids, mask, seq
}

func TestTokenizerMatchesReference(t *testing.T) {
	dir := installedUseLite(t)
	tok, err := usetok.Load(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range loadReference(t) {
		got := tok.Encode(s.Text)
		if fmt.Sprint(got) != fmt.Sprint(s.IDs) {
			t.Errorf("Encode(%q) = %v, reference %v", s.Text, got, s.IDs)
		}
	}
}

var ortOnce struct {
	sync.Once
	err error
}

func initORT(t testing.TB) {
	lib := installedORT(t)
	ortOnce.Do(func() {
		ort.SetSharedLibraryPath(lib)
		ortOnce.err = ort.InitializeEnvironment()
	})
	if ortOnce.err != nil {
		t.Fatalf("initialising ONNX Runtime from %s: %v", lib, ortOnce.err)
	}
}

// runORT embeds texts in one padded batch with ONNX Runtime.
func runORT(t testing.TB, modelPath string, tok *usetok.Tokenizer, texts []string) [][]float32 {
	return runORTCap(t, modelPath, tok, texts, UseLiteMaxTokens)
}

func runORTCap(t testing.TB, modelPath string, tok *usetok.Tokenizer, texts []string, maxTokens int) [][]float32 {
	t.Helper()
	ids, mask, seq := padBatchCap(tok, texts, maxTokens)
	shape := ort.NewShape(int64(len(texts)), int64(seq))
	idsT, err := ort.NewTensor(shape, ids)
	if err != nil {
		t.Fatal(err)
	}
	defer idsT.Destroy()
	maskT, err := ort.NewTensor(shape, mask)
	if err != nil {
		t.Fatal(err)
	}
	defer maskT.Destroy()
	out, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(len(texts)), UseLiteDim))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Destroy()
	opts, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		t.Fatal(err)
	}
	sess, err := ort.NewDynamicAdvancedSession(modelPath, []string{InputIDs, InputMask}, []string{OutputEmbedding}, opts)
	if err != nil {
		t.Fatalf("loading %s in ONNX Runtime: %v", modelPath, err)
	}
	defer sess.Destroy()
	if err := sess.Run([]ort.Value{idsT, maskT}, []ort.Value{out}); err != nil {
		t.Fatalf("running %s: %v", modelPath, err)
	}
	data := out.GetData()
	vecs := make([][]float32, len(texts))
	for i := range vecs {
		vecs[i] = append([]float32(nil), data[i*UseLiteDim:(i+1)*UseLiteDim]...)
	}
	return vecs
}

// checkCosines compares vecs with the reference and reports the minimum cosine.
func checkCosines(t *testing.T, backend string, refs []referenceSentence, vecs [][]float32) {
	t.Helper()
	worst, worstText := 2.0, ""
	for i, r := range refs {
		c := cosine(vecs[i], r.Vector)
		if c < minCosine || math.IsNaN(c) {
			t.Errorf("%s: cosine(%q) = %.7f, want >= %v", backend, r.Text, c, minCosine)
		}
		if c < worst {
			worst, worstText = c, r.Text
		}
	}
	t.Logf("%s: %d sentences, min cosine %.9f, 1-min = %.1e (%q)", backend, len(refs), worst, 1-worst, worstText)
}

func TestReferenceVectorsORT(t *testing.T) {
	dir := installedUseLite(t)
	initORT(t)
	tok := loadTokenizer(t, dir)
	refs := loadReference(t)
	texts := referenceTexts(refs)
	modelPath := filepath.Join(dir, ModelFile)
	// One padded batch: short texts carry up to 127 padding positions.
	checkCosines(t, "ort batch", refs, runORT(t, modelPath, tok, texts))
	// Each text alone: no padding at all (the empty text gets a single pad).
	alone := make([][]float32, len(texts))
	for i := range texts {
		alone[i] = runORT(t, modelPath, tok, texts[i:i+1])[0]
	}
	checkCosines(t, "ort alone", refs, alone)

	// Untruncated input: the graph itself drops tokens past the cap, as the
	// original does, so a 302-token reply gives the reference vector too.
	var long []referenceSentence
	var longTexts []string
	for _, r := range refs {
		if len(r.IDs) > UseLiteMaxTokens {
			long, longTexts = append(long, r), append(longTexts, r.Text)
		}
	}
	if len(long) == 0 {
		t.Fatal("the reference set has no text over the token cap")
	}
	checkCosines(t, "ort untruncated", long, runORTCap(t, modelPath, tok, longTexts, 0))
}

// BenchmarkTokenize measures the exact tokenizer on a short value and on a long
// reply (the embedder's tokenization cost per string).
func BenchmarkTokenize(b *testing.B) {
	dir := installedUseLite(b)
	tok, err := usetok.Load(filepath.Join(dir, TokenizerFile))
	if err != nil {
		b.Fatal(err)
	}
	refs := loadReference(b)
	for _, c := range []struct{ name, text string }{{"short", "New York City"}, {"long", refs[len(refs)-1].Text}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				tok.Encode(c.text)
			}
		})
	}
}
