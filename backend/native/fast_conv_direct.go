package native

// Direct convolutions for layers with few input channels and a wide
// output (a network's stem: 3 channels, 3×3 or 7×7 windows, stride 2):
// as an implicit GEMM their B operand, the im2col matrix, has only
// c·kh·kw rows, and gathering each panel of it cost about as much as the
// product (MobileNetV2's stem ran at 27 GFLOP/s per core). Here the input
// is copied once into zero-padded phase planes (fillPhase: per channel
// and column phase modulo the stride), and the micro-kernel reads each
// tap's 32 outputs' inputs straight from them, against the weights packed
// into panels of 8 output channels (a stem's 16, 32 or 64 channels fill
// them exactly; prepacked per weight literal). Each output row is 32 columns at a time; sums run over the
// taps in the im2col order with fused multiply-adds, as the GEMM's.

import (
	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// convTileFunc is a direct convolution tile's signature: the first rows
// (≤ 8) rows of an 8×32 tile of C[r][j] = Σ_k a[8k + r] · b[offs[k]/4 + j],
// rows ldc floats apart (convTile, per architecture).
type convTileFunc = func(kc int, a *float32, offs *int, b *float32, c *float32, ldc int, rows int)

// convDirectEnabled switches the direct path (tests compare both).
var convDirectEnabled = convDirectOK

// convDirectMaxK bounds c·kh·kw for the direct path: few enough channels
// that the phase planes stay small.
const convDirectMaxK = 160

// convDirectBandRun is the positions per channel from which a band of
// output rows is finished in one epilogue call.
const convDirectBandRun = 256

// useDirectConv reports whether runDirectConv takes c.
func (c *conv2d) useDirectConv() bool {
	k := c.kerC * c.kh * c.kw
	return convDirectEnabled && c.groups == 1 && c.kh*c.kw > 1 && k <= convDirectMaxK && c.ow >= 16
}

// runDirectConv computes c into dst ([batch, outC, oh, ow]).
func (c *conv2d) runDirectConv(dst []float32) {
	k := c.kerC * c.kh * c.kw
	n := c.oh * c.ow
	a8 := c.directWeights()
	panels := (c.outC + 7) / 8
	spanH, spanW := (c.kh-1)*c.dh+1, (c.kw-1)*c.dw+1
	ph := (c.oh-1)*c.sh + spanH
	pwp := roundUpInt(c.ow, 32) + (spanW-1)/c.sw // columns per phase plane: whole tiles
	plane := ph * pwp
	hw := c.h * c.w
	planes := gemm.GetBuffer(c.kerC * c.sw * plane)
	defer gemm.PutBuffer(planes)
	// the taps' offsets from an output row's source, in the im2col order
	base := make([]int, k)
	for ci := 0; ci < c.kerC; ci++ {
		for ky := 0; ky < c.kh; ky++ {
			for kx := 0; kx < c.kw; kx++ {
				tx := kx * c.dw
				base[(ci*c.kh+ky)*c.kw+kx] = (ci*c.sw+tx%c.sw)*plane + ky*c.dh*pwp + tx/c.sw
			}
		}
	}
	work := int64(c.outC) * int64(n) * int64(k)
	threads := int(min(int64(Threads()), int64(c.oh), max(1, work/convWorkPerThread)))
	// bands of output rows, each finished (its epilogue run) in one call:
	// runs of at least convDirectBandRun positions per channel where the
	// threads still get several bands each (row by row, a MobileNet
	// stem's epilogue cost more than its products: 16 channels × 64 rows
	// of 64 positions, an activation call each)
	rb := max(1, min((convDirectBandRun+c.ow-1)/c.ow, c.oh/(convItemsPerThread*threads)))
	bands := (c.oh + rb - 1) / rb
	c.epiRuns(rb * c.ow)
	// fill writes the phase planes' rows [r0, r1) of image b
	fill := func(b, r0, r1 int) {
		for ci := 0; ci < c.kerC; ci++ {
			img := c.lhs[(b*c.inC+ci)*hw:][:hw]
			for p := 0; p < c.sw; p++ {
				c.fillPhase(planes[(ci*c.sw+p)*plane+r0*pwp:][:(r1-r0)*pwp], img, p, r0, r1-r0, pwp)
			}
		}
	}
	for b := 0; b < c.batch; b++ {
		if threads > 1 {
			// each band fills the plane rows its own output rows start
			// at (the last band the rest), on the core that will read
			// them: filled by the caller alone, a stem's planes were a
			// serial copy, and half of them then crossed to the other core
			parallel(threads, bands, func(bi int) {
				r1 := ph
				if bi < bands-1 {
					r1 = (bi + 1) * rb * c.sh
				}
				fill(b, min(ph, bi*rb*c.sh), r1)
			})
		} else {
			fill(b, 0, ph)
		}
		out := dst[b*c.outC*n:]
		row := func(oy int, offs *[convDirectMaxK]int, tile *[8 * 32]float32) {
			for t, o := range base {
				offs[t] = 4 * (o + oy*c.sh*pwp)
			}
			for ox := 0; ox < c.ow; ox += 32 {
				cols := min(32, c.ow-ox)
				for pi := 0; pi < panels; pi++ {
					rows := min(8, c.outC-pi*8)
					a := a8[pi*8*k : (pi+1)*8*k]
					o := out[pi*8*n+oy*c.ow+ox:]
					if cols == 32 {
						_ = o[(rows-1)*n+31]
						convTile(k, &a[0], &offs[0], &planes[ox], &o[0], n, rows)
						continue
					}
					convTile(k, &a[0], &offs[0], &planes[ox], &tile[0], 32, rows)
					for r := 0; r < rows; r++ {
						copy(o[r*n:r*n+cols], tile[r*32:r*32+cols])
					}
				}
			}
		}
		band := func(bi int) {
			var offs [convDirectMaxK]int
			var tile [8 * 32]float32
			y0, y1 := bi*rb, min(c.oh, (bi+1)*rb)
			for oy := y0; oy < y1; oy++ {
				row(oy, &offs, &tile)
			}
			c.finish(0, 0, c.outC, b*n+y0*c.ow, b*n+y1*c.ow)
		}
		if threads > 1 {
			parallel(threads, bands, band)
		} else {
			for bi := 0; bi < bands; bi++ {
				band(bi)
			}
		}
	}
}

// directWeights returns the weights packed in panels of 8 output
// channels, 8 values per k step (zero rows past outC): packed once per
// weight literal where they are a weight operand.
func (c *conv2d) directWeights() []float32 {
	k := c.kerC * c.kh * c.kw
	panels := (c.outC + 7) / 8
	build := func() []float32 {
		a := make([]float32, panels*8*k)
		for oc := 0; oc < c.outC; oc++ {
			p, r := oc/8, oc%8
			for q, v := range c.rhs[oc*k : (oc+1)*k] {
				a[(p*k+q)*8+r] = v
			}
		}
		return a
	}
	if c.weight {
		v := prepacked(true, c.op, 1, c.kernel, [3]int{c.outC, k, -8}, int64(4*panels*8*k), func() (any, int) {
			a := build()
			return a, 4 * len(a)
		})
		if a, ok := v.([]float32); ok {
			return a
		}
	}
	return build()
}
