package embed

import (
	"errors"

	"github.com/aem-dev/aem/diskcache"
)

// Sentinel errors returned (wrapped, with the path and the fix) by Open and the
// Embedder's methods. Check them with errors.Is.
var (
	// ErrORTLibraryMissing: the ONNX Runtime shared library was not found at the
	// resolved path. Run scripts/setup, or point AEM_ORT_LIB / --ort-lib at
	// libonnxruntime.so.1, or use the "go" backend.
	ErrORTLibraryMissing = errors.New("ONNX Runtime shared library not found")

	// ErrORTLibrary: the shared library exists but could not be loaded or
	// initialised (wrong architecture, incompatible version, corrupt file).
	ErrORTLibrary = errors.New("loading ONNX Runtime shared library failed")

	// ErrModelMissing: the model directory or one of its files is missing.
	ErrModelMissing = errors.New("embedding model not found")

	// ErrModelInvalid: a model file exists but is corrupt, does not match its
	// pinned sha256, or cannot be loaded by the backend.
	ErrModelInvalid = errors.New("embedding model is invalid")

	// ErrModelUnsupported: the model loads but its inputs or outputs are not
	// those of a text-embedding model; the error lists the actual names and shapes.
	ErrModelUnsupported = errors.New("embedding model has unexpected inputs or outputs")

	// ErrTokenizer: tokenizer.json is missing, unreadable or not supported.
	ErrTokenizer = errors.New("tokenizer failed")

	// ErrCacheLocked: another process (or another Embedder in this process)
	// holds the persistent cache's lock past Options.CacheLockTimeout.
	// It is diskcache.ErrLocked. (A damaged cache is never an error: what
	// cannot be read is a miss, see Stats.CacheCorrupt and CacheNotices.)
	ErrCacheLocked = diskcache.ErrLocked

	// ErrClosed: the Embedder was closed.
	ErrClosed = errors.New("embedder is closed")

	// ErrInvalidOptions: Options.Validate found a bad setting.
	ErrInvalidOptions = errors.New("invalid embed options")
)
