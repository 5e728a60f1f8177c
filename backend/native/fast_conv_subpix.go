package native

import (
	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"github.com/torchtpu/torchtpu/literal"
)

// Input dilation by phases. The input gradient of a strided convolution
// is a convolution over the gradient dilated by the stride (lhs_dilation
// s: s-1 zeros between elements). Over the dilated input three of every
// four products of a stride-2 3×3 layer multiply zeros. Split by phase
// instead: the output rows y ≡ r (mod s) meet input rows only through the
// kernel taps ky ≡ (padT − r) (mod s), so the rows of one phase are a
// plain stride-1 convolution of the input as it is with those taps (every
// s-th, from ky0), and likewise for columns. Each of the s² phases runs as
// its own fast convolution into scratch, scattered to its rows and
// columns of the output; a phase no tap reaches is zeros (the odd rows of
// a 1×1 stride-2 layer's input gradient). Each element sums the same
// nonzero products as over the dilated input, in tap order.

// phase is one output phase (ry, rx) of an input-dilated convolution.
type phase struct {
	ry, rx     int // first output row and column
	oh, ow     int // its rows and columns (every s-th)
	ky0, kx0   int // first kernel tap
	nky, nkx   int // taps (every s-th); 0: none reaches the phase
	padT, padL int // padding of the input as it is
}

// phases returns the output phases of c, and false when one would need
// the input cropped (a negative padding) or the kernel is dilated: then
// the dilated input runs instead.
func (c *conv2d) phases() ([]phase, bool) {
	sh, sw := c.ldh, c.ldw
	if c.dh != 1 || c.dw != 1 || c.sh != 1 || c.sw != 1 || sh < 1 || sw < 1 {
		return nil, false
	}
	var out []phase
	for ry := 0; ry < min(sh, c.oh); ry++ {
		for rx := 0; rx < min(sw, c.ow); rx++ {
			p := phase{ry: ry, rx: rx, oh: (c.oh - ry + sh - 1) / sh, ow: (c.ow - rx + sw - 1) / sw,
				ky0: ((c.padT-ry)%sh + sh) % sh, kx0: ((c.padL-rx)%sw + sw) % sw}
			if p.ky0 < c.kh {
				p.nky = (c.kh - p.ky0 + sh - 1) / sh
			}
			if p.kx0 < c.kw {
				p.nkx = (c.kw - p.kx0 + sw - 1) / sw
			}
			// the phase's first input row: (ry − padT + ky0)/s, exact
			qy, qx := (ry-c.padT+p.ky0)/sh, (rx-c.padL+p.kx0)/sw
			if p.nky > 0 && p.nkx > 0 && (qy > 0 || qx > 0) {
				return nil, false
			}
			p.padT, p.padL = -qy, -qx
			out = append(out, p)
		}
	}
	return out, true
}

// subpixOK reports whether c runs by phases: an input dilation whose
// phases need no cropping.
func (c *conv2d) subpixOK() bool {
	if c.ldh <= 1 && c.ldw <= 1 {
		return false
	}
	_, ok := c.phases()
	return ok
}

// runSubpix computes c (an input dilation, c.lhs the input as it is) phase
// by phase into dst ([batch, outC, oh, ow]). A fused epilogue runs after,
// over the whole output.
func (c *conv2d) runSubpix(dst []float32) {
	if c.epi != nil {
		c.epi, c.epiLater = nil, true
	}
	ps, _ := c.phases()
	sh, sw := int64(c.ldh), int64(c.ldw)
	out := floatBytes(dst)
	// dst's strides over [batch, outC, rows, columns] of one phase
	dstStr := []int64{int64(c.outC * c.oh * c.ow), int64(c.oh * c.ow), sh * int64(c.ow), sw}
	subs := c.phaseKernels(ps)
	for pi, p := range ps {
		shape := []int64{int64(c.batch), int64(c.outC), int64(p.oh), int64(p.ow)}
		off := int64(p.ry*c.ow + p.rx)
		n := c.batch * c.outC * p.oh * p.ow
		tmp := gemm.GetBuffer(n)
		if p.nky == 0 || p.nkx == 0 {
			clear(tmp[:n])
		} else {
			wsub := subs[pi]
			sub := conv2d{
				batch: c.batch, inC: c.inC, h: c.srcH, w: c.srcW,
				outC: c.outC, kerC: c.kerC, kh: p.nky, kw: p.nkx,
				oh: p.oh, ow: p.ow, sh: 1, sw: 1, dh: 1, dw: 1,
				padT: p.padT, padL: p.padL, groups: c.groups,
				lhs: c.lhs, rhs: wsub[:c.outC*c.kerC*p.nky*p.nkx], outShape: shape,
				ldh: 1, ldw: 1, srcH: c.srcH, srcW: c.srcW,
			}
			sub.choosePath()
			sub.run(tmp[:n])
			gemm.PutBuffer(wsub)
		}
		newCopyPlan(4, shape, dstStr, literal.Strides(shape)).run(out, off, floatBytes(tmp), 0)
		gemm.PutBuffer(tmp)
	}
}

// phaseKernels returns, for each phase that taps reach, its taps of the
// kernel as [outC, kerC, nky, nkx] in a buffer of gemm.GetBuffer's (nil
// for the others), from c.rhs as [outC, kerC, kh, kw], or with c.kernIO
// as stored [kerC, outC, kh, kw] with the window reversed where c.revH
// (an input gradient's kernel as the backward passes it), without the
// transposed copy of the whole kernel run used to make first: each part
// of the kernel a core takes (still in its cache) is dealt out to the
// phases' windows, a phase at a time. A strided copy per phase had moved
// a 512×256×3×3 kernel one or two floats at a time: with the transpose,
// a third of that input gradient's run.
func (c *conv2d) phaseKernels(ps []phase) [][]float32 {
	taps := c.kh * c.kw
	subs := make([][]float32, len(ps))
	// the phases taps reach, each with its taps as stored, in the order
	// of its window
	type part struct {
		sub  []float32
		taps []int
	}
	var parts []part
	windows := c.outC * c.kerC
	for pi, p := range ps {
		if p.nky == 0 || p.nkx == 0 {
			continue
		}
		n := p.nky * p.nkx
		subs[pi] = gemm.GetBuffer(windows * n)[:windows*n]
		pt := part{sub: subs[pi], taps: make([]int, 0, n)}
		for a := 0; a < p.nky; a++ {
			for b := 0; b < p.nkx; b++ {
				t := (p.ky0+a*c.ldh)*c.kw + p.kx0 + b*c.ldw
				if c.revH {
					t = taps - 1 - t
				}
				pt.taps = append(pt.taps, t)
			}
		}
		parts = append(parts, pt)
	}
	// The windows in the order read: by w (plain order) as stored, or,
	// stored [kerC, outC], in tiles of 16 output channels, each input
	// channel's 16 windows in a row (transposeKernel's order). A phase's
	// window w takes its taps from window w as stored: a few moves into a
	// slice whose bounds are checked once.
	const tile = 16
	items, threads := windows, 1
	if c.kernIO {
		items = (c.outC + tile - 1) / tile
	}
	if windows*taps >= 1<<16 {
		threads = min(Threads(), items)
	}
	runParts(items, threads, func(i0, i1 int) {
		for _, pt := range parts {
			n, sub, tps := len(pt.taps), pt.sub, pt.taps
			if !c.kernIO {
				for w := i0; w < i1; w++ {
					src, d := c.rhs[w*taps:w*taps+taps], sub[w*n:w*n+n]
					for k, t := range tps {
						d[k] = src[t]
					}
				}
				continue
			}
			for o0 := i0 * tile; o0 < min(c.outC, i1*tile); o0 += tile {
				o1 := min(c.outC, o0+tile)
				for i := 0; i < c.kerC; i++ {
					for o := o0; o < o1; o++ {
						at := (i*c.outC + o) * taps
						src, w := c.rhs[at:at+taps], o*c.kerC+i
						d := sub[w*n : w*n+n]
						for k, t := range tps {
							d[k] = src[t]
						}
					}
				}
			}
		}
	})
	return subs
}

// subpixAsStored reports whether run can hand the kernel as stored to
// runSubpix (phaseKernels reads it): an input dilation by phases whose
// kernel is [kerC, outC] and/or reversed in both dims, in one group.
func (c *conv2d) subpixAsStored() bool {
	return c.subpix && c.groups == 1 && c.revH == c.revW && !c.outFB && len(c.rhs) >= c.outC*c.kerC*c.kh*c.kw
}
