package pt2

import (
	"os"
	"testing"

	"github.com/torchtpu/torchtpu/safetensors"
)

// TestViews loads archives whose weights are views of shared storages
// (transposed, sliced, strided; bf16, int64; non-persistent buffer; lifted
// constant) and compares every tensor with the dense values PyTorch wrote
// to safetensors (testdata/gen_views.py).
func TestViews(t *testing.T) {
	for _, name := range []string{"views", "views_legacy"} {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat("testdata/" + name + ".pt2"); err != nil {
				t.Fatalf("testdata/%s.pt2 missing: run testdata/gen_views.py", name)
			}
			p, err := Load("testdata/" + name + ".pt2")
			if err != nil {
				t.Fatal(err)
			}
			want, err := safetensors.Load("testdata/" + name + ".weights.safetensors")
			if err != nil {
				t.Fatal(err)
			}
			for _, fqn := range want.Names {
				w := want.Tensors[fqn]
				var got = p.SampleInputs
				if fqn == "__sample_input__" {
					if len(got) != 1 || got[0] == nil || got[0].String() != w.String() || string(got[0].Data) != string(w.Data) {
						t.Errorf("sample input: got %v, want %v", got, w)
					}
					continue
				}
				l, ok := p.Weight(fqn)
				if !ok {
					t.Errorf("%s: not loaded", fqn)
					continue
				}
				if l.String() != w.String() || string(l.Data) != string(w.Data) {
					t.Errorf("%s: got %v %v, want %v %v", fqn, l, l.Data, w, w.Data)
				}
			}
			if len(p.Warnings) != 0 {
				t.Errorf("warnings: %v", p.Warnings)
			}
		})
	}
}
