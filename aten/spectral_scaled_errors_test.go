package aten

import (
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

// Bad arguments to stft, istft, _scaled_mm(_v2) and the chunked
// linear_cross_entropy ops give errors, never panics.
func TestSpectralScaledLCEBadInputs(t *testing.T) {
	ten := symTensor
	f32 := func(shape ...int64) Value { return ten(dtype.F32, shape...) }
	c64 := func(shape ...int64) Value { return ten(dtype.C64, shape...) }
	i64 := func(shape ...int64) Value { return ten(dtype.I64, shape...) }
	f8 := func(shape ...int64) Value { return ten(dtype.F8E4M3FN, shape...) }
	ints := func(xs ...int64) Value { return IntsValue(xs) }
	list := func(vs ...Value) Value { return ListValue(vs...) }
	rc := map[string]Value{"return_complex": BoolValue(true)}
	lce := func(x, w, tg Value, kw map[string]Value) []Value {
		args := []Value{x, w, tg, None(), None(), StrValue("mean"), IntValue(-100), FloatValue(0), IntValue(1),
			StrValue("compact"), DTypeValue(dtype.F32), BoolValue(true), BoolValue(false), BoolValue(false), BoolValue(false)}
		if r, ok := kw["reduction"]; ok {
			args[5] = r
		}
		if g, ok := kw["grad"]; ok {
			args[12] = g
		}
		return args
	}
	checkBadCalls(t, []badCall{
		{"stft int", "aten::stft", []Value{i64(100), IntValue(10)}, rc},
		{"stft 3d", "aten::stft", []Value{f32(2, 2, 100), IntValue(10)}, rc},
		{"stft n_fft too long", "aten::stft", []Value{f32(8), IntValue(10)}, rc},
		{"stft n_fft 0", "aten::stft", []Value{f32(8), IntValue(0)}, rc},
		{"stft hop 0", "aten::stft", []Value{f32(100), IntValue(10), IntValue(0)}, rc},
		{"stft win too long", "aten::stft", []Value{f32(100), IntValue(10), None(), IntValue(12)}, rc},
		{"stft window size", "aten::stft", []Value{f32(100), IntValue(10), None(), None(), f32(9)}, rc},
		{"stft window int", "aten::stft", []Value{f32(100), IntValue(10), None(), None(), i64(10)}, rc},
		{"stft real no return_complex", "aten::stft", []Value{f32(100), IntValue(10)}, nil},
		{"stft complex onesided", "aten::stft", []Value{c64(100), IntValue(10)}, map[string]Value{"onesided": BoolValue(true)}},
		{"istft real", "aten::istft", []Value{f32(6, 4), IntValue(10)}, nil},
		{"istft 1d", "aten::istft", []Value{c64(6), IntValue(10)}, nil},
		{"istft freq mismatch", "aten::istft", []Value{c64(7, 4), IntValue(10)}, nil},
		{"istft onesided size", "aten::istft", []Value{c64(10, 4), IntValue(10)}, map[string]Value{"onesided": BoolValue(true)}},
		{"istft no frames", "aten::istft", []Value{c64(6, 0), IntValue(10)}, nil},
		{"istft negative length", "aten::istft", []Value{c64(6, 4), IntValue(10)}, map[string]Value{"length": IntValue(-1)}},
		{"istft window size", "aten::istft", []Value{c64(6, 4), IntValue(10), None(), None(), f32(3)}, nil},
		{"scaled_mm f32 operands", "aten::_scaled_mm", []Value{f32(4, 8), f32(8, 4), f32(), f32()}, nil},
		{"scaled_mm shapes", "aten::_scaled_mm", []Value{f8(4, 8), f8(7, 4), f32(), f32()}, nil},
		{"scaled_mm rank", "aten::_scaled_mm", []Value{f8(8), f8(8, 4), f32(), f32()}, nil},
		{"scaled_mm scale shape", "aten::_scaled_mm", []Value{f8(4, 8), f8(8, 4), f32(3), f32()}, nil},
		{"scaled_mm int scale", "aten::_scaled_mm", []Value{f8(4, 8), f8(8, 4), i64(), f32()}, nil},
		{"scaled_mm bias", "aten::_scaled_mm", []Value{f8(4, 8), f8(8, 4), f32(), f32(), f32(3)}, nil},
		{"scaled_mm int out", "aten::_scaled_mm", []Value{f8(4, 8), f8(8, 4), f32(), f32()}, map[string]Value{"out_dtype": DTypeValue(dtype.I32)}},
		{"scaled_mm_v2 recipe", "aten::_scaled_mm_v2", []Value{f8(4, 8), f8(8, 4), list(f32(1)), ints(5), ints(0), list(f32(1)), ints(0), ints(0), None(), None()}, nil},
		{"scaled_mm_v2 two scales", "aten::_scaled_mm_v2", []Value{f8(4, 8), f8(8, 4), list(f32(1), f32(1)), ints(0, 0), ints(0), list(f32(1)), ints(0), ints(0), None(), None()}, nil},
		{"scaled_mm_v2 swizzle", "aten::_scaled_mm_v2", []Value{f8(4, 8), f8(8, 4), list(f32(1)), ints(0), ints(1), list(f32(1)), ints(0), ints(0), None(), None()}, nil},
		{"lce shapes", "torch_nn::_linear_cross_entropy_batch_chunked", lce(f32(2, 3), f32(4, 5), i64(2), nil), nil},
		{"lce int input", "torch_nn::_linear_cross_entropy_batch_chunked", lce(i64(2, 3), f32(4, 3), i64(2), nil), nil},
		{"lce reduction", "torch_nn::_linear_cross_entropy_batch_chunked", lce(f32(2, 3), f32(4, 3), i64(2), map[string]Value{"reduction": StrValue("none")}), nil},
		{"lce grads", "torch_nn::_linear_cross_entropy_batch_chunked", lce(f32(2, 3), f32(4, 3), i64(2), map[string]Value{"grad": BoolValue(true)}), nil},
		{"lce target shape", "torch_nn::_linear_cross_entropy_batch_chunked", lce(f32(2, 3), f32(4, 3), i64(5), nil), nil},
		{"lce none bias", "torch_nn::_linear_cross_entropy_batch_chunked_no_reduction", []Value{f32(2, 3), f32(4, 3), i64(2), f32(5), None(), IntValue(-100), IntValue(1), StrValue("compact"), DTypeValue(dtype.F32)}, nil},
	})
}

// Random (often invalid) arguments to the same entries give errors or
// results, never panics.
func TestSpectralScaledLCENoPanic(t *testing.T) {
	files := map[string]bool{"fft_stft.go": true, "linalg_scaled_mm.go": true, "nn_linear_cross_entropy.go": true}
	rng := rand.New(rand.NewSource(12))
	n := 0
	for _, e := range Entries() {
		if !files[e.File] || e.Lower == nil {
			continue
		}
		n++
		callRandomly(t, rng, e, 300)
	}
	if n != 6 {
		t.Errorf("found %d entries of fft_stft.go, linalg_scaled_mm.go and nn_linear_cross_entropy.go, want 6", n)
	}
}
