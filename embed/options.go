package embed

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Backends accepted by Options.Backend.
const (
	BackendORT = "ort" // ONNX Runtime through cgo and its shared library (default)
	BackendGo  = "go"  // pure Go (onnx-gomlx on gomlx's simplego backend, as hugot's Go session); no cgo, no shared library
)

// Graph optimisation levels accepted by Options.GraphOptLevel (ORT backend).
const (
	GraphOptDisable  = "disable"
	GraphOptBasic    = "basic"
	GraphOptExtended = "extended"
	GraphOptAll      = "all"
)

// Defaults applied by Options.withDefaults when a field is zero.
const (
	DefaultBackend            = BackendORT
	DefaultBatchSize          = 256     // rows per model call at most; DefaultBatchTokens decides below it
	DefaultBatchTokens        = 512     // token slots (rows x padded length) per model call: measured best on 2 cores (BENCHMARKS.md)
	DefaultCacheMaxBytes      = 8 << 30 // 8 GiB of cached vectors (about four million 512-d vectors: a 1M-turn nightly set holds ~1.6M distinct strings)
	DefaultCacheLockTimeout   = 5 * time.Second
	DefaultMemoEntries        = 10_000        // about 20 MiB of 512-d vectors: the strings that repeat (gold values) stay; the rest come from the persistent cache
	DefaultMemoEntriesNoCache = 50_000        // without a persistent cache (CacheDir empty) the memo is all that keeps a string from the model twice: about 110 MiB at most
	DefaultPrecision          = PrecisionInt8 // 2.5-3.3x the strings/s of fp32, STS-B within 0.02, vectors within cosine 0.99 (BENCHMARKS.md, "int8 and fp32")
	DefaultModelName          = ModelInt8     // the default precision's model
	// CacheName is the persistent cache's directory inside Options.CacheDir
	// (a diskcache directory).
	CacheName = "embeddings"
)

// Precisions of the default model (Universal Sentence Encoder lite)
// accepted by Options.Precision, and the names of the models they select:
// the folders scripts/setup installs them in under <home>/models.
const (
	PrecisionInt8 = "int8" // its dense layers in int8 (models.PrecisionInt8)
	PrecisionFP32 = "fp32" // the reference model as converted from TF.js
	ModelInt8     = "use-lite-int8"
	ModelFP32     = "use-lite"
)

// ModelFor returns the name of the default model's form of a precision
// ("" is DefaultPrecision), or "" for an unknown precision.
func ModelFor(precision string) string {
	switch precision {
	case "":
		return DefaultModelName
	case PrecisionInt8:
		return ModelInt8
	case PrecisionFP32:
		return ModelFP32
	}
	return ""
}

// Environment variables read when the corresponding option is empty.
const (
	EnvHome   = "AEM_HOME"    // project-local install root (default ./.aem)
	EnvORTLib = "AEM_ORT_LIB" // path of libonnxruntime.so.1
	EnvModel  = "AEM_MODEL"   // model directory
)

// Options configures Open. The zero value is usable: the default model from
// the project-local install root on the ORT backend, no persistent cache.
type Options struct {
	// ModelDir is the model: a directory (an aem-installed model, with
	// aem-model.json, or any sentence-transformers ONNX export: model.onnx or
	// onnx/model.onnx, tokenizer.json, optional 1_Pooling/config.json and
	// modules.json), or the name of a model installed under <home>/models
	// (a name has no path separator and is not a directory here), such as
	// "use-lite". Empty: $AEM_MODEL (the same), then the default model in
	// Precision.
	ModelDir string
	// Precision chooses the default model's form when ModelDir and
	// $AEM_MODEL are empty: "int8" (<home>/models/use-lite-int8) or "fp32"
	// (<home>/models/use-lite). Empty: DefaultPrecision. Setting it with a
	// ModelDir is an error: a model has one precision.
	Precision string
	// Backend is "ort" (default) or "go".
	Backend string
	// ORTLib is the path of libonnxruntime.so.1 (ORT backend). Empty:
	// $AEM_ORT_LIB, then <home>/lib/<os>-<arch>/libonnxruntime.so.1.
	ORTLib string
	// Home is the install root. Empty: $AEM_HOME, then ./.aem.
	Home string

	// Sessions is how many model sessions run batches side by side, each
	// on its own goroutine, pulling from one queue (see the package doc).
	// IntraOpThreads is ORT's intra-op thread count per session (the go
	// backend ignores it). Zero values are filled from the core count
	// (runtime.GOMAXPROCS) by Options.Layout: both zero gives one
	// single-thread session per core on "ort" (one session on "go"); one
	// zero gives cores / the other, at least 1.
	Sessions       int
	IntraOpThreads int
	// GraphOptLevel is ORT's graph optimisation level: "disable", "basic",
	// "extended" or "all" (default).
	GraphOptLevel string

	// BatchTokens bounds a model call's token slots: rows x the padded
	// length its strings run at (default DefaultBatchTokens), so short
	// strings go in many rows and long ones in few. BatchSize caps the rows
	// (default DefaultBatchSize). A batch always has at least two rows.
	BatchTokens int
	BatchSize   int
	// MaxTokens caps the tokens per string (0: the model's own cap from
	// aem-model.json, sentence_bert_config.json, tokenizer.json or
	// config.json, else 512). A larger value than the model's cap is lowered to it.
	MaxTokens int

	// CacheDir holds the persistent embedding cache (CacheName); empty
	// disables it.
	CacheDir string
	// CacheMaxBytes bounds the cache's files; the oldest entries are
	// evicted past it (a sixteenth of the bound at a time). 0 means
	// DefaultCacheMaxBytes.
	CacheMaxBytes int64
	// CacheLockTimeout is how long Open waits for another process holding the
	// cache (default 5s) before failing with ErrCacheLocked.
	CacheLockTimeout time.Duration
	// DiscardCorruptCache deletes a cache file that cannot be read instead
	// of moving it aside (to <file>.corrupt-<unix time>). Either way the run
	// goes on and Stats.CacheNotices says what was done.
	DiscardCorruptCache bool

	// MemoEntries bounds the in-run, in-memory memo of vectors (an LRU) that
	// keeps identical strings from reaching the model twice in a run while
	// it holds them. 0 means DefaultMemoEntries, or DefaultMemoEntriesNoCache
	// without a persistent cache; negative disables it (in-flight duplicates
	// are still merged).
	MemoEntries int

	// Getenv reads environment variables; nil means os.Getenv. Tests set it.
	Getenv func(string) string
}

func (o Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// withDefaults fills zero fields with their defaults.
func (o Options) withDefaults() Options {
	if o.Backend == "" {
		o.Backend = DefaultBackend
	}
	if o.GraphOptLevel == "" {
		o.GraphOptLevel = GraphOptAll
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.BatchTokens == 0 {
		o.BatchTokens = DefaultBatchTokens
	}
	o.Sessions, o.IntraOpThreads = o.Layout()
	if o.CacheMaxBytes == 0 {
		o.CacheMaxBytes = DefaultCacheMaxBytes
	}
	if o.CacheLockTimeout == 0 {
		o.CacheLockTimeout = DefaultCacheLockTimeout
	}
	switch {
	case o.MemoEntries == 0 && o.CacheDir == "":
		o.MemoEntries = DefaultMemoEntriesNoCache
	case o.MemoEntries == 0:
		o.MemoEntries = DefaultMemoEntries
	}
	return o
}

// Validate reports the first bad setting, wrapping ErrInvalidOptions. Zero
// values are valid (they mean the defaults).
func (o Options) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
	}
	// Before the defaults, which fill zero (and would hide negative) layouts.
	if o.Sessions < 0 || o.Sessions > maxSessions {
		return bad("sessions %d: use 0 (one per core) or 1..%d", o.Sessions, maxSessions)
	}
	if o.IntraOpThreads < 0 || o.IntraOpThreads > maxSessions {
		return bad("intra-op threads %d: use 0 (from the core count) or 1..%d", o.IntraOpThreads, maxSessions)
	}
	o = o.withDefaults()
	switch o.Backend {
	case BackendORT, BackendGo:
	default:
		return bad("backend %q: use %q or %q", o.Backend, BackendORT, BackendGo)
	}
	if ModelFor(o.Precision) == "" {
		return bad("precision %q: use %q or %q", o.Precision, PrecisionInt8, PrecisionFP32)
	}
	if dir, src := o.modelChoice(); o.Precision != "" && dir != "" {
		return bad("precision %s chooses a form of the default model, but %s names the model %s: give one of them (%s is %s, %s is %s)",
			o.Precision, src, dir, ModelInt8, PrecisionInt8, ModelFP32, PrecisionFP32)
	}
	switch o.GraphOptLevel {
	case GraphOptDisable, GraphOptBasic, GraphOptExtended, GraphOptAll:
	default:
		return bad("graph optimisation level %q: use disable, basic, extended or all", o.GraphOptLevel)
	}
	if o.BatchSize < 1 || o.BatchSize > 4096 {
		return bad("batch size %d: use 1..4096", o.BatchSize)
	}
	if o.BatchTokens < 1 || o.BatchTokens > 1<<20 {
		return bad("batch tokens %d: use 1..%d", o.BatchTokens, 1<<20)
	}
	if o.MaxTokens < 0 {
		return bad("max tokens %d: use 0 (the model's cap) or a positive count", o.MaxTokens)
	}
	if o.CacheMaxBytes < 0 {
		return bad("cache max bytes %d: must not be negative", o.CacheMaxBytes)
	}
	if o.CacheLockTimeout < 0 {
		return bad("cache lock timeout %v: must not be negative", o.CacheLockTimeout)
	}
	return nil
}

// maxSessions bounds Options.Sessions and Options.IntraOpThreads.
const maxSessions = 256

// Layout resolves Options.Sessions and Options.IntraOpThreads from the
// core count (runtime.GOMAXPROCS, which follows the CPUs the process may
// use): both unset gives one single-thread session per core ("ort"; one
// session on "go", whose executor compiles each batch shape per session);
// one unset gives cores / the other, at least 1. On 2 cores two
// single-thread sessions measured faster than one two-thread session
// (BENCHMARKS.md, "Session layout").
func (o Options) Layout() (sessions, threads int) {
	return layoutFor(o.Sessions, o.IntraOpThreads, runtime.GOMAXPROCS(0), o.Backend == BackendGo)
}

func layoutFor(sessions, threads, cores int, goBackend bool) (int, int) {
	switch {
	case sessions > 0 && threads > 0:
	case sessions > 0:
		threads = max(1, cores/sessions)
	case threads > 0:
		sessions = max(1, cores/threads)
	case goBackend:
		sessions, threads = 1, 1
	default:
		sessions, threads = max(1, cores), 1
	}
	return sessions, threads
}

// HomeDir returns the install root: o.Home, then $AEM_HOME, then ./.aem.
func (o Options) HomeDir() string {
	if o.Home != "" {
		return o.Home
	}
	if h := o.getenv(EnvHome); h != "" {
		return h
	}
	return ".aem"
}

// PlatformDir is the <os>-<arch> folder name under <home>/lib for this
// machine, e.g. "linux-x64" or "linux-arm64" (npm's naming).
func PlatformDir() string {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x64"
	}
	return runtime.GOOS + "-" + arch
}

// ORTLibPath resolves the ONNX Runtime library: o.ORTLib, then $AEM_ORT_LIB,
// then <home>/lib/<os>-<arch>/libonnxruntime.so.1. It also says where the
// path came from ("--ort-lib", "AEM_ORT_LIB" or "default"), for error messages.
func (o Options) ORTLibPath() (path, source string) {
	if o.ORTLib != "" {
		return o.ORTLib, "--ort-lib"
	}
	if p := o.getenv(EnvORTLib); p != "" {
		return p, EnvORTLib
	}
	return filepath.Join(o.HomeDir(), "lib", PlatformDir(), "libonnxruntime.so.1"), "default"
}

// ModelPath resolves the model directory: o.ModelDir, then $AEM_MODEL,
// then <home>/models/<the default model of o.Precision>; a model's name
// (see ModelDir) is <home>/models/NAME. It also says where the path came
// from, for error messages: "--model", "AEM_MODEL", "--model NAME (an
// installed model)" or "default".
func (o Options) ModelPath() (dir, source string) {
	v, src := o.modelChoice()
	switch {
	case v == "":
		return filepath.Join(o.HomeDir(), "models", ModelFor(o.Precision)), "default"
	case isModelName(v):
		return filepath.Join(o.HomeDir(), "models", v), src + " " + v + " (an installed model)"
	}
	return v, src
}

// ModelInHome reports whether the model is one of the install root's
// (the default model, or one named): the root must then hold it.
func (o Options) ModelInHome() bool {
	v, _ := o.modelChoice()
	return v == "" || isModelName(v)
}

// isModelName: v names an installed model rather than a directory when it
// has no path separator and no directory of that name exists here.
func isModelName(v string) bool {
	if strings.ContainsRune(v, '/') || strings.ContainsRune(v, filepath.Separator) || v == "." || v == ".." {
		return false
	}
	st, err := os.Stat(v)
	return err != nil || !st.IsDir()
}

// modelChoice is the model ModelDir or $AEM_MODEL names, and which.
func (o Options) modelChoice() (value, source string) {
	if o.ModelDir != "" {
		return o.ModelDir, "--model"
	}
	if p := o.getenv(EnvModel); p != "" {
		return p, EnvModel
	}
	return "", ""
}
