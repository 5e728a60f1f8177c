package native

// A fast path for float32 reduce_window over the last two dims of a rank-4
// tensor (NCHW pooling as PyTorch exports max_pool2d and avg_pool2d): one
// loop per output over its window, planes split among goroutines, instead
// of the generic kernel's index table rebuilt on every run. It folds in
// the generic kernel's order (window rows, then columns; padding folds the
// init value), with the same maximum (NaN-propagating, +0 above -0) and
// float32 addition, so the bits are the same. Other cases go to the
// generic kernel of window.go, which this wraps.

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// fastWindowEnabled switches the fast path (tests compare both).
var fastWindowEnabled = true

func init() {
	wrapKernel("stablehlo.reduce_window", func(slow Kernel) Kernel {
		return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
			if fastWindowEnabled && len(in) == 4 {
				if outs, ok := fastArgmaxWindow(env, op, in); ok {
					fastHits.Add(1)
					return outs, nil
				}
			}
			if fastWindowEnabled {
				if out, ok := fastWindow(env, op, in); ok {
					fastHits.Add(1)
					return []Value{out}, nil
				}
			}
			return slow(env, op, in)
		}
	})
}

// pool2d is a reduce_window the fast path runs.
type pool2d struct {
	planes, h, w, oh, ow int
	kh, kw, sh, sw       int
	dh, dw, pt, pl       int
	max                  bool // else add
	init                 float32
}

func fastWindow(env Env, op *stablehlo.Op, in []Value) (*literal.Literal, bool) {
	if len(in) != 2 || len(op.Regions) != 1 {
		return nil, false
	}
	x, ok1 := in[0].(*literal.Literal)
	init, ok2 := in[1].(*literal.Literal)
	if !ok1 || !ok2 || x.DType != dtype.F32 || init.DType != dtype.F32 || x.Rank() != 4 || init.Rank() != 0 ||
		computeResultDType(op, 0, x.DType) != dtype.F32 {
		return nil, false
	}
	var p pool2d
	switch binaryBody(op.Regions[0]) {
	case "stablehlo.maximum":
		p.max = true
	case "stablehlo.add":
	default:
		return nil, false
	}
	outShape, ok := p.plan(op, x.Shape, 1)
	if !ok {
		return nil, false
	}
	// Every output is written: a recycled buffer need not be cleared.
	out, err := takeResult(env, dtype.F32, outShape)
	if err != nil {
		return nil, false
	}
	p.init = f32View(init.Data)[0]
	dst, store := f32Out(out.Data)
	p.run(f32View(x.Data), dst)
	store()
	return out, true
}

// plan reads op's window into p's geometry: a window over the last two
// dims of a rank-4 operand of shape (the leading dims taken one by one,
// no base dilation, no negative padding), for an op whose first results
// results have the output shape it returns; false where the fast paths
// do not apply.
func (p *pool2d) plan(op *stablehlo.Op, shape []int64, results int) ([]int64, bool) {
	w, err := readWindowSpec(op, 4)
	if err != nil {
		return nil, false
	}
	for d := 0; d < 4; d++ {
		lead := d < 2 && (w.size[d] != 1 || w.stride[d] != 1 || w.winDil[d] != 1 || w.padLo[d] != 0 || w.padHi[d] != 0)
		if lead || w.baseDil[d] != 1 || w.padLo[d] < 0 || w.padHi[d] < 0 {
			return nil, false
		}
	}
	outShape := w.outShape(shape)
	for r := 0; r < results; r++ {
		if checkComputedShape(op, r, outShape) != nil {
			return nil, false
		}
	}
	p.planes = int(shape[0] * shape[1])
	p.h, p.w, p.oh, p.ow = int(shape[2]), int(shape[3]), int(outShape[2]), int(outShape[3])
	p.kh, p.kw, p.sh, p.sw = int(w.size[2]), int(w.size[3]), int(w.stride[2]), int(w.stride[3])
	p.dh, p.dw, p.pt, p.pl = int(w.winDil[2]), int(w.winDil[3]), int(w.padLo[2]), int(w.padLo[3])
	return outShape, true
}

func (p *pool2d) run(src, dst []float32) {
	if p.oh*p.ow == 0 {
		return
	}
	if whole := p.wholeSums(); whole != nil {
		// one sum per column or per row of each plane (average pooling
		// to 1×1 as aten lowers it): tight loops over many small planes,
		// split from planeGrain elements as a per-plane group (the
		// squeeze-and-excitation pools follow layers split over the
		// cores by channels: on one, they read half their input from the
		// other's cache)
		runParts(p.planes, min(Threads(), p.planes, max(1, p.planes*p.h*p.w/planeGrain)), func(lo, hi int) {
			whole(src, dst, lo, hi)
		})
		return
	}
	do := func(lo, hi int) {
		var buf []float32
		if p.max && simdPool {
			buf = make([]float32, 2*p.w)
		}
		for pl := lo; pl < hi; pl++ {
			p.plane(src[pl*p.h*p.w:(pl+1)*p.h*p.w], dst[pl*p.oh*p.ow:(pl+1)*p.oh*p.ow], buf)
		}
	}
	runParts(p.planes, min(Threads(), p.planes, max(1, p.planes*p.oh*p.ow*p.kh*p.kw/(1<<13))), do)
}

// plane folds every window of one h×w plane into the oh×ow outputs:
// interior outputs (window fully inside the plane) by the vector maxima
// of fast_window_simd.go (with buf, of 2*p.w elements, not nil) or the
// unrolled loops of fast_window_interior.go, the border by border.
func (p *pool2d) plane(src, dst, buf []float32) {
	if !p.max && p.kw == 1 && p.sw == 1 && p.pl == 0 && p.ow == p.w {
		p.columnSums(src, dst)
		return
	}
	oy0, oy1 := interiorRange(p.oh, p.h, p.kh, p.sh, p.dh, p.pt)
	ox0, ox1 := interiorRange(p.ow, p.w, p.kw, p.sw, p.dw, p.pl)
	vec := buf != nil && p.init == p.init
	for oy := 0; oy < p.oh; oy++ {
		out := dst[oy*p.ow : (oy+1)*p.ow]
		inside := oy >= oy0 && oy < oy1
		if ox0 >= ox1 || !inside && !vec {
			for ox := range out {
				out[ox] = p.border(src, oy, ox)
			}
			continue
		}
		for ox := 0; ox < ox0; ox++ {
			out[ox] = p.border(src, oy, ox)
		}
		for ox := ox1; ox < p.ow; ox++ {
			out[ox] = p.border(src, oy, ox)
		}
		if !inside {
			// Window rows reach into padding: the vector maximum of the
			// rows inside (padding adds the init value, which the
			// maximum holds already), or the border's fold.
			i0, i1 := tapRange(oy*p.sh-p.pt, p.kh, p.dh, p.h)
			if i0 >= i1 || !p.interiorRowMaxSIMD(src, out[ox0:ox1], oy, ox0, buf, i0, i1) {
				for ox := ox0; ox < ox1; ox++ {
					out[ox] = p.border(src, oy, ox)
				}
			}
			continue
		}
		if p.max3s2() && p.max3Row(src, out[ox0:ox1], oy, ox0) {
			continue // no NaN in these windows
		}
		if vec && p.interiorRowMaxSIMD(src, out[ox0:ox1], oy, ox0, buf, 0, p.kh) {
			continue // no NaN in these windows or the init value
		}
		p.interiorRow(src, out[ox0:ox1], oy, ox0)
		if p.max {
			// The interior's builtin max is the generic maximum except
			// for which NaN it returns: a window holding a NaN (the only
			// way to a NaN result) is folded again the generic way.
			for ox := ox0; ox < ox1; ox++ {
				if v := out[ox]; v != v {
					out[ox] = p.fold(src, oy, ox)
				}
			}
		}
	}
}

// interiorRange returns the outputs [lo, hi) along one dim of n outputs
// whose windows (k taps, stride s, dilation d, low padding pad) lie
// inside an input of size size.
func interiorRange(n, size, k, s, d, pad int) (lo, hi int) {
	lo = (pad + s - 1) / s // first o with o*s - pad >= 0
	last := size - 1 - (k-1)*d + pad
	if last < 0 {
		return 0, 0
	}
	hi = min(n, last/s+1) // o*s - pad + (k-1)*d <= size-1
	if lo >= hi {
		return 0, 0
	}
	return lo, hi
}

// border computes an output whose window reaches into padding (or out
// of the plane). A maximum takes only the taps inside, with the builtin
// max: padding contributes the init value, which the maximum already
// holds once (max is idempotent), and without NaNs the order does not
// matter; a NaN result is folded again the generic way. A sum folds in
// the generic order.
func (p *pool2d) border(src []float32, oy, ox int) float32 {
	if !p.max {
		return p.fold(src, oy, ox)
	}
	y0, x0 := oy*p.sh-p.pt, ox*p.sw-p.pl
	i0, i1 := tapRange(y0, p.kh, p.dh, p.h)
	j0, j1 := tapRange(x0, p.kw, p.dw, p.w)
	acc := p.init
	for i := i0; i < i1; i++ {
		r := src[(y0+i*p.dh)*p.w:]
		for j := j0; j < j1; j++ {
			acc = max(acc, r[x0+j*p.dw])
		}
	}
	if acc != acc {
		return p.fold(src, oy, ox)
	}
	return acc
}

// tapRange returns the taps [lo, hi) of a window starting at first (k
// taps, dilation d) that fall inside [0, size).
func tapRange(first, k, d, size int) (lo, hi int) {
	if first < 0 {
		lo = (-first + d - 1) / d
	}
	if size-first <= 0 {
		return 0, 0
	}
	hi = min(k, (size-first+d-1)/d)
	return min(lo, hi), hi
}

// fold is the generic fold of the window of output (oy, ox): rows, then
// columns, padding contributing the init value.
func (p *pool2d) fold(src []float32, oy, ox int) float32 {
	acc := p.init
	for i := 0; i < p.kh; i++ {
		y := oy*p.sh - p.pt + i*p.dh
		for j := 0; j < p.kw; j++ {
			x := ox*p.sw - p.pl + j*p.dw
			v := p.init
			if y >= 0 && y < p.h && x >= 0 && x < p.w {
				v = src[y*p.w+x]
			}
			if p.max {
				acc = maxF32(acc, v)
			} else {
				acc += v
			}
		}
	}
	return acc
}

// maxF32 is the maximum of the generic fold: a NaN accumulator stays, a
// NaN element is taken, and +0 is above -0.
func maxF32(a, x float32) float32 {
	switch {
	case a != a:
		return a
	case x != x, x > a:
		return x
	case x == a && a == 0 && math.Signbit(float64(a)):
		return x
	}
	return a
}

// wholeSums returns, for a sum whose window covers the columns of the
// plane (an output row of column sums) or its one row (a single sum),
// the loop over planes [lo, hi) that runs it; nil otherwise. Each output
// folds the init value and then its inputs in the generic order (rows in
// turn; the row's elements left to right), so the bits are the same; a
// loop call per plane cost more than the sums on the small images of a
// squeeze-and-excitation block (1152 planes of 4×4).
func (p *pool2d) wholeSums() func(src, dst []float32, lo, hi int) {
	if p.max || p.pt != 0 || p.pl != 0 || p.oh != 1 {
		return nil
	}
	h, w, init := p.h, p.w, p.init
	switch {
	case p.kh == h && p.dh == 1 && p.kw == 1 && p.sw == 1 && p.ow == w:
		if simdColSums && h >= 1 && w >= 1 {
			return func(src, dst []float32, lo, hi int) {
				if lo < hi {
					_, _ = src[hi*h*w-1], dst[hi*w-1]
					colSums(&src[lo*h*w], &dst[lo*w], hi-lo, h, w, init)
				}
			}
		}
		return func(src, dst []float32, lo, hi int) {
			for pl := lo; pl < hi; pl++ {
				in, out := src[pl*h*w:(pl+1)*h*w], dst[pl*w:(pl+1)*w]
				if simdRows && w >= 16 {
					for x := range out {
						out[x] = init
					}
					for y := 0; y < h; y++ {
						binRR(opAdd, &out[0], &out[0], &in[y*w], w)
					}
					continue
				}
				for x := range out {
					acc := init
					for y := x; y < len(in); y += w {
						acc += in[y]
					}
					out[x] = acc
				}
			}
		}
	case h == 1 && p.kh == 1 && p.kw == w && p.dw == 1 && p.ow == 1:
		return func(src, dst []float32, lo, hi int) {
			for pl := lo; pl < hi; pl++ {
				acc := init
				for _, v := range src[pl*w : (pl+1)*w] {
					acc += v
				}
				dst[pl] = acc
			}
		}
	}
	return nil
}

// columnSums runs a sum whose windows are columns (kw = 1, stride 1 along
// the row, no column padding: the first half of adaptive average pooling
// to 1×1 as aten lowers it) a row at a time: each output row starts at
// the init value and adds its window's input rows in order, so every
// element folds the same values in the same order as border does, with
// the rows read contiguously instead of a column at a time.
func (p *pool2d) columnSums(src, dst []float32) {
	for oy := 0; oy < p.oh; oy++ {
		out := dst[oy*p.ow : (oy+1)*p.ow]
		for ox := range out {
			out[ox] = p.init
		}
		for ky := 0; ky < p.kh; ky++ {
			y := oy*p.sh - p.pt + ky*p.dh
			if y < 0 || y >= p.h {
				for ox := range out { // padding folds the init value
					out[ox] += p.init
				}
				continue
			}
			row := src[y*p.w : (y+1)*p.w]
			if simdRows && len(out) > 0 {
				_ = row[len(out)-1]
				binRR(opAdd, &out[0], &out[0], &row[0], len(out)) // the same adds, 8 lanes at a time
				continue
			}
			for ox, v := range row {
				out[ox] += v
			}
		}
	}
}

// max3s2 reports whether p is the ResNet stem's max pooling, 3×3 windows
// at stride 2 from -Inf, which max3Row folds 16 windows per AVX-512 step,
// 8 per AVX2 step (the rows of vector maxima took 0.465 ms on one thread
// where ONNX Runtime took 0.161; on Zen 2, 0.70 ms).
func (p *pool2d) max3s2() bool {
	return (simdWindow512 || simdPool) && max3Enabled && p.max && p.kh == 3 && p.kw == 3 && p.sh == 2 && p.sw == 2 &&
		p.dh == 1 && p.dw == 1 && math.IsInf(float64(p.init), -1)
}

// max3Enabled switches max3Row (tests compare both).
var max3Enabled = true

// max3Row computes the interior outputs out (ox0 on) of output row oy of
// a max3s2 pooling with max3s2x16 (AVX2: max3s2x8): whole groups of 16
// (8), and the last group again where a part remains (the groups
// overlap). It reports false, out unspecified, where a window holds a
// NaN or the row is narrower than a group.
func (p *pool2d) max3Row(src, out []float32, oy, ox0 int) bool {
	kernel, width := max3s2x16, 16
	if !simdWindow512 {
		kernel, width = max3s2x8, 8
	}
	n := len(out)
	if n < width {
		return false
	}
	base := (oy*p.sh-p.pt)*p.w + ox0*p.sw - p.pl
	groups := n / width
	// the last float read: column 2n of the third row (inside: the
	// outputs are the interior ones)
	if base < 0 || base+2*p.w+2*n >= len(src) {
		return false
	}
	if kernel(&src[base], p.w, &out[0], groups) {
		return false
	}
	if o := n - width; n%width != 0 && kernel(&src[base+2*o], p.w, &out[o], 1) {
		return false
	}
	return true
}
