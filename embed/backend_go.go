package embed

import (
	"fmt"
	"os"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // registers the pure-Go "go" backend
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/onnx-gomlx/onnx"
)

// goSeqMultiple pads the sequence length of batches on the go backend to a
// multiple of this, so the JIT compiles a handful of shapes rather than one
// per length. Padding carries attention mask 0 and does not change vectors.
const goSeqMultiple = 16

// goBackend runs the graph in pure Go, the way hugot's Go session
// (hugot.NewGoSession) does: onnx-gomlx converts the ONNX graph to a gomlx
// computation, executed by gomlx's simplego backend. One executor is built at
// Open and reused; it compiles once per distinct input shape.
type goBackend struct {
	be   backends.Backend
	ctx  *context.Context
	exec *context.Exec
	plan ioPlan
}

func gomlxElem(d dtypes.DType) string {
	switch d {
	case dtypes.Int64:
		return elemInt64
	case dtypes.Int32:
		return elemInt32
	case dtypes.Float32:
		return elemFloat32
	}
	return d.String()
}

func gomlxInfos(names []string, shapes []onnx.DynamicShape) []tensorInfo {
	out := make([]tensorInfo, len(names))
	for i, n := range names {
		t := tensorInfo{Name: n, Elem: gomlxElem(shapes[i].DType)}
		for _, d := range shapes[i].Dimensions {
			if d <= 0 {
				d = dynamicDimSize
			}
			t.Dims = append(t.Dims, int64(d))
		}
		out[i] = t
	}
	return out
}

func openGo(info *ModelInfo) (b backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("%w: the go backend cannot load %s: %v", ErrModelInvalid, info.WeightsPath, r)
		}
	}()
	data, err := os.ReadFile(info.WeightsPath)
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", ErrModelMissing, info.WeightsPath, err)
	}
	m, err := onnx.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: parsing %s: %w; re-run scripts/setup (or `aem models verify`) to restore the file", ErrModelInvalid, info.WeightsPath, err)
	}
	plan, err := planIO(gomlxInfos(m.InputsNames, m.InputsShapes), gomlxInfos(m.OutputsNames, m.OutputsShapes), info)
	if err != nil {
		return nil, err
	}
	ctx := context.New().Reuse()
	if err := m.VariablesToContext(ctx); err != nil {
		return nil, fmt.Errorf("%w: loading the weights of %s: %w", ErrModelInvalid, info.WeightsPath, err)
	}
	be, err := backends.NewWithConfig("go:ops_sequential")
	if err != nil {
		return nil, fmt.Errorf("starting the gomlx go backend: %w", err)
	}
	outName := plan.output.Name
	inputs := plan.inputs
	fn := func(ctx *context.Context, nodes []*graph.Node) []*graph.Node {
		feed := make(map[string]*graph.Node, len(nodes))
		for i, t := range inputs {
			feed[t.Name] = nodes[i]
		}
		return m.CallGraph(ctx, nodes[0].Graph(), feed, outName)
	}
	exec, err := context.NewExec(be, ctx, fn)
	if err != nil {
		be.Finalize()
		return nil, fmt.Errorf("%w: building the go executor for %s: %w", ErrModelInvalid, info.WeightsPath, err)
	}
	exec.SetMaxCache(-1)
	return &goBackend{be: be, ctx: ctx, exec: exec, plan: plan}, nil
}

func (b *goBackend) ioPlan() ioPlan { return b.plan }

func (b *goBackend) run(in *batchInput) (out []float32, dims []int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, dims, err = nil, nil, fmt.Errorf("running the model (go backend) on a %dx%d batch: %v", in.batch, in.seq, r)
		}
	}()
	feeds := b.plan.feeds(in)
	args := make([]*tensors.Tensor, len(feeds))
	for i, f := range feeds {
		if b.plan.inputs[i].Elem == elemInt32 {
			args[i] = tensors.FromFlatDataAndDimensions(toInt32(f), in.batch, in.seq)
		} else {
			args[i] = tensors.FromFlatDataAndDimensions(append([]int64(nil), f...), in.batch, in.seq)
		}
	}
	defer func() {
		for _, t := range args {
			_ = t.FinalizeAll()
		}
	}()
	res, err := b.exec.Exec(args)
	if err != nil {
		return nil, nil, fmt.Errorf("running the model (go backend) on a %dx%d batch: %w", in.batch, in.seq, err)
	}
	defer func() {
		for _, t := range res {
			_ = t.FinalizeAll()
		}
	}()
	if len(res) != 1 {
		return nil, nil, fmt.Errorf("%w: go backend returned %d outputs, want 1", ErrModelUnsupported, len(res))
	}
	t := res[0]
	if t.DType() != dtypes.Float32 {
		return nil, nil, fmt.Errorf("%w: output %s is %s, not float32", ErrModelUnsupported, b.plan.output.Name, t.DType())
	}
	for _, d := range t.Shape().Dimensions {
		dims = append(dims, int64(d))
	}
	err = tensors.ConstFlatData(t, func(flat []float32) { out = append([]float32(nil), flat...) })
	if err != nil {
		return nil, nil, fmt.Errorf("reading the go backend's output: %w", err)
	}
	return out, dims, nil
}

func (b *goBackend) close() error {
	b.exec.Finalize()
	b.ctx.Finalize()
	b.be.Finalize()
	return nil
}
