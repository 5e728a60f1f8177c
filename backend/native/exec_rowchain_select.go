package native

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// A row chain's selects: by a comparison of per-row values (stepSelect,
// cmp32) and by a bool tensor (stepMask).
//
// The select by a bool tensor: attention's scores masked by a causal or
// padding mask, select(mask, scores, −∞), where the mask is broadcast
// over the heads. Row r of the chain reads the mask's elements from an
// offset its row index gives (the mask's strides over the row dims; its
// rows' elements contiguous), so runs of rows whose mask rows lie end to
// end (a head's queries) are one call of the vector loop (selMask)
// instead of the chunked loop's strided gather, float conversion and
// blend.

// maskRows is where each row of a chain finds its row of a mask.
type maskRows struct {
	rdims  []int64 // the chain's row dims
	stride []int64 // the mask's element stride per row dim
	span   int64   // elements the rows reach: the mask holds at least these
}

// maxMaskDims bounds the row dims a mask walks (its index lives on the
// stack).
const maxMaskDims = 8

// maskArg classifies a bool leaf of a chain's group over rows rdims of
// inner elements: its elements within a row contiguous (innerStrides,
// the group's strides inside a row), any strides over the rows (0 where
// broadcast).
func maskArg(nd *fuseNode, node int, rdims []int64, inner int, innerStrides []int64) (chainArg, bool) {
	nR := len(rdims)
	if nR == 0 || nR > maxMaskDims {
		return chainArg{}, false
	}
	m := &maskRows{rdims: rdims, stride: make([]int64, nR)}
	if nd.strides == nil {
		for d, s := range literal.Strides(rdims) {
			m.stride[d] = s * int64(inner)
		}
	} else {
		if len(nd.strides) != nR+len(innerStrides) {
			return chainArg{}, false
		}
		for d, s := range nd.strides {
			if d >= nR && s != innerStrides[d-nR] {
				return chainArg{}, false
			}
		}
		copy(m.stride, nd.strides[:nR])
	}
	m.span = int64(inner)
	for d, s := range m.stride {
		if s < 0 {
			return chainArg{}, false
		}
		m.span += (rdims[d] - 1) * s
	}
	return chainArg{kind: caMask, node: node, mask: m}, true
}

// needMask binds a mask operand for a run: a bool tensor reaching the
// rows' span, apart from the chain's output o (whose rows a later row's
// mask would otherwise read after they were written).
func (d *chainData) needMask(a chainArg, leaves []*literal.Literal, o span) bool {
	l := leaves[a.node]
	if l == nil || l.DType != dtype.Bool || int64(len(l.Data)) < a.mask.span || o.overlaps(spanOf(l.Data)) {
		return false
	}
	d.masks[a.node] = l.Data
	return true
}

// rowWalk visits the mask offsets of consecutive rows (an odometer over
// the row dims: no division per row).
type rowWalk struct {
	m   *maskRows
	idx [maxMaskDims]int64
	off int64
}

// walkFrom starts a walk at row r.
func (m *maskRows) walkFrom(r int) rowWalk {
	w := rowWalk{m: m}
	rem := int64(r)
	for d := len(m.rdims) - 1; d >= 0; d-- {
		w.idx[d] = rem % m.rdims[d]
		rem /= m.rdims[d]
		w.off += w.idx[d] * m.stride[d]
	}
	return w
}

// next moves the walk to the next row.
func (w *rowWalk) next() {
	m := w.m
	for d := len(m.rdims) - 1; d >= 0; d-- {
		w.idx[d]++
		w.off += m.stride[d]
		if w.idx[d] < m.rdims[d] {
			return
		}
		w.off -= m.stride[d] * m.rdims[d]
		w.idx[d] = 0
	}
}

// maskRows runs a stepMask over rows [r0, r1) of n elements: x the
// chain's value for them, dst where it goes (may be x). Rows whose mask
// rows lie end to end and share the value are one call.
func (st *chainStep) maskRows(d *chainData, r0, r1, n int, dst, x []float32) {
	m := d.masks[st.mask.node]
	w := st.mask.mask.walkFrom(r0)
	for r := r0; r < r1; {
		off := w.off
		k := 1
		w.next()
		if st.arg.kind == caConst {
			for r+k < r1 && w.off == off+int64(k*n) {
				k++
				w.next()
			}
		}
		lo, hi := (r-r0)*n, (r-r0+k)*n
		selMask(dst[lo:hi], x[lo:hi], m[off:off+int64(k*n)], d.value(st.arg, r), st.left)
		r += k
	}
}

// maskSeg runs a stepMask over columns [j0, j0+len(dst)) of row r (a
// product's epilogue segment).
func (st *chainStep) maskSeg(d *chainData, r, j0 int, dst, x []float32) {
	w := st.mask.mask.walkFrom(r)
	off := w.off + int64(j0)
	selMask(dst, x, d.masks[st.mask.node][off:off+int64(len(dst))], d.value(st.arg, r), st.left)
}

// cmpDirOK reports whether cmp32 knows a comparison direction.
func cmpDirOK(dir string) bool {
	switch dir {
	case "EQ", "NE", "LT", "LE", "GT", "GE":
		return true
	}
	return false
}

// cmp32 is the IEEE comparison of a fused compare (false for NaN but NE).
func cmp32(a, b float32, dir string) bool {
	switch dir {
	case "EQ":
		return a == b
	case "NE":
		return a != b
	case "LT":
		return a < b
	case "LE":
		return a <= b
	case "GT":
		return a > b
	}
	return a >= b // GE
}
