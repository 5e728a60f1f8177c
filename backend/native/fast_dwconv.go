package native

// A direct path for depthwise and small-group float32 NCHW convolutions
// (MobileNet, EfficientNet, ConvNeXt): feature_group_count > 1 with at
// most dwMaxKerC input channels per group and at most dwMaxOcPer outputs
// per group (depthwise with a channel multiplier included). As a GEMM
// each group there is a product of a few rows only, which the packed
// kernels run at a small fraction of their rate; here each output row is
// Σ over the group's input channels and the kh×kw taps of w[tap] × a
// shifted input row, vectorized along the row (dwRows, AVX2 in
// fast_dwconv_amd64.s).
//
// Per work item (image, group, band of output rows) the band's input rows
// of the group are first copied into a zero-padded scratch, split by
// column phase modulo the horizontal stride (for stride 2: even and odd
// columns), so that every tap reads a contiguous run for any padding,
// stride and dilation and the inner loop has no borders. Output rows
// come from the run's arena like fastConv's; the fused epilogue
// (fast_conv_epi.go) is applied per finished band through c.finish.
// Sums are in tap order with fused multiply-adds, so results differ from
// the exact kernel's in the last bits only.

import (
	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

const (
	dwMaxKerC  = 4  // input channels per group at most
	dwMaxOcPer = 16 // outputs per group at most (channel multiplier)
)

// dwSIMD switches the vector row kernel (tests run the Go loop too).
var dwSIMD = dwSIMDOK

// useDirect reports whether the direct path takes c (set by fastConvShape
// before its GEMM size threshold: the direct path has none).
func (c *conv2d) useDirect() bool {
	return c.groups > 1 && c.kerC >= 1 && c.kerC <= dwMaxKerC && c.outC/c.groups <= dwMaxOcPer && c.oh > 0 && c.ow > 0
}

// dwArgs are dwRows' arguments (the layout fast_dwconv_amd64.s reads).
type dwArgs struct {
	dst       *float32 // first output row
	src       *float32 // scratch: the taps' offsets are relative to it
	offs      *int     // per tap: offset in bytes into src
	w         *float32 // per tap: the weight
	taps      int
	n         int // outputs per row
	rows      int
	dstStride int // bytes from one output row to the next
	srcStride int // bytes from one output row's source to the next's
}

// dwRowsGo is dwRows in Go: per row r and column x < n,
// dst[r][x] = Σ_t w[t] × src[offs[t] + r·srcStride + x], in tap order.
func dwRowsGo(dst, src []float32, offs []int, w []float32, n, rows, dstStride, srcStride int) {
	for r := 0; r < rows; r++ {
		d := dst[r*dstStride : r*dstStride+n]
		clear(d)
		for t, o := range offs {
			s := src[o/4+r*srcStride:]
			s = s[:len(d)]
			wt := w[t]
			for x := range d {
				d[x] += wt * s[x]
			}
		}
	}
}

// runDirect computes c into dst ([batch, outC, oh, ow]).
func (c *conv2d) runDirect(dst []float32) {
	if c.useWide() {
		c.runWide(dst) // wide rows, straight from the input (fast_dwwide.go)
		return
	}
	if c.useC16() {
		c.runC16(dst) // channels in the vectors (fast_dwc16.go)
		return
	}
	ocPer, n := c.outC/c.groups, c.oh*c.ow
	spanH, spanW := (c.kh-1)*c.dh+1, (c.kw-1)*c.dw+1
	taps := c.kerC * c.kh * c.kw
	work := int64(c.batch) * int64(c.outC) * int64(n) * int64(taps)
	threads := int(min(int64(Threads()), max(1, work/dwWorkPerThread)))
	items := c.batch * c.groups
	bands := 1
	if want := convItemsPerThread * threads; threads > 1 && items < want {
		bands = min(c.oh, (want+items-1)/items)
	}
	bandOH := (c.oh + bands - 1) / bands
	bands = (c.oh + bandOH - 1) / bandOH
	// scratch per item: [kerC][sw phases][rowsCap][pwp], where output
	// column x of tap column kx reads phase (kx·dw)%sw at x + (kx·dw)/sw
	rowsCap := (bandOH-1)*c.sh + spanH
	pwp := c.ow + (spanW-1)/c.sw
	plane := rowsCap * pwp
	size := c.kerC * c.sw * plane
	// flat: with stride 1 vertically, output row r reads the planes at
	// r·pwp + x, so a band of short rows is one run of the row kernel at
	// the planes' pitch (the pitch's extra columns computed and dropped),
	// instead of one masked tail per row (below 8 columns it measured no
	// faster: the rows are all tail either way)
	flat := c.sh == 1 && c.ow >= 8 && c.ow < dwFlatWidth && bandOH > 1
	tmp := 0
	if flat {
		tmp = bandOH * pwp
	}
	offs := make([]int, taps)
	for ic := 0; ic < c.kerC; ic++ {
		for ky := 0; ky < c.kh; ky++ {
			for kx := 0; kx < c.kw; kx++ {
				tx := kx * c.dw
				offs[(ic*c.kh+ky)*c.kw+kx] = 4 * ((ic*c.sw+tx%c.sw)*plane + ky*c.dh*pwp + tx/c.sw)
			}
		}
	}
	c.epiRuns(bandOH * c.ow)
	hw := c.h * c.w
	units := items * bands
	chunks := 1 // runs of units, each with one scratch buffer
	if threads > 1 {
		chunks = min(units, convItemsPerThread*threads)
	}
	parallel(threads, chunks, func(ch int) {
		sc := gemm.GetBuffer(size + tmp)
		flatOut := sc[size:]
		defer gemm.PutBuffer(sc)
		for it := ch * units / chunks; it < (ch+1)*units/chunks; it++ {
			item, band := it/bands, it%bands
			b, g := item/c.groups, item%c.groups
			oy0, oy1 := band*bandOH, min(c.oh, (band+1)*bandOH)
			rows := (oy1-oy0-1)*c.sh + spanH
			for ic := 0; ic < c.kerC; ic++ {
				img := c.lhs[(b*c.inC+g*c.kerC+ic)*hw:][:hw]
				for p := 0; p < c.sw; p++ {
					c.fillPhase(sc[(ic*c.sw+p)*plane:][:plane], img, p, oy0*c.sh, rows, pwp)
				}
			}
			for o := 0; o < ocPer; o++ {
				oc := g*ocPer + o
				w := c.rhs[oc*taps : (oc+1)*taps]
				d := dst[(b*c.outC+oc)*n+oy0*c.ow:][:(oy1-oy0)*c.ow]
				if flat {
					rows := oy1 - oy0
					c.dwRows(flatOut, sc, offs, w, (rows-1)*pwp+c.ow, 1, 0)
					for r := 0; r < rows; r++ {
						copy(d[r*c.ow:(r+1)*c.ow], flatOut[r*pwp:])
					}
					continue
				}
				c.dwRows(d, sc, offs, w, c.ow, oy1-oy0, c.sh*pwp)
			}
			c.finish(g, 0, ocPer, b*n+oy0*c.ow, b*n+oy1*c.ow)
		}
	})
}

// dwWorkPerThread is the multiply-adds below which an extra core does not
// pay on the direct path (its rate per core is below the GEMM's). From
// 1<<16 to 1<<14: a small depthwise layer between two pointwise layers
// split over the cores read half its input from the other core's cache
// when run on one; split, each core reads mostly its own channels
// (mobilenet_v3_large's 184-channel 8×8 layers 42 → 27 µs for the pair at
// two threads; every depthwise layer of mobilenet_v3_small level or faster).
const dwWorkPerThread = 1 << 14

// dwFlatWidth is the output width below which stride-1 bands run flat.
const dwFlatWidth = 32

// fillPhase writes rows [0, rows) of the phase-p plane d (rows of pwp)
// for padded rows [r0, r0+rows): d[r][j] = the input at padded position
// (r0+r, p + j·sw), zero in the padding.
func (c *conv2d) fillPhase(d, img []float32, p, r0, rows, pwp int) {
	// the plane's columns j with input column p + j·sw - padL in [0, w),
	// and the rows r with input row r0 + r - padT in [0, h)
	j0, j1 := c.validRange(p-c.padL, c.sw, c.w, pwp)
	rA, rB := c.validRange(r0-c.padT, 1, c.h, rows)
	if j0 >= j1 {
		rA, rB = 0, 0
	}
	clear(d[:rA*pwp])
	clear(d[rB*pwp : rows*pwp])
	if rA >= rB {
		return
	}
	for r := rA; r < rB; r++ { // the borders (a few columns: no calls)
		row := d[r*pwp : (r+1)*pwp]
		for j := 0; j < j0; j++ {
			row[j] = 0
		}
		for j := j1; j < pwp; j++ {
			row[j] = 0
		}
	}
	x0, n := p+j0*c.sw-c.padL, j1-j0
	iy0 := r0 + rA - c.padT
	if c.sw == 2 && dwSIMD {
		evensRows(&d[rA*pwp+j0], &img[iy0*c.w+x0], n, rB-rA, pwp, c.w)
		return
	}
	for r := rA; r < rB; r++ {
		out := d[r*pwp+j0:][:n]
		in := img[(iy0+r-rA)*c.w+x0:][:(n-1)*c.sw+1]
		if c.sw == 1 {
			copy(out, in)
			continue
		}
		for j := range out {
			out[j] = in[j*c.sw]
		}
	}
}

// dwRows runs the row kernel over rows output rows of n (d's rows of n
// one after the other).
func (c *conv2d) dwRows(d, sc []float32, offs []int, w []float32, n, rows, srcStride int) {
	if dwSIMD {
		a := dwArgs{dst: &d[0], src: &sc[0], offs: &offs[0], w: &w[0], taps: len(offs), n: n, rows: rows,
			dstStride: 4 * n, srcStride: 4 * srcStride}
		if dw512OK {
			dwRows512(&a)
		} else {
			dwRows(&a)
		}
		return
	}
	dwRowsGo(d, sc, offs, w, n, rows, n, srcStride)
}
