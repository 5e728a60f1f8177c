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

// A slice whose elements are contiguous in its operand (leading dims cut
// to one index, then one dim cut to a range, the rest whole, unit strides:
// the q/k/v thirds of a fused attention projection) is a view of the
// operand's bytes, as reshape is, instead of a copy. The plan's liveness
// already handles values sharing bytes: a buffer goes back to the arena
// only when no live value overlaps it.

func init() {
	wrapKernel("stablehlo.slice", func(slow Kernel) Kernel {
		return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
			if out, ok := sliceView(op, in); ok {
				return []Value{out}, nil
			}
			if len(in) == 1 {
				if x, ok := in[0].(*literal.Literal); ok && x != nil {
					if e := slicePlan(op, x); e != nil {
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

// A slice that is not a view copies its box with a copy plan that depends
// only on the op and the operand's shape and element size: the last plan
// of each op is kept, as a transpose's (gpt2_tiny's attention-mask slices
// of [2, 13] int64 positions decoded the op's attributes and planned the
// copy on every run).

type slicePlanEntry struct {
	shape []int64 // operand shape
	esz   int
	out   []int64 // result shape
	off   int64   // the box's first element in the operand
	plan  *copyPlan
}

var slicePlans opCache[*slicePlanEntry]

// slicePlan returns the cached plan for slicing x, planning it when the
// op or shape is new; nil when the copying kernel should run (a malformed
// op, an empty or packed operand: it reports the errors).
func slicePlan(op *stablehlo.Op, x *literal.Literal) *slicePlanEntry {
	esz := x.DType.Size()
	if esz <= 0 || int64(len(x.Data)) != int64(x.Len())*int64(esz) || x.Len() == 0 {
		return nil
	}
	if e, ok := slicePlans.get(op); ok {
		if e.esz == esz && slices.Equal(e.shape, x.Shape) {
			return e
		}
	}
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
	e := &slicePlanEntry{shape: slices.Clone(x.Shape), esz: esz, out: shape, off: off,
		plan: newCopyPlan(esz, shape, literal.Strides(shape), src)}
	slicePlans.put(op, e)
	return e
}

// sliceView returns the slice as a view, or false when it is not one
// (then the copying kernel runs and reports any error).
func sliceView(op *stablehlo.Op, in []Value) (*literal.Literal, bool) {
	if len(in) != 1 {
		return nil, false
	}
	x, ok := in[0].(*literal.Literal)
	if !ok || x == nil {
		return nil, false
	}
	start, ok1 := op.Ints("start_indices")
	limit, ok2 := op.Ints("limit_indices")
	strides, _ := op.Ints("strides")
	r := len(x.Shape)
	if !ok1 || !ok2 || len(start) != r || len(limit) != r || (strides != nil && len(strides) != r) {
		return nil, false
	}
	es := x.DType.Size()
	if es <= 0 || int64(len(x.Data)) != int64(x.Len())*int64(es) {
		return nil, false
	}
	shape := make([]int64, r)
	srcStrides := literal.Strides(x.Shape)
	var off, n int64 = 0, 1
	cut := false // a dim before this one was cut to a range of more than one
	for d := 0; d < r; d++ {
		step := int64(1)
		if strides != nil {
			step = strides[d]
		}
		if start[d] < 0 || start[d] > limit[d] || limit[d] > x.Shape[d] || step <= 0 {
			return nil, false
		}
		shape[d] = (limit[d] - start[d] + step - 1) / step
		if cut && shape[d] != x.Shape[d] {
			return nil, false
		}
		if shape[d] > 1 {
			if step != 1 {
				return nil, false
			}
			cut = true
		}
		off += start[d] * srcStrides[d]
		n *= shape[d]
	}
	if n == 0 || mvCheckShape(op, 0, shape) != nil {
		return nil, false
	}
	lo, hi := off*int64(es), (off+n)*int64(es)
	return &literal.Literal{DType: x.DType, Shape: shape, Data: x.Data[lo:hi:hi]}, true
}

// A transpose writes every element of its result, so the result buffer
// needs no clearing, and its copy plan depends only on the op and the
// operand's shape and element size: the last plan of each op is kept
// (plan_cache.go) and reused while they stay the same.

type transposePlanEntry struct {
	shape []int64 // operand shape
	esz   int
	out   []int64 // result shape
	plan  *copyPlan
}

var transposePlans opCache[*transposePlanEntry]

func init() {
	wrapKernel("stablehlo.transpose", func(slow Kernel) Kernel {
		return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
			if len(in) == 1 {
				if x, ok := in[0].(*literal.Literal); ok && x != nil {
					if e := transposePlan(op, x); e != nil {
						out, err := takeResult(env, x.DType, e.out)
						if err != nil {
							return nil, fmt.Errorf("%s: %w", op.Name, err)
						}
						e.plan.run(out.Data, 0, x.Data, 0)
						return []Value{out}, nil
					}
				}
			}
			return slow(env, op, in)
		}
	})
}

// transposePlan returns the cached plan for transposing x, planning it
// when the op or shape is new; nil when the copying kernel should run (a
// malformed op, an empty or packed operand: it reports the errors).
func transposePlan(op *stablehlo.Op, x *literal.Literal) *transposePlanEntry {
	esz := x.DType.Size()
	if esz <= 0 || int64(len(x.Data)) != int64(x.Len())*int64(esz) || x.Len() == 0 {
		return nil
	}
	if e, ok := transposePlans.get(op); ok {
		if e.esz == esz && slices.Equal(e.shape, x.Shape) {
			return e
		}
	}
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
	e := &transposePlanEntry{shape: slices.Clone(x.Shape), esz: esz, out: shape,
		plan: newCopyPlan(esz, shape, literal.Strides(shape), src)}
	transposePlans.put(op, e)
	return e
}
