package native

import (
	"encoding/binary"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Fast paths of the elementwise loops for the common f32, f64, i32 and i64
// types: they read and write the little-endian bytes directly instead of
// going through the generic per-element accessors. The results are the
// same (f32 is still computed in float64 and rounded once).

// ewGrain is the element count above which a loop is split across
// goroutines.
const ewGrain = 1 << 15

// ewChunks runs body over [0, n) in chunks, concurrently for large n
// (from two grains up).
func ewChunks(n int, body func(lo, hi int)) { parallelRange(n, ewGrain, body) }

func fastUnary(fns unaryFns, x, out *literal.Literal) bool {
	n := x.Len()
	xd, od := x.Data, out.Data
	switch {
	case x.DType == dtype.F32 && fns.v32 != nil:
		xs, os := f32Bytes(xd), f32Bytes(od)
		if xs == nil || os == nil {
			ewChunks(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					v := math.Float32frombits(binary.LittleEndian.Uint32(xd[4*i:]))
					binary.LittleEndian.PutUint32(od[4*i:], math.Float32bits(fns.s32(v)))
				}
			})
			break
		}
		ewChunks(n, func(lo, hi int) { fns.v32(os[lo:hi], xs[lo:hi]) })
	case x.DType == dtype.F32 && fns.f != nil:
		ewChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				v := float64(math.Float32frombits(binary.LittleEndian.Uint32(xd[4*i:])))
				binary.LittleEndian.PutUint32(od[4*i:], math.Float32bits(float32(fns.f(v))))
			}
		})
	case x.DType == dtype.F64 && fns.f != nil:
		ewChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				v := math.Float64frombits(binary.LittleEndian.Uint64(xd[8*i:]))
				binary.LittleEndian.PutUint64(od[8*i:], math.Float64bits(fns.f(v)))
			}
		})
	case x.DType == dtype.I32 && fns.s != nil:
		ewChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				v := int64(int32(binary.LittleEndian.Uint32(xd[4*i:])))
				binary.LittleEndian.PutUint32(od[4*i:], uint32(fns.s(v, dtype.I32)))
			}
		})
	case x.DType == dtype.I64 && fns.s != nil:
		ewChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				v := int64(binary.LittleEndian.Uint64(xd[8*i:]))
				binary.LittleEndian.PutUint64(od[8*i:], uint64(fns.s(v, dtype.I64)))
			}
		})
	default:
		return false
	}
	return true
}

func fastBinary(fns binaryFns, x, y, out *literal.Literal) bool {
	n := x.Len()
	xd, yd, od := x.Data, y.Data, out.Data
	switch {
	case x.DType == dtype.F32 && fns.f != nil:
		ewChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				a := float64(math.Float32frombits(binary.LittleEndian.Uint32(xd[4*i:])))
				b := float64(math.Float32frombits(binary.LittleEndian.Uint32(yd[4*i:])))
				binary.LittleEndian.PutUint32(od[4*i:], math.Float32bits(float32(fns.f(a, b))))
			}
		})
	case x.DType == dtype.F64 && fns.f != nil:
		ewChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				a := math.Float64frombits(binary.LittleEndian.Uint64(xd[8*i:]))
				b := math.Float64frombits(binary.LittleEndian.Uint64(yd[8*i:]))
				binary.LittleEndian.PutUint64(od[8*i:], math.Float64bits(fns.f(a, b)))
			}
		})
	case x.DType == dtype.I32 && fns.s != nil:
		ewChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				a := int64(int32(binary.LittleEndian.Uint32(xd[4*i:])))
				b := int64(int32(binary.LittleEndian.Uint32(yd[4*i:])))
				binary.LittleEndian.PutUint32(od[4*i:], uint32(fns.s(a, b, dtype.I32)))
			}
		})
	case x.DType == dtype.I64 && fns.i64 != nil && elems[int64](xd) != nil && elems[int64](yd) != nil && elems[int64](od) != nil:
		a, b, o := elems[int64](xd), elems[int64](yd), elems[int64](od)
		ewChunks(n, func(lo, hi int) { fns.i64(o[lo:hi], a[lo:hi], b[lo:hi]) })
	case x.DType == dtype.I64 && fns.s != nil:
		ewChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				a := int64(binary.LittleEndian.Uint64(xd[8*i:]))
				b := int64(binary.LittleEndian.Uint64(yd[8*i:]))
				binary.LittleEndian.PutUint64(od[8*i:], uint64(fns.s(a, b, dtype.I64)))
			}
		})
	default:
		return false
	}
	return true
}
