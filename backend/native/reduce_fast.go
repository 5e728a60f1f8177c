package native

// Fast folds for reduce and reduce_window bodies that are a single binary
// op of the two block arguments. Each step rounds to the element type, as
// the generic path does when it calls the region on 0-d tensors, and the
// order of the steps is the same.

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// foldKind is a reduction body that a fast fold implements.
type foldKind int

const (
	foldAdd foldKind = iota
	foldMul
	foldMax
	foldMin
	foldAnd
	foldOr
)

func foldOf(name string) (foldKind, bool) {
	switch name {
	case "stablehlo.add":
		return foldAdd, true
	case "stablehlo.multiply":
		return foldMul, true
	case "stablehlo.maximum":
		return foldMax, true
	case "stablehlo.minimum":
		return foldMin, true
	case "stablehlo.and":
		return foldAnd, true
	case "stablehlo.or":
		return foldOr, true
	}
	return 0, false
}

// floatFold returns acc∘x for a float type (rounded to d), or nil when the
// kind does not apply to floats.
func floatFold(k foldKind, d dtype.DType) func(acc, x float64) float64 {
	var f func(acc, x float64) float64
	switch k {
	case foldAdd:
		f = func(a, x float64) float64 { return a + x }
	case foldMul:
		f = func(a, x float64) float64 { return a * x }
	case foldMax: // NaN-propagating, keeping the first NaN's bits
		return func(a, x float64) float64 {
			if a != a || x != x {
				if a != a {
					return a
				}
				return x
			}
			return math.Max(a, x)
		}
	case foldMin:
		return func(a, x float64) float64 {
			if a != a || x != x {
				if a != a {
					return a
				}
				return x
			}
			return math.Min(a, x)
		}
	default:
		return nil
	}
	switch d {
	case dtype.F64:
		return f
	case dtype.F32:
		return func(a, x float64) float64 { return float64(float32(f(a, x))) }
	}
	return func(a, x float64) float64 { return roundToDType(d, f(a, x)) }
}

// intFold returns acc∘x for an integer or boolean type, or nil.
func intFold(k foldKind, d dtype.DType) func(acc, x int64) int64 {
	if d.IsBool() {
		switch k {
		case foldAdd, foldMax, foldOr:
			return func(a, x int64) int64 { return a | x }
		case foldMul, foldMin, foldAnd:
			return func(a, x int64) int64 { return a & x }
		}
		return nil
	}
	unsigned64 := d == dtype.U64
	switch k {
	case foldAdd:
		return func(a, x int64) int64 { return a + x }
	case foldMul:
		return func(a, x int64) int64 { return a * x }
	case foldAnd:
		return func(a, x int64) int64 { return a & x }
	case foldOr:
		return func(a, x int64) int64 { return a | x }
	case foldMax:
		if unsigned64 {
			return func(a, x int64) int64 {
				if uint64(x) > uint64(a) {
					return x
				}
				return a
			}
		}
		return func(a, x int64) int64 { return max(a, x) }
	case foldMin:
		if unsigned64 {
			return func(a, x int64) int64 {
				if uint64(x) < uint64(a) {
					return x
				}
				return a
			}
		}
		return func(a, x int64) int64 { return min(a, x) }
	}
	return nil
}

// reduceFast folds groups of size elements each (element r of group g is
// input element idx[g*size+r], or g*size+r when idx is nil) into out,
// starting from init. It returns false when the kind and type have no fast
// fold.
func reduceFast(name string, input, init, out *literal.Literal, groups, size int, idx []int) bool {
	k, ok := foldOf(name)
	if !ok {
		return false
	}
	d := input.DType
	at := func(i int) int {
		if idx != nil {
			return idx[i]
		}
		return i
	}
	if d == dtype.F32 && init.DType == dtype.F32 && out.DType == dtype.F32 && reduceF32(k, input, init, out, groups, size, idx) {
		return true
	}
	switch numClassOf(d) {
	case clsFloat:
		f := floatFold(k, d)
		if f == nil {
			return false
		}
		src := decodeFloats(input)
		start := init.Float64(0)
		res := make([]float64, groups)
		chains := idx == nil && k == foldAdd && d == dtype.F64
		groupsParallel(groups, size, func(lo, hi int) {
			for g := lo; g < hi; g++ {
				acc := start
				base := g * size
				if chains {
					// a float64 sum of trailing dims: four chains, as the
					// fused fold adds them (reduce_slots.go)
					var ch slots4
					ch.add(src[base:base+size], 0)
					if t, ok := ch.total(start); ok {
						res[g] = t
					} else {
						res[g] = sumChain(start, src[base:base+size])
					}
					continue
				}
				if idx == nil {
					for _, x := range src[base : base+size] {
						acc = f(acc, x)
					}
				} else {
					for _, j := range idx[base : base+size] {
						acc = f(acc, src[j])
					}
				}
				res[g] = acc
			}
		})
		encodeFloats(out, res)
	case clsInt, clsBool:
		if d.IsBool() && len(init.Data) == 1 && len(out.Data) == groups {
			reduceBools(k, input.Data, init.Data[0], out.Data, groups, size, idx)
			return true
		}
		f := intFold(k, d)
		if f == nil {
			return false
		}
		src := decodeInts(input)
		start := init.Int64(0)
		res := make([]int64, groups)
		for g := range res {
			acc := start
			for r := 0; r < size; r++ {
				acc = f(acc, src[at(g*size+r)])
			}
			res[g] = wrapToWidth(d, acc)
		}
		encodeInts(out, res)
	case clsComplex:
		if k != foldAdd {
			return false
		}
		src := decodeComplexes(input)
		start := init.Complex128(0)
		res := make([]complex128, groups)
		for g := range res {
			acc := start
			for r := 0; r < size; r++ {
				acc += src[at(g*size+r)]
				if d == dtype.C64 {
					acc = complex(float64(float32(real(acc))), float64(float32(imag(acc))))
				}
			}
			res[g] = acc
		}
		encodeComplexes(out, res)
	default:
		return false
	}
	return true
}

// reduceParMin is the element count from which independent output groups
// of a reduction are split over goroutines (each group's sum keeps its
// order, so the results do not depend on the split).
const reduceParMin = 1 << 18

// groupsParallel calls fn on ranges of [0, groups), concurrently when the
// work (groups × size elements) is large enough.
func groupsParallel(groups, size int, fn func(lo, hi int)) {
	if groups*size < reduceParMin {
		fn(0, groups)
		return
	}
	runParts(groups, min(Threads(), groups), fn)
}

// reduceBools folds bool bytes (0 or 1) in place: or for add/max/or, and
// for multiply/min/and, as intFold does on decoded values.
func reduceBools(k foldKind, src []byte, start byte, out []byte, groups, size int, idx []int) {
	or := k == foldAdd || k == foldMax || k == foldOr
	for g := 0; g < groups; g++ {
		acc := start
		base := g * size
		if idx == nil {
			for _, x := range src[base : base+size] {
				if or {
					acc |= x
				} else {
					acc &= x
				}
			}
		} else {
			for _, j := range idx[base : base+size] {
				if or {
					acc |= src[j]
				} else {
					acc &= src[j]
				}
			}
		}
		out[g] = acc
	}
}
