package native

// The convolution's weights as the GEMM reads them: in their plain order
// (plainWeights, transposeKernel: a kernel stored transposed or with its
// window reversed), packed once per frozen weight (prepackedWeights), or
// read in place (inPlaceWeights).

import (
	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"github.com/torchtpu/torchtpu/literal"
)

// plainWeights returns the kernel in [outC, kerC, kh, kw] order with the
// window reversal applied, copied once into a buffer of gemm.GetBuffer's.
func (c *conv2d) plainWeights() []float32 {
	taps := int64(c.kh * c.kw)
	w := gemm.GetBuffer(c.outC * c.kerC * int(taps))
	if c.kernIO && c.revH == c.revW && len(c.rhs) >= len(w) {
		c.transposeKernel(w, c.revH)
		return w
	}
	shape := []int64{int64(c.outC), int64(c.kerC), int64(c.kh), int64(c.kw)}
	src := []int64{int64(c.kerC) * taps, taps, int64(c.kw), 1}
	if c.kernIO {
		src[0], src[1] = taps, int64(c.outC)*taps
	}
	off := int64(0)
	if c.revH {
		off += int64(c.kh-1) * src[2]
		src[2] = -src[2]
	}
	if c.revW {
		off += int64(c.kw-1) * src[3]
		src[3] = -src[3]
	}
	newCopyPlan(4, shape, literal.Strides(shape), src).run(floatBytes(w), 0, floatBytes(c.rhs), off)
	return w
}

// transposeKernel writes the kernel stored [i, o, kh, kw] into w as
// [o, i, kh, kw], each window reversed when rev is set (both spatial dims
// reversed is the flattened window reversed). Tiles of 16 output channels
// read 16 windows in a row from each input channel's row and write 16
// streams, and the cores split the tiles: an input gradient's 512×512×3×3
// kernel went 9 floats at a time through the general strided copy.
func (c *conv2d) transposeKernel(w []float32, rev bool) {
	taps := c.kh * c.kw
	oc, ic := c.outC, c.kerC
	src := c.rhs[:oc*ic*taps]
	const tile = 16
	tiles := (oc + tile - 1) / tile
	parts := 1
	if oc*ic*taps >= 1<<16 {
		parts = min(Threads(), tiles)
	}
	runParts(tiles, parts, func(t0, t1 int) {
		for t := t0; t < t1; t++ {
			o0, o1 := t*tile, min(oc, (t+1)*tile)
			switch taps {
			case 9:
				transposeTile9(w, src, o0, o1, oc, ic, rev)
				continue
			case 1: // a 1×1 kernel: a plain transpose
				for i := 0; i < ic; i++ {
					for o, v := range src[i*oc+o0 : i*oc+o1] {
						w[(o0+o)*ic+i] = v
					}
				}
				continue
			}
			for i := 0; i < ic; i++ {
				row := src[(i*oc+o0)*taps : (i*oc+o1)*taps]
				for o := o0; o < o1; o++ {
					s := row[(o-o0)*taps : (o-o0+1)*taps]
					d := w[(o*ic+i)*taps : (o*ic+i+1)*taps]
					if rev {
						for k, v := range s {
							d[taps-1-k] = v
						}
					} else {
						copy(d, s)
					}
				}
			}
		}
	})
}

// transposeTile9 is transposeKernel's tile of output channels [o0, o1)
// for 3×3 windows: each window moved as one [9]float32 (a block copy, or
// nine element moves reversed) instead of a loop per element with its
// bounds checks, which had held the transpose to ~3 cycles per element.
func transposeTile9(w, src []float32, o0, o1, oc, ic int, rev bool) {
	for i := 0; i < ic; i++ {
		row := src[(i*oc+o0)*9 : (i*oc+o1)*9]
		for o := o0; o < o1; o++ {
			s := (*[9]float32)(row[(o-o0)*9:])
			d := (*[9]float32)(w[(o*ic+i)*9:])
			if rev {
				d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8] = s[8], s[7], s[6], s[5], s[4], s[3], s[2], s[1], s[0]
			} else {
				*d = *s
			}
		}
	}
}

// prepackedWeights returns the weights of each group packed once for the
// micro-kernels (gemm.PackA) when they are a weight operand of the entry
// function (c.weight, fast_dot_prepack.go), else nil (then the direct
// kernels read them in place). Packed, each panel of rows is one
// contiguous stream: read in place, a panel is 14 row streams at once,
// and the late layers of a network, whose weights are read once per run
// from memory for a few columns, waited on them (ResNet-50's 512x4x4
// 3x3 layers at ~50 GFLOP/s per core).
//
// The AVX2 kernels' panels are 6 rows, and there the direct kernels win
// where the weights are reused across many columns, or are short or long
// rows (inPlaceWeights).
func (c *conv2d) prepackedWeights(ocPer, k int, weights func(g int) gemm.Matrix) []*gemm.PackedA {
	if !c.weight || c.inPlaceWeights(k) {
		return nil
	}
	v := prepacked(true, c.op, 1, c.kernel, [3]int{ocPer, k, c.groups}, int64(4*c.outC*k), func() (any, int) {
		pas := make([]*gemm.PackedA, c.groups)
		n := 0
		for g := range pas {
			pas[g] = gemm.PackA(ocPer, k, weights(g))
			n += pas[g].Bytes()
		}
		return pas, n
	})
	pas, _ := v.([]*gemm.PackedA)
	return pas
}

// inPlaceWeights reports whether the AVX2 kernels (16-column panels)
// read the weights of a layer k deep in place rather than prepacked: for
// convGridCols columns or more (all images), where a packed copy saves
// nothing a row of B panels per kernel call does not (directN), or for
// rows of at most convShortK or at least convLongK. Per layer, one
// process, Zen 2, two threads, in place against prepacked: MobileNetV2's
// 16→96 1×1 layer on 112×112 0.74 → 0.43 ms, its stem 0.60 → 0.43, 24→144
// on 56×56 0.34 → 0.22; EfficientNet-B0's 1152→192 on 4×4 1.20× and
// 40→240 on 16×16 1.16-1.24× faster; the others with few columns slower in
// place (mobilenet_v3_large's 160→960 on 4×4 0.056 → 0.090 ms, 112→672 on
// 8×8 0.088 → 0.105; MobileNetV2's 320→1280 on 7×7 0.91×).
func (c *conv2d) inPlaceWeights(k int) bool {
	if _, nr := gemm.KernelDims(); nr != 16 {
		return false
	}
	return c.batch*c.oh*c.ow >= convGridCols || k <= convShortK || k >= convLongK
}

const (
	convGridCols = 512  // columns from which the AVX2 kernels read the weights in place
	convShortK   = 64   // rows of at most this depth read in place (AVX2)
	convLongK    = 1024 // rows of at least this depth read in place (AVX2)
)
