package native

import (
	"math"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/vmath"
)

// TestVmathOpsRegistered checks that the unary ops with float32 forms get
// package vmath's rows and scalars in unaryTable, and abs in fusedUnary
// (vmath's own tests measure the functions).
func TestVmathOpsRegistered(t *testing.T) {
	x := make([]float32, 37)
	for i := range x {
		x[i] = float32(i-18) * 0.37
	}
	x[0], x[1] = float32(math.NaN()), float32(math.Inf(-1))
	abs, ok := fusedUnary("stablehlo.abs")
	if !ok {
		t.Fatal("no fused stablehlo.abs")
	}
	for _, c := range []struct {
		op     string
		fns    unaryFns
		row    func(d, x []float32)
		scalar func(float32) float32
	}{
		{"stablehlo.negate", unaryTable["stablehlo.negate"], vmath.NegRow, vmath.Neg},
		{"stablehlo.abs", abs, vmath.AbsRow, vmath.Abs},
		{"stablehlo.exponential", unaryTable["stablehlo.exponential"], vmath.ExpRow, vmath.Exp},
		{"stablehlo.logistic", unaryTable["stablehlo.logistic"], vmath.LogisticRow, vmath.Logistic},
		{"stablehlo.tanh", unaryTable["stablehlo.tanh"], vmath.TanhRow, vmath.Tanh},
		{"chlo.erf", unaryTable["chlo.erf"], vmath.ErfRow, vmath.Erf},
		{"stablehlo.sqrt", unaryTable["stablehlo.sqrt"], vmath.SqrtRow, vmath.Sqrt},
		{"stablehlo.rsqrt", unaryTable["stablehlo.rsqrt"], vmath.RsqrtRow, vmath.Rsqrt},
	} {
		if c.fns.v32 == nil || c.fns.s32 == nil {
			t.Fatalf("%s has no float32 row or scalar", c.op)
		}
		got, want := make([]float32, len(x)), make([]float32, len(x))
		c.fns.v32(got, x)
		c.row(want, x)
		for i, v := range x {
			w := math.Float32bits(want[i])
			if math.Float32bits(got[i]) != w || math.Float32bits(c.fns.s32(v)) != math.Float32bits(c.scalar(v)) {
				t.Fatalf("%s(%g): row %g, scalar %g; package vmath gives %g and %g", c.op, v, got[i], c.fns.s32(v), want[i], c.scalar(v))
			}
		}
	}
}
