package gemm

import (
	"math/rand/v2"
	"testing"
)

// im2col is the reference element of ConvGeom's matrix.
func (g *ConvGeom) at(img []float32, p, col int) float32 {
	ci, i, j := p/(g.KH*g.KW), p/g.KW%g.KH, p%g.KW
	b, o := col/(g.OH*g.OW), col%(g.OH*g.OW)
	y, x := o/g.OW*g.SH-g.PadT+i*g.DH, o%g.OW*g.SW-g.PadL+j*g.DW
	if y < 0 || y >= g.H || x < 0 || x >= g.W {
		return 0
	}
	return img[b*g.ImgStride+ci*g.H*g.W+y*g.W+x]
}

// TestPackConv compares the gathered panels with the reference element by
// element, over random geometries and blocks, in each panel width the CPU
// gathers (32 columns with AVX-512, 16 with AVX2), with the masks kept
// per kernel tap and made per step.
func TestPackConv(t *testing.T) {
	var widths []int
	if convGather32 {
		widths = append(widths, 32)
	}
	if convGather16 {
		widths = append(widths, 16)
	}
	if len(widths) == 0 {
		t.Skip("no gather kernel on this CPU")
	}
	defer func() { convMaskOff = false }()
	for _, nr := range widths {
		r := rand.New(rand.NewPCG(13, 14))
		for it := 0; it < 600; it++ {
			// odd iterations make each step's masks (AVX2's kept masks off)
			convMaskOff = it%2 == 1
			g := &ConvGeom{C: 1 + r.IntN(5), H: 1 + r.IntN(20), W: 1 + r.IntN(70), KH: 1 + r.IntN(4), KW: 1 + r.IntN(4),
				SH: 1 + r.IntN(3), SW: 1 + r.IntN(2), DH: 1 + r.IntN(2), DW: 1 + r.IntN(2), PadT: r.IntN(3), PadL: r.IntN(3), Images: 1 + r.IntN(3)}
			g.OH = (g.H+2*g.PadT-(g.KH-1)*g.DH-1)/g.SH + 1
			g.OW = (g.W+2*g.PadL-(g.KW-1)*g.DW-1)/g.SW + 1
			if g.OH <= 0 || g.OW <= 0 {
				continue
			}
			g.ImgStride = g.C*g.H*g.W + r.IntN(2)*g.H*g.W // images a channel apart, or back to back
			img := randMat(r, (g.Images-1)*g.ImgStride+g.C*g.H*g.W)
			rows, cols := g.C*g.KH*g.KW, g.Images*g.OH*g.OW
			p0, j0 := r.IntN(rows), r.IntN(cols)
			kb, nb := 1+r.IntN(rows-p0), 1+r.IntN(min(cols-j0, 200))
			dst := randMat(r, kb*roundUp(nb, nr))
			var table *ConvCols
			if it%4 < 2 {
				table = g.Cols(j0, nb)
			}
			if !PackConv(dst, img, g, table, nr, p0, kb, j0, nb) {
				t.Fatalf("nr=%d %+v: not packed", nr, g)
			}
			for q := 0; q < kb; q++ {
				for c := 0; c < roundUp(nb, nr); c++ {
					want := float32(0)
					if c < nb {
						want = g.at(img, p0+q, j0+c)
					}
					if got := dst[c/nr*nr*kb+q*nr+c%nr]; got != want {
						t.Fatalf("nr=%d %+v p0=%d kb=%d j0=%d nb=%d: (%d, %d) = %v, want %v", nr, g, p0, kb, j0, nb, q, c, got, want)
					}
				}
			}
		}
		// geometry outside the tables: declined, nothing written
		g := &ConvGeom{C: 1, H: 1 << 15, W: 1, KH: 1, KW: 1, SH: 1, SW: 1, DH: 1, DW: 1, OH: 1 << 15, OW: 1, Images: 1, ImgStride: 1 << 15}
		if g.Cols(0, 1) != nil || PackConv(make([]float32, nr), make([]float32, 1<<15), g, nil, nr, 0, 1, 0, 1) {
			t.Fatal("packed a geometry past the int32 tables' limits")
		}
	}
}
