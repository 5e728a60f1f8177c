package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Reducing collectives: all_reduce, collective_reduce, reduce_scatter.

// reduceMembers folds the members' operands element by element with the
// op's computation, in group order.
func reduceMembers(env Env, op *stablehlo.Op, members [][]*literal.Literal) ([]*literal.Literal, error) {
	comp, err := regionArg(op, 0)
	if err != nil {
		return nil, err
	}
	n := len(members[0])
	out := make([]*literal.Literal, n)
	for j := 0; j < n; j++ {
		for m := range members {
			if !shapeEq(members[m][j].Shape, members[0][j].Shape) {
				return nil, fmt.Errorf("operand #%d has shape %v on one process and %v on another", j, members[m][j].Shape, members[0][j].Shape)
			}
		}
		out[j] = members[0][j].Clone()
	}
	if len(members) == 1 {
		return out, nil
	}
	// The computation takes all operands at once (2n arguments) or, for
	// a variadic op with a binary computation, is applied to each operand.
	joint := true
	if b := comp.Entry(); b != nil && n > 1 && len(b.Args) == 2 {
		joint = false
	}
	if joint {
		for e := 0; e < out[0].Len(); e++ {
			if err := foldElement(env, comp, members, out, 0, n, e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for j := 0; j < n; j++ {
		for e := 0; e < out[j].Len(); e++ {
			if err := foldElement(env, comp, members, out, j, j+1, e); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// foldElement reduces element e of operands lo..hi over the members.
func foldElement(env Env, comp *stablehlo.Region, members [][]*literal.Literal, out []*literal.Literal, lo, hi, e int) error {
	n := hi - lo
	args := make([]Value, 2*n)
	for j := 0; j < n; j++ {
		args[j] = elemAsScalar(out[lo+j], e)
	}
	for m := 1; m < len(members); m++ {
		for j := 0; j < n; j++ {
			if e >= members[m][lo+j].Len() {
				return fmt.Errorf("operand #%d differs in size between processes", lo+j)
			}
			args[n+j] = elemAsScalar(members[m][lo+j], e)
		}
		r, err := env.CallRegion(comp, args)
		if err != nil {
			return err
		}
		if len(r) != n {
			return fmt.Errorf("computation returned %d values, want %d", len(r), n)
		}
		copy(args, r)
	}
	for j := 0; j < n; j++ {
		s, err := valueTensor(args[j], "computation result")
		if err != nil {
			return err
		}
		if s.DType != out[lo+j].DType || s.Len() != 1 {
			return fmt.Errorf("computation returned %v, want a %v scalar", s, out[lo+j].DType)
		}
		sz := s.DType.Size()
		copy(out[lo+j].Data[e*sz:(e+1)*sz], s.Data)
	}
	return nil
}

func evalAllReduce(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	g, _, err := groupOf(env, op, reductionMode(op))
	if err != nil {
		return nil, err
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	res, err := reduceMembers(env, op, members)
	if err != nil {
		return nil, err
	}
	return toValues(res), nil
}

// evalCollectiveReduce reduces onto the first member of each group; the
// other members get zeros.
func evalCollectiveReduce(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	g, idx, err := groupOf(env, op, reductionMode(op))
	if err != nil {
		return nil, err
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	if idx != 0 {
		out := make([]Value, len(ls))
		for i, l := range ls {
			out[i] = zerosLike(l)
		}
		return out, nil
	}
	res, err := reduceMembers(env, op, members)
	if err != nil {
		return nil, err
	}
	return toValues(res), nil
}

func toValues(ls []*literal.Literal) []Value {
	out := make([]Value, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}

func evalReduceScatter(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	ls, err := tensors(op, in)
	if err != nil {
		return nil, err
	}
	dim, ok := op.Int("scatter_dimension")
	if !ok {
		return nil, fmt.Errorf("missing scatter_dimension")
	}
	g, idx, err := groupOf(env, op, reductionMode(op))
	if err != nil {
		return nil, err
	}
	members, err := exchangeTensors(env, op, chKey(op), g, ls)
	if err != nil {
		return nil, err
	}
	red, err := reduceMembers(env, op, members)
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(red))
	for i, r := range red {
		parts, err := splitAlong(r, int(dim), len(g))
		if err != nil {
			return nil, err
		}
		out[i] = parts[idx]
	}
	return out, nil
}
