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
	"runtime"
	"sync"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// fastWindowEnabled switches the fast path (tests compare both).
var fastWindowEnabled = true

func init() {
	wrapKernel("stablehlo.reduce_window", func(slow Kernel) Kernel {
		return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
			if fastWindowEnabled {
				if out, ok := fastWindow(op, in); ok {
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

func fastWindow(op *stablehlo.Op, in []Value) (*literal.Literal, bool) {
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
	outShape := w.outShape(x.Shape)
	if checkComputedShape(op, 0, outShape) != nil {
		return nil, false
	}
	out, err := literal.New(dtype.F32, outShape)
	if err != nil {
		return nil, false
	}
	p.planes = int(x.Shape[0] * x.Shape[1])
	p.h, p.w, p.oh, p.ow = int(x.Shape[2]), int(x.Shape[3]), int(outShape[2]), int(outShape[3])
	p.kh, p.kw, p.sh, p.sw = int(w.size[2]), int(w.size[3]), int(w.stride[2]), int(w.stride[3])
	p.dh, p.dw, p.pt, p.pl = int(w.winDil[2]), int(w.winDil[3]), int(w.padLo[2]), int(w.padLo[3])
	p.init = f32View(init.Data)[0]
	dst, store := f32Out(out.Data)
	p.run(f32View(x.Data), dst)
	store()
	return out, true
}

func (p *pool2d) run(src, dst []float32) {
	if p.oh*p.ow == 0 {
		return
	}
	do := func(lo, hi int) {
		for pl := lo; pl < hi; pl++ {
			p.plane(src[pl*p.h*p.w:(pl+1)*p.h*p.w], dst[pl*p.oh*p.ow:(pl+1)*p.oh*p.ow])
		}
	}
	workers := min(runtime.GOMAXPROCS(0), p.planes, max(1, p.planes*p.oh*p.ow*p.kh*p.kw/(1<<15)))
	if workers <= 1 {
		do(0, p.planes)
		return
	}
	var wg sync.WaitGroup
	per := (p.planes + workers - 1) / workers
	for lo := 0; lo < p.planes; lo += per {
		wg.Add(1)
		go func(lo, hi int) { defer wg.Done(); do(lo, hi) }(lo, min(lo+per, p.planes))
	}
	wg.Wait()
}

// plane folds every window of one h×w plane into the oh×ow outputs.
func (p *pool2d) plane(src, dst []float32) {
	for oy := 0; oy < p.oh; oy++ {
		for ox := 0; ox < p.ow; ox++ {
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
			dst[oy*p.ow+ox] = acc
		}
	}
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
