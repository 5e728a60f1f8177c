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
	kerK := c.kerC * c.kh * c.kw
	for _, p := range ps {
		shape := []int64{int64(c.batch), int64(c.outC), int64(p.oh), int64(p.ow)}
		off := int64(p.ry*c.ow + p.rx)
		n := c.batch * c.outC * p.oh * p.ow
		tmp := gemm.GetBuffer(n)
		if p.nky == 0 || p.nkx == 0 {
			clear(tmp[:n])
		} else {
			// the phase's taps of the kernel: [outC, kerC, nky, nkx]
			wsub := gemm.GetBuffer(c.outC * c.kerC * p.nky * p.nkx)
			wshape := []int64{int64(c.outC), int64(c.kerC), int64(p.nky), int64(p.nkx)}
			newCopyPlan(4, wshape, literal.Strides(wshape), []int64{int64(kerK), int64(c.kh * c.kw), sh * int64(c.kw), sw}).
				run(floatBytes(wsub), 0, floatBytes(c.rhs), int64(p.ky0*c.kw+p.kx0))
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
