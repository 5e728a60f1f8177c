package native

// A fast path for float32 2-D convolutions in PyTorch's NCHW layout
// (input [b, f, 0, 1], kernel [o, i, 0, 1], output [b, f, 0, 1]): per
// feature group, the output [oc, b·oh·ow] is one product of the kernel as
// stored ([oc, c·kh·kw]) by the im2col matrix [c·kh·kw, b·oh·ow] on the
// packed SIMD GEMM of package gemm, written in place into the result (no
// transposes). The im2col matrix is never built: the GEMM packs it block
// by block straight from the input (implicit GEMM, fast_conv_pack.go).
//
// It wraps the stablehlo.convolution kernel of conv.go (fast_hooks.go) and
// hands every case it does not cover — other layouts and element types,
// lhs dilation, batch groups, window reversal, negative padding, small
// products — to it. Like dot_fast.go it sums in blocks with fused
// multiply-adds, so results differ from the exact kernel's order in the
// last bits only.

import (
	"slices"
	"sync"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// fastConvEnabled switches the fast path (tests compare both).
var fastConvEnabled = true

func init() {
	wrapKernel("stablehlo.convolution", func(slow Kernel) Kernel {
		return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
			if fastConvEnabled {
				if out, ok := fastConv(env, op, in); ok {
					fastHits.Add(1)
					return []Value{out}, nil
				}
			}
			return slow(env, op, in)
		}
	})
}

// conv2d is a float32 NCHW convolution in the shapes the fast path runs.
type conv2d struct {
	batch, inC, h, w   int
	outC, kerC, kh, kw int
	oh, ow             int
	sh, sw, dh, dw     int
	padT, padL, groups int
	lhs, rhs           []float32
	outShape           []int64
	geom               gemm.ConvGeom // for gemm.PackConv
	vx                 []int         // per kernel column: output columns inside the image (setValidColumns)
	// epi, when set, is the consumer loop applied to each finished part
	// of the output (fast_conv_epi.go); epiLater is set where run left it
	// to the caller, to run over the whole output after.
	epi      *convEpilogue
	epiLater bool
	epiBuf   convEpilogue // where convEpiFast sets epi up
	direct   bool         // run by runDirect (fast_dwconv.go)
	small    bool         // run by runSmall (fast_conv_small.go)
	// op and kernel name the weights for prepacking (fast_dot_prepack.go),
	// where weight is set (isWeightOperand)
	op     *stablehlo.Op
	kernel *literal.Literal
	weight bool
	// ldh, ldw > 1: an input dilation (lhs_dilation, the input gradient of
	// a strided convolution): h and w are the dilated extents, and lhs the
	// input with zeros between its elements (dilate, per call) over the
	// srcH×srcW planes the program passes.
	ldh, ldw, srcH, srcW int
	dilH, dilW           int // the dilated planes' extents (h, w may be merged later)
	// outFB: the output is [outC, batch, oh, ow] (dimension numbers
	// ->[f, b, 0, 1]: a weight gradient, whose "batch" is the input's
	// channels, in the weight's layout), written so by the GEMM's output
	// strides; the other paths write NCHW and transpose (runFB).
	outFB bool
	// subpix: an input dilation run phase by phase on the input as it is
	// (runSubpix, fast_conv_subpix.go) instead of over the dilated input
	subpix bool
	// kernIO: the kernel is stored [i, o, kh, kw] (a transposed
	// convolution's weight as it is); revH, revW: window reversal. run
	// reads such a kernel through one copy into [o, i, kh, kw] order
	// (plainWeights).
	kernIO, revH, revW bool
}

// fastConv runs the convolution when it is one the fast path covers;
// ok false means "use the exact kernel" (including every malformed op,
// so that the exact kernel reports the error).
// The result comes from the run's arena uncleared: run writes every
// element (the first k block of every tile overwrites it).
func fastConv(env Env, op *stablehlo.Op, in []Value) (*literal.Literal, bool) {
	c, ok := fastConvShape(op, in)
	if !ok {
		return nil, false
	}
	c.weight = isWeightOperand(env, op, 1)
	out, err := takeResult(env, dtype.F32, c.outShape)
	if err != nil {
		return nil, false
	}
	dst, store := f32Out(out.Data)
	c.run(dst)
	store()
	c.release()
	return out, true
}

// convs recycles the conv2d of each call (fastConvShape): one is about
// 0.5 KB, and a MobileNet run made ~50.
var convs = sync.Pool{New: func() any { return new(conv2d) }}

// release hands c back for a later call; nothing may use it after.
func (c *conv2d) release() {
	*c = conv2d{}
	convs.Put(c)
}

// convShapeEntry is the last conv2d planned for an op: reading the op's
// attributes cost more than a small convolution's whole run, so each op
// keeps its plan while its operand shapes stay the same.
type convShapeEntry struct {
	lshape, rshape []int64
	c              conv2d // without its operands' data
}

var convShapes opCache[*convShapeEntry]

func fastConvShape(op *stablehlo.Op, in []Value) (*conv2d, bool) {
	c, ok := fastConvShapeOf(op, in)
	if ok && (c.ldh > 1 || c.ldw > 1) && !c.subpix {
		c.lhs = c.dilate(c.lhs)
	}
	return c, ok
}

// dilate returns src's [batch, inC, srcH, srcW] planes spread over the
// [batch, inC, h, w] ones, element (i, j) at (i·ldh, j·ldw), zeros
// between. The GEMM then multiplies those zeros too (ldh·ldw times the
// useful work), at its own speed instead of the exact kernel's.
func (c *conv2d) dilate(src []float32) []float32 {
	planes := c.batch * c.inC
	n := c.dilH * c.dilW
	dst := make([]float32, planes*n)
	runParts(planes, min(Threads(), planes, max(1, planes*n/(1<<16))), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			s := src[p*c.srcH*c.srcW : (p+1)*c.srcH*c.srcW]
			d := dst[p*n : (p+1)*n]
			for i := 0; i < c.srcH; i++ {
				row := d[i*c.ldh*c.dilW:]
				for j, v := range s[i*c.srcW : (i+1)*c.srcW] {
					row[j*c.ldw] = v
				}
			}
		}
	})
	return dst
}

// fastConvShapeOf is fastConvShape before the input is dilated.
func fastConvShapeOf(op *stablehlo.Op, in []Value) (*conv2d, bool) {
	if op.Name != "stablehlo.convolution" || len(in) != 2 {
		return nil, false
	}
	lhs, ok1 := in[0].(*literal.Literal)
	rhs, ok2 := in[1].(*literal.Literal)
	if !ok1 || !ok2 || lhs.DType != dtype.F32 || rhs.DType != dtype.F32 || lhs.Rank() != 4 || rhs.Rank() != 4 {
		return nil, false
	}
	if e, ok := convShapes.get(op); ok && slices.Equal(e.lshape, lhs.Shape) && slices.Equal(e.rshape, rhs.Shape) {
		c := convs.Get().(*conv2d)
		*c = e.c
		c.lhs, c.rhs, c.kernel = f32View(lhs.Data), f32View(rhs.Data), rhs
		return c, true
	}
	c, ok := planConvShape(op, in, lhs, rhs)
	if ok {
		e := &convShapeEntry{lshape: slices.Clone(lhs.Shape), rshape: slices.Clone(rhs.Shape), c: *c}
		e.c.lhs, e.c.rhs, e.c.kernel = nil, nil, nil
		convShapes.put(op, e)
	}
	return c, ok
}

// planConvShape is fastConvShape without the cache.
func planConvShape(op *stablehlo.Op, in []Value, lhs, rhs *literal.Literal) (*conv2d, bool) {
	if computeResultDType(op, 0, lhs.DType) != dtype.F32 {
		return nil, false
	}
	cp, err := readConvParams(op, in)
	if err != nil || cp.batchGroups != 1 {
		return nil, false
	}
	d := cp.dims
	outFB := d.OutputBatchDim == 1 && d.OutputFeatureDim == 0
	kernIO := d.KernelOutputFeatureDim == 1 && d.KernelInputFeatureDim == 0 && cp.featureGroups == 1
	if d.InputBatchDim != 0 || d.InputFeatureDim != 1 || !kernIO && (d.KernelOutputFeatureDim != 0 || d.KernelInputFeatureDim != 1) ||
		!outFB && (d.OutputBatchDim != 0 || d.OutputFeatureDim != 1) || !isSeq(d.InputSpatialDims) || !isSeq(d.KernelSpatialDims) || !isSeq(d.OutputSpatialDims) {
		return nil, false
	}
	for i := 0; i < 2; i++ {
		if cp.lhsDil[i] < 1 || cp.padLo[i] < 0 || cp.padHi[i] < 0 {
			return nil, false
		}
	}
	c := &conv2d{
		batch: int(lhs.Shape[0]), inC: int(lhs.Shape[1]), h: int(lhs.Shape[2]), w: int(lhs.Shape[3]),
		outC: int(rhs.Shape[0]), kerC: int(rhs.Shape[1]), kh: int(rhs.Shape[2]), kw: int(rhs.Shape[3]),
		sh: int(cp.stride[0]), sw: int(cp.stride[1]), dh: int(cp.rhsDil[0]), dw: int(cp.rhsDil[1]),
		padT: int(cp.padLo[0]), padL: int(cp.padLo[1]), groups: cp.featureGroups, op: op, kernel: rhs,
		ldh: int(cp.lhsDil[0]), ldw: int(cp.lhsDil[1]), srcH: int(lhs.Shape[2]), srcW: int(lhs.Shape[3]),
		outFB: outFB, kernIO: kernIO, revH: cp.reverse[0], revW: cp.reverse[1],
	}
	if kernIO {
		c.outC, c.kerC = c.kerC, c.outC
	}
	if c.ldh > 1 || c.ldw > 1 {
		if c.h < 1 || c.w < 1 {
			return nil, false
		}
		c.h, c.w = (c.h-1)*c.ldh+1, (c.w-1)*c.ldw+1
		c.dilH, c.dilW = c.h, c.w
	}
	if c.kerC*c.groups != c.inC || c.outC%c.groups != 0 || c.kh < 1 || c.kw < 1 || c.batch < 1 || c.outC < 1 {
		return nil, false
	}
	spanH, spanW := (c.kh-1)*c.dh+1, (c.kw-1)*c.dw+1
	ph, pw := c.h+int(cp.padLo[0]+cp.padHi[0]), c.w+int(cp.padLo[1]+cp.padHi[1])
	if ph < spanH || pw < spanW {
		return nil, false
	}
	c.oh, c.ow = (ph-spanH)/c.sh+1, (pw-spanW)/c.sw+1
	c.outShape = []int64{int64(c.batch), int64(c.outC), int64(c.oh), int64(c.ow)}
	if outFB {
		c.outShape[0], c.outShape[1] = c.outShape[1], c.outShape[0]
	}
	if checkComputedShape(op, 0, c.outShape) != nil {
		return nil, false
	}
	c.lhs, c.rhs = f32View(lhs.Data), f32View(rhs.Data)
	if c.subpix = c.subpixOK(); c.subpix {
		return c, true // by phases of the input dilation (fast_conv_subpix.go)
	}
	c.choosePath()
	return c, true
}

// choosePath picks how run computes the convolution, from its shape: the
// direct loops of depthwise and small-group convolutions, the small
// products' loops, or the GEMM (a pointwise convolution's image seen as
// one row).
func (c *conv2d) choosePath() {
	if c.direct = c.useDirect(); c.direct {
		return // depthwise and small groups: fast_dwconv.go, at any size
	}
	// per group product: (outC/groups) × (oh·ow) × (kerC·kh·kw)
	dense := c.oh*c.ow == 1 && c.kh == c.h && c.kw == c.w && c.padT == 0 && c.padL == 0
	perGroup := int64(c.outC/c.groups) * int64(c.oh*c.ow) * int64(c.kerC*c.kh*c.kw)
	if dense || perGroup < fastGemmMinFlops && int64(c.batch)*int64(c.groups)*perGroup < smallConvMaxWork {
		// too small for the GEMM, or a matrix-vector product per image
		// (the kernel covers the image): direct loops (fast_conv_small.go).
		// Many small images together (a weight gradient's "batch" is the
		// input's channels) are one large GEMM.
		c.small = true
		return
	}
	if c.kh == 1 && c.kw == 1 && c.sh == 1 && c.sw == 1 && c.oh == c.h && c.ow == c.w {
		// pointwise (no padding either): the same convolution over the image
		// seen as one row, whose column runs span whole micro-panels
		c.w, c.ow = c.h*c.w, c.oh*c.ow
		c.h, c.oh = 1, 1
	}
}

func isSeq(d []int64) bool { return len(d) == 2 && d[0] == 2 && d[1] == 3 }

// run computes the convolution into dst ([batch, outC, oh, ow]) (the direct
// cases by runDirect, fast_dwconv.go; pointwise ones and those a tap table
// covers on the strip kernels, fast_conv_strip.go and fast_conv_taps.go),
// otherwise as one implicit GEMM per group: the group's weights [ocPer,
// kerC·kh·kw], read in place by the micro-kernels, times the im2col columns
// of all the images side by side (batch·oh·ow columns, so that small late
// layers fill whole micro-panels), packed block by block straight from the
// input (fast_conv_pack.go). The work is cut into items the cores take in
// turn: column chunks, or, when the columns are few, row bands over the
// columns packed once and shared. With c.epi set, each item ends by
// applying it to the part of dst it finished.
func (c *conv2d) run(dst []float32) {
	if (c.kernIO || c.revH || c.revW) && !c.packIO() && !c.subpixAsStored() {
		w := c.plainWeights()
		plain := *c
		plain.kernIO, plain.revH, plain.revW, plain.rhs = false, false, false, w[:c.outC*c.kerC*c.kh*c.kw]
		plain.run(dst)
		c.epi, c.epiLater = plain.epi, plain.epiLater
		gemm.PutBuffer(w)
		return
	}
	if c.outFB && (c.subpix || c.direct || c.small || c.useDirectConv() || c.useTN() || c.epi != nil) {
		c.runFB(dst)
		return
	}
	if c.subpix {
		c.runSubpix(dst)
		return
	}
	if c.direct {
		c.runDirect(dst)
		return
	}
	if c.small {
		c.runSmall(dst)
		return
	}
	if c.useDirectConv() && !c.stemTaps() {
		c.runDirectConv(dst) // a stem: fast_conv_direct.go
		return
	}
	if c.useTN() && c.runTN(dst) {
		return // few output positions: fast_conv_tn.go
	}
	if c.useWinograd() && c.runWinograd(dst) {
		return // 3×3, stride 1: fast_conv_winograd.go
	}
	if c.useTapRows() {
		c.runTapRows(dst) // AVX2, B read in place: fast_conv_taprow.go
		return
	}
	ocPer, k, n := c.outC/c.groups, c.kerC*c.kh*c.kw, c.oh*c.ow
	cols := c.batch * n // per group
	hw := c.h * c.w
	threads := c.gemmThreads()
	c.setValidColumns()
	c.geom = c.convGeom()

	images := func(g int) []float32 { return c.lhs[g*c.kerC*hw : (c.batch-1)*c.inC*hw+(g+1)*c.kerC*hw] }
	// outputs returns where each group's product goes, once epiRuns has
	// settled the epilogue: it runs on each micro-panel of rows as the
	// GEMM completes it, while it is in cache (after the whole chunk, a
	// 64-channel layer's rows 16 KB apart had left the cache: the epilogue
	// read them back from memory)
	outputs := func() []gemm.Out {
		outs := make([]gemm.Out, c.groups)
		for g := range outs {
			var done func(r0, r1, j0, j1 int)
			if c.epi != nil {
				done = func(r0, r1, j0, j1 int) { c.finish(g, r0, r1, j0, j1) }
			}
			if c.outFB { // [outC, batch, oh·ow]: an image's columns follow the last's, one matrix
				outs[g] = gemm.Out{Data: dst[g*ocPer*c.batch*n:], Ldc: c.batch * n, Done: done}
			} else {
				outs[g] = gemm.Out{Data: dst[g*ocPer*n:], Ldc: n, Cols: n, ImgStride: c.outC * n, Done: done}
			}
		}
		return outs
	}
	pointwise := c.kh == 1 && c.kw == 1 && c.sh == 1 && c.sw == 1 && c.padT == 0 && c.padL == 0 &&
		c.oh == c.h && c.ow == c.w && c.batch == 1
	if c.useStrips(pointwise) {
		c.runStrips(threads, ocPer, k, n, images, outputs())
		return
	}
	if tt := c.tapTable(); tt != nil {
		c.runTaps(tt, threads, ocPer, n, images, outputs()) // stride 1, rows as wide: fast_conv_taps.go
		return
	}
	if c.useSplitK(pointwise, k, ocPer, cols) {
		c.runSplitK(threads, k, n, images(0), dst) // projections on small planes: fast_conv_splitk.go
		return
	}

	// The weights as stored are the A operand (gemm.NewBandA): the direct
	// micro-kernels read their rows in place, so a run neither packs nor
	// keeps a copy of them.
	weights := func(g int) gemm.Matrix { return gemm.RowMajor(c.rhs[g*ocPer*k:(g+1)*ocPer*k], k) }
	var pas []*gemm.PackedA
	if c.kernIO {
		// stored [kerC, outC, kh, kw] (packIO): each band's rows packed
		// straight from there as the GEMM uses them
		pas = []*gemm.PackedA{gemm.NewBandAFunc(ocPer, k, c.fillIO)}
	} else {
		pas = c.prepackedWeights(ocPer, k, weights)
	}
	if pas == nil {
		pas = make([]*gemm.PackedA, c.groups)
		for g := range pas {
			pas[g] = gemm.NewBandA(ocPer, k, weights(g))
		}
	}
	mr, nr := pas[0].Rows(), pas[0].Cols()
	planes := c.gatherPlanes(threads) // stride 2: the gathers' phase planes, or nil (fast_conv_pack.go)
	defer gemm.PutBuffer(planes)
	// packer returns the B packer of group g's columns [j0, j0+nb) with its
	// tables (the gather's, or where it cannot run, the column runs) and
	// the function releasing them
	packer := func(g, j0, nb int) (gemm.BPacker, func()) {
		if pointwise {
			// the im2col matrix is the image itself, [kerC, h·w] row-major:
			// the GEMM's copying packer, with no column tables to build
			return gemm.MatrixPacker(gemm.RowMajor(images(g), n)), func() {}
		}
		var runs []colRun
		table := c.geom.Cols(j0, nb)
		if table == nil || !convGather {
			runs = c.columnRuns(nil, nr, j0, nb)
		}
		src := images(g)
		return func(d []float32, nr, p0, kb, j0, nb int) { c.packB(src, planes, runs, table, d, nr, p0, kb, j0, nb) }, table.Release
	}

	panelsM, panelsN := (ocPer+mr-1)/mr, (cols+nr-1)/nr
	chunks := min(panelsN, (cols+convChunkCols-1)/convChunkCols)
	want := convItemsPerThread * threads
	if threads > 1 && c.groups*chunks < want {
		if c.sharedB(threads, nr) {
			// few columns: fast_conv_shared.go
			bands := min(panelsM, max((want+c.groups-1)/c.groups, (panelsM+1)/2))
			c.epiRuns(n)
			c.runSharedB(threads, bands, cols, pas, packer, outputs())
			return
		}
		chunks = min(panelsN, (want+c.groups-1)/c.groups)
	}
	if c.groups == 1 && chunks%threads != 0 {
		// equal chunks in a multiple of the cores: they finish together
		chunks = min(panelsN, roundUpInt(chunks, threads))
	}
	c.epiRuns(min(n, (cols+chunks-1)/chunks))
	outs := outputs()
	// each item packs its chunk of columns (whole micro-panels, chunks of
	// even width) block by block as the GEMM needs them
	parallel(threads, c.groups*chunks, func(it int) {
		g, ch := it/chunks, it%chunks
		j0, j1 := ch*panelsN/chunks*nr, min(cols, (ch+1)*panelsN/chunks*nr)
		pack, release := packer(g, j0, j1-j0)
		pas[g].Mul(0, ocPer, pack, j0, j1-j0, outs[g], false)
		release()
	})
}

// gemmThreads is the cores run's GEMM path splits the convolution over.
func (c *conv2d) gemmThreads() int {
	ocPer, k, cols := c.outC/c.groups, c.kerC*c.kh*c.kw, c.batch*c.oh*c.ow
	return int(min(int64(Threads()), max(1, int64(c.groups)*int64(ocPer)*int64(cols)*int64(k)/convWorkPerThread)))
}

// runFB runs a convolution with an [outC, batch, oh, ow] output on a path
// that writes NCHW: into scratch, then transposed into dst.
func (c *conv2d) runFB(dst []float32) {
	n := c.oh * c.ow
	tmp := gemm.GetBuffer(len(dst))
	defer gemm.PutBuffer(tmp)
	nchw := *c
	nchw.outFB = false
	nchw.run(tmp[:len(dst)])
	shape := []int64{int64(c.outC), int64(c.batch), int64(n)}
	newCopyPlan(4, shape, literal.Strides(shape), []int64{int64(n), int64(c.outC * n), 1}).run(floatBytes(dst), 0, floatBytes(tmp[:len(dst)]), 0)
}

const (
	smallConvMaxWork   = 1 << 21  // multiply-adds of all images above which small products take the GEMM
	convWorkPerThread  = 1 << 17  // multiply-adds per extra core at least (~2.5 µs; a fork-join costs ~0.2 µs, pool.BenchmarkRunOverhead; at 1 << 18 mobilenet_v3_small's 8×8 pointwise layers, 10 µs each, ran on one core)
	convItemsPerThread = 8        // work items per core, for balance
	convChunkCols      = 256      // widest column chunk (its packed B block stays in L2)
	convSharedCols     = 512      // columns (all images) packed once and shared by row bands at most
	convSharedMax      = 16 << 20 // floats of packed B (two k blocks) shared between row bands at most
)

func roundUpInt(x, m int) int { return (x + m - 1) / m * m }

// validRange returns the output positions [lo, hi) whose input position
// off + o·stride lies in [0, size), for o in [0, count).
func (c *conv2d) validRange(off, stride, size, count int) (int, int) {
	lo := 0
	if off < 0 {
		lo = (-off + stride - 1) / stride
	}
	hi := count
	if last := off + (count-1)*stride; last >= size {
		hi = (size-1-off)/stride + 1
		if size-1-off < 0 {
			hi = 0
		}
	}
	if lo > hi {
		lo = hi
	}
	return min(lo, count), min(hi, count)
}
