package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// chlo.top_k: the k largest elements along the last dim and their indices,
// ordered as CHLO's own lowering does (a stable sort with a GT comparator,
// TOTALORDER for floats: +NaN > +inf > ... > -0 > ... > -inf > -NaN; ties
// keep the lower index first).

func init() {
	register("chlo.top_k", kTopK)
}

func kTopK(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	k, err := mvInt(op, "k")
	if err != nil {
		return nil, err
	}
	if x.Rank() == 0 {
		return nil, fmt.Errorf("%s: operand %v must have rank >= 1", op.Name, x)
	}
	if x.DType.IsComplex() {
		return nil, fmt.Errorf("%s: complex operand %v has no order", op.Name, x)
	}
	n := x.Shape[x.Rank()-1]
	if k < 0 {
		return nil, fmt.Errorf("%s: negative k %d", op.Name, k)
	}
	if k > n {
		k = n
	}
	shape := append(append([]int64{}, x.Shape[:x.Rank()-1]...), k)
	if err := mvCheckShape(op, 0, shape); err != nil {
		return nil, err
	}
	if err := mvCheckShape(op, 1, shape); err != nil {
		return nil, err
	}
	idt := mvResultDType(op, 1, dtype.I32)
	if !idt.IsInteger() {
		return nil, fmt.Errorf("%s: indices must have an integer type, got %v", op.Name, idt)
	}
	vals, err := mvNew(op, x.DType, shape)
	if err != nil {
		return nil, err
	}
	idxs, err := mvNew(op, idt, shape)
	if err != nil {
		return nil, err
	}
	rows := mvProd(x.Shape[:x.Rank()-1])
	if n == 0 || rows == 0 {
		return []Value{vals, idxs}, nil
	}
	esz := int64(x.DType.Size())
	keys := make([]uint64, n)
	perm := make([]int64, n)
	tmp := make([]int64, n)
	greater := func(a, b int64) bool { return keys[a] > keys[b] }
	for r := int64(0); r < rows; r++ {
		for i := int64(0); i < n; i++ {
			keys[i] = mvOrderKey(x, r*n+i)
			perm[i] = i
		}
		if k*8 < n {
			mvTopKHeap(perm, keys, k)
		} else {
			mvMergeSort(perm, tmp, greater)
		}
		for j := int64(0); j < k; j++ {
			s := (r*n + perm[j]) * esz
			d := (r*k + j) * esz
			copy(vals.Data[d:d+esz], x.Data[s:s+esz])
			idxs.SetInt64(int(r*k+j), perm[j])
		}
		if r&255 == 255 {
			if err := env.Context().Err(); err != nil {
				return nil, fmt.Errorf("%s: %w", op.Name, err)
			}
		}
	}
	return []Value{vals, idxs}, nil
}

// mvOrderKey maps element i of a real or integer literal to an unsigned
// key whose order is the element type's total order.
func mvOrderKey(l *literal.Literal, i int64) uint64 {
	d := l.DType
	esz := int64(d.Size())
	var u uint64
	for b := esz - 1; b >= 0; b-- {
		u = u<<8 | uint64(l.Data[i*esz+b])
	}
	switch {
	case d.IsSigned() || d == dtype.Index:
		return uint64(l.Int64(int(i))) ^ 1<<63
	case d.IsFloat() && d != dtype.F8E8M0FNU:
		w := uint(d.Bits())
		sign := uint64(1) << (w - 1)
		mask := sign<<1 - 1
		u &= mask
		if u&sign != 0 {
			return ^u & mask
		}
		return u | sign
	}
	return u
}

// mvTopKHeap puts in perm[:k] the k best positions of keys, best first:
// higher key first, lower position first among equal keys (what a stable
// descending sort gives), in O(n log k). perm must hold 0..n-1.
func mvTopKHeap(perm []int64, keys []uint64, k int64) {
	if k == 0 {
		return
	}
	// worse reports whether position a ranks after position b.
	worse := func(a, b int64) bool { return keys[a] < keys[b] || keys[a] == keys[b] && a > b }
	h := perm[:k] // a heap with the worst kept position at the root
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && worse(h[c+1], h[c]) {
				c++
			}
			if !worse(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := k; i < int64(len(perm)); i++ {
		if worse(h[0], i) {
			h[0] = i
			down(0)
		}
	}
	// Sort the kept positions best first.
	tmp := make([]int64, k)
	mvMergeSort(h, tmp, func(a, b int64) bool { return worse(b, a) })
}
