package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// More host fallbacks (output shapes that depend on data): bincount (its
// length is the largest value + 1), tensor_split by a tensor of indices
// or a section count, and nonzero_numpy (nonzero as one index vector per
// dim).

func init() {
	Register(Entry{Name: "aten::bincount", Kind: HostFallback, Host: hostBincount})
	Register(Entry{Name: "aten::tensor_split.tensor_indices_or_sections", Kind: HostFallback, Host: hostTensorSplit})
	Register(Entry{Name: "aten::nonzero_numpy", Kind: HostFallback, Host: hostNonzeroNumpy,
		Schema: "nonzero_numpy(Tensor self) -> Tensor[]"})
}

func hostBincount(_ *HostCtx, a *Args) ([]Value, error) {
	x := a.Literal("self")
	minLen := a.Int("minlength")
	var w *literal.Literal
	if v := a.Value("weights"); !v.IsNone() {
		w = a.Literal("weights")
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	if x.Rank() != 1 || x.DType.IsFloat() || x.DType.IsComplex() || x.DType == dtype.Bool {
		return nil, fmt.Errorf("bincount only supports 1-d non-negative integral inputs")
	}
	if minLen < 0 {
		return nil, fmt.Errorf("minlength should be >= 0")
	}
	n := x.Len()
	if w != nil && (w.Rank() != 1 || w.Len() != n) {
		return nil, fmt.Errorf("weights should be 1-d and have the same length as input")
	}
	size := minLen
	for i := 0; i < n; i++ {
		v := x.Int64(i)
		if v < 0 {
			return nil, fmt.Errorf("bincount only supports 1-d non-negative integral inputs")
		}
		size = max(size, v+1)
	}
	if size > 1<<28 {
		return nil, fmt.Errorf("bincount: %d bins is too many", size)
	}
	dt := dtype.I64
	if w != nil {
		dt = dtype.F64
		if w.DType == dtype.F32 {
			dt = dtype.F32
		}
	}
	out, err := literal.New(dt, []int64{size})
	if err != nil {
		return nil, fmt.Errorf("bincount: %w", err)
	}
	acc := make([]float64, size)
	for i := 0; i < n; i++ {
		if w != nil {
			acc[x.Int64(i)] += w.Float64(i)
		} else {
			acc[x.Int64(i)]++
		}
	}
	for i, v := range acc {
		if dt == dtype.I64 {
			out.SetInt64(i, int64(v))
		} else {
			out.SetFloat64(i, v)
		}
	}
	return []Value{LiteralValue(out)}, nil
}

// sliceLiteral takes count entries from start along dim.
func sliceLiteral(l *literal.Literal, dim int, start, count int64) (*literal.Literal, error) {
	shape := append([]int64(nil), l.Shape...)
	shape[dim] = count
	out, err := literal.New(l.DType, shape)
	if err != nil {
		return nil, err
	}
	es := int64(l.DType.Size())
	inner := es
	for _, d := range l.Shape[dim+1:] {
		inner *= d
	}
	outer := int64(1)
	for _, d := range l.Shape[:dim] {
		outer *= d
	}
	for o := int64(0); o < outer; o++ {
		src := (o*l.Shape[dim] + start) * inner
		dst := o * count * inner
		copy(out.Data[dst:dst+count*inner], l.Data[src:src+count*inner])
	}
	return out, nil
}

func hostTensorSplit(_ *HostCtx, a *Args) ([]Value, error) {
	x, t := a.Literal("self"), a.Literal("tensor_indices_or_sections")
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if t.DType != dtype.I64 || t.Rank() > 1 {
		return nil, fmt.Errorf("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor of dtype long, but got %s%v", t.DType.Torch(), t.Shape)
	}
	if x.Rank() == 0 {
		return nil, fmt.Errorf("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
	}
	d, err := canonDim(dim, x.Rank())
	if err != nil {
		return nil, fmt.Errorf("tensor_split: %w", err)
	}
	size := x.Shape[d]
	var bounds [][2]int64
	if t.Rank() == 0 {
		n := t.Int64(0)
		if n <= 0 {
			return nil, fmt.Errorf("number of sections must be larger than 0, got %d", n)
		}
		off := int64(0)
		for i := int64(0); i < n; i++ {
			c := size / n
			if i < size%n {
				c++
			}
			bounds = append(bounds, [2]int64{off, c})
			off += c
		}
	} else {
		norm := func(v int64) int64 {
			if v < 0 {
				v += size
			}
			return clampI64(v, 0, size)
		}
		start := int64(0)
		for i := 0; i <= t.Len(); i++ {
			e := size
			if i < t.Len() {
				e = t.Int64(i)
			}
			s, en := norm(start), norm(e)
			bounds = append(bounds, [2]int64{s, max(0, en-s)})
			start = e
		}
	}
	out := make([]Value, len(bounds))
	for i, b := range bounds {
		p, err := sliceLiteral(x, d, b[0], b[1])
		if err != nil {
			return nil, fmt.Errorf("tensor_split: %w", err)
		}
		out[i] = LiteralValue(p)
	}
	return []Value{ListValue(out...)}, nil
}

func hostNonzeroNumpy(h *HostCtx, a *Args) ([]Value, error) {
	x := a.Literal("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if x.Rank() == 0 {
		return nil, fmt.Errorf("nonzero_numpy of a 0-d tensor: %w", ErrUnsupported)
	}
	nz, err := hostNonzero(h, a)
	if err != nil {
		return nil, err
	}
	coords := nz[0].Lit
	rows := coords.Shape[0]
	r := x.Rank()
	out := make([]Value, r)
	for d := 0; d < r; d++ {
		l, err := literal.New(dtype.I64, []int64{rows})
		if err != nil {
			return nil, err
		}
		for i := int64(0); i < rows; i++ {
			l.SetInt64(int(i), coords.Int64(int(i)*r+d))
		}
		out[d] = LiteralValue(l)
	}
	return []Value{ListValue(out...)}, nil
}
