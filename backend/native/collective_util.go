package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
)

// splitAlong cuts l into n equal parts along dim.
func splitAlong(l *literal.Literal, dim, n int) ([]*literal.Literal, error) {
	if dim < 0 || dim >= len(l.Shape) || n <= 0 || l.Shape[dim]%int64(n) != 0 {
		return nil, fmt.Errorf("cannot split %v into %d parts along dimension %d", l, n, dim)
	}
	outer, inner := outerInner(l.Shape, dim)
	part := l.Shape[dim] / int64(n)
	sz := int64(l.DType.Size())
	row := l.Shape[dim] * inner * sz
	chunk := part * inner * sz
	out := make([]*literal.Literal, n)
	for k := range out {
		shape := append([]int64{}, l.Shape...)
		shape[dim] = part
		p, err := literal.New(l.DType, shape)
		if err != nil {
			return nil, err
		}
		for o := int64(0); o < outer; o++ {
			copy(p.Data[o*chunk:(o+1)*chunk], l.Data[o*row+int64(k)*chunk:])
		}
		out[k] = p
	}
	return out, nil
}

// concatAlong joins tensors of equal shape but for dim.
func concatAlong(ls []*literal.Literal, dim int) (*literal.Literal, error) {
	if len(ls) == 0 {
		return nil, fmt.Errorf("nothing to concatenate")
	}
	first := ls[0]
	if dim < 0 || dim >= len(first.Shape) {
		return nil, fmt.Errorf("dimension %d out of range for %v", dim, first)
	}
	shape := append([]int64{}, first.Shape...)
	shape[dim] = 0
	for _, l := range ls {
		if l.DType != first.DType || len(l.Shape) != len(first.Shape) {
			return nil, fmt.Errorf("cannot concatenate %v and %v", first, l)
		}
		for d := range l.Shape {
			if d != dim && l.Shape[d] != first.Shape[d] {
				return nil, fmt.Errorf("cannot concatenate %v and %v along %d", first, l, dim)
			}
		}
		shape[dim] += l.Shape[dim]
	}
	out, err := literal.New(first.DType, shape)
	if err != nil {
		return nil, err
	}
	outer, inner := outerInner(shape, dim)
	sz := int64(first.DType.Size())
	pos := int64(0)
	for o := int64(0); o < outer; o++ {
		for _, l := range ls {
			n := l.Shape[dim] * inner * sz
			copy(out.Data[pos:pos+n], l.Data[o*n:(o+1)*n])
			pos += n
		}
	}
	return out, nil
}

// outerInner returns the products of the dims before and after dim.
func outerInner(shape []int64, dim int) (outer, inner int64) {
	outer, inner = 1, 1
	for d, n := range shape {
		switch {
		case d < dim:
			outer *= n
		case d > dim:
			inner *= n
		}
	}
	return outer, inner
}
