package pjrttest

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// SampleArgs makes arguments for a function of the given argument types
// that the file running it does not give: every ? dim is size, a scalar
// integer argument before any other is size too (a jax2tf dimension
// argument: the batch the ? dims stand for), a later one 0 (an index),
// floats are drawn from a normal distribution,
// other integers from [-4, 4] (unsigned [0, 8]), booleans at random. The
// same seed gives the same arguments.
func SampleArgs(types []stablehlo.Type, size int64, seed int64) ([]*literal.Literal, error) {
	r := rand.New(rand.NewSource(seed))
	out := make([]*literal.Literal, len(types))
	leading := true // still in the leading scalar integers (dimension arguments)
	for i, t := range types {
		tt := stablehlo.AsTensor(t)
		if tt == nil {
			return nil, fmt.Errorf("argument %d has type %v, not a tensor", i, t)
		}
		if tt.Rank() > 0 || !tt.DType().IsInteger() {
			leading = false
		}
		shape := append([]int64{}, tt.Shape...)
		for d, n := range shape {
			if n == stablehlo.Dynamic {
				shape[d] = size
			}
		}
		dt := tt.DType()
		l, err := literal.New(dt, shape)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
		n := l.Len()
		switch {
		case tt.Elem.IsQuantized():
			for j := 0; j < n; j++ {
				l.SetInt64(j, int64(r.Intn(9)-4))
			}
		case len(shape) == 0 && dt.IsInteger() && leading:
			l.SetInt64(0, size)
		case len(shape) == 0 && dt.IsInteger():
			l.SetInt64(0, 0) // an index: 0 is in range
		case dt.IsBool():
			for j := 0; j < n; j++ {
				l.SetInt64(j, int64(r.Intn(2)))
			}
		case dt.IsInteger():
			for j := 0; j < n; j++ {
				v := int64(r.Intn(9) - 4)
				if dt.IsUnsigned() {
					v += 4
				}
				l.SetInt64(j, v)
			}
		case dt.IsComplex():
			for j := 0; j < n; j++ {
				l.SetComplex128(j, complex(r.NormFloat64(), r.NormFloat64()))
			}
		default:
			for j := 0; j < n; j++ {
				l.SetFloat64(j, r.NormFloat64())
			}
		}
		out[i] = l
	}
	return out, nil
}

// Compare checks got against want: same dtypes and shapes; integers and
// booleans exactly; floats within atol + rtol·|want| (NaN where want is
// NaN, the same infinities). The error names the first difference.
func Compare(got, want []*literal.Literal, rtol, atol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d results, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g == nil || w == nil {
			return fmt.Errorf("result %d: missing", i)
		}
		if g.DType != w.DType || len(g.Shape) != len(w.Shape) {
			return fmt.Errorf("result %d: %v, want %v", i, g, w)
		}
		for d := range g.Shape {
			if g.Shape[d] != w.Shape[d] {
				return fmt.Errorf("result %d: %v, want %v", i, g, w)
			}
		}
		dt := w.DType
		for j := 0; j < w.Len(); j++ {
			switch {
			case dt.IsComplex():
				a, b := g.Complex128(j), w.Complex128(j)
				if !near(real(a), real(b), rtol, atol) || !near(imag(a), imag(b), rtol, atol) {
					return fmt.Errorf("result %d element %d: %v, want %v", i, j, a, b)
				}
			case dt.IsFloat():
				if a, b := g.Float64(j), w.Float64(j); !near(a, b, rtol, atol) {
					return fmt.Errorf("result %d element %d: %v, want %v", i, j, a, b)
				}
			default:
				if a, b := g.Int64(j), w.Int64(j); a != b {
					return fmt.Errorf("result %d element %d: %d, want %d", i, j, a, b)
				}
			}
		}
	}
	return nil
}

func near(a, b, rtol, atol float64) bool {
	switch {
	case math.IsNaN(b):
		return math.IsNaN(a)
	case math.IsInf(b, 0):
		return a == b
	}
	return math.Abs(a-b) <= atol+rtol*math.Abs(b)
}
