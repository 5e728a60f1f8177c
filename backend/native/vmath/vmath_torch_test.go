package vmath

import (
	"math"
	"testing"

	"github.com/torchtpu/torchtpu/safetensors"
)

// TestVmathAgainstTorch compares the float32 functions with PyTorch's CPU
// kernels on testdata/vmath_torch.safetensors (tools/vmathfit/
// torch_ref.py: special values, a sweep from 1e-40 to 1e3 of both signs,
// uniform samples). Special results (NaN, infinities, zeros) match bit
// for bit in sign and kind where they are exact; where PyTorch flushes a
// result to zero that is a subnormal (sigmoid below -88.7), ours is
// within the bound of the exact value. Elsewhere each element is within 3 ulp of
// PyTorch's, or, where PyTorch's own error is larger, no further from
// the exact value than PyTorch plus the function's bound (PyTorch's erf
// errs by up to about 1e-7 absolute, many ulps near zero). The test logs
// both sides' largest errors against the exact values.
func TestVmathAgainstTorch(t *testing.T) {
	f, err := safetensors.Load("testdata/vmath_torch.safetensors")
	if err != nil {
		t.Fatalf("PyTorch's reference values: %v", err)
	}
	get := func(name string) []float32 {
		l := f.Tensors[name]
		if l == nil {
			t.Fatalf("testdata/vmath_torch.safetensors has no %q", name)
		}
		v := make([]float32, l.Len())
		for i := range v {
			v[i] = float32(l.Float64(i))
		}
		return v
	}
	var version []byte
	if l := f.Tensors["torch"]; l != nil {
		version = l.Data
	}
	x := get("x")
	names := map[string]string{"exp": "exp", "logistic": "sigmoid", "tanh": "tanh", "erf": "erf"}
	forLanes(t, func(t *testing.T) {
		for _, c := range vmathCases {
			want := get(names[c.name])
			got := vmathRow(t, c, x)
			oursMax, torchMax, diffMax, flushed := 0.0, 0.0, 0.0, 0
			for i, v := range x {
				g, w := got[i], want[i]
				exact := c.ref(float64(v))
				if w != w || g != g {
					if (w != w) != (g != g) {
						t.Errorf("%s(%g) = %g, PyTorch %s gives %g", c.name, v, g, version, w)
					}
					continue
				}
				if w == 0 || math.IsInf(float64(w), 0) {
					if float32(exact) == w {
						// an exact zero or infinity: the same bits
						if math.Float32bits(g) != math.Float32bits(w) {
							t.Errorf("%s(%g) = %g, PyTorch %s gives %g", c.name, v, g, version, w)
						}
					} else if e := ulpErr(g, exact); e > c.bound {
						// PyTorch flushes (sigmoid below -88.7 gives 0, not
						// the subnormal): ours must be near the exact value
						t.Errorf("%s(%g) = %g, %.1f ulp from the exact %g", c.name, v, g, e, exact)
					} else {
						flushed++
					}
					continue
				}
				eo, et := ulpErr(g, exact), ulpErr(w, exact)
				d := ulpErr(g, float64(w))
				oursMax, torchMax, diffMax = max(oursMax, eo), max(torchMax, et), max(diffMax, d)
				if d > 3 && eo > et+c.bound {
					t.Errorf("%s(%g) = %g: %.1f ulp from PyTorch's %g, %.1f ulp from the exact %g (PyTorch: %.1f)", c.name, v, g, d, w, eo, exact, et)
				}
			}
			t.Logf("%s: ours %.2f ulp, PyTorch %s %.2f ulp from exact; at most %.2f ulp apart; %d results PyTorch flushes to 0 or Inf (%d lanes)",
				c.name, oursMax, version, torchMax, diffMax, flushed, vmathLanes)
		}
	})
}
