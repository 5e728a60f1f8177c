package eager

import (
	"context"
	"math"
	"testing"
)

// The optimizers' multi-tensor ops (_foreach_*): an in-place form writes
// its self list item by item, and its numbers are values of the call, so a
// step size that changes every step neither plans nor compiles anew.
// Values against PyTorch are python/tests/test_device_foreach.py; this
// checks the writes, the reuse and the declines.

const foreachAddcdiv = "_foreach_addcdiv_.ScalarList(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars) -> ()"

// numberWords encodes a Python float as the C++ side passes a multi-tensor
// op's number: a 0-d float64 scalar, not wrapped.
func numberWords(v float64) []int64 {
	return []int64{tagScalar, 7, 0, int64(math.Float64bits(v)), 0}
}

func listWords(items ...[]int64) []int64 {
	w := []int64{tagList, int64(len(items))}
	for _, it := range items {
		w = append(w, it...)
	}
	return w
}

func TestForeachAddcdivWritesEachItemWithItsNumber(t *testing.T) {
	for _, mode := range []string{"async", "fused"} {
		d := testDevice(t, mode)
		id, err := d.OpID("aten::_foreach_addcdiv_.ScalarList", foreachAddcdiv)
		if err != nil {
			t.Fatal(err)
		}
		x1, x2 := []float32{1, 2}, []float32{3, 4, 5}
		a1, a2 := []float32{0.5, -1}, []float32{2, 0.25, 7}
		b1, b2 := []float32{4, 3}, []float32{0.5, 8, -2}
		p1, p2 := upload(t, d, x1), upload(t, d, x2)
		t1, t2 := upload(t, d, a1), upload(t, d, a2)
		u1, u2 := upload(t, d, b1), upload(t, d, b2)
		v := func(h Handle, n int64) []int64 { return tensorWords(h, 0, []int64{n}, []int64{1}) }
		misses := d.stats.PlanMisses
		for step, nums := range [][2]float64{{-0.1, 0.3}, {-0.0999, 0.29}, {1e-3, -7}} {
			w := listWords(v(p1, 2), v(p2, 3))
			w = append(w, listWords(v(t1, 2), v(t2, 3))...)
			w = append(w, listWords(v(u1, 2), v(u2, 3))...)
			w = append(w, listWords(numberWords(nums[0]), numberWords(nums[1]))...)
			if ret := call(t, d, id, w); len(ret) != 0 {
				t.Fatalf("%s: returns %v", mode, ret)
			}
			// PyTorch's kernel: self + value * t1 / t2 in float32, the
			// value converted once
			for k := range x1 {
				x1[k] += float32(nums[0]) * a1[k] / b1[k]
			}
			for k := range x2 {
				x2[k] += float32(nums[1]) * a2[k] / b2[k]
			}
			got1, got2 := download(t, d, p1, 2), download(t, d, p2, 3)
			for k := range x1 {
				if got1[k] != x1[k] {
					t.Fatalf("%s step %d: self[0] = %v, want %v", mode, step, got1, x1)
				}
			}
			for k := range x2 {
				if got2[k] != x2[k] {
					t.Fatalf("%s step %d: self[1] = %v, want %v", mode, step, got2, x2)
				}
			}
		}
		if n := d.stats.PlanMisses - misses; n != 1 {
			t.Fatalf("%s: %d plans for three steps whose numbers differ, want 1", mode, n)
		}
		if mode == "fused" && d.stats.BlockCompiles != 1 {
			t.Fatalf("fused: %d blocks compiled for three steps of one structure, want 1", d.stats.BlockCompiles)
		}
	}
}

// A self list with an item the device does not hold (a CPU tensor) cannot
// be updated in place: the call is declined (the caller runs PyTorch's
// composite) rather than computed without its writes.
func TestForeachDeclinesAnItemOffTheDevice(t *testing.T) {
	d := testDevice(t, "async")
	id, err := d.OpID("aten::_foreach_mul_.Scalar", "_foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()")
	if err != nil {
		t.Fatal(err)
	}
	p := upload(t, d, []float32{1, 2})
	cpu0d := []int64{tagScalar, 6, 0, int64(math.Float64bits(3)), 0} // a CPU float32 0-d tensor
	w := listWords(tensorWords(p, 0, []int64{2}, []int64{1}), cpu0d)
	w = append(w, numberWords(0.5)...)
	out := make([]int64, 64)
	st, msg, _, err := d.Call(context.Background(), id, w, FlagCompile, out)
	if err != nil || st != StatusDecline {
		t.Fatalf("status %d %q: %v; want a decline", st, msg, err)
	}
	if got := download(t, d, p, 2); got[0] != 1 || got[1] != 2 {
		t.Fatalf("the declined call wrote self[0]: %v", got)
	}
}

// An integral list times a float cannot be stored in place: declined with
// PyTorch's reason, nothing written.
func TestForeachDeclinesAResultItCannotCast(t *testing.T) {
	d := testDevice(t, "async")
	id, err := d.OpID("aten::_foreach_mul_.Scalar", "_foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()")
	if err != nil {
		t.Fatal(err)
	}
	h, err := d.NewBuffer(16)
	if err != nil {
		t.Fatal(err)
	}
	w := listWords([]int64{tagTensor, int64(h), 4, 1, 0, 2, 1}) // int64[2]
	w = append(w, numberWords(0.5)...)
	out := make([]int64, 64)
	st, msg, _, err := d.Call(context.Background(), id, w, FlagCompile, out)
	if err != nil || st != StatusDecline || msg == "" {
		t.Fatalf("status %d %q: %v; want a decline", st, msg, err)
	}
	t.Log(msg)
}
