package collective

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/literal"
)

// Reference computes every rank's result of call c on the host from every
// rank's input (inputs[r] is rank r's tensor): what the program must give,
// and what a c10d backend staging through host memory gives. Values are
// combined in float64 (int64 for integers) and rounded once to the dtype.
func Reference(c Call, inputs []*literal.Literal) ([]*literal.Literal, error) {
	c = c.normal()
	if len(inputs) != c.World {
		return nil, fmt.Errorf("collective %s: %d inputs for %d ranks", c.Kind, len(inputs), c.World)
	}
	n := inputs[0].Len()
	for _, in := range inputs {
		if in.Len() != n {
			return nil, fmt.Errorf("collective %s: the ranks' tensors differ in size", c.Kind)
		}
	}
	w := c.World
	out := make([]*literal.Literal, w)
	newLike := func(shape []int64) (*literal.Literal, error) { return literal.New(c.DType, shape) }
	integer := c.DType.IsInteger() || c.DType.IsBool()
	get := func(l *literal.Literal, i int) float64 {
		if integer {
			return float64(l.Int64(i))
		}
		return l.Float64(i)
	}
	set := func(l *literal.Literal, i int, v float64) {
		if integer {
			l.SetInt64(i, int64(v))
		} else {
			l.SetFloat64(i, v)
		}
	}
	// reduce folds element i of every rank's input.
	reduce := func(i int) float64 {
		acc := get(inputs[0], i)
		for r := 1; r < w; r++ {
			v := get(inputs[r], i)
			switch c.Reduce {
			case "", Sum, Avg:
				acc += v
			case Product:
				acc *= v
			case Min:
				acc = math.Min(acc, v)
			case Max:
				acc = math.Max(acc, v)
			}
		}
		if c.Reduce == Avg {
			acc /= float64(w)
			if integer {
				acc = math.Trunc(acc)
			}
		}
		return acc
	}
	var err error
	switch c.Kind {
	case AllReduce, Barrier:
		for r := range out {
			if out[r], err = newLike(c.Shape); err != nil {
				return nil, err
			}
			for i := 0; i < n; i++ {
				set(out[r], i, reduce(i))
			}
		}
	case AllGather:
		for r := range out {
			if out[r], err = newLike(scaled(c.Shape, int64(w), 1)); err != nil {
				return nil, err
			}
			for q := 0; q < w; q++ {
				for i := 0; i < n; i++ {
					set(out[r], q*n+i, get(inputs[q], i))
				}
			}
		}
	case ReduceScatter:
		m := n / w
		for r := range out {
			if out[r], err = newLike(scaled(c.Shape, 1, int64(w))); err != nil {
				return nil, err
			}
			for i := 0; i < m; i++ {
				set(out[r], i, reduce(r*m+i))
			}
		}
	case AllToAll:
		m := n / w
		for r := range out {
			if out[r], err = newLike(c.Shape); err != nil {
				return nil, err
			}
			for q := 0; q < w; q++ {
				for i := 0; i < m; i++ {
					set(out[r], q*m+i, get(inputs[q], r*m+i))
				}
			}
		}
	case Broadcast:
		for r := range out {
			out[r] = inputs[c.Root].Clone()
		}
	case Permute:
		for r := range out {
			if out[r], err = newLike(c.Shape); err != nil {
				return nil, err
			}
		}
		for _, p := range c.Pairs {
			out[p[1]] = inputs[p[0]].Clone()
		}
	default:
		return nil, fmt.Errorf("collective %q: no reference", c.Kind)
	}
	return out, nil
}
