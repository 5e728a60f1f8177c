package native

// Quantized add, as the quant-to-math lowering computes it: both operands
// are requantized to the result type in 32-bit integers, added, the zero
// point subtracted once, and the sum clamped to the storage range.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// quantAdd returns ok=false when the operand and result types are not
// ones this path handles (the caller then dequantizes).
func quantAdd(op *stablehlo.Op, in []Value) ([]Value, bool, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 || len(in) != 2 {
		return nil, false, nil
	}
	ql, qr, qo := quantOfType(op.Operands[0].Type), quantOfType(op.Operands[1].Type), quantOfType(op.Results[0].Type)
	if ql == nil || qr == nil || qo == nil {
		return nil, false, nil
	}
	lhs, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, true, err
	}
	rhs, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, true, err
	}
	if !reduceShapeEq(lhs.Shape, rhs.Shape) {
		return nil, true, fmt.Errorf("%s: operands %v and %v differ in shape", op.Name, lhs, rhs)
	}
	out, err := literal.New(qo.Storage, lhs.Shape)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", op.Name, err)
	}
	if ql.Axis >= 0 || qr.Axis >= 0 || qo.Axis >= 0 {
		// only identical per-axis types with i32 storage
		if ql.String() != qo.String() || qr.String() != qo.String() || qo.Storage.Bits() != 32 {
			return nil, false, nil
		}
		ch, err := quantChannel(qo, lhs.Shape)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", op.Name, err)
		}
		v := make([]int64, lhs.Len())
		for i := range v {
			v[i] = int64(int32(lhs.Int64(i) + rhs.Int64(i) - qo.ZeroPoints[ch(i)]))
		}
		encodeInts(out, v)
		return []Value{out}, true, nil
	}
	a, err := requantizeInts(ql, qo, lhs, dtype.I32)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", op.Name, err)
	}
	b, err := requantizeInts(qr, qo, rhs, dtype.I32)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", op.Name, err)
	}
	zp := qo.ZeroPoints[0]
	wide := qo.Storage.Bits() >= 32
	for i := range a {
		s := int64(int32(a[i] + b[i] - zp))
		if !wide {
			s = min(max(s, qo.StorageMin), qo.StorageMax)
		}
		a[i] = s
	}
	encodeInts(out, a)
	return []Value{out}, true, nil
}
