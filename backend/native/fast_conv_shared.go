package native

import "github.com/torchtpu/torchtpu/backend/native/gemm"

// sharedB reports whether run's GEMM path takes few columns packed once
// and shared by bands of rows (runSharedB, below), for threads cores and
// micro-panels of nr columns. Not where the columns are three times the
// rows or more and can be dealt out one share per core: each core then
// packs and multiplies its own columns with all the (few) weights, where
// each band would pack all the columns for a few rows (BenchmarkFastConvMobile,
// two cores: 240→40 on 16×16 36 → 29 µs, 120→40 18.5 → 15.5; against the
// bands over one block packed half on each core, runSharedB's way before
// runOwnB, 46 → 28 and 24 → 16; 40→240 was slower so). A kernel stored
// [i, o, kh, kw] or reversed (an input gradient's) keeps the bands, which
// pack it as stored (packIO).
func (c *conv2d) sharedB(threads, nr int) bool {
	k, cols := c.kerC*c.kh*c.kw, c.batch*c.oh*c.ow
	chunks := min((cols+nr-1)/nr, (cols+convChunkCols-1)/convChunkCols)
	bLen := int64(gemm.KBlock(k)) * int64(roundUpInt(cols, nr))
	return threads > 1 && c.groups*chunks < convItemsPerThread*threads &&
		cols <= convSharedCols && 2*int64(c.groups)*bLen <= convSharedMax &&
		(cols < 3*(c.outC/c.groups) || (cols+nr-1)/nr < threads || c.kernIO || c.revH || c.revW)
}

// runSharedB is run's path for few columns (the large late layers, whose
// weights dominate at batch 1; the small images of a training batch),
// one group's by runOwnB; for several groups (grouped convolutions): k
// block by k block, the columns are packed once and shared by bands of
// output rows. Loop t packs block t (its first items) while the bands
// multiply block t-1, so two blocks are held at a time, not all of B.
// Each block is packed in parts of whole micro-panels, one per thread
// (one part took a core for a block's time while the others ran out of
// bands: 12% of a 14×14 layer's two cores idle). packer returns group g's
// B packer for columns [j0, j0+nb) and its release; outs are the groups'
// outputs.
func (c *conv2d) runSharedB(threads, bands, cols int, pas []*gemm.PackedA, packer func(g, j0, nb int) (gemm.BPacker, func()), outs []gemm.Out) {
	if c.groups == 1 {
		c.runOwnB(threads, cols, pas[0], packer, outs[0])
		return
	}
	ocPer := c.outC / c.groups
	mr, nr := pas[0].Rows(), pas[0].Cols()
	panelsM, panelsN := (ocPer+mr-1)/mr, (cols+nr-1)/nr
	bLen := pas[0].BlockLen(cols)
	kBlocks := pas[0].KBlocks()
	blocks := gemm.GetBuffer(2 * c.groups * bLen)
	defer gemm.PutBuffer(blocks)
	block := func(t, g int) []float32 {
		o := (t%2*c.groups + g) * bLen
		return blocks[o : o+bLen]
	}
	parts := min(threads, panelsN)
	bound := make([]int, parts+1) // part p packs columns [bound[p], bound[p+1])
	for p := range bound {
		bound[p] = min(cols, p*panelsN/parts*nr)
	}
	packers := make([]gemm.BPacker, c.groups*parts)
	for i := range packers {
		g, p := i/parts, i%parts
		var release func()
		packers[i], release = packer(g, bound[p], bound[p+1]-bound[p])
		defer release()
	}
	// one closure for all the blocks (made per block, they were most of
	// what this path allocated)
	var t, packs, mults int
	step := func(it int) {
		if it < packs {
			g, p := it/parts, it%parts
			j0 := bound[p]
			pas[g].PackBlock(block(t, g)[pas[g].BlockDepth(t)*j0:], packers[it], t, j0, bound[p+1]-j0)
			return
		}
		g, band := (it-packs)/bands, (it-packs)%bands
		r0, r1 := band*panelsM/bands*mr, min(ocPer, (band+1)*panelsM/bands*mr)
		pas[g].MulBlock(r0, r1, block(t-1, g), t-1, 0, cols, outs[g], false)
	}
	for t = 0; t <= kBlocks; t++ {
		packs, mults = c.groups*parts, c.groups*bands
		if t == kBlocks {
			packs = 0
		}
		if t == 0 {
			mults = 0
		}
		parallel(threads, packs+mults, step)
	}
}

// runOwnB is runSharedB's way for one group: one band of rows per core,
// each packing all the columns for itself, k block by k block (PackedA.Mul).
// The packing is done once per core instead of once, but no core reads a
// block the other packed and no barrier waits between k blocks: on two
// cores of a virtual machine whose cache lines take 100-500 ns from core
// to core, BenchmarkFastConvMobile's 184→80 on 8×8 went 14-26 → 12-14 µs,
// 960→160 on 4×4 43-73 → 35-39, 112→672 on 8×8 48-62 → 47-51, ResNet-18's
// 256×14×14 layer 1.29-1.78 → 1.19-1.27 ms, its batch-8 512×7×7 layer
// 9.8-10.1 → 9.3-9.8 ms.
func (c *conv2d) runOwnB(threads, cols int, pa *gemm.PackedA, packer func(g, j0, nb int) (gemm.BPacker, func()), out gemm.Out) {
	mr := pa.Rows()
	panelsM := (c.outC + mr - 1) / mr
	bands := min(threads, panelsM)
	parallel(threads, bands, func(band int) {
		pack, release := packer(0, 0, cols)
		r0, r1 := band*panelsM/bands*mr, min(c.outC, (band+1)*panelsM/bands*mr)
		pa.Mul(r0, r1, pack, 0, cols, out, false)
		release()
	})
}
