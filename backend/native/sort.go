package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/backend/native/introsort"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// sort: sorts 1-d slices of all inputs together along one dimension with a
// comparator region. A stable sort is a merge sort; is_stable = false
// runs libstdc++'s std::sort (package introsort), the algorithm behind
// PyTorch's CPU sort with stable=False, so that ties come out in
// PyTorch's order.
// Both are deterministic.

func init() {
	register("stablehlo.sort", kSort)
}

func kSort(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("%s: no operands", op.Name)
	}
	xs, err := mvTensors(op, in, 0, len(in))
	if err != nil {
		return nil, err
	}
	for i, x := range xs {
		if !mvSameShape(x.Shape, xs[0].Shape) {
			return nil, fmt.Errorf("%s: operand #%d %v and operand #0 %v differ in shape", op.Name, i, x, xs[0])
		}
	}
	dim := int64(-1)
	if op.Attr("dimension") != nil {
		if dim, err = mvInt(op, "dimension"); err != nil {
			return nil, err
		}
	}
	r := xs[0].Rank()
	if dim < 0 {
		dim += int64(r)
	}
	if r == 0 {
		// A 0-d sort is the identity.
		return append([]Value{}, in...), nil
	}
	if err := mvAxis(op, "dimension", dim, r); err != nil {
		return nil, err
	}
	if len(op.Regions) == 0 || op.Regions[0].Entry() == nil {
		return nil, fmt.Errorf("%s: missing comparator region", op.Name)
	}
	cmp := op.Regions[0]
	shape := xs[0].Shape
	n := shape[dim]
	inner := mvProd(shape[dim+1:])
	outer := mvProd(shape[:dim])

	outs := make([]*literal.Literal, len(xs))
	for i, x := range xs {
		if err := mvCheckShape(op, i, x.Shape); err != nil {
			return nil, err
		}
		if outs[i], err = mvNew(op, x.DType, x.Shape); err != nil {
			return nil, err
		}
	}
	if n == 0 || outer*inner == 0 {
		return mvValues(outs), nil
	}

	var cmpErr error
	args := make([]Value, 2*len(xs))
	var base int64 // flat index of element 0 of the current slice
	view := func(x *literal.Literal, k int64) []byte {
		esz := int64(x.DType.Size())
		a := (base + k*inner) * esz
		return x.Data[a : a+esz : a+esz]
	}
	scalar := func(x *literal.Literal, k int64) *literal.Literal {
		return &literal.Literal{DType: x.DType, Shape: []int64{}, Data: view(x, k)}
	}
	prog := compileCmp(cmp)
	if prog != nil && len(cmp.Entry().Args) != 2*len(xs) {
		prog = nil
	}
	if prog != nil {
		for i, x := range xs {
			if 2*i+1 >= len(prog.slots) || prog.slots[2*i].DType != x.DType || prog.slots[2*i+1].DType != x.DType {
				prog = nil
				break
			}
		}
	}
	less := func(a, b int64) bool {
		if prog != nil {
			for i, x := range xs {
				prog.slots[2*i].Data = view(x, a)
				prog.slots[2*i+1].Data = view(x, b)
			}
			return prog.run()
		}
		if cmpErr != nil {
			return false
		}
		for i, x := range xs {
			args[2*i], args[2*i+1] = scalar(x, a), scalar(x, b)
		}
		res, err := env.CallRegion(cmp, args)
		if err == nil {
			var ok bool
			ok, err = mvPredicate(res)
			if err == nil {
				return ok
			}
		}
		cmpErr = fmt.Errorf("%s: comparator: %w", op.Name, err)
		return false
	}

	stable := true
	if b, ok := op.Attr("is_stable").(stablehlo.BoolAttr); ok {
		stable = bool(b)
	}
	perm := make([]int64, n)
	tmp := make([]int64, n)
	for o := int64(0); o < outer; o++ {
		for i := int64(0); i < inner; i++ {
			base = o*n*inner + i
			for k := range perm {
				perm[k] = int64(k)
			}
			if stable {
				mvMergeSort(perm, tmp, less)
			} else {
				introsort.Sort(perm, less)
			}
			if cmpErr != nil {
				return nil, cmpErr
			}
			for t, x := range xs {
				esz := int64(x.DType.Size())
				for k, p := range perm {
					d := (base + int64(k)*inner) * esz
					s := (base + p*inner) * esz
					copy(outs[t].Data[d:d+esz], x.Data[s:s+esz])
				}
			}
		}
		if err := env.Context().Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
	}
	return mvValues(outs), nil
}

// mvPredicate reads a region's single i1 result.
func mvPredicate(res []Value) (bool, error) {
	if len(res) != 1 {
		return false, fmt.Errorf("returned %d values, want one i1", len(res))
	}
	l, ok := res[0].(*literal.Literal)
	if !ok || l.DType != dtype.Bool || l.Len() != 1 {
		return false, fmt.Errorf("returned %v, want a tensor<i1>", res[0])
	}
	return l.Data[0] != 0, nil
}

// mvMergeSort sorts p stably by less, using tmp (same length) as scratch.
func mvMergeSort(p, tmp []int64, less func(a, b int64) bool) {
	n := len(p)
	if n <= 12 {
		for i := 1; i < n; i++ {
			v := p[i]
			j := i
			for ; j > 0 && less(v, p[j-1]); j-- {
				p[j] = p[j-1]
			}
			p[j] = v
		}
		return
	}
	m := n / 2
	mvMergeSort(p[:m], tmp[:m], less)
	mvMergeSort(p[m:], tmp[m:], less)
	if !less(p[m], p[m-1]) {
		return // already in order
	}
	copy(tmp, p)
	i, j, k := 0, m, 0
	for i < m && j < n {
		if less(tmp[j], tmp[i]) {
			p[k] = tmp[j]
			j++
		} else {
			p[k] = tmp[i]
			i++
		}
		k++
	}
	k += copy(p[k:], tmp[i:m])
	copy(p[k:], tmp[j:n])
}

// mvSameShape compares two shapes.
func mvSameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mvValues converts literals to values.
func mvValues(ls []*literal.Literal) []Value {
	out := make([]Value, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}
