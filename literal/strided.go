package literal

import "unsafe"

// Gather copies the elements of a strided tensor in store (element
// strides, from element offset; every element inside store, as the caller
// checked) into flat in row-major order.
func Gather(flat, store []byte, offset int64, shape, strides []int64, size int64) {
	stridedCopy(flat, store, offset, shape, strides, size, false)
}

// Scatter copies the row-major elements of flat into the strided tensor in
// store: Gather's inverse. Where the layout addresses one element more
// than once (a stride of 0) the last write wins.
func Scatter(store, flat []byte, offset int64, shape, strides []int64, size int64) {
	stridedCopy(flat, store, offset, shape, strides, size, true)
}

// stridedCopy moves the elements of a strided tensor between store and
// flat, row-major: into flat, or into store when scatter is set. Dims of one element are dropped and dims that are
// contiguous with the next merged, so that a transposed or sliced
// activation (the heads of an attention, saved for the backward) moves in
// runs of its inner dim with the offset kept as it advances, not
// recomputed from every index; an inner stride other than 1 moves 4- and
// 8-byte elements in a typed loop.
func stridedCopy(flat, store []byte, offset int64, shape, strides []int64, size int64, scatter bool) {
	var ext, st [16]int64
	dims, n := collapseDims(shape, strides, ext[:0], st[:0])
	if n == 0 {
		return
	}
	r := len(dims.ext)
	inner, istride := dims.ext[r-1], dims.st[r-1]
	outer := dims.ext[:r-1]
	ostr := dims.st[:r-1]
	var idxA [16]int64
	idx := idxA[:]
	if len(outer) > len(idxA) {
		idx = make([]int64, len(outer))
	}
	off, o := offset, int64(0)
	rows := n / inner
	for k := int64(0); k < rows; k++ {
		moveRun(flat[o*size:(o+inner)*size], store, off, inner, istride, size, scatter)
		o += inner
		for i := len(outer) - 1; i >= 0; i-- {
			idx[i]++
			off += ostr[i]
			if idx[i] < outer[i] {
				break
			}
			off -= idx[i] * ostr[i]
			idx[i] = 0
		}
	}
}

// moveRun moves one row of inner elements, element stride istride from
// element off of store, to or from the row-major run f.
func moveRun(f, store []byte, off, inner, istride, size int64, scatter bool) {
	if istride == 1 {
		s := store[off*size : (off+inner)*size]
		if scatter {
			copy(s, f)
		} else {
			copy(f, s)
		}
		return
	}
	last := (off + (inner-1)*istride + 1) * size
	s := store[off*size : last]
	aligned := uintptr(unsafe.Pointer(&s[0]))%uintptr(size) == 0 && uintptr(unsafe.Pointer(&f[0]))%uintptr(size) == 0
	switch {
	case size == 4 && aligned:
		moveTyped[uint32](f, s, inner, istride, scatter)
	case size == 8 && aligned:
		moveTyped[uint64](f, s, inner, istride, scatter)
	default:
		for j := int64(0); j < inner; j++ {
			e := s[j*istride*size : j*istride*size+size]
			if scatter {
				copy(e, f[j*size:(j+1)*size])
			} else {
				copy(f[j*size:(j+1)*size], e)
			}
		}
	}
}

// moveTyped is moveRun's loop for elements of T's size, both memories
// aligned to it: element j of the run f is element j·istride of s.
func moveTyped[T uint32 | uint64](f, s []byte, inner, istride int64, scatter bool) {
	var e T
	size := int(unsafe.Sizeof(e))
	a := unsafe.Slice((*T)(unsafe.Pointer(&s[0])), len(s)/size)
	b := unsafe.Slice((*T)(unsafe.Pointer(&f[0])), inner)
	if scatter {
		for j, v := range b {
			a[int64(j)*istride] = v
		}
		return
	}
	for j := range b {
		b[j] = a[int64(j)*istride]
	}
}

// collapsed is a strided layout with unit dims dropped and contiguous dims
// merged (at least one dim).
type collapsed struct{ ext, st []int64 }

// collapseDims returns the layout of shape and strides collapsed, and the
// element count (0: nothing to move).
func collapseDims(shape, strides []int64, ext, st []int64) (collapsed, int64) {
	n := int64(1)
	for i, e := range shape {
		n *= e
		if e == 1 {
			continue
		}
		if k := len(ext) - 1; k >= 0 && st[k] == strides[i]*e {
			ext[k] *= e
			st[k] = strides[i]
			continue
		}
		ext, st = append(ext, e), append(st, strides[i])
	}
	if len(ext) == 0 {
		ext, st = append(ext, 1), append(st, 1)
	}
	return collapsed{ext, st}, n
}
