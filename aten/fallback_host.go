package aten

import (
	"fmt"
	"math"
	"sort"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Host fallbacks: ops whose output shape depends on the data (nonzero,
// masked_select, unique). They run on host literals between compiled
// segments; the runtime counts each run and the bytes moved.

func init() {
	Register(Entry{Name: "aten::nonzero", Kind: HostFallback, Host: hostNonzero})
	Register(Entry{Name: "aten::masked_select", Kind: HostFallback, Host: hostMaskedSelect})
	Register(Entry{Name: "aten::_unique2", Kind: HostFallback, Host: hostUnique2})
	Register(Entry{Name: "aten::_unique", Kind: HostFallback, Host: hostUnique})
	Register(Entry{Name: "aten::unique_consecutive", Kind: HostFallback, Host: hostUniqueConsecutive})
}

// truthy reports whether element i is nonzero (NaN counts as nonzero).
func truthy(l *literal.Literal, i int) bool {
	switch {
	case l.DType.IsComplex():
		return l.Complex128(i) != 0
	case l.DType.IsFloat():
		return l.Float64(i) != 0
	}
	return l.Int64(i) != 0
}

func hostNonzero(_ *HostCtx, a *Args) ([]Value, error) {
	x := a.Literal("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	r := x.Rank()
	var coords []int64
	n := x.Len()
	strides := literal.Strides(x.Shape)
	for i := 0; i < n; i++ {
		if !truthy(x, i) {
			continue
		}
		rem := int64(i)
		for d := 0; d < r; d++ {
			coords = append(coords, rem/strides[d])
			rem %= strides[d]
		}
	}
	rows := int64(0)
	if r > 0 {
		rows = int64(len(coords) / r)
	} else if n == 1 && truthy(x, 0) {
		rows = 1
	}
	out, err := literal.New(dtype.I64, []int64{rows, int64(r)})
	if err != nil {
		return nil, fmt.Errorf("nonzero: %w", err)
	}
	for i, v := range coords {
		out.SetInt64(i, v)
	}
	return []Value{LiteralValue(out)}, nil
}

// broadcastIndex maps a flat index of the broadcast shape to a flat index
// of a literal of shape s.
func broadcastIndex(flat int64, out, s []int64) int64 {
	off := len(out) - len(s)
	src, stride := int64(0), int64(1)
	for d := len(out) - 1; d >= 0; d-- {
		c := flat % out[d]
		flat /= out[d]
		if d >= off {
			if sd := s[d-off]; sd != 1 {
				src += c * stride
			}
			stride *= s[d-off]
		}
	}
	return src
}

func copyElem(dst *literal.Literal, i int, src *literal.Literal, j int) {
	sz := dst.DType.Size()
	copy(dst.Data[i*sz:(i+1)*sz], src.Data[j*sz:(j+1)*sz])
}

func hostMaskedSelect(_ *HostCtx, a *Args) ([]Value, error) {
	x, m := a.Literal("self"), a.Literal("mask")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if m.DType != dtype.Bool {
		return nil, fmt.Errorf("masked_select: expected BoolTensor for mask, got %v", m.DType)
	}
	shape, err := broadcastShapes(x.Shape, m.Shape)
	if err != nil {
		return nil, fmt.Errorf("masked_select: %w", err)
	}
	total := numelOf(shape)
	var pick []int64
	for i := int64(0); i < total; i++ {
		if m.Int64(int(broadcastIndex(i, shape, m.Shape))) != 0 {
			pick = append(pick, broadcastIndex(i, shape, x.Shape))
		}
	}
	out, err := literal.New(x.DType, []int64{int64(len(pick))})
	if err != nil {
		return nil, fmt.Errorf("masked_select: %w", err)
	}
	for i, j := range pick {
		copyElem(out, i, x, int(j))
	}
	return []Value{LiteralValue(out)}, nil
}

// uniqueOf returns the positions of the first element of each distinct
// value in sorted order, the inverse map and the counts. NaNs are all
// distinct and sort last, as in PyTorch's sorted CPU kernel.
func uniqueOf(x *literal.Literal, consecutive bool) (reps []int, inverse, counts []int64) {
	n := x.Len()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	isFloat := x.DType.IsFloat()
	less := func(i, j int) bool {
		if isFloat {
			a, b := x.Float64(i), x.Float64(j)
			if math.IsNaN(b) {
				return !math.IsNaN(a)
			}
			return a < b
		}
		if x.DType.IsUnsigned() {
			return x.Uint64(i) < x.Uint64(j)
		}
		return x.Int64(i) < x.Int64(j)
	}
	equal := func(i, j int) bool {
		if isFloat {
			return x.Float64(i) == x.Float64(j)
		}
		return x.Int64(i) == x.Int64(j)
	}
	if !consecutive {
		sort.SliceStable(order, func(a, b int) bool { return less(order[a], order[b]) })
	}
	inverse = make([]int64, n)
	for k, i := range order {
		if k == 0 || !equal(order[k-1], i) {
			reps = append(reps, i)
			counts = append(counts, 0)
		}
		inverse[i] = int64(len(reps) - 1)
		counts[len(counts)-1]++
	}
	return reps, inverse, counts
}

func uniqueResults(x *literal.Literal, consecutive, retInverse, retCounts bool) ([]Value, error) {
	if x.DType.IsComplex() {
		return nil, fmt.Errorf("unique: complex tensors are not supported")
	}
	reps, inverse, counts := uniqueOf(x, consecutive)
	vals, err := literal.New(x.DType, []int64{int64(len(reps))})
	if err != nil {
		return nil, err
	}
	for k, i := range reps {
		copyElem(vals, k, x, i)
	}
	inv, _ := literal.New(dtype.I64, []int64{0})
	if retInverse {
		if inv, err = literal.New(dtype.I64, x.Shape); err != nil {
			return nil, err
		}
		for i, v := range inverse {
			inv.SetInt64(i, v)
		}
	}
	cnt, _ := literal.New(dtype.I64, []int64{0})
	if retCounts {
		cnt, _ = literal.New(dtype.I64, []int64{int64(len(counts))})
		for i, v := range counts {
			cnt.SetInt64(i, v)
		}
	}
	return []Value{LiteralValue(vals), LiteralValue(inv), LiteralValue(cnt)}, nil
}

func hostUnique2(_ *HostCtx, a *Args) ([]Value, error) {
	x := a.Literal("self")
	inv, cnt := a.Bool("return_inverse"), a.Bool("return_counts")
	if a.Err() != nil {
		return nil, a.Err()
	}
	out, err := uniqueResults(x, false, inv, cnt)
	if err != nil {
		return nil, fmt.Errorf("_unique2: %w", err)
	}
	return out, nil
}

func hostUnique(_ *HostCtx, a *Args) ([]Value, error) {
	x := a.Literal("self")
	inv := a.Bool("return_inverse")
	if a.Err() != nil {
		return nil, a.Err()
	}
	out, err := uniqueResults(x, false, inv, false)
	if err != nil {
		return nil, fmt.Errorf("_unique: %w", err)
	}
	return out[:2], nil
}

func hostUniqueConsecutive(_ *HostCtx, a *Args) ([]Value, error) {
	x := a.Literal("self")
	inv, cnt := a.Bool("return_inverse"), a.Bool("return_counts")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if dim, ok := a.OptInt("dim"); ok {
		vals, iv, cv, err := uniqueSlices(x, dim, true)
		if err != nil {
			return nil, fmt.Errorf("unique_consecutive: %w", err)
		}
		empty, _ := literal.New(dtype.I64, []int64{0})
		if !inv {
			iv = empty
		}
		if !cnt {
			cv = empty
		}
		return []Value{LiteralValue(vals), LiteralValue(iv), LiteralValue(cv)}, nil
	}
	out, err := uniqueResults(x, true, inv, cnt)
	if err != nil {
		return nil, fmt.Errorf("unique_consecutive: %w", err)
	}
	return out, nil
}
