package native

import "github.com/torchtpu/torchtpu/backend/native/vmath"

// A vmathFn computes one function over a row: d[i] = f(x[i]), d and x of
// equal length (d may be x).
type vmathFn func(d, x []float32)

// vmathOps maps the ops with float32 forms (package vmath) to their rows
// and scalars (registerUnary puts them into the ops' unaryFns).
var vmathOps = map[string]struct {
	row    vmathFn
	scalar func(float32) float32
}{
	// exact: the sign bit flipped or cleared, as the float64 forms do
	"stablehlo.negate":      {vmath.NegRow, vmath.Neg},
	"stablehlo.abs":         {vmath.AbsRow, vmath.Abs},
	"stablehlo.exponential": {vmath.ExpRow, vmath.Exp},
	"stablehlo.logistic":    {vmath.LogisticRow, vmath.Logistic},
	"stablehlo.tanh":        {vmath.TanhRow, vmath.Tanh},
	"chlo.erf":              {vmath.ErfRow, vmath.Erf},
	// the float64 forms rounded, in loops the compiler inlines (a square
	// root instruction per element, not a call)
	"stablehlo.sqrt":  {vmath.SqrtRow, vmath.Sqrt},
	"stablehlo.rsqrt": {vmath.RsqrtRow, vmath.Rsqrt},
}
