package native

// Max pooling by rows of vectors: for one row of interior outputs, the
// maximum over the window's rows is taken column by column (a vector
// maximum of whole input rows), then over the window's columns (the same
// on that row shifted by the dilation), and every stride-th element is an
// output. This reorders the maxima, which is exact for operands that are
// not NaN (the maximum is then associative and commutative); a row whose
// windows hold a NaN is redone by the scalar loops.

import "math"

// maxRows sets d[i] = max(a[i], b[i]) for i < len(d) (the generic maximum
// where neither is NaN) and reports whether any was NaN.
func maxRows(d, a, b []float32) bool {
	n := len(d)
	a, b = a[:n], b[:n]
	n8 := n &^ 7
	nan := false
	if n8 > 0 {
		nan = maxExact8(&d[0], &a[0], &b[0], n8)
	}
	for i := n8; i < n; i++ {
		x, y := a[i], b[i]
		nan = nan || x != x || y != y
		d[i] = max(x, y)
	}
	return nan
}

// interiorRowMaxSIMD is interiorRow for maxima by vectors, with buf of at
// least 2*p.w elements, over the window rows [i0, i1) (those inside the
// plane; i0 < i1) and columns that are all inside. It reports false,
// leaving out unspecified, where a window holds a NaN.
func (p *pool2d) interiorRowMaxSIMD(src, out []float32, oy, ox0 int, buf []float32, i0, i1 int) bool {
	n := len(out)
	if n == 0 {
		return true
	}
	w, dh, dw, sw := p.w, p.dh, p.dw, p.sw
	y0 := oy*p.sh - p.pt
	x0 := ox0*sw - p.pl
	span := (n-1)*sw + 1       // columns of h read
	cols := span + (p.kw-1)*dw // columns of the input read
	row := func(i int) []float32 {
		o := (y0+i*dh)*w + x0
		return src[o : o+cols]
	}
	c := row(i0)
	if i1-i0 > 1 {
		c = buf[:cols]
		if maxRows(c, row(i0), row(i0+1)) {
			return false
		}
		for i := i0 + 2; i < i1; i++ {
			if maxRows(c, c, row(i)) {
				return false
			}
		}
	}
	h := c[:span]
	if p.kw > 1 {
		h = buf[w : w+span]
		if maxRows(h, c, c[dw:]) {
			return false
		}
		for j := 2; j < p.kw; j++ {
			if maxRows(h, h, c[j*dw:]) {
				return false
			}
		}
	}
	// A one-tap window took no maxRows: its NaNs show here.
	one := i1-i0 == 1 && p.kw == 1
	init := p.init
	if math.IsInf(float64(init), -1) && !one {
		// max(-Inf, v) is v for v not NaN (checked above).
		for i := range out {
			out[i] = h[i*sw]
		}
		return true
	}
	for i := range out {
		v := h[i*sw]
		if v != v {
			return false
		}
		out[i] = max(init, v)
	}
	return true
}
