package native

// stablehlo.reduce. Each result element is folded in row-major order of the
// reduced dims, starting from the init value: acc = body(acc, x). Bodies
// that are one add/multiply/maximum/minimum/and/or of the two block
// arguments run on decoded slices (reduce_fast.go), with the same rounding
// after every step as the generic path; anything else calls the region per
// element.

import (
	"fmt"
	"slices"

	"github.com/torchtpu/torchtpu/dtype"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.reduce", evalReduce)
}

// reduceOperands reads the N inputs and N init values of reduce and
// reduce_window, each input promoted to its init's type, and calls check
// on pair i as soon as it is read.
func reduceOperands(op *stablehlo.Op, in []Value, check func(inputs, inits []*literal.Literal, i int) error) (inputs, inits []*literal.Literal, err error) {
	if len(in) == 0 || len(in)%2 != 0 {
		return nil, nil, fmt.Errorf("%s: want N inputs and N init values, got %d operands", op.Name, len(in))
	}
	n := len(in) / 2
	inputs = make([]*literal.Literal, n)
	inits = make([]*literal.Literal, n)
	for i := 0; i < n; i++ {
		if inputs[i], err = tensorArg(op, in, i); err != nil {
			return nil, nil, err
		}
		if inits[i], err = tensorArg(op, in, n+i); err != nil {
			return nil, nil, err
		}
		if inputs[i], err = promoteTo(inputs[i], inits[i].DType); err != nil {
			return nil, nil, fmt.Errorf("%s: input #%d: %w", op.Name, i, err)
		}
		if err := check(inputs, inits, i); err != nil {
			return nil, nil, err
		}
	}
	return inputs, inits, nil
}

func evalReduce(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if out, ok := reduceF32Planned(env, op, in); ok {
		return out, nil
	}
	inputs, inits, err := reduceOperands(op, in, func(inputs, inits []*literal.Literal, i int) error {
		if inits[i].Rank() != 0 {
			return fmt.Errorf("%s: init value #%d is %v, want a scalar", op.Name, i, inits[i])
		}
		if !reduceShapeEq(inputs[i].Shape, inputs[0].Shape) {
			return fmt.Errorf("%s: inputs %v and %v differ in shape", op.Name, inputs[0], inputs[i])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := len(inputs)
	dims, ok := op.Ints("dimensions")
	if !ok {
		return nil, fmt.Errorf("%s: missing dimensions", op.Name)
	}
	if len(op.Regions) != 1 || op.Regions[0].Entry() == nil {
		return nil, fmt.Errorf("%s: want one body region", op.Name)
	}
	shape := inputs[0].Shape
	perm, outShape, size, ok := reduceLayout(shape, dims)
	if !ok {
		return nil, fmt.Errorf("%s: bad dimensions %v for rank %d", op.Name, dims, len(shape))
	}
	outs := make([]*literal.Literal, n)
	for i := range outs {
		if err := checkComputedShape(op, i, outShape); err != nil {
			return nil, err
		}
		dt := computeResultDType(op, i, inits[i].DType)
		if dt != inits[i].DType {
			return nil, fmt.Errorf("%s: result #%d is %v but its init value is %v", op.Name, i, dt, inits[i].DType)
		}
		var err error
		if outs[i], err = newResult(env, dt, outShape); err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
	}
	groups := elemCount(outShape)
	body := op.Regions[0]
	if n == 1 && !identityPerm(perm) {
		if kind := binaryBody(body); kind != "" {
			if rows, cols, ok := leadingDims(shape, dims); ok && reduceLeadingCols(kind, inputs[0], inits[0], outs[0], rows, cols) {
				return []Value{outs[0]}, nil
			}
		}
	}
	if n == 1 && !identityPerm(perm) && reduceMiddle(binaryBody(body), inputs[0], inits[0], outs[0], shape, dims) {
		return []Value{outs[0]}, nil
	}
	var idx []int
	if !identityPerm(perm) {
		idx = permutedIndex(shape, perm)
	}
	if n == 1 {
		if kind := binaryBody(body); kind != "" && inputs[0].DType == inits[0].DType {
			if reduceFast(kind, inputs[0], inits[0], outs[0], groups, size, idx) {
				return []Value{outs[0]}, nil
			}
		}
	}
	at := func(flat int) int { return flat }
	if idx != nil {
		at = func(flat int) int { return idx[flat] }
	}
	if vals, ok := reduceScalar(body, inputs, inits, outs, groups, size, at); ok {
		return vals, nil
	}
	return reduceRegion(env, op, body, inputs, inits, outs, groups, size, at)
}

// reduceRegion folds each of groups runs of size elements (element r of
// group g is at(g*size+r) of each input; a negative position reads the init
// value) by calling the body region, the general path that reduce and
// reduce_window take when no fast fold applies.
func reduceRegion(env Env, op *stablehlo.Op, body *stablehlo.Region, inputs, inits, outs []*literal.Literal, groups, size int, at func(int) int) ([]Value, error) {
	n := len(inputs)
	args := make([]Value, 2*n)
	for g := 0; g < groups; g++ {
		if g&1023 == 0 {
			if err := env.Context().Err(); err != nil {
				return nil, err
			}
		}
		acc := make([]Value, n)
		for i := range acc {
			acc[i] = inits[i]
		}
		for r := 0; r < size; r++ {
			p := at(g*size + r)
			copy(args, acc)
			for i := 0; i < n; i++ {
				if p < 0 {
					args[n+i] = inits[i]
				} else {
					args[n+i] = scalarAt(inputs[i], p)
				}
			}
			res, err := env.CallRegion(body, args)
			if err != nil {
				return nil, fmt.Errorf("%s: body: %w", op.Name, err)
			}
			if len(res) != n {
				return nil, fmt.Errorf("%s: body returned %d values, want %d", op.Name, len(res), n)
			}
			copy(acc, res)
		}
		for i := range acc {
			s, ok := acc[i].(*literal.Literal)
			if !ok {
				return nil, fmt.Errorf("%s: body returned %T, want a tensor", op.Name, acc[i])
			}
			if err := storeScalarAt(outs[i], g, s); err != nil {
				return nil, fmt.Errorf("%s: body result #%d: %w", op.Name, i, err)
			}
		}
	}
	vals := make([]Value, n)
	for i := range outs {
		vals[i] = outs[i]
	}
	return vals, nil
}

// binaryBody returns the name ("stablehlo.add", ...) of the single op of a
// two-argument region that applies it to both arguments and returns its
// result, or "" when the region is anything else.
func binaryBody(r *stablehlo.Region) string {
	b := r.Entry()
	if b == nil || len(b.Args) != 2 || len(b.Ops) != 2 {
		return ""
	}
	x, ret := b.Ops[0], b.Ops[1]
	if ret.Name != "stablehlo.return" || len(ret.Operands) != 1 || len(x.Results) != 1 || ret.Operands[0] != x.Results[0] {
		return ""
	}
	if len(x.Operands) != 2 || len(x.Regions) != 0 {
		return ""
	}
	a0, a1 := x.Operands[0], x.Operands[1]
	if !((a0 == b.Args[0] && a1 == b.Args[1]) || (a0 == b.Args[1] && a1 == b.Args[0])) {
		return ""
	}
	for _, v := range []*stablehlo.Value{a0, a1, x.Results[0]} {
		t := stablehlo.AsTensor(v.Type)
		if t == nil || t.Rank() != 0 || t.Elem.IsQuantized() {
			return ""
		}
	}
	switch x.Name {
	case "stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.or":
		return x.Name
	}
	return ""
}

func reduceShapeEq(a, b []int64) bool {
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

// reduceScalar runs a reduction whose body compiles to a scalar program:
// element r of group g is input element at(g*size+r), or the init value
// where that is negative (window padding). ok is false when the body does
// not compile.
func reduceScalar(body *stablehlo.Region, inputs, inits, outs []*literal.Literal, groups, size int, at func(int) int) ([]Value, bool) {
	n := len(inputs)
	prog := compileScalarRegion(body)
	if prog == nil {
		return nil, false
	}
	argTypes := make([]dtype.DType, 2*n)
	resTypes := make([]dtype.DType, n)
	for i := 0; i < n; i++ {
		argTypes[i], argTypes[n+i], resTypes[i] = inits[i].DType, inputs[i].DType, inits[i].DType
	}
	if !prog.fits(argTypes, resTypes) {
		return nil, false
	}
	src := make([][]scalarSlot, n)
	start := make([]scalarSlot, n)
	res := make([][]scalarSlot, n)
	for i := 0; i < n; i++ {
		src[i] = scalarLoad(inputs[i])
		start[i] = scalarLoad(inits[i])[0]
		res[i] = make([]scalarSlot, groups)
	}
	slots := make([]scalarSlot, prog.slots)
	next := make([]scalarSlot, n)
	for g := 0; g < groups; g++ {
		copy(slots, start)
		for r := 0; r < size; r++ {
			j := at(g*size + r)
			for i := 0; i < n; i++ {
				if j < 0 {
					slots[n+i] = start[i]
				} else {
					slots[n+i] = src[i][j]
				}
			}
			prog.run(slots)
			for i, s := range prog.result {
				next[i] = slots[s]
			}
			copy(slots[:n], next)
		}
		for i := 0; i < n; i++ {
			res[i][g] = slots[i]
		}
	}
	vals := make([]Value, n)
	for i := range outs {
		scalarStore(outs[i], res[i])
		vals[i] = outs[i]
	}
	return vals, true
}

// reduceLayout returns, for reducing dims of shape, the permutation that
// puts the kept dims first (in order) and the reduced ones last (sorted),
// the result shape, and the elements folded per result; ok is false when
// a dim is out of range or repeated.
func reduceLayout(shape, dims []int64) (perm []int, out []int64, size int, ok bool) {
	reduced := make([]bool, len(shape))
	for _, d := range dims {
		if d < 0 || int(d) >= len(shape) || reduced[d] {
			return nil, nil, 0, false
		}
		reduced[d] = true
	}
	out = []int64{}
	for i, r := range reduced {
		if !r {
			perm = append(perm, i)
			out = append(out, shape[i])
		}
	}
	rdims := slices.Clone(dims)
	slices.Sort(rdims)
	size = 1
	for _, d := range rdims {
		perm = append(perm, int(d))
		size *= int(shape[d])
	}
	return perm, out, size, true
}
