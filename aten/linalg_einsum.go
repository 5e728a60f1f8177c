package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// einsum: each operand first sums out the labels nobody else needs, then
// operands fold left to right with one dot_general each (labels shared and
// still needed become batch dims, shared and finished ones contract), and
// the result is transposed to the output order.

func init() {
	lower("aten::einsum", lowerEinsum)
}

// labelled is a value with one label per dim.
type labelled struct {
	v      *stablehlo.Value
	labels []int
}

func indexOfLabel(ls []int, l int) int {
	for i, x := range ls {
		if x == l {
			return i
		}
	}
	return -1
}

// sumOut reduces the dims whose labels are not in keep.
func sumOut(c *LowerCtx, t labelled, keep func(int) bool) labelled {
	var dims []int64
	var rest []int
	for i, l := range t.labels {
		if keep(l) {
			rest = append(rest, l)
		} else {
			dims = append(dims, int64(i))
		}
	}
	if len(dims) == 0 {
		return t
	}
	return labelled{c.Reduce(t.v, dims, "add", 0), rest}
}

func lowerEinsum(c *LowerCtx, a *Args) ([]Value, error) {
	eq := a.Str("equation")
	xs := a.Tensors("tensors")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if len(xs) == 0 {
		return nil, c.Errorf("einsum(): must provide at least one operand")
	}
	ranks := make([]int, len(xs))
	for i, x := range xs {
		if x == nil {
			return nil, c.Errorf("einsum(): operand %d is missing", i)
		}
		ranks[i] = c.Rank(x)
	}
	spec, err := parseEinsum(eq, ranks)
	if err != nil {
		return nil, c.Errorf("%w", err)
	}
	dt := c.DType(xs[0])
	for _, x := range xs[1:] {
		if c.DType(x) != dt {
			return nil, c.Errorf("einsum(): operands must have the same dtype, got %v and %v", dt.Torch(), c.DType(x).Torch())
		}
	}
	cdt := OpMath(dt)
	// A label repeated within one operand takes that operand's diagonal.
	for i := range xs {
		labels := append([]int(nil), spec.inputs[i]...)
		for {
			p, q := repeatedLabel(labels)
			if p < 0 {
				break
			}
			xs[i] = diagonalOf(c, xs[i], 0, p, q)
			l := labels[p]
			labels = append(append(append(append([]int(nil), labels[:p]...), labels[p+1:q]...), labels[q+1:]...), l)
		}
		spec.inputs[i] = labels
	}
	// Sizes per label, broadcasting size-1 ellipsis dims.
	size := map[int]int64{}
	for i, x := range xs {
		for j, l := range spec.inputs[i] {
			s := c.Shape(x)[j]
			if old, ok := size[l]; ok && old != s && old != 1 && s != 1 {
				return nil, c.Errorf("einsum %q: operand %d has size %d for subscript %q, expected %d", eq, i, s, rune(l), old)
			}
			if old, ok := size[l]; !ok || old == 1 {
				size[l] = s
			}
		}
	}
	inOutput := func(l int) bool { return indexOfLabel(spec.output, l) >= 0 }
	neededAfter := func(k int, l int) bool {
		if inOutput(l) {
			return true
		}
		for j := k + 1; j < len(xs); j++ {
			if indexOfLabel(spec.inputs[j], l) >= 0 {
				return true
			}
		}
		return false
	}
	ops := make([]labelled, len(xs))
	presummed := false
	for i, x := range xs {
		t := labelled{c.Convert(x, cdt), spec.inputs[i]}
		ops[i] = sumOut(c, t, func(l int) bool {
			if inOutput(l) {
				return true
			}
			for j := range xs {
				if j != i && indexOfLabel(spec.inputs[j], l) >= 0 {
					return true
				}
			}
			return false
		})
		presummed = presummed || len(ops[i].labels) < len(t.labels)
	}
	acc := ops[0]
	for k := 1; k < len(ops); k++ {
		nxt := ops[k]
		// Broadcast size-1 dims that meet a larger size in the other operand.
		acc.v = broadcastLabels(c, acc, size)
		nxt.v = broadcastLabels(c, nxt, size)
		var lb, rb, lc, rc []int64
		var batch, contract []int
		for i, l := range acc.labels {
			if j := indexOfLabel(nxt.labels, l); j >= 0 {
				if neededAfter(k, l) {
					lb, rb = append(lb, int64(i)), append(rb, int64(j))
					batch = append(batch, l)
				} else {
					lc, rc = append(lc, int64(i)), append(rc, int64(j))
					contract = append(contract, l)
				}
			}
		}
		labels := append([]int(nil), batch...)
		for _, l := range acc.labels {
			if indexOfLabel(nxt.labels, l) < 0 {
				labels = append(labels, l)
			}
		}
		for _, l := range nxt.labels {
			if indexOfLabel(acc.labels, l) < 0 {
				labels = append(labels, l)
			}
		}
		v := dotGeneral(c, acc.v, nxt.v, lb, rb, lc, rc)
		acc = sumOut(c, labelled{v, labels}, func(l int) bool { return neededAfter(k, l) })
	}
	acc = sumOut(c, acc, inOutput)
	if presummed && (dt.IsInteger() || dt == dtype.Bool) {
		// Labels only one operand has are summed out with sum(), which
		// gives integers (and bool) as int64.
		dt = dtype.I64
	}
	perm := make([]int64, len(spec.output))
	for i, l := range spec.output {
		perm[i] = int64(indexOfLabel(acc.labels, l))
	}
	out := emitTranspose(c, acc.v, perm)
	return one(c.Convert(out, dt)), nil
}

// broadcastLabels expands size-1 dims of t to the label's full size.
func broadcastLabels(c *LowerCtx, t labelled, size map[int]int64) *stablehlo.Value {
	shape := c.Shape(t.v)
	want := append([]int64(nil), shape...)
	changed := false
	for i, l := range t.labels {
		if shape[i] == 1 && size[l] != 1 {
			want[i] = size[l]
			changed = true
		}
	}
	if !changed {
		return t.v
	}
	return c.BroadcastInDim(t.v, want, seqI64(len(want)))
}

// repeatedLabel returns the positions of the first label that occurs twice.
func repeatedLabel(ls []int) (int, int) {
	for p := range ls {
		for q := p + 1; q < len(ls); q++ {
			if ls[p] == ls[q] {
				return p, q
			}
		}
	}
	return -1, -1
}
