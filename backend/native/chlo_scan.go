package native

// chlo.scan: walks dimension of the inputs (backwards when is_reverse),
// calling the body on (input slices..., carries...) and collecting
// (outputs..., new carries...): the outputs are stacked along dimension,
// the last carries are the final results.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("chlo.scan", evalScan)
}

func evalScan(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	seg, ok := op.Ints("operandSegmentSizes")
	if !ok || len(seg) != 2 || int(seg[0]+seg[1]) != len(in) || seg[0] < 1 {
		return nil, fmt.Errorf("%s: operandSegmentSizes must split the %d operands into inputs and inits", op.Name, len(in))
	}
	n, m := int(seg[0]), int(seg[1])
	nOut := len(op.Results) - m
	if nOut < 0 || len(op.Regions) != 1 {
		return nil, fmt.Errorf("%s: %d results for %d carries, want a body region", op.Name, len(op.Results), m)
	}
	dim64, _ := op.Int("dimension")
	rev, _ := op.Bool("is_reverse")
	inputs := make([]*literal.Literal, n)
	for i := range inputs {
		var err error
		if inputs[i], err = tensorArg(op, in, i); err != nil {
			return nil, err
		}
	}
	d := int(dim64)
	if d < 0 || d >= inputs[0].Rank() {
		return nil, fmt.Errorf("%s: dimension %d out of range for %v", op.Name, d, inputs[0])
	}
	length := inputs[0].Shape[d]
	for _, l := range inputs {
		if !reduceShapeEq(l.Shape, inputs[0].Shape) {
			return nil, fmt.Errorf("%s: inputs %v and %v differ in shape", op.Name, inputs[0], l)
		}
	}
	carry := make([]Value, m)
	copy(carry, in[n:])
	outs := make([]*literal.Literal, nOut)
	args := make([]Value, n+m)
	for step := int64(0); step < length; step++ {
		t := step
		if rev {
			t = length - 1 - step
		}
		for i, l := range inputs {
			args[i] = sliceAlong(l, d, t)
		}
		copy(args[n:], carry)
		res, err := env.CallRegion(op.Regions[0], args)
		if err != nil {
			return nil, fmt.Errorf("%s: body: %w", op.Name, err)
		}
		if len(res) != nOut+m {
			return nil, fmt.Errorf("%s: body returned %d values, want %d", op.Name, len(res), nOut+m)
		}
		for k := 0; k < nOut; k++ {
			s, ok := res[k].(*literal.Literal)
			if !ok {
				return nil, fmt.Errorf("%s: body output #%d is %T", op.Name, k, res[k])
			}
			if outs[k] == nil {
				shape := make([]int64, 0, s.Rank()+1)
				shape = append(append(append(shape, s.Shape[:d]...), length), s.Shape[d:]...)
				if outs[k], err = literal.New(s.DType, shape); err != nil {
					return nil, fmt.Errorf("%s: %w", op.Name, err)
				}
			}
			if err := placeAlong(outs[k], d, t, s); err != nil {
				return nil, fmt.Errorf("%s: body output #%d: %w", op.Name, k, err)
			}
		}
		copy(carry, res[nOut:])
	}
	vals := make([]Value, 0, nOut+m)
	for k, o := range outs {
		if o == nil { // empty scan: outputs take the result types
			t := resultType(op, k)
			if t == nil {
				return nil, fmt.Errorf("%s: empty scan needs static result types", op.Name)
			}
			var err error
			if o, err = literal.New(t.DType(), t.Shape); err != nil {
				return nil, fmt.Errorf("%s: %w", op.Name, err)
			}
		}
		vals = append(vals, o)
	}
	return append(vals, carry...), nil
}

// placeAlong writes s as index i of dim d of l (s has l's shape without d).
func placeAlong(l *literal.Literal, d int, i int64, s *literal.Literal) error {
	if s.DType != l.DType || s.Rank()+1 != l.Rank() {
		return fmt.Errorf("slice %v does not fit %v", s, l)
	}
	sz := l.DType.Size()
	inner := 1
	for _, x := range l.Shape[d+1:] {
		inner *= int(x)
	}
	n := int(l.Shape[d])
	outer := len(s.Data) / max(inner*sz, 1)
	for o := 0; o < outer; o++ {
		dst := (o*n + int(i)) * inner * sz
		copy(l.Data[dst:dst+inner*sz], s.Data[o*inner*sz:(o+1)*inner*sz])
	}
	return nil
}
