//go:build cgo

package embed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ortRuntime mirrors the process-global ONNX Runtime environment that
// onnxruntime_go keeps (one shared library, one OrtEnv per process). It is the
// package's only mutable global, and exists because that state is global in
// the C library: every Embedder on the ORT backend takes a reference in Open
// and drops it in Close; the first reference loads the library and creates
// the environment, the last one destroys it (unloading the library), so a
// later Open starts afresh. All Embedders in a process must use the same
// library path while any is open.
var ortRuntime struct {
	mu    sync.Mutex
	refs  int
	lib   string
	owned bool // false when something else in the process had initialised ORT
}

// acquireORT takes a reference on the ORT environment, loading lib if none is
// loaded yet.
func acquireORT(lib, source string) (release func() error, err error) {
	ortRuntime.mu.Lock()
	defer ortRuntime.mu.Unlock()
	if ortRuntime.refs > 0 {
		if ortRuntime.lib != lib {
			return nil, fmt.Errorf("%w: this process already runs ONNX Runtime from %s; cannot also load %s (from %s): use one library per process",
				ErrORTLibrary, ortRuntime.lib, lib, source)
		}
	} else if ort.IsInitialized() {
		// Initialised outside this package (another library in the process): use it, never destroy it.
		ortRuntime.lib, ortRuntime.owned = lib, false
	} else {
		if _, err := os.Stat(lib); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s (from %s) does not exist; run scripts/setup to install it, or set %s or --ort-lib to the path of libonnxruntime.so.1 (ONNX Runtime %s or later), or use --backend go",
					ErrORTLibraryMissing, lib, source, EnvORTLib, minORTVersion)
			}
			return nil, fmt.Errorf("%w: %s (from %s): %w", ErrORTLibrary, lib, source, err)
		}
		ort.SetSharedLibraryPath(lib)
		if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
			return nil, fmt.Errorf("%w: %s (from %s): %w; reinstall it with scripts/setup (onnxruntime-node@1.30.0's library for %s), or use --backend go",
				ErrORTLibrary, lib, source, err, PlatformDir())
		}
		ortRuntime.lib, ortRuntime.owned = lib, true
	}
	ortRuntime.refs++
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			ortRuntime.mu.Lock()
			defer ortRuntime.mu.Unlock()
			ortRuntime.refs--
			if ortRuntime.refs == 0 && ortRuntime.owned && ort.IsInitialized() {
				if e := ort.DestroyEnvironment(); e != nil {
					err = fmt.Errorf("releasing ONNX Runtime: %w", e)
				}
			}
		})
		return err
	}, nil
}

// ortAvailable reports whether this build has the ORT backend (cgo).
const ortAvailable = true

// minORTVersion is the oldest ONNX Runtime serving the C API version that
// onnxruntime_go v1.27.0 asks for.
const minORTVersion = "1.24"

// ortBackend runs the graph in one DynamicAdvancedSession, created at Open and
// reused for every batch.
type ortBackend struct {
	sess    *ort.DynamicAdvancedSession
	plan    ioPlan
	release func() error
}

func graphOptLevel(s string) ort.GraphOptimizationLevel {
	switch s {
	case GraphOptDisable:
		return ort.GraphOptimizationLevelDisableAll
	case GraphOptBasic:
		return ort.GraphOptimizationLevelEnableBasic
	case GraphOptExtended:
		return ort.GraphOptimizationLevelEnableExtended
	}
	return ort.GraphOptimizationLevelEnableAll
}

func ortElem(t ort.TensorElementDataType) string {
	switch t {
	case ort.TensorElementDataTypeInt64:
		return elemInt64
	case ort.TensorElementDataTypeInt32:
		return elemInt32
	case ort.TensorElementDataTypeFloat:
		return elemFloat32
	}
	return t.String()
}

func ortInfos(in []ort.InputOutputInfo) []tensorInfo {
	out := make([]tensorInfo, len(in))
	for i, x := range in {
		out[i] = tensorInfo{Name: x.Name, Elem: ortElem(x.DataType), Dims: append([]int64(nil), x.Dimensions...)}
		for j, d := range out[i].Dims {
			if d <= 0 {
				out[i].Dims[j] = dynamicDimSize
			}
		}
	}
	return out
}

func openORT(opts Options, info *ModelInfo) (backend, error) {
	lib, source := opts.ORTLibPath()
	release, err := acquireORT(lib, source)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = release()
		}
	}()
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("creating ONNX Runtime session options: %w", err)
	}
	defer so.Destroy()
	if opts.IntraOpThreads > 0 {
		if err := so.SetIntraOpNumThreads(opts.IntraOpThreads); err != nil {
			return nil, fmt.Errorf("setting %d intra-op threads: %w", opts.IntraOpThreads, err)
		}
	}
	if err := so.SetGraphOptimizationLevel(graphOptLevel(opts.GraphOptLevel)); err != nil {
		return nil, fmt.Errorf("setting graph optimisation level %q: %w", opts.GraphOptLevel, err)
	}
	model, err := os.ReadFile(info.WeightsPath)
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", ErrModelMissing, info.WeightsPath, err)
	}
	ins, outs, err := ort.GetInputOutputInfoWithONNXData(model)
	if err != nil {
		return nil, fmt.Errorf("%w: ONNX Runtime cannot load %s: %w; re-run scripts/setup (or `aem models verify`) to restore the file", ErrModelInvalid, info.WeightsPath, err)
	}
	plan, err := planIO(ortInfos(ins), ortInfos(outs), info)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(plan.inputs))
	for i, t := range plan.inputs {
		names[i] = t.Name
	}
	sess, err := ort.NewDynamicAdvancedSessionWithONNXData(model, names, []string{plan.output.Name}, so)
	if err != nil {
		return nil, fmt.Errorf("%w: creating an ONNX Runtime session for %s: %w", ErrModelInvalid, info.WeightsPath, err)
	}
	ok = true
	return &ortBackend{sess: sess, plan: plan, release: release}, nil
}

func (b *ortBackend) ioPlan() ioPlan { return b.plan }

func (b *ortBackend) run(in *batchInput) ([]float32, []int64, error) {
	shape := ort.NewShape(int64(in.batch), int64(in.seq))
	feeds := b.plan.feeds(in)
	values := make([]ort.Value, len(feeds))
	defer func() {
		for _, v := range values {
			if v != nil {
				_ = v.Destroy()
			}
		}
	}()
	for i, f := range feeds {
		var err error
		if b.plan.inputs[i].Elem == elemInt32 {
			values[i], err = ort.NewTensor(shape, toInt32(f))
		} else {
			values[i], err = ort.NewTensor(shape, f)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("creating input tensor %s: %w", b.plan.inputs[i].Name, err)
		}
	}
	outs := []ort.Value{nil}
	if err := b.sess.Run(values, outs); err != nil {
		return nil, nil, fmt.Errorf("running the model on a %dx%d batch: %w", in.batch, in.seq, err)
	}
	defer outs[0].Destroy()
	t, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("%w: output %s is not a float32 tensor", ErrModelUnsupported, b.plan.output.Name)
	}
	data := append([]float32(nil), t.GetData()...)
	return data, append([]int64(nil), t.GetShape()...), nil
}

func (b *ortBackend) close() error {
	err := b.sess.Destroy()
	return errors.Join(err, b.release())
}
