package aten

import (
	"fmt"
	"math"
	"sort"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// unique_dim on the host: the distinct slices along dim, sorted
// lexicographically (element by element in row-major order), with the
// inverse map and counts; unique_consecutive with a dim keeps the order
// and merges runs of equal slices.

func init() {
	Register(Entry{Name: "aten::unique_dim", Kind: HostFallback, Host: hostUniqueDim})
}

func hostUniqueDim(_ *HostCtx, a *Args) ([]Value, error) {
	x := a.Literal("self")
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	vals, inv, cnt, err := uniqueSlices(x, dim, false)
	if err != nil {
		return nil, err
	}
	// unique_dim always returns the inverse and the counts (PyTorch's CPU
	// kernel ignores return_inverse / return_counts here).
	return []Value{LiteralValue(vals), LiteralValue(inv), LiteralValue(cnt)}, nil
}

// uniqueSlices returns the distinct slices of x along dim (sorted, or the
// runs of equal consecutive slices), the inverse map and the counts.
func uniqueSlices(x *literal.Literal, dim int64, consecutive bool) (vals, inv, cnt *literal.Literal, err error) {
	if x.Rank() == 0 {
		return nil, nil, nil, fmt.Errorf("unique_dim: expected a tensor with at least one dimension")
	}
	if x.DType.IsComplex() {
		return nil, nil, nil, fmt.Errorf("unique_dim: complex tensors are not supported")
	}
	d, err := canonDim(dim, x.Rank())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("unique_dim: %w", err)
	}
	n := x.Shape[d]
	outer := numelOf(x.Shape[:d])
	inner := numelOf(x.Shape[d+1:])
	// elem returns element k (row-major over the other dims) of slice s.
	elem := func(s, k int64) int {
		o, i := k/inner, k%inner
		return int((o*n+s)*inner + i)
	}
	per := outer * inner
	less := func(p, q int64) int {
		for k := int64(0); k < per; k++ {
			i, j := elem(p, k), elem(q, k)
			var a, b float64
			if x.DType.IsFloat() {
				a, b = x.Float64(i), x.Float64(j)
				if math.IsNaN(a) || math.IsNaN(b) {
					switch {
					case math.IsNaN(a) && math.IsNaN(b):
						continue
					case math.IsNaN(a):
						return 1
					default:
						return -1
					}
				}
			} else if x.DType.IsUnsigned() {
				ua, ub := x.Uint64(i), x.Uint64(j)
				if ua != ub {
					if ua < ub {
						return -1
					}
					return 1
				}
				continue
			} else {
				ia, ib := x.Int64(i), x.Int64(j)
				if ia != ib {
					if ia < ib {
						return -1
					}
					return 1
				}
				continue
			}
			if a != b {
				if a < b {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	order := make([]int64, n)
	for i := range order {
		order[i] = int64(i)
	}
	if !consecutive {
		sort.SliceStable(order, func(i, j int) bool { return less(order[i], order[j]) < 0 })
	}
	var reps []int64
	var counts []int64
	inverse := make([]int64, n)
	for k, s := range order {
		if k == 0 || less(order[k-1], s) != 0 {
			reps = append(reps, s)
			counts = append(counts, 0)
		}
		inverse[s] = int64(len(reps) - 1)
		counts[len(counts)-1]++
	}
	shape := append([]int64(nil), x.Shape...)
	shape[d] = int64(len(reps))
	vals, err = literal.New(x.DType, shape)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("unique_dim: %w", err)
	}
	m := int64(len(reps))
	for o := int64(0); o < outer; o++ {
		for u, s := range reps {
			for i := int64(0); i < inner; i++ {
				copyElem(vals, int((o*m+int64(u))*inner+i), x, int((o*n+s)*inner+i))
			}
		}
	}
	inv, _ = literal.New(dtype.I64, []int64{n})
	for i, v := range inverse {
		inv.SetInt64(i, v)
	}
	cnt, _ = literal.New(dtype.I64, []int64{m})
	for i, v := range counts {
		cnt.SetInt64(i, v)
	}
	return vals, inv, cnt, nil
}
