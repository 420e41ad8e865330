// Package aem is the root of the aem module, a command-line tool that scores
// multi-turn AI agent conversations with the Agent Evaluation Metric (AEM).
//
// # Layers
//
// A package's path tells its layer. A package imports packages of its own
// layer or of lower ones, never of a higher one; TestLayers (layers_test.go)
// holds every package to this table, test files included. From the bottom:
//
//	0 internal/*   leaf helpers every layer may use
//	  internal/badinput     the one bad-input error (file, row, line, field,
//	                        fix; exit status 3)
//	  internal/safefile     the one atomic file writer and a file's sha256
//	  internal/location     local paths and gocloud.dev/blob URLs; the S3
//	                        and GCS openers (logged retries, resumed reads)
//	  internal/otlpjson     the OTLP JSON encoding (spans in, log records out)
//	  internal/visible      control characters of untrusted text shown, not
//	                        sent (terminal messages, TSV fields)
//	  internal/markdown     untrusted text quoted into Markdown
//	  internal/browsertest  headless Chromium for the pages' tests (test-only)
//	  internal/s3test       a real S3 server and a fault proxy (test-only)
//	  internal/gcstest      a GCS emulator in the test's process (test-only)
//	  internal/storetest    either store behind the fault proxy (test-only)
//	  internal/blobtest     a blob.Bucket as a driver, for tests' stores
//	  internal/longtest     whether the long forms of tests run
//	                        (AEM_TEST_LONG=1: scripts/test --long, CI)
//	1 pure logic, no I/O
//	  metrics      the metric itself: per-turn checks, attribution of root
//	               causes and cascades, composition into dialog scores. It
//	               declares the Scorer interface. metrics/align,
//	               metrics/features, metrics/values, metrics/stats, metrics/sweep,
//	               metrics/compare, metrics/composite, metrics/trials
//	  tooldef      tool definitions (OpenAI, MCP, Anthropic, BFCL schemas):
//	               parsing, name lookup, argument validation
//	  thresholds   thresholds.json: the one strict reader and writer
//	  chart        the figures sweep, compare and report write (SVG, PNG)
//	2 engines
//	  embed        sentence embeddings on ONNX Runtime (or pure Go), the
//	               cosine Scorer
//	  judge        the LLM judge Scorer; judge/judgetest is its test server
//	  diskcache    the persistent cache (checksummed records) behind embed's
//	               and judge's caches
//	  models       the default model's converter, model pulls, verification
//	  home         where the ONNX Runtime library and the models are
//	               installed; home/hometest for the tests that need them
//	3 inputs
//	  input/golden       golden datasets (Parquet, the write-up's JSON): the
//	                     one decoded turn, its reader and writer
//	  input/predictions  agents' chat logs and traces joined with gold
//	  datasets           the bundled example, the synthetic generator;
//	                     datasets/bfcl converts BFCL's data
//	4 the run directory
//	  rundir             turns.parquet, dialogs.parquet, summary.json: row
//	                     types, the one writer and reader, merge
//	  results/report      the run report (HTML, PNG charts)
//	  results/review      review.jsonl and the labelling page
//	  results/sweepio     sweep's files; results/compareio compare's files
//	  results/evalevents  verdicts as OpenTelemetry evaluation events
//	5 batch              the pipeline: fan-out, judging in chunks, in-order
//	                     writing, checkpoints and resume, shards
//	6 cmd/*              the CLI (cmd/aem: parse flags, wire, print) and
//	                     small tools
//
// # How data flows
//
// input/golden reads turns; metrics decides their verdicts with a Scorer
// from embed or judge (or metrics.Lexical); batch writes the verdicts
// through rundir (rundir.RowsOf); sweep, compare, show, report and review
// read finished runs through rundir.
// scripts holds set-up, tests and benchmarks.
package aem
