package native

import "github.com/torchtpu/torchtpu/backend/native/gemm"

// Pointwise projections on small planes, split along k. A projection (a
// 1×1 convolution to fewer channels than it reads: MobileNet's 384→64 on
// 14×14, ResNet's bottlenecks) mostly reads an input that the layer
// before wrote half on each core, split by channels (a depthwise layer, a
// product's bands of output channels). Split by output channels or by
// columns, each core then reads all of it, half from the other core's
// caches: 384→64 on 14×14 took 78 µs with its input in its own caches and
// 107-110 written by both (BenchmarkConvFrozen, SPLITW), as inside
// MobileNetV2. Here each half of the input channels is multiplied by its
// half of the weights into one of two partial products, which are then
// added, row band by row band, with the epilogue: each core reads the
// input channels it wrote and a half of the other's partial product.
//
// The two halves are summed apart and then added whatever the threads,
// so the bits do not depend on the thread count; they differ from the
// one-chain sum of the other paths in the last bits, as any blocking of k
// does.

// splitK limits: columns (positions) at most, and input channels at least
// splitKRatio times the output channels and at least splitKMinK.
const (
	splitKMaxCols = 256
	splitKRatio   = 2
	splitKMinK    = 64
)

// splitKEnabled switches the path (tests compare both).
var splitKEnabled = true

// useSplitK reports whether a pointwise convolution of k input channels
// into ocPer outputs over cols positions takes runSplitK.
func (c *conv2d) useSplitK(pointwise bool, k, ocPer, cols int) bool {
	return splitKEnabled && pointwise && c.groups == 1 && c.batch == 1 && !c.outFB && !c.kernIO && !c.revH && !c.revW &&
		cols <= splitKMaxCols && k >= splitKMinK && k >= splitKRatio*ocPer
}

// runSplitK computes the pointwise convolution of image ([k, n] row-major)
// into dst ([outC, n]) as two partial products over the two halves of k,
// added into dst by row bands, each band's epilogue after its sum.
func (c *conv2d) runSplitK(threads, k, n int, image, dst []float32) {
	oc := c.outC
	kh := min(k, (k/2+7)/8*8) // the first half, a whole number of vectors
	partial := gemm.GetBuffer(oc * n)
	defer gemm.PutBuffer(partial)
	c.epiRuns(n)
	half := func(p int) gemm.Matrix {
		return gemm.Matrix{Data: c.rhs, Off: p * kh, RowStride: k, ColStride: 1}
	}
	pas := c.splitKWeights(k, kh, half)
	parallel(threads, 2, func(p int) {
		k0, k1 := 0, kh
		out := gemm.Out{Data: dst, Ldc: n}
		if p == 1 {
			k0, k1 = kh, k
			out.Data = partial
		}
		var pa *gemm.PackedA
		if pas != nil {
			pa = pas[p]
		} else {
			pa = gemm.NewBandA(oc, k1-k0, half(p))
		}
		pa.Mul(0, oc, gemm.MatrixPacker(gemm.RowMajor(image[k0*n:k1*n], n)), 0, n, out, false)
	})
	bands := min(oc, convItemsPerThread*threads)
	parallel(threads, bands, func(b int) {
		r0, r1 := b*oc/bands, (b+1)*oc/bands
		d, q := dst[r0*n:r1*n], partial[r0*n:r1*n]
		if simdRows && len(d) > 0 {
			binRR(opAdd, &d[0], &d[0], &q[0], len(d))
		} else {
			for i := range d {
				d[i] += q[i]
			}
		}
		c.finish(0, r0, r1, 0, n)
	})
}

// splitKWeights returns the two halves of a frozen weight packed once (as
// prepackedWeights packs whole ones, where the direct kernels would not
// read them in place), or nil.
func (c *conv2d) splitKWeights(k, kh int, half func(p int) gemm.Matrix) []*gemm.PackedA {
	if !c.weight || c.inPlaceWeights(k) {
		return nil
	}
	v := prepacked(true, c.op, 1, c.kernel, [3]int{c.outC, k, -2}, int64(4*c.outC*k), func() (any, int) {
		pas := []*gemm.PackedA{gemm.PackA(c.outC, kh, half(0)), gemm.PackA(c.outC, k-kh, half(1))}
		return pas, pas[0].Bytes() + pas[1].Bytes()
	})
	pas, _ := v.([]*gemm.PackedA)
	return pas
}
