package native

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// The data-movement kernels (broadcast, transpose, slice, concatenate, pad,
// reverse, gather, ...) all reduce to one primitive: copy an N-d box of
// elements from a strided view of one buffer into a strided view of
// another. copyPlan does that on raw bytes, one dtype.Size() per element,
// so it serves every element type. It merges dims that are contiguous in
// both views and moves the innermost contiguous runs with copy().

// copyPlan copies a box of the given shape; strides are in elements and
// may be zero (broadcast) or negative (reverse).
type copyPlan struct {
	esz    int64
	shape  []int64 // merged outer dims (the innermost run excluded)
	dst    []int64 // dst strides of shape, in bytes
	src    []int64 // src strides of shape, in bytes
	inner  int64   // elements of the innermost dim
	dIn    int64   // dst stride of the innermost dim, bytes
	sIn    int64   // src stride of the innermost dim, bytes
	empty  bool
	runLen int64 // when >0, the innermost dim is contiguous in both: bytes per run
	// When tileN > 0, an outer dim (removed from shape) is contiguous in
	// src while the innermost dim is contiguous in dst (a transpose): the
	// two are copied together in square tiles, to stay in cache.
	tileN, tileDst, tileSrc int64
}

// copyTile is the tile edge of transposing copies, in elements.
const copyTile = 16

// newCopyPlan prepares a copy of a box of shape from src strides to dst
// strides (both in elements).
func newCopyPlan(esz int, shape, dstStrides, srcStrides []int64) *copyPlan {
	p := &copyPlan{esz: int64(esz)}
	var sh, ds, ss []int64
	for i, n := range shape {
		if n == 0 {
			p.empty = true
			return p
		}
		if n == 1 {
			continue
		}
		k := len(sh) - 1
		if k >= 0 && ds[k] == dstStrides[i]*n && ss[k] == srcStrides[i]*n {
			// The previous dim steps over exactly this whole dim in both views.
			sh[k] *= n
			ds[k] = dstStrides[i]
			ss[k] = srcStrides[i]
			continue
		}
		sh = append(sh, n)
		ds = append(ds, dstStrides[i])
		ss = append(ss, srcStrides[i])
	}
	if len(sh) == 0 {
		sh, ds, ss = []int64{1}, []int64{1}, []int64{1}
	}
	last := len(sh) - 1
	p.inner, p.dIn, p.sIn = sh[last], ds[last]*p.esz, ss[last]*p.esz
	if ds[last] == 1 && ss[last] == 1 {
		p.runLen = sh[last] * p.esz
	}
	for i := 0; i < last; i++ {
		if p.runLen == 0 && ds[last] == 1 && ss[last] != 0 && ss[i] == 1 && sh[i] >= copyTile/2 && sh[last] >= copyTile/2 && p.tileN == 0 {
			p.tileN, p.tileDst, p.tileSrc = sh[i], ds[i]*p.esz, p.esz
			continue
		}
		p.shape = append(p.shape, sh[i])
		p.dst = append(p.dst, ds[i]*p.esz)
		p.src = append(p.src, ss[i]*p.esz)
	}
	return p
}

// run copies the box whose first element is at element offset dOff in dst
// and sOff in src. Large boxes are split along their outermost dim over
// goroutines (the destination views are one-to-one, so the parts write
// disjoint bytes).
func (p *copyPlan) run(dst []byte, dOff int64, src []byte, sOff int64) {
	if p.empty {
		return
	}
	d, s := dOff*p.esz, sOff*p.esz
	if w := copyWorkers(p.bytes()); w > 1 {
		p.runPar(w, dst, d, src, s)
		return
	}
	p.runBytes(dst, d, src, s)
}

// copyParMin is the size from which a copy is split over goroutines
// (the batch/feature swaps feeding resnet18's weight gradients, 256-800
// KiB with runs of 16-196 floats, took 10.3 ms per backward serially on a
// loaded machine, 8.4 split; a fork-join costs ~1 µs). 64 KiB: GPT-2's
// attention transposes of 128 KiB, 21 µs each on one core, 0.33 → 0.28 ms
// per training forward split.
const copyParMin = 1 << 16

// copyWorkers is how many goroutines a copy of n bytes uses.
func copyWorkers(n int64) int {
	if n < copyParMin {
		return 1
	}
	return int(min(int64(Threads()), n/(copyParMin/2)))
}

// bytes is the size of the box in bytes.
func (p *copyPlan) bytes() int64 {
	n := p.inner * p.esz
	for _, d := range p.shape {
		n *= d
	}
	if p.tileN > 0 {
		n *= p.tileN
	}
	return n
}

// runPar splits the outermost dim (or the tile dim of a 2-d transpose)
// into w parts run concurrently.
func (p *copyPlan) runPar(w int, dst []byte, d int64, src []byte, s int64) {
	n, dStep, sStep := int64(0), int64(0), int64(0)
	switch {
	case len(p.shape) > 0:
		n, dStep, sStep = p.shape[0], p.dst[0], p.src[0]
	case p.tileN > 0:
		n, dStep, sStep = p.tileN, p.tileDst, p.tileSrc
	}
	if n < 2 {
		p.runBytes(dst, d, src, s)
		return
	}
	w = int(min(int64(w), n))
	// on the engine's loop pool (or the host's, when lent): parts as loop
	// indexes, a panic raised again here
	runParts(int(n), w, func(lo, hi int) {
		sub := *p
		if len(p.shape) > 0 {
			sub.shape = append([]int64{int64(hi - lo)}, p.shape[1:]...)
		} else {
			sub.tileN = int64(hi - lo)
		}
		sub.runBytes(dst, d+int64(lo)*dStep, src, s+int64(lo)*sStep)
	})
}

// shortRows is the longest innermost row of 1-, 4- or 8-byte elements
// that runBytes copies a whole plane of rows at a time (rowsOf): a call
// per row, of copy() or of inner1, costs more than such a row's elements.
const shortRows = 32

// shortRuns is the longest contiguous run (in both views), in 4-byte
// elements (64 bytes), that rowsOf copies element by element: longer
// ones go to copy(), whose call costs less than their elements one at a
// time.
const shortRuns = 16

// runBytes copies the box at byte offsets d and s, on this goroutine.
func (p *copyPlan) runBytes(dst []byte, d int64, src []byte, s int64) {
	r := len(p.shape)
	rows := (p.esz == 4 || p.esz == 8 || p.esz == 1) && p.tileN == 0 && r > 0 && (p.inner <= shortRows && p.runLen == 0 || p.inner*p.esz < shortRuns*4)
	if rows {
		r-- // the last outer dim goes to rowsOf
	}
	var idxBuf [8]int64
	idx := idxBuf[:0]
	if r <= len(idxBuf) {
		idx = idxBuf[:r]
	} else {
		idx = make([]int64, r)
	}
	for {
		switch {
		case rows && p.esz == 4:
			rowsOf[uint32](p, dst, d, src, s)
		case rows && p.esz == 8:
			rowsOf[uint64](p, dst, d, src, s) // a mask's int64 positions
		case rows:
			rowsOf[uint8](p, dst, d, src, s) // bools
		case p.tileN > 0:
			p.tiled(dst, d, src, s)
		default:
			p.inner1(dst, d, src, s)
		}
		k := r - 1
		for ; k >= 0; k-- {
			idx[k]++
			d += p.dst[k]
			s += p.src[k]
			if idx[k] < p.shape[k] {
				break
			}
			d -= p.dst[k] * p.shape[k]
			s -= p.src[k] * p.shape[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// tiled copies the (tile dim x innermost dim) plane in square tiles: a
// transpose. float32 planes go 8×8 blocks at a time through the vector
// transpose where it runs, their edges element by element.
func (p *copyPlan) tiled(dst []byte, d int64, src []byte, s int64) {
	if p.esz != 4 || !hasTranspose8 || p.sIn <= 0 || p.tileDst <= 0 || p.tileN < 8 || p.inner < 8 {
		p.tiledElems(dst, d, src, s, 0, p.tileN, 0, p.inner)
		return
	}
	jn, in := p.tileN/8*8, p.inner/8*8
	// the last bytes the blocks touch, checked once
	_ = dst[d+(jn-1)*p.tileDst+in*4-1]
	_ = src[s+(in-1)*p.sIn+jn*4-1]
	for jb := int64(0); jb < jn; jb += 8 {
		for ib := int64(0); ib < in; ib += 8 {
			transpose8x8F32(&dst[d+jb*p.tileDst+ib*4], int(p.tileDst), &src[s+jb*4+ib*p.sIn], int(p.sIn))
		}
	}
	p.tiledElems(dst, d, src, s, 0, jn, in, p.inner)
	p.tiledElems(dst, d, src, s, jn, p.tileN, 0, p.inner)
}

// tiledElems copies elements [j0, j1) of the tile dim × [i0, i1) of the
// innermost dim of the plane, element by element in square tiles.
func (p *copyPlan) tiledElems(dst []byte, d int64, src []byte, s int64, j0, j1, i0, i1 int64) {
	esz := p.esz
	for jb := j0; jb < j1; jb += copyTile {
		je := min(jb+copyTile, j1)
		for ib := i0; ib < i1; ib += copyTile {
			ie := min(ib+copyTile, i1)
			for j := jb; j < je; j++ {
				dd := d + j*p.tileDst + ib*p.dIn
				ss := s + j*p.tileSrc + ib*p.sIn
				switch esz {
				case 4:
					for i := ib; i < ie; i++ {
						binary.LittleEndian.PutUint32(dst[dd:], binary.LittleEndian.Uint32(src[ss:]))
						dd += p.dIn
						ss += p.sIn
					}
				case 8:
					for i := ib; i < ie; i++ {
						binary.LittleEndian.PutUint64(dst[dd:], binary.LittleEndian.Uint64(src[ss:]))
						dd += p.dIn
						ss += p.sIn
					}
				default:
					for i := ib; i < ie; i++ {
						copy(dst[dd:dd+esz], src[ss:ss+esz])
						dd += p.dIn
						ss += p.sIn
					}
				}
			}
		}
	}
}

// rowsOf copies the rows of the last outer dim, elements of T's size
// (4 bytes; 8, a mask's int64 positions; 1, bools), with the first
// element of the first row at byte offsets d and s: the range of bytes
// every row touches is checked once, then the elements move without
// bounds checks.
func rowsOf[T uint8 | uint32 | uint64](p *copyPlan, dst []byte, d int64, src []byte, s int64) {
	var z T
	esz := int64(unsafe.Sizeof(z))
	k := len(p.shape) - 1
	n, dStep, sStep := p.shape[k], p.dst[k], p.src[k]
	in, dIn, sIn := p.inner, p.dIn, p.sIn
	// offsets are linear in the row and the element: their extremes lie
	// at the corners
	check := func(buf []byte, base, step, elem int64) {
		lo, hi := base, base
		for _, o := range [3]int64{(n - 1) * step, (in - 1) * elem, (n-1)*step + (in-1)*elem} {
			lo, hi = min(lo, base+o), max(hi, base+o)
		}
		if lo < 0 || hi+esz > int64(len(buf)) {
			panic(fmt.Sprintf("copy of %d rows of %d elements: bytes [%d, %d) outside a buffer of %d", n, in, lo, hi+esz, len(buf)))
		}
	}
	check(dst, d, dStep, dIn)
	check(src, s, sStep, sIn)
	dp, sp := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	for r := int64(0); r < n; r++ {
		dd, ss := d+r*dStep, s+r*sStep
		for i := int64(0); i < in; i++ {
			*(*T)(unsafe.Add(dp, dd)) = *(*T)(unsafe.Add(sp, ss))
			dd += dIn
			ss += sIn
		}
	}
}

// inner1 copies one innermost row.
func (p *copyPlan) inner1(dst []byte, d int64, src []byte, s int64) {
	if p.runLen > 0 {
		copy(dst[d:d+p.runLen], src[s:s+p.runLen])
		return
	}
	esz := p.esz
	if p.sIn == 0 && p.dIn == esz {
		// Broadcast one element along a contiguous row: fill by doubling.
		n := p.inner * esz
		row := dst[d : d+n]
		copy(row[:esz], src[s:s+esz])
		for filled := esz; filled < n; filled *= 2 {
			copy(row[filled:], row[:filled])
		}
		return
	}
	switch esz {
	case 1:
		for i := int64(0); i < p.inner; i++ {
			dst[d] = src[s]
			d += p.dIn
			s += p.sIn
		}
	case 2:
		for i := int64(0); i < p.inner; i++ {
			dst[d], dst[d+1] = src[s], src[s+1]
			d += p.dIn
			s += p.sIn
		}
	case 4:
		for i := int64(0); i < p.inner; i++ {
			binary.LittleEndian.PutUint32(dst[d:], binary.LittleEndian.Uint32(src[s:]))
			d += p.dIn
			s += p.sIn
		}
	case 8:
		for i := int64(0); i < p.inner; i++ {
			binary.LittleEndian.PutUint64(dst[d:], binary.LittleEndian.Uint64(src[s:]))
			d += p.dIn
			s += p.sIn
		}
	default:
		for i := int64(0); i < p.inner; i++ {
			copy(dst[d:d+esz], src[s:s+esz])
			d += p.dIn
			s += p.sIn
		}
	}
}

// copyBox is a one-shot copyPlan.
func copyBox(esz int, shape []int64, dst []byte, dOff int64, dStrides []int64, src []byte, sOff int64, sStrides []int64) {
	newCopyPlan(esz, shape, dStrides, sStrides).run(dst, dOff, src, sOff)
}

// fillElem sets every element of dst (a dense buffer) to the esz bytes of
// elem, by doubling.
func fillElem(dst []byte, elem []byte) {
	esz := len(elem)
	if len(dst) == 0 || esz == 0 {
		return
	}
	copy(dst, elem)
	for filled := esz; filled < len(dst); filled *= 2 {
		copy(dst[filled:], dst[:filled])
	}
}
