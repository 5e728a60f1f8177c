package gemm

import (
	"sync"

	"github.com/torchtpu/torchtpu/backend/native/internal/pool"
)

// PackedB is a k×n B operand packed once, in the layout the micro-kernels
// read, for products that use the same B many times (a linear layer's
// weight, run after run): SgemmPackedB then packs only A. Per k block (the
// depth KBlock(k) gives), micro-panels of nr columns, each nr values per k
// step; the last panel is padded with zeros.
type PackedB struct {
	ks      *kernelSet
	k, n    int
	kcb, nr int
	data    []float32
}

// PackB packs the k×n matrix b. The result does not refer to b.
func PackB(k, n int, b Matrix) *PackedB { return packB(active, k, n, b) }

func packB(ks *kernelSet, k, n int, b Matrix) *PackedB {
	return packBInto(ks, make([]float32, k*roundUp(n, ks.nr)), k, n, b, 1)
}

// packBInto packs the k×n matrix b into dst (k·roundUp(n, nr) floats) on
// up to threads goroutines: units of four micro-panels of a k block
// shared out, or on one thread each k block whole.
func packBInto(ks *kernelSet, dst []float32, k, n int, b Matrix, threads int) *PackedB {
	nr := ks.nr
	pb := &PackedB{ks: ks, k: k, n: n, kcb: KBlock(k), nr: nr, data: dst}
	bpanels := (n + nr - 1) / nr
	group := bpanels // micro-panels per unit
	if threads > 1 {
		group = 4
	}
	per := (bpanels + group - 1) / group // units per k block
	units := (k + pb.kcb - 1) / pb.kcb * per
	pack := func(u int) {
		pc, j := u/per*pb.kcb, u%per*group*nr
		kb := min(pb.kcb, k-pc)
		packBBlock(nr, dst[pc*bpanels*nr+j*kb:], b, pc, j, kb, min(group*nr, n-j))
	}
	if threads > 1 {
		pool.Run(threads, units, pack)
	} else {
		for u := 0; u < units; u++ {
			pack(u)
		}
	}
	return pb
}

// Dims returns the k and n b was packed with.
func (pb *PackedB) Dims() (k, n int) { return pb.k, pb.n }

// Bytes is the memory the packed copy holds.
func (pb *PackedB) Bytes() int { return 4 * len(pb.data) }

// SgemmPackedB computes C = A·B (or C += A·B) for an m×k A and the B of
// pb (k×n) into the row-major m×n c with row stride ldc, on up to threads
// goroutines (0: pool.Threads()).
func SgemmPackedB(m int, a Matrix, pb *PackedB, c []float32, ldc int, accumulate bool, threads int) {
	sgemmPackedB(m, a, pb, c, ldc, accumulate, threads, nil)
}

// SgemmPackedBEpi is SgemmPackedB (overwriting C) with epi run over every
// part of C as it is final.
func SgemmPackedBEpi(m int, a Matrix, pb *PackedB, c []float32, ldc int, threads int, epi Epilogue) {
	sgemmPackedB(m, a, pb, c, ldc, false, threads, epi)
}

func sgemmPackedB(m int, a Matrix, pb *PackedB, c []float32, ldc int, accumulate bool, threads int, epi Epilogue) {
	n, k := pb.n, pb.k
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 {
		if !accumulate {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		if epi != nil {
			epi(0, m, 0, n)
		}
		return
	}
	if useDirectA(pb.ks, a) || colMajorDirect(pb.ks, m, a) {
		runDirectA(pb.ks, m, a, pb, c, ldc, accumulate, threads, true, epi)
		return
	}
	run(pb.ks, m, n, k, a, Matrix{}, pb, c, ldc, accumulate, threads, epi)
}

// directAliasFloats: rows of A a multiple of this many floats (4 KB) apart
// are packed after all where the direct kernels read more rows at once
// than the first-level cache has ways (8): rows 4 KB apart fall in the
// same set. The AVX-512 kernels read 14 rows: with k = 1024, 2048 or 3072
// the product ran at 156 GFLOP/s in place against 187-190 packed, while
// 1536 and 2560 (2 KB apart modulo 4 KB) ran 190 against 167-189. The
// AVX2 kernels' 6 rows fit the ways: on a Zen 2 pair, 256×128×1024 ran at
// 173 GFLOP/s in place against 140 packed, and BERT-base's 3072-wide
// down-projections made the model 1.03× faster.
const directAliasFloats = 1024

// directAliasRows is the most rows a direct kernel reads at once that
// stay in place whatever their distance (directAliasFloats).
const directAliasRows = 6

// useDirectA reports whether the direct kernels read a in place.
func useDirectA(ks *kernelSet, a Matrix) bool {
	return a.ColStride == 1 && a.RowStride > 0 && (a.RowStride%directAliasFloats != 0 || ks.mr <= directAliasRows) && ks.direct != nil && directA
}

// directBMax bounds the floats of a B that runDirectAB packs whole.
const directBMax = 1 << 20

// A product of up to directWideN columns and at least directWideM rows
// also reads A in place on a B packed whole (runDirectAB), as those of at
// most sharedN columns do, rather than packing A and B per column chunk:
// the driver's packing of A was 3% of a 1024³ product's samples, and a
// barrier. On a Zen 2 pair, 1024³ ran at 188-193 GFLOP/s against 160-166
// (alternated), 256×1024×128 at 171 against 151. Fewer rows lose: each
// work item then streams its chunk of B for a few micro-panels of A
// (64×688×256: 113 against 151). Measured with the AVX2 kernels only
// (mr at most directAliasRows), and taken there only.
const (
	directWideN = 1024
	directWideM = 256
)

// runDirectAB is run for a row-major A read in place: B is packed whole
// first (its micro-panels shared out over the threads), then multiplied
// as a prepacked B (runDirectA).
func runDirectAB(ks *kernelSet, m, n, k int, a, b Matrix, c []float32, ldc int, accumulate bool, threads int, epi Epilogue) {
	bp := getBuf(k * roundUp(n, ks.nr))
	defer putBuf(bp)
	runDirectA(ks, m, a, packBInto(ks, bp.s, k, n, b, threads), c, ldc, accumulate, threads, false, epi)
}

// runDirectA is SgemmPackedB for a row-major A (weight: pb is a
// prepacked weight rather than B packed for this call): the direct
// kernels read A in place, so nothing is packed at all (the weight was
// packed once; the activations, where run packs them per call, cost a
// transpose per element: 5% of BERT-base's samples). Work items are bands of A
// micro-panels × chunks of B micro-panels, each running every k block in
// turn so that its C tile stays in cache.
func runDirectA(ks *kernelSet, m int, a Matrix, pb *PackedB, c []float32, ldc int, accumulate bool, threads int, weight bool, epi Epilogue) {
	n, k := pb.n, pb.k
	if threads <= 0 {
		threads = pool.Threads()
	}
	threads = int(min(int64(threads), max(1, int64(m)*int64(n)*int64(k)/minWorkPerThread)))
	mr, nr := ks.mr, ks.nr
	panelsM, panelsN := (m+mr-1)/mr, (n+nr-1)/nr
	// columns in chunks of at most chunkMax; rows in bands of rowItem
	// panels, fewer where the items would not share out over the threads
	chunks := (n + chunkMax - 1) / chunkMax
	bands := (panelsM + rowItem - 1) / rowItem
	if threads > 1 {
		if want := chunkItems * threads; bands*chunks < want {
			chunks = min(panelsN, (want+bands-1)/bands)
			if bands*chunks < want {
				bands = min(panelsM, (want+chunks-1)/chunks)
			}
		}
		chunks = evenItems(bands, chunks, panelsN, threads)
	}
	// pool.Run gives each thread a contiguous share of the items: for a
	// packed weight (B prepacked, weight set) with more columns than
	// rows, items run chunk by chunk, each thread streaming its share of
	// the weight, not all of it (llama_small's logits 64×256·256×1000:
	// 0.182 → 0.164 ms); else band by band, each thread writing whole rows
	// of C, as the elementwise steps after it read them (a B packed for
	// this call is small and read by both either way; GPT-2's training
	// forward ran 3% slower chunk by chunk)
	r := directRuns.Get().(*directRun)
	r.pa.initBand(ks, m, k, a)
	r.pb, r.c, r.ldc, r.acc, r.epi = pb, c, ldc, accumulate, epi
	r.bands, r.chunks, r.panelsM, r.panelsN = bands, chunks, panelsM, panelsN
	r.colMajor = weight && n > m
	if threads > 1 {
		pool.Run(threads, bands*chunks, r.item)
	} else {
		for it := 0; it < bands*chunks; it++ {
			r.run(it)
		}
	}
	r.pa, r.pb, r.c, r.epi = PackedA{}, nil, nil, nil
	directRuns.Put(r)
}

// directRun is one runDirectA call, its work items run by run; the calls
// reuse them (directRuns), item bound once: a small transformer's
// products allocated their closures on every call.
type directRun struct {
	pa                              PackedA
	pb                              *PackedB
	c                               []float32
	ldc                             int
	acc, colMajor                   bool
	epi                             Epilogue
	bands, chunks, panelsM, panelsN int
	item                            func(int) // r.run
}

var directRuns = sync.Pool{New: func() any {
	r := new(directRun)
	r.item = r.run
	return r
}}

// run computes work item it: a band of A micro-panels across a chunk of
// B micro-panels, every k block in turn so that its C tile stays in cache.
func (r *directRun) run(it int) {
	band, cb := it/r.chunks, it%r.chunks
	if r.colMajor {
		cb, band = it/r.bands, it%r.bands
	}
	pb, mr, nr := r.pb, r.pa.mr, r.pa.nr
	m, n, k := r.pa.m, pb.n, pb.k
	r0 := band * r.panelsM / r.bands * mr
	r1 := min((band+1)*r.panelsM/r.bands*mr, m)
	jc := cb * r.panelsN / r.chunks * nr
	nb := min((cb+1)*r.panelsN/r.chunks*nr, n) - jc
	if r1 <= r0 || nb <= 0 {
		return
	}
	// MulBlock hands over each micro-panel's rows of this chunk after
	// the last k block, columns counted from jc
	o := Out{Data: r.c[jc:], Ldc: r.ldc, Done: r.epi, DoneCol: jc}
	for t := 0; t < r.pa.KBlocks(); t++ {
		pc := t * pb.kcb
		kb := min(pb.kcb, k-pc)
		r.pa.MulBlock(r0, r1, pb.data[pc*r.panelsN*nr+jc*kb:], t, 0, nb, o, r.acc)
	}
}
