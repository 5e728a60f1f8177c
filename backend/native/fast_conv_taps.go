package native

import (
	"sync/atomic"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// Stride-1 convolutions whose output rows are as wide as the image's (a
// 3×3 layer with padding 1: most of a ResNet's) on the strip kernels
// with the image read in place (gemm.StripA.MulTaps): each tap of the
// window is one offset into the image, and a vector of 16 positions
// loads it under a mask of the positions whose tap falls inside the image
// (the others count zero, as the padding). The implicit GEMM packed an
// im2col block per chunk of columns (a tenth of a 64-channel 56×56
// layer's time) and left 64-channel layers a last tile of 8 of its 14
// rows. Sums run over the taps, then the input channels. In ResNet-18
// (frozen weights, packed once), one thread, per step alternated with the
// implicit GEMM: 64×56×56 layers 2.24 → 2.06 ms, 128×28×28 2.18 → 2.03,
// 256×14×14 2.29 → 2.22; the whole run's steps 36.5 → 35.0 ms.

// convTaps switches the tap path (tests compare both): on where this CPU
// runs the strip kernels faster than the GEMM.
var convTaps = gemm.StripsPreferred()

// convTapsRuns counts the convolutions run on the tap path.
var convTapsRuns atomic.Int64

// tapsMaxWaste bounds the share of a last, partial vector of positions
// (the lanes past an image's end still run every multiply-add): a 7×7
// image's 49 positions are four vectors, a fifth of them wasted, and
// stay on the implicit GEMM, whose prepacked weights do better there.
const tapsMaxWaste = 1.0 / 16

// tapsVecs is the vectors of positions per work item (the GEMM path's
// column chunks, as runStrips').
const tapsVecs = convChunkCols / 16

// tapsMinPacked is the output positions (all images) from which weights
// that are not frozen, packed per call, take the tap path: reordering and
// packing them costs about a nanosecond per weight, against 16 positions'
// multiply-adds per nanosecond and weight (ResNet's 256×256×3×3 on a
// 14×14 image: 2.28 → 2.77 ms with the weights packed per call).
const tapsMinPacked = 2048

// tapTable returns the tap table run uses for c (c.geom set), or nil
// where the implicit GEMM takes it: strides other than 1 or 2, output rows
// not as wide as the image's, 8 or more input channels per group but not
// a multiple of 8, output channels per group not of 8, a kernel stored transposed or
// reversed (the GEMM's plain copy comes back here), images so small
// that a vector's lanes past the end waste more than tapsMaxWaste,
// weights packed per call for fewer than tapsMinPacked positions, or
// groups at stride 2 (gemm.ConvGeom.Taps has the geometries).
func (c *conv2d) tapTable() *gemm.Taps {
	ocPer, n := c.outC/c.groups, c.oh*c.ow
	if !convTaps || c.kernIO || c.revH || c.revW || c.kerC%8 != 0 && c.kerC >= 8 || !gemm.TapStripsOK(ocPer, c.kerC*c.kh*c.kw) ||
		c.sh != 1 && c.groups != 1 ||
		float64((n+15)/16*16-n) > tapsMaxWaste*float64(n) || !(c.weight && c.kernel.Frozen) && c.batch*n < tapsMinPacked {
		return nil
	}
	return c.geom.Taps()
}

// tapWeights returns each group's weights as the tap path's A, [ocPer,
// taps·kerC] with k = tap·kerC + channel, packed in strips (stripWeights).
func (c *conv2d) tapWeights(ocPer int) (sas []*gemm.StripA, release func()) {
	taps := c.kh * c.kw
	k := taps * c.kerC
	// key: PackA's (prepackedWeights) with the groups moved off both it and the strips'
	return c.stripWeights(ocPer, k, -(1<<20)-c.groups, func(g int, dst []float32) {
		// [o][ch][tap] as stored → [o][tap][ch]
		w := c.rhs[g*ocPer*k : (g+1)*ocPer*k]
		for o := 0; o < ocPer; o++ {
			src, d := w[o*k:(o+1)*k], dst[o*k:(o+1)*k]
			for ch := 0; ch < c.kerC; ch++ {
				for t, v := range src[ch*taps : (ch+1)*taps] {
					d[t*c.kerC+ch] = v
				}
			}
		}
	})
}

// runTaps computes the convolution into outs (one per group) on the tap
// path: work items are (image, group, band of strips, chunk of tapsVecs
// vectors), the strips cut into bands where the items would be fewer
// than convItemsPerThread per core. The epilogue, if any, runs on each
// block as it is finished.
func (c *conv2d) runTaps(tt *gemm.Taps, threads, ocPer, n int, images func(g int) []float32, outs []gemm.Out) {
	convTapsRuns.Add(1)
	sas, release := c.tapWeights(ocPer)
	defer release()
	strips, vecs := sas[0].Strips(), tt.Vectors()
	chunks := (vecs + tapsVecs - 1) / tapsVecs
	per := c.batch * c.groups * chunks
	bands, step := c.stripSplit(threads, per, strips, n)
	hw := c.h * c.w
	imgs := images
	if tt.Phased() {
		// stride 2: the images as phase planes, filled first
		ph := c.phasePlanes(threads)
		defer gemm.PutBuffer(ph)
		imgs = func(int) []float32 { return ph }
	}
	parallel(threads, per*bands, func(it int) {
		band, it := it%bands, it/bands
		ch, it := it%chunks, it/chunks
		g, b := it%c.groups, it/c.groups
		s0, s1 := band*strips/bands, (band+1)*strips/bands
		v0, v1 := ch*tapsVecs, min(vecs, (ch+1)*tapsVecs)
		x := imgs(g)[b*c.inC*hw:]
		out := outs[g]
		base := b * n // columns of images side by side ([outC, batch, n])
		if out.Cols > 0 {
			base = b * out.ImgStride
		}
		j0, j1 := b*n+16*v0, b*n+min(n, 16*v1)
		for s := s0; s < s1; s += step {
			e := min(s+step, s1)
			sas[g].MulTaps(s, e, x, tt, out.Data[base:], out.Ldc, v0, v1-v0)
			if out.Done != nil {
				out.Done(s*gemm.StripRows, min(e*gemm.StripRows, ocPer), j0, j1)
			}
		}
	})
}

// phasePlanes returns the images (one group: c.inC == c.kerC) as a
// stride-2 tap table reads them (gemm.Taps.Phased): per channel, the
// planes of (row, column) parity, h/2 × w/2 each (those the taps read),
// filled over the cores. The buffer is gemm.GetBuffer's.
func (c *conv2d) phasePlanes(threads int) []float32 {
	hw, ph, pw := c.h*c.w, c.h/2, c.w/2
	buf := gemm.GetBuffer(c.batch * c.inC * hw)
	planes := c.batch * c.inC
	// the parities the taps read (a 1×1 downsample's: (0, 0) alone)
	var used [4]bool
	for ky := 0; ky < c.kh; ky++ {
		for kx := 0; kx < c.kw; kx++ {
			used[2*((ky*c.dh-c.padT)&1)+(kx*c.dw-c.padL)&1] = true
		}
	}
	// items: (image and channel, parity), a stem's 3 channels split four ways
	parallel(min(threads, max(1, planes*hw/(1<<14))), 4*planes, func(it int) {
		i, p := it/4, it%4
		if !used[p] {
			return
		}
		py, px := p/2, p%2
		src, d := c.lhs[i*hw:(i+1)*hw], buf[i*hw+p*ph*pw:i*hw+(p+1)*ph*pw]
		if dwSIMD {
			evensRows(&d[0], &src[py*c.w+px], pw, ph, pw, 2*c.w)
			return
		}
		for r := 0; r < ph; r++ {
			row := src[(2*r+py)*c.w+px:]
			for j := range d[r*pw : (r+1)*pw] {
				d[r*pw+j] = row[2*j]
			}
		}
	})
	return buf
}

// stemTaps reports whether a convolution the direct path would take (a
// stem: fewer than 8 input channels) runs on the tap path instead, a
// channel per step (gemm's tapsOne kernels). One core
// (BenchmarkFastConvResNet18, BenchmarkFastConvMobile, weights packed per
// call): ResNet's 7×7 stride-2 stem 2.57 → 2.19 ms, 3×224² → 32 3×3
// stride 2 294 → 228 µs, 3×128² → 16 47 → 44.
func (c *conv2d) stemTaps() bool {
	if !convStemTaps || c.kerC >= 8 {
		return false
	}
	c.geom = c.convGeom()
	return c.tapTable() != nil
}

// convStemTaps switches stemTaps (tests compare both).
var convStemTaps = true
