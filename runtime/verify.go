package runtime

import (
	"fmt"
	"math"
	"slices"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
)

// FromPT2 prepares a loaded archive for the backend of device.
func FromPT2(p *pt2.Program, device string) (*Program, error) {
	weights := map[string]*literal.Literal{}
	for _, m := range []map[string]*literal.Literal{p.Params, p.Buffers, p.Constants} {
		for k, v := range m {
			weights[k] = v
		}
	}
	return New(p.Graph, weights, device)
}

// Tolerance bounds |got - want| <= ATol + RTol*|want| for float outputs.
type Tolerance struct{ RTol, ATol float64 }

// DefaultTolerance is the tolerance for a dtype: PyTorch's
// torch.testing defaults (integers and bool compare exactly).
func DefaultTolerance(d dtype.DType) Tolerance {
	switch d {
	case dtype.BF16:
		return Tolerance{1.6e-2, 1e-5}
	case dtype.F16:
		return Tolerance{1e-3, 1e-5}
	case dtype.F32, dtype.C64:
		return Tolerance{1.3e-6, 1e-5}
	case dtype.F64, dtype.C128:
		return Tolerance{1e-7, 1e-7}
	}
	return Tolerance{}
}

// Comparison is the result of comparing one output with its expected value.
type Comparison struct {
	OK             bool
	MaxAbs, MaxRel float64 // over all elements (floats); 0 when exact
	Mismatches     int     // elements outside the tolerance
	Detail         string  // first mismatch or the shape/dtype difference
}

// Compare checks got against want: same dtype and shape; floats within tol
// (NaN matches NaN, infinities must be equal), other types exactly.
func Compare(got, want *literal.Literal, tol Tolerance) Comparison {
	var c Comparison
	switch {
	case got == nil:
		c.Detail = "no output"
		return c
	case got.DType != want.DType:
		c.Detail = fmt.Sprintf("dtype %s, want %s", got.DType.Torch(), want.DType.Torch())
		return c
	case !slices.Equal(got.Shape, want.Shape):
		c.Detail = fmt.Sprintf("shape %v, want %v", got.Shape, want.Shape)
		return c
	}
	float, parts := want.DType.IsFloat(), 1
	if want.DType.IsComplex() {
		float, parts = true, 2 // real, imaginary
	}
	for i := 0; i < want.Len(); i++ {
		if !float {
			if g, w := got.Int64(i), want.Int64(i); g != w {
				if c.Mismatches == 0 {
					c.Detail = fmt.Sprintf("element %d: got %d, want %d", i, g, w)
				}
				c.Mismatches++
			}
			continue
		}
		for part := range parts {
			var g, w float64
			if parts == 2 {
				gc, wc := got.Complex128(i), want.Complex128(i)
				g, w = real(gc), real(wc)
				if part == 1 {
					g, w = imag(gc), imag(wc)
				}
			} else {
				g, w = got.Float64(i), want.Float64(i)
			}
			ok, abs, rel := closeTo(g, w, tol)
			if !ok {
				if c.Mismatches == 0 {
					c.Detail = fmt.Sprintf("element %d: got %v, want %v", i, g, w)
				}
				c.Mismatches++
			}
			c.MaxAbs, c.MaxRel = math.Max(c.MaxAbs, abs), math.Max(c.MaxRel, rel)
		}
	}
	c.OK = c.Mismatches == 0
	return c
}

func closeTo(g, w float64, tol Tolerance) (ok bool, abs, rel float64) {
	switch {
	case math.IsNaN(w) || math.IsNaN(g):
		if math.IsNaN(w) && math.IsNaN(g) {
			return true, 0, 0
		}
		return false, math.Inf(1), math.Inf(1)
	case math.IsInf(w, 0) || math.IsInf(g, 0):
		if g == w {
			return true, 0, 0
		}
		return false, math.Inf(1), math.Inf(1)
	}
	abs = math.Abs(g - w)
	if w != 0 {
		rel = abs / math.Abs(w)
	} else if abs != 0 {
		rel = math.Inf(1)
	}
	return abs <= tol.ATol+tol.RTol*math.Abs(w), abs, rel
}
