package native

// Depthwise 3×3 convolutions at stride 1 or 2 on rows of dwSweepYMinCols
// output columns or more, on CPUs with AVX2 but not AVX-512 (Zen 2 and 3,
// older Intel): the AVX2 sweep kernels (fast_dwsweepy_amd64.s, written by
// internal/dwgen) compute four output rows of a channel at a time
// straight from its NCHW input rows. The row kernel (fast_dwconv.go)
// first copies every input row into a zero-padded scratch, split by column
// phase at stride 2, and reads each input row once per tap; on
// MobileNetV2's 96 channels of 112×112 at stride 2 that copy and those
// loads were most of the layer (207 µs on a Zen 2 pair with its operands
// in the caches). The sums are the other depthwise kernels' bit for bit:
// each output's taps in order from zero.

import (
	"runtime"
	"sync"
	"unsafe"
)

// dwSweepYArgs are the AVX2 sweep kernels' arguments (the layout
// fast_dwsweepy_amd64.s reads; internal/dwgen/sweepy.go describes it).
type dwSweepYArgs struct {
	dst     *float32
	dstRow  int
	rowPtr  *uintptr // [3·S+3] input rows (addresses: the rows stay alive)
	w       *float32
	masks   *int32
	colStep int
	col0    int
	colA    int
	colB    int
	colEnd  int
	last    *int32
	blocks  int
	dstAdj  int
	srcStep int
}

// dwSweepYEnabled switches the AVX2 sweep path (tests compare it with the
// others).
var dwSweepYEnabled = dwSweepYOK

// dwSweepYMinCols is the narrowest output row the AVX2 sweep takes at
// stride 1, and half of it at stride 2: narrower rows go to the channel
// vectors (fast_dwc16.go). On a Zen 2 pair, MobileNetV2's 384 channels of
// 14×14 took 50 µs here against 41 there, its 192 of 28×28 at stride 2
// (14 columns out) 33.5 against 38, its 576 of 14×14 at stride 2 (7
// out) 46 against 35.
var dwSweepYMinCols = 16

// useSweepY reports whether the AVX2 sweep kernels take c: depthwise, a
// 3×3 window at the same stride 1 or 2 both ways, no dilation, rows of
// dwSweepYMinCols/stride or more, and no AVX-512 (whose wide-row kernels take
// these layers).
func (c *conv2d) useSweepY() bool {
	return dwSweepYEnabled && !dwc512 && c.kerC == 1 && c.outC == c.groups && c.kh == 3 && c.kw == 3 &&
		c.dh == 1 && c.dw == 1 && c.ldh <= 1 && c.ldw <= 1 && c.sh == c.sw && (c.sw == 1 || c.sw == 2) &&
		c.ow*c.sw >= dwSweepYMinCols
}

// dwSweepYMasks returns the kernels' load masks ([nv][nm][8]int32: per
// vector, per load, lane j on when its input column is inside the row),
// the range [vA, vB) of vectors whose loads all lie inside, and the last
// vector's store mask (nil when its eight outputs are all in the row).
func (c *conv2d) dwSweepYMasks(nv int) (masks []int32, vA, vB int, last []int32) {
	nm := 3 // one load per tap column; stride 2: two per pair of tap columns
	if c.sw == 2 {
		nm = 4
	}
	per := 8 * nm
	masks = make([]int32, nv*per)
	vA, vB = nv, 0
	for v := 0; v < nv; v++ {
		inside := true // every lane of the vector's loads
		for m := 0; m < nm; m++ {
			// load m starts at input column base: tap column m at stride
			// 1; at stride 2 pair m/2 (tap column m&^1), half m&1
			base := v*8 - c.padL + m
			if c.sw == 2 {
				base = v*16 - c.padL + m&^1 + 8*(m&1)
			}
			for j := 0; j < 8; j++ {
				if ix := base + j; ix >= 0 && ix < c.w {
					masks[v*per+m*8+j] = -1
				} else {
					inside = false
				}
			}
		}
		if inside {
			vA, vB = min(vA, v), v+1
		}
	}
	if vA >= vB {
		vA, vB = 0, 0
	}
	return masks, vA, vB, storeMask8(c.ow % 8)
}

// storeMask8 returns the store mask of a last vector of r < 8 lanes (its
// first r words -1), nil for r = 0 (a whole vector).
func storeMask8(r int) []int32 {
	if r == 0 {
		return nil
	}
	m := make([]int32, 8)
	for j := range r {
		m[j] = -1
	}
	return m
}

// sweepPlan is what the sweep kernels' calls over one convolution share:
// the kernel, its masks and column bounds, and the output rows whose tap
// rows all lie inside the image.
type sweepPlan struct {
	kernel   func(*dwSweepYArgs)
	masks    []int32
	last     []int32
	zeros    []float32 // the rows above and below the image
	nv       int
	vA, vB   int
	oyA, oyB int
	col0     int
	colStep  int
}

// sweepPlan returns c's (see useSweepY).
func (c *conv2d) sweepPlan() *sweepPlan {
	sp := &sweepPlan{nv: (c.ow + 7) / 8, kernel: dwSweepY3s1, zeros: make([]float32, c.w),
		colStep: 32 * c.sw, col0: -4 * c.padL}
	sp.masks, sp.vA, sp.vB, sp.last = c.dwSweepYMasks(sp.nv)
	if c.sw == 2 {
		sp.kernel = dwSweepY3s2
	}
	if c.h >= c.kh {
		sp.oyA, sp.oyB = c.validRange(-c.padT, c.sh, c.h-(c.kh-1), c.oh)
	}
	return sp
}

// runSweepY computes c (see useSweepY) into dst, in runs of channels
// (eachChannelRun).
func (c *conv2d) runSweepY(dst []float32) {
	n, hw := c.oh*c.ow, c.h*c.w
	sp := c.sweepPlan()
	c.eachChannelRun(9, func(b, c0, c1 int) {
		s := c.sweepScratch(sp)
		defer dwSweepYScratches.Put(s)
		for ch := c0; ch < c1; ch++ {
			src := c.lhs[(b*c.inC+ch)*hw : (b*c.inC+ch+1)*hw]
			c.sweepRows(sp, s, src, 0, ch, dst[(b*c.outC+ch)*n:(b*c.outC+ch+1)*n], 0, c.oh)
		}
	})
}

// sweepScratch returns a work item's scratch for sweepRows, its fixed
// arguments set (dwSweepYScratches.Put gives it back).
func (c *conv2d) sweepScratch(sp *sweepPlan) *dwSweepYScratch {
	s := dwSweepYScratches.Get().(*dwSweepYScratch)
	if cap(s.tail) < 4*c.ow {
		s.tail = make([]float32, 4*c.ow)
	}
	s.args = dwSweepYArgs{rowPtr: &s.rowPtr[0], masks: &sp.masks[0], colStep: sp.colStep, col0: sp.col0,
		colA: sp.col0 + sp.vA*sp.colStep, colB: sp.col0 + sp.vB*sp.colStep, colEnd: sp.col0 + sp.nv*sp.colStep,
		srcStep: 4 * c.sh * 4 * c.w}
	if sp.last != nil {
		s.args.last = &sp.last[0]
	}
	return s
}

// sweepRows computes output rows [oy0, oy1) of channel ch into out (row
// oy at out[(oy-oy0)·ow]), its input plane's rows from r0 on in src (row
// iy at src[(iy-r0)·w]: all those the rows' taps read inside the image).
func (c *conv2d) sweepRows(sp *sweepPlan, s *dwSweepYScratch, src []float32, r0, ch int, out []float32, oy0, oy1 int) {
	a := &s.args
	tail := s.tail[:4*c.ow]
	a.w = &c.rhs[ch*9]
	base := uintptr(unsafe.Pointer(&src[0]))
	zero := uintptr(unsafe.Pointer(&sp.zeros[0]))
	// setRows points the block of output rows from oy at their input
	// rows, the zero row outside the image
	setRows := func(oy int) {
		iy0 := oy*c.sh - c.padT
		for j := range 3*c.sh + 3 {
			if iy := iy0 + j; iy >= 0 && iy < c.h {
				s.rowPtr[j] = base + uintptr(4*(iy-r0)*c.w)
			} else {
				s.rowPtr[j] = zero
			}
		}
	}
	// blocks of four rows: runs of them inside the image in one call
	// (stepping the input rows), the others one by one; the last rows,
	// fewer than four, through tail
	for oy := oy0; oy < oy1; {
		blocks := 1
		if oy >= sp.oyA && oy+4 <= min(sp.oyB, oy1) {
			blocks = (min(sp.oyB, oy1) - oy) / 4
		}
		setRows(oy)
		a.blocks = blocks
		if oy+4 <= oy1 {
			a.dst, a.dstRow = &out[(oy-oy0)*c.ow], 4*c.ow
			a.dstAdj = 4*4*c.ow - 32*sp.nv
			sp.kernel(a)
			oy += 4 * blocks
			continue
		}
		a.dst, a.dstRow, a.dstAdj = &tail[0], 4*c.ow, 0
		sp.kernel(a)
		copy(out[(oy-oy0)*c.ow:], tail[:(oy1-oy)*c.ow])
		oy = oy1
	}
	runtime.KeepAlive(src)
	runtime.KeepAlive(sp)
	runtime.KeepAlive(c.rhs)
}

// dwSweepYScratch is a work item's kernel arguments, input row table and
// tail rows, recycled (their addresses go to the kernels).
type dwSweepYScratch struct {
	args   dwSweepYArgs
	rowPtr [9]uintptr
	tail   []float32
}

var dwSweepYScratches = sync.Pool{New: func() any { return new(dwSweepYScratch) }}
