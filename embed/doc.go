// Package embed turns strings into sentence vectors on a local ONNX model and
// scores string pairs by cosine similarity: the semantic scorer behind AEM's
// truthfulness checks.
//
// # Using it
//
//	e, err := embed.Open(ctx, embed.Options{CacheDir: ".aem/cache"})
//	...
//	defer e.Close()
//	s := embed.NewScorer(e) // a metrics.Scorer
//	sims, err := s.Score(ctx, gold, predicted)
//
// Open resolves everything it needs the way CONTRACTS.md says: the model
// directory from Options.ModelDir, $AEM_MODEL (either may also name a model
// installed under <home>/models, e.g. "use-lite"), then the default model's
// form in Options.Precision, <home>/models/use-lite-int8 or use-lite;
// the ONNX Runtime library from Options.ORTLib, $AEM_ORT_LIB, then
// <home>/lib/<os>-<arch>/libonnxruntime.so.1, where <home> is $AEM_HOME or
// ./.aem. Anything missing is an error naming the path and the fix
// (scripts/setup, the variable or flag to set).
//
// # Models
//
// The default model is Universal Sentence Encoder lite converted by
// scripts/setup, in two forms (package models): "int8" (use-lite-int8, its
// dense layers quantized with fixed ranges, so a vector stays independent
// of its batch) and "fp32" (use-lite, the reference conversion); its
// aem-model.json says its output is already pooled and L2-normalised
// ([batch, 512]), and it is used as is. Any sentence-transformers
// ONNX export also works (--model DIR): 1_Pooling/config.json (mean, CLS,
// max, last token) and modules.json are read, token-level outputs
// ([batch, seq, dim], e.g. last_hidden_state) are pooled over real tokens,
// token_type_ids is fed when the graph has that input, and every vector is
// L2-normalised. A model whose inputs or outputs are not those of a text
// embedding model is refused with its actual input and output names and
// shapes. A model is identified by the sha256 of its weights file
// (Embedder.ModelID, "use-lite@sha256:…").
//
// # Backends
//
// "ort" (default) runs ONNX Runtime through github.com/yalue/onnxruntime_go
// (cgo; the shared library is loaded at run time). Options.Sessions
// DynamicAdvancedSessions are created at Open and reused for every batch;
// Options.IntraOpThreads (per session) and Options.GraphOptLevel set their
// session options. The default layout is one single-thread session per
// core (Options.Layout): on 2 cores it measured faster than one two-thread
// session, whose threads wait for each other inside every operator.
// ONNX Runtime's environment
// is process-global, so the package reference-counts it: the first open ORT
// Embedder loads the library, the last Close unloads it, and all Embedders
// open at the same time must use the same library.
//
// "go" needs neither cgo nor the shared library: it runs the same graph the
// way hugot's Go session (hugot.NewGoSession) does, onnx-gomlx on gomlx's
// pure-Go simplego backend, but drives it directly so that tokenization,
// padding and pooling are the same code as on "ort", and it runs simplego's
// ops sequentially ("go:ops_sequential"): with parallel ops, simplego's
// nested worker pool deadlocks on 2-CPU machines in the USE-lite graph's
// matrix products (seen here with the parallel default, which hugot's Go
// session uses).
// It is much slower (it compiles each batch shape once, and sequence lengths
// are padded to multiples of 16 to bound the shapes); vectors agree with
// "ort" to 1e-4 (8e-7 measured on the reference sentences).
//
// # Tokenization and bad input
//
// USE-lite's manifest names its tokenizer kind "use-lite": its strings are
// tokenized by models/usetok, the project's port of the reference JavaScript
// tokenizer (exact ids on every reference sentence). Any other tokenizer.json
// (WordPiece, BPE, Unigram with a Metaspace pre-tokenizer carrying
// prepend_scheme) is loaded with github.com/sugarme/tokenizer, with its
// post-processor's special tokens. Strings are truncated to the model's token
// cap (128 for USE-lite; Options.MaxTokens may lower it) and batches are
// padded on the right with attention mask 0; the padding id is never
// interpreted (id 0 is a real token for USE-lite).
//
// Bad input never fails: invalid UTF-8 bytes are replaced by U+FFFD; control
// characters go to the tokenizer as they are (USE-lite: unknown pieces; a
// generic tokenizer that chokes on them is retried with them as spaces); a
// string far past the cap is cut, at a rune boundary, to 64 bytes per allowed
// token before tokenizing, which leaves the first MaxTokens tokens unchanged
// for any real text; a string with no tokens at all (USE-lite's empty string)
// is one padding slot with mask 0: USE-lite's graph then returns the original
// model's vector for the empty string, while pooled token-level models (and
// graphs that yield NaN for it) give the zero vector, whose cosine with any
// other vector is 0 and with another zero vector is 1.
//
// # Batching, concurrency and determinism
//
// Embedders and Scorers are safe for concurrent use, and the batch pipeline
// calls Score from several workers at once. Each call dedupes its strings,
// serves what it can from the in-run memo (an LRU of Options.MemoEntries
// vectors) and the persistent cache, joins strings another caller already has
// in flight, tokenizes the rest on its own goroutine, and queues them, grouped
// by the padded length they run at. Each session has its own goroutine, the
// only caller of its backend; whenever it is free and strings are queued it
// takes one batch from the shared queue: a group's worth of a whole batch if
// one is queued, else the rest of a group, the group whose oldest string came
// first (so callers finish in the order they asked). A batch holds at most
// Options.BatchTokens token slots (rows x padded length) and
// Options.BatchSize rows. Batches are formed when a session is free, from
// everything queued by then, never in rounds: no session waits while strings
// wait, under load batches fill without any added waiting ("batch while
// busy"), and an idle Embedder runs a lone request at once. Results go back
// to each caller in its input order.
//
// A string's vector is a function of the string alone, bit for bit: it runs
// at a padded length fixed by its own token count in a batch of at least two
// rows (see seqBucket), padding is masked, pooling sums in float64 over real
// tokens only, and, in batches of two rows or more, ONNX Runtime's result
// for a row depends neither on the number of rows nor on the session or its
// thread count (measured; the tests hold it). So outputs are
// byte-identical whatever the session layout and the number of workers; the
// tests check 1x1, 1x2 and 2x1 layouts bit for bit.
//
// # Persistent cache
//
// With Options.CacheDir set, vectors are kept in a diskcache directory
// (CacheName: append-only segments of checksummed records, read with
// ordinary reads) keyed by sha256(key version, weights sha256, tokenizer
// sha256, token cap, pooling, text), the version naming the padding buckets
// (seqBucket: a change of buckets changes vectors in their last bits, so
// it starts every cache cold once), bounded by Options.CacheMaxBytes (the
// oldest segments, a sixteenth of the bound each, are deleted; hits do not
// refresh an entry, so reads stay read-only). Nothing in the cache's files
// can crash or stop a run: a record that fails its check is a miss
// (embedded again, stored again, Stats.CacheCorrupt), a file that cannot
// be read is moved aside (deleted with Options.DiscardCorruptCache), and
// a failed write (a full disk) is counted (Stats.CacheErrors,
// CacheLastError) while embedding goes on; Stats.CacheNotices says what
// opening the cache found. The bbolt file of earlier releases
// (embeddings.bbolt) is never read: its vectors are embedded again once.
// The cache is locked by one process at a time: a second process waits up
// to Options.CacheLockTimeout, then fails with ErrCacheLocked. A second run
// over the same dataset embeds nothing it has seen (Stats.ModelCalls stays 0).
//
// The package never prints. Stats reports hits, misses, model calls, strings
// embedded and time inside the model, for progress lines and benchmarks.
package embed
