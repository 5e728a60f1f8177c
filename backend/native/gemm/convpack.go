package gemm

import "sync"

// Implicit im2col for 2-D convolutions: packing B micro-panels straight
// from an image, for the convolution fast path of package native.

// ConvGeom describes the im2col matrix of a batch of images (one group's
// channels each) of a 2-D convolution: row p is kernel tap (ci, i, j) =
// (p / (KH·KW), p / KW % KH, p % KW), column o is output position (oy, ox)
// = (o % (OH·OW) / OW, o % OW) of image b = o / (OH·OW), and the element is
// img[b·ImgStride + ci·H·W + (oy·SH − PadT + i·DH)·W + ox·SW − PadL + j·DW],
// zero where the position falls outside the C×H×W image.
//
// Phased says that each image's channels lie as phase planes instead (a
// stride-2 convolution of an image of even H and W, OH = H/2, OW = W/2,
// no dilation): per channel, the four planes of (row, column) parity
// (py, px), OH×OW each, plane 2·py+px, so that input row 2·oy+o is row
// oy+(o−o&1)/2 of the plane of parity o&1 (and columns alike). Every
// window then reads runs of consecutive positions, one masked load per
// half panel instead of a gather.
type ConvGeom struct {
	C, H, W, KH, KW, SH, SW, DH, DW, PadT, PadL, OH, OW int
	Images, ImgStride                                   int
	Phased                                              bool
}

const (
	convMaxCols = 1024 // columns per PackConv call (its tables live on the stack)
	convMaxRows = 512  // k steps per call
	convLimit   = 1 << 29
	// int32s per panel in the column table: off[32], y[32], x[32], two
	// flags, padding to a cache line
	convPanelInts = 112
	// convMaskPeriod bounds the taps per channel (kh·kw) whose masks the
	// AVX2 gather keeps (a 7×7 stem has 49)
	convMaskPeriod = 64
)

// convMaskOff switches the kept masks off (tests and benchmarks compare).
var convMaskOff = false

// convAhead is how many channels ahead the AVX2 gather prefetches the
// image rows it reads (a k step's next channels are planes apart, which
// the hardware's stream prefetchers do not follow): 2 took ResNet-18 1%
// faster (paired runs; 4 no better), its stride-2 64→128 layer 2.5%.
const convAhead = 2

// HasConvGather reports whether PackConv runs on this CPU for the active
// kernel's panels (32 columns with AVX-512, 16 with AVX2).
func HasConvGather() bool { return hasConvGather }

// ConvCols is PackConv's table of columns [j0, j0+nb) of a geometry,
// built once for all the k blocks of a column chunk.
type ConvCols struct {
	g      ConvGeom
	j0, nb int
	t      []int32
}

// Cols builds the column table of columns [j0, j0+nb), or returns nil
// where PackConv would not gather them.
func (g *ConvGeom) Cols(j0, nb int) *ConvCols {
	if !hasConvGather || !g.gatherable(convLimit-1, 0, 1, j0, nb) {
		return nil
	}
	cc := colTables.Get().(*ConvCols)
	cc.g, cc.j0, cc.nb, cc.t = *g, j0, nb, cc.t[:convPanelInts*((nb+31)/32)]
	g.fillCols(cc.t, j0, nb)
	return cc
}

// Release gives the table back for reuse (a chunk of a convolution takes
// one per work item: thousands per run).
func (cc *ConvCols) Release() {
	if cc != nil {
		colTables.Put(cc)
	}
}

var colTables = sync.Pool{New: func() any { return &ConvCols{t: make([]int32, convPanelInts*convMaxCols/32)} }}

// PackConv packs rows [p0, p0+kb) × columns [j0, j0+nb) of the im2col
// matrix of img in the BPacker layout with gathers (or masked loads where
// a half panel's positions are consecutive), and reports whether it did:
// false (nothing written) when the CPU has no gather kernel for panels of
// nr columns (32: AVX-512; 16: AVX2) or the geometry falls outside its
// tables. cols, if not nil, is the table of g.Cols(j0, nb); another is
// ignored.
func PackConv(dst, img []float32, g *ConvGeom, cols *ConvCols, nr, p0, kb, j0, nb int) bool {
	if !(nr == 32 && convGather32 || nr == 16 && convGather16) || !g.gatherable(len(img), p0, kb, j0, nb) || len(dst) < kb*roundUp(nb, nr) {
		return false
	}
	panels := (nb + 31) / 32
	var t []int32
	if cols != nil && cols.j0 == j0 && cols.nb == nb && cols.g == *g {
		t = cols.t
	} else {
		var local [convPanelInts * convMaxCols / 32]int32
		t = local[:convPanelInts*panels]
		g.fillCols(t, j0, nb)
	}
	var taps [3 * convMaxRows]int32
	ci, i, j := p0/(g.KH*g.KW), p0/g.KW%g.KH, p0%g.KW
	for q := 0; q < kb; q++ {
		ty, tx := i*g.DH, j*g.DW
		off := ci*g.H*g.W + ty*g.W + tx
		if g.Phased {
			// the tap's parity plane, and its row and column there
			// relative to the output position's
			oy, ox := ty-g.PadT, tx-g.PadL
			py, px := oy&1, ox&1
			ty, tx = (oy-py)>>1, (ox-px)>>1
			off = ci*g.H*g.W + (2*py+px)*g.OH*g.OW + ty*g.OW + tx
		}
		taps[3*q], taps[3*q+1], taps[3*q+2] = int32(off), int32(ty), int32(tx)
		if j++; j == g.KW {
			j = 0
			if i++; i == g.KH {
				i = 0
				ci++
			}
		}
	}
	hw := [2]int32{int32(g.H), int32(g.W)}
	if g.Phased {
		hw = [2]int32{int32(g.OH), int32(g.OW)}
	}
	if nr == 16 { // each half of a table panel: its 16 offsets, and its flag
		// the lanes' masks repeat with the kernel's taps: kept for one
		// period and read back where it is short enough
		var masks [16 * convMaskPeriod]int32
		period := g.KH * g.KW
		if period > convMaskPeriod || convMaskOff {
			period = 0
		}
		for p := 0; p < (nb+15)/16; p++ {
			tp, h := p/2*convPanelInts, p%2
			gatherConv16(&dst[p*16*kb], &img[0], &t[tp+16*h], &taps[0], kb, &hw[0], int(t[tp+96+h]), &masks[0], period, convAhead*4*g.H*g.W)
		}
		return true
	}
	for p := 0; p < panels; p++ {
		gatherConv32(&dst[p*32*kb], &img[0], &t[p*convPanelInts], &taps[0], kb, &hw[0])
	}
	return true
}

// gatherable reports whether the gather tables of PackConv hold rows
// [p0, p0+kb) × columns [j0, j0+nb) of this geometry over an img of
// length size: every index in int32 with room to spare (no sum of a
// column and a tap entry overflows) and every valid position inside img.
func (g *ConvGeom) gatherable(size, p0, kb, j0, nb int) bool {
	const small = 1 << 14
	if g.C <= 0 || g.H <= 0 || g.W <= 0 || g.KH <= 0 || g.KW <= 0 || g.OH <= 0 || g.OW <= 0 || g.Images <= 0 ||
		g.SH <= 0 || g.SW <= 0 || g.DH <= 0 || g.DW <= 0 || g.PadT < 0 || g.PadL < 0 || g.ImgStride < 0 {
		return false
	}
	if nb <= 0 || kb <= 0 || nb > convMaxCols || kb > convMaxRows || p0 < 0 || j0 < 0 ||
		p0+kb > g.C*g.KH*g.KW || j0+nb > g.Images*g.OH*g.OW {
		return false
	}
	if max(g.H, g.W, g.PadT, g.PadL, g.SH*g.OH, g.SW*g.OW, g.DH*g.KH, g.DW*g.KW) >= small {
		return false
	}
	if g.Phased && (g.SH != 2 || g.SW != 2 || g.DH != 1 || g.DW != 1 || g.H != 2*g.OH || g.W != 2*g.OW) {
		return false
	}
	last := (g.Images-1)*g.ImgStride + g.C*g.H*g.W // one past the last element read
	return last <= size && last < convLimit
}

// fillCols writes the column table of columns [j0, j0+nb) into cols
// (convPanelInts per panel of 32 columns).
func (g *ConvGeom) fillCols(cols []int32, j0, nb int) {
	// per panel: base offset, row and column of each output position, and
	// a flag per half saying that its offsets are consecutive (one masked
	// load instead of a gather); a column past nb gets a row that no tap
	// brings inside the image and the offset that continues the run
	panels := (nb + 31) / 32
	n := g.OH * g.OW
	// the output position of column j0, then stepped column by column
	// (four divisions per column were a fifth of a stem's time)
	b, o := j0/n, j0%n
	oy, ox := o/g.OW, o%g.OW
	for c := 0; c < 32*panels; c++ {
		i := c/32*convPanelInts + c%32
		t := cols[i:]
		if c >= nb { // never the first of a panel
			t[0], t[32], t[64] = cols[i-1]+1, -convLimit, 0
			continue
		}
		y, x, w := oy*g.SH-g.PadT, ox*g.SW-g.PadL, g.W
		if g.Phased { // the position itself, in OH×OW planes
			y, x, w = oy, ox, g.OW
		}
		t[0], t[32], t[64] = int32(b*g.ImgStride+y*w+x), int32(y), int32(x)
		if ox++; ox == g.OW {
			ox = 0
			if oy++; oy == g.OH {
				oy = 0
				b++
			}
		}
	}
	for h := 0; h < 2*panels; h++ {
		p := cols[h/2*convPanelInts:]
		off := p[h%2*16 : h%2*16+16]
		flag := int32(1)
		for l := 1; l < 16; l++ {
			if off[l] != off[0]+int32(l) {
				flag = 0
				break
			}
		}
		p[96+h%2] = flag
	}
}
