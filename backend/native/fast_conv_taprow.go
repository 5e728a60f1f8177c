package native

import (
	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// The AVX2 row path: a convolution of one group at stride 1 or 2 (both
// ways, no dilation) whose output rows are whole 8-column vectors, on
// the kernels that read B in place (gemm.TapRow): each output row is one
// product of the weights, read as stored, by the image rows its taps
// read, one byte offset per input channel and tap, nothing packed. The
// image is first copied once into zero-padded planes, split by column
// phase at stride 2 (fillPhase), so that every tap of a row of outputs
// is a contiguous run; a pointwise layer reads the image itself, its
// planes one long row. The implicit GEMM instead gathers an im2col panel
// per k block and chunk of columns, and a stem (three input channels)
// used each panel for a handful of tiles only: MobileNetV2's stem spent
// more in the gathers, their column tables and the phase split than in
// the multiply-adds.

// convTapRows switches the row path (tests compare both).
var convTapRows = true

// useTapRows reports whether runTapRows takes c: the AVX2 kernels, one
// group, the weights as stored (no transposed or reversed kernel, read
// in place where frozen weights would be: inPlaceWeights), no dilation
// of either operand, the same stride 1 or 2 both ways, output rows of
// whole vectors (a pointwise layer: planes of whole vectors), the output
// in [batch, outC, oh, ow] order.
func (c *conv2d) useTapRows() bool {
	if !convTapRows || !gemm.TapRowsOK() || c.groups != 1 || c.kernIO || c.revH || c.revW || c.outFB ||
		c.dh != 1 || c.dw != 1 || c.ldh > 1 || c.ldw > 1 || c.sh != c.sw || c.sh > 2 || c.oh <= 0 || c.ow <= 0 {
		return false
	}
	k := c.kerC * c.kh * c.kw
	if c.weight && !c.inPlaceWeights(k) {
		return false
	}
	if c.pointwiseFlat() {
		return c.oh*c.ow%8 == 0 && c.oh*c.ow >= tapRowsMinFlat
	}
	return c.ow%8 == 0 && c.kerC <= tapRowsMaxC
}

// Where the row path wins, measured per layer against the implicit GEMM
// (Zen 2, two threads): stems, whose few input channels leave each
// gathered panel a handful of tiles (MobileNetV2's 0.285 → 0.197 ms,
// EfficientNet-B0's 0.077 → 0.049, ResNet's 7×7 1.45 → 1.24), and
// pointwise layers on large planes (MobileNetV2's 16→96 on 112×112 0.26
// → 0.24). Where each k step's row is read from one of hundreds of image
// rows at once, the packed panel's one stream does better (ResNet's
// 64-channel 3×3 layers on 56×56 1.38 → 1.52; pointwise on 64×64 0.096 →
// 0.10, on 32×32 0.067 → 0.073).
const (
	tapRowsMaxC    = 4    // input channels at most (a stem), windows wider than 1×1
	tapRowsMinFlat = 8192 // positions per plane at least, pointwise
)

// pointwiseFlat reports a 1×1 window at stride 1 with no padding: the
// output planes are the input's, read in place as one row each.
func (c *conv2d) pointwiseFlat() bool {
	return c.kh == 1 && c.kw == 1 && c.sh == 1 && c.padT == 0 && c.padL == 0 && c.oh == c.h && c.ow == c.w
}

// runTapRows computes c into dst ([batch, outC, oh, ow]) on gemm.TapRow.
func (c *conv2d) runTapRows(dst []float32) {
	k, n := c.kerC*c.kh*c.kw, c.oh*c.ow
	threads := c.gemmThreads()
	w := c.rhs[:c.outC*k]
	if c.pointwiseFlat() {
		// each image's planes are one row of n positions: column chunks
		// of whole tiles shared out over the threads
		hw := c.h * c.w
		offs := make([]int, c.kerC)
		for ci := range offs {
			offs[ci] = 4 * ci * hw
		}
		chunks := min((n+15)/16, max(1, (n+convChunkCols-1)/convChunkCols, convItemsPerThread*threads/c.batch))
		c.epiRuns((n + chunks - 1) / chunks)
		parallel(threads, c.batch*chunks, func(it int) {
			b, ch := it/chunks, it%chunks
			j0, j1 := ch*n/chunks/8*8, (ch+1)*n/chunks/8*8
			if ch == chunks-1 {
				j1 = n
			}
			if j1 <= j0 {
				return
			}
			gemm.TapRow(w, k, 0, c.outC, c.lhs, b*c.inC*hw+j0, offs, j1-j0, dst[b*c.outC*n+j0:], n, true)
			c.finish(0, 0, c.outC, b*n+j0, b*n+j1)
		})
		return
	}
	// per image, planes [kerC][phase][hp][wp]: output row y, tap (ky, kx)
	// of channel ci reads plane (ci, kx%s) at row y·s+ky, columns from
	// kx/s on
	s := c.sh
	hp, wp := (c.oh-1)*s+c.kh, c.ow+(c.kw-1)/s
	plane := hp * wp
	offs := make([]int, k)
	for ci := 0; ci < c.kerC; ci++ {
		for ky := 0; ky < c.kh; ky++ {
			for kx := 0; kx < c.kw; kx++ {
				offs[(ci*c.kh+ky)*c.kw+kx] = 4 * ((ci*s+kx%s)*plane + ky*wp + kx/s)
			}
		}
	}
	planes := gemm.GetBuffer(c.kerC * s * plane)
	defer gemm.PutBuffer(planes)
	hw := c.h * c.w
	bands := min(c.oh, convItemsPerThread*threads)
	c.epiRuns((c.oh + bands - 1) / bands * c.ow)
	for b := 0; b < c.batch; b++ {
		img := c.lhs[b*c.inC*hw : (b+1)*c.inC*hw]
		runParts(c.kerC*s, min(threads, c.kerC*s), func(lo, hi int) {
			for q := lo; q < hi; q++ {
				c.fillPhase(planes[q*plane:(q+1)*plane], img[q/s*hw:(q/s+1)*hw], q%s, 0, hp, wp)
			}
		})
		out := dst[b*c.outC*n : (b+1)*c.outC*n]
		parallel(threads, bands, func(band int) {
			y0, y1 := band*c.oh/bands, (band+1)*c.oh/bands
			for y := y0; y < y1; y++ {
				gemm.TapRow(w, k, 0, c.outC, planes, y*s*wp, offs, c.ow, out[y*c.ow:], n, true)
			}
			c.finish(0, 0, c.outC, b*n+y0*c.ow, b*n+y1*c.ow)
		})
	}
}
