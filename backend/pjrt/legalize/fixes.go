package legalize

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Rewrites of ops the plugin computes against the spec (Target.Fixes
// names the rows a plugin needs, with the measured cause). Each gives the
// spec's answer, the native backend's, with a few more ops.

var fixRewrites []opRewrite

func init() {
	fixRewrites = []opRewrite{
		{"minmax-nan", func(op *stablehlo.Op) bool {
			return (op.Name == "stablehlo.maximum" || op.Name == "stablehlo.minimum") && elemOf(op, 0).IsFloat()
		}, fixMinMaxNaN},
		{"complex-minmax", func(op *stablehlo.Op) bool {
			return (op.Name == "stablehlo.maximum" || op.Name == "stablehlo.minimum") && elemOf(op, 0).IsComplex()
		}, fixComplexMinMax},
		{"bool-arith", func(op *stablehlo.Op) bool {
			return (op.Name == "stablehlo.add" || op.Name == "stablehlo.multiply") && elemOf(op, 0) == dtype.Bool
		}, fixBoolArith},
		{"bitcast-i1", func(op *stablehlo.Op) bool {
			if op.Name != "stablehlo.bitcast_convert" || len(op.Results) != 1 {
				return false
			}
			out := stablehlo.AsTensor(op.Results[0].Type)
			return out != nil && (elemOf(op, 0) == dtype.Bool) != (out.DType() == dtype.Bool)
		}, fixBitcastBool},
		{"gather-offset-order", gatherNeedsOrder, fixGatherOrder},
		{"erf-saturate", func(op *stablehlo.Op) bool {
			return op.Name == "chlo.erf" && erfLimit(elemOf(op, 0)) > 0
		}, fixErfSaturate},
	}
}

// collectiveReductions: ops whose region is the cross-device reduction.
var collectiveReductions = map[string]bool{
	"stablehlo.all_reduce": true, "stablehlo.reduce_scatter": true,
}

func (s *State) fixFor(op *stablehlo.Op) *opRewrite {
	for i := range fixRewrites {
		r := &fixRewrites[i]
		if _, wrong := s.Target.Fixes[r.key]; wrong && r.match(op) {
			return r
		}
	}
	return nil
}

func needFixes(s *State) bool {
	return anyOp(s.Module, func(op *stablehlo.Op) bool { return s.fixFor(op) != nil })
}

func runFixes(s *State) error {
	r := newRewriter(func(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
		if f := s.fixFor(op); f != nil {
			return f.rewrite(op)
		}
		return nil, nil, nil
	})
	// A collective's reduction body stays as written: XLA recognises only
	// plain reductions there (add, multiply, maximum, minimum, and, or),
	// and a select-based NaN rule makes it refuse the program
	// ("Unsupported reduction computation").
	r.sealed = func(op *stablehlo.Op) bool { return collectiveReductions[op.Name] }
	if err := r.funcs(s.Module); err != nil {
		return err
	}
	s.changed = s.changed || r.changed
	return nil
}

// fixMinMaxNaN: a NaN operand is the result (XLA:CPU returns the other
// operand for max(NaN, +Inf)); the op itself for the rest.
func fixMinMaxNaN(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	fb := stablehlo.NewOpsBuilder(op.Loc)
	a, b := op.Operands[0], op.Operands[1]
	m := fb.OpTyped(op.Name, []*stablehlo.Value{a, b}, []stablehlo.Type{op.Results[0].Type}, op.Attrs)[0]
	isNaN := func(x *stablehlo.Value) *stablehlo.Value { return fb.Compare("NE", x, x, "FLOAT") }
	return one(fb, fb.Select(isNaN(a), a, fb.Select(isNaN(b), b, m)))
}

// fixComplexMinMax: the spec orders complex numbers lexicographically
// (real part, then imaginary part).
func fixComplexMinMax(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	fb := stablehlo.NewOpsBuilder(op.Loc)
	a, b := op.Operands[0], op.Operands[1]
	dir := "GT"
	if op.Name == "stablehlo.minimum" {
		dir = "LT"
	}
	ra, rb, ia, ib := fb.Real(a), fb.Real(b), fb.Imag(a), fb.Imag(b)
	first := fb.Or(fb.Compare(dir, ra, rb, "FLOAT"), fb.And(fb.Compare("EQ", ra, rb, "FLOAT"), fb.Compare(dir, ia, ib, "FLOAT")))
	return one(fb, fb.Select(first, a, b))
}

// fixBoolArith: on i1, add is or and multiply is and (XLA computes them
// as integers of one bit, 1 + 1 wrapping to 0).
func fixBoolArith(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	fb := stablehlo.NewOpsBuilder(op.Loc)
	a, b := op.Operands[0], op.Operands[1]
	if op.Name == "stablehlo.add" {
		return one(fb, fb.Or(a, b))
	}
	return one(fb, fb.And(a, b))
}

// fixBitcastBool: a bitcast between i1 and a wider type (XLA:CPU's
// compiler crashes on it) packs or unpacks the bits, element j of the
// trailing dim being bit j (the native backend's little-endian order).
func fixBitcastBool(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	fb := stablehlo.NewOpsBuilder(op.Loc)
	x := op.Operands[0]
	out := stablehlo.AsTensor(op.Results[0].Type)
	in := stablehlo.AsTensor(x.Type)
	if in.DType() == dtype.Bool { // [..., k] i1 -> [...] T of k bits
		k := in.Shape[in.Rank()-1]
		u := unsignedOf(int(k))
		bits := fb.ShiftLeft(fb.Convert(x, u), fb.Iota(stablehlo.Tensor(u, in.Shape...), int64(in.Rank()-1)))
		packed := fb.ReduceWith(bits, fb.ScalarInt(u, 0), []int64{int64(in.Rank() - 1)}, "or")
		if out.DType() != u {
			packed = fb.BitcastConvert(packed, out.DType())
		}
		return one(fb, packed)
	}
	k := out.Shape[out.Rank()-1] // [...] T -> [..., k] i1
	u := unsignedOf(int(k))
	raw := x
	if in.DType() != u {
		raw = fb.BitcastConvert(x, u)
	}
	wide := fb.BroadcastInDim(raw, out.Shape, seqTo(in.Rank()))
	bit := fb.And(fb.ShiftRightLogical(wide, fb.Iota(stablehlo.Tensor(u, out.Shape...), int64(out.Rank()-1))),
		fb.BroadcastInDim(fb.ScalarInt(u, 1), out.Shape, nil))
	return one(fb, fb.Compare("NE", bit, fb.BroadcastInDim(fb.ScalarInt(u, 0), out.Shape, nil), "UNSIGNED"))
}

func unsignedOf(bits int) dtype.DType {
	switch {
	case bits <= 8:
		return dtype.U8
	case bits <= 16:
		return dtype.U16
	case bits <= 32:
		return dtype.U32
	}
	return dtype.U64
}

func seqTo(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// gatherNeedsOrder: a gather whose offset dims are not the result's
// trailing dims (XLA:CPU fuses such a gather with a select after it and
// mixes up the result: the suite's gather_float32_10_10_10_* programs).
func gatherNeedsOrder(op *stablehlo.Op) bool {
	if op.Name != "stablehlo.gather" || len(op.Results) != 1 {
		return false
	}
	g, ok := op.Attr("dimension_numbers").(*stablehlo.GatherDims)
	rt := stablehlo.AsTensor(op.Results[0].Type)
	if !ok || rt == nil {
		return false
	}
	nb := rt.Rank() - len(g.OffsetDims)
	for i, d := range g.OffsetDims {
		if d != int64(nb+i) {
			return true
		}
	}
	return false
}

// fixGatherOrder emits the gather with its offset dims last (batch dims
// first, XLA's canonical form), then transposes to the requested order.
func fixGatherOrder(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	g := op.Attr("dimension_numbers").(*stablehlo.GatherDims)
	rt := stablehlo.AsTensor(op.Results[0].Type)
	nb := rt.Rank() - len(g.OffsetDims)
	isOffset := map[int64]int{}
	for k, d := range g.OffsetDims {
		isOffset[d] = k
	}
	perm := make([]int64, rt.Rank()) // result dim i <- canonical dim perm[i]
	shape := make([]int64, rt.Rank())
	b := 0
	for i := 0; i < rt.Rank(); i++ {
		if k, ok := isOffset[int64(i)]; ok {
			perm[i] = int64(nb + k)
		} else {
			perm[i] = int64(b)
			b++
		}
		shape[perm[i]] = rt.Shape[i]
	}
	ng := *g
	ng.OffsetDims = make([]int64, len(g.OffsetDims))
	for k := range ng.OffsetDims {
		ng.OffsetDims[k] = int64(nb + k)
	}
	attrs := make([]stablehlo.NamedAttr, 0, len(op.Attrs))
	for _, a := range op.Attrs {
		if a.Name == "dimension_numbers" {
			a.Value = &ng
		}
		attrs = append(attrs, a)
	}
	fb := stablehlo.NewOpsBuilder(op.Loc)
	c := fb.OpTyped(op.Name, op.Operands, []stablehlo.Type{&stablehlo.TensorType{Shape: shape, Elem: rt.Elem}}, attrs)[0]
	return one(fb, fb.Transpose(c, perm...))
}

// erfLimit is where erf rounds to ±1 in the type (0: not fixed).
func erfLimit(d dtype.DType) float64 {
	switch d {
	case dtype.F32, dtype.F16, dtype.BF16:
		return 3.93 // 1 - erf(3.93) < 2^-25: erf is ±1 in f32 and narrower
	case dtype.F64:
		return 5.93 // 1 - erf(5.93) < 2^-54
	}
	return 0
}

// fixErfSaturate: erf is exactly ±1 where it rounds to ±1 (XLA's
// approximation leaves 1 - 2^-24 at large |x|: gelu(-1e30) came out
// -8.9e22 instead of -0).
func fixErfSaturate(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	fb := stablehlo.NewOpsBuilder(op.Loc)
	x := op.Operands[0]
	d := elemOf(op, 0)
	e := fb.OpTyped(op.Name, []*stablehlo.Value{x}, []stablehlo.Type{op.Results[0].Type}, op.Attrs)[0]
	lim := fb.BroadcastInDim(fb.Full(d, nil, erfLimit(d)), shapeOf(x), nil)
	big := fb.Compare("GT", fb.Abs(x), lim, "FLOAT")
	return one(fb, fb.Select(big, fb.Sign(x), e))
}
