package native

// Depthwise convolutions on wide rows (dwWideMinCols output columns or
// more: the early layers of MobileNet and EfficientNet, 32×32 to 112×112): each
// output row of a channel is computed straight from the NCHW input rows
// it reads, sixteen columns per AVX-512 vector, the columns outside the
// row masked off (fast_dwwide_amd64.s). The channel-vector path
// (fast_dwc16.go) transposes each block of sixteen channels into a padded
// [row][column][16] block and the outputs back; on planes of 64×64 those
// transposes were most of its time (their sixteen loads 16 KB apart alias
// in the store buffer), and a 16-channel plane is one block for one core.
// Here nothing is copied: the only traffic is the input, read once per
// tap row from the first-level cache, and the output. Sums are in tap
// order from zero, padding included (a tap outside the image adds 0·w),
// as the other depthwise kernels': the results are theirs bit for bit.

import (
	"runtime"
	"sync"
	"unsafe"
)

//go:generate go run ./internal/dwgen

// dwWideEnabled switches the wide-row path (tests run the others too).
var dwWideEnabled = dwWideOK

// dwWideArgs are the kernels' arguments (the layout fast_dwwide_amd64.s
// reads).
type dwWideArgs struct {
	dst     *float32
	delta   int
	dstRow  int
	rowPtr  *uintptr // addresses (the rows are kept alive by the caller)
	wPtr    *uintptr
	taps    int
	kw      int
	nv      int
	masks   *uint32
	colStep int
	col0    int
	last    int
	idx     *int32
	rows    int
	dstAdj  int
	srcStep int
	colEnd  int
}

// dwSweepArgs are the sweep kernels' arguments (the layout
// fast_dwsweep_amd64.s reads; internal/dwgen writes it).
type dwSweepArgs struct {
	dst     *float32
	delta   int
	dstRow  int
	rowPtr  *uintptr // [3·S+K] input rows
	w       *float32
	nv      int
	masks   *uint32
	colStep int
	col0    int
	colEnd  int
	last    int
	idx     *int32
	blocks  int
	dstAdj  int
	srcStep int
}

// dwSweepRows is the most input rows a sweep kernel reads (3·2+5).
const dwSweepRows = 11

// dwSweepKernel returns the sweep kernel for c (a K×K window, K 3 or 5,
// the same stride 1 or 2 both ways), or nil.
func (c *conv2d) dwSweepKernel() func(*dwSweepArgs) {
	if !dwSweepEnabled || c.kh != c.kw || c.sh != c.sw {
		return nil
	}
	switch {
	case c.kh == 3 && c.sh == 1:
		return dwSweep3s1
	case c.kh == 3 && c.sh == 2:
		return dwSweep3s2
	case c.kh == 5 && c.sh == 1:
		return dwSweep5s1
	case c.kh == 5 && c.sh == 2:
		return dwSweep5s2
	}
	return nil
}

// dwSweepEnabled switches the sweep kernels (tests compare both ways).
var dwSweepEnabled = dwWideOK

// dwEvenLanes is the permutation that keeps the even lanes of two vectors.
var dwEvenLanes = [16]int32{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30}

// useWide reports whether the wide-row path takes c: depthwise, no
// dilation, a horizontal stride of 1 or 2, 16 output columns or more.
func (c *conv2d) useWide() bool {
	return dwWideEnabled && c.kerC == 1 && c.outC == c.groups && c.dh == 1 && c.dw == 1 &&
		c.ldh <= 1 && c.ldw <= 1 && (c.sw == 1 || c.sw == 2) && c.kw <= 16 && c.kh <= 16 &&
		(c.ow >= dwWideMinCols || c.ow >= dwSweepMinCols && c.dwSweepKernel() != nil)
}

// dwWideMasks returns, per output vector and tap column, the input lanes
// inside the row: bit j of vector v, tap kx, for input column
// v·16·sw − padL + kx + j in [0, w) (32 lanes for stride 2).
func (c *conv2d) dwWideMasks(nv int) []uint32 {
	masks := make([]uint32, nv*c.kw)
	lanes := 16 * c.sw
	for v := 0; v < nv; v++ {
		for kx := 0; kx < c.kw; kx++ {
			base := v*lanes - c.padL + kx
			var m uint32
			for j := 0; j < lanes; j++ {
				if ix := base + j; ix >= 0 && ix < c.w {
					m |= 1 << j
				}
			}
			masks[v*c.kw+kx] = m
		}
	}
	return masks
}

// runWide computes c (depthwise, wide rows) into dst, in runs of channels
// (eachChannelRun).
func (c *conv2d) runWide(dst []float32) {
	n, hw := c.oh*c.ow, c.h*c.w
	nv := (c.ow + 15) / 16
	masks := c.dwWideMasks(nv)
	kernel, kernel4 := dwWide1, dwWide1x4
	if c.sw == 2 {
		kernel, kernel4 = dwWide2, dwWide2x4
	}
	taps := c.kh * c.kw
	// the output rows whose tap rows all lie inside the image: [oyA, oyB)
	oyA, oyB := 0, 0
	if c.h >= c.kh {
		oyA, oyB = c.validRange(-c.padT, c.sh, c.h-(c.kh-1), c.oh)
	}
	zeros := make([]float32, c.w) // the rows above and below the image
	c.eachChannelRun(taps, func(b, c0, c1 int) {
		// addresses rather than pointers: no write barriers (the input,
		// the zero row and the weights stay alive: runtime.KeepAlive)
		s := dwWideScratches.Get().(*dwWideScratch)
		defer dwWideScratches.Put(s)
		rowPtr, wPtr, a, sa := &s.rowPtr, &s.wPtr, &s.a, &s.sa
		*a = dwWideArgs{kw: c.kw, nv: nv, masks: &masks[0], colStep: 64 * c.sw, col0: -4 * c.padL,
			colEnd: -4*c.padL + nv*64*c.sw, last: 1<<(c.ow-(nv-1)*16) - 1, idx: &dwEvenLanes[0],
			dstRow: 4 * c.ow, rowPtr: &rowPtr[0][0], wPtr: &wPtr[0], taps: c.kh}
		sweep := c.dwSweepKernel()
		sa.args = dwSweepArgs{nv: nv, masks: &masks[0], colStep: 64 * c.sw, col0: -4 * c.padL,
			colEnd: -4*c.padL + nv*64*c.sw, last: 1<<(c.ow-(nv-1)*16) - 1, idx: &dwEvenLanes[0],
			dstRow: 4 * c.ow, rowPtr: &sa.rowPtr[0], dstAdj: 3*4*c.ow + 4*c.ow - 64*nv, srcStep: 4 * c.sh * 4 * c.w}
		for ch := c0; ch < c1; ch++ {
			src := c.lhs[(b*c.inC+ch)*hw : (b*c.inC+ch+1)*hw]
			out := dst[(b*c.outC+ch)*n : (b*c.outC+ch+1)*n]
			for ky := range c.kh {
				wPtr[ky] = uintptr(unsafe.Pointer(&c.rhs[ch*taps+ky*c.kw]))
			}
			sa.args.w = &c.rhs[ch*taps]
			// tapRows points block row i at output row oy's input rows
			base, zero := uintptr(unsafe.Pointer(&src[0])), uintptr(unsafe.Pointer(&zeros[0]))
			tapRows := func(i, oy int) {
				iy0 := oy*c.sh - c.padT
				for ky := range c.kh {
					if iy := iy0 + ky; iy >= 0 && iy < c.h {
						rowPtr[i][ky] = base + uintptr(4*iy*c.w)
					} else {
						rowPtr[i][ky] = zero
					}
				}
			}
			// blocks of four output rows side by side: runs of blocks
			// inside the image in one call (stepping the tap rows), the
			// others one by one; the last rows one at a time
			oy := 0
			for oy+4 <= c.oh {
				blocks := 1
				if oy >= oyA && oy+4 <= oyB {
					blocks = (oyB - oy) / 4
				}
				if sweep != nil {
					iy0 := oy*c.sh - c.padT
					for j := range 3*c.sh + c.kh {
						if iy := iy0 + j; iy >= 0 && iy < c.h {
							sa.rowPtr[j] = base + uintptr(4*iy*c.w)
						} else {
							sa.rowPtr[j] = zero
						}
					}
					sa.args.dst, sa.args.blocks = &out[oy*c.ow], blocks
					sweep(&sa.args)
				} else {
					for i := range 4 {
						tapRows(i, oy+i)
					}
					a.dst, a.delta, a.rows = &out[oy*c.ow], 0, blocks
					a.dstAdj, a.srcStep = 3*a.dstRow+4*c.ow-64*nv, 4*c.sh*4*c.w
					kernel4(a)
				}
				oy += 4 * blocks
			}
			for ; oy < c.oh; oy++ {
				tapRows(0, oy)
				a.dst, a.delta, a.rows, a.dstAdj, a.srcStep = &out[oy*c.ow], 0, 1, 0, 0
				kernel(a)
			}
			runtime.KeepAlive(src)
		}
		runtime.KeepAlive(zeros)
		runtime.KeepAlive(c.rhs)
	})
}

// dwChannelRuns splits a depthwise convolution of taps taps per output
// into work items of runs of channels of an image (their epilogue applied
// together): runs of 16, or fewer where that would not give every thread
// a few. It returns the threads, the run and the items (batch × runs).
func (c *conv2d) dwChannelRuns(taps int) (threads, run, units int) {
	work := int64(c.batch) * int64(c.outC) * int64(c.oh*c.ow) * int64(taps)
	threads = int(min(int64(Threads()), max(1, work/dwWorkPerThread)))
	run = 16
	for run > 1 && c.batch*((c.outC+run-1)/run) < convItemsPerThread*threads {
		run /= 2
	}
	units = c.batch * ((c.outC + run - 1) / run)
	return min(threads, units), run, units
}

// eachChannelRun computes c's depthwise layer of taps taps per output in
// the work items of dwChannelRuns, on its threads: body(b, c0, c1)
// computes channels [c0, c1) of image b into dst, whose epilogue then
// runs over them.
func (c *conv2d) eachChannelRun(taps int, body func(b, c0, c1 int)) {
	n := c.oh * c.ow
	threads, run, units := c.dwChannelRuns(taps)
	runs := units / c.batch
	c.epiRuns(n)
	parallel(threads, units, func(u int) {
		b, r := u/runs, u%runs
		c0, c1 := r*run, min(c.outC, (r+1)*run)
		body(b, c0, c1)
		c.finish(c0, 0, c1-c0, b*n, b*n+n)
	})
}

// dwWideScratch is a work item's kernel arguments and input row tables,
// recycled: made per item (their addresses go to the kernels, so they
// lived on the heap), they were a third of what a MobileNet or
// EfficientNet run allocated.
type dwWideScratch struct {
	rowPtr [4][16]uintptr
	wPtr   [16]uintptr
	a      dwWideArgs
	sa     struct {
		args   dwSweepArgs
		rowPtr [dwSweepRows]uintptr
	}
}

var dwWideScratches = sync.Pool{New: func() any { return new(dwWideScratch) }}

// dwWideMinCols is the narrowest output row the wide-row path takes
// without a sweep kernel (a window of 3 or 5 at the same stride 1 or 2 both
// ways takes rows of 16 and more): on rows of 16 the channel vectors were
// faster than the row-by-row kernels (EfficientNet's 240 channels of 16×16,
// 5×5: 60 µs against 91 on one core), not than the sweep (50).
var dwWideMinCols = 32

// dwSweepMinCols is the narrowest output row the sweep kernels take: on
// 14 columns (a partial vector) the channel vectors were faster
// (MobileNetV2's 384 channels of 14×14: 49 µs against 59 on one core).
const dwSweepMinCols = 16
