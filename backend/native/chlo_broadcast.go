package native

// chlo.broadcast_* ops: the StableHLO elementwise op of the same name on
// operands broadcast to a common shape (numpy rules, or the
// broadcast_dimensions attribute of a binary op).

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	for _, name := range []string{
		"add", "and", "atan2", "compare", "complex", "divide", "maximum", "minimum", "multiply",
		"or", "power", "remainder", "select", "shift_left", "shift_right_arithmetic",
		"shift_right_logical", "subtract", "xor",
	} {
		register("chlo.broadcast_"+name, chloBroadcastKernel("stablehlo."+name))
	}
	register("chlo.broadcast_next_after", evalNextAfter)
	register("chlo.broadcast_polygamma", chloBinaryFloat(polygamma))
	register("chlo.broadcast_zeta", chloBinaryFloat(hurwitzZeta))
}

// chloBroadcastKernel broadcasts the operands and runs the kernel of base.
func chloBroadcastKernel(base string) Kernel {
	return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		k, ok := kernels[base]
		if !ok {
			return nil, fmt.Errorf("%s: no kernel for %s", op.Name, base)
		}
		ls := make([]*literal.Literal, len(in))
		for i := range in {
			var err error
			if ls[i], err = tensorArg(op, in, i); err != nil {
				return nil, err
			}
		}
		var shape []int64
		var idx [][]int
		var err error
		if len(ls) == 2 {
			var ia, ib []int
			shape, ia, ib, err = chloBroadcast(op, ls[0], ls[1])
			idx = [][]int{ia, ib}
		} else {
			shape, idx, err = broadcastMany(op.Name, ls)
		}
		if err != nil {
			return nil, err
		}
		args := make([]Value, len(ls))
		operands := make([]*stablehlo.Value, len(ls))
		for i, l := range ls {
			b := &literal.Literal{DType: l.DType, Shape: shape, Data: make([]byte, len(idx[i])*l.DType.Size())}
			sz := l.DType.Size()
			for j, at := range idx[i] {
				copy(b.Data[j*sz:(j+1)*sz], l.Data[at*sz:(at+1)*sz])
			}
			args[i] = b
			t := stablehlo.Tensor(l.DType, shape...)
			if i < len(op.Operands) && op.Operands[i] != nil {
				if ot := stablehlo.AsTensor(op.Operands[i].Type); ot != nil {
					t.Elem = ot.Elem
				}
			}
			operands[i] = &stablehlo.Value{Type: t}
		}
		sh := *op
		sh.Name = base
		sh.Operands = operands
		return k(env, &sh, args)
	}
}

// broadcastMany broadcasts any number of operands by numpy rules and
// returns, per operand, the source index of every result element.
func broadcastMany(name string, ls []*literal.Literal) ([]int64, [][]int, error) {
	r := 0
	for _, l := range ls {
		r = max(r, l.Rank())
	}
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = 1
	}
	for _, l := range ls {
		off := r - l.Rank()
		for i, n := range l.Shape {
			switch {
			case shape[off+i] == 1:
				shape[off+i] = n
			case n != 1 && n != shape[off+i]:
				return nil, nil, fmt.Errorf("%s: operand %v does not broadcast to %v", name, l, shape)
			}
		}
	}
	n := elemCount(shape)
	idx := make([][]int, len(ls))
	for k, l := range ls {
		str := literal.Strides(l.Shape)
		bs := make([]int64, r)
		off := r - l.Rank()
		for i, d := range l.Shape {
			if d != 1 {
				bs[off+i] = str[i]
			}
		}
		out := make([]int, n)
		pos := make([]int64, r)
		for j := 0; j < n; j++ {
			at := int64(0)
			for d := range pos {
				at += pos[d] * bs[d]
			}
			out[j] = int(at)
			for d := r - 1; d >= 0; d-- {
				pos[d]++
				if pos[d] < shape[d] {
					break
				}
				pos[d] = 0
			}
		}
		idx[k] = out
	}
	return shape, idx, nil
}
