package native

// Convolutions with few output positions, computed transposed. As an
// implicit GEMM, a layer on a 7×7 image has 49 columns, which the
// micro-kernels' panels of 32 (or 16) columns cover as 64: a quarter of
// every multiply-add wasted on ResNet's and MobileNet's last layers. Here
// the output positions are the rows instead: Cᵀ [positions, outC] =
// im2colᵀ [positions, c·kh·kw] · Wᵀ, whose 49 rows the micro-kernels take
// as panels of 14 and a last one of 7 (a partial kernel, nothing wasted),
// and whose B, the weights transposed, is packed once per weight literal.
// The input is transposed to channels-last first (cheap: these layers'
// inputs are small), so that each row of im2colᵀ is whole channel runs,
// one per tap, copied; the weights' k order is permuted to match (tap,
// then channel). Cᵀ is transposed into the NCHW result, then the
// epilogue runs over it. Sums differ from the other paths' in order only.

import (
	"sync/atomic"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// convTNEnabled switches the transposed path (tests compare both).
var convTNEnabled = true

// useTN reports whether the transposed path takes c: AVX-512 (on a Zen 2
// pair, AVX2's 6×16 kernels ran ResNet-18's 512×7×7 layers 1.8 → 2.2 ms
// this way), one group, weights packed once (c.weight), and output
// positions that whole 16-column vectors would cover with over 15% to
// spare. (Pointwise layers on 14×14 images, whose 196 columns the GEMM
// path covers as 208, were measured both ways: each within 5% of the
// other, either way round by the state of the caches.)
func (c *conv2d) useTN() bool {
	n := c.batch * c.oh * c.ow
	k := c.kerC * c.kh * c.kw
	return convTNEnabled && dwc512 && c.weight && c.groups == 1 && n <= convTNMaxCols &&
		roundUpInt(n, 16)*100 > 115*n && c.outC >= 32 && k >= 32
}

// pointwise reports whether c is a 1×1 convolution of stride 1 without
// padding or input dilation: per image, the weights times the input as
// stored, [inC, h·w]. On the transposed path its im2colᵀ is the input
// itself, channels last.
func (c *conv2d) pointwise() bool {
	return c.kh == 1 && c.kw == 1 && c.sh == 1 && c.sw == 1 && c.padT == 0 && c.padL == 0 &&
		c.oh == c.h && c.ow == c.w && c.ldh <= 1 && c.ldw <= 1 && !c.subpix
}

// convTNRuns counts the convolutions run on the transposed path (for the
// tests: the path declines weights that are not packed once).
var convTNRuns atomic.Int64

// convTNMaxCols bounds the output positions of the transposed path (its
// im2colᵀ is materialized).
const convTNMaxCols = 256

// tnWeights returns the weights as B = Wᵀ with k in (tap, channel) order,
// packed once per weight literal.
func (c *conv2d) tnWeights() *gemm.PackedB {
	k := c.kerC * c.kh * c.kw
	taps := c.kh * c.kw
	v := prepacked(true, c.op, 1, c.kernel, [3]int{c.outC, k, -3}, int64(4*c.outC*k), func() (any, int) {
		// B[t·kerC + ci][oc] = W[oc][ci][t]
		bt := make([]float32, k*c.outC)
		for oc := 0; oc < c.outC; oc++ {
			w := c.rhs[oc*k : (oc+1)*k]
			for ci := 0; ci < c.kerC; ci++ {
				for t := 0; t < taps; t++ {
					bt[(t*c.kerC+ci)*c.outC+oc] = w[ci*taps+t]
				}
			}
		}
		pb := gemm.PackB(k, c.outC, gemm.RowMajor(bt, c.outC))
		return pb, pb.Bytes()
	})
	pb, _ := v.(*gemm.PackedB)
	return pb
}

// runTN computes c into dst ([batch, outC, oh, ow]) transposed.
func (c *conv2d) runTN(dst []float32) bool {
	pb := c.tnWeights()
	if pb == nil {
		return false
	}
	convTNRuns.Add(1)
	k := c.kerC * c.kh * c.kw
	n := c.oh * c.ow
	rows := c.batch * n
	hw := c.h * c.w
	if c.pointwise() && k >= c.outC {
		// a projection: im2colᵀ is each image as stored, read
		// column-major by the GEMM's kernels in place, nothing moved
		// before the product (an expansion, its k short, ran slower so
		// than transposed first). Against the input transposed and
		// copied to im2colᵀ, MobileNetV2's 960→160 and ResNet-50's
		// 2048→512 on 7×7 took 0.87-0.92× and 0.80-0.91× the time, with
		// the caches warm or flushed.
		ct := gemm.GetBuffer(rows * c.outC)
		defer gemm.PutBuffer(ct)
		threads := int(min(int64(Threads()), max(1, int64(n)*int64(k)*int64(c.outC)/convWorkPerThread)))
		for b := 0; b < c.batch; b++ {
			a := gemm.RowMajor(c.lhs[b*c.inC*hw:b*c.inC*hw+k*hw], hw).Transposed()
			gemm.SgemmPackedB(n, a, pb, ct[b*n*c.outC:], c.outC, false, threads)
		}
		c.tnOut(dst, ct, min(Threads(), max(1, rows*c.outC/(32<<10))))
		return true
	}
	pointwise := c.pointwise()
	im2col := rows * k
	if pointwise {
		im2col = 0 // im2colᵀ is the input channels last
	}
	buf := gemm.GetBuffer(c.batch*hw*c.kerC + im2col + rows*c.outC)
	defer gemm.PutBuffer(buf)
	xt, at, ct := buf[:c.batch*hw*c.kerC], buf[c.batch*hw*c.kerC:c.batch*hw*c.kerC+im2col], buf[c.batch*hw*c.kerC+im2col:]
	if pointwise {
		at = xt
	}
	threads := int(min(int64(Threads()), max(1, int64(rows)*int64(k)*int64(c.outC)/convWorkPerThread)))
	// The moves around the product run over the cores as well, each core
	// on the positions (then the channels) it will read next: done by the
	// caller alone, the other core waited, then read half of the im2colᵀ
	// (0.9 MB for ResNet-18's 512-channel layers) from the first one's
	// cache (those layers at two threads 5% faster split).
	//
	// channels last: xt[b][y][x][ci], by blocks of 16 positions
	pblocks := (hw + 15) / 16
	parallel(threads, c.batch*pblocks, func(it int) {
		b, p0 := it/pblocks, it%pblocks*16
		src := c.lhs[b*c.inC*hw:]
		for c0 := 0; c0 < c.kerC; c0 += 16 {
			transpose16(&xt[(b*hw+p0)*c.kerC+c0], 4*c.kerC, &src[c0*hw+p0], 4*hw, min(16, c.kerC-c0), min(16, hw-p0), nil)
		}
	})
	// im2colᵀ: row (b, oy, ox), per tap the input pixel's channels; by
	// output rows
	if !pointwise {
		parallel(threads, c.batch*c.oh, func(it int) {
			b, oy := it/c.oh, it%c.oh
			for ox := 0; ox < c.ow; ox++ {
				row := at[((b*c.oh+oy)*c.ow+ox)*k:][:k]
				for ky := 0; ky < c.kh; ky++ {
					iy := oy*c.sh - c.padT + ky*c.dh
					for kx := 0; kx < c.kw; kx++ {
						ix := ox*c.sw - c.padL + kx*c.dw
						seg := row[(ky*c.kw+kx)*c.kerC:][:c.kerC]
						if iy < 0 || iy >= c.h || ix < 0 || ix >= c.w {
							clear(seg)
							continue
						}
						copy(seg, xt[(b*hw+iy*c.w+ix)*c.kerC:])
					}
				}
			}
		})
	}
	gemm.SgemmPackedB(rows, gemm.RowMajor(at, k), pb, ct, c.outC, false, threads)
	c.tnOut(dst, ct, threads)
	return true
}

// tnOut writes Cᵀ ([batch][position][outC]) into dst ([batch][outC]
// [position]) and runs the epilogue, by blocks of 16 channels on up to
// threads goroutines.
func (c *conv2d) tnOut(dst, ct []float32, threads int) {
	n, rows := c.oh*c.ow, c.batch*c.oh*c.ow
	c.epiRuns(n)
	oblocks := (c.outC + 15) / 16
	parallel(threads, oblocks, func(ob int) {
		o0 := ob * 16
		for b := 0; b < c.batch; b++ {
			src, out := ct[b*n*c.outC:], dst[b*c.outC*n:]
			for p0 := 0; p0 < n; p0 += 16 {
				transpose16(&out[o0*n+p0], 4*n, &src[p0*c.outC+o0], 4*c.outC, min(16, n-p0), min(16, c.outC-o0), nil)
			}
		}
		c.finish(0, o0, min(c.outC, o0+16), 0, rows)
	})
}
