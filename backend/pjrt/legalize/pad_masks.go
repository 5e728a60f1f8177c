package legalize

// Masks and buckets of padded programs.

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// insertMasks adds @main's size argument and, before each masked op,
// select(iota < n + c, x, fill) on its masked operands.
func (pa *padAnalysis) insertMasks(f *stablehlo.Func) error {
	blk := f.Body.Entry()
	nArg := &stablehlo.Value{Type: stablehlo.Tensor(dtype.I64), Index: len(blk.Args)}
	blk.Args = append(blk.Args, nArg)
	f.Type.Inputs = append(f.Type.Inputs, nArg.Type)
	if len(f.ArgAttrs) > 0 {
		f.ArgAttrs = append(f.ArgAttrs, nil)
	}
	var out []*stablehlo.Op
	for _, op := range blk.Ops {
		for _, m := range pa.masks[op] {
			fb := stablehlo.NewOpsBuilder(op.Loc)
			x := op.Operands[m.operand]
			t := stablehlo.AsTensor(x.Type)
			var keep *stablehlo.Value
			for d, c := range m.dims {
				lim := nArg
				if c != 0 {
					lim = fb.Add(nArg, fb.ScalarInt(dtype.I64, c))
				}
				k := fb.Compare("LT", fb.Iota(stablehlo.Tensor(dtype.I64, t.Shape...), int64(d)), fb.BroadcastInDim(lim, t.Shape, nil), "SIGNED")
				if keep == nil {
					keep = k
				} else {
					keep = fb.And(keep, k)
				}
			}
			fill := fb.BroadcastInDim(fb.Constant(m.fill), t.Shape, nil)
			masked := fb.Select(keep, x, fill)
			if err := fb.Err(); err != nil {
				return err
			}
			out = append(out, fb.Ops()...)
			op.Operands[m.operand] = masked
		}
		out = append(out, op)
	}
	blk.Ops = out
	return nil
}

// Bucket is the pow2 bucket of n (the default policy of a polymorphic
// program on a PJRT device).
func Bucket(n int64) int64 {
	if n <= 1 {
		return n
	}
	if n > math.MaxInt64/4 {
		return n
	}
	b := int64(1)
	for b < n {
		b <<= 1
	}
	return b
}
