package aten

import (
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Inputs PyTorch rejects (tools/opscov/gen.py lists its messages in
// testdata/opscov/ERRORS.json) give errors, never panics.
func TestOpsCoverageBadInputs(t *testing.T) {
	ten := symTensor
	f32 := func(shape ...int64) Value { return ten(dtype.F32, shape...) }
	c64 := func(shape ...int64) Value { return ten(dtype.C64, shape...) }
	i64 := func(shape ...int64) Value { return ten(dtype.I64, shape...) }
	ints := func(xs ...int64) Value { return IntsValue(xs) }
	checkBadCalls(t, []badCall{
		{"logcumsumexp int", "aten::logcumsumexp", []Value{i64(3), IntValue(0)}, nil},
		{"logcumsumexp dim", "aten::logcumsumexp", []Value{f32(3, 4), IntValue(2)}, nil},
		{"det int", "aten::det", []Value{i64(3, 3)}, nil},
		{"det nonsquare", "aten::linalg_det", []Value{f32(2, 3)}, nil},
		{"det vector", "aten::_linalg_det", []Value{f32(3)}, nil},
		{"vander 2d", "aten::vander", []Value{f32(2, 2)}, nil},
		{"vander negative N", "aten::vander", []Value{f32(3), IntValue(-1)}, nil},
		{"linalg_vander N1", "aten::linalg_vander", []Value{f32(3)}, map[string]Value{"N": IntValue(1)}},
		{"linalg_vander f16", "aten::linalg_vander", []Value{ten(dtype.F16, 3)}, nil},
		{"linalg_vander bool", "aten::linalg_vander", []Value{ten(dtype.Bool, 3)}, nil},
		{"mml p3", "aten::multi_margin_loss", []Value{f32(4, 6), i64(4), IntValue(3)}, nil},
		{"mml rank3", "aten::multi_margin_loss", []Value{f32(2, 4, 6), i64(2)}, nil},
		{"mml empty classes", "aten::multi_margin_loss", []Value{f32(4, 0), i64(4)}, nil},
		{"mml target size", "aten::multi_margin_loss", []Value{f32(4, 6), i64(3)}, nil},
		{"mml float target", "aten::multi_margin_loss", []Value{f32(4, 6), f32(4)}, nil},
		{"mml weight size", "aten::multi_margin_loss", []Value{f32(4, 6), i64(4), IntValue(1), IntValue(1), f32(5)}, nil},
		{"mml int input", "aten::multi_margin_loss", []Value{i64(4, 6), i64(4)}, nil},
		{"mml reduction", "aten::multi_margin_loss", []Value{f32(4, 6), i64(4), IntValue(1), IntValue(1), None(), IntValue(3)}, nil},
		{"mlml target shape", "aten::multilabel_margin_loss", []Value{f32(4, 5), i64(4, 4)}, nil},
		{"mlml 1d target", "aten::multilabel_margin_loss", []Value{f32(4, 5), i64(5)}, nil},
		{"mlml reduction", "aten::multilabel_margin_loss_forward", []Value{f32(4, 5), i64(4, 5), IntValue(5)}, nil},
		{"mml bwd grad shape", "aten::multi_margin_loss_backward", []Value{f32(3), f32(4, 6), i64(4), IntValue(1), IntValue(1), None(), IntValue(0)}, nil},
		{"mml bwd p", "aten::multi_margin_loss_backward", []Value{f32(), f32(4, 6), i64(4), IntValue(0), IntValue(1), None(), IntValue(1)}, nil},
		{"mlml bwd is_target", "aten::multilabel_margin_loss_backward", []Value{f32(), f32(4, 5), i64(4, 5), IntValue(1), f32(4, 4)}, nil},
		{"mlml bwd reduction", "aten::multilabel_margin_loss_backward", []Value{f32(), f32(4, 5), i64(4, 5), IntValue(-1), f32(4, 5)}, nil},
		{"fft n0", "aten::fft_fft", []Value{f32(4), IntValue(0)}, nil},
		{"fft 0-dim", "aten::fft_fft", []Value{f32()}, nil},
		{"fft dim", "aten::fft_ifft", []Value{c64(4), None(), IntValue(1)}, nil},
		{"fft f16", "aten::fft_fft", []Value{ten(dtype.F16, 4)}, nil},
		{"fft norm", "aten::fft_fft", []Value{f32(4)}, map[string]Value{"norm": StrValue("bogus")}},
		{"rfft complex", "aten::fft_rfft", []Value{c64(4)}, nil},
		{"ihfft complex", "aten::fft_ihfft", []Value{c64(4)}, nil},
		{"irfft size 1", "aten::fft_irfft", []Value{c64(1)}, nil},
		{"fftn repeated dims", "aten::fft_fftn", []Value{f32(4, 4), None(), ints(0, -2)}, nil},
		{"fftn s and dim", "aten::fft_fftn", []Value{f32(4, 4), ints(4, 4), ints(0)}, nil},
		{"fftn long s", "aten::fft_fftn", []Value{f32(4), ints(4, 4)}, nil},
		{"rfftn complex", "aten::fft_rfftn", []Value{c64(4, 4)}, nil},
		{"rfft2 rank1", "aten::fft_rfft2", []Value{f32(4)}, nil},
		{"irfftn no dims", "aten::fft_irfftn", []Value{c64(4, 4), None(), ints()}, nil},
		{"hfft2 zero s", "aten::fft_hfft2", []Value{c64(4, 4), ints(0, 4)}, nil},
		{"fftshift dim", "aten::fft_fftshift", []Value{f32(4), ints(2)}, nil},
		{"fftfreq int dtype", "aten::fft_fftfreq", []Value{IntValue(4)}, map[string]Value{"dtype": DTypeValue(dtype.I64)}},
		{"c2c real", "aten::_fft_c2c", []Value{f32(4, 5), ints(1), IntValue(0), BoolValue(true)}, nil},
		{"c2c norm", "aten::_fft_c2c", []Value{c64(4, 5), ints(1), IntValue(3), BoolValue(true)}, nil},
		{"c2c dims", "aten::_fft_c2c", []Value{c64(4, 5), ints(1, -1), IntValue(0), BoolValue(true)}, nil},
		{"c2c empty", "aten::_fft_c2c", []Value{c64(4, 0), ints(1), IntValue(0), BoolValue(true)}, nil},
	})
}

// symTensor is a tensor argument with only a type, for lowering checks.
func symTensor(dt dtype.DType, shape ...int64) Value {
	return TensorValue(&stablehlo.Value{Type: stablehlo.Tensor(dt, shape...)})
}

// badCall is one call a lowering must reject.
type badCall struct {
	name string
	op   string
	args []Value
	kw   map[string]Value
}

// checkBadCalls requires an error (at the call or recorded in the context)
// and no panic from each call.
func checkBadCalls(t *testing.T, cases []badCall) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s panicked: %v", tc.op, r)
				}
			}()
			c := NewLowerCtx(&stablehlo.Block{})
			_, err := c.Call(tc.op, tc.args, tc.kw)
			if err == nil {
				err = c.Err()
			}
			if err == nil {
				t.Errorf("%s accepted bad arguments", tc.op)
			}
		})
	}
}

// Random (often invalid) arguments to the entries of the fft, vander,
// margin-loss and det files give errors or results, never panics.
func TestOpsCoverageNoPanic(t *testing.T) {
	files := map[string]bool{"fft.go": true, "fft_user.go": true, "linalg_vander.go": true,
		"nn_loss_margin.go": true, "linalg_lu.go": true, "reduce_cum_logsumexp.go": true}
	rng := rand.New(rand.NewSource(11))
	n := 0
	for _, e := range Entries() {
		if !files[e.File] || e.Lower == nil {
			continue
		}
		n++
		callRandomly(t, rng, e, 200)
	}
	if n < 30 {
		t.Errorf("only %d entries of the fft, vander, margin-loss and det files found", n)
	}
}
