package native

// An input gradient's convolution reads the forward's weight as it is
// stored, [i, o, kh, kw] with the windows reversed: where the GEMM path
// shares few columns between bands of rows, each band's rows are packed
// straight from there (fillIO) instead of the whole kernel being
// transposed first (plainWeights, fast_conv.go).

import "github.com/torchtpu/torchtpu/backend/native/gemm"

// packIO reports whether run computes c with its kernel as stored,
// [kerC, outC, kh, kw] with the windows reversed or not (an input
// gradient's: the forward's weights), packing the GEMM's bands of rows
// straight from it (fillIO) instead of transposing it whole first: where
// the GEMM path shares few columns between bands of rows, each band's
// rows are packed once, as it uses them (ResNet's late layers, whose
// kernels are the largest: 512×512×3×3 transposed was 9.4 MB written to
// memory and read back per step). A frozen weight (an archive's) keeps the
// transposed copy, packed once (prepackedWeights).
func (c *conv2d) packIO() bool {
	if !convPackIO || !c.kernIO || c.revH != c.revW || c.groups != 1 || c.weight && c.kernel.Frozen || c.outFB || c.subpix || c.direct || c.small ||
		c.useDirectConv() || c.useTN() {
		return false
	}
	_, nr := gemm.KernelDims()
	return c.sharedB(c.gemmThreads(), nr)
}

// convPackIO switches packIO (tests compare both ways).
var convPackIO = true

// fillIO writes rows [r0, r0+rows) × k [pc, pc+kb) of the GEMM's A (the
// plain kernel, [outC, kerC·kh·kw]) from the kernel stored [kerC, outC,
// kh, kw] (windows reversed where c.revH): dst[q·mr + r] = A[r0+r][pc+q].
// For one input channel the rows' windows are one run of rows·taps
// floats, read for each tap in turn. The transposes take it with AVX-512
// only: in 8×8 AVX2 blocks, ResNet-18's training step on a Zen 2 pair
// went 0.96-0.98 → 1.01-1.03 of eager's time.
func (c *conv2d) fillIO(dst []float32, r0, rows, pc, kb int) {
	taps := c.kh * c.kw
	mr := len(dst) / kb
	if dwc512 && taps <= 16 && mr <= 16 && c.revH == c.revW {
		c.fillIOTiles(dst, mr, r0, rows, pc, kb)
		return
	}
	for q := 0; q < kb; q++ {
		i, t := (pc+q)/taps, (pc+q)%taps
		if c.revH {
			t = taps - 1 - t
		}
		base := (i*c.outC+r0)*taps + t
		s := c.rhs[base : base+(rows-1)*taps+1]
		d := dst[q*mr : q*mr+rows]
		for r := range d {
			d[r] = s[r*taps]
		}
	}
}

// fillIOTiles is fillIO by one transpose per input channel: the rows'
// windows of channel i are a [rows, taps] block of the stored kernel,
// whose columns (the taps of k [pc, pc+kb) in that channel) are the
// destination's k steps, the last first where the windows are reversed
// (written from the last step back, a negative stride). The scalar copy
// took a load and a store per float (4% of ResNet-18's training backward
// samples, its last layers' input gradients).
func (c *conv2d) fillIOTiles(dst []float32, mr, r0, rows, pc, kb int) {
	taps := c.kh * c.kw
	for q := 0; q < kb; {
		i, t := (pc+q)/taps, (pc+q)%taps
		n := min(taps-t, kb-q) // steps of channel i, from tap t
		base := (i*c.outC + r0) * taps
		s := c.rhs[base : base+rows*taps]
		_ = dst[(q+n-1)*mr+rows-1]
		if c.revH {
			// step q+j reads tap taps-1-(t+j): columns taps-t-n … taps-1-t,
			// the first to step q+n-1
			transpose16(&dst[(q+n-1)*mr], -4*mr, &s[taps-t-n], 4*taps, rows, n, nil)
		} else {
			transpose16(&dst[q*mr], 4*mr, &s[t], 4*taps, rows, n, nil)
		}
		q += n
	}
}
