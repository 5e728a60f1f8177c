package eager

import (
	"context"
	"math"
	"testing"
	"unsafe"
)

// The gradient scaler's in-place ops write arguments they do not return:
// a list of gradients and found_inf, the growth tracker. Values against
// PyTorch are python/tests/test_device_amp.py; this checks the writes.

func TestAmpUnscaleWritesListItems(t *testing.T) {
	for _, mode := range []string{"async", "fused"} {
		d := testDevice(t, mode)
		id, err := d.OpID("aten::_amp_foreach_non_finite_check_and_unscale_",
			"_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> ()")
		if err != nil {
			t.Fatal(err)
		}
		g1 := upload(t, d, []float32{2, 4})
		g2 := upload(t, d, []float32{8, float32(math.Inf(1)), 6})
		found := upload(t, d, []float32{0})
		inv := upload(t, d, []float32{0.5})
		w := []int64{tagList, 2}
		w = append(w, tensorWords(g1, 0, []int64{2}, []int64{1})...)
		w = append(w, tensorWords(g2, 0, []int64{3}, []int64{1})...)
		w = append(w, tensorWords(found, 0, []int64{1}, []int64{1})...)
		w = append(w, tensorWords(inv, 0, []int64{1}, []int64{1})...)
		if ret := call(t, d, id, w); len(ret) != 0 {
			t.Fatalf("%s: returns %v", mode, ret)
		}
		if got := download(t, d, g1, 2); got[0] != 1 || got[1] != 2 {
			t.Fatalf("%s: g1 = %v", mode, got)
		}
		if got := download(t, d, g2, 3); got[0] != 4 || !math.IsInf(float64(got[1]), 1) || got[2] != 3 {
			t.Fatalf("%s: g2 = %v", mode, got)
		}
		if got := download(t, d, found, 1); got[0] != 1 {
			t.Fatalf("%s: found_inf = %v", mode, got)
		}
	}
}

func TestAmpUpdateScaleWritesTracker(t *testing.T) {
	d := testDevice(t, "async")
	e, _ := d.OpID("aten::_amp_update_scale_",
		"_amp_update_scale_(Tensor(a!) self, Tensor(b!) growth_tracker, Tensor found_inf, float scale_growth_factor, float scale_backoff_factor, int growth_interval) -> Tensor(a!)")
	scale := upload(t, d, []float32{1024})
	tracker, err := d.NewBuffer(4)
	if err != nil {
		t.Fatal(err)
	}
	i32 := mustDType(3)
	one := []int32{1}
	if err := d.Write(tracker, View{DType: i32, Shape: []int64{1}, Strides: []int64{1}}, unsafe.Pointer(&one[0]), 4); err != nil {
		t.Fatal(err)
	}
	found := upload(t, d, []float32{0})
	tw := []int64{tagTensor, int64(tracker), 3, 1, 0, 1, 1}
	step := func() []int64 {
		w := tensorWords(scale, 0, []int64{1}, []int64{1})
		w = append(w, tw...)
		w = append(w, tensorWords(found, 0, []int64{1}, []int64{1})...)
		w = append(w, tagFloat, int64(math.Float64bits(2)), tagFloat, int64(math.Float64bits(0.5)), tagInt, 2)
		return call(t, d, e, w)
	}
	readTracker := func() int32 {
		var v int32
		if err := d.Read(context.Background(), tracker, View{DType: i32, Shape: []int64{1}, Strides: []int64{1}}, unsafe.Pointer(&v), 4); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// tracker 1 + 1 == interval 2: the scale grows, the tracker restarts
	if ret := step(); len(ret) != 2 || ret[0] != retAlias || ret[1] != 0 {
		t.Fatalf("returns %v", ret)
	}
	if s, tr := download(t, d, scale, 1)[0], readTracker(); s != 2048 || tr != 0 {
		t.Fatalf("after growth: scale %v tracker %v", s, tr)
	}
	upload2(t, d, found, []float32{1})
	step()
	if s, tr := download(t, d, scale, 1)[0], readTracker(); s != 1024 || tr != 0 {
		t.Fatalf("after backoff: scale %v tracker %v", s, tr)
	}
}
