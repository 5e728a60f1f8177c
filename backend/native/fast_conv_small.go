package native

// smallWorkPerThread is the multiply-adds of direct convolution below which
// one more thread costs more than it saves.
const smallWorkPerThread = 32 << 10

// runSmall computes a convolution whose per-group product is below
// fastGemmMinFlops multiply-adds (tiny layers), or whose kernel covers
// the whole image (squeeze-and-excitation's 1×1 convolutions of a pooled
// [b, c, 1, 1] tensor: a matrix-vector product), directly, on one
// thread: each output element is the float32 sum over input channel,
// kernel row and kernel column, in that order, of the taps inside the
// image (dot32's order for a kernel covering the image). Before, the
// small ones took the exact kernel, which decodes the weights and
// transposes them on every run, and the matrix-vector products the
// GEMM, which packs a one-column B.
//
// The loops run tap by tap over whole output rows (smallPlane): each
// output element still sums the same products in the same order, but the
// inner loop is a branch-free multiply-add along a row.
func (c *conv2d) runSmall(dst []float32) {
	ocPer, k, n, hw := c.outC/c.groups, c.kerC*c.kh*c.kw, c.oh*c.ow, c.h*c.w
	c.epiRuns(n)
	plane := func(i int) {
		b, oc := i/c.outC, i%c.outC
		g := oc / ocPer
		w := c.rhs[oc*k : (oc+1)*k]
		out := dst[(b*c.outC+oc)*n : (b*c.outC+oc+1)*n]
		in := c.lhs[(b*c.inC+g*c.kerC)*hw : (b*c.inC+(g+1)*c.kerC)*hw]
		if n == 1 && c.kh == c.h && c.kw == c.w && c.padT == 0 && c.padL == 0 {
			// the kernel covers the whole image: a dot product
			out[0] = dot32(w, in)
			return
		}
		c.smallPlane(out, w, in)
	}
	if n == 1 && c.kh == c.h && c.kw == c.w && c.padT == 0 && c.padL == 0 && c.groups == 1 && gemvPackedOK {
		// the kernel covers the whole image, one group: per image a
		// matrix-vector product of the weights [outC, k] and the image
		g := prepackedGemv(c.weight, c.op, 1, c.kernel, c.rhs, k, c.outC, k)
		for b := 0; b < c.batch; b++ {
			x, y := c.lhs[b*c.inC*hw:b*c.inC*hw+k], dst[b*c.outC:(b+1)*c.outC]
			if g != nil {
				g.run(x, y) // a frozen weight packed in blocks of rows
			} else {
				gemvParallel(x, c.rhs, k, y)
			}
		}
		c.finish(0, 0, ocPer, 0, c.batch*n)
		return
	}
	planes := c.batch * c.outC
	// The planes are independent: above a few tens of thousands of
	// multiply-adds they are shared among the threads (each plane is
	// computed whole by one thread, so results do not depend on the split).
	threads := min(Threads(), planes, max(1, planes*n*k/smallWorkPerThread))
	if threads > 1 {
		parallel(threads, planes, plane)
	} else {
		for i := 0; i < planes; i++ {
			plane(i)
		}
	}
	for g := 0; g < c.groups; g++ {
		c.finish(g, 0, ocPer, 0, c.batch*n)
	}
}

// dot32 is the float32 dot product of a and b (b at least as long as a),
// summed in eight interleaved partial sums (element i into sum i%8) that
// are then added pairwise.
func dot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
		s4 += a[i+4] * b[i+4]
		s5 += a[i+5] * b[i+5]
		s6 += a[i+6] * b[i+6]
		s7 += a[i+7] * b[i+7]
	}
	for j := 0; i < len(a); i, j = i+1, j+1 {
		switch j {
		case 0:
			s0 += a[i] * b[i]
		case 1:
			s1 += a[i] * b[i]
		case 2:
			s2 += a[i] * b[i]
		case 3:
			s3 += a[i] * b[i]
		case 4:
			s4 += a[i] * b[i]
		case 5:
			s5 += a[i] * b[i]
		case 6:
			s6 += a[i] * b[i]
		}
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// smallPlane computes one output plane (one batch element, one output
// channel) of runSmall: out[oy][ox] = sum over ic, ky, kx (in that order)
// of w[ic][ky][kx] * in[ic][iy][ix] for the taps inside the image. The
// taps are visited in that order for a whole output row at a time.
func (c *conv2d) smallPlane(out, w, in []float32) {
	hw := c.h * c.w
	for oy := 0; oy < c.oh; oy++ {
		orow := out[oy*c.ow : (oy+1)*c.ow]
		clear(orow)
		for ic := 0; ic < c.kerC; ic++ {
			img := in[ic*hw : (ic+1)*hw]
			for ky := 0; ky < c.kh; ky++ {
				iy := oy*c.sh - c.padT + ky*c.dh
				if iy < 0 || iy >= c.h {
					continue
				}
				row := img[iy*c.w : (iy+1)*c.w]
				wr := w[(ic*c.kh+ky)*c.kw : (ic*c.kh+ky+1)*c.kw]
				for kx, wv := range wr {
					off := kx*c.dw - c.padL
					lo, hi := c.validRange(off, c.sw, c.w, c.ow)
					if lo >= hi {
						continue
					}
					if c.sw == 1 {
						src := row[lo+off : hi+off]
						dst := orow[lo:hi]
						dst = dst[:len(src)]
						for i, v := range src {
							dst[i] += wv * v
						}
						continue
					}
					for ox := lo; ox < hi; ox++ {
						orow[ox] += wv * row[ox*c.sw+off]
					}
				}
			}
		}
	}
}
