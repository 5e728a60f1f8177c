package native

// A fast path for float32 2-D convolutions in PyTorch's NCHW layout
// (input [b, f, 0, 1], kernel [o, i, 0, 1], output [b, f, 0, 1]): for each
// image and feature group, the output block [oc, oh·ow] is one product of
// the kernel as stored ([oc, c·kh·kw]) by the im2col matrix
// [c·kh·kw, oh·ow] on the packed SIMD GEMM of package gemm, written in
// place into the result (no transposes). A 1×1 convolution with unit
// stride and no padding uses the input as the im2col matrix.
//
// It wraps the stablehlo.convolution kernel of conv.go (fast_hooks.go) and
// hands every case it does not cover — other layouts and element types, lhs dilation, batch
// groups, window reversal, negative padding, small products — to it. Like
// dot_fast.go it sums in blocks with fused multiply-adds, so results
// differ from the exact kernel's order in the last bits only.

import (
	"runtime"
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
				if out, ok := fastConv(op, in); ok {
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
}

// fastConv runs the convolution when it is one the fast path covers;
// ok false means "use the exact kernel" (including every malformed op,
// so that the exact kernel reports the error).
func fastConv(op *stablehlo.Op, in []Value) (*literal.Literal, bool) {
	c, ok := fastConvShape(op, in)
	if !ok {
		return nil, false
	}
	out, err := literal.New(dtype.F32, []int64{int64(c.batch), int64(c.outC), int64(c.oh), int64(c.ow)})
	if err != nil {
		return nil, false
	}
	dst, store := f32Out(out.Data)
	c.run(dst)
	store()
	return out, true
}

func fastConvShape(op *stablehlo.Op, in []Value) (*conv2d, bool) {
	if op.Name != "stablehlo.convolution" || len(in) != 2 {
		return nil, false
	}
	lhs, ok1 := in[0].(*literal.Literal)
	rhs, ok2 := in[1].(*literal.Literal)
	if !ok1 || !ok2 || lhs.DType != dtype.F32 || rhs.DType != dtype.F32 || lhs.Rank() != 4 || rhs.Rank() != 4 ||
		computeResultDType(op, 0, lhs.DType) != dtype.F32 {
		return nil, false
	}
	cp, err := readConvParams(op, in)
	if err != nil || cp.batchGroups != 1 {
		return nil, false
	}
	d := cp.dims
	if d.InputBatchDim != 0 || d.InputFeatureDim != 1 || d.KernelOutputFeatureDim != 0 || d.KernelInputFeatureDim != 1 ||
		d.OutputBatchDim != 0 || d.OutputFeatureDim != 1 || !isSeq(d.InputSpatialDims) || !isSeq(d.KernelSpatialDims) || !isSeq(d.OutputSpatialDims) {
		return nil, false
	}
	for i := 0; i < 2; i++ {
		if cp.lhsDil[i] != 1 || cp.reverse[i] || cp.padLo[i] < 0 || cp.padHi[i] < 0 {
			return nil, false
		}
	}
	c := &conv2d{
		batch: int(lhs.Shape[0]), inC: int(lhs.Shape[1]), h: int(lhs.Shape[2]), w: int(lhs.Shape[3]),
		outC: int(rhs.Shape[0]), kerC: int(rhs.Shape[1]), kh: int(rhs.Shape[2]), kw: int(rhs.Shape[3]),
		sh: int(cp.stride[0]), sw: int(cp.stride[1]), dh: int(cp.rhsDil[0]), dw: int(cp.rhsDil[1]),
		padT: int(cp.padLo[0]), padL: int(cp.padLo[1]), groups: cp.featureGroups,
	}
	if c.kerC*c.groups != c.inC || c.outC%c.groups != 0 || c.kh < 1 || c.kw < 1 {
		return nil, false
	}
	spanH, spanW := (c.kh-1)*c.dh+1, (c.kw-1)*c.dw+1
	ph, pw := c.h+int(cp.padLo[0]+cp.padHi[0]), c.w+int(cp.padLo[1]+cp.padHi[1])
	if ph < spanH || pw < spanW {
		return nil, false
	}
	c.oh, c.ow = (ph-spanH)/c.sh+1, (pw-spanW)/c.sw+1
	if checkComputedShape(op, 0, []int64{int64(c.batch), int64(c.outC), int64(c.oh), int64(c.ow)}) != nil {
		return nil, false
	}
	// per group product: (outC/groups) × (oh·ow) × (kerC·kh·kw)
	if int64(c.outC/c.groups)*int64(c.oh*c.ow)*int64(c.kerC*c.kh*c.kw) < fastGemmMinFlops {
		return nil, false
	}
	c.lhs, c.rhs = f32View(lhs.Data), f32View(rhs.Data)
	return c, true
}

func isSeq(d []int64) bool { return len(d) == 2 && d[0] == 2 && d[1] == 3 }

// run computes the convolution into dst ([batch, outC, oh, ow]).
func (c *conv2d) run(dst []float32) {
	ocPer := c.outC / c.groups
	k := c.kerC * c.kh * c.kw
	n := c.oh * c.ow
	direct := c.kh == 1 && c.kw == 1 && c.sh == 1 && c.sw == 1 && c.padT == 0 && c.padL == 0 && c.oh == c.h && c.ow == c.w
	var col []float32
	if !direct {
		col = gemm.GetBuffer(k * n)
		defer gemm.PutBuffer(col)
	}
	for b := 0; b < c.batch; b++ {
		for g := 0; g < c.groups; g++ {
			src := c.lhs[(b*c.inC+g*c.kerC)*c.h*c.w : (b*c.inC+(g+1)*c.kerC)*c.h*c.w]
			bm := src
			if !direct {
				c.im2col(col, src)
				bm = col
			}
			w := c.rhs[g*ocPer*k : (g+1)*ocPer*k]
			out := dst[(b*c.outC+g*ocPer)*n : (b*c.outC+(g+1)*ocPer)*n]
			gemm.Sgemm(ocPer, n, k, gemm.RowMajor(w, k), gemm.RowMajor(bm, n), out, n, false, 0)
		}
	}
}

// im2col writes col[(ci·kh + i)·kw + j][oy·ow + ox] = src[ci][oy·sh - padT + i·dh][ox·sw - padL + j·dw]
// (zero outside the image) for one image and group, rows split among
// goroutines when the matrix is large.
func (c *conv2d) im2col(col, src []float32) {
	rows := c.kerC * c.kh * c.kw
	n := c.oh * c.ow
	fill := func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			ci, i, j := r/(c.kh*c.kw), r/c.kw%c.kh, r%c.kw
			plane := src[ci*c.h*c.w : (ci+1)*c.h*c.w]
			row := col[r*n : (r+1)*n]
			// output columns whose input column is inside the image
			x0, x1 := c.validRange(j*c.dw-c.padL, c.sw, c.w, c.ow)
			for oy := 0; oy < c.oh; oy++ {
				out := row[oy*c.ow : (oy+1)*c.ow]
				y := oy*c.sh - c.padT + i*c.dh
				if y < 0 || y >= c.h || x0 >= x1 {
					clear(out)
					continue
				}
				clear(out[:x0])
				clear(out[x1:])
				in := plane[y*c.w : (y+1)*c.w]
				x := x0*c.sw + j*c.dw - c.padL
				if c.sw == 1 {
					copy(out[x0:x1], in[x:x+x1-x0])
					continue
				}
				for ox := x0; ox < x1; ox, x = ox+1, x+c.sw {
					out[ox] = in[x]
				}
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), rows, max(1, rows*n/(1<<16)))
	if workers <= 1 {
		fill(0, rows)
		return
	}
	var wg sync.WaitGroup
	per := (rows + workers - 1) / workers
	for r0 := 0; r0 < rows; r0 += per {
		wg.Add(1)
		go func(r0, r1 int) { defer wg.Done(); fill(r0, r1) }(r0, min(r0+per, rows))
	}
	wg.Wait()
}

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
