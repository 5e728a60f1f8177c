package native

// Interior outputs of the pooling fast path: windows that lie inside the
// plane, so no tap reads padding and none needs a bounds test.
//
// Sums fold in the generic order (init, then window rows, then columns),
// one float32 addition at a time, so the bits are the generic kernel's.
// Maxima use the builtin max, which is branch-free and, for operands that
// are not NaN, the generic maximum (+0 above -0); max is then associative
// and commutative, so its order does not matter. A NaN result means the
// window held a NaN; plane folds those outputs again the generic way, which
// picks the NaN the generic kernel picks.

// interiorRow computes out[i], the output (oy, ox0+i), for interior
// outputs.
func (p *pool2d) interiorRow(src, out []float32, oy, ox0 int) {
	w, sw, dw, dh := p.w, p.sw, p.dw, p.dh
	y0 := oy*p.sh - p.pt
	x := ox0*sw - p.pl
	init := p.init
	switch {
	case p.kh == 3 && p.kw == 3:
		r0 := src[y0*w : y0*w+w]
		r1 := src[(y0+dh)*w : (y0+dh)*w+w]
		r2 := src[(y0+2*dh)*w : (y0+2*dh)*w+w]
		if p.max {
			if dw == 1 && sw == 2 {
				maxRow3x3s2(out, r0, r1, r2, x, init)
				return
			}
			for i := range out {
				out[i] = max(init, r0[x], r0[x+dw], r0[x+2*dw], r1[x], r1[x+dw], r1[x+2*dw], r2[x], r2[x+dw], r2[x+2*dw])
				x += sw
			}
			return
		}
		for i := range out {
			acc := init
			acc += r0[x]
			acc += r0[x+dw]
			acc += r0[x+2*dw]
			acc += r1[x]
			acc += r1[x+dw]
			acc += r1[x+2*dw]
			acc += r2[x]
			acc += r2[x+dw]
			acc += r2[x+2*dw]
			out[i] = acc
			x += sw
		}
	case p.kh == 2 && p.kw == 2:
		r0 := src[y0*w : y0*w+w]
		r1 := src[(y0+dh)*w : (y0+dh)*w+w]
		if p.max {
			for i := range out {
				out[i] = max(init, r0[x], r0[x+dw], r1[x], r1[x+dw])
				x += sw
			}
			return
		}
		for i := range out {
			acc := init
			acc += r0[x]
			acc += r0[x+dw]
			acc += r1[x]
			acc += r1[x+dw]
			out[i] = acc
			x += sw
		}
	default:
		for i := range out {
			acc := init
			for a := 0; a < p.kh; a++ {
				r := src[(y0+a*dh)*w : (y0+a*dh)*w+w]
				if p.max {
					for b := 0; b < p.kw; b++ {
						acc = max(acc, r[x+b*dw])
					}
				} else {
					for b := 0; b < p.kw; b++ {
						acc += r[x+b*dw]
					}
				}
			}
			out[i] = acc
			x += sw
		}
	}
}

// maxRow3x3s2 is the 3×3, stride 2 max pool of ResNet's stem: adjacent
// windows share a column, so each column's maximum over the three rows is
// taken once.
func maxRow3x3s2(out, r0, r1, r2 []float32, x int, init float32) {
	if len(out) == 0 {
		return
	}
	// Columns x .. x+2*len(out) are inside every row.
	n := 2*len(out) + 1
	r0, r1, r2 = r0[x:x+n], r1[x:x+n], r2[x:x+n]
	prev := max(init, r0[0], r1[0], r2[0])
	for i := range out {
		c := 2*i + 1
		m1 := max(r0[c], r1[c], r2[c])
		m2 := max(r0[c+1], r1[c+1], r2[c+1])
		out[i] = max(prev, m1, m2)
		prev = max(init, m2)
	}
}
