package native

// 3×3 convolutions of stride 1 by Winograd's minimal filtering, F(2×2,
// 3×3): each 2×2 block of outputs (a tile) is Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A
// for the tile's 4×4 input patch d and each 3×3 kernel g, 16 products
// where the direct sum takes 36. Per tile position ξ of the 4×4 transform
// the products over the input channels are one GEMM, U_ξ [outC, inC] ·
// V_ξ [inC, tiles], so a layer is 16 GEMMs of 4/9 the direct form's
// multiply-adds in all, between an input transform (adds and subtracts
// of the patches, straight into the GEMMs' packed B panels) and an output
// transform (adds of the 16 products per output, then the epilogue).
// The transformed kernels U (16/9 the weights) are packed once per frozen
// weight literal, as the other paths' weights are.
//
// The transforms only add, subtract and halve (G's ½ is exact), so the
// result differs from the direct sum by rounding: the products and sums
// run in another order over other intermediate values. cuDNN and oneDNN
// use the same algorithm for these layers; winogradEnabled (the
// TORCHTPU_NATIVE_WINOGRAD=0 environment variable) switches it off.

import (
	"bytes"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// winogradEnabled switches the Winograd path (tests compare both).
var winogradEnabled = os.Getenv("TORCHTPU_NATIVE_WINOGRAD") != "0"

// Where the Winograd path takes a layer: enough channels both ways that
// each GEMM runs whole micro-panels, and enough tiles per image. (ResNet-
// 18's 512-channel 7×7 layers, 16 tiles, ran 1.67 → 1.89 ms this way:
// their U, 16.8 MB each, streams from memory.)
const (
	winoMinC     = 32
	winoMinTiles = 32
)

// useWinograd reports whether runWinograd takes c: weights that are the
// program's own operands (constants or arguments: their U is packed once
// and kept, winoKernel), one group, a 3×3 window at stride 1 without
// dilation of either operand, padding 1 on every side (output planes the
// input's size), the weights as stored, the output in [batch, outC, oh,
// ow] order.
func (c *conv2d) useWinograd() bool {
	if !winogradEnabled || c.groups != 1 || c.kh != 3 || c.kw != 3 || c.sh != 1 || c.sw != 1 || c.dh != 1 || c.dw != 1 ||
		c.ldh > 1 || c.ldw > 1 || c.padT != 1 || c.padL != 1 || c.oh != c.h || c.ow != c.w ||
		c.kernIO || c.revH || c.revW || c.outFB || c.subpix {
		return false
	}
	if !c.weight || c.kernel == nil || !prepackEnabled {
		return false // U built per call cost more than the products saved
	}
	th, tw := (c.oh+1)/2, (c.ow+1)/2
	return winoSIMD && c.inC >= winoMinC && c.outC >= winoMinC && th*tw >= winoMinTiles
}

// winoKernel returns U: per ξ the [outC, inC] matrix G g Gᵀ at ξ, packed
// for the GEMMs once per frozen weight literal, or for weights that are
// arguments (PyTorch's, never frozen) once per contents (winoArgKernel);
// nil where the weights are not all finite, U is not built (yet) or the
// packing budget is spent.
func (c *conv2d) winoKernel() []*gemm.PackedA {
	build := func() []*gemm.PackedA {
		if !allFinite(c.rhs[:c.outC*c.inC*9]) {
			return nil // the transforms would turn an infinity into NaNs: the direct paths take it
		}
		u := make([]float32, 16*c.outC*c.inC)
		for o := 0; o < c.outC; o++ {
			for i := 0; i < c.inC; i++ {
				g := c.rhs[(o*c.inC+i)*9:][:9]
				var t [16]float32
				winoFilter(&t, g)
				for x, v := range t {
					u[(x*c.outC+o)*c.inC+i] = v
				}
			}
		}
		pas := make([]*gemm.PackedA, 16)
		for x := range pas {
			pas[x] = gemm.PackA(c.outC, c.inC, gemm.RowMajor(u[x*c.outC*c.inC:(x+1)*c.outC*c.inC], c.inC))
		}
		return pas
	}
	if !c.kernel.Frozen {
		return c.winoArgKernel(build)
	}
	v := prepacked(c.weight, c.op, 1, c.kernel, [3]int{c.outC, c.inC, -9}, int64(4*16*c.outC*c.inC), func() (any, int) {
		p := build()
		if p == nil {
			return p, 0 // kept, so that the next runs decline at once; nothing held
		}
		return p, 4 * 16 * c.outC * c.inC
	})
	p, _ := v.([]*gemm.PackedA)
	return p // nil for weights not all finite, or past the packing budget
}

// winoArg is an op's U for weights that are an argument: the bytes it
// was built from (or that the last call passed), compared in full with
// each call's.
type winoArg struct {
	mu     sync.Mutex
	w      []byte
	u      []*gemm.PackedA
	built  bool          // u was built from w (nil: w not finite)
	misses int           // calls in a row whose weights differed from the call's before
	off    bool          // the weights changed call after call: the op gave up
	held   *atomic.Int64 // the bytes of u and w counted in prepackBytes (given back when e goes)
}

var winoArgs opCache[*winoArg]

// winoArgKernel returns U for weights that are an argument, which the
// caller may write between calls (inside PyTorch): built the second time
// in a row the same bytes arrive (weights a training step writes each
// time are never transformed: after prepackMaxMisses changes in a row the
// op stops looking), and used while the call's weights hold exactly those
// bytes. Inside PyTorch the transforms built per call made ResNet-18's
// forward 25.7 → 41.8 ms; compared per call, its 9.4 MB of 3×3 weights
// cost a pass over them.
func (c *conv2d) winoArgKernel(build func() []*gemm.PackedA) []*gemm.PackedA {
	e, ok := winoArgs.get(c.op)
	if !ok {
		e = &winoArg{held: new(atomic.Int64)}
		runtime.AddCleanup(e, func(h *atomic.Int64) { prepackBytes.Add(-h.Swap(0)) }, e.held)
		winoArgs.put(c.op, e)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.off {
		return nil
	}
	w := c.kernel.Data[:4*c.outC*c.inC*9]
	if bytes.Equal(e.w, w) {
		e.misses = 0
		if !e.built {
			n := int64(4*16*c.outC*c.inC + len(w))
			if n > prepackBudget-prepackBytes.Load() {
				return nil
			}
			if e.u, e.built = build(), true; e.u != nil {
				e.held.Add(n)
				prepackBytes.Add(n)
			}
		}
		return e.u
	}
	prepackBytes.Add(-e.held.Swap(0)) // the old U goes
	e.u, e.built = nil, false
	if e.w != nil {
		if e.misses++; e.misses >= prepackMaxMisses {
			e.off, e.w = true, nil
			return nil
		}
	}
	e.w = append(e.w[:0], w...)
	return nil
}

// allFinite reports whether every value of x is finite.
func allFinite(x []float32) bool {
	for _, v := range x {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// copyFiniteGo copies src into dst and reports whether every value is
// finite.
func copyFiniteGo(dst, src []float32) bool {
	ok := true
	for i, v := range src {
		dst[i] = v
		if v-v != 0 {
			ok = false
		}
	}
	return ok
}

// winoFilter writes G g Gᵀ (g a 3×3 kernel, row-major) into u, computed
// in float64 and rounded once.
func winoFilter(u *[16]float32, g []float32) {
	var r [4][3]float64 // G g
	for j := 0; j < 3; j++ {
		g0, g1, g2 := float64(g[j]), float64(g[3+j]), float64(g[6+j])
		r[0][j], r[1][j], r[2][j], r[3][j] = g0, (g0+g1+g2)/2, (g0-g1+g2)/2, g2
	}
	for i := 0; i < 4; i++ {
		a, b, d := r[i][0], r[i][1], r[i][2]
		u[4*i], u[4*i+1], u[4*i+2], u[4*i+3] = float32(a), float32((a+b+d)/2), float32((a-b+d)/2), float32(d)
	}
}

// winoBandFloats sizes a work item of the band form: its transformed
// input (16 packed B operands) about this many floats, to stay in the
// core's L2 cache.
const winoBandFloats = 1 << 16

// winoWideMin is the size of U (floats) from which a layer runs in the
// wide form: an image at a time, each phase split over the cores, so
// that each U_ξ is read once per image (the band form reads all of U per
// band: ResNet-18's 256-channel layers, 4 MB of U, read it four times).
var winoWideMin = 16 * 128 * 256

// winoJob is a Winograd layer being run: U, the tile grid (rows of tiles
// padded to whole groups of eight: the transforms' vectors) and the
// layout of the operands.
type winoJob struct {
	c           *conv2d
	u           []*gemm.PackedA
	th, twp     int
	nr, kcb, wp int // panel width, k block depth, padded input row (columns x = -1 .. 2·twp)
	bad         atomic.Bool
}

// winoBlock is the scratch of tile rows [ty0, ty1) of image b: their
// input rows zero-padded (pad), the 16 packed B operands (v, vLen floats
// each: one cache line more than they hold, as 16 streams a power of two
// apart would share the L1 cache's sets) and the 16 products (m, mLen
// each), w GEMM columns.
type winoBlock struct {
	b, ty0, ty1    int
	w, w16, pp     int
	vLen, mLen     int
	buf, v, m, pad []float32
}

func (j *winoJob) block(b, ty0, ty1 int) *winoBlock {
	c := j.c
	bl := &winoBlock{b: b, ty0: ty0, ty1: ty1, w: (ty1 - ty0) * j.twp}
	bl.w16 = roundUpInt(bl.w, j.nr)
	bl.vLen, bl.mLen = c.inC*bl.w16+16, c.outC*bl.w+16
	bl.pp = (2*(ty1-ty0) + 2) * j.wp
	bl.buf = gemm.GetBuffer(16*(bl.vLen+bl.mLen) + c.inC*bl.pp)
	bl.v, bl.m, bl.pad = bl.buf[:16*bl.vLen], bl.buf[16*bl.vLen:16*(bl.vLen+bl.mLen)], bl.buf[16*(bl.vLen+bl.mLen):]
	return bl
}

// input copies channels [c0, c1) of the block's input rows (y = 2·ty0-1
// .. 2·ty1) into zero-padded rows and transforms their patches into v;
// where a value is not finite it sets j.bad and stops.
func (j *winoJob) input(bl *winoBlock, c0, c1 int) {
	c := j.c
	rows := 2*(bl.ty1-bl.ty0) + 2
	for ci := c0; ci < c1; ci++ {
		img := c.lhs[(bl.b*c.inC+ci)*c.h*c.w:][:c.h*c.w]
		for r := 0; r < rows; r++ {
			row := bl.pad[ci*bl.pp+r*j.wp:][:j.wp]
			y := 2*bl.ty0 - 1 + r
			if y < 0 || y >= c.h {
				clear(row)
				continue
			}
			row[0] = 0
			if !copyFinite(&row[1], &img[y*c.w], c.w) {
				j.bad.Store(true)
				return
			}
			clear(row[1+c.w:])
		}
	}
	for pc := c0 / j.kcb * j.kcb; pc < c1; pc += j.kcb {
		kb := min(j.kcb, c.inC-pc)
		lo, hi := max(c0, pc), min(c1, pc+kb)
		for ty := bl.ty0; ty < bl.ty1; ty++ {
			for g := 0; g < j.twp/8; g++ {
				col := (ty-bl.ty0)*j.twp + 8*g
				a := winoInArgs{dst: &bl.v[pc*bl.w16+col/j.nr*kb*j.nr+(lo-pc)*j.nr+col%j.nr], src: &bl.pad[lo*bl.pp+2*(ty-bl.ty0)*j.wp+16*g],
					n: hi - lo, plane: 4 * bl.pp, row: 4 * j.wp, xs: 4 * bl.vLen, cs: 4 * j.nr}
				winoIn8(&a)
			}
		}
	}
}

// products runs the GEMMs of ξ in [x0, x1) into m.
func (j *winoJob) products(bl *winoBlock, x0, x1 int) {
	for x := x0; x < x1; x++ {
		vx := bl.v[x*bl.vLen : (x+1)*bl.vLen]
		out := gemm.Out{Data: bl.m[x*bl.mLen : x*bl.mLen+j.c.outC*bl.w], Ldc: bl.w}
		for k := 0; k < j.u[x].KBlocks(); k++ {
			j.u[x].MulBlock(0, j.c.outC, vx[k*j.kcb*bl.w16:], k, 0, bl.w, out, k > 0)
		}
	}
}

// output transforms the products of output channels [o0, o1) into dst
// and applies the epilogue to them.
func (j *winoJob) output(bl *winoBlock, dst []float32, o0, o1 int) {
	c := j.c
	plane := c.oh * c.ow
	for ty := bl.ty0; ty < bl.ty1; ty++ {
		for g := 0; g < j.twp/8; g++ {
			cols := min(16, c.ow-16*g)
			if cols <= 0 {
				break
			}
			a := winoOutArgs{dst: &dst[(bl.b*c.outC+o0)*plane+2*ty*c.ow+16*g], src: &bl.m[o0*bl.w+(ty-bl.ty0)*j.twp+8*g], n: o1 - o0,
				plane: 4 * plane, ld: 4 * c.ow, xs: 4 * bl.mLen, step: 4 * bl.w, rows: min(2, c.oh-2*ty), cols: cols}
			winoOut8(&a)
		}
	}
	c.finish(0, o0, o1, bl.b*plane+2*bl.ty0*c.ow, bl.b*plane+min(c.oh, 2*bl.ty1)*c.ow)
}

// runWinograd computes c into dst ([batch, outC, oh, ow]) and reports
// whether it did: false where a weight or an input value is not finite
// (the transforms' sums and differences would make NaNs of infinities
// and spread a NaN over whole tiles; the direct paths then compute the
// layer, writing all of dst again and applying the epilogue anew: its
// operands are never dst's memory, as an epilogue reads them after the
// convolution has written its part). Small U (early layers, many tiles):
// the work items are bands of tile rows, each through all three phases
// on one core; large U: an image at a time, each phase split over the
// cores (winoWideMin).
func (c *conv2d) runWinograd(dst []float32) bool {
	u := c.winoKernel()
	if u == nil {
		return false
	}
	th, tw := (c.oh+1)/2, (c.ow+1)/2
	j := &winoJob{c: c, u: u, th: th, twp: roundUpInt(tw, 8), nr: u[0].Cols(), kcb: gemm.KBlock(c.inC)}
	j.wp = 2*j.twp + 2
	threads := c.gemmThreads()
	c.epiRuns(c.ow)
	if 16*c.outC*c.inC >= winoWideMin {
		chunks := func(n int) int { return min(n, max(1, threads*convItemsPerThread)) }
		for b := 0; b < c.batch && !j.bad.Load(); b++ {
			bl := j.block(b, 0, th)
			ci := chunks(c.inC)
			parallel(threads, ci, func(it int) {
				j.input(bl, it*c.inC/ci, (it+1)*c.inC/ci)
			})
			if !j.bad.Load() {
				parallel(threads, 16, func(x int) { j.products(bl, x, x+1) })
				co := chunks(c.outC)
				parallel(threads, co, func(it int) { j.output(bl, dst, it*c.outC/co, (it+1)*c.outC/co) })
			}
			gemm.PutBuffer(bl.buf)
		}
	} else {
		per := max(1, winoBandFloats/(16*c.inC*j.twp)) // tile rows per band
		bands := (th + per - 1) / per
		if threads > 1 && c.batch*bands < 4*threads {
			bands = min(th, roundUpInt(bands, threads)) // rows per band uneven: the items go to whichever core is free
		}
		parallel(threads, c.batch*bands, func(it int) {
			b, band := it/bands, it%bands
			ty0, ty1 := band*th/bands, (band+1)*th/bands
			if ty1 <= ty0 || j.bad.Load() {
				return
			}
			bl := j.block(b, ty0, ty1)
			defer gemm.PutBuffer(bl.buf)
			if j.input(bl, 0, c.inC); !j.bad.Load() {
				j.products(bl, 0, 16)
				j.output(bl, dst, 0, c.outC)
			}
		})
	}
	if j.bad.Load() {
		return false
	}
	winoRuns.Add(1)
	return true
}

// winoRuns counts the convolutions the Winograd path computed (for the
// tests).
var winoRuns atomic.Int64

// winoInArgs are winoIn8's arguments (the layout the assembly reads);
// strides in bytes.
type winoInArgs struct {
	dst, src *float32
	n        int // channels
	plane    int // from one channel's padded rows to the next's
	row      int // from one padded row to the next
	xs       int // from one ξ's operand to the next
	cs       int // from one channel's vectors to the next (the panels' width)
}

// winoOutArgs are winoOut8's arguments; strides in bytes.
type winoOutArgs struct {
	dst, src   *float32
	n          int // channels
	plane      int // from one output plane to the next
	ld         int // from one output row to the next
	xs         int // from one ξ's products to the next
	step       int // from one channel's products to the next
	rows, cols int // outputs per tile row (1 or 2) and columns (≤ 16) to store
}

// winoPerm is the tile of each lane of the transforms' vectors: the order
// in-lane shuffles of two 8-float vectors leave the even (odd) columns in.
var winoPerm = [8]int{0, 1, 4, 5, 2, 3, 6, 7}

// winoIn8Go is the input transform of eight tiles for each of p.n
// channels: from four padded rows (tile l's patch at columns 2l .. 2l+3
// of each), h = the rows' transforms (k0-k2, k1+k2, k2-k1, k1-k3), then
// per column h0-h2, h1+h2, h2-h1, h1-h3; ξ = 4·row + column at dst +
// ξ·xs, lane i holding tile winoPerm[i]. Each channel's src is plane
// bytes after the last, its dst cs.
func winoIn8Go(p *winoInArgs) {
	for c := 0; c < p.n; c++ {
		src := unsafe.Add(unsafe.Pointer(p.src), c*p.plane)
		dst := unsafe.Add(unsafe.Pointer(p.dst), c*p.cs)
		var h [4][4][8]float32
		for i := 0; i < 4; i++ {
			row := (*[18]float32)(unsafe.Add(src, i*p.row))
			for l, t := range winoPerm {
				k0, k1, k2, k3 := row[2*t], row[2*t+1], row[2*t+2], row[2*t+3]
				h[i][0][l], h[i][1][l], h[i][2][l], h[i][3][l] = k0-k2, k1+k2, k2-k1, k1-k3
			}
		}
		for j := 0; j < 4; j++ {
			for l := 0; l < 8; l++ {
				v := [4]float32{h[0][j][l] - h[2][j][l], h[1][j][l] + h[2][j][l], h[2][j][l] - h[1][j][l], h[1][j][l] - h[3][j][l]}
				for i, x := range v {
					(*[8]float32)(unsafe.Add(dst, (4*i+j)*p.xs))[l] = x
				}
			}
		}
	}
}

// winoOut8Go is the output transform of eight tiles for each of p.n
// channels: per column j of the products m (ξ = 4i + j at src + ξ·xs),
// s0 = m0 + (m1 + m2) and s1 = (m1 - m2) - m3, then per row of s the
// outputs s0 + (s1 + s2) and (s1 - s2) - s3 of each tile, in order: the
// first cols of row 0 at dst and, with rows 2, of row 1 ld bytes on. Each
// channel's src is step bytes after the last, its dst plane.
func winoOut8Go(p *winoOutArgs) {
	for c := 0; c < p.n; c++ {
		src := unsafe.Add(unsafe.Pointer(p.src), c*p.step)
		dst := unsafe.Add(unsafe.Pointer(p.dst), c*p.plane)
		m := func(x, l int) float32 { return (*[8]float32)(unsafe.Add(src, x*p.xs))[l] }
		for r := 0; r < p.rows; r++ {
			out := unsafe.Slice((*float32)(unsafe.Add(dst, r*p.ld)), p.cols)
			for l, t := range winoPerm {
				var s [4]float32
				for j := range s {
					if r == 0 {
						s[j] = m(j, l) + (m(4+j, l) + m(8+j, l))
					} else {
						s[j] = (m(4+j, l) - m(8+j, l)) - m(12+j, l)
					}
				}
				if 2*t < p.cols {
					out[2*t] = s[0] + (s[1] + s[2])
				}
				if 2*t+1 < p.cols {
					out[2*t+1] = (s[1] - s[2]) - s[3]
				}
			}
		}
	}
}
