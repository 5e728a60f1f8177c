package native

// select_and_scatter: for each window (one per source element) the select
// region picks one operand element among the in-bounds window positions,
// in row-major window order (the current pick is kept while
// select(pick, x) is true); the scatter region then folds the source value
// into the result at the picked position. Windows with no in-bounds
// element scatter nothing.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func evalSelectAndScatter(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	operand, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	source, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	init, err := tensorArg(op, in, 2)
	if err != nil {
		return nil, err
	}
	if init.Rank() != 0 || init.DType != operand.DType || source.DType != operand.DType {
		return nil, fmt.Errorf("%s: operand %v, source %v and init %v must share an element type (init a scalar)", op.Name, operand, source, init)
	}
	if len(op.Regions) != 2 || op.Regions[0].Entry() == nil || op.Regions[1].Entry() == nil {
		return nil, fmt.Errorf("%s: want select and scatter regions", op.Name)
	}
	w, err := readWindowSpec(op, operand.Rank())
	if err != nil {
		return nil, err
	}
	nw := w.outShape(operand.Shape)
	if !reduceShapeEq(nw, source.Shape) {
		return nil, fmt.Errorf("%s: source %v, but the windows give shape %v", op.Name, source, nw)
	}
	if err := checkComputedShape(op, 0, operand.Shape); err != nil {
		return nil, err
	}
	tab := w.cachedTable(op, operand.Shape, nw)
	groups, size := elemCount(nw), elemCount(w.size)

	// pick the selected operand index of every window
	picks := make([]int, groups)
	sel := selectFast(op.Regions[0], operand)
	for g := range picks {
		if g&1023 == 0 {
			if err := env.Context().Err(); err != nil {
				return nil, err
			}
		}
		pick := -1
		for _, at := range tab[g*size : (g+1)*size] {
			if at < 0 {
				continue
			}
			if pick < 0 {
				pick = at
			}
			keep := false
			if sel != nil {
				keep = sel(pick, at)
			} else {
				res, err := env.CallRegion(op.Regions[0], []Value{scalarAt(operand, pick), scalarAt(operand, at)})
				if err != nil {
					return nil, fmt.Errorf("%s: select: %w", op.Name, err)
				}
				b, ok := regionBool(res)
				if !ok {
					return nil, fmt.Errorf("%s: select must return one i1 scalar", op.Name)
				}
				keep = b
			}
			if !keep {
				pick = at
			}
		}
		picks[g] = pick
	}

	out, err := literal.New(operand.DType, operand.Shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	for i := 0; i < out.Len(); i++ {
		storeScalarAt(out, i, init)
	}
	// scatter: a fast fold when the region is one binary op
	if k, ok := foldOf(binaryBody(op.Regions[1])); ok {
		switch numClassOf(operand.DType) {
		case clsFloat:
			if f := floatFold(k, operand.DType); f != nil {
				res := decodeFloats(out)
				src := decodeFloats(source)
				for g, p := range picks {
					if p >= 0 {
						res[p] = f(res[p], src[g])
					}
				}
				encodeFloats(out, res)
				return []Value{out}, nil
			}
		case clsInt, clsBool:
			if f := intFold(k, operand.DType); f != nil {
				res := decodeInts(out)
				src := decodeInts(source)
				for g, p := range picks {
					if p >= 0 {
						res[p] = wrapToWidth(operand.DType, f(res[p], src[g]))
					}
				}
				encodeInts(out, res)
				return []Value{out}, nil
			}
		}
	}
	for g, p := range picks {
		if p < 0 {
			continue
		}
		res, err := env.CallRegion(op.Regions[1], []Value{scalarAt(out, p), scalarAt(source, g)})
		if err != nil {
			return nil, fmt.Errorf("%s: scatter: %w", op.Name, err)
		}
		if len(res) != 1 {
			return nil, fmt.Errorf("%s: scatter returned %d values, want 1", op.Name, len(res))
		}
		s, ok := res[0].(*literal.Literal)
		if !ok {
			return nil, fmt.Errorf("%s: scatter returned %T", op.Name, res[0])
		}
		if err := storeScalarAt(out, p, s); err != nil {
			return nil, fmt.Errorf("%s: scatter result: %w", op.Name, err)
		}
	}
	return []Value{out}, nil
}

// regionBool reads the single i1 result of a region.
func regionBool(res []Value) (bool, bool) {
	if len(res) != 1 {
		return false, false
	}
	l, ok := res[0].(*literal.Literal)
	if !ok || l.Len() != 1 || !l.DType.IsBool() {
		return false, false
	}
	return l.Data[0] != 0, true
}

// selectFast returns select(pick, x) over flat operand indices when the
// region is a single GE/GT/LE/LT compare of its two arguments on a real
// type, else nil.
func selectFast(r *stablehlo.Region, operand *literal.Literal) func(pick, x int) bool {
	b := r.Entry()
	if b == nil || len(b.Args) != 2 || len(b.Ops) != 2 {
		return nil
	}
	c, ret := b.Ops[0], b.Ops[1]
	if c.Name != "stablehlo.compare" || ret.Name != "stablehlo.return" || len(ret.Operands) != 1 ||
		len(c.Results) != 1 || ret.Operands[0] != c.Results[0] || len(c.Operands) != 2 {
		return nil
	}
	if ct, ok := c.Enum("compare_type"); ok && ct == "TOTALORDER" {
		return nil
	}
	dir, _ := c.Enum("comparison_direction")
	swapped := false
	switch {
	case c.Operands[0] == b.Args[0] && c.Operands[1] == b.Args[1]:
	case c.Operands[0] == b.Args[1] && c.Operands[1] == b.Args[0]:
		swapped = true
	default:
		return nil
	}
	d := operand.DType
	if d.IsComplex() {
		return nil
	}
	var less func(i, j int) bool // value[i] < value[j]
	switch numClassOf(d) {
	case clsFloat:
		v := decodeFloats(operand)
		cmp := func(i, j int, dir string) bool {
			switch dir {
			case "GE":
				return v[i] >= v[j]
			case "GT":
				return v[i] > v[j]
			case "LE":
				return v[i] <= v[j]
			case "LT":
				return v[i] < v[j]
			}
			return false
		}
		switch dir {
		case "GE", "GT", "LE", "LT":
		default:
			return nil
		}
		if swapped {
			return func(p, x int) bool { return cmp(x, p, dir) }
		}
		return func(p, x int) bool { return cmp(p, x, dir) }
	default:
		v := decodeInts(operand)
		if d.IsUnsigned() && d.Bits() == 64 {
			less = func(i, j int) bool { return uint64(v[i]) < uint64(v[j]) }
		} else {
			less = func(i, j int) bool { return v[i] < v[j] }
		}
	}
	var cmp func(i, j int) bool
	switch dir {
	case "GE":
		cmp = func(i, j int) bool { return !less(i, j) }
	case "GT":
		cmp = func(i, j int) bool { return less(j, i) }
	case "LE":
		cmp = func(i, j int) bool { return !less(j, i) }
	case "LT":
		cmp = less
	default:
		return nil
	}
	if swapped {
		return func(p, x int) bool { return cmp(x, p) }
	}
	return cmp
}
