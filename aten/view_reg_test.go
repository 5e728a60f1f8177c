package aten

import "testing"

func TestViewEntriesRegistered(t *testing.T) {
	for _, n := range []string{"aten::view.default", "aten::squeeze.dims", "aten::movedim.int", "aten::contiguous.default"} {
		if _, ok := Lookup(n); !ok {
			t.Errorf("%s not registered", n)
		}
	}
}
