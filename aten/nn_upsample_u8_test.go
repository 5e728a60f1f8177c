package aten

import (
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// An empty uint8 image is an error for the bilinear / bicubic lowerings,
// never a panic.
func TestUpsampleU8Empty(t *testing.T) {
	x := TensorValue(&stablehlo.Value{Type: stablehlo.Tensor(dtype.U8, 1, 1, 0, 4)})
	for _, op := range []string{"aten::upsample_bilinear2d", "aten::upsample_bicubic2d", "aten::_upsample_bilinear2d_aa"} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s panicked: %v", op, r)
				}
			}()
			c := NewLowerCtx(&stablehlo.Block{})
			args := []Value{x, IntsValue([]int64{2, 8}), BoolValue(false), None(), None()}
			if _, err := c.Call(op, args, nil); err == nil {
				t.Errorf("%s accepted an empty input", op)
			}
		}()
	}
}

// u8Weights' int16 weights of each output sum to 1 << prec (the
// normalisation survives the rounding to within a few units).
func TestU8WeightsSum(t *testing.T) {
	for _, mode := range []string{"linear", "cubic", "linear-aa", "cubic-aa"} {
		for _, io := range [][2]int64{{4, 9}, {9, 4}, {7, 7}, {1, 3}, {3, 1}} {
			taps, ws, prec := u8Weights(io[0], io[1], false, 0, mode)
			for o := int64(0); o < io[1]; o++ {
				var s int64
				for k := range taps {
					if taps[k][o] < 0 || taps[k][o] >= io[0] {
						t.Fatalf("%s %v: tap %d out of range", mode, io, taps[k][o])
					}
					s += ws[k][o]
				}
				if d := s - int64(1)<<prec; d < -4 || d > 4 {
					t.Errorf("%s %v output %d: weights sum to %d, want %d", mode, io, o, s, int64(1)<<prec)
				}
			}
		}
	}
}
