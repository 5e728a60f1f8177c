package native

import "github.com/torchtpu/torchtpu/backend/native/gemm"

// Implicit GEMM: the B operand of a convolution, the im2col matrix
// [c·kh·kw, oh·ow], is never built. The GEMM asks for it one k block ×
// column chunk at a time in its packed layout (micro-panels of nr columns,
// nr values per k step) and packB reads those values straight from the
// NCHW image, writing zeros where the window reaches into the padding.
// Each value is thus read from the image and written once, into a block
// that stays in L2 for the micro-kernels.

// convGather switches gemm.PackConv, the SIMD gather packer, where the CPU
// has one (tests turn it off to check the portable packer below).
var convGather = true

// colRun is a run of consecutive output columns that lie in one output row
// of one image and in one micro-panel: output positions (oy, ox0 …
// ox0+cnt-1) of the image starting at base in the input, stored from
// position jj of panel t.
type colRun struct{ base, oy, ox0, cnt, t, jj int }

// columnRuns splits columns [j0, j0+nb) of the batch (image b's column o
// is b·oh·ow + o) into runs for panels of nr columns, appending to
// runs[:0].
func (c *conv2d) columnRuns(runs []colRun, nr, j0, nb int) []colRun {
	runs = runs[:0]
	for col := j0; col < j0+nb; {
		row, ox := col/c.ow, col%c.ow // output row over all images
		rel := col - j0
		cnt := min(c.ow-ox, nr-rel%nr, j0+nb-col)
		runs = append(runs, colRun{base: row / c.oh * c.inC * c.h * c.w, oy: row % c.oh, ox0: ox, cnt: cnt, t: rel / nr, jj: rel % nr})
		col += cnt
	}
	return runs
}

// packB writes rows [p0, p0+kb) of the im2col matrix of the images of one
// group (img: the group's first channel of the first image on; planes,
// where not nil, the phase planes gemm.PackConv reads instead) for
// columns [j0, j0+nb), described by runs (and for gemm.PackConv, by table),
// into dst in the gemm.BPacker layout. Row p is kernel tap
// (ci, i, j) = (p / (kh·kw), p / kw % kh, p % kw); its column (oy, ox) of
// an image holds [ci][oy·sh − padT + i·dh][ox·sw − padL + j·dw] of that
// image, zero outside.
func (c *conv2d) packB(img, planes []float32, runs []colRun, table *gemm.ConvCols, dst []float32, nr, p0, kb, j0, nb int) {
	gimg := img
	if planes != nil {
		gimg = planes
	}
	if convGather && gemm.PackConv(dst, gimg, &c.geom, table, nr, p0, kb, j0, nb) {
		return // gathered with SIMD
	}
	if runs == nil { // the gather declined after all
		runs = c.columnRuns(nil, nr, j0, nb)
	}
	stride := nr * kb // one panel
	if rem := nb % nr; rem != 0 {
		last := dst[nb/nr*stride:]
		for q := 0; q < kb; q++ {
			clear(last[q*nr+rem : q*nr+nr])
		}
	}
	hw := c.h * c.w
	ci, i, j := p0/(c.kh*c.kw), p0/c.kw%c.kh, p0%c.kw
	for q := 0; q < kb; q++ {
		x0, x1 := c.vx[2*j], c.vx[2*j+1] // output columns reading inside the image
		yoff, xoff := i*c.dh-c.padT, j*c.dw-c.padL
		for _, r := range runs {
			off := r.t*stride + q*nr + r.jj
			d := dst[off : off+r.cnt]
			y := r.oy*c.sh + yoff
			lo, hi := max(r.ox0, x0), min(r.ox0+r.cnt, x1)
			if y < 0 || y >= c.h || lo >= hi {
				clear(d)
				continue
			}
			src := img[r.base+ci*hw+y*c.w+lo*c.sw+xoff:]
			lo, hi = lo-r.ox0, hi-r.ox0
			if lo > 0 {
				clear(d[:lo])
			}
			if hi < r.cnt {
				clear(d[hi:])
			}
			if c.sw == 1 {
				copy(d[lo:hi], src)
				continue
			}
			d = d[lo:hi]
			for t := range d {
				d[t] = src[t*c.sw]
			}
		}
		if j++; j == c.kw {
			j = 0
			if i++; i == c.kh {
				i = 0
				ci++
			}
		}
	}
}

// setValidColumns fills c.vx: for each kernel column j, the output columns
// [vx[2j], vx[2j+1]) whose input column lies inside the image.
func (c *conv2d) setValidColumns() {
	c.vx = make([]int, 2*c.kw)
	for j := 0; j < c.kw; j++ {
		c.vx[2*j], c.vx[2*j+1] = c.validRange(j*c.dw-c.padL, c.sw, c.w, c.ow)
	}
}

// convPhased switches phasedGather (tests compare both).
var convPhased = true

// phasedGather reports whether run's implicit GEMM packs the im2col
// matrix from phase planes (gemm.ConvGeom.Phased): a stride-2 window of
// one group over images of even height and width, halved, with no
// dilation, where the gather packer runs. Strided gathers cost about a
// third of a stride-2 layer's time on Ice Lake against masked loads of
// consecutive positions.
func (c *conv2d) phasedGather() bool {
	return convPhased && convGather && gemm.HasConvGather() && c.groups == 1 && c.sh == 2 && c.sw == 2 &&
		c.dh == 1 && c.dw == 1 && c.h%2 == 0 && c.w%2 == 0 && c.oh == c.h/2 && c.ow == c.w/2 &&
		!c.revH && !c.revW && (c.kh > 1 || c.kw > 1)
}

// gatherPlanes returns the images as phase planes and marks c.geom
// Phased where phasedGather holds, else nil. The buffer is
// gemm.GetBuffer's.
func (c *conv2d) gatherPlanes(threads int) []float32 {
	if !c.phasedGather() {
		return nil
	}
	c.geom.Phased = true
	return c.phasePlanes(threads)
}

// convGeom is c's geometry as package gemm takes it (its gather packer and
// tap tables).
func (c *conv2d) convGeom() gemm.ConvGeom {
	return gemm.ConvGeom{C: c.kerC, H: c.h, W: c.w, KH: c.kh, KW: c.kw, SH: c.sh, SW: c.sw, DH: c.dh, DW: c.dw,
		PadT: c.padT, PadL: c.padL, OH: c.oh, OW: c.ow, Images: c.batch, ImgStride: c.inC * c.h * c.w}
}
