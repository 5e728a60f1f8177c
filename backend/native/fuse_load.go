package native

import (
	"encoding/binary"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
)

// Reading leaves into rows and storing the result row, from and to
// little-endian literal bytes.

// loadRow decodes elements [c, c+len(dst)) of contiguous data.
func loadRow[T fnum](dst []T, data []byte, d dtype.DType, c int64) {
	switch d {
	case dtype.F32:
		b := data[4*c : 4*(c+int64(len(dst)))]
		k := 0
		if v := f32Bytes(b); v != nil {
			switch dv := any(dst).(type) {
			case []float32:
				copy(dv, v)
				return
			case []float64:
				if simdRows && len(v) >= 8 {
					k = len(v) &^ 7
					cvtF32F64(&dv[0], &v[0], k)
				}
			}
		}
		for ; k < len(dst); k++ {
			dst[k] = T(math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
		}
	case dtype.F64:
		b := data[8*c : 8*(c+int64(len(dst)))]
		for k := range dst {
			dst[k] = T(math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:])))
		}
	default:
		b := data[c : c+int64(len(dst))]
		k := 0
		if d32, ok := any(dst).([]float32); ok && simdRows && len(d32) >= 8 {
			k = len(d32) &^ 7
			boolsF32(&d32[0], &b[0], k) // a mask's bytes, 8 a step
		}
		for ; k < len(dst); k++ {
			dst[k] = f2b[T](b[k] != 0)
		}
	}
}

// loadStrided decodes the elements of a leaf read through strides for
// output elements [c, c+len(dst)), in runs along the innermost (collapsed)
// dim: a fill where its stride is 0, a contiguous decode where it is 1.
func loadStrided[T fnum](dst []T, data []byte, d dtype.DType, shape, st, idx []int64, c int64) {
	if d32, ok := any(dst).([]float32); ok && d == dtype.F32 && len(shape) > 0 {
		if src := f32Bytes(data); src != nil {
			loadStrided32(d32, src, shape, st, idx, c)
			return
		}
	}
	r := len(shape)
	if r == 0 {
		v := loadAt[T](data, d, 0)
		for k := range dst {
			dst[k] = v
		}
		return
	}
	off, rem := int64(0), c
	for j := r - 1; j >= 0; j-- {
		idx[j] = rem % shape[j]
		rem /= shape[j]
		off += idx[j] * st[j]
	}
	inner, is := shape[r-1], st[r-1]
	for k := 0; k < len(dst); {
		run := min(int64(len(dst)-k), inner-idx[r-1])
		seg := dst[k : k+int(run)]
		switch is {
		case 0:
			v := loadAt[T](data, d, off)
			for q := range seg {
				seg[q] = v
			}
		case 1:
			loadRow(seg, data, d, off)
		default:
			for q := range seg {
				seg[q] = loadAt[T](data, d, off+int64(q)*is)
			}
		}
		k += int(run)
		off += is * run
		idx[r-1] += run
		for j := r - 1; j > 0 && idx[j] == shape[j]; j-- {
			off -= st[j] * shape[j]
			idx[j] = 0
			idx[j-1]++
			off += st[j-1]
		}
	}
}

// loadStrided32 is loadStrided for float32 elements read as float32
// (the common case: a row's value broadcast along it, a bias along rows),
// without a decode per element: runs of one value filled, runs of
// contiguous ones copied.
func loadStrided32(dst, src []float32, shape, st, idx []int64, c int64) {
	r := len(shape)
	if r == 2 {
		// rows of a matrix (after collapsing, most leaves): no index carry
		inner, so, si := shape[1], st[0], st[1]
		o, i := c/inner, c%inner
		for k := 0; k < len(dst); o, i = o+1, 0 {
			run := min(int64(len(dst)-k), inner-i)
			loadRun32(dst[k:k+int(run)], src, o*so+i*si, si)
			k += int(run)
		}
		return
	}
	off, rem := int64(0), c
	for j := r - 1; j >= 0; j-- {
		idx[j] = rem % shape[j]
		rem /= shape[j]
		off += idx[j] * st[j]
	}
	inner, is := shape[r-1], st[r-1]
	for k := 0; k < len(dst); {
		run := min(int64(len(dst)-k), inner-idx[r-1])
		loadRun32(dst[k:k+int(run)], src, off, is)
		k += int(run)
		off += is * run
		idx[r-1] += run
		for j := r - 1; j > 0 && idx[j] == shape[j]; j-- {
			off -= st[j] * shape[j]
			idx[j] = 0
			idx[j-1]++
			off += st[j-1]
		}
	}
}

// loadRun32 reads seg from src at off, stride elements apart: one value
// filled (stride 0), a contiguous run copied (1), or gathered.
func loadRun32(seg, src []float32, off, stride int64) {
	switch stride {
	case 0:
		v := src[off]
		for q := range seg {
			seg[q] = v
		}
	case 1:
		copy(seg, src[off:off+int64(len(seg))])
	default:
		for q := range seg {
			seg[q] = src[off+int64(q)*stride]
		}
	}
}

func loadAt[T fnum](data []byte, d dtype.DType, off int64) T {
	switch d {
	case dtype.F32:
		return T(math.Float32frombits(binary.LittleEndian.Uint32(data[4*off:])))
	case dtype.F64:
		return T(math.Float64frombits(binary.LittleEndian.Uint64(data[8*off:])))
	}
	return f2b[T](data[off] != 0)
}

// collapseStrides drops unit dims and merges adjacent dims that a
// strided read walks as one (stride[i] == stride[i+1]*shape[i+1]).
func collapseStrides(shape, st []int64) ([]int64, []int64) {
	var cs, cst []int64
	for i, n := range shape {
		if n == 1 {
			continue
		}
		if k := len(cs) - 1; k >= 0 && cst[k] == st[i]*n {
			cs[k] *= n
			cst[k] = st[i]
			continue
		}
		cs = append(cs, n)
		cst = append(cst, st[i])
	}
	return cs, cst
}

// storeRow encodes values at elements [c, c+len(v)) of out.
func storeRow[T fnum](out []byte, d dtype.DType, c int, v []T) {
	switch d {
	case dtype.F32:
		b := out[4*c : 4*(c+len(v))]
		if v32, ok := any(v).([]float32); ok {
			if o := f32Bytes(b); o != nil {
				copy(o, v32)
				return
			}
		}
		for k, x := range v {
			binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(float32(x)))
		}
	case dtype.F64:
		b := out[8*c : 8*(c+len(v))]
		for k, x := range v {
			binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(float64(x)))
		}
	default:
		b := out[c : c+len(v)]
		for k, x := range v {
			b[k] = byte(b2i(x != 0))
		}
	}
}
