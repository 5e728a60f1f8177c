package native

import (
	"sync/atomic"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// A depthwise convolution and the pointwise one that reads it (the
// middle and the end of a MobileNetV2 block: depthwise 3×3, batch norm,
// ReLU6, then the 1×1 projection and its batch norm) in one pass over
// bands of output rows. Run one after the other, the depthwise layer
// writes its whole output (144 channels of 56×56: 1.8 MB, past the
// second-level cache) split by channels over the cores, and the
// pointwise layer then reads it back split by columns, half of it from
// the other core: on a Zen 2 pair the projection took twice its time
// with its input in cache (144→24 on 56×56 141 → 235 µs; 32→16 on
// 112×112 90 → 186). Here each core takes an equal run of output rows
// and goes through it in bands of a few rows: per band, chunks of
// channels whose depthwise outputs (a scratch that stays in the first
// cache levels) get their epilogue and are multiplied at once by the
// pointwise weights' columns of those channels into the band's outputs
// (the AVX2 kernels that read B in place, gemm.TapRow), whose epilogue
// runs last. The depthwise output never exists whole.
//
// Where the depthwise layer's input is itself a pointwise convolution's
// result that nothing else reads (the block's expansion: 24→144
// channels on 56×56, the block's largest tensor), the three run as one:
// each core computes the expanded rows its bands read, all channels,
// into a window of rows that moves down with the bands, keeping the rows
// two bands share (the sweep's halo), and the expansion's output never
// exists whole either.
//
// Each output is computed by the same kernels over the same values in
// the same order as the two steps would: the sweep kernels' taps in
// order, and the pointwise sums in the GEMM's k blocks (gemm.KBlock),
// one chunk of channels each, whose sums are added to the outputs one
// after the other as the GEMM adds them, so the results are bit for bit
// the same (the expansion's as well: the same in-place-B kernels over the
// same k blocks). MobileNetV2 on a Zen 2 pair, paired runs: 1.065× faster
// with the pairs, 1.038× more with the expansions.

// dwpwEnabled switches the fused pairs at run time (tests compare both);
// dwpwRuns counts the pairs run fused, dwpwExpandRuns those of them run
// with their expansion.
var (
	dwpwEnabled    = true
	dwpwRuns       atomic.Int64
	dwpwExpandRuns atomic.Int64
)

// dwpwBandCols bounds the output positions of a band, and dwpwScratch the
// floats of a chunk's depthwise outputs over it (128 KB). In MobileNetV2
// on a Zen 2 pair, bands of 896 positions and scratches of 64K floats
// measured no faster, nor scratches of 16K.
const (
	dwpwBandCols = 448
	dwpwScratch  = 32 << 10
)

// dwpwMinPlane is the smallest depthwise output plane the pair runs fused
// alone. On a Zen 2 pair, in MobileNetV2 (each pair's two steps against
// the fused one, profile medians): 32 channels on 112×112 0.42 → 0.22
// ms, 96 on 112×112 at stride 2 (56×56 out) 0.39 → 0.31, 144 on 56×56
// level (0.35); 192 on 28×28, where the band's depthwise calls are short
// and the split over the cores uneven (28 rows in the sweep's blocks of
// four), 0.54 → 0.61 for the three layers.
const dwpwMinPlane = 56 * 56

// dwpwMinPlaneEx is the smallest depthwise input plane the pair runs
// fused with its expansion: there the expansion's output, the block's
// largest tensor, stays in the cache too. MobileNetV2's three blocks on
// 28×28 went 1.0 → 0.76 ms (the model 1.036× faster, paired), its
// 144-channel one at stride 2 (56×56 in, 28×28 out) 0.43 → 0.37.
const dwpwMinPlaneEx = 28 * 28

// pairConvSteps marks each convolution step whose result (its epilogue's)
// only a later step's convolution reads, as its input image, so that run
// may take the two as one (runDWPointwise, which checks the shapes). The
// steps between, weight folds (the batch norm folded into the second's
// weights) and constants alone, go before the first, whose result they
// cannot read: the pair's steps are then next to each other.
func pairConvSteps(ep *execPlan, bp *blockPlan, u *blockUses) {
	returned := map[int]bool{}
	for _, s := range bp.ret {
		returned[s] = true
	}
	convEpi := func(st *execStep) bool {
		return st.kind == stepOp && st.epi != nil && st.epi.dot == nil && st.wfold == nil &&
			st.op.op.Name == "stablehlo.convolution" && len(st.op.in) == 2
	}
	for i := 0; i+1 < len(ep.steps); i++ {
		a := &ep.steps[i]
		if !convEpi(a) || !a.epi.affine || a.epi.r >= 0 || !largePlanes(a.op.op) {
			continue
		}
		j := i + 1
		for j < len(ep.steps) && movable(&ep.steps[j]) {
			j++
		}
		if j == len(ep.steps) {
			break
		}
		b := &ep.steps[j]
		s := a.epi.g.out
		if !convEpi(b) || !grouped(a.op.op) || grouped(b.op.op) || !pointwiseKernel(b.op.op) || !imageOnly(s, b, u, returned) {
			continue
		}
		reads := false
		for _, nd := range b.epi.g.nodes {
			reads = reads || nd.kind == fkLeaf && nd.slot == s
		}
		if reads {
			continue
		}
		moveBefore(ep, i, j).pairNext = true
		markExpansion(ep, j-1, u, returned, convEpi)
		i = j // a step is in one pair at most
	}
}

// movable reports whether st may move before the steps ahead of it: a
// weight fold or a constant, which reads no step's result but theirs.
func movable(st *execStep) bool { return st.wfold != nil || st.kind == stepConst }

// imageOnly reports whether slot s, not returned, is read by step b alone,
// as its convolution's image (operand 0) and not its kernel.
func imageOnly(s int, b *execStep, u *blockUses, returned map[int]bool) bool {
	return !returned[s] && b.op.in[0] == s && b.op.in[1] != s && len(u.users[s]) == 1
}

// moveBefore moves step x to just before step y (x < y), the steps between
// one place up, and returns it.
func moveBefore(ep *execPlan, x, y int) *execStep {
	st := ep.steps[x]
	copy(ep.steps[x:y-1], ep.steps[x+1:y])
	ep.steps[y-1] = st
	return &ep.steps[y-1]
}

// markExpansion marks the pointwise convolution before the pair from step
// i whose result only the pair's depthwise convolution reads (an inverted
// residual block's expansion) to run with the pair, moving the weight
// folds and constants between them before it. A step already in a pair
// is not taken.
func markExpansion(ep *execPlan, i int, u *blockUses, returned map[int]bool, convEpi func(*execStep) bool) {
	k := i - 1
	for k >= 0 && movable(&ep.steps[k]) {
		k--
	}
	if k < 0 || k > 0 && ep.steps[k-1].pairNext {
		return
	}
	e, a := &ep.steps[k], &ep.steps[i]
	if !convEpi(e) || !e.epi.affine || e.epi.r >= 0 || grouped(e.op.op) || !pointwiseKernel(e.op.op) {
		return
	}
	if !imageOnly(e.epi.g.out, a, u, returned) {
		return
	}
	moveBefore(ep, k, i).expandNext = true
}

// largePlanes reports whether convolution op's result has planes of
// dwpwMinPlane positions or more, or its image of dwpwMinPlaneEx (NCHW
// shapes of static size): the pair runs alone on the first, with its
// expansion on the second.
func largePlanes(op *stablehlo.Op) bool {
	t, x := staticType(op.Results[0]), staticType(op.Operands[0])
	return t != nil && len(t.Shape) == 4 && t.Shape[2]*t.Shape[3] >= dwpwMinPlane ||
		x != nil && len(x.Shape) == 4 && x.Shape[2]*x.Shape[3] >= dwpwMinPlaneEx
}

// grouped reports whether convolution op has feature groups (a depthwise
// one).
func grouped(op *stablehlo.Op) bool {
	g, ok := op.Int("feature_group_count")
	return ok && g > 1
}

// pointwiseKernel reports whether convolution op's kernel is 1×1.
func pointwiseKernel(op *stablehlo.Op) bool {
	d, ok := op.Attr("dimension_numbers").(*stablehlo.ConvDims)
	t := staticType(op.Operands[1])
	if !ok || t == nil || len(d.KernelSpatialDims) != 2 {
		return false
	}
	for _, k := range d.KernelSpatialDims {
		if k < 0 || int(k) >= len(t.Shape) || t.Shape[k] != 1 {
			return false
		}
	}
	return true
}

// runJoined runs step i with the steps after it that pairConvSteps joined
// to it (an expansion's depthwise step and that one's pointwise step; a
// pair's pointwise step) where the shapes let it, and returns the last
// step it ran, or -1 where it ran none (then step i runs alone). follows
// reports whether step k comes right after i in the run's order.
func (fr *frame) runJoined(ep *execPlan, i int, in []Value, follows func(k int) bool) (int, error) {
	st := &ep.steps[i]
	if st.expandNext && follows(i+1) && follows(i+2) {
		if done, err := fr.runExpandDW(ep, i, in); err != nil || done {
			return i + 2, err
		}
	}
	if st.pairNext && follows(i+1) {
		if done, err := fr.runDWPointwise(ep, i, in); err != nil || done {
			return i + 1, err
		}
	}
	return -1, nil
}

// runDWPointwise runs steps i and i+1 (paired by pairConvSteps) as one,
// reporting false (and no error) where the shapes are not those it
// takes: then each runs on its own. inA is step i's operands.
func (fr *frame) runDWPointwise(ep *execPlan, i int, inA []Value) (bool, error) {
	if !dwpwOK() {
		return false, nil
	}
	return fr.runDWPW(ep, i, inA, nil)
}

// runExpandDW runs steps i, i+1 and i+2 (an expansion marked by
// pairConvSteps, then a pair) as one, reporting false (and no error)
// where the shapes are not those it takes: then the pair runs from step
// i+1 on. inE is step i's operands.
func (fr *frame) runExpandDW(ep *execPlan, i int, inE []Value) (bool, error) {
	se, sa := &ep.steps[i], &ep.steps[i+1]
	if !dwpwOK() {
		return false, nil
	}
	ce, ok := fastConvShape(se.op.op, inE)
	if !ok {
		return false, nil
	}
	defer ce.release()
	if !ce.plainPointwise() || !shapeEq(ce.outShape, se.epi.g.shape) {
		return false, nil
	}
	ce.weight = isWeightOperand(fr, se.op.op, 1)
	ee, ok, err := fr.epiFor(ce, se.epi, true)
	if !ok || err != nil {
		return false, err
	}
	// the depthwise layer's input, never made whole: a literal of its type
	// alone tells fastConvShape the shapes
	w := fr.slots[sa.op.in[1]]
	if w == nil {
		return false, nil
	}
	inA := []Value{&literal.Literal{DType: dtype.F32, Shape: ce.outShape}, w}
	return fr.runDWPW(ep, i+1, inA, newExpandIn(ce, ee))
}

// plainPointwise reports whether c is a 1×1 convolution at stride 1 of one
// image and one group whose weights are read as stored ([outC, kerC]) and
// whose output is [1, outC, h, w]: the product the pairs run.
func (c *conv2d) plainPointwise() bool {
	return c.pointwiseFlat() && c.groups == 1 && c.batch == 1 && !c.outFB && !c.kernIO && !c.direct && !c.small && !c.subpix
}

// dwpwOK reports whether the fused pairs may run.
func dwpwOK() bool {
	return dwpwEnabled && fastConvEnabled && convEpiEnabled && hostLittleEndian && gemm.TapRowsOK()
}

// runDWPW runs the pair of steps i and i+1 as one (runDWPointwise), with
// the depthwise layer's input computed by ex where it is set.
func (fr *frame) runDWPW(ep *execPlan, i int, inA []Value, ex *expandIn) (bool, error) {
	sa, sb := &ep.steps[i], &ep.steps[i+1]
	ca, ok := fastConvShape(sa.op.op, inA)
	if !ok {
		return false, nil
	}
	defer ca.release()
	if ex == nil && ca.oh*ca.ow < dwpwMinPlane || ex != nil && ca.h*ca.w < dwpwMinPlaneEx || !ca.direct || !ca.useSweepY() || ca.batch != 1 || !shapeEq(ca.outShape, sa.epi.g.shape) ||
		ex != nil && len(ex.w) != ca.inC*ex.cin {
		return false, nil
	}
	// the pointwise layer's image is the depthwise result, never made
	w := fr.slots[sb.op.in[1]]
	if w == nil {
		return false, nil
	}
	cb, ok := fastConvShape(sb.op.op, []Value{&literal.Literal{DType: dtype.F32, Shape: ca.outShape}, w})
	if !ok {
		return false, nil
	}
	defer cb.release()
	if !cb.plainPointwise() || cb.kerC != ca.outC || !shapeEq(cb.outShape, sb.epi.g.shape) {
		return false, nil
	}
	ca.weight = isWeightOperand(fr, sa.op.op, 1)
	cb.weight = isWeightOperand(fr, sb.op.op, 1)
	ea, ok, err := fr.epiFor(ca, sa.epi, true)
	if !ok || err != nil {
		return false, err
	}
	eb, ok, err := fr.epiFor(cb, sb.epi, false)
	defer clear(eb.leaves)
	defer clear(eb.views)
	if !ok || err != nil {
		return false, err
	}
	fr.enterStep(ep, i+1) // the result is step i+1's
	out, err := takeResult(fr, dtype.F32, cb.outShape)
	if err != nil {
		return false, nil // the unfused path reports it
	}
	dst := viewAs[float32](out.Data, dtype.F32)
	g := sb.epi.g
	if len(dst) != g.n {
		if ar := fr.proc.arena; ar != nil {
			ar.put(out.Data)
		}
		return false, nil
	}
	eb.leaves[sb.epi.self], eb.views[sb.epi.self], eb.out = out, dst, dst
	cb.epi = eb
	ca.runDWPointwise(ex, ea, cb, dst)
	if cb.epiLater {
		// runs too short for the epilogue per panel: over the whole
		// output after, as convEpiFast does
		if !sb.epi.runFlat(eb.leaves, out.Data) {
			execFused(g, eb.leaves, out.Data)
		}
	}
	dwpwRuns.Add(1)
	if ex != nil {
		dwpwExpandRuns.Add(1)
	}
	fr.define(g.out, literal.Wrap(g.dt, g.shape, out.Data))
	return true, nil
}

// expandIn is the pointwise convolution that computes a depthwise
// layer's input (an inverted residual block's expansion), run band by
// band with it (runExpandDW): its image x ([cin, h·w]), weights w
// ([ch, cin]) and epilogue e (affine, per channel), and gemm.TapRow's
// byte offsets of the k steps: offs into x (its planes), tailOffs into
// tail's copy (rows of one vector).
type expandIn struct {
	x, w           []float32
	cin            int
	e              *convEpilogue
	offs, tailOffs []int
}

// newExpandIn returns the expansion c (plainPointwise) with its epilogue e.
func newExpandIn(c *conv2d, e *convEpilogue) *expandIn {
	ex := &expandIn{x: c.lhs, w: c.rhs[:c.outC*c.kerC], cin: c.kerC, e: e,
		offs: make([]int, c.kerC), tailOffs: make([]int, c.kerC)}
	for q := range ex.offs {
		ex.offs[q], ex.tailOffs[q] = 4*q*c.h*c.w, 4*8*q
	}
	return ex
}

// runDWPointwise computes the depthwise convolution c (the sweep kernels'),
// its epilogue ea, and the pointwise convolution pw of its result with
// pw's epilogue (pw.epi) into dst. Each core takes an equal run of output
// rows and goes through it band by band (about dwpwBandCols positions, in
// the sweep kernels' blocks of four rows); per band, a chunk of channels
// at a time (the product's k blocks) is computed into a scratch that
// stays in the second-level cache and multiplied into the band's
// outputs. With ex set, c's input is not made: each core computes the
// rows of it its bands read, all channels, into a window of rows that
// moves down with the bands (the rows two bands share are kept, not
// computed again), from ex.
func (c *conv2d) runDWPointwise(ex *expandIn, ea *convEpilogue, pw *conv2d, dst []float32) {
	ch, oh, ow := c.outC, c.oh, c.ow
	n, hw := oh*ow, c.h*c.w
	threads := Threads()
	parts := min(threads, (oh+3)/4)
	// chunks of channels: the GEMM's k blocks, whose sums it adds to C
	// one by one (gemm.KBlock), so that the outputs are its bits
	kc := gemm.KBlock(ch)
	rows := 4 * max(1, min(dwpwBandCols, dwpwScratch/kc)/(4*ow)) // per band
	cout := pw.outC
	sp := c.sweepPlan()
	pw.epiRuns(min(n, rows*ow))
	// the input rows output rows [y0, ye) read, inside the image
	inRows := func(y0, ye int) (int, int) {
		return max(0, y0*c.sh-c.padT), min(c.h, (ye-1)*c.sh-c.padT+c.kh)
	}
	win := (rows-1)*c.sh + c.kh // rows of the window
	runParts(oh, parts, func(y0, y1 int) {
		mMax := roundUpInt(min(rows, y1-y0)*ow, 8)
		sc := gemm.GetBuffer(kc*mMax + cout*mMax)
		defer gemm.PutBuffer(sc)
		tile := sc[kc*mMax:]
		offs := make([]int, kc)
		s := c.sweepScratch(sp)
		defer dwSweepYScratches.Put(s)
		var xw []float32 // the window: per channel, rows [lo, hi) of the input
		lo, hi := 0, 0
		if ex != nil {
			xw = gemm.GetBuffer(ch * win * c.w)
			defer gemm.PutBuffer(xw)
		}
		for ; y0 < y1; y0 += rows {
			ye := min(y1, y0+rows)
			if ex != nil {
				nlo, nhi := inRows(y0, ye)
				lo, hi = ex.slide(xw, win*c.w, c.w, ch, lo, hi, nlo, nhi)
			}
			m := (ye - y0) * ow
			m8 := roundUpInt(m, 8) // the scratch's pitch: the kernels take whole vectors
			// the band's outputs: in place where their rows are whole
			// vectors, else through tile
			out, ldc := dst[y0*ow:], n
			if m != m8 {
				out, ldc = tile, m8
			}
			for q := range offs {
				offs[q] = 4 * q * m8
			}
			for c0 := 0; c0 < ch; c0 += kc {
				c1 := min(ch, c0+kc)
				for q := c0; q < c1; q++ {
					var src []float32
					if ex != nil {
						src = xw[q*win*c.w : (q+1)*win*c.w]
					} else {
						src = c.lhs[q*hw : (q+1)*hw]
					}
					c.sweepRows(sp, s, src, lo, q, sc[(q-c0)*m8:(q-c0)*m8+m], y0, ye)
				}
				ea.rowsAt(sc, nil, m8, c0, c1-c0, m)
				gemm.TapRow(pw.rhs[c0:], ch, 0, cout, sc, 0, offs[:c1-c0], m8, out, ldc, c0 == 0)
			}
			if m != m8 {
				for r := 0; r < cout; r++ {
					copy(dst[r*n+y0*ow:r*n+y0*ow+m], tile[r*m8:r*m8+m])
				}
			}
			pw.finish(0, 0, cout, y0*ow, y0*ow+m)
		}
	})
}

// slide moves the window xw (ch channels of pitch floats, rows of w)
// from holding input rows [lo, hi) to holding [nlo, nhi), and returns
// those: the rows both hold move to its top, the others are computed (the
// expansion's product, a row of tiles per channel, and its epilogue).
func (ex *expandIn) slide(xw []float32, pitch, w, ch, lo, hi, nlo, nhi int) (int, int) {
	if nlo < lo || nlo >= hi {
		lo, hi = nlo, nlo // nothing to keep
	} else if nlo > lo {
		for q := 0; q < ch; q++ {
			p := xw[q*pitch : (q+1)*pitch]
			copy(p, p[(nlo-lo)*w:(hi-lo)*w])
		}
		lo = nlo
	}
	if nhi > hi {
		k := (nhi - hi) * w
		d := xw[(hi-lo)*w:]
		k8 := k / 8 * 8 // the kernels' whole vectors; the rest through tail
		if k8 > 0 {
			gemm.TapRow(ex.w, ex.cin, 0, ch, ex.x, hi*w, ex.offs, k8, d, pitch, true)
		}
		if k8 < k {
			ex.tail(d[k8:], pitch, hi*w+k8, k-k8)
		}
		ex.e.rowsAt(d, nil, pitch, 0, ch, k)
		hi = nhi
	}
	return lo, hi
}

// tail computes the expansion's outputs at the r < 8 positions from p of
// every channel into d (channels pitch apart): their image columns copied
// into a vector's width, the product of those by the kernel of a vector
// (each output's sum as in a row of them), the r columns copied out.
func (ex *expandIn) tail(d []float32, pitch, p, r int) {
	ch := len(ex.w) / ex.cin
	hw := len(ex.x) / ex.cin
	buf := gemm.GetBuffer(8*ex.cin + 8*ch)
	defer gemm.PutBuffer(buf)
	src, out := buf[:8*ex.cin], buf[8*ex.cin:]
	clear(src)
	for q := 0; q < ex.cin; q++ {
		copy(src[8*q:8*q+r], ex.x[q*hw+p:q*hw+p+r])
	}
	gemm.TapRow(ex.w, ex.cin, 0, ch, src, 0, ex.tailOffs, 8, out, 8, true)
	for q := 0; q < ch; q++ {
		copy(d[q*pitch:q*pitch+r], out[8*q:8*q+r])
	}
}
