package native

// Depthwise convolutions on channel vectors: sixteen channels side by side
// in each AVX-512 vector, as ONNX Runtime's NCHWc kernels do, rather than
// the columns of a row (the row kernel of fast_dwconv.go, which runs
// where this one does not: AVX2 only, a channel multiplier, several input
// channels per group). Measured per core, it took 26 µs where the rows
// took 167 on EfficientNet's 1152 channels of 4×4 (a 5×5 window), and no
// longer at any width up to 112. Per image and block of sixteen channels the input is transposed into
// a zero-padded block [phase][row][column][16] (split by column phase
// modulo the horizontal stride, as fillPhase does, so that neighbouring
// outputs read neighbouring pixels), each output pixel sums its taps as
// one vector of fused multiply-adds per tap (dwc16), and the block's
// outputs are transposed back into the NCHW rows (16×16 transposes in
// registers: Zen 4's gathers took 50 cycles for sixteen floats). The weights, [block][tap]
// [16], are laid out once per weight literal (prepacked, as the GEMMs'
// weights are). Sums are in tap order, as the row kernel's. Rows of 32
// output columns or more go to the wide-row kernels instead
// (fast_dwwide.go: no transposes).

import (
	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// dwc16Enabled switches the channel-vector path (tests run both paths).
var dwc16Enabled = dwc16OK

// dwcArgs are dwc16's arguments (the layout fast_dwc16_amd64.s reads).
type dwcArgs struct {
	dst  *float32 // [oh][ow][16]
	src  *float32 // the source of output (0, 0) (taps' offsets are relative to it)
	w    *float32 // [taps][16]
	offs *int     // per tap: offset in bytes
	taps int
	oh   int
	ow   int
	sy   int // bytes from one output row's source to the next's
}

// useC16 reports whether the channel-vector path takes c (after useDirect).
// Without AVX-512 (no wide-row kernels), rows of dwc16MaxColsAVX2 output
// columns or more stay on the row kernel, which vectorises along them.
func (c *conv2d) useC16() bool {
	return dwc16Enabled && c.kerC == 1 && c.outC == c.groups && (dwc512 || c.ow < dwc16MaxColsAVX2)
}

// dwc16MaxColsAVX2: on a Zen 2 pair, MobileNetV2's 56- and 112-wide
// layers ran 1.3-1.9× slower on the AVX2 channel vectors than on the row
// kernel, its 28-wide ones 1.0-1.5× faster and its 14- and 7-wide ones
// 1.6-3×.
var dwc16MaxColsAVX2 = 32

// dwc16Weights returns the weights of c as [block][tap][16], zero past the
// last channel.
func (c *conv2d) dwc16Weights() []float32 {
	taps := c.kh * c.kw
	blocks := (c.outC + 15) / 16
	build := func() []float32 {
		w := make([]float32, blocks*taps*16)
		for ch := 0; ch < c.outC; ch++ {
			blk, j := ch/16, ch%16
			src := c.rhs[ch*taps : (ch+1)*taps]
			dst := w[blk*taps*16:]
			for t, v := range src {
				dst[t*16+j] = v
			}
		}
		return w
	}
	if c.weight {
		v := prepacked(true, c.op, 1, c.kernel, [3]int{c.outC, taps, -16}, int64(4*blocks*taps*16), func() (any, int) {
			w := build()
			return w, 4 * len(w)
		})
		if w, ok := v.([]float32); ok {
			return w
		}
	}
	return build()
}

// runC16 computes c (depthwise, one input channel per group) into dst.
// The work items are (image, block of sixteen channels) and, where those
// are fewer than the threads (a 16-channel layer of one image), bands of
// output rows of them, each filling only the padded rows its band reads.
func (c *conv2d) runC16(dst []float32) {
	taps := c.kh * c.kw
	n := c.oh * c.ow
	hw := c.h * c.w
	blocks := (c.outC + 15) / 16
	spanH, spanW := (c.kh-1)*c.dh+1, (c.kw-1)*c.dw+1
	w := c.dwc16Weights()
	work := int64(c.batch) * int64(c.outC) * int64(n) * int64(taps)
	units := c.batch * blocks
	threads := int(min(int64(Threads()), max(1, work/dwWorkPerThread)))
	bands := 1
	if units < threads {
		bands = min(c.oh, (convItemsPerThread*threads+units-1)/units)
	}
	threads = min(threads, units*bands)
	bandRows := (c.oh + bands - 1) / bands
	bands = (c.oh + bandRows - 1) / bandRows
	ph := (bandRows-1)*c.sh + spanH                // padded rows a band reads at most
	pwp := c.ow + (spanW-1)/c.sw                   // columns per phase plane
	plane := ph * pwp * 16                         // floats per phase plane
	size := c.sw*plane + bandRows*c.ow*16 + c.w*16 // scratch: the planes, the outputs, a transposed row
	offs := make([]int, taps)
	for ky := 0; ky < c.kh; ky++ {
		for kx := 0; kx < c.kw; kx++ {
			tx := kx * c.dw
			offs[ky*c.kw+kx] = 4 * ((tx%c.sw)*plane + (ky*c.dh*pwp+tx/c.sw)*16)
		}
	}
	c.epiRuns((c.oh - (bands-1)*bandRows) * c.ow) // the last band's run is the shortest
	items := units * bands
	chunks := 1
	if threads > 1 {
		chunks = min(items, convItemsPerThread*threads)
	}
	parallel(threads, chunks, func(ch int) {
		sc := gemm.GetBuffer(size)
		defer gemm.PutBuffer(sc)
		pad, out, row := sc[:c.sw*plane], sc[c.sw*plane:c.sw*plane+bandRows*c.ow*16], sc[c.sw*plane+bandRows*c.ow*16:]
		filled := -1 // the band whose padding pad holds cleared (any fill leaves it so)
		for it := ch * items / chunks; it < (ch+1)*items/chunks; it++ {
			u, band := it/bands, it%bands
			b, blk := u/blocks, u%blocks
			c0 := blk * 16
			nch := min(16, c.outC-c0)
			oy0, oy1 := band*bandRows, min(c.oh, (band+1)*bandRows)
			r0 := oy0 * c.sh // the band's first padded row
			c.fillC16(pad, row, c.lhs[(b*c.inC+c0)*hw:], hw, plane, pwp, nch, r0, (oy1-oy0-1)*c.sh+spanH, filled == band)
			filled = band
			a := dwcArgs{dst: &out[0], src: &pad[0], w: &w[blk*taps*16], offs: &offs[0], taps: taps,
				oh: oy1 - oy0, ow: c.ow, sy: 4 * c.sh * pwp * 16}
			dwc16(&a)
			for p0 := oy0 * c.ow; p0 < oy1*c.ow; p0 += 16 {
				transpose16(&dst[(b*c.outC+c0)*n+p0], 4*n, &out[(p0-oy0*c.ow)*16], 64, min(16, oy1*c.ow-p0), nch, nil)
			}
			// one group per channel: the block's channels are rows
			// [0, nch) of group c0 as finish counts them
			c.finish(c0, 0, nch, b*n+oy0*c.ow, b*n+oy1*c.ow)
		}
	})
}

// fillC16 writes the zero-padded phase planes of nch ≤ 16 channels of one
// image (img: the first channel's plane, channels hw apart; lanes past
// nch zero): plane p, row r, column j holds the input at padded row r and
// padded column p + j·sw. Sixteen input columns at a time are transposed
// straight into their places (for stride 2, alternately into the two
// phases); wider strides transpose each input row into row first
// ([w][16]) and deal its pixels to the phases.
func (c *conv2d) fillC16(pad, row, img []float32, hw, plane, pwp, nch, r0, rows int, clean bool) {
	// the padded rows [r0, r0+rows) inside the image, to plane rows from 0
	rA, rB := c.validRange(r0-c.padT, 1, c.h, rows)
	// Only the padding is cleared where the transposes below write all
	// sixteen lanes of every pixel of the image's rows and columns (a
	// whole block: they store nch lanes), and none of it where the last
	// fill, a whole block of the same rows, left it cleared (clean: on 4×4
	// images the padding is three quarters of the block, and clearing it
	// for each block was an eighth of a layer's time).
	for p := 0; p < c.sw && !(clean && nch == 16); p++ {
		ph := pad[p*plane : p*plane+rows*pwp*16]
		j0, j1 := c.validRange(p-c.padL, c.sw, c.w, pwp)
		if nch < 16 || 4*(rB-rA)*(j1-j0) < 3*rows*pwp {
			clear(ph) // a partial block, or mostly padding
			continue
		}
		clear(ph[:rA*pwp*16])
		clear(ph[rB*pwp*16:])
		for r := rA; r < rB; r++ {
			clear(ph[r*pwp*16 : (r*pwp+j0)*16])
			clear(ph[(r*pwp+j1)*16 : (r+1)*pwp*16])
		}
	}
	// the input columns [x0, x1) some phase plane holds
	x1 := min(c.w, c.sw*pwp-c.padL)
	for r := rA; r < rB; r++ {
		src := img[(r0+r-c.padT)*c.w:]
		switch c.sw {
		case 1, 2:
			for x := 0; x < x1; x += 16 {
				pc := x + c.padL // padded column of x
				p, j := pc%c.sw, pc/c.sw
				cols := min(16, x1-x)
				dst := &pad[p*plane+(r*pwp+j)*16]
				var dst2 *float32
				if c.sw == 2 {
					dst2 = dst // one column: no odd row to store
					if cols > 1 {
						q, k := (pc+1)%2, (pc+1)/2 // the next column's phase and column
						dst2 = &pad[q*plane+(r*pwp+k)*16]
					}
				}
				transpose16(dst, 64, &src[x], 4*hw, nch, cols, dst2)
			}
		default:
			for x := 0; x < c.w; x += 16 {
				transpose16(&row[x*16], 64, &src[x], 4*hw, nch, min(16, c.w-x), nil)
			}
			for p := 0; p < c.sw; p++ {
				j0, j1 := c.validRange(p-c.padL, c.sw, c.w, pwp)
				for j := j0; j < j1; j++ {
					x := p + j*c.sw - c.padL
					copy(pad[p*plane+(r*pwp+j)*16:][:16], row[x*16:])
				}
			}
		}
	}
}
