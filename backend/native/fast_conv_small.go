package native

// runSmall computes a convolution whose per-group product is below
// fastGemmMinFlops multiply-adds (squeeze-and-excitation's 1×1
// convolutions of a pooled [b, c, 1, 1] tensor, tiny layers) directly,
// on one thread: each output element is the float32 sum over input
// channel, kernel row and kernel column, in that order, of the taps
// inside the image. Before, such convolutions took the exact kernel,
// which decodes the weights and transposes them on every run.
func (c *conv2d) runSmall(dst []float32) {
	ocPer, k, n, hw := c.outC/c.groups, c.kerC*c.kh*c.kw, c.oh*c.ow, c.h*c.w
	c.epiRuns(n)
	for b := 0; b < c.batch; b++ {
		for oc := 0; oc < c.outC; oc++ {
			g := oc / ocPer
			w := c.rhs[oc*k : (oc+1)*k]
			out := dst[(b*c.outC+oc)*n : (b*c.outC+oc+1)*n]
			in := c.lhs[(b*c.inC+g*c.kerC)*hw : (b*c.inC+(g+1)*c.kerC)*hw]
			if n == 1 && c.kh == c.h && c.kw == c.w && c.padT == 0 && c.padL == 0 {
				// the kernel covers the whole image: a dot product
				var acc float32
				for i, v := range w {
					acc += v * in[i]
				}
				out[0] = acc
				continue
			}
			for oy := 0; oy < c.oh; oy++ {
				for ox := 0; ox < c.ow; ox++ {
					var acc float32
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
								ix := ox*c.sw - c.padL + kx*c.dw
								if ix >= 0 && ix < c.w {
									acc += wv * row[ix]
								}
							}
						}
					}
					out[oy*c.ow+ox] = acc
				}
			}
		}
	}
	for g := 0; g < c.groups; g++ {
		c.finish(g, 0, ocPer, 0, c.batch*n)
	}
}
