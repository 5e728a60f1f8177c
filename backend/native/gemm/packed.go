package gemm

import "sync"

// Products on packed operands, for callers that run one A against many B
// operands or build B themselves (a convolution: its weights against every
// image, B read straight from the image, "implicit GEMM"). The caller owns
// the parallelism: PackBlock, MulBlock and Mul calls are independent and
// safe to run from several goroutines at once.

// BPacker packs rows [p0, p0+kb) × columns [j0, j0+nb) of a B operand into
// micro-panels of nr columns: column j0+j, row p0+q goes to
// dst[j/nr*nr*kb + q*nr + j%nr]. The columns of the last panel past nb must
// be written as zeros.
type BPacker func(dst []float32, nr, p0, kb, j0, nb int)

// PackedA is an m×k A operand for products against B operands packed by
// the caller. Where A is row-major and the CPU has direct kernels, the
// micro-kernels read it in place; else it is packed band by band on use,
// in the layout of the micro-kernels: per k block, micro-panels of mr rows.
type PackedA struct {
	ks             *kernelSet
	m, k, kcb      int
	mr, nr, panels int
	src            Matrix
	lda            int // > 0: src read in place by the direct kernels, rows lda apart; < 0: column-major, k steps -lda apart
	// pre, when set, holds all of A packed up front (PackA): per k block,
	// the micro-panels of mr rows, as sgemm packs its A blocks
	pre []float32
	// fill, when set, packs A's micro-panels instead of src (NewBandAFunc)
	fill func(dst []float32, r0, rows, pc, kb int)
}

// PackA returns an m×k PackedA packed once, now, into micro-panels (per k
// block, panels of Rows() rows, each Rows() values per k step): for an A
// used in product after product, such as a convolution's weights run
// after run. The micro-kernels then read one contiguous stream per panel
// where the direct kernels read Rows() rows in place, each a short stream
// when k is small (a 1×1 convolution's weights). The result does not
// refer to a.
func PackA(m, k int, a Matrix) *PackedA { return packA(active, m, k, a) }

func packA(ks *kernelSet, m, k int, a Matrix) *PackedA {
	p := &PackedA{ks: ks, m: m, k: k, kcb: KBlock(k), mr: ks.mr, nr: ks.nr, panels: (m + ks.mr - 1) / ks.mr, src: a}
	p.pre = make([]float32, p.panels*p.mr*k)
	for pc := 0; pc < k; pc += p.kcb {
		kb := min(p.kcb, k-pc)
		for i := 0; i < p.panels; i++ {
			off := pc*p.panels*p.mr + i*p.mr*kb
			packAPanel(ks, p.pre[off:off+p.mr*kb], a, i*p.mr, pc, min(p.mr, m-i*p.mr), kb)
		}
	}
	p.src = Matrix{}
	return p
}

// Panel returns micro-panel i (rows i·Rows() on, Rows() values per k
// step, zero rows past m) of a PackA operand whose k fits one k block
// (KBlocks() == 1), or nil.
func (p *PackedA) Panel(i int) []float32 {
	if p.pre == nil || p.k > p.kcb || i < 0 || i >= p.panels {
		return nil
	}
	return p.pre[i*p.mr*p.k : (i+1)*p.mr*p.k]
}

// Bytes is the memory a PackA copy holds (0 for the others).
func (p *PackedA) Bytes() int { return 4 * len(p.pre) }

// Dims returns m and k.
func (p *PackedA) Dims() (m, k int) { return p.m, p.k }

// KBlock is the depth of the k blocks a product of depth k is cut into.
func KBlock(k int) int {
	nk := (k + kcMax - 1) / kcMax
	return min(k, roundUp((k+nk-1)/nk, 8)) // k blocks of even depth
}

// NewBandA returns an m×k PackedA that packs nothing up front. Where A is
// row-major (unit column stride) and the CPU has direct kernels, the
// micro-kernels read it in place and it is never packed; else Mul and
// MulPacked pack the rows of their band, one k block at a time, into
// scratch memory right before using them. For callers whose row bands use
// their rows once (bands of A against a B packed once and shared), this
// saves writing the packed copy out to memory and reading it back.
func NewBandA(m, k int, a Matrix) *PackedA { return newBandA(active, m, k, a) }

func newBandA(ks *kernelSet, m, k int, a Matrix) *PackedA {
	p := new(PackedA)
	p.initBand(ks, m, k, a)
	return p
}

// initBand sets p to newBandA's PackedA in place.
func (p *PackedA) initBand(ks *kernelSet, m, k int, a Matrix) {
	*p = PackedA{ks: ks, m: m, k: k, kcb: KBlock(k), mr: ks.mr, nr: ks.nr, panels: (m + ks.mr - 1) / ks.mr, src: a}
	switch {
	case a.ColStride == 1 && a.RowStride > 0 && ks.direct != nil && directA:
		p.lda = a.RowStride
	case colMajorDirect(ks, m, a):
		p.lda = -a.ColStride
	}
}

// colMajorDirect reports whether the m rows of A are read in place
// column-major: rows side by side (a transposed operand, as a weight
// gradient's xᵀ), where the CPU has kernels for it and they win. With
// register broadcasts (Intel) they lose to packing from 256 rows up: a
// 1024×128×256 product ran 173 GFLOP/s in place against 246 packed,
// 512×128×256 196 against 264, while 128 rows ran 188 against 174
// (two threads, BenchmarkModelShapes' weight gradients).
func colMajorDirect(ks *kernelSet, m int, a Matrix) bool {
	return a.RowStride == 1 && a.ColStride > 0 && ks.directT != nil && directA && directTA && (ks.bcst || m <= directTMaxRows)
}

// directTMaxRows bounds the rows of an A read in place column-major by
// the register-broadcast kernels (colMajorDirect).
const directTMaxRows = 128

// directTA switches the column-major direct kernels (tests compare with
// packing).
var directTA = true

// NewBandAFunc returns an m×k PackedA packed band by band on use, as
// NewBandA's, by fill: fill(dst, r0, rows, pc, kb) writes
// dst[q·Rows()+r] = A[r0+r][pc+q] for r < rows ≤ Rows(), q < kb (the rows
// of a partial panel past rows are zero already). For an A that is no
// strided matrix (a convolution's kernel read transposed, its windows
// reversed: an input gradient's), packed straight from where it is.
func NewBandAFunc(m, k int, fill func(dst []float32, r0, rows, pc, kb int)) *PackedA {
	ks := active
	return &PackedA{ks: ks, m: m, k: k, kcb: KBlock(k), mr: ks.mr, nr: ks.nr, panels: (m + ks.mr - 1) / ks.mr, fill: fill}
}

// directA switches the direct kernels for A operands read in place (band
// A operands, and runDirectA's; tests and benchmarks compare with packing).
var directA = true

// aBlock returns k block pc (kb deep) of rows [r0, r1) of A: read in
// place (p.lda > 0: row r0 from column pc on), or packed into scratch.
func (p *PackedA) aBlock(pc, kb, r0, r1 int, scratch *buf) []float32 {
	if p.pre != nil {
		return p.pre[pc*p.panels*p.mr+r0*kb:]
	}
	if p.lda > 0 {
		return p.src.Data[p.src.Off+r0*p.lda+pc:]
	}
	if p.lda < 0 {
		return p.src.Data[p.src.Off+r0-pc*p.lda:]
	}
	for i := r0; i < r1; i += p.mr {
		off := (i - r0) * kb
		if p.fill != nil {
			panel := scratch.s[off : off+p.mr*kb]
			if r1-i < p.mr {
				clear(panel)
			}
			p.fill(panel, i, min(p.mr, r1-i), pc, kb)
			continue
		}
		packAPanel(p.ks, scratch.s[off:off+p.mr*kb], p.src, i, pc, min(p.mr, r1-i), kb)
	}
	return scratch.s
}

// scratchA returns the scratch a band of rows [r0, r1) needs (nil for an A
// read in place).
func (p *PackedA) scratchA(r0, r1 int) *buf {
	if p.lda != 0 || p.pre != nil {
		return nil
	}
	return getBuf(roundUp(r1-r0, p.mr) * min(p.kcb, p.k))
}

// Rows is the micro-panel height: row bands given to Mul start at a
// multiple of it.
func (p *PackedA) Rows() int { return p.mr }

// Cols is the micro-panel width of B (the nr a BPacker is called with).
func (p *PackedA) Cols() int { return p.nr }

// KBlocks is the number of k blocks (the units of PackBlock and MulBlock).
func (p *PackedA) KBlocks() int { return (p.k + p.kcb - 1) / p.kcb }

// BlockDepth is the number of rows of B (of k) in k block kblock.
func (p *PackedA) BlockDepth(kblock int) int { return min(p.kcb, p.k-kblock*p.kcb) }

// BlockLen is the length of a buffer for one k block of nb columns of B
// packed by PackBlock. A block's columns [j0, j0+nb), j0 a multiple of
// Cols(), are the part of it from BlockDepth(kblock)·j0 on.
func (p *PackedA) BlockLen(nb int) int { return min(p.kcb, p.k) * roundUp(nb, p.nr) }

// PackBlock packs k block kblock of columns [j0, j0+nb) of B into dst (of
// BlockLen(nb) at least), in the layout MulBlock reads.
func (p *PackedA) PackBlock(dst []float32, pack BPacker, kblock, j0, nb int) {
	pc := kblock * p.kcb
	kb := min(p.kcb, p.k-pc)
	w := roundUp(nb, p.nr)
	pack(dst[:kb*w], p.nr, pc, kb, j0, nb)
}

// Out is where C goes. Its columns may run over several images (the
// images of a batched convolution side by side): column j is column
// j % Cols of image j / Cols, whose C starts at Data[j/Cols*ImgStride],
// rows Ldc apart. Cols 0 means one image.
//
// Done, where set, is called once the last k block has been added to a
// micro-panel of rows [r0, r1) over the call's columns [j0, j1): those
// rows' elements of C are final and still in the first cache levels, the
// place for an epilogue (a bias, a batch norm, an activation) to run
// over them. It runs on the goroutine that computed them, its columns
// counted from DoneCol (a caller's chunk of C starting there).
type Out struct {
	Data                 []float32
	Ldc, Cols, ImgStride int
	Done                 func(r0, r1, j0, j1 int)
	DoneCol              int
}

// MulBlock computes rows [r0, r1) of C (+)= A·B over k block kblock
// alone, for columns [j0, j0+nb) of B, that block packed into bp by
// PackBlock. r0 is a multiple of Rows(). Block 0 with accumulate unset
// overwrites C, any other adds to it: MulBlock for each block in turn is
// the product.
func (p *PackedA) MulBlock(r0, r1 int, bp []float32, kblock, j0, nb int, out Out, accumulate bool) {
	if !p.band(r0, r1, nb) {
		return
	}
	tile := tiles.Get().(*[maxTile]float32)
	defer tiles.Put(tile)
	pc := kblock * p.kcb
	kb := min(p.kcb, p.k-pc)
	w := roundUp(nb, p.nr)
	scratch := p.scratchA(r0, r1)
	if pc+kb < p.k {
		out.Done = nil
	}
	macroOut(p.ks, p.aBlock(pc, kb, r0, r1, scratch), p.lda, bp[:kb*w], r0, r1-r0, j0, nb, kb, out, pc == 0 && !accumulate, tile)
	if scratch != nil {
		putBuf(scratch)
	}
}

// tiles holds the scratch tiles of MulBlock and Mul (a tile on the stack
// escapes through the kernel function values: 1.8 KB allocated per call).
var tiles = sync.Pool{New: func() any { return new([maxTile]float32) }}

// Mul computes rows [r0, r1) of C (+)= A·B for columns [j0, j0+nb) of a B
// that pack writes block by block into scratch memory (kept in L2 between
// the micro-kernel calls). r0 is a multiple of Rows(); nb should stay
// within a few hundred columns.
func (p *PackedA) Mul(r0, r1 int, pack BPacker, j0, nb int, out Out, accumulate bool) {
	if !p.band(r0, r1, nb) {
		return
	}
	tile := tiles.Get().(*[maxTile]float32)
	defer tiles.Put(tile)
	w := roundUp(nb, p.nr)
	bp := getBuf(min(p.kcb, p.k) * w)
	defer putBuf(bp)
	scratch := p.scratchA(r0, r1)
	for pc := 0; pc < p.k; pc += p.kcb {
		kb := min(p.kcb, p.k-pc)
		pack(bp.s[:kb*w], p.nr, pc, kb, j0, nb)
		o := out
		if pc+kb < p.k {
			o.Done = nil
		}
		macroOut(p.ks, p.aBlock(pc, kb, r0, r1, scratch), p.lda, bp.s[:kb*w], r0, r1-r0, j0, nb, kb, o, pc == 0 && !accumulate, tile)
	}
	if scratch != nil {
		putBuf(scratch)
	}
}

// macroOut is macro for rows [r0, r0+mb) and columns [j0, j0+nb) of an
// Out: a tile within one image goes to tileMul, one across images is
// computed into tile and stored image by image; out.Done, where set, runs
// after each micro-panel of rows. With lda > 0, ap is A
// read in place (row r0 first, lda apart), with lda < 0 a column-major A
// read in place (row r0 first, k steps -lda apart), else packed
// micro-panels.
func macroOut(ks *kernelSet, ap []float32, lda int, bp []float32, r0, mb, j0, nb, kb int, out Out, first bool, tile *[maxTile]float32) {
	mr, nr := ks.mr, ks.nr
	for ir := 0; ir < mb; ir += mr {
		mm := min(mr, mb-ir)
		var apanel []float32
		switch {
		case lda > 0:
			apanel = ap[ir*lda:]
		case lda < 0:
			apanel = ap[ir:]
		default:
			apanel = ap[ir*kb : ir*kb+mr*kb]
		}
		direct, directN, stride := ks.directFor(lda)
		for jr := 0; jr < nb; jr += nr {
			nn := min(nr, nb-jr)
			i, j := r0+ir, j0+jr
			img, col, left := 0, j, nb-jr
			if out.Cols > 0 {
				img, col, left = j/out.Cols, j%out.Cols, out.Cols-j%out.Cols
			}
			if run := min(nb-jr, left) / nr; lda != 0 && run > 1 && directN != nil {
				// the full panels up to the image's end in one call
				directN[mm][b2i(first)](kb, apanel, stride, bp[jr*kb:jr*kb+run*nr*kb], out.Data[img*out.ImgStride+i*out.Ldc+col:], out.Ldc, run)
				jr += (run - 1) * nr
				continue
			}
			bpanel := bp[jr*kb : jr*kb+nr*kb]
			if nn <= left {
				tileMul(ks, kb, apanel, lda, bpanel, mm, nn, out.Data[img*out.ImgStride+i*out.Ldc+col:], out.Ldc, first, tile)
				continue
			}
			if lda != 0 {
				direct[mm][1](kb, apanel, stride, bpanel, tile[:], nr)
			} else {
				ks.set(kb, apanel, bpanel, tile[:], nr)
			}
			for t := 0; t < nn; {
				img, col := (j+t)/out.Cols, (j+t)%out.Cols
				seg := min(nn-t, out.Cols-col)
				for r := 0; r < mm; r++ {
					c := out.Data[img*out.ImgStride+(i+r)*out.Ldc+col:]
					addTo(c[:seg], tile[r*nr+t:r*nr+t+seg], first)
				}
				t += seg
			}
		}
		if out.Done != nil {
			out.Done(r0+ir, r0+ir+mm, out.DoneCol+j0, out.DoneCol+j0+nb)
		}
	}
}

// band reports whether rows [r0, r1) × nb columns is a non-empty product
// Mul can run, and panics on a band that does not start on a micro-panel
// (a caller's bug, not bad input).
func (p *PackedA) band(r0, r1, nb int) bool {
	if r0%p.mr != 0 || r0 < 0 || r1 > p.m {
		panic("gemm: row band not aligned to the micro-panels")
	}
	return r1 > r0 && nb > 0
}

// MatrixPacker is the BPacker of a strided matrix.
func MatrixPacker(b Matrix) BPacker {
	return func(dst []float32, nr, p0, kb, j0, nb int) { packBBlock(nr, dst, b, p0, j0, kb, nb) }
}
