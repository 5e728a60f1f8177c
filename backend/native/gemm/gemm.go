// Package gemm multiplies float32 matrices with a packed, cache-blocked,
// register-blocked algorithm (the BLIS loop structure, with our row-major C):
//
//	for each block of A rows (all of k, up to packAElems floats):
//	    pack the A block into micro-panels of mr rows, per k block (shared, L3)
//	    for each chunk of C columns (a work item; its C tile stays in cache):
//	        for each k block (kcMax deep):
//	            pack the B block into micro-panels of nr columns (per thread, L2)
//	            for each A micro-panel (L1):
//	                for each B micro-panel (streamed from L2):
//	                    micro-kernel: C[mr×nr] (+)= Apanel·Bpanel
//
// The micro-kernel is AVX-512 (14×32) or AVX2+FMA (6×16) assembly on amd64,
// chosen at run time, and Go elsewhere. Operands are addressed through row
// and column strides, so transposed operands need no copy beyond the
// packing every operand gets anyway. Each kernel set also has direct
// kernels that read a row-major A in place; PackedA (packed.go) uses them,
// so products whose caller packs B (convolutions) never pack A, and so do
// products on a prepacked B and those of at most sharedN columns (or
// directWideN with directWideM rows) whose A is row-major (runDirectA,
// prepacked.go: B packed whole, A never).
package gemm

//go:generate go run ./gen

import (
	"github.com/torchtpu/torchtpu/backend/native/internal/pool"
)

// kcMax is the depth of a packed k block: the A micro-panel (mr·kcMax floats)
// must stay in L1 while the B micro-panels stream past it.
var kcMax = 384

// packAElems bounds the floats of A packed at once (rows × all of k).
var packAElems = 4 << 20

const (
	chunkMax = 256 // columns of C per work item (its B block stays in L2)
	sharedN  = 512 // up to this many columns, B is packed once and shared
	rowItem  = 4   // A micro-panels per work item when B is shared
	// work items per thread from which a product does not split further
	// (the last items of unequal threads even out)
	chunkItems = 4
	maxTile    = 14 * 32
	// work below this many multiply-adds per extra thread stays on one
	// (~5 µs of the micro-kernels a thread). Below it the split saves
	// less than it costs: handing a loop to the spinning helper is ~0.4 µs
	// (pool's BenchmarkRunOverhead), but a small product's A is then read
	// by both cores and its C written by both for the next step's one. On
	// a Zen 2 pair at 1<<17, gpt2_tiny's 24×64×192 and 24×256×64 products
	// took 13 and 16 µs on two threads against 8 and 10 on one, the model
	// 0.257 ms against 0.217 at 1<<18 (paired; transformer_encoder_layer,
	// bert_small and llama_small unchanged)
	minWorkPerThread = 1 << 18
)

// Matrix is a strided view of float32 data: element (i, j) is
// Data[Off + i*RowStride + j*ColStride].
type Matrix struct {
	Data                 []float32
	Off                  int
	RowStride, ColStride int
}

// RowMajor views data as a rows×cols row-major matrix.
func RowMajor(data []float32, cols int) Matrix {
	return Matrix{Data: data, RowStride: cols, ColStride: 1}
}

// Transposed returns the view of the transpose.
func (m Matrix) Transposed() Matrix {
	m.RowStride, m.ColStride = m.ColStride, m.RowStride
	return m
}

// Kernel names the micro-kernel Sgemm uses on this CPU.
func Kernel() string { return active.name }

// EmbeddedBroadcasts reports whether this CPU runs AVX-512 FMAs that
// broadcast their A element from memory (one load per multiply-add) about
// as fast as a register broadcast shared by several FMAs: true on AMD's
// cores, false on Intel's (Ice Lake: half the speed), as the kernel set
// chosen for it says. Kernels written in both forms pick theirs by it.
func EmbeddedBroadcasts() bool { return active.bcst }

// KernelDims returns the micro-kernel's rows and columns (mr × nr): the
// Rows and Cols of every PackedA.
func KernelDims() (mr, nr int) { return active.mr, active.nr }

// Sgemm computes C = A·B (or C += A·B when accumulate is set) for an m×k
// matrix A and a k×n matrix B into the row-major m×n matrix c with row
// stride ldc, using up to threads goroutines (0 means pool.Threads(): the host's thread count, or GOMAXPROCS).
func Sgemm(m, n, k int, a, b Matrix, c []float32, ldc int, accumulate bool, threads int) {
	sgemm(active, m, n, k, a, b, c, ldc, accumulate, threads, nil)
}

// Epilogue is work on parts of C that a product hands over as soon as
// they are final: rows [r0, r1) and columns [j0, j1) of C, each element
// handed over exactly once, called on the goroutine that computed them
// while they are still in its caches (a bias, an activation, a residual
// add: the pass over C they would take after the product is saved).
// Calls for different parts may run at the same time.
type Epilogue func(r0, r1, j0, j1 int)

// SgemmEpi is Sgemm (overwriting C) with epi run over every part of C
// as it is final.
func SgemmEpi(m, n, k int, a, b Matrix, c []float32, ldc int, threads int, epi Epilogue) {
	sgemm(active, m, n, k, a, b, c, ldc, false, threads, epi)
}

func sgemm(ks *kernelSet, m, n, k int, a, b Matrix, c []float32, ldc int, accumulate bool, threads int, epi Epilogue) {
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 || int64(m)*int64(n)*int64(k) < 16*16*16 {
		naive(m, n, k, a, b, c, ldc, accumulate)
		if epi != nil {
			epi(0, m, 0, n)
		}
		return
	}
	run(ks, m, n, k, a, b, nil, c, ldc, accumulate, threads, epi)
}

// run is sgemm past the tiny products: with pb set, B is that prepacked
// operand (b is not read).
func run(ks *kernelSet, m, n, k int, a, b Matrix, pb *PackedB, c []float32, ldc int, accumulate bool, threads int, epi Epilogue) {
	if threads <= 0 {
		threads = pool.Threads()
	}
	threads = int(min(int64(threads), max(1, int64(m)*int64(n)*int64(k)/minWorkPerThread)))
	mr, nr := ks.mr, ks.nr
	wide := ks.mr <= directAliasRows && n <= directWideN && m >= directWideM
	if pb == nil && (n <= sharedN || wide) && (useDirectA(ks, a) || colMajorDirect(ks, m, a)) && int64(k)*int64(roundUp(n, nr)) <= directBMax {
		runDirectAB(ks, m, n, k, a, b, c, ldc, accumulate, threads, epi)
		return
	}
	nk := (k + kcMax - 1) / kcMax
	kcb := min(k, roundUp((k+nk-1)/nk, 8)) // k blocks of even depth
	rowsA := max(mr, min(roundUp(m, mr), packAElems/k/mr*mr))
	// blocks of even height: m = 2048 makes two of 1036 and 1012 rows, not
	// 2044 and a last block of 4 (two more loops and a pass over B for them)
	blocks := (m + rowsA - 1) / rowsA
	rowsA = roundUp((m+blocks-1)/blocks, mr)
	shared := n <= sharedN || pb != nil
	// the column chunks of C, of whole B micro-panels shared out evenly:
	// at most chunkMax columns, and with several threads at least
	// chunkItems per thread, so that the last items even out
	bpanels := (n + nr - 1) / nr
	chunks := (n + chunkMax - 1) / chunkMax
	if threads > 1 {
		chunks = min(bpanels, max(chunks, chunkItems*threads))
	}
	chunkW := (bpanels + chunks - 1) / chunks * nr
	d := &driver{ks: ks, m: m, n: n, k: k, a: a, b: b, c: c, ldc: ldc, acc: accumulate,
		kcb: kcb, rowsA: rowsA, chunkW: chunkW, chunks: chunks, shared: shared, epi: epi}
	if !shared && ks.mr <= directAliasRows && useDirectA(ks, a) {
		// A read in place (its rows one block): each work item packs its
		// chunk of B per k block and the direct kernels multiply every
		// row of A by it. On a Zen 2 pair: 2048³ 184-187 → 190-191
		// GFLOP/s, 1536³ 178-185 → 191-196, 128×768×768 (B transposed)
		// 170 → 184, 64×688×256 152 → 172. Measured with the AVX2
		// kernels' 6 rows only: the AVX-512 kernels' 14 rows keep the
		// packed A there
		d.direct = newBandA(ks, m, k, a)
		d.rowsA = m
		d.block(0, threads)
		return
	}
	d.ap = getBuf(rowsA * k)
	switch {
	case pb != nil:
		d.kcb, d.bp, d.prepacked = pb.kcb, &buf{s: pb.data}, true
	case shared:
		d.bp = getBuf(k * roundUp(n, nr))
	}
	for ic := 0; ic < m; ic += rowsA {
		d.block(ic, threads)
	}
	putBuf(d.ap)
	if shared && pb == nil {
		putBuf(d.bp)
	}
}

// driver is one Sgemm call.
type driver struct {
	ks           *kernelSet
	m, n, k, ldc int
	a, b         Matrix
	c            []float32
	acc, shared  bool
	prepacked    bool // bp holds B packed by PackB (shared, never packed here)
	kcb, rowsA   int  // k block depth; rows of an A block
	chunkW       int  // the widest column chunk
	chunks       int  // column chunks of C (when B is not shared)
	ap           *buf // the packed A block (all of k)
	bp           *buf // all of B packed, when shared
	epi          Epilogue
	direct       *PackedA // A read in place (ap unused), B not shared
}

// block computes the rows of C from ic (an A block) in two parallel loops
// on the helper pool (internal/pool; each loop returns when all its
// indexes are done, and raises a panic of any of them here): first the
// A block is packed (every k block; with a narrow B, the first block also
// packs all of B, once), four micro-panels per index; then the work items,
// each running all k blocks in turn so that its C tile stays in cache: a
// chunk of C columns (packing its B block per k block) or, with the
// shared B, a band of A micro-panels (shared out evenly) across a block of
// B micro-panels (all of them, unless the bands are too few for the
// threads). With d.direct set, A is read in place: nothing is packed up
// front, and each chunk's B block is multiplied by all rows of A.
func (d *driver) block(ic, threads int) {
	mr, nr := d.ks.mr, d.ks.nr
	mb := min(d.rowsA, d.m-ic)
	var ap []float32
	if d.ap != nil {
		ap = d.ap.s
	}
	panels := (mb + mr - 1) / mr
	nkb := (d.k + d.kcb - 1) / d.kcb
	bpanels := (d.n + nr - 1) / nr
	unitsA := nkb * panels
	units := unitsA
	if d.shared && ic == 0 && !d.prepacked {
		units += nkb * bpanels
	}
	if d.direct != nil {
		units = 0 // nothing to pack up front
	}
	pool.Run(threads, (units+3)/4, func(g int) {
		for u := 4 * g; u < min(4*g+4, units); u++ {
			if u < unitsA {
				pc, p := u/panels*d.kcb, u%panels
				kb := min(d.kcb, d.k-pc)
				off := pc*panels*mr + p*mr*kb
				if u == 4*g && u+3 < unitsA && p+3 < panels && (p+4)*mr <= mb &&
					packAPanels4(d.ks, ap[off:off+4*mr*kb], d.a, ic+p*mr, pc, kb) {
					u += 3 // the group's four full panels of one k block at once
					continue
				}
				packAPanel(d.ks, ap[off:off+mr*kb], d.a, ic+p*mr, pc, min(mr, mb-p*mr), kb)
				continue
			}
			v := u - unitsA
			pc, j := v/bpanels*d.kcb, v%bpanels*nr
			kb := min(d.kcb, d.k-pc)
			packBBlock(nr, d.bp.s[pc*bpanels*nr+j*kb:], d.b, pc, j, kb, min(nr, d.n-j))
		}
	})
	bands := (panels + rowItem - 1) / rowItem
	cols, items := 1, d.chunks
	if d.shared {
		if threads > 1 && bands < chunkItems*threads {
			cols = min(bpanels, (chunkItems*threads+bands-1)/bands)
		}
		if d.prepacked {
			// a wide prepacked B: column blocks of at most chunkMax
			// columns, whose k blocks stay in L2 across the A panels
			cols = max(cols, min(bpanels, (d.n+chunkMax-1)/chunkMax))
		}
		if threads > 1 {
			cols = evenItems(bands, cols, bpanels, threads)
		}
		items = bands * cols
	}
	pool.Run(threads, items, func(it int) {
		tile := tiles.Get().(*[maxTile]float32) // on the heap either way: the kernels are called through func values
		defer tiles.Put(tile)
		if d.shared {
			band, cb := it/cols, it%cols
			r0 := band * panels / bands * mr
			rows := min((band+1)*panels/bands*mr, mb) - r0
			jc := cb * bpanels / cols * nr
			nb := min((cb+1)*bpanels/cols*nr, d.n) - jc
			for pc := 0; pc < d.k; pc += d.kcb {
				kb := min(d.kcb, d.k-pc)
				first := pc == 0 && !d.acc
				macro(d.ks, ap[pc*panels*mr+r0*kb:], d.bp.s[pc*bpanels*nr+jc*kb:], rows, nb, kb, d.c[(ic+r0)*d.ldc+jc:], d.ldc, first, tile)
			}
			if d.epi != nil && rows > 0 && nb > 0 {
				d.epi(ic+r0, ic+r0+rows, jc, jc+nb)
			}
			return
		}
		bp := getBuf(d.kcb * d.chunkW)
		defer putBuf(bp)
		jc := it * bpanels / d.chunks * nr
		nb := min((it+1)*bpanels/d.chunks*nr, d.n) - jc
		for t, pc := 0, 0; pc < d.k; t, pc = t+1, pc+d.kcb {
			kb := min(d.kcb, d.k-pc)
			first := pc == 0 && !d.acc
			packBBlock(nr, bp.s, d.b, pc, jc, kb, nb)
			if d.direct != nil {
				d.direct.MulBlock(ic, ic+mb, bp.s, t, 0, nb, Out{Data: d.c[jc:], Ldc: d.ldc}, d.acc)
				continue
			}
			macro(d.ks, ap[pc*panels*mr:], bp.s, mb, nb, kb, d.c[ic*d.ldc+jc:], d.ldc, first, tile)
		}
		if d.epi != nil && nb > 0 {
			d.epi(ic, ic+mb, jc, jc+nb)
		}
	})
}

// evenItems returns the fewest columns of items, from cols up to limit,
// that make rows·cols items a multiple of the threads, or limit: pool.Run
// gives each thread a contiguous share of the items, and llama_small's
// 64×256·256×688 made 3×3, five for one core and four for the other.
func evenItems(rows, cols, limit, threads int) int {
	for rows*cols%threads != 0 && cols < limit {
		cols++
	}
	return cols
}

// macro multiplies a packed mb×kb block of A by a packed kb×nb block of B
// into C: for each A micro-panel (kept in L1) it streams the B micro-panels.
// With first set it overwrites C, else it accumulates.
func macro(ks *kernelSet, ap, bp []float32, mb, nb, kb int, c []float32, ldc int, first bool, tile *[maxTile]float32) {
	mr, nr := ks.mr, ks.nr
	for ir := 0; ir < mb; ir += mr {
		mm := min(mr, mb-ir)
		apanel := ap[ir*kb : ir*kb+mr*kb]
		for jr := 0; jr < nb; jr += nr {
			tileMul(ks, kb, apanel, 0, bp[jr*kb:jr*kb+nr*kb], mm, min(nr, nb-jr), c[ir*ldc+jr:], ldc, first, tile)
		}
	}
}

// dotTailOn switches the tail-column kernels (SetDotTail).
var dotTailOn = true

// dotTailCols is the most columns of a last micro-panel tileMul hands to
// the tail kernels (dotTail), one column at a time (Zen 2: each column
// about a twelfth of the 16-column kernel's time over the panel).
const dotTailCols = 2

// SetDotTail switches the kernels for a last micro-panel of one or two
// columns (dot products along k, in an order of their own for each form
// of A, where the micro-kernels' sums run in the same order for all) and
// returns the previous setting: tests comparing two forms of A bit for
// bit turn them off.
func SetDotTail(on bool) bool {
	old := dotTailOn
	dotTailOn = on
	return old
}

// tileMul computes one mm×nn tile (mm ≤ mr, nn ≤ nr) of C (+)= A·B from an
// A and a B micro-panel: full tiles and full-width partial-row tiles go
// straight into C, the rest through tile. With lda > 0 the A "panel" is
// mm rows of a row-major A read in place (ks.direct), lda apart; with
// lda < 0, of a column-major one, k steps -lda apart (ks.directT).
func tileMul(ks *kernelSet, kb int, apanel []float32, lda int, bpanel []float32, mm, nn int, c []float32, ldc int, first bool, tile *[maxTile]float32) {
	mr, nr := ks.mr, ks.nr
	if nn <= dotTailCols && dotTail(ks, kb, apanel, lda, bpanel, mm, nn, c, ldc, first) {
		// a last panel of one or two columns: dot products along k (the
		// 16-column kernel cost as much as a whole panel for them:
		// ResNet's 512-channel 7×7 layers, 49 columns, a fifth of their
		// time in it)
		return
	}
	if lda != 0 {
		kernels, _, stride := ks.directFor(lda)
		w := nr
		if lda > 0 && nn <= nr/2 && ks.half != nil {
			kernels, w = ks.half, nr/2
		}
		lda = stride
		if nn == w {
			kernels[mm][b2i(first)](kb, apanel, lda, bpanel, c, ldc)
			return
		}
		kernels[mm][1](kb, apanel, lda, bpanel, tile[:], nr)
		for i := 0; i < mm; i++ {
			addTo(c[i*ldc:i*ldc+nn], tile[i*nr:i*nr+nn], first)
		}
		return
	}
	if nn <= nr/2 && ks.phalf != nil {
		// the first half of the panel alone
		k := ks.phalf[mm]
		if nn == nr/2 {
			k[b2i(first)](kb, apanel, bpanel, c, ldc)
			return
		}
		k[1](kb, apanel, bpanel, tile[:], nr)
		for i := 0; i < mm; i++ {
			addTo(c[i*ldc:i*ldc+nn], tile[i*nr:i*nr+nn], first)
		}
		return
	}
	if nn == nr && (mm == mr || ks.part != nil) {
		switch {
		case mm == mr && first:
			ks.set(kb, apanel, bpanel, c, ldc)
		case mm == mr:
			ks.acc(kb, apanel, bpanel, c, ldc)
		case first:
			ks.part[mm][1](kb, apanel, bpanel, c, ldc)
		default:
			ks.part[mm][0](kb, apanel, bpanel, c, ldc)
		}
		return
	}
	ks.set(kb, apanel, bpanel, tile[:], nr)
	for i := 0; i < mm; i++ {
		addTo(c[i*ldc:i*ldc+nn], tile[i*nr:i*nr+nn], first)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addTo stores (first) or adds src into dst.
func addTo(dst, src []float32, first bool) {
	if first {
		copy(dst, src)
		return
	}
	src = src[:len(dst)]
	for j := range dst {
		dst[j] += src[j]
	}
}
