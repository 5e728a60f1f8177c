package native

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// hostLittleEndian reports whether float32 values in memory have the byte
// order of literal data, so that a literal's bytes can be used in place.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// f32View returns the float32 elements of little-endian bytes: the bytes
// themselves when the host is little-endian and they are aligned, else a
// decoded copy. The caller must not write through a view of an input.
func f32View(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if hostLittleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// f32Out returns float32 storage for a result literal's bytes and a
// function that stores it there: the bytes themselves where f32View can
// alias them (the store is then a no-op), else a scratch slice encoded
// back on store.
func f32Out(b []byte) ([]float32, func()) {
	n := len(b) / 4
	if n > 0 && hostLittleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n), func() {}
	}
	out := make([]float32, n)
	return out, func() {
		for i, v := range out {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
	}
}

// Slices and transposes write every element of their result from a copy
// plan that depends only on the op and the operand's shape and element
// size: the last plan of each op is kept (plan_cache.go) and reused while
// those stay the same, so a run neither decodes the op's attributes nor
// plans the copy again (gpt2_tiny's attention-mask slices of [2, 13]
// int64 positions did both on every run), and the result buffer needs no
// clearing.
//
// A slice whose elements are contiguous in its operand (leading dims cut
// to one index, then one dim cut to a range, the rest whole, unit strides:
// the q/k/v thirds of a fused attention projection) is a view of the
// operand's bytes, as reshape is, instead of a copy. The plan's liveness
// already handles values sharing bytes: a buffer goes back to the arena
// only when no live value overlaps it.

// copyPlanEntry is an op's plan for an operand shape and element size.
type copyPlanEntry struct {
	shape []int64 // operand shape
	esz   int
	out   []int64 // result shape
	off   int64   // the first element copied, in the operand
	plan  *copyPlan
	view  bool // a slice whose result is its operand's elements [off, off+len) as they are
}

var slicePlans, transposePlans opCache[*copyPlanEntry]

// cachedCopyPlan returns cache's plan of op for x, or plans it with build
// (nil: the copying kernel runs, and reports any error) when the op or
// the operand's shape or element size is new; nil too for an empty or
// packed operand.
func cachedCopyPlan(cache *opCache[*copyPlanEntry], op *stablehlo.Op, x *literal.Literal,
	build func(op *stablehlo.Op, x *literal.Literal, esz int) *copyPlanEntry) *copyPlanEntry {
	esz := x.DType.Size()
	if esz <= 0 || int64(len(x.Data)) != int64(x.Len())*int64(esz) || x.Len() == 0 {
		return nil
	}
	if e, ok := cache.get(op); ok && e.esz == esz && slices.Equal(e.shape, x.Shape) {
		return e
	}
	e := build(op, x, esz)
	if e != nil {
		cache.put(op, e)
	}
	return e
}

// wrapCopyPlan makes op's kernel run the cached plan (and take a slice's
// view) where plan has one, its own kernel otherwise.
func wrapCopyPlan(name string, plan func(op *stablehlo.Op, x *literal.Literal) *copyPlanEntry) {
	wrapKernel(name, func(slow Kernel) Kernel {
		return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
			if len(in) == 1 {
				if x, ok := in[0].(*literal.Literal); ok && x != nil {
					if e := plan(op, x); e != nil {
						if e.view {
							return []Value{e.viewOf(x)}, nil
						}
						out, err := takeResult(env, x.DType, e.out)
						if err != nil {
							return nil, fmt.Errorf("%s: %w", op.Name, err)
						}
						e.plan.run(out.Data, 0, x.Data, e.off)
						return []Value{out}, nil
					}
				}
			}
			return slow(env, op, in)
		}
	})
}

func init() {
	wrapCopyPlan("stablehlo.slice", slicePlan)
	wrapCopyPlan("stablehlo.transpose", transposePlan)
}

// viewOf returns a view slice's result: x's bytes of elements [e.off,
// e.off + len), capacity cut at the end.
func (e *copyPlanEntry) viewOf(x *literal.Literal) *literal.Literal {
	lo, hi := e.off*int64(e.esz), (e.off+int64(elemCount(e.out)))*int64(e.esz)
	return &literal.Literal{DType: x.DType, Shape: e.out, Data: x.Data[lo:hi:hi]}
}

// slicePlan returns the cached plan for slicing x: a view where the box's
// elements are contiguous, else a copy (see cachedCopyPlan for nil).
func slicePlan(op *stablehlo.Op, x *literal.Literal) *copyPlanEntry {
	return cachedCopyPlan(&slicePlans, op, x, planSlice)
}

func planSlice(op *stablehlo.Op, x *literal.Literal, esz int) *copyPlanEntry {
	start, ok1 := op.Ints("start_indices")
	limit, ok2 := op.Ints("limit_indices")
	steps, _ := op.Ints("strides")
	r := len(x.Shape)
	if !ok1 || !ok2 || len(start) != r || len(limit) != r || (steps != nil && len(steps) != r) {
		return nil
	}
	shape, src, off, bad := sliceBox(x.Shape, start, limit, steps)
	if bad >= 0 || elemCount(shape) == 0 || mvCheckShape(op, 0, shape) != nil {
		return nil
	}
	// contiguous: after the first dim cut to more than one element, every
	// dim is whole, and those of more than one element are unit-strided
	view, cut := true, false
	for d := range shape {
		if cut && shape[d] != x.Shape[d] || shape[d] > 1 && steps != nil && steps[d] != 1 {
			view = false
		}
		cut = cut || shape[d] > 1
	}
	return &copyPlanEntry{shape: slices.Clone(x.Shape), esz: esz, out: shape, off: off,
		plan: newCopyPlan(esz, shape, literal.Strides(shape), src), view: view}
}

// sliceView returns the slice as a view, or false when it is not one
// (then the cached copy or the copying kernel runs).
func sliceView(op *stablehlo.Op, in []Value) (*literal.Literal, bool) {
	if len(in) != 1 {
		return nil, false
	}
	x, ok := in[0].(*literal.Literal)
	if !ok || x == nil {
		return nil, false
	}
	if e := slicePlan(op, x); e != nil && e.view {
		return e.viewOf(x), true
	}
	return nil, false
}

// transposePlan returns the cached plan for transposing x (see
// cachedCopyPlan for nil).
func transposePlan(op *stablehlo.Op, x *literal.Literal) *copyPlanEntry {
	return cachedCopyPlan(&transposePlans, op, x, planTranspose)
}

func planTranspose(op *stablehlo.Op, x *literal.Literal, esz int) *copyPlanEntry {
	perm, ok := op.Ints("permutation")
	if !ok || len(perm) != len(x.Shape) {
		return nil
	}
	seen := make([]bool, len(perm))
	shape := make([]int64, len(perm))
	src := make([]int64, len(perm))
	xs := literal.Strides(x.Shape)
	for i, p := range perm {
		if p < 0 || int(p) >= len(perm) || seen[p] {
			return nil
		}
		seen[p] = true
		shape[i], src[i] = x.Shape[p], xs[p]
	}
	if mvCheckShape(op, 0, shape) != nil {
		return nil
	}
	return &copyPlanEntry{shape: slices.Clone(x.Shape), esz: esz, out: shape,
		plan: newCopyPlan(esz, shape, literal.Strides(shape), src)}
}
