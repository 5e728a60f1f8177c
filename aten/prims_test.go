package aten

import (
	"strings"
	"testing"
)

// Every prims entry parses and calls aten entries that exist.
func TestPrimsTargetsAreRegistered(t *testing.T) {
	n := 0
	for _, e := range Entries() {
		if !strings.HasPrefix(e.Name, "prims::") {
			continue
		}
		n++
		if _, err := e.parsed(); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
	}
	targets := []string{"aten::_to_copy.default", "aten::div.Tensor_mode", "aten::where.self", "aten::reshape.default",
		"aten::squeeze.dims", "aten::permute.default", "aten::flip.default", "aten::cat.default", "aten::as_strided.default",
		"aten::sum.dim_IntList", "aten::amax.default", "aten::amin.default", "aten::prod.dim_int", "aten::var.correction",
		"aten::frexp.Tensor", "aten::linalg_svd.default", "aten::pow.Tensor_Tensor", "aten::conj_physical.default",
		"aten::real.default", "aten::imag.default"}
	for _, v := range primsSame {
		targets = append(targets, "aten::"+v+".default")
	}
	for _, v := range primsBinary {
		targets = append(targets, "aten::"+v)
	}
	for _, name := range targets {
		if _, ok := Lookup(name); !ok {
			t.Errorf("prims call %s, which is not registered", name)
		}
	}
	if n < 100 {
		t.Errorf("%d prims entries, want 100 or more", n)
	}
}
