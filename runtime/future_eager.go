package runtime

import (
	"context"
	"fmt"
	"sync"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Eager execution of single aten ops, for an eager Go tensor API.
//
// Each call lowers the op into a one-op module whose arguments are the
// tensors and, for every Python number passed where the schema takes a
// Tensor (x * 2 as mul.Tensor), a 0-d tensor holding the number. The
// module text therefore does not depend on the number, and the compile
// cache keyed by that text makes x*2 and x*3 share one executable. The 0-d
// tensor gets the dtype PyTorch's result_type gives the call (with the
// number as a wrapped scalar), so promotion, and the result dtype, are
// PyTorch's. Numbers in non-Tensor slots (dims, alpha, Scalar params) stay
// attributes of the module: each value compiles once.

var (
	eagerOnce sync.Once
	eagerSt   *rtState
)

// EagerMetrics returns the compile and cache counts of all eager calls.
func EagerMetrics() *Metrics {
	eagerOnce.Do(func() { eagerSt = &rtState{metrics: newMetrics(), trace: newTracer(false)} })
	return eagerSt.metrics
}

// Eager runs the aten op (an exact overload name, "aten::mul.Tensor") on
// b with positional arguments: *literal.Literal tensors, float64, int,
// int64 and bool numbers, []int64 lists, nil for None.
func Eager(ctx context.Context, b backend.Backend, op string, args ...any) ([]*literal.Literal, error) {
	exe, params, err := eagerCompile(ctx, b, op, args)
	if err != nil {
		return nil, err
	}
	lits := make([]*literal.Literal, len(params))
	for i, p := range params {
		switch p := p.(type) {
		case *literal.Literal:
			lits[i] = p
		case backend.Buffer:
			if lits[i], err = p.ToHost(ctx); err != nil {
				return nil, fmt.Errorf("eager %s: argument: %w", op, err)
			}
		}
	}
	return exe.Run(ctx, lits)
}

// EagerBuffers is Eager on device buffers, for an eager device whose
// tensors live in them: tensor arguments are backend.Buffers of b (or
// host literals, uploaded), numbers in Tensor slots become 0-d uploads,
// and the results stay on the device as buffers the caller releases.
// Transfers are counted in EagerMetrics.
func EagerBuffers(ctx context.Context, b backend.Backend, op string, args ...any) ([]backend.Buffer, error) {
	exe, params, err := eagerCompile(ctx, b, op, args)
	if err != nil {
		return nil, err
	}
	bufs := make([]backend.Buffer, len(params))
	var made []backend.Buffer
	defer func() { backend.ReleaseAll(made) }()
	for i, p := range params {
		switch p := p.(type) {
		case backend.Buffer:
			bufs[i] = p
		case *literal.Literal:
			if bufs[i], err = backend.Upload(ctx, b, p); err != nil {
				return nil, fmt.Errorf("eager %s: %w", op, err)
			}
			if !backend.IsHost(bufs[i]) {
				eagerSt.metrics.moved(int64(len(p.Data)), 0)
			}
			made = append(made, bufs[i])
		}
	}
	outs, err := backend.RunBuffers(ctx, b, exe, bufs, nil)
	if err != nil {
		return nil, fmt.Errorf("eager %s: %w", op, err)
	}
	return outs, nil
}

// eagerCompile lowers op on args into a one-op module, compiles it
// through the cache and returns its parameters in order: the tensor
// arguments (literals or buffers) and the 0-d literals of numbers.
func eagerCompile(ctx context.Context, b backend.Backend, op string, args []any) (backend.Executable, []any, error) {
	EagerMetrics()
	e, ok := aten.Lookup(op)
	if !ok {
		return nil, nil, fmt.Errorf("eager: op %s is not registered", op)
	}
	if e.Kind == aten.HostFallback || e.Lower == nil {
		return nil, nil, fmt.Errorf("eager: op %s has no device lowering", op)
	}
	s := e.ParsedSchema()
	block := &stablehlo.Block{}
	c := aten.NewLowerCtx(block)
	var params []any
	param := func(dt dtype.DType, shape []int64, p any) aten.Value {
		v := &stablehlo.Value{Type: stablehlo.Tensor(dt, shape...), Index: len(block.Args)}
		block.Args = append(block.Args, v)
		params = append(params, p)
		return aten.TensorValue(v)
	}
	// Promotion of the call, for the dtype of numbers in Tensor slots.
	var ops []dtype.Operand
	for _, a := range args {
		switch a := a.(type) {
		case *literal.Literal:
			ops = append(ops, dtype.Operand{DType: a.DType, ZeroDim: len(a.Shape) == 0})
		case backend.Buffer:
			ops = append(ops, dtype.Operand{DType: a.DType(), ZeroDim: len(a.Shape()) == 0})
		case float64:
			ops = append(ops, dtype.Operand{DType: dtype.F64, Wrapped: true})
		case int, int64:
			ops = append(ops, dtype.Operand{DType: dtype.I64, Wrapped: true})
		case bool:
			ops = append(ops, dtype.Operand{DType: dtype.Bool, Wrapped: true})
		}
	}
	numDT, err := dtype.ResultType(ops...)
	if err != nil {
		return nil, nil, fmt.Errorf("eager %s: %w", op, err)
	}
	vals := make([]aten.Value, len(args))
	for i, a := range args {
		tensorSlot := i < len(s.Params) && s.Params[i].Type.Base == "Tensor" && !s.Params[i].Type.List
		switch a := a.(type) {
		case nil:
			vals[i] = aten.None()
		case *literal.Literal:
			vals[i] = param(a.DType, a.Shape, a)
		case backend.Buffer:
			vals[i] = param(a.DType(), a.Shape(), a)
		case []int64:
			vals[i] = aten.IntsValue(a)
		case float64, int, int64, bool:
			if !tensorSlot {
				vals[i] = number(a)
				continue
			}
			l, err := literal.New(numDT, nil)
			if err != nil {
				return nil, nil, fmt.Errorf("eager %s: %w", op, err)
			}
			switch a := a.(type) {
			case float64:
				l.SetFloat64(0, a)
			case int:
				l.SetInt64(0, int64(a))
			case int64:
				l.SetInt64(0, a)
			case bool:
				if a {
					l.SetInt64(0, 1)
				}
			}
			vals[i] = param(l.DType, l.Shape, l)
		default:
			return nil, nil, fmt.Errorf("eager %s: argument %d of type %T is not supported", op, i, a)
		}
	}
	bound, err := aten.Bind(s, vals, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("eager %s: %w", op, err)
	}
	res, err := e.Call(c, bound)
	if err != nil {
		return nil, nil, fmt.Errorf("eager %s: %w", op, err)
	}
	var outs []*stablehlo.Value
	for _, r := range res {
		if r.Kind == aten.KTensor && r.T != nil {
			outs = append(outs, r.T)
		}
	}
	m := oneFuncModule(block, outs)
	exe, _, err := compileCached(ctx, eagerSt, b, m, "eager "+op)
	if err != nil {
		return nil, nil, fmt.Errorf("eager %s: %w", op, err)
	}
	return exe, params, nil
}

func number(a any) aten.Value {
	switch a := a.(type) {
	case float64:
		return aten.FloatValue(a)
	case int:
		return aten.IntValue(int64(a))
	case int64:
		return aten.IntValue(a)
	case bool:
		return aten.BoolValue(a)
	}
	return aten.None()
}

// oneFuncModule wraps a block returning outs as the module's @main.
func oneFuncModule(block *stablehlo.Block, outs []*stablehlo.Value) *stablehlo.Module {
	block.Ops = append(block.Ops, stablehlo.NewOp("func.return", outs, nil, nil))
	// what the ops' lowerings computed that nothing reads (the transpose
	// of a weight a product then reads in place) is not run
	eliminateDeadOps(block)
	in := make([]stablehlo.Type, len(block.Args))
	for i, a := range block.Args {
		in[i] = a.Type
	}
	res := make([]stablehlo.Type, len(outs))
	for i, o := range outs {
		res[i] = o.Type
	}
	f := &stablehlo.Func{Name: "main", Visibility: "public",
		Type: &stablehlo.FuncType{Inputs: in, Results: res},
		Body: &stablehlo.Region{Blocks: []*stablehlo.Block{block}}}
	return &stablehlo.Module{Name: "torchtpu", Funcs: []*stablehlo.Func{f}}
}
