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
	stride      int  // masks per vector: taps + 1, rounded up to 4
	phased      bool // stride 2: the image as phase planes (Phased)
}

// Phased reports whether MulTaps reads the image as its four phase
// planes (a stride-2 convolution's): per channel, the planes of (row
// parity, column parity) (0, 0), (0, 1), (1, 0), (1, 1), each H/2 × W/2,
// one after the other, in place of the channel's H × W values.
func (t *Taps) Phased() bool { return t.phased }

// Vectors is the number of 16-position vectors, ⌈OH·OW/16⌉.
func (t *Taps) Vectors() int { return (t.n + 15) / 16 }

// Count is the number of taps (KH·KW): B has Count()·C rows.
func (t *Taps) Count() int { return t.taps }

type tapsKey struct{ h, w, kh, kw, s, dh, dw, padT, padL, oh int }

var (
	tapsCache     sync.Map // tapsKey → *Taps
	tapsCacheSize atomic.Int32
)

// tapsCacheMax bounds the geometries whose tables are kept (a few per
// model); past it, tables are built per call.
const tapsCacheMax = 256

// Taps returns the tap table of g for one image, or nil where MulTaps
// cannot read it: output rows narrower or wider than the image's (OW ≠ W)
// or more of them than the image's at stride 1; at stride 2 (read from
// phase planes: Phased), an image of odd height or width, other than
// H/2 × W/2 outputs, or dilation; other strides, more than 64 taps, or
// the strip kernels missing.
func (g *ConvGeom) Taps() *Taps {
	if !hasStrips || g.H <= 0 || g.W <= 0 || g.OH <= 0 || g.KH <= 0 || g.KW <= 0 || g.KH*g.KW > 64 ||
		g.DH <= 0 || g.DW <= 0 || g.H*g.W >= 1<<28 || g.SH != g.SW {
		return nil
	}
	switch g.SH {
	case 1:
		if g.OW != g.W || g.OH > g.H {
			return nil
		}
	case 2:
		if g.H%2 != 0 || g.W%2 != 0 || 2*g.OH != g.H || 2*g.OW != g.W || g.DH != 1 || g.DW != 1 {
			return nil
		}
	default:
		return nil
	}
	key := tapsKey{g.H, g.W, g.KH, g.KW, g.SH, g.DH, g.DW, g.PadT, g.PadL, g.OH}
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
	t := &Taps{taps: taps, hw: g.H * g.W, n: g.OH * g.OW, offs: make([]int64, taps), stride: (taps + 1 + 3) &^ 3, phased: g.SH == 2}
	// per tap: its row and column offset from an output position's, in
	// the image (stride 1) or in its phase plane (stride 2: input row
	// 2·oy + o lies in plane row oy + (o - o&1)/2 of parity o&1)
	dys, dxs := make([]int, taps), make([]int, taps)
	for ky := 0; ky < g.KH; ky++ {
		for kx := 0; kx < g.KW; kx++ {
			i := ky*g.KW + kx
			oy, ox := ky*g.DH-g.PadT, kx*g.DW-g.PadL
			if !t.phased {
				dys[i], dxs[i] = oy, ox
				t.offs[i] = 4 * int64(oy*g.W+ox)
				continue
			}
			py, px := oy&1, ox&1
			dys[i], dxs[i] = (oy-py)>>1, (ox-px)>>1
			plane := g.OH * g.OW
			t.offs[i] = 4 * int64((2*py+px)*plane+dys[i]*g.OW+dxs[i])
		}
	}
	// the rows and columns of the (plane) image the offsets index
	ih, iw := g.H, g.W
	if t.phased {
		ih, iw = g.OH, g.OW
	}
	vecs := t.Vectors()
	t.masks = make([]uint16, vecs*t.stride)
	for v := 0; v < vecs; v++ {
		m := t.masks[v*t.stride : (v+1)*t.stride]
		for l := 0; l < 16; l++ {
			q := 16*v + l
			if q >= t.n {
				break
			}
			m[taps] |= 1 << l
			oy, ox := q/g.OW, q%g.OW
			for i := range dys {
				if iy, ix := oy+dys[i], ox+dxs[i]; iy >= 0 && iy < ih && ix >= 0 && ix < iw {
					m[i] |= 1 << l
				}
			}
		}
	}
	return t
}

// MulTaps writes rows [16·s0, min(16·s1, m)) × positions [16·v0,
// min(16·(v0+vecs), OH·OW)) of C = A·B, B the image x (C channels of
// H·W floats) read through the tap table tt: A is m × tt.Count()·C with
// k = t·C + ch (TapStripsOK), C's position q of row r at
// c[r·ldc + q]. Sums run over the taps, then the channels, in order.
func (s *StripA) MulTaps(s0, s1 int, x []float32, tt *Taps, c []float32, ldc int, v0, vecs int) {
	chans := s.k / max(1, tt.taps)
	if s0 < 0 || s1 > s.Strips() || s0 >= s1 || vecs <= 0 || v0 < 0 || v0+vecs > tt.Vectors() || chans*tt.taps != s.k || chans == 0 {
		return
	}
	k16, k8 := taps16x16, taps8x16
	if chans%8 != 0 { // a channel per step (a stem's 3)
		k16, k8 = tapsOne16x16, tapsOne8x16
	}
	r0, r1 := s0*StripRows, min(s1*StripRows, s.m)
	_ = x[chans*tt.hw-1]
	_ = c[(r1-1)*ldc+min(16*(v0+vecs), tt.n)-1]
	masks := tt.masks[v0*tt.stride:]
	full := (r1 - r0) / StripRows
	if full > 0 {
		for i := 0; i < full; i++ {
			r := r0 + i*StripRows
			k16(chans, &s.data[r*s.k], &x[16*v0], tt.hw, &tt.offs[0], &masks[0], tt.taps, &c[r*ldc+16*v0], ldc, vecs, 2*tt.stride)
		}
	}
	if r := r0 + full*StripRows; r < r1 {
		k8(chans, &s.data[r*s.k], &x[16*v0], tt.hw, &tt.offs[0], &masks[0], tt.taps, &c[r*ldc+16*v0], ldc, vecs, 2*tt.stride)
	}
}
