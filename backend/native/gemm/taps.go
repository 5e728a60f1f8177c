package gemm

import (
	"sync"
	"sync/atomic"
)

// Taps is the B operand of a stride-1 convolution for StripA.MulTaps,
// read in place from one image [C, H·W]: its row k = t·C + ch (tap t of
// the window, input channel ch) at output position q is the image's
// channel ch at position q + off[t], where that tap falls inside the
// image, else zero. Each vector of 16 positions has a mask per tap (the
// lanes whose tap is inside) and a last one for the positions it stores
// (those below OH·OW). Built by ConvGeom.Taps for geometries whose output
// rows are as wide as the image's (so that a tap is one offset for every
// position), kept per geometry.
type Taps struct {
	taps, hw, n int     // taps, positions per channel, output positions
	offs        []int64 // per tap, in bytes
	masks       []uint16
	stride      int // masks per vector: taps + 1, rounded up to 4
}

// Vectors is the number of 16-position vectors, ⌈OH·OW/16⌉.
func (t *Taps) Vectors() int { return (t.n + 15) / 16 }

// Count is the number of taps (KH·KW): B has Count()·C rows.
func (t *Taps) Count() int { return t.taps }

type tapsKey struct{ h, w, kh, kw, dh, dw, padT, padL, oh int }

var (
	tapsCache     sync.Map // tapsKey → *Taps
	tapsCacheSize atomic.Int32
)

// tapsCacheMax bounds the geometries whose tables are kept (a few per
// model); past it, tables are built per call.
const tapsCacheMax = 256

// Taps returns the tap table of g for one image, or nil where MulTaps
// cannot read it in place: strides other than 1, output rows narrower or
// wider than the image's (OW ≠ W), more output rows than the image's, more
// than 64 taps, or the strip kernels missing.
func (g *ConvGeom) Taps() *Taps {
	if !hasStrips || g.SH != 1 || g.SW != 1 || g.OW != g.W || g.OH > g.H || g.H <= 0 || g.W <= 0 || g.OH <= 0 ||
		g.KH <= 0 || g.KW <= 0 || g.KH*g.KW > 64 || g.DH <= 0 || g.DW <= 0 || g.H*g.W >= 1<<28 {
		return nil
	}
	key := tapsKey{g.H, g.W, g.KH, g.KW, g.DH, g.DW, g.PadT, g.PadL, g.OH}
	if v, ok := tapsCache.Load(key); ok {
		return v.(*Taps)
	}
	t := g.buildTaps()
	if tapsCacheSize.Load() < tapsCacheMax {
		if _, loaded := tapsCache.LoadOrStore(key, t); !loaded {
			tapsCacheSize.Add(1)
		}
	}
	return t
}

func (g *ConvGeom) buildTaps() *Taps {
	taps := g.KH * g.KW
	t := &Taps{taps: taps, hw: g.H * g.W, n: g.OH * g.OW, offs: make([]int64, taps), stride: (taps + 1 + 3) &^ 3}
	for ky := 0; ky < g.KH; ky++ {
		for kx := 0; kx < g.KW; kx++ {
			t.offs[ky*g.KW+kx] = 4 * int64((ky*g.DH-g.PadT)*g.W+kx*g.DW-g.PadL)
		}
	}
	vecs := t.Vectors()
	t.masks = make([]uint16, vecs*t.stride)
	// per lane: its row and column, the lanes of each tap row and column
	// inside the image, then a tap's mask is its row's and column's lanes
	rows := make([]uint16, g.KH)
	cols := make([]uint16, g.KW)
	for v := 0; v < vecs; v++ {
		clear(rows)
		clear(cols)
		var store uint16
		for l := 0; l < 16; l++ {
			q := 16*v + l
			if q >= t.n {
				break
			}
			store |= 1 << l
			oy, ox := q/g.OW, q%g.OW
			for ky := range rows {
				if iy := oy + ky*g.DH - g.PadT; iy >= 0 && iy < g.H {
					rows[ky] |= 1 << l
				}
			}
			for kx := range cols {
				if ix := ox + kx*g.DW - g.PadL; ix >= 0 && ix < g.W {
					cols[kx] |= 1 << l
				}
			}
		}
		m := t.masks[v*t.stride : (v+1)*t.stride]
		for ky := range rows {
			for kx := range cols {
				m[ky*g.KW+kx] = rows[ky] & cols[kx]
			}
		}
		m[taps] = store
	}
	return t
}

// MulTaps writes rows [16·s0, min(16·s1, m)) × positions [16·v0,
// min(16·(v0+vecs), OH·OW)) of C = A·B, B the image x (C channels of
// H·W floats) read through the tap table tt: A is m × tt.Count()·C with
// k = t·C + ch (StripsOK: C a multiple of 8), C's position q of row r at
// c[r·ldc + q]. Sums run over the taps, then the channels, in order.
func (s *StripA) MulTaps(s0, s1 int, x []float32, tt *Taps, c []float32, ldc int, v0, vecs int) {
	chans := s.k / max(1, tt.taps)
	if s0 < 0 || s1 > s.Strips() || s0 >= s1 || vecs <= 0 || v0 < 0 || v0+vecs > tt.Vectors() || chans*tt.taps != s.k || chans%8 != 0 {
		return
	}
	r0, r1 := s0*StripRows, min(s1*StripRows, s.m)
	_ = x[chans*tt.hw-1]
	_ = c[(r1-1)*ldc+min(16*(v0+vecs), tt.n)-1]
	masks := tt.masks[v0*tt.stride:]
	full := (r1 - r0) / StripRows
	if full > 0 {
		for i := 0; i < full; i++ {
			r := r0 + i*StripRows
			taps16x16(chans, &s.data[r*s.k], &x[16*v0], tt.hw, &tt.offs[0], &masks[0], tt.taps, &c[r*ldc+16*v0], ldc, vecs, 2*tt.stride)
		}
	}
	if r := r0 + full*StripRows; r < r1 {
		taps8x16(chans, &s.data[r*s.k], &x[16*v0], tt.hw, &tt.offs[0], &masks[0], tt.taps, &c[r*ldc+16*v0], ldc, vecs, 2*tt.stride)
	}
}
