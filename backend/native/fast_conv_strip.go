package native

import (
	"sync/atomic"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// Pointwise convolutions (1×1, stride 1, no padding, one image) on the
// strip kernels (gemm.StripA): the image, [channels, positions], is the
// B operand as it lies, read in place 16 positions at a time, and the
// weights, packed in strips of 16 output channels, are broadcast from
// L1; no B block is packed per chunk of columns. The implicit GEMM packed
// B for every chunk, which for the few input channels of a mobile
// network's expansions and projections cost as much as a fifth of the
// layer, and its 14-row tiles left 16-channel outputs a 2-row remainder.
// One core (BenchmarkFastConvMobile, weights packed per call): 16×64×64 →
// 64 96 → 80 µs, 32×112×112 → 16 170 → 118, 24×32×32 → 144 72 → 67,
// 960×4×4 → 160 62 → 56.

// convStrips switches the strip path (tests compare both): on where this
// CPU runs the strip kernels faster than the GEMM.
var convStrips = gemm.StripsPreferred()

// convStripRuns counts the convolutions run on the strip path (tests
// check that it ran).
var convStripRuns atomic.Int64

// stripEpiFloats bounds the outputs one strip call writes before the
// epilogue runs over them (so that they are still in L2).
const stripEpiFloats = 16 << 10

// useStrips reports whether run takes the strip path: a pointwise
// convolution of one image whose weights, as stored, fit the kernels.
func (c *conv2d) useStrips(pointwise bool) bool {
	return convStrips && pointwise && c.batch == 1 && !c.kernIO && !c.outFB &&
		gemm.StripsOK(c.outC/c.groups, c.kerC)
}

// stripWeights returns each group's weights [ocPer, k] packed in strips:
// the rows of c.rhs as stored, or where reorder is set, what it writes
// into dst from group g's (a tap path's [o][tap][ch]). Kept per weight
// literal where they are a frozen weight of the entry function (c.weight;
// tag keeps the path's copy apart from the other packed copies of the
// op), else packed for this call (release gives them back).
func (c *conv2d) stripWeights(ocPer, k, tag int, reorder func(g int, dst []float32)) (sas []*gemm.StripA, release func()) {
	build := func(pack func(m, k int, a gemm.Matrix) *gemm.StripA) []*gemm.StripA {
		var scratch []float32
		if reorder != nil {
			scratch = gemm.GetBuffer(ocPer * k)
			defer gemm.PutBuffer(scratch)
		}
		sas := make([]*gemm.StripA, c.groups)
		for g := range sas {
			w := c.rhs[g*ocPer*k : (g+1)*ocPer*k]
			if reorder != nil {
				reorder(g, scratch)
				w = scratch
			}
			sas[g] = pack(ocPer, k, gemm.RowMajor(w, k))
		}
		return sas
	}
	if c.weight {
		v := prepacked(true, c.op, 1, c.kernel, [3]int{ocPer, k, tag}, int64(4*c.outC*k), func() (any, int) {
			sas := build(gemm.PackStripA)
			n := 0
			for _, s := range sas {
				n += s.Bytes()
			}
			return sas, n
		})
		if sas, ok := v.([]*gemm.StripA); ok {
			return sas, func() {}
		}
	}
	sas = build(gemm.NewStripA)
	return sas, func() {
		for _, s := range sas {
			s.Release()
		}
	}
}

// stripSplit returns runStrips' and runTaps' bands of strips (where items
// work items per band are fewer than convItemsPerThread per core, the
// strips are cut into bands) and the strips per kernel call (all of a
// band's, or with an epilogue, as many as keep the block it then reads
// back in L2), and settles the epilogue for runs of up to convChunkCols
// of the n positions.
func (c *conv2d) stripSplit(threads, items, strips, n int) (bands, step int) {
	bands = 1
	if want := convItemsPerThread * threads; threads > 1 && items < want {
		bands = min(strips, (want+items-1)/items)
	}
	c.epiRuns(min(n, convChunkCols))
	step = strips
	if c.epi != nil {
		step = max(1, stripEpiFloats/(gemm.StripRows*min(n, convChunkCols)))
	}
	return bands, step
}

// runStrips computes the pointwise convolution into the outputs outs (one
// per group, c.useStrips), its n positions in chunks of convChunkCols
// columns dealt out to the cores, and where those are fewer than
// convItemsPerThread per core, also the strips of output channels in
// bands. The epilogue, if any, runs on each block of outputs as it is
// finished.
func (c *conv2d) runStrips(threads, ocPer, k, n int, images func(g int) []float32, outs []gemm.Out) {
	convStripRuns.Add(1)
	// key: PackA's (prepackedWeights) with the groups negated
	sas, release := c.stripWeights(ocPer, k, -c.groups, nil)
	defer release()
	strips := sas[0].Strips()
	chunks := (n + convChunkCols - 1) / convChunkCols
	bands, step := c.stripSplit(threads, c.groups*chunks, strips, n)
	parallel(threads, c.groups*bands*chunks, func(it int) {
		g, band, ch := it/(bands*chunks), it/chunks%bands, it%chunks
		s0, s1 := band*strips/bands, (band+1)*strips/bands
		j0, j1 := ch*n/chunks/16*16, (ch+1)*n/chunks/16*16
		if ch == chunks-1 {
			j1 = n
		}
		if j0 >= j1 {
			return
		}
		img, out := images(g), outs[g]
		for s := s0; s < s1; s += step {
			e := min(s+step, s1)
			sas[g].Mul(s, e, img[j0:], n, out.Data[j0:], out.Ldc, j1-j0)
			if out.Done != nil {
				out.Done(s*gemm.StripRows, min(e*gemm.StripRows, ocPer), j0, j1)
			}
		}
	})
}
