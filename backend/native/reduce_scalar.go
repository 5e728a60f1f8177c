package native

// A reduction body made only of scalar arithmetic, compares, selects and
// constants is compiled to a straight-line program over float64/int64
// slots, so that multi-operand reductions (argmax, argmin, Welford-style
// pairs) run without building a 0-d tensor per element. Each step rounds
// (floats) or wraps (integers) to its element type exactly as the
// elementwise kernels do, so the results are the region path's, bit for
// bit; a body with any other op is not compiled.

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

type scalarOpKind int

const (
	sConst scalarOpKind = iota
	sAdd
	sSub
	sMul
	sMax
	sMin
	sAnd
	sOr
	sXor
	sNot
	sNeg
	sCompare
	sSelect
)

// scalarSlot is one value: f for float types, i for integers and i1.
type scalarSlot struct {
	f float64
	i int64
}

type scalarInstr struct {
	kind    scalarOpKind
	dt      dtype.DType // element type of the result (of the operands for compare)
	a, b, c int
	dir     string
	k       scalarSlot // constant
	out     int
}

// scalarProg is a compiled region: slots 0..nargs-1 are the block
// arguments, then one slot per op result.
type scalarProg struct {
	nargs  int
	slots  int
	code   []scalarInstr
	result []int
	types  []dtype.DType // of every slot
}

// compileScalarRegion compiles r, or returns nil when it has anything but
// supported scalar ops on 0-d non-quantized real or integer tensors.
func compileScalarRegion(r *stablehlo.Region) *scalarProg {
	b := r.Entry()
	if b == nil || len(b.Ops) == 0 {
		return nil
	}
	p := &scalarProg{nargs: len(b.Args)}
	slot := map[*stablehlo.Value]int{}
	scalarType := func(v *stablehlo.Value) (dtype.DType, bool) {
		t := stablehlo.AsTensor(v.Type)
		if t == nil || t.Rank() != 0 || t.Elem.IsQuantized() {
			return 0, false
		}
		d := t.DType()
		if d.IsComplex() || d == dtype.Index || d.Size() == 0 {
			return 0, false
		}
		return d, true
	}
	for _, a := range b.Args {
		d, ok := scalarType(a)
		if !ok {
			return nil
		}
		slot[a] = len(p.types)
		p.types = append(p.types, d)
	}
	operand := func(op *stablehlo.Op, i int) (int, bool) {
		if i >= len(op.Operands) {
			return 0, false
		}
		s, ok := slot[op.Operands[i]]
		return s, ok
	}
	for n, op := range b.Ops {
		if op.Name == "stablehlo.return" {
			if n != len(b.Ops)-1 {
				return nil
			}
			for i := range op.Operands {
				s, ok := operand(op, i)
				if !ok {
					return nil
				}
				p.result = append(p.result, s)
			}
			break
		}
		if len(op.Results) != 1 || len(op.Regions) != 0 {
			return nil
		}
		d, ok := scalarType(op.Results[0])
		if !ok {
			return nil
		}
		in := scalarInstr{dt: d, out: len(p.types)}
		nIn := 2
		switch op.Name {
		case "stablehlo.constant":
			da, ok := op.Attr("value").(*stablehlo.DenseAttr)
			if !ok || da.Value == nil || da.Value.Len() != 1 || da.Value.DType != d {
				return nil
			}
			in.kind, nIn = sConst, 0
			if d.IsFloat() {
				in.k.f = da.Value.Float64(0)
			} else {
				in.k.i = da.Value.Int64(0)
			}
		case "stablehlo.add":
			in.kind = sAdd
		case "stablehlo.subtract":
			if d.IsBool() {
				return nil
			}
			in.kind = sSub
		case "stablehlo.multiply":
			in.kind = sMul
		case "stablehlo.maximum":
			in.kind = sMax
		case "stablehlo.minimum":
			in.kind = sMin
		case "stablehlo.and", "stablehlo.or", "stablehlo.xor":
			if d.IsFloat() {
				return nil
			}
			in.kind = map[string]scalarOpKind{"stablehlo.and": sAnd, "stablehlo.or": sOr, "stablehlo.xor": sXor}[op.Name]
		case "stablehlo.not":
			if d.IsFloat() {
				return nil
			}
			in.kind, nIn = sNot, 1
		case "stablehlo.negate":
			in.kind, nIn = sNeg, 1
		case "stablehlo.compare":
			dir, ok := op.Enum("comparison_direction")
			if !ok {
				return nil
			}
			if ct, ok := op.Enum("compare_type"); ok && ct == "TOTALORDER" {
				return nil
			}
			a, ok := operand(op, 0)
			if !ok {
				return nil
			}
			in.kind, in.dir, in.dt = sCompare, dir, p.types[a]
		case "stablehlo.select":
			in.kind, nIn = sSelect, 3
		default:
			return nil
		}
		if len(op.Operands) != nIn {
			return nil
		}
		args := []*int{&in.a, &in.b, &in.c}
		for i := 0; i < nIn; i++ {
			s, ok := operand(op, i)
			if !ok {
				return nil
			}
			*args[i] = s
		}
		slot[op.Results[0]] = len(p.types)
		p.types = append(p.types, d)
		p.code = append(p.code, in)
	}
	if p.result == nil {
		return nil
	}
	p.slots = len(p.types)
	return p
}

// run executes the program on s (len p.slots; the arguments filled in).
func (p *scalarProg) run(s []scalarSlot) {
	for _, in := range p.code {
		a, b := s[in.a], s[in.b]
		var r scalarSlot
		d := in.dt
		switch in.kind {
		case sConst:
			r = in.k
		case sSelect:
			if s[in.a].i != 0 {
				r = s[in.b]
			} else {
				r = s[in.c]
			}
		case sCompare:
			r.i = scalarCompare(in.dir, d, a, b)
		default:
			if d.IsFloat() {
				r.f = scalarFloatOp(in.kind, d, a.f, b.f)
			} else {
				r.i = scalarIntOp(in.kind, d, a.i, b.i)
			}
		}
		s[in.out] = r
	}
}

func scalarFloatOp(k scalarOpKind, d dtype.DType, x, y float64) float64 {
	var v float64
	switch k {
	case sAdd:
		v = x + y
	case sSub:
		v = x - y
	case sMul:
		v = x * y
	case sNeg:
		return -x
	case sMax, sMin:
		if x != x {
			return x
		}
		if y != y {
			return y
		}
		if x == 0 && y == 0 { // -0 < +0
			if math.Signbit(x) == (k == sMax) {
				return y
			}
			return x
		}
		if (x > y) == (k == sMax) {
			return x
		}
		return y
	}
	return roundToDType(d, v)
}

func scalarIntOp(k scalarOpKind, d dtype.DType, x, y int64) int64 {
	if d.IsBool() {
		switch k {
		case sAdd, sMax, sOr:
			return x | y
		case sMul, sMin, sAnd:
			return x & y
		case sXor:
			return x ^ y
		case sNot:
			return 1 - x
		case sNeg:
			return x
		}
		return 0
	}
	var v int64
	switch k {
	case sAdd:
		v = x + y
	case sSub:
		v = x - y
	case sMul:
		v = x * y
	case sNeg:
		v = -x
	case sAnd:
		v = x & y
	case sOr:
		v = x | y
	case sXor:
		v = x ^ y
	case sNot:
		v = ^x
	case sMax, sMin:
		less := x < y
		if d.IsUnsigned() {
			less = uint64(x) < uint64(y)
		}
		if less == (k == sMin) {
			return x
		}
		return y
	}
	return wrapToWidth(d, v)
}

func scalarCompare(dir string, d dtype.DType, a, b scalarSlot) int64 {
	var lt, eq bool
	switch {
	case d.IsFloat():
		if a.f != a.f || b.f != b.f { // unordered: only NE holds
			if dir == "NE" {
				return 1
			}
			return 0
		}
		lt, eq = a.f < b.f, a.f == b.f
	case d.IsUnsigned():
		lt, eq = uint64(a.i) < uint64(b.i), a.i == b.i
	default:
		lt, eq = a.i < b.i, a.i == b.i
	}
	var r bool
	switch dir {
	case "EQ":
		r = eq
	case "NE":
		r = !eq
	case "LT":
		r = lt
	case "LE":
		r = lt || eq
	case "GT":
		r = !lt && !eq
	case "GE":
		r = !lt
	}
	if r {
		return 1
	}
	return 0
}

// scalarLoad decodes a literal into slots of its kind.
func scalarLoad(l *literal.Literal) []scalarSlot {
	out := make([]scalarSlot, l.Len())
	if l.DType.IsFloat() {
		for i, v := range decodeFloats(l) {
			out[i].f = v
		}
	} else {
		for i, v := range decodeInts(l) {
			out[i].i = v
		}
	}
	return out
}

// scalarStore encodes slots into l.
func scalarStore(l *literal.Literal, v []scalarSlot) {
	if l.DType.IsFloat() {
		f := make([]float64, len(v))
		for i, s := range v {
			f[i] = s.f
		}
		encodeFloats(l, f)
		return
	}
	n := make([]int64, len(v))
	for i, s := range v {
		n[i] = s.i
	}
	encodeInts(l, n)
}

// fits reports whether the program takes args of the given types and
// returns values of the result types.
func (p *scalarProg) fits(args, results []dtype.DType) bool {
	if p.nargs != len(args) || len(p.result) != len(results) {
		return false
	}
	for i, d := range args {
		if p.types[i] != d {
			return false
		}
	}
	for i, d := range results {
		if p.types[p.result[i]] != d {
			return false
		}
	}
	return true
}
