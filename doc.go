// Package aem is the root of the aem module, a command-line tool that scores
// multi-turn AI agent conversations with the Agent Evaluation Metric (AEM).
//
// The folders, in the order data flows through them:
//
//	tooldef       tool definitions (OpenAI, MCP, Anthropic, BFCL function
//	              schemas): parsing, name lookup, argument validation. Pure
//	thresholds    thresholds.json: the one strict reader and writer
//	batch/golden  reads golden datasets (Parquet, or the write-up's JSON) and
//	              writes them (aem import, aem gen)
//	metrics       the metric itself: per-turn checks, attribution of root
//	              causes and cascades, composition into dialog scores. Pure:
//	              no I/O, no ONNX. It declares the Scorer interface.
//	embed         sentence embeddings on ONNX Runtime (or pure Go) and the
//	              cosine Scorer, with a persistent cache
//	judge         the LLM judge Scorer (OpenAI-compatible chat completions);
//	              judge/judgetest is its test server
//	diskcache     the persistent, size-bounded bbolt cache file behind embed's
//	              and judge's caches
//	models        the default model's converter, model pulls and verification
//	home          where the ONNX Runtime library and the models are installed
//	              (the install root's search order); home/hometest makes
//	              tests that need the install fail under scripts/test
//	batch         the pipeline: fan-out, judging in chunks, in-order
//	              writing, checkpoints and resume, shards
//	batch/rundir  the run directory (turns.parquet, dialogs.parquet,
//	              summary.json, ordinals.parquet): row types, the one
//	              writer, the one reader (local or object store, one
//	              completeness rule), merge; sweep, compare, show, report
//	              and review read runs through it
//	batch/location local paths and gocloud.dev/blob URLs
//	batch/predictions, batch/otlpjson, metrics/align
//	              agents' chat logs and traces read and joined with gold
//	              (aem run --predictions); batch/evalevents writes verdicts
//	              back as OpenTelemetry evaluation events
//	metrics/stats, metrics/sweep, metrics/compare, metrics/trials
//	              statistics, threshold calibration, release comparison and
//	              repeated trials (pure); their file I/O lives in
//	              batch/sweepio, batch/compareio
//	batch/report  the run report: one streaming pass over a run directory,
//	              one self-contained HTML page, its charts as PNG
//	batch/review  review.jsonl, the uncertain comparisons for annotators:
//	              selection, the one writer and reader, the labelling page;
//	              sweep reads the filled file back
//	batch/browsertest headless Chromium (chromedp) for the pages' tests
//	batch/badinput, batch/safefile
//	              shared by every reader and writer: the one bad-input
//	              error (file, row, line, field, fix; exit status 3) and
//	              the one atomic file writer and file sha256
//	chart         the figures sweep, compare and report write (SVG, PNG)
//	datasets      the bundled example and the synthetic generator;
//	              datasets/bfcl converts BFCL's data (aem import --from bfcl)
//	cmd/aem       the CLI: parse flags, wire the packages, print
//	scripts       set-up, tests, benchmarks
package aem
