package native

import (
	"testing"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestFoldChains checks that aten's SiLU and GELU chains (and the
// tanh-approximate GELU's backward, fuse_gelu_bwd_test.go) become one node
// where their inner values are read nowhere else, and stay chains where
// they are.
func TestFoldChains(t *testing.T) {
	for name, want := range map[string]string{"bn_silu": "silu", "silu_shared": "", "gelu": "gelu", "bn_hardswish": "hardswish",
		"gelu_tanh": "gelu_tanh", "gelu_tanh_aten": "gelu_tanh", "gelu_tanh_saved": "gelu_tanh_in",
		"gelu_tanh_bwd": "gelu_tanh_backward", "gelu_tanh_bwd_swapped": "gelu_tanh_backward", "gelu_tanh_bwd_rowg": "gelu_tanh_backward",
		"gelu_tanh_bwd_xnan": "gelu_tanh_in", "gelu_tanh_bwd_k": "gelu_tanh_in", "gelu_tanh_bwd_shared": "gelu_tanh_in"} {
		m, err := stablehlo.ParseModule(name, []byte("module {\n"+fuseModules[name]+"\n}"))
		if err != nil {
			t.Fatal(err)
		}
		e := compileWith(t, m, true)
		folded := ""
		for _, st := range e.(*Executable).prog.plans[m.Func("main")].exec.steps {
			if st.group == nil {
				continue
			}
			for _, nd := range st.group.nodes {
				switch nd.name {
				case "silu", "gelu", "hardswish", "gelu_tanh", "gelu_tanh_backward":
					folded = nd.name
				case "gelu_tanh_in":
					if folded == "" {
						folded = nd.name
					}
				}
			}
		}
		if folded != want {
			t.Errorf("%s: folded into %q, want %q", name, folded, want)
		}
	}
}
