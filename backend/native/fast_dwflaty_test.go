package native

import (
	"math/rand/v2"
	"testing"
)

// TestDWFlatYMatchesRows runs 3×3 stride-1 depthwise convolutions on
// small planes through the AVX2 flat kernel: planes of whole vectors and
// of a partial last one, fewer than eight outputs, paddings (0, 2), (1, 1)
// and (2, 0) across and 0 to 2 above and below, rows narrower than the
// window, batches, the input's first and last channels (read through a
// copy with margins), NaN and ±Inf in inputs and weights, one and three
// threads. The results must be the row kernel's bit for bit.
func TestDWFlatYMatchesRows(t *testing.T) {
	if !dwSweepYOK || !dwSIMDOK {
		t.Skip("no AVX2 flat kernel")
	}
	defer func(a, b, c, d, e bool) {
		dwFlatYEnabled, dwSweepYEnabled, dwWideEnabled, dwc16Enabled, dwc512 = a, b, c, d, e
	}(dwFlatYEnabled, dwSweepYEnabled, dwWideEnabled, dwc16Enabled, dwc512)
	dwSweepYEnabled, dwWideEnabled, dwc16Enabled, dwc512 = false, false, false, false
	r := rand.New(rand.NewPCG(71, 72))
	cases := []convCase{
		{1, 384, 14, 14, 384, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 384}, // MobileNetV2's
		{1, 960, 7, 7, 960, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 960},   // a partial last vector
		{2, 17, 4, 4, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 17},      // two vectors, batch 2
		{1, 5, 2, 3, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},         // six outputs
		{1, 6, 9, 11, 6, 3, 3, 1, 1, 1, 1, 0, 2, 0, 2, 6},        // padding after only
		{1, 6, 9, 11, 6, 3, 3, 1, 1, 1, 1, 2, 0, 2, 0, 6},        // before only
		{1, 4, 1, 2, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},         // a row narrower than the window
	}
	for i := 0; i < 40; i++ {
		pl := r.IntN(3)
		cc := convCase{b: 1 + r.IntN(2), c: 2 + r.IntN(30), h: 1 + r.IntN(20), w: 1 + r.IntN(22),
			kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, pt: r.IntN(3), pb: r.IntN(3), pl: pl, pr: 2 - pl}
		cc.o, cc.g = cc.c, cc.c
		if oh, ow := cc.outHW(); cc.h+cc.pt+cc.pb < 3 || oh < 1 || ow < 1 || oh*ow > dwFlatYMaxOut {
			continue
		}
		cases = append(cases, cc)
	}
	took := matchRowKernel(t, r, cases, func(on bool) { dwFlatYEnabled = on }, (*conv2d).useFlatY)
	t.Logf("%d cases on the flat kernel", took)
}
