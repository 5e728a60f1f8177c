package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// pad and dynamic_pad: edge padding (negative crops) and interior padding.

func init() {
	register("stablehlo.pad", kPad)
	register("stablehlo.dynamic_pad", kDynamicPad)
}

func kPad(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	var cfg [3][]int64
	for i, name := range []string{"edge_padding_low", "edge_padding_high", "interior_padding"} {
		v, err := mvInts(op, name)
		if err != nil {
			return nil, err
		}
		cfg[i] = v
	}
	return mvPad(env, op, in, cfg[0], cfg[1], cfg[2])
}

func kDynamicPad(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	var cfg [3][]int64
	for i, what := range []string{"edge_padding_low", "edge_padding_high", "interior_padding"} {
		l, err := tensorArg(op, in, i+2)
		if err != nil {
			return nil, err
		}
		if cfg[i], err = mvIndexList(op, l, what); err != nil {
			return nil, err
		}
	}
	return mvPad(env, op, in[:2], cfg[0], cfg[1], cfg[2])
}

// mvPad pads in[0] with the scalar in[1]: operand element i of dim d lands
// at low[d] + i*(interior[d]+1), and is dropped when that falls outside
// the result.
func mvPad(env Env, op *stablehlo.Op, in []Value, low, high, interior []int64) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	pv, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	if pv.DType != x.DType || pv.Len() != 1 {
		return nil, fmt.Errorf("%s: padding value %v must be a scalar of the operand's type %v", op.Name, pv, x)
	}
	r := x.Rank()
	if len(low) != r || len(high) != r || len(interior) != r {
		return nil, fmt.Errorf("%s: low %v, high %v and interior %v must have one entry per dim of %v", op.Name, low, high, interior, x)
	}
	shape := make([]int64, r)
	for d := 0; d < r; d++ {
		if interior[d] < 0 {
			return nil, fmt.Errorf("%s: negative interior padding %v", op.Name, interior)
		}
		n := x.Shape[d]
		if n > 0 {
			n += (n - 1) * interior[d]
		}
		shape[d] = low[d] + n + high[d]
		if shape[d] < 0 {
			return nil, fmt.Errorf("%s: padding low %v, high %v, interior %v of %v gives a negative dim", op.Name, low, high, interior, x)
		}
	}
	if err := mvCheckShape(op, 0, shape); err != nil {
		return nil, err
	}
	out, err := mvTake(env, op, x.DType, shape)
	if err != nil {
		return nil, err
	}
	fillElem(out.Data, pv.Data)

	// Per dim, the operand indices [lo, hi] that land inside the result.
	xs := literal.Strides(x.Shape)
	ostr := literal.Strides(shape)
	box := make([]int64, r)
	dst := make([]int64, r)
	src := make([]int64, r)
	var dOff, sOff int64
	for d := 0; d < r; d++ {
		step := interior[d] + 1
		lo := int64(0)
		if low[d] < 0 {
			lo = (-low[d] + step - 1) / step
		}
		hi := x.Shape[d] - 1
		if last := (shape[d] - 1 - low[d]); last < 0 {
			hi = -1
		} else if last/step < hi {
			hi = last / step
		}
		if hi < lo {
			return []Value{out}, nil
		}
		box[d] = hi - lo + 1
		dOff += (low[d] + lo*step) * ostr[d]
		sOff += lo * xs[d]
		dst[d] = ostr[d] * step
		src[d] = xs[d]
	}
	copyBox(x.DType.Size(), box, out.Data, dOff, dst, x.Data, sOff, src)
	return []Value{out}, nil
}
