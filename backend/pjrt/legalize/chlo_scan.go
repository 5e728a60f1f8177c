package legalize

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// rewriteScan lowers chlo.scan to a stablehlo.while: the loop carries a
// step counter, the inputs, the stacked outputs (zeros at first) and the
// carries; each step slices the inputs at its position along dimension
// (counting down when is_reverse), runs a copy of the body on the slices
// and the carries, and writes the body's outputs at that position.
func rewriteScan(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	seg, ok := op.Ints("operandSegmentSizes")
	if !ok || len(seg) != 2 || int(seg[0]+seg[1]) != len(op.Operands) || seg[0] < 1 {
		return nil, nil, fmt.Errorf("chlo.scan: operandSegmentSizes must split the %d operands into inputs and inits", len(op.Operands))
	}
	n, m := int(seg[0]), int(seg[1])
	nOut := len(op.Results) - m
	if nOut < 0 || len(op.Regions) != 1 || op.Regions[0].Entry() == nil {
		return nil, nil, fmt.Errorf("chlo.scan: %d results for %d carries, want a body region", len(op.Results), m)
	}
	body := op.Regions[0].Entry()
	if len(body.Args) != n+m || len(body.Ops) == 0 || body.Ops[len(body.Ops)-1].Name != "stablehlo.return" {
		return nil, nil, fmt.Errorf("chlo.scan: the body takes %d arguments and must end with stablehlo.return", len(body.Args))
	}
	dim64, _ := op.Int("dimension")
	rev, _ := op.Bool("is_reverse")
	inputs := op.Operands[:n]
	in0 := stablehlo.AsTensor(inputs[0].Type)
	if in0 == nil || !in0.IsStatic() || dim64 < 0 || int(dim64) >= in0.Rank() {
		return nil, nil, fmt.Errorf("chlo.scan: dimension %d of %v", dim64, inputs[0].Type)
	}
	d := int(dim64)
	length := in0.Shape[d]
	fb := stablehlo.NewOpsBuilder(op.Loc)
	var outInit []*stablehlo.Value
	for k := 0; k < nOut; k++ {
		rt := stablehlo.AsTensor(op.Results[k].Type)
		if rt == nil || !rt.IsStatic() {
			return nil, nil, fmt.Errorf("chlo.scan: result %d of type %v", k, op.Results[k].Type)
		}
		z, err := literal.New(rt.DType(), nil)
		if err != nil {
			return nil, nil, err
		}
		outInit = append(outInit, fb.BroadcastInDim(fb.Constant(z), rt.Shape, nil))
	}
	inits := append([]*stablehlo.Value{fb.ScalarInt(dtype.I64, 0)}, inputs...)
	inits = append(inits, outInit...)
	inits = append(inits, op.Operands[n:]...)
	cond := func(b *stablehlo.FuncBuilder, a []*stablehlo.Value) []*stablehlo.Value {
		return []*stablehlo.Value{b.Compare("LT", a[0], b.ScalarInt(dtype.I64, length), "SIGNED")}
	}
	loop := func(b *stablehlo.FuncBuilder, a []*stablehlo.Value) []*stablehlo.Value {
		t := a[0]
		ins, outs, carries := a[1:1+n], a[1+n:1+n+nOut], a[1+n+nOut:]
		idx := t
		if rev {
			idx = b.Sub(b.ScalarInt(dtype.I64, length-1), t)
		}
		starts := func(rank int) []*stablehlo.Value {
			s := make([]*stablehlo.Value, rank)
			for i := range s {
				s[i] = b.ScalarInt(dtype.I64, 0)
			}
			s[d] = idx
			return s
		}
		vmap := map[*stablehlo.Value]*stablehlo.Value{}
		for i, x := range ins {
			xt := stablehlo.AsTensor(x.Type)
			sizes := append([]int64{}, xt.Shape...)
			sizes[d] = 1
			sl := b.DynamicSlice(x, starts(xt.Rank()), sizes)
			vmap[body.Args[i]] = b.Reshape(sl, append(append([]int64{}, xt.Shape[:d]...), xt.Shape[d+1:]...)...)
		}
		for j, c := range carries {
			vmap[body.Args[n+j]] = c
		}
		for _, o := range body.Ops[:len(body.Ops)-1] {
			b.Append(cloneOp(o, vmap))
		}
		ret := body.Ops[len(body.Ops)-1]
		rets := make([]*stablehlo.Value, len(ret.Operands))
		for i, v := range ret.Operands {
			if mv, ok := vmap[v]; ok {
				v = mv
			}
			rets[i] = v
		}
		if len(rets) != nOut+m {
			return nil // the while's type check reports it
		}
		next := []*stablehlo.Value{b.Add(t, b.ScalarInt(dtype.I64, 1))}
		next = append(next, ins...)
		for k := 0; k < nOut; k++ {
			ot := stablehlo.AsTensor(outs[k].Type)
			upd := b.Reshape(rets[k], append(append(append([]int64{}, ot.Shape[:d]...), 1), ot.Shape[d+1:]...)...)
			next = append(next, b.DynamicUpdateSlice(outs[k], upd, starts(ot.Rank())))
		}
		return append(next, rets[nOut:]...)
	}
	res := fb.While(inits, cond, loop)
	if err := fb.Err(); err != nil {
		return nil, nil, fmt.Errorf("chlo.scan: %w", err)
	}
	if len(res) != 1+n+nOut+m || res[0] == nil {
		return nil, nil, fmt.Errorf("chlo.scan: the body returns a wrong number of values")
	}
	return fb.Ops(), append(res[1+n:1+n+nOut:1+n+nOut], res[1+n+nOut:]...), nil
}
