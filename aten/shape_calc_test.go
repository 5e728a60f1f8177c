package aten

import (
	"reflect"
	"testing"
)

// The expected values below are PyTorch observations recorded in
// shared/reference/torch_semantics.md (§10, §11).

func TestConvSizes(t *testing.T) {
	if got := convOutSize(7, 3, 2, 1, 2); got != 3 {
		t.Errorf("convOutSize = %d, want 3", got)
	}
	if got := convTransposeOutSize(7, 3, 2, 1, 1, 1); got != 14 {
		t.Errorf("convTransposeOutSize = %d, want 14", got)
	}
}

func TestPoolCeil(t *testing.T) {
	if got := poolOutSize(5, 2, 0, 2, 1, true); got != 3 {
		t.Errorf("ceil pool = %d, want 3", got)
	}
	if got := poolOutSize(5, 2, 0, 2, 1, false); got != 2 {
		t.Errorf("floor pool = %d, want 2", got)
	}
}

func TestNearestSource(t *testing.T) {
	var got []int64
	for o := int64(0); o < 5; o++ {
		got = append(got, nearestSource(o, 3, 5, 0))
	}
	if want := []int64{0, 0, 1, 1, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("3→5 = %v, want %v", got, want)
	}
	got = nil
	for o := int64(0); o < 6; o++ {
		got = append(got, nearestSource(o, 4, 6, 1.5))
	}
	if want := []int64{0, 0, 1, 2, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("4×1.5 = %v, want %v", got, want)
	}
}

func TestSliceRange(t *testing.T) {
	const maxI64 = 9223372036854775807
	cases := []struct{ size, start, end, step, first, count int64 }{
		{10, 0, maxI64, 2, 0, 5},
		{5, -3, -1, 1, 2, 2},
		{5, 7, 9, 1, 5, 0},
		{5, -9, 2, 1, 0, 2},
	}
	for _, c := range cases {
		f, n, err := sliceRange(c.size, c.start, c.end, c.step)
		if err != nil || f != c.first || n != c.count {
			t.Errorf("sliceRange(%d,%d,%d,%d) = %d,%d,%v want %d,%d", c.size, c.start, c.end, c.step, f, n, err, c.first, c.count)
		}
	}
	if _, _, err := sliceRange(5, 0, 5, 0); err == nil {
		t.Error("step 0 accepted")
	}
}

func TestInferViewShape(t *testing.T) {
	got, err := inferViewShape(24, []int64{2, -1, 3})
	if err != nil || !reflect.DeepEqual(got, []int64{2, 4, 3}) {
		t.Errorf("got %v %v", got, err)
	}
	for _, bad := range [][]int64{{-1, -1}, {5, -1}, {7}, {-2, 12}} {
		if _, err := inferViewShape(24, bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestParseEinsum(t *testing.T) {
	s, err := parseEinsum("bij,bjk->bik", []int{3, 3})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.output, []int{'b', 'i', 'k'}) {
		t.Errorf("output %v", s.output)
	}
	s, err = parseEinsum("...ij,jk", []int{4, 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.inputs[0], []int{-2, -1, 'i', 'j'}) || !reflect.DeepEqual(s.output, []int{-2, -1, 'i', 'k'}) {
		t.Errorf("implicit: %v -> %v", s.inputs, s.output)
	}
	for _, bad := range []string{"ij,jk->iz", "ij->i.j", "i1->i"} {
		if _, err := parseEinsum(bad, []int{2, 2}[:len(splitTerms(bad))]); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func splitTerms(eq string) []int {
	n := 1
	for _, c := range eq {
		if c == ',' {
			n++
		}
	}
	return make([]int, n)
}
