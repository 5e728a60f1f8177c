package capi

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
)

// Element types cross the ABI as PyTorch's c10::ScalarType numbers, so a
// caller holding a torch.Tensor passes its dtype without a table of its
// own. Only the types torchtpu computes with are accepted.
var scalarTypes = map[int32]dtype.DType{
	0:  dtype.U8,
	1:  dtype.I8,
	2:  dtype.I16,
	3:  dtype.I32,
	4:  dtype.I64,
	5:  dtype.F16,
	6:  dtype.F32,
	7:  dtype.F64,
	9:  dtype.C64,
	10: dtype.C128,
	11: dtype.Bool,
	15: dtype.BF16,
	23: dtype.F8E5M2,
	24: dtype.F8E4M3FN,
	25: dtype.F8E5M2FNUZ,
	26: dtype.F8E4M3FNUZ,
	27: dtype.U16,
	28: dtype.U32,
	29: dtype.U64,
}

var scalarCodes = func() map[dtype.DType]int32 {
	m := map[dtype.DType]int32{}
	for c, d := range scalarTypes {
		m[d] = c
	}
	return m
}()

// DTypeOf returns the element type of a c10::ScalarType number.
func DTypeOf(code int32) (dtype.DType, error) {
	if d, ok := scalarTypes[code]; ok {
		return d, nil
	}
	return dtype.Invalid, fmt.Errorf("dtype code %d is not a torch dtype torchtpu supports", code)
}

// ScalarTypeOf returns the c10::ScalarType number of d.
func ScalarTypeOf(d dtype.DType) (int32, error) {
	if c, ok := scalarCodes[d]; ok {
		return c, nil
	}
	return -1, fmt.Errorf("dtype %v has no torch equivalent", d)
}
