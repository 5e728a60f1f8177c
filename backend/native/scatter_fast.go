package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Fast path of scatter for the usual single-input update computation
// `return f(%old, %upd)` (add, multiply, maximum, ...): the elements of one
// window go to distinct result elements, so a whole window is combined
// with one call of f's kernel on 1-d vectors, in the same order as the
// element-by-element schedule.

// scatterBinary is a recognised update computation.
type scatterBinary struct {
	f       *stablehlo.Op
	k       Kernel
	swapped bool // f(%upd, %old)
}

// mvScatterBinary recognises `^bb0(%a, %b): %r = f(%a, %b); return %r`.
func mvScatterBinary(body *stablehlo.Region) *scatterBinary {
	blk := body.Entry()
	if blk == nil || len(blk.Args) != 2 || len(blk.Ops) != 2 {
		return nil
	}
	f, ret := blk.Ops[0], blk.Ops[1]
	if len(f.Operands) != 2 || len(f.Results) != 1 || len(f.Regions) != 0 || len(ret.Operands) != 1 || ret.Operands[0] != f.Results[0] {
		return nil
	}
	a, b := blk.Args[0], blk.Args[1]
	sb := &scatterBinary{f: f, k: kernels[f.Name]}
	switch {
	case f.Operands[0] == a && f.Operands[1] == b:
	case f.Operands[0] == b && f.Operands[1] == a:
		sb.swapped = true
	default:
		return nil
	}
	if sb.k == nil || isQuantType(a.Type) || isQuantType(b.Type) || isQuantType(f.Results[0].Type) {
		return nil
	}
	return sb
}

// apply combines one clipped window: out[box at rOff] = f(out[...], upd[...]).
func (sb *scatterBinary) apply(env Env, op *stablehlo.Op, out, upd *literal.Literal, box []int64, rOff int64, dstStr []int64, uOff int64, srcStr []int64) error {
	n := mvProd(box)
	esz := out.DType.Size()
	old := &literal.Literal{DType: out.DType, Shape: []int64{n}, Data: make([]byte, n*int64(esz))}
	up := &literal.Literal{DType: upd.DType, Shape: []int64{n}, Data: make([]byte, n*int64(upd.DType.Size()))}
	dense := literal.Strides(box)
	copyBox(esz, box, old.Data, 0, dense, out.Data, rOff, dstStr)
	copyBox(upd.DType.Size(), box, up.Data, 0, dense, upd.Data, uOff, srcStr)
	vt := stablehlo.Tensor(out.DType, n)
	ut := stablehlo.Tensor(upd.DType, n)
	ops := []*stablehlo.Value{{Type: vt}, {Type: ut, Index: 1}}
	args := []Value{old, up}
	if sb.swapped {
		ops[0], ops[1] = ops[1], ops[0]
		args[0], args[1] = args[1], args[0]
	}
	shadow := stablehlo.NewOp(sb.f.Name, ops, []stablehlo.Type{vt}, sb.f.Attrs)
	res, err := sb.k(env, shadow, args)
	if err != nil {
		return fmt.Errorf("%s: update_computation: %w", op.Name, err)
	}
	if len(res) != 1 {
		return fmt.Errorf("%s: update_computation returned %d values, want 1", op.Name, len(res))
	}
	l, ok := res[0].(*literal.Literal)
	if !ok || l.DType != out.DType || int64(l.Len()) != n {
		return fmt.Errorf("%s: update_computation returned %v, want %v[%d]", op.Name, res[0], out.DType, n)
	}
	copyBox(esz, box, out.Data, rOff, dstStr, l.Data, 0, dense)
	return nil
}
