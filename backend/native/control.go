package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Control flow: func.call, while, if, case, map, composite,
// optimization_barrier, async_start/async_done and custom_call dispatch.

func init() {
	register("func.call", evalCall)
	register("stablehlo.while", evalWhile)
	register("stablehlo.if", evalIf)
	register("stablehlo.case", evalCase)
	register("stablehlo.map", evalMap)
	register("stablehlo.composite", evalComposite)
	register("stablehlo.optimization_barrier", func(_ Env, _ *stablehlo.Op, in []Value) ([]Value, error) {
		return append([]Value(nil), in...), nil
	})
	register("stablehlo.custom_call", evalCustomCall)
	register("stablehlo.async_start", evalAsyncStart)
	register("stablehlo.async_done", evalAsyncDone)
}

// customCalls holds the handlers of stablehlo.custom_call by
// call_target_name.
var customCalls = map[string]Kernel{}

func registerCustomCall(target string, k Kernel) {
	if _, dup := customCalls[target]; dup {
		panic("native: duplicate custom_call handler for " + target)
	}
	customCalls[target] = k
}

func evalCustomCall(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	target, ok := op.Symbol("call_target_name")
	if !ok {
		return nil, fmt.Errorf("missing call_target_name")
	}
	k, ok := customCalls[target]
	if !ok {
		return nil, fmt.Errorf("custom_call target %q is not supported by the native backend", target)
	}
	return k(env, op, in)
}

func evalCall(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	callee, ok := op.Symbol("callee")
	if !ok {
		return nil, fmt.Errorf("missing callee")
	}
	return env.CallFunc(callee, in)
}

func evalComposite(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	d, ok := op.Symbol("decomposition")
	if !ok {
		return nil, fmt.Errorf("missing decomposition")
	}
	return env.CallFunc(d, in)
}

// scalarPred reads a tensor<i1> (or any rank-0 integer) as a condition.
func scalarPred(v Value, what string) (bool, error) {
	l, err := valueTensor(v, what)
	if err != nil {
		return false, err
	}
	if l.Len() != 1 {
		return false, fmt.Errorf("%s has shape %v, want a scalar", what, l.Shape)
	}
	return l.Int64(0) != 0, nil
}

func regionArg(op *stablehlo.Op, i int) (*stablehlo.Region, error) {
	if i >= len(op.Regions) || op.Regions[i] == nil {
		return nil, fmt.Errorf("missing region #%d", i)
	}
	return op.Regions[i], nil
}

func evalWhile(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	cond, err := regionArg(op, 0)
	if err != nil {
		return nil, err
	}
	body, err := regionArg(op, 1)
	if err != nil {
		return nil, err
	}
	vars := append([]Value(nil), in...)
	ctx := env.Context()
	for iter := 0; ; iter++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("iteration %d: %w", iter, err)
		}
		c, err := env.CallRegion(cond, vars)
		if err != nil {
			return nil, fmt.Errorf("cond, iteration %d: %w", iter, err)
		}
		if len(c) != 1 {
			return nil, fmt.Errorf("cond returned %d values, want 1", len(c))
		}
		ok, err := scalarPred(c[0], "cond result")
		if err != nil {
			return nil, err
		}
		if !ok {
			return vars, nil
		}
		next, err := env.CallRegion(body, vars)
		if err != nil {
			return nil, fmt.Errorf("body, iteration %d: %w", iter, err)
		}
		if len(next) != len(vars) {
			return nil, fmt.Errorf("body returned %d values, want %d", len(next), len(vars))
		}
		vars = next
	}
}

func evalIf(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("want 1 operand, got %d", len(in))
	}
	pred, err := scalarPred(in[0], "pred")
	if err != nil {
		return nil, err
	}
	i := 1
	if pred {
		i = 0
	}
	r, err := regionArg(op, i)
	if err != nil {
		return nil, err
	}
	return env.CallRegion(r, nil)
}

func evalCase(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("want 1 operand, got %d", len(in))
	}
	l, err := valueTensor(in[0], "index")
	if err != nil {
		return nil, err
	}
	if l.Len() != 1 {
		return nil, fmt.Errorf("index has shape %v, want a scalar", l.Shape)
	}
	n := len(op.Regions)
	if n == 0 {
		return nil, fmt.Errorf("no branches")
	}
	i := l.Int64(0)
	if i < 0 || i >= int64(n) {
		i = int64(n - 1)
	}
	return env.CallRegion(op.Regions[i], nil)
}

// elemAsScalar returns element i of l as a rank-0 literal.
func elemAsScalar(l *literal.Literal, i int) *literal.Literal {
	sz := l.DType.Size()
	return &literal.Literal{DType: l.DType, Shape: []int64{}, Data: append([]byte(nil), l.Data[i*sz:(i+1)*sz]...)}
}

func evalMap(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	comp, err := regionArg(op, 0)
	if err != nil {
		return nil, err
	}
	rt := resultType(op, 0)
	if rt == nil {
		return nil, fmt.Errorf("result type must be a static tensor")
	}
	ls := make([]*literal.Literal, len(in))
	for i := range in {
		if ls[i], err = tensorArg(op, in, i); err != nil {
			return nil, err
		}
		if !shapeEq(ls[i].Shape, rt.Shape) {
			return nil, fmt.Errorf("operand #%d has shape %v, want %v", i, ls[i].Shape, rt.Shape)
		}
	}
	out, err := literal.New(rt.DType(), rt.Shape)
	if err != nil {
		return nil, err
	}
	sz := out.DType.Size()
	args := make([]Value, len(ls))
	for e := 0; e < out.Len(); e++ {
		for i, l := range ls {
			args[i] = elemAsScalar(l, e)
		}
		r, err := env.CallRegion(comp, args)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", e, err)
		}
		if len(r) != 1 {
			return nil, fmt.Errorf("computation returned %d values, want 1", len(r))
		}
		s, err := valueTensor(r[0], "computation result")
		if err != nil {
			return nil, err
		}
		if s.DType != out.DType || s.Len() != 1 {
			return nil, fmt.Errorf("computation returned %v, want a %v scalar", s, out.DType)
		}
		copy(out.Data[e*sz:], s.Data)
	}
	return []Value{out}, nil
}

func shapeEq(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// async_start runs its body now (the spec allows a synchronous backend)
// and keeps the body's results as the future; async_done returns them.
func evalAsyncStart(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	body, err := regionArg(op, 0)
	if err != nil {
		return nil, err
	}
	var args []Value
	if b := body.Entry(); b != nil && len(b.Args) == len(in) {
		args = in
	}
	res, err := env.CallRegion(body, args)
	if err != nil {
		return nil, err
	}
	return []Value{Tuple(res)}, nil
}

func evalAsyncDone(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("want 1 future operand, got %d", len(in))
	}
	f, ok := in[0].(Tuple)
	if !ok || len(f) != len(op.Results) {
		return nil, fmt.Errorf("operand is %T, want the future of an async_start with %d results", in[0], len(op.Results))
	}
	return append([]Value(nil), f...), nil
}
